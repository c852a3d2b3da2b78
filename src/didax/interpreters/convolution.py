"""The interpreters' rules for ``conv_general_dilated_p`` (``core.lax.convolution``).

Design rules:
- No host impl: eager convolutions take the compiled route (the primitive
  as a one-equation XLA program), so eager values are XLA's (JAX's), bit
  for bit, and XLA's convolution kernels do the work at every size.
- The convolution is bilinear: its jvp is the sum of the two tangent
  convolutions, and its transposes are convolutions of the cotangent with
  the other operand (JAX's ``_conv_general_dilated_transpose_lhs/rhs``):
  for lhs, with the kernel reversed and its feature axes swapped, strides
  and lhs dilation exchanged; for rhs, with batch and feature axes swapped
  and strides and rhs dilation exchanged. Feature groups become batch
  groups in rhs's transpose and the other way round. Every rule keeps the
  equation's ``precision`` and ``preferred_element_type`` (bound directly,
  not through the wrapper, which would read the default precision again).
- Batching folds the batch axis into an axis the convolution already has,
  as JAX's rule: into lhs's batch axis (or its batch groups), into rhs's
  output features (with feature or batch groups kept outermost), and, when
  both are batched, into feature groups (or batch groups).
- Flops are XLA's cost analysis of the compiled program on a CPU: two per
  multiply-add, counting per spatial axis only the (kernel, output)
  position pairs that read a real input element (not padding, not a hole
  of the lhs dilation); and, for the one convolution XLA's CPU compiler
  rewrites (batch groups as many as the batch and the output features),
  the rewritten program's count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.basearray import Value
from didax.core.lax.convolution import conv_general_dilated_p
from didax.core.lax.convolution_shapes import ConvDimensionNumbers, ConvParams
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, add_tangents
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    not_linear,
)

__all__: list[str] = []


def _conv(lhs: ArrayLike, rhs: ArrayLike, **params: Any) -> Value:
    out: Value = conv_general_dilated_p.bind(lhs, rhs, **params)
    return out


def _reshape_axis_into(src: int, dst: int, x: ArrayLike) -> Value:
    """Axis ``src`` merged into axis ``dst`` (numbered without ``src``), as its major part."""
    shape = list(get_aval(x).shape)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    size = shape.pop(src)
    shape[dst] *= size
    return lax.reshape(x, shape, perm)


def _reshape_axis_out_of(src: int, size: int, x: ArrayLike) -> Value:
    """Axis ``src`` split into (``size``, the rest)."""
    shape = list(get_aval(x).shape)
    shape[src : src + 1] = [size, shape[src] // size]
    return lax.reshape(x, shape)


def _convert(x: ArrayLike, aval: ShapedArray) -> ArrayLike:
    if get_aval(x).dtype == aval.dtype:
        return x
    out: Value = lax.convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type)
    return out


# --- jvp ------------------------------------------------------------------------------------


@JVP_RULES.defines(conv_general_dilated_p)
def _conv_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    lhs, rhs = primals
    t_lhs, t_rhs = tangents
    out = _conv(lhs, rhs, **params)
    t_out: Any = Zero.like(get_aval(out))
    if not isinstance(t_lhs, Zero):
        t_out = _conv(t_lhs, rhs, **params)
    if not isinstance(t_rhs, Zero):
        t_out = add_tangents(t_out, _conv(lhs, t_rhs, **params))
    return out, t_out


# --- transpose ------------------------------------------------------------------------------


def _bind(p: ConvParams, lhs: ArrayLike, rhs: ArrayLike, **changes: Any) -> Value:
    """The convolution of ``lhs`` and ``rhs`` with an equation's params ``p``, ``changes`` made."""
    return _conv(lhs, rhs, **{**p, **changes})


def _dilated_sizes(
    p: ConvParams, lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...]
) -> tuple[list[int], list[int], list[int]]:
    """The spatial sizes of lhs, rhs and the result, dilated as the convolution sees them.

    (lhs by its dilation, rhs by its own, the result by the strides.)
    """
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    return (
        _dilated([lhs[i] for i in lhs_spec[2:]], p["lhs_dilation"]),
        _dilated([rhs[i] for i in rhs_spec[2:]], p["rhs_dilation"]),
        _dilated([out[i] for i in out_spec[2:]], p["window_strides"]),
    )


