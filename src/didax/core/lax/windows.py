"""The windowed reductions: declarations, typing rules and the binders the rules share.

``reduce_window_sum``, ``reduce_window_max`` and ``reduce_window_min`` are
JAX's monoid primitives of those names: each output element reduces one
window of the (base-dilated, padded) operand. ``reduce_window`` is the
generic one, holding its reducer as a program (a higher-order primitive,
several operands at once). ``select_and_gather_add`` (the tangent of a
max/min window: the tangent at each window's chosen element) and
``select_and_scatter_add`` (its transpose: each cotangent added at its
window's chosen element) are the primitives max-pooling differentiates to.
``lax.reduce_window`` as users call it (a Python reducer, pytrees, padding
strings, monoids recognised) is in ``api.windows``; the interpreters' rules
in ``interpreters.windows``; the lowering (``stablehlo.reduce_window``,
``stablehlo.select_and_scatter``) in ``lowering.windows``.

Design rules:
- The params are JAX's: ``window_dimensions``, ``window_strides``,
  ``padding`` (a ``(low, high)`` pair per axis), ``base_dilation`` and
  ``window_dilation``, all tuples of Python ints (``select_and_scatter_add``
  has no dilations); ``WindowParams`` holds them, so that each rule reads
  and rebuilds them one way (a unit axis for a batch: ``with_unit_axis``).
- ``select_prim`` (``ge_p`` for max, ``le_p`` for min) says which element a
  window chooses: the first one that compares so against all later ones,
  as XLA's select does.
- Types and error messages are JAX's: the shape rule is
  ``reduce_window_shape_tuple``; a monoid window keeps its operand's type
  (weak type included); ``reduce_window_sum`` takes numbers only; the
  generic one's reducer takes two scalars per operand (the operands', then
  the other side's) and returns one per operand, of its dtype.
- Typed against ``core.lax.programs.Program``: core sees the reducer's
  types, never its equations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypedDict, TypeVar, Unpack

import attrs
import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    AbstractEvalRule,
    check_kinds,
    dtype_failure,
    shape_failure,
)
from didax.core.basearray import HostArray, Value
from didax.core.lax.elementwise import ge_p, le_p
from didax.core.lax.programs import Program, differ, types
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike

__all__ = [
    "reduce_window_p",
    "reduce_window_sum_p",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "select_and_gather_add_p",
    "select_and_scatter_add_p",
    "select_and_scatter_p",
    "reduce_window_shape_tuple",
]

reduce_window_p: Final = Primitive("reduce_window", multiple_results=True)
reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p = primitives(
    "reduce_window_sum", "reduce_window_max", "reduce_window_min"
)
select_and_gather_add_p, select_and_scatter_add_p = primitives(
    "select_and_gather_add", "select_and_scatter_add"
)
# XLA's SelectAndScatter with the user's select and scatter programs (JAX's
# select_and_scatter_p: typing and lowering only, as JAX has; no JAX function binds it).
select_and_scatter_p: Final = Primitive("select_and_scatter")

# The monoid windows, and the comparison each max/min window chooses by.
MONOID_WINDOWS: Final = (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p)
CHOOSERS: Final[dict[Primitive, Primitive]] = {reduce_window_max_p: ge_p, reduce_window_min_p: le_p}

Pairs = tuple[tuple[int, int], ...]
T = TypeVar("T")


class ScatterKwargs(TypedDict):
    """``select_and_scatter_add``'s window params, as its equations hold them."""

    window_dimensions: tuple[int, ...]
    window_strides: tuple[int, ...]
    padding: Pairs


def scatter_kwargs(params: ScatterKwargs) -> tuple[tuple[int, ...], tuple[int, ...], Pairs]:
    """``(window_dimensions, window_strides, padding)``."""
    return params["window_dimensions"], params["window_strides"], params["padding"]


class WindowKwargs(ScatterKwargs):
    """The window params of the other window primitives, as their equations hold them."""

    base_dilation: tuple[int, ...]
    window_dilation: tuple[int, ...]


