"""Selection primitives: ``select_n`` and ``clamp``; declarations, typing rules, wrappers.

JAX's ``lax.select_n(which, *cases)`` (each element from the case that
``which`` numbers: a boolean picks between two cases, an integer among
any number) and ``lax.clamp(min, x, max)``. The interpreters' rules are
in ``interpreters.selection``, the lowerings in ``lowering.selection``.

Design rules:
- ``select_n_p`` is a primitive of its own beside ``elementwise.select_p``
  (which didax's programs stage, and whose golden jaxprs stay as they are).
  Its operands are JAX's, in JAX's order: ``which`` (boolean or integer,
  rank-0 or of the cases' shape), then the cases (one shape, one dtype,
  weak only if every case is). A boolean ``which`` takes at most two
  cases, ``False`` picking the first.
- ``clamp`` is a ``scalar_operands`` primitive: ``min`` and ``max`` may be
  rank-0 beside ``x`` (a Python scalar bound stays rank-0, as in JAX's
  ``clamp 0.0:f32[] x 1.0:f32[]``); ``x`` has the result's shape. The
  result is ``x``'s type, weak only if every operand is.
- Shape and dtype errors name the operands as JAX's messages do.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, check_kinds, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.lax.operands import as_operand, bind_value
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_weak
from didax.core.values import ArrayLike

__all__ = ["select_n_p", "clamp_p", "select_n", "clamp"]

select_n_p: Final = Primitive("select_n")
clamp_p: Final = Primitive("clamp", scalar_operands=True)

SELECTION_PRIMITIVES: Final = (select_n_p, clamp_p)


# --- typing -------------------------------------------------------------------------------


def _same_dtypes(what: str, avals: tuple[ShapedArray, ...]) -> None:
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        got = ", ".join(str(a.dtype) for a in avals)
        raise dtype_failure(f"{what} must have the same dtypes, got [{got}]")


@ABSTRACT_EVAL.defines(select_n_p)
def _select_n_abstract_eval(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise shape_failure("select_n must have at least one case")
    if any(c.shape != cases[0].shape for c in cases[1:]):
        got = ", ".join(str(c.shape) for c in cases)
        raise shape_failure(f"select cases must have the same shapes, got [{got}]")
    if which.shape and which.shape != cases[0].shape:
        raise shape_failure(
            "select `which` must be scalar or have the same shape as cases, got `which` "
            f"shape {which.shape} but case shape {cases[0].shape}"
        )
    _same_dtypes("select cases", cases)
    if dtypes.kind(which.dtype) not in "biu":
        raise dtype_failure(f"select `which` must be boolean or integer type, got {which.dtype}")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise dtype_failure("select with boolean `which` cannot have > 2 cases")
    return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


@ABSTRACT_EVAL.defines(clamp_p)
def _clamp_abstract_eval(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape and bound.shape != x.shape:
            raise shape_failure(
                f"clamp requires {name}.shape == operand.shape or {name}.shape == (), got "
                f"{name}.shape={bound.shape}, operand.shape={x.shape}"
            )
    _same_dtypes("clamp operands", (lo, x, hi))
    check_kinds("biuf", "real arrays", x)
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type)


# --- wrappers -----------------------------------------------------------------------------


def select_n(which: ArrayLike, *cases: ArrayLike) -> Value:
    """Each element from the case ``which`` numbers there (a boolean: ``False`` is the first).

    ``which`` is rank-0 or of the cases' shape; an integer outside
    ``[0, len(cases))`` picks an end case, as XLA's nested selects do.

    >>> import numpy as np
    >>> select_n(np.array([0, 2, 1], np.int32), np.zeros(3), np.ones(3), np.full(3, 2.0))
    Array([0., 2., 1.], dtype=float32)
    """
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return bind_value(select_n_p, as_operand(which), *coerce_weak(select_n_p, cases))


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Value:  # noqa: A002 - lax's names
    """Element-wise ``min`` where ``x < min``, ``max`` where ``x > max``, else ``x``.

    >>> import numpy as np
    >>> clamp(0.0, np.array([-1.0, 0.5, 2.0], np.float32), 1.0)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    return bind_value(clamp_p, *coerce_weak(clamp_p, (min, x, max)))
