"""Convolution shapes: ``ConvDimensionNumbers``, the shape rule and JAX's shape helpers.

What ``core.lax.convolution`` (the primitive, its typing rule and its
wrappers) shares with users who work out shapes: the canonical dimension
numbers, the shape rule of ``conv_general_dilated`` (``conv_shape``, with
JAX's reasons for refusing), and JAX's public helpers
(``padtype_to_pads``, ``conv_shape_tuple``, ``conv_dimension_numbers``, ...),
which ``core.lax.convolution`` lists in its ``__all__``.

Design rules:
- Plain Python on shapes, as JAX's helpers: no arrays, no tracing.
- The shape rule raises ``TypingFailure`` (the typing rule's caller names
  the primitive and operand types); the helpers raise JAX's exceptions.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import NamedTuple, TypeAlias, TypedDict

import numpy as np

from didax.core.abstract_eval import shape_failure
from didax.core.dtypes import DType
from didax.core.lax.precision import CanonicalPrecision

__all__ = [
    "ConvDimensionNumbers",
    "ConvGeneralDilatedDimensionNumbers",
    "conv_dimension_numbers",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose_shape_tuple",
    "padtype_to_pads",
]

Padding: TypeAlias = tuple[tuple[int, int], ...]


class ConvDimensionNumbers(NamedTuple):
    """The axes of a convolution's operands and result (JAX's ``ConvDimensionNumbers``).

    ``lhs_spec`` and ``out_spec``: (batch axis, feature axis, spatial
    axes...); ``rhs_spec``: (out feature axis, in feature axis, spatial
    axes...). The i-th spatial axes of the three correspond.

    >>> conv_dimension_numbers((1, 5, 5, 3), (2, 2, 3, 4), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


# What users may pass as ``dimension_numbers``: None (lhs, rhs and result
# laid out as NCHW, OIHW, NCHW), three spec strings, or ConvDimensionNumbers.
ConvGeneralDilatedDimensionNumbers: TypeAlias = tuple[str, str, str] | ConvDimensionNumbers | None


def dilate(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """A shape dilated: its last ``len(dilation)`` sizes become ``max(0, 1 + r * (d - 1))``."""
    if not builtins.all(r > 0 for r in dilation):
        raise shape_failure(f"All dilations must be positive, got {tuple(dilation)}.")
    lead = len(shape) - len(dilation)
    rs = (1,) * lead + tuple(dilation)
    return tuple(d if r == 1 else max(0, 1 + r * (d - 1)) for d, r in zip(shape, rs, strict=True))


class ConvParams(TypedDict):
    """``conv_general_dilated_p``'s params, as its rules receive them (``Unpack[ConvParams]``).

    Typed once here for the abstract evaluation, the shape rule and the lowering.
    """

    window_strides: tuple[int, ...]
    padding: Padding
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    dimension_numbers: ConvDimensionNumbers
    feature_group_count: int
    batch_group_count: int
    precision: CanonicalPrecision
    preferred_element_type: DType | None


def conv_shape(lhs: tuple[int, ...], rhs: tuple[int, ...], params: ConvParams) -> tuple[int, ...]:
    """JAX's shape rule (``_conv_general_dilated_shape_rule``), with its reasons."""
    window_strides, padding = params["window_strides"], params["padding"]
    lhs_dilation, rhs_dilation = params["lhs_dilation"], params["rhs_dilation"]
    dnums = params["dimension_numbers"]
    feature_group_count, batch_group_count = (
        params["feature_group_count"],
        params["batch_group_count"],
    )
    if len(lhs) != len(rhs):
        raise shape_failure(
            "conv_general_dilated lhs and rhs must have the same number of dimensions, "
            f"but got {lhs} and {rhs}."
        )
    nd = len(lhs)
    given: object = dnums  # (bound directly, it may be anything)
    if not (
        isinstance(given, ConvDimensionNumbers)
        and builtins.all(sorted(spec) == list(range(nd)) for spec in given)
    ):
        raise shape_failure(
            f"dimension_numbers must be a ConvDimensionNumbers of permutations of "
            f"range({nd}), got {dnums}"
        )
    n = nd - 2
    for name, v in (
        ("window_strides", window_strides),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
        ("padding", padding),
    ):
        if len(v) != n:
            raise shape_failure(
                f"conv_general_dilated {name} must have one entry per spatial dimension "
                f"({n}), got {v}"
            )
    if not builtins.all(s > 0 for s in window_strides):
        raise shape_failure(f"window_strides must be positive, got {window_strides}")
    lhs_spec, rhs_spec, out_spec = dnums
    if not feature_group_count > 0:
        raise shape_failure(
            "conv_general_dilated feature_group_count must be a positive integer, "
            f"got {feature_group_count}."
        )
    lhs_features = lhs[lhs_spec[1]]
    quot, rem = divmod(lhs_features, feature_group_count)
    if rem:
        raise shape_failure(
            "conv_general_dilated feature_group_count must divide lhs feature dimension "
            f"size, but {feature_group_count} does not divide {lhs_features}."
        )
    if quot != rhs[rhs_spec[1]]:
        raise shape_failure(
            "conv_general_dilated lhs feature dimension size divided by feature_group_count "
            "must equal the rhs input feature dimension size, but "
            f"{lhs_features} // {feature_group_count} != {rhs[rhs_spec[1]]}."
        )
    if rhs[rhs_spec[0]] % feature_group_count:
        raise shape_failure(
            "conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"feature_group_count, but {rhs[rhs_spec[0]]} is not a multiple of "
            f"{feature_group_count}."
        )
    if not batch_group_count > 0:
        raise shape_failure(
            "conv_general_dilated batch_group_count must be a positive integer, "
            f"got {batch_group_count}."
        )
    if batch_group_count > 1 and lhs[lhs_spec[0]] % batch_group_count:
        raise shape_failure(
            "conv_general_dilated batch_group_count must divide lhs batch dimension size, "
            f"but {batch_group_count} does not divide {lhs[lhs_spec[0]]}."
        )
    if rhs[rhs_spec[0]] % batch_group_count:
        raise shape_failure(
            "conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"batch_group_count, but {rhs[rhs_spec[0]]} is not a multiple of "
            f"{batch_group_count}."
        )
    if batch_group_count > 1 and feature_group_count > 1:
        raise shape_failure(
            "At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={batch_group_count} and "
            f"feature_group_count={feature_group_count}"
        )
    lhs_t = dilate([lhs[i] for i in lhs_spec], lhs_dilation)
    rhs_t = dilate([rhs[i] for i in rhs_spec], rhs_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(lhs_t[2:], padding, strict=True)]
    if builtins.any(p < 0 for p in padded):
        raise shape_failure(
            "Negative padding is larger than the size of the corresponding dimension: "
            f"got padding={padding} for lhs_shape[2:]={lhs_t[2:]}"
        )
    out_t = (
        lhs_t[0] // batch_group_count,
        rhs_t[0],
        *(
            max(0, (p - k) // s + 1)
            for p, k, s in zip(padded, rhs_t[2:], window_strides, strict=True)
        ),
    )
    return tuple(out_t[i] for i in np.argsort(out_spec))


# --- shape utilities (JAX's public helpers) -------------------------------------------


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str,
) -> list[tuple[int, int]]:
    """``'SAME'``, ``'SAME_LOWER'`` or ``'VALID'`` as ``(low, high)`` pairs (JAX's function).

    ``'SAME'`` pads so that the output has ``ceil(in / stride)`` elements,
    the odd one at the end (``'SAME_LOWER'``: at the start).

    >>> padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME")
    [(1, 1), (0, 1)]
    """
    given: object = padding  # (JAX's error for a non-string)
    if not isinstance(given, str):
        raise TypeError(f"Unknown padding type: {padding}.")
    kind = padding.upper()
    if kind not in ("SAME", "SAME_LOWER", "VALID"):
        raise RuntimeError(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
        )
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for d, k, s in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-int(d) // int(s))
        total = max(0, (out - 1) * int(s) + int(k) - int(d))
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The shape of a convolution of operands laid out as (N, C, spatial...) and (O, I, spatial...).

    >>> conv_shape_tuple((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), "SAME")
    (2, 4, 5, 5)
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            "Wrong number of explicit pads for convolution: expected "
            f"{len(lhs_shape) - 2}, got {len(pads)}."
        )
    padded = [int(d) + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if builtins.any(p < 0 for p in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: "
            f"got padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = (
        max(0, (p - int(k)) // int(s) + 1)
        for p, k, s in zip(padded, rhs_shape[2:], strides, strict=False)
    )
    batch = int(lhs_shape[0]) // batch_group_count
    return (batch, int(rhs_shape[0]), *space)


def conv_general_permutations(
    dimension_numbers: tuple[str, str, str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The three spec strings as axis permutations (JAX's function).

    >>> conv_general_permutations(("NHWC", "HWIO", "NHWC"))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                f"'{b}' exactly once, got {spec}."
            )
        if len(spec) != len(set(spec)):
            raise TypeError(
                f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec}."
            )
    if not set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}:
        raise TypeError(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {dimension_numbers}."
        )

    def perm(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        spatial = sorted(
            (i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs_spec.index(spec[i])
        )
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return perm(lhs_spec, pairs[0]), perm(rhs_spec, pairs[1]), perm(out_spec, pairs[2])


def conv_dimension_numbers(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    dimension_numbers: ConvGeneralDilatedDimensionNumbers | Sequence[Sequence[int]],
) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, spec strings, or ConvDimensionNumbers) in the canonical form.

    >>> conv_dimension_numbers((1, 3, 5), (4, 3, 2), None)
    ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            "convolution requires lhs and rhs ndim to be equal, got "
            f"{len(lhs_shape)} and {len(rhs_shape)}."
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(
            "convolution dimension_numbers must be tuple/list or None, got "
            f"{type(dimension_numbers)}."
        )
    if len(dimension_numbers) != 3:
        raise TypeError(
            f"convolution dimension_numbers list/tuple must be length 3, got "
            f"{len(dimension_numbers)}."
        )
    specs = tuple(dimension_numbers)
    strings = [s for s in specs if isinstance(s, str)]
    if len(strings) != 3:
        raise TypeError(
            "convolution dimension_numbers elements must be strings, got "
            f"{tuple(map(type, specs))}."
        )
    for i, spec in enumerate(strings):
        if len(spec) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                f"and rhs, got {len(spec)} for lhs and rhs shapes "
                f"{tuple(lhs_shape)} and {tuple(rhs_shape)}."
            )
    return ConvDimensionNumbers(*conv_general_permutations((strings[0], strings[1], strings[2])))


def take(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[i]) for i in perm)


def untake(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    """The inverse of ``take``: ``shape`` given in ``perm``'s order, back in axis order."""
    return tuple(int(shape[i]) for i in np.argsort(perm))


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: tuple[str, str, str],
) -> tuple[int, ...]:
    """The result shape of ``conv_general_dilated`` without dilations or groups.

    >>> conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 16), (2, 2), "SAME",
    ...                          ("NHWC", "HWIO", "NHWC"))
    (1, 4, 4, 16)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(
        take(lhs_shape, lhs_perm), take(rhs_shape, rhs_perm), window_strides, padding
    )
    return untake(out, out_perm)


def conv_transpose_padding(k: int, s: int, padding: str | tuple[int, int]) -> tuple[int, int]:
    """The (low, high) padding of one axis of ``conv_transpose`` (JAX's rule)."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    elif isinstance(padding, tuple):
        low, high = (k - p - 1 for p in padding)
        total = low + high
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return low, total - low


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: tuple[str, str, str],
) -> tuple[int, ...]:
    """The result shape of ``conv_transpose`` (JAX's function).

    >>> conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 8), (2, 2), "SAME",
    ...                            ("NHWC", "HWIO", "NHWC"))
    (1, 8, 8, 8)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = take(lhs_shape, lhs_perm), take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        pads = [
            conv_transpose_padding(k, s, padding)
            for k, s in zip(rhs_t[2:], window_strides, strict=False)
        ]
    else:
        pads = [(int(lo), int(hi)) for lo, hi in padding]
    space = [
        (i - 1) * s - k + 2 + lo + hi
        for i, k, s, (lo, hi) in zip(lhs_t[2:], rhs_t[2:], window_strides, pads, strict=False)
    ]
    return untake((lhs_t[0], rhs_t[0], *space), out_perm)