def _ints(values: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _pairs(padding: Sequence[Sequence[int]]) -> Pairs:
    return tuple((int(lo), int(hi)) for lo, hi in padding)


def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """``shape`` with ``dilation - 1`` holes between elements: ``1 + d * (n - 1)`` (0 stays 0)."""
    return tuple(0 if n == 0 else 1 + d * (n - 1) for n, d in zip(shape, dilation, strict=True))


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The shape of a windowed reduction's result (JAX's ``lax.reduce_window_shape_tuple``).

    Per axis: the base-dilated, padded operand's length, less the dilated
    window's, divided by the stride, plus one (0 if the window does not fit).

    >>> reduce_window_shape_tuple((6, 5), (2, 2), (2, 1), ((0, 0), (1, 0)))
    (3, 5)
    """
    shape = _ints(operand_shape)
    window = _ints(window_dimensions)
    if base_dilation is not None:
        shape = dilate_shape(shape, _ints(base_dilation))
    if window_dilation is not None:
        window = dilate_shape(window, _ints(window_dilation))
    padded = [n + lo + hi for n, (lo, hi) in zip(shape, _pairs(padding), strict=True)]
    strides = _ints(window_strides)
    return tuple(max((p - w) // s + 1, 0) for p, w, s in zip(padded, window, strides, strict=True))


@attrs.frozen
class WindowParams:
    """A window's params, as equations hold them; ``WindowParams(**params)`` reads them."""

    window_dimensions: tuple[int, ...]
    window_strides: tuple[int, ...]
    padding: Pairs
    base_dilation: tuple[int, ...]
    window_dilation: tuple[int, ...]

    @staticmethod
    def of(
        window_dimensions: Sequence[int],
        window_strides: Sequence[int] | None = None,
        padding: Sequence[Sequence[int]] | None = None,
        base_dilation: Sequence[int] | None = None,
        window_dilation: Sequence[int] | None = None,
    ) -> WindowParams:
        """The canonical params: tuples of ints; unit strides and dilations, no padding if None."""
        ones = (1,) * len(window_dimensions)
        return WindowParams(
            _ints(window_dimensions),
            ones if window_strides is None else _ints(window_strides),
            ((0, 0),) * len(ones) if padding is None else _pairs(padding),
            ones if base_dilation is None else _ints(base_dilation),
            ones if window_dilation is None else _ints(window_dilation),
        )

    def as_params(self) -> WindowKwargs:
        """The keyword params an equation holds and the primitives' ``bind`` takes."""
        return WindowKwargs(
            window_dimensions=self.window_dimensions,
            window_strides=self.window_strides,
            padding=self.padding,
            base_dilation=self.base_dilation,
            window_dilation=self.window_dilation,
        )

    def with_unit_axis(self, axis: int) -> WindowParams:
        """The same window over an operand with one more axis at ``axis`` (a batch axis)."""

        def insert(values: tuple[T, ...], unit: T) -> tuple[T, ...]:
            return (*values[:axis], unit, *values[axis:])

        return WindowParams(
            insert(self.window_dimensions, 1),
            insert(self.window_strides, 1),
            insert(self.padding, (0, 0)),
            insert(self.base_dilation, 1),
            insert(self.window_dilation, 1),
        )

    @property
    def size(self) -> int:
        """How many elements a window holds."""
        n = 1
        for d in self.window_dimensions:
            n *= d
        return n

    def out_shape(self, operand_shape: Sequence[int]) -> tuple[int, ...]:
        return reduce_window_shape_tuple(
            operand_shape,
            self.window_dimensions,
            self.window_strides,
            self.padding,
            self.base_dilation,
            self.window_dilation,
        )


def check_window(
    operand: ShapedArray, w: WindowParams, name: str = "reduce_window"
) -> tuple[int, ...]:
    """JAX's shape rule of a window over ``operand``: the result's shape, or a shape failure."""
    for what in ("window_dimensions", "window_strides", "base_dilation", "window_dilation"):
        values = getattr(w, what)
        if any(v < 1 for v in values):
            raise shape_failure(
                f"{name} {what} must have every element be strictly positive, got {values}"
            )
    if operand.ndim != len(w.window_dimensions):
        raise shape_failure(
            f"{name} got the wrong number of window_dimensions for operand: got operand shape "
            f"{operand.shape} with window_dimensions {w.window_dimensions}."
        )
    for what in ("window_strides", "padding", "base_dilation", "window_dilation"):
        values = getattr(w, what)
        if len(values) != len(w.window_dimensions):
            raise shape_failure(
                f"{name} got inconsistent {what} and window_dimensions: got {what} {values} "
                f"and window_dimensions {w.window_dimensions}."
            )
    return w.out_shape(operand.shape)


