"""Convolutions: ``conv_general_dilated_p``, its typing rule, and JAX's ``lax.conv*`` functions.

``conv_general_dilated_p`` is JAX's primitive and XLA's ``Conv`` op: an
n-dimensional convolution (a cross-correlation, the kernel not flipped) of
an input ``lhs`` with a kernel ``rhs``, with window strides, padding, input
(``lhs_dilation``) and kernel (``rhs_dilation``) dilation, and feature or
batch groups. The interpreters' rules are in ``interpreters.convolution``,
the lowering (``stablehlo.convolution``) in ``lowering.convolution``.

Design rules:
- Params have one spelling, which the wrappers produce:
  ``dimension_numbers`` is a ``ConvDimensionNumbers`` of int tuples (each
  spec lists the axes (batch, feature, spatial...) of lhs and the output,
  (out feature, in feature, spatial...) of rhs, the spatial axes in the
  order of rhs's spec); ``padding`` is a tuple of ``(low, high)`` pairs;
  strides and dilations are int tuples, one per spatial axis;
  ``precision`` and ``preferred_element_type`` are ``dot_general``'s.
- Types are JAX's: the operands have one dtype (a weak one takes its
  partner's), the result ``preferred_element_type`` when given (checked as
  ``dot_general``'s), and its shape is JAX's shape rule; a bad combination
  fails at trace time with JAX's reason, naming the primitive and operand
  types.
- The shape rule, ``ConvDimensionNumbers`` and JAX's shape helpers
  (``conv_shape_tuple``, ``padtype_to_pads``, ...) are in
  ``core.lax.convolution_shapes``, listed in this family's ``__all__``.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Final, Unpack

import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.basearray import Value
from didax.core.lax.contractions import _dot_result_dtype, check_product_operands, dot_general
from didax.core.lax.convolution_shapes import (
    ConvDimensionNumbers,
    ConvGeneralDilatedDimensionNumbers,
    ConvParams,
    conv_dimension_numbers,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape,
    conv_shape_tuple,
    conv_transpose_padding,
    conv_transpose_shape_tuple,
    dilate,
    padtype_to_pads,
    take,
)
from didax.core.lax.operands import bind_value
from didax.core.lax.precision import Precision, PrecisionLike
from didax.core.lax.precision import canonicalize_precision as _canonicalize_precision
from didax.core.lax.structural import rev, transpose
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_weak
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "conv_general_dilated_p",
    "ConvDimensionNumbers",
    "ConvGeneralDilatedDimensionNumbers",
    "conv_general_dilated",
    "conv",
    "conv_with_general_padding",
    "conv_transpose",
    "conv_dimension_numbers",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose_shape_tuple",
    "conv_general_dilated_patches",
    "conv_general_dilated_local",
    "padtype_to_pads",
]

conv_general_dilated_p: Final = Primitive("conv_general_dilated")

# --- typing ---------------------------------------------------------------------------


@ABSTRACT_EVAL.defines(conv_general_dilated_p)
def _conv_general_dilated_abstract_eval(
    lhs: ShapedArray, rhs: ShapedArray, **params: Unpack[ConvParams]
) -> ShapedArray:
    check_product_operands(lhs, rhs, params["precision"])
    shape = conv_shape(lhs.shape, rhs.shape, params)
    dtype = _dot_result_dtype(lhs.dtype, params["preferred_element_type"])
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


# --- wrappers -------------------------------------------------------------------------


def conv_general_dilated(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Value:
    """General n-dimensional convolution with dilations and groups (JAX's function, XLA's Conv).

    ``padding`` is ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or ``(low,
    high)`` pairs; ``dimension_numbers`` None (NCHW, OIHW, NCHW), spec
    strings such as ``('NHWC', 'HWIO', 'NHWC')``, or ``ConvDimensionNumbers``;
    ``precision`` and ``preferred_element_type`` as ``dot_general``'s.

    >>> x = np.arange(5.0, dtype=np.float32).reshape(1, 1, 5)
    >>> conv_general_dilated(x, np.ones((1, 1, 2), np.float32), (1,), "VALID")
    Array([[[1., 3., 5., 7.]]], dtype=float32)
    """
    lhs, rhs = coerce_weak(conv_general_dilated_p, (lhs, rhs))
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    n = len(lhs_shape) - 2
    lhs_dil = (1,) * n if lhs_dilation is None else tuple(int(d) for d in lhs_dilation)
    rhs_dil = (1,) * n if rhs_dilation is None else tuple(int(d) for d in rhs_dilation)
    if isinstance(padding, str):
        if lhs_dilation is not None and builtins.any(d != 1 for d in lhs_dil):
            raise ValueError(
                "String padding is not implemented for transposed convolution using this op. "
                "Please either exactly specify the required padding or use conv_transpose."
            )
        window = dilate(take(rhs_shape, dnums.rhs_spec)[2:], rhs_dil)
        in_shape = take(lhs_shape, dnums.lhs_spec)[2:]
        pads = tuple(padtype_to_pads(in_shape, window, window_strides, padding))
    else:
        try:
            pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError(
                "padding argument to conv_general_dilated should be a string or a sequence of "
                f"(low, high) pairs, got {padding}"
            ) from e
    preferred = (
        None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    )
    return bind_value(
        conv_general_dilated_p,
        lhs,
        rhs,
        window_strides=tuple(int(s) for s in window_strides),
        padding=pads,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=_canonicalize_precision(precision),
        preferred_element_type=preferred,
    )


def conv(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Value:
    """``conv_general_dilated`` of operands laid out as NCHW and OIHW (JAX's ``lax.conv``)."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_with_general_padding(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Value:
    """``conv_general_dilated`` with dilations, of NCHW and OIHW operands (JAX's function)."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


_TRANSPOSE_DEFAULTS: Final = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: ArrayLike,
    rhs: ArrayLike,
    strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    transpose_kernel: bool = False,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    use_consistent_padding: bool = False,
) -> Value:
    """A fractionally strided convolution, the "transposed convolution" (JAX's function).

    ``strides`` dilate the input. ``'SAME'``/``'VALID'`` (and, with
    ``use_consistent_padding``, pairs) are the padding of the forward
    convolution this one transposes; otherwise pairs pad the input as given.
    ``transpose_kernel`` flips the kernel's spatial axes and swaps its feature
    axes, so that the result is the gradient of a forward ``conv`` (as
    Keras's ``Conv2DTranspose``). The default layout is TensorFlow's (NHWC,
    HWIO, NHWC).
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    nd = len(lhs_shape)
    if nd != len(rhs_shape) or nd < 2:
        raise TypeError(
            f"conv_transpose needs operands of one rank >= 2, got {lhs_shape} and {rhs_shape}"
        )
    if dimension_numbers is None:
        if nd not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[nd]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel = take(rhs_shape, dn.rhs_spec)[2:]
    rhs_dil = (1,) * (nd - 2) if rhs_dilation is None else tuple(rhs_dilation)
    pads: str | Sequence[tuple[int, int]]
    if use_consistent_padding or padding in ("SAME", "VALID"):
        each: list[str | tuple[int, int]] = (
            [padding] * len(strides)
            if isinstance(padding, str)
            else [(int(lo), int(hi)) for lo, hi in padding]
        )
        pads = tuple(
            conv_transpose_padding(dilate((k,), (r,))[0], s, p)
            for k, r, s, p in zip(kernel, rhs_dil, strides, each, strict=False)
        )
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, dn.rhs_spec[2:])
        perm = list(range(nd))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = transpose(rhs, perm)
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * (nd - 2),
        pads,
        strides,
        rhs_dil,
        dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_patches(
    lhs: ArrayLike,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: Precision | None = None,
    preferred_element_type: DTypeLike | None = None,
) -> Value:
    """The patches a convolution's windows see, flattened into the output's feature axis.

    JAX's function: a convolution with a one-hot kernel, grouped by input
    feature, so the feature axis holds each patch as (feature, spatial...)
    in rhs spec order, ``prod(filter_shape) * features`` long.

    >>> x = np.arange(4.0, dtype=np.float32).reshape(1, 1, 4)
    >>> conv_general_dilated_patches(x, (2,), (1,), "VALID")
    Array([[[0., 1., 2.],
            [1., 2., 3.]]], dtype=float32)
    """
    aval = get_aval(lhs)
    filt = tuple(int(k) for k in filter_shape)
    lhs_spec, rhs_spec, _ = conv_dimension_numbers(aval.shape, (1, 1, *filt), dimension_numbers)
    size = math.prod(filt)
    channels = aval.shape[lhs_spec[1]]
    # One-hot kernel: output feature (c, p) picks spatial position p of input feature c.
    eye = np.broadcast_to(np.eye(size, dtype=aval.dtype), (channels, size, size))
    kernel = np.moveaxis(eye.reshape(channels * size, 1, *filt), (0, 1), (rhs_spec[0], rhs_spec[1]))
    return conv_general_dilated(
        lhs,
        kernel,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        feature_group_count=channels,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: PrecisionLike = None,
) -> Value:
    """An unshared convolution (a locally connected layer): one kernel per output position.

    JAX's function: ``rhs``'s spatial axes are the output's positions, its
    ``I`` axis the flattened (feature, window position) of each patch
    (``conv_general_dilated_patches``), contracted with the patches.
    """
    canonical = _canonicalize_precision(precision)
    patches = conv_general_dilated_patches(
        lhs,
        filter_shape,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        None if canonical is None else canonical[0],
    )
    filt = (1, 1, *(int(k) for k in filter_shape))
    _, rhs_spec, out_spec = conv_dimension_numbers(get_aval(lhs).shape, filt, dimension_numbers)
    out_spatial, rhs_spatial = out_spec[2:], rhs_spec[2:]
    order = sorted(range(len(out_spatial)), key=lambda k: out_spatial[k])
    dims = (
        ((out_spec[1],), (rhs_spec[1],)),
        (tuple(sorted(out_spatial)), tuple(rhs_spatial[k] for k in order)),
    )
    out = dot_general(patches, rhs, dims, precision=precision)
    # (spatial..., batch, out features) -> the output's layout.
    nd = get_aval(out).ndim
    src = [*range(nd - 2), nd - 2, nd - 1]
    dst = [i for i in range(nd) if i not in (out_spec[0], out_spec[1])] + [
        out_spec[0],
        out_spec[1],
    ]
    perm = [0] * nd
    for s, d in zip(src, dst, strict=True):
        perm[d] = s
    return transpose(out, perm)