def _dilated(sizes: Sequence[int], dilation: Sequence[int]) -> list[int]:
    return [0 if d == 0 else 1 + r * (d - 1) for d, r in zip(sizes, dilation, strict=True)]


def _swap(spec: Sequence[int]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


@TRANSPOSE_RULES.defines(conv_general_dilated_p)
def _conv_transpose(
    ct: ArrayLike, lhs: PrimalOrUndefined, rhs: PrimalOrUndefined, **params: Unpack[ConvParams]
) -> list[Any]:
    p = params
    if isinstance(lhs, UndefinedPrimal):
        if isinstance(rhs, UndefinedPrimal):
            raise not_linear(conv_general_dilated_p, "both operands are linear inputs")
        return [_transpose_lhs(ct, lhs.aval, rhs, p), None]
    assert isinstance(rhs, UndefinedPrimal)
    return [None, _transpose_rhs(ct, lhs, rhs.aval, p)]


def _transpose_lhs(
    ct: ArrayLike, lhs_aval: ShapedArray, rhs: ArrayLike, p: ConvParams
) -> ArrayLike:
    """A convolution of ``ct`` with the reversed kernel, features swapped (JAX's rule)."""
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    lhs_d, rhs_d, out_d = _dilated_sizes(p, lhs_aval.shape, aval_of(rhs).shape, get_aval(ct).shape)
    groups = max(p["feature_group_count"], p["batch_group_count"])
    if groups > 1:
        # The groups move from the kernel's output features to its input features.
        rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    # The padding that makes the cotangent's windows cover lhs exactly.
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, p["padding"], strict=True)]
    after = [i + k - 1 - o - b for i, k, o, b in zip(lhs_d, rhs_d, out_d, before, strict=True)]
    out = _bind(
        p,
        ct,
        _convert(lax.rev(rhs, rhs_spec[2:]), get_aval(ct)),
        window_strides=p["lhs_dilation"],
        padding=tuple(zip(before, after, strict=True)),
        lhs_dilation=p["window_strides"],
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap(rhs_spec), lhs_spec),
        feature_group_count=groups,
        batch_group_count=1,
    )
    result = _convert(out, lhs_aval)
    if p["batch_group_count"] > 1:
        result = _reshape_axis_out_of(lhs_spec[1], p["batch_group_count"], result)
        result = _reshape_axis_into(lhs_spec[1], lhs_spec[0], result)
    return result


def _transpose_rhs(
    ct: ArrayLike, lhs: ArrayLike, rhs_aval: ShapedArray, p: ConvParams
) -> ArrayLike | Zero:
    """A convolution of lhs with ``ct`` as the kernel, batch and features swapped (JAX's rule)."""
    ct_aval = get_aval(ct)
    if ct_aval.size == 0:
        # (a kernel of spatial size 0 would make a degenerate convolution)
        return Zero.like(rhs_aval)
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    lhs_d, rhs_d, out_d = _dilated_sizes(p, get_aval(lhs).shape, rhs_aval.shape, ct_aval.shape)
    lows = [lo for lo, _ in p["padding"]]
    highs = [o - i + k - lo - 1 for o, i, k, lo in zip(out_d, lhs_d, rhs_d, lows, strict=True)]
    out = _bind(
        p,
        _convert(lhs, ct_aval),
        ct,
        window_strides=p["rhs_dilation"],
        padding=tuple(zip(lows, highs, strict=True)),
        rhs_dilation=p["window_strides"],
        dimension_numbers=ConvDimensionNumbers(_swap(lhs_spec), _swap(out_spec), _swap(rhs_spec)),
        # Feature groups become batch groups, and batch groups feature groups.
        feature_group_count=p["batch_group_count"],
        batch_group_count=p["feature_group_count"],
    )
    return _convert(out, rhs_aval)


# --- batching -------------------------------------------------------------------------------


