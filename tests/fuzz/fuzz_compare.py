"""How the fuzzer compares didax's outcomes with JAX's, and its file of regressions.

Design rules:
- An outcome is a result or the error raised instead. Where JAX raises,
  didax agrees only by raising an error of the same kind (``error_kind``);
  results agree when shapes and dtypes are equal and values are within the
  program's tolerance (``tolerance``, ``_differs``).
- A regression is a shrunk failing program, kept in ``regressions.json``
  (replayed by ``test_fuzz.py``) with its inputs' seed, transformation and mode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import jax
import numpy as np
from tests.fuzz.fuzz_steps import rtol_of

RTOL_32: Final = 2e-4  # the relative tolerance of a program in 32-bit mode, at least
REGRESSIONS: Final = Path(__file__).with_name("regressions.json")

Step = tuple[str, tuple[int, ...]]  # (operation, which earlier values it reads)


def error_kind(error: BaseException) -> type[BaseException]:
    """The builtin exception class nearest ``error``'s own: what a caller's ``except`` sees.

    JAX's ``ConcretizationTypeError`` and didax's are both ``TypeError``;
    jaxlib's ``JaxRuntimeError`` is a ``RuntimeError``; a class that derives
    from ``Exception`` directly is ``Exception``.
    """
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def _describe(error: BaseException) -> str:
    first_line = (str(error).strip().splitlines() or [""])[0]
    kind = error_kind(error).__name__
    name = type(error).__name__
    return f"{kind} ({name}: {first_line})" if name != kind else f"{kind}: {first_line}"


def _summary(value: Any) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    return ", ".join(f"{np.asarray(v).dtype}{list(np.shape(v))}" for v in leaves) or "no arrays"


def tolerance(steps: Sequence[Step], x64: bool) -> float:
    """The relative tolerance of a program: its least precise step's, or 32-bit mode's."""
    return max([rtol_of(op) for op, _ in steps] + [1e-7 if x64 else RTOL_32])


def _slack(rtol: float, scale: float) -> float:
    """The absolute slack of a comparison at ``rtol``, for results as large as ``scale``.

    Round-off is the intermediates', and a small entry can be a difference
    of large ones, so the slack is in proportion to the largest entry; a
    16-bit step rounds its intermediates at ``rtol``, so there an entry's
    error is ``rtol`` of the largest.
    """
    return rtol * scale * (1.0 if rtol >= 1e-2 else 1e-2)


def _differs(got: Any, want: Any, rtol: float) -> str | None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    if len(got_leaves) != len(want_leaves):
        return f"{len(got_leaves)} results, JAX {len(want_leaves)}"
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {g.dtype}{list(g.shape)}, JAX {w.dtype}{list(w.shape)}"
        slack = _slack(rtol, float(np.max(np.abs(w), initial=1.0, where=np.isfinite(w))))
        if not np.allclose(g, w, rtol=rtol, atol=slack, equal_nan=True):
            return f"values differ:\n{g}\nJAX:\n{w}"
    return None


def no_farther(got: Any, want: Any, exact: Any, rtol: float) -> bool:
    """Whether each entry of ``got`` is as near ``exact`` as ``want``'s is, within ``rtol``.

    ``got`` and ``want`` must have the same shapes and dtypes; ``exact`` is
    the same computation done more precisely, and must be finite. An entry
    of ``got`` may be farther from it than ``want``'s by ``rtol`` of the
    entry plus ``_differs``' absolute slack.
    """
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    exact_leaves = jax.tree_util.tree_leaves(exact)
    if not len(got_leaves) == len(want_leaves) == len(exact_leaves):
        return False
    for g, w, e in zip(got_leaves, want_leaves, exact_leaves, strict=True):
        g, w, e = np.asarray(g), np.asarray(w), np.asarray(e)
        if g.shape != w.shape or g.dtype != w.dtype or e.shape != g.shape:
            return False
        if not np.all(np.isfinite(e)):
            return False
        e = e.astype(np.result_type(e, np.float64))
        slack = _slack(rtol, float(np.max(np.abs(e), initial=1.0)))
        far, jax_far = np.abs(g.astype(e.dtype) - e), np.abs(w.astype(e.dtype) - e)
        if not np.all(far <= jax_far + rtol * np.abs(e) + slack):
            return False
    return True


def load_regressions() -> list[dict[str, Any]]:
    if not REGRESSIONS.exists():
        return []
    cases: list[dict[str, Any]] = json.loads(REGRESSIONS.read_text())
    return cases


def _case(steps: list[Step], seed: int, transformation: str, x64: bool) -> dict[str, Any]:
    return {
        "steps": [[op, list(ix)] for op, ix in steps],
        "seed": seed,
        "transformation": transformation,
        "x64": x64,
    }


def _record(case: dict[str, Any]) -> None:
    cases = load_regressions()
    if case not in cases:
        cases.append(case)
        REGRESSIONS.write_text(json.dumps(cases, indent=1) + "\n")


def steps_of(case: dict[str, Any]) -> list[Step]:
    return [(str(op), (int(ix[0]), int(ix[1]))) for op, ix in case["steps"]]
