"""``explain_cache_misses``: why a jitted call traced again, logged as JAX logs it.

Design rules:
- Only a miss pays: the jit miss path calls ``explain_cache_miss`` when
  ``jax_explain_cache_misses`` is on, with the keys its trace cache holds;
  the hit path reads nothing more.
- A trace-cache key is either the plain one (the trace mode, then one
  signature per positional array argument) or the general one (pytree
  structure, signatures, static arguments, trace mode); both are read as
  those four parts, and the closest previous key is reported by JAX's
  order: the tracing context (x64, matmul precision), the pytree, the
  static arguments, then each argument whose type changed.
- The message is JAX's (``TRACING CACHE MISS at <user frame>:``), logged at
  WARNING on the ``didax.api.cache_misses`` logger.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from jax import tree_util

from didax.core.abstract import ShapedArray
from didax.core.source_info import user_frame_summary

__all__ = ["explain_cache_miss"]

logger = logging.getLogger(__name__)

_Parts = tuple[Any, tuple[Hashable, ...], Hashable, Hashable]


def _parts(key: Hashable) -> _Parts:
    """(pytree or None, leaf signatures, static arguments, trace mode) of a trace-cache key."""
    assert isinstance(key, tuple)
    if len(key) == 4 and isinstance(key[0], tree_util.PyTreeDef):
        return key[0], tuple(key[1]), key[2], key[3]
    # The plain key: the mode, then one signature per positional array.
    leaves = tuple(key[1:])
    tree = tree_util.tree_structure((tuple(range(len(leaves))), {}))
    return tree, leaves, (), key[0]


def _describe(signature: Hashable) -> str:
    if isinstance(signature, ShapedArray):
        weak = "{weak_type=True}" if signature.weak_type else ""
        return signature.str_short() + weak
    if isinstance(signature, tuple) and signature and isinstance(signature[0], ShapedArray):
        return f"{signature[0].str_short()} laid out as {signature[1]}"
    if isinstance(signature, type):
        kind = "NumPy" if issubclass(signature, np.generic) else "Python"
        return f"a {kind} {signature.__name__}"
    return str(signature)


def _arg_names(fun: Callable[..., Any] | None, dyn: Any) -> list[str]:
    """A name per leaf of the dynamic ``(args, kwargs)``: its parameter's and the path inside.

    Positional parameters are named by ``fun``'s signature when given (a
    jit without static arguments, whose positions are the parameters').
    """
    params: list[str] = []
    if fun is not None:
        with contextlib.suppress(TypeError, ValueError):  # (a builtin may have none)
            params = list(inspect.signature(fun).parameters)
    names = []
    for path, _ in tree_util.tree_flatten_with_path(dyn)[0]:
        where, index, *inner = path
        i = getattr(index, "idx", None)
        if getattr(where, "idx", None) == 0 and isinstance(i, int):
            base = params[i] if i < len(params) else f"args[{i}]"
        else:
            base = str(getattr(index, "key", index))
        names.append(base + tree_util.keystr(tuple(inner)))
    return names


def _diff(new: _Parts, old: _Parts, names: Sequence[str]) -> tuple[int, int, str]:
    """(severity, number of differences, explanation), JAX's order: lower is closer."""
    tree, leaves, static, mode = new
    old_tree, old_leaves, old_static, old_mode = old
    if mode != old_mode:
        return (
            0,
            1,
            "Tracing context doesn't match, e.g. due to config or context manager.\n"
            f"  * the x64 mode and matmul precision: now {mode} and before {old_mode}",
        )
    if tree != old_tree:
        return 1, 1, f"different input pytree:\n  * now {tree} and before {old_tree}"
    if static != old_static:
        return 2, 1, f"different static arguments: now {static} and before {old_static}"
    diffs = [
        f"  * at {name}, now {_describe(a)} and before {_describe(b)}"
        for name, a, b in zip(names, leaves, old_leaves, strict=False)
        if a != b
    ]
    if diffs:
        return 3, len(diffs), "different input types:\n" + "\n".join(diffs)
    return 4, 0, "cache miss explanation unavailable"


def explain_cache_miss(
    fun: Callable[..., Any],
    keys: Sequence[Hashable],
    key: Hashable,
    dyn: Any,
    positional_names: bool,
) -> None:
    """Logs why ``key`` (a jitted call's) missed a trace cache holding ``keys``.

    ``dyn`` is the call's dynamic ``(args, kwargs)``; ``positional_names``
    says whether its positions are ``fun``'s parameters (no static ones).
    """
    name = getattr(fun, "__qualname__", getattr(fun, "__name__", repr(fun)))
    code = getattr(fun, "__code__", None)
    where = "" if code is None else f" defined at {code.co_filename}:{code.co_firstlineno}"
    lines = [f"TRACING CACHE MISS at {user_frame_summary()}:"]
    if not keys:
        lines.append(f"  never seen function:\n    {name} id={id(fun)}{where}")
    else:
        names = _arg_names(fun if positional_names else None, dyn)
        new = _parts(key)
        closest = min(_diff(new, _parts(k), names) for k in keys)
        lines.append(f"  for {name}{where}")
        lines.append("  all previously seen cache keys differ. For the closest previous key:")
        lines.append("  " + closest[2])
    logger.warning("\n".join(lines))