@BATCH_RULES.defines(conv_general_dilated_p)
def _conv_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Unpack[ConvParams]
) -> tuple[Any, Any]:
    (lhs, rhs), (dl, dr) = args, dims
    p = params
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    fgc, bgc = p["feature_group_count"], p["batch_group_count"]
    if axis_size == 0:
        # Folding an empty batch into an axis would divide by zero: zeros of the type.
        avals = [_unbatched(get_aval(lhs), dl), _unbatched(get_aval(rhs), dr)]
        (aval,) = abstract_eval(conv_general_dilated_p, avals, {**params})
        return lax.full((0, *aval.shape), 0, aval.dtype), 0
    if dl is not None and dr is not None:
        # Each example's features convolved with its own kernel: groups.
        if bgc > 1:
            new_lhs = _reshape_axis_into(dl, lhs_spec[0], lhs)
            bgc *= axis_size
        else:
            new_lhs = _reshape_axis_into(dl, lhs_spec[1], lhs)
            fgc *= axis_size
        new_rhs = _reshape_axis_into(dr, rhs_spec[0], rhs)
        out = _bind(p, new_lhs, new_rhs, feature_group_count=fgc, batch_group_count=bgc)
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    if dl is not None:
        if bgc == 1:
            new_lhs = _reshape_axis_into(dl, lhs_spec[0], lhs)
        else:
            # Batch groups stay outermost in lhs's batch axis: (groups, batch, rest).
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(dl <= lhs_spec[0]), bgc, lhs)
            new_lhs = _reshape_axis_into(dl + int(lhs_spec[0] < dl), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = _bind(p, new_lhs, rhs)
        return _reshape_axis_out_of(out_spec[0], axis_size, out), out_spec[0]
    assert dr is not None
    if fgc == 1 and bgc == 1:
        out = _bind(p, lhs, _reshape_axis_into(dr, rhs_spec[0], rhs))
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    # The groups stay outermost in rhs's output features: (groups, batch, rest).
    groups = max(fgc, bgc)
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(dr <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(dr + int(rhs_spec[0] < dr), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = _bind(p, lhs, new_rhs)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, axis_size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


def _unbatched(aval: ShapedArray, d: Dim) -> ShapedArray:
    if d is None:
        return aval
    return ShapedArray(aval.shape[:d] + aval.shape[d + 1 :], aval.dtype, aval.weak_type)


# --- flops ----------------------------------------------------------------------------------


def _valid_positions(
    inputs: int, kernel: int, outputs: int, stride: int, low: int, window_d: int, base_d: int
) -> int:
    """The (kernel, output) position pairs of one axis that read a real input element."""
    k = np.arange(kernel)[:, None]
    o = np.arange(outputs)[None, :]
    at = o * stride - low + k * window_d  # the position in the dilated, padded input
    real = (at % base_d == 0) & (at >= 0) & (at // base_d < inputs)
    return int(np.count_nonzero(real))


@FLOPS_RULES.defines(conv_general_dilated_p)
def _conv_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Unpack[ConvParams]
) -> Cost:
    # XLA's HloCostAnalysis::GetConvolutionFlops: one multiply-add (two
    # flops) per input feature of a group, output feature, batch element of a
    # group and valid (kernel, output) position pair of every spatial axis.
    p = params
    lhs, rhs, out = operands[0].aval.shape, operands[1].aval.shape, out_avals[0].shape
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    axes = zip(lhs_spec[2:], rhs_spec[2:], out_spec[2:], strict=True)
    window = zip(
        p["window_strides"], p["padding"], p["rhs_dilation"], p["lhs_dilation"], strict=True
    )
    positions = math.prod(
        _valid_positions(lhs[li], rhs[ri], out[oi], s, lo, wd, bd)
        for (li, ri, oi), (s, (lo, _), wd, bd) in zip(axes, window, strict=True)
    )
    batch, out_features = lhs[lhs_spec[0]], out[out_spec[1]]
    features_per_group = lhs[lhs_spec[1]] // p["feature_group_count"]
    fmas = features_per_group * out_features * (batch // p["batch_group_count"]) * positions
    if 1 < p["batch_group_count"] == batch == out_features:
        # XLA's CPU compiler rewrites this one (a depthwise kernel's gradient,
        # one result batch element) as an ungrouped convolution over the whole
        # batch, a mask (a compare and a select per element) and a
        # reduce_window summing the groups, and counts those.
        spatial = math.prod(out[i] for i in out_spec[2:])
        masked = batch * out_features * spatial
        return Cost(2 * fmas * batch + 2 * masked + out_features * spatial * (batch - 1))
    return Cost(2 * fmas)