def _monoid_rule(name: str, kinds: str | None) -> AbstractEvalRule:
    def rule(x: ShapedArray, **params: Unpack[WindowKwargs]) -> ShapedArray:
        if kinds is not None:
            check_kinds(kinds, "numbers", x)
        return x.update(shape=check_window(x, WindowParams(**params), name))

    return rule


ABSTRACT_EVAL.register(reduce_window_sum_p, _monoid_rule("reduce_window_sum", "iufc"))
ABSTRACT_EVAL.register(reduce_window_max_p, _monoid_rule("reduce_window_max", None))
ABSTRACT_EVAL.register(reduce_window_min_p, _monoid_rule("reduce_window_min", None))


def _check_select_prim(select_prim: Primitive, name: str) -> None:
    if select_prim not in (ge_p, le_p):
        raise shape_failure(f"{name} selects by ge or le, got {select_prim}")


@ABSTRACT_EVAL.defines(select_and_gather_add_p)
def _select_and_gather_add_abstract_eval(
    tangents: ShapedArray,
    operand: ShapedArray,
    *,
    select_prim: Primitive,
    **params: Unpack[WindowKwargs],
) -> ShapedArray:
    _check_select_prim(select_prim, "select_and_gather_add")
    if tangents.shape != operand.shape:
        raise shape_failure(
            "select_and_gather_add tangents and operand shapes must match, "
            f"got {tangents.shape} and {operand.shape}."
        )
    shape = check_window(operand, WindowParams(**params), "select_and_gather_add")
    return tangents.update(shape=shape, weak_type=tangents.weak_type and operand.weak_type)


@ABSTRACT_EVAL.defines(select_and_scatter_add_p)
def _select_and_scatter_add_abstract_eval(
    source: ShapedArray,
    operand: ShapedArray,
    *,
    select_prim: Primitive,
    **params: Unpack[ScatterKwargs],
) -> ShapedArray:
    window_dimensions, window_strides, padding = scatter_kwargs(params)
    _check_select_prim(select_prim, "select_and_scatter_add")
    w = WindowParams.of(window_dimensions, window_strides, padding)
    shape = check_window(operand, w, "select_and_scatter_add")
    if source.shape != shape:
        raise shape_failure(
            f"select_and_scatter_add takes a source of the windows' shape {shape}, "
            f"got {source.shape}"
        )
    return source.update(shape=operand.shape, weak_type=source.weak_type and operand.weak_type)


@ABSTRACT_EVAL.defines(reduce_window_p)
def _reduce_window_abstract_eval(
    *avals: ShapedArray, jaxpr: Program, **params: Unpack[WindowKwargs]
) -> list[ShapedArray]:
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    if n == 0 or len(avals) != 2 * n:
        raise shape_failure("reduce_window takes one init_value per operand, and an operand")
    if any(o.dtype != i.dtype for o, i in zip(operands, inits, strict=True)):
        raise dtype_failure(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand "
            f"dtypes {[o.dtype.name for o in operands]} and init_value dtypes "
            f"{[i.dtype.name for i in inits]}."
        )
    if any(i.shape != () for i in inits):
        raise shape_failure(
            "reduce_window expected init_values to be scalars but init_values have shapes "
            f"{[i.shape for i in inits]}."
        )
    if any(o.shape != operands[0].shape for o in operands):
        raise shape_failure(f"reduce_window operands must have one shape, got {types(operands)}")
    scalars = [ShapedArray((), i.dtype) for i in inits]
    if differ(jaxpr.in_avals, [*scalars, *scalars]) or differ(jaxpr.out_avals, scalars):
        raise shape_failure(
            f"the reducer has type {types(jaxpr.in_avals)} -> {types(jaxpr.out_avals)} where "
            f"{types([*scalars, *scalars])} -> {types(scalars)} is expected"
        )
    shape = check_window(operands[0], WindowParams(**params))
    return [ShapedArray(shape, o.dtype) for o in operands]


