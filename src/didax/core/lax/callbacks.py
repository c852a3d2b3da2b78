"""Host callbacks: Python functions a program calls while it runs (JAX's ``callback.py``).

``debug_callback_p`` (``debug.print``, ``debug.callback``) has no results
and the effect ``Debug`` (``OrderedDebug`` when ordered); ``pure_callback_p``
computes ``result_avals`` with no effect, so DCE may drop it and vmap may
batch it (``vmap_method``); ``io_callback_p`` computes ``result_avals`` with
the effect ``IO`` (``OrderedIO``). The interpreters' rules are in
``interpreters.callbacks``, the lowering (jaxlib's Python-callback custom
call) in ``lowering.callbacks``; ``api.callbacks`` binds them.

Design rules:
- A ``HostCallback`` wraps the user's function as a function of flat host
  arrays returning a flat sequence; it compares by identity, so a jaxpr's
  fingerprint (and the compile cache) tells two callbacks apart.
- The effects come from the params (``EFFECT_RULES``): an ordered debug
  callback is an ``OrderedDebug`` equation, which jit orders with a token.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, final

import attrs
import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.effects import (
    DEBUG,
    EFFECT_RULES,
    IO,
    ORDERED_DEBUG,
    ORDERED_IO,
    Effect,
    Effects,
)
from didax.core.primitive import primitives

__all__: list[str] = []

debug_callback_p, pure_callback_p, io_callback_p = primitives(
    "debug_callback", "pure_callback", "io_callback", multiple_results=True
)

CALLBACK_PRIMITIVES: Final = (debug_callback_p, pure_callback_p, io_callback_p)

# JAX's vmap_method values for pure_callback (None: vmap refuses).
VMAP_METHODS: Final = (
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
)


@final
@attrs.frozen(eq=False, repr=False)
class HostCallback:
    """``fn(*host_arrays) -> sequence of results``, the user's function flattened."""

    fn: Callable[..., Sequence[Any]]
    name: str

    def __call__(self, *args: Any) -> Sequence[Any]:
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"<callback {self.name}>"


def debug_effect(ordered: bool) -> Effect:
    return ORDERED_DEBUG if ordered else DEBUG


@ABSTRACT_EVAL.defines(debug_callback_p)
def _debug_callback_abstract_eval(
    *avals: ShapedArray, callback: HostCallback, effect: Effect
) -> list[ShapedArray]:
    return []


@ABSTRACT_EVAL.defines(pure_callback_p)
def _pure_callback_abstract_eval(
    *avals: ShapedArray,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> list[ShapedArray]:
    return list(result_avals)


@ABSTRACT_EVAL.defines(io_callback_p)
def _io_callback_abstract_eval(
    *avals: ShapedArray,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    ordered: bool,
) -> list[ShapedArray]:
    return list(result_avals)


@EFFECT_RULES.defines(debug_callback_p)
def _debug_callback_effects(*, effect: Effect, **params: object) -> Effects:
    return frozenset({effect})


@EFFECT_RULES.defines(io_callback_p)
def _io_callback_effects(*, ordered: bool, **params: object) -> Effects:
    return frozenset({ORDERED_IO if ordered else IO})


def checked_results(
    name: str, outs: Sequence[Any], result_avals: Sequence[ShapedArray]
) -> list[np.ndarray[Any, Any]]:
    """A callback's results as host arrays of ``result_avals``' types, or a RuntimeError.

    As JAX's: the count and shapes must match; a result of another dtype of
    the same kind (a Python float, a float64 array where x64 is off) is
    converted, one of another kind refused.
    """
    if len(outs) != len(result_avals):
        raise RuntimeError(
            f"{name}: mismatched number of outputs from callback. "
            f"Expected: {len(result_avals)}, Actual: {len(outs)}"
        )
    checked = []
    for i, (out, aval) in enumerate(zip(outs, result_avals, strict=True)):
        arr = np.asarray(out)
        if arr.shape != aval.shape:
            raise RuntimeError(
                f"{name}: incorrect output shape for return value #{i}: "
                f"Expected: {aval.shape}, Actual: {arr.shape}"
            )
        if arr.dtype != aval.dtype:
            if arr.dtype.kind != aval.dtype.kind:
                raise RuntimeError(
                    f"{name}: incorrect output dtype for return value #{i}: "
                    f"Expected: {aval.dtype}, Actual: {arr.dtype}"
                )
            arr = arr.astype(aval.dtype)
        # (Not ascontiguousarray: it makes a 0-d array 1-d.)
        checked.append(arr if arr.flags.c_contiguous else arr.copy(order="C"))
    return checked