@ABSTRACT_EVAL.defines(select_and_scatter_p)
def _select_and_scatter_abstract_eval(
    operand: ShapedArray,
    source: ShapedArray,
    init_value: ShapedArray,
    *,
    select_jaxpr: Program,
    scatter_jaxpr: Program,
    **params: Unpack[ScatterKwargs],
) -> ShapedArray:
    if len(params["window_dimensions"]) != len(params["window_strides"]):
        raise shape_failure(
            "select_and_scatter got inconsistent window_strides and window_dimensions: got "
            f"window_strides {params['window_strides']} and window_dimensions "
            f"{params['window_dimensions']}."
        )
    if not (operand.dtype == source.dtype == init_value.dtype) or init_value.shape != ():
        raise dtype_failure(
            "select_and_scatter takes an operand, a source and a scalar init_value of one "
            f"dtype, got {types([operand, source, init_value])}"
        )
    scalar = ShapedArray((), operand.dtype)
    if differ(select_jaxpr.in_avals, [scalar, scalar]) or differ(
        select_jaxpr.out_avals, [ShapedArray((), dtypes.bool_)]
    ):
        raise shape_failure(
            f"the select has type {types(select_jaxpr.in_avals)} -> "
            f"{types(select_jaxpr.out_avals)} where {types([scalar, scalar])} -> (bool[],) "
            "is expected"
        )
    if differ(scatter_jaxpr.in_avals, [scalar, scalar]) or differ(
        scatter_jaxpr.out_avals, [scalar]
    ):
        raise shape_failure(
            f"the scatter has type {types(scatter_jaxpr.in_avals)} -> "
            f"{types(scatter_jaxpr.out_avals)} where {types([scalar, scalar])} -> "
            f"{types([scalar])} is expected"
        )
    windows = check_window(operand, scatter_window(**params), "select_and_scatter")
    if source.shape != windows:
        raise shape_failure(
            f"select_and_scatter takes a source of the windows' shape {windows}, got {source.shape}"
        )
    return ShapedArray(operand.shape, operand.dtype)


# --- binders, for the interpreters' rules -------------------------------------------------


def bind_window(
    prim: Primitive, *operands: ArrayLike, window: WindowParams, **params: Primitive
) -> Value:
    """``prim`` (a first-order window primitive) on ``operands`` over ``window``."""
    out: Value = prim.bind(*operands, **window.as_params(), **params)
    return out


def select_and_scatter_add(
    source: ArrayLike, operand: ArrayLike, select_prim: Primitive, window: WindowParams
) -> Value:
    """Each element of ``source`` added at the element its window of ``operand`` chooses.

    The window has no dilations (``select_and_scatter_add`` takes none).
    """
    out: Value = select_and_scatter_add_p.bind(
        source,
        operand,
        select_prim=select_prim,
        window_dimensions=window.window_dimensions,
        window_strides=window.window_strides,
        padding=window.padding,
    )
    return out


def scatter_window(
    window_dimensions: tuple[int, ...], window_strides: tuple[int, ...], padding: Pairs
) -> WindowParams:
    """``select_and_scatter_add``'s params as a ``WindowParams`` (unit dilations)."""
    return WindowParams.of(window_dimensions, window_strides, padding)


def identity(select_prim: Primitive, dtype: np.dtype[Any]) -> HostArray:
    """The identity of the window choosing by ``select_prim``: ``dtype``'s least value for
    ``ge`` (max), its greatest for ``le`` (min); lexicographic for complex numbers."""
    low = select_prim is ge_p
    value: bool | int | float | complex
    if dtypes.is_complex(dtype):
        value = complex(-np.inf, -np.inf) if low else complex(np.inf, np.inf)
    elif dtype == dtypes.bool_:
        value = not low
    elif dtype.kind in "iu":
        value = int(np.iinfo(dtype.name).min if low else np.iinfo(dtype.name).max)
    else:
        value = -np.inf if low else np.inf
    return np.asarray(value, dtype)


def is_float(aval: ShapedArray) -> bool:
    """Whether values of ``aval`` have tangents (inexact dtypes)."""
    return dtypes.is_inexact(aval.dtype)
