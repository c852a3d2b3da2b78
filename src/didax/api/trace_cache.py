"""jit's trace caches: what keys a traced signature, and which jits share a cache.

Design rules:
- A trace-cache key holds what tracing depends on and nothing else: the
  pytree structure of the dynamic arguments, each leaf's type (an Array's
  ``jit_key``: its aval, and its sharding when laid out over several
  devices; a NumPy array's aval; a scalar's Python or NumPy type, which
  says its weak type or dtype), the static arguments, and the trace mode
  (x64, and the default matmul precision when set). ``Jitted._cache_key``
  builds every key from these pieces: the call's hit path, its miss path
  and ``lower`` find the same entry for the same arguments.
- An entry holds the closure-converted jaxpr, its constants (placed on the
  device once) and, once compiled, the executable: a hit does one lookup
  and one XLA call, no tracing, lowering or fingerprinting.
- Every ``jit(fun, ...)`` of the same ``fun`` and options shares one trace
  cache, held weakly by ``fun``: a re-created ``jit(f)`` retraces nothing,
  as JAX's process-wide cache, and the caches go with their function.
- Static and donated arguments are checked as JAX checks them, once per
  function and options.
- Tables the hit path reads inline are plain dicts, emptied when full: an
  ``LRUCache`` call costs more than a miss saves there (docs/performance.md,
  "Dispatch internals").
"""

from __future__ import annotations

import builtins
import inspect
import operator
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, cast, final

import attrs
import numpy as np
from jax import tree_util

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.cache import LRUCache
from didax.core.source_info import user_frame_summary
from didax.core.values import ValueKind, get_aval, value_kind
from didax.ir.jaxpr import Jaxpr
from didax.lowering.compiled import AnyCompiled, HotCall

TRACE_CACHE_SIZE: Final = 256


@final
class Entry:
    """A traced signature: its jaxpr, constants, output tree and (eagerly) executable."""

    __slots__ = (
        "compiled",
        "const_buffers",
        "consts",
        "donated",
        "hot",
        "jaxpr",
        "out_tree",
        "single_output",
    )

    def __init__(self, jaxpr: Jaxpr, consts: tuple[Any, ...], out_tree: Any) -> None:
        self.jaxpr = jaxpr
        self.consts = consts
        self.out_tree = out_tree
        # A function returning one array: the hit path skips unflattening.
        self.single_output = tree_util.treedef_is_leaf(out_tree) and out_tree.num_leaves == 1
        self.compiled: AnyCompiled | None = None
        self.const_buffers: tuple[Any, ...] = ()
        self.donated: frozenset[int] = frozenset()  # positions of donated leaves
        # The compiled program's call for jit's hit path (``api.hit_path``),
        # or None where that path does not apply (several results or
        # devices, donation).
        self.hot: HotCall | None = None


def leaf_signature(x: Any) -> Hashable:
    """What tracing depends on about a leaf: its type (shape, dtype, weakness).

    A device Array's signature is its aval, an object its Compiled shares
    among all its results (equal and usually identical keys: the cheapest
    dict hit); a NumPy array of the same type has an equal signature.
    """
    kind = value_kind(x)
    if kind is ValueKind.ARRAY:
        key: Hashable = x.jit_key
        return key
    t = type(x)
    if kind is ValueKind.SCALAR or (kind is ValueKind.HOST and t is not np.ndarray):
        # A Python scalar's type says its (weak) type; a NumPy scalar's its
        # dtype (the key also holds the x64 mode, which decides the rest).
        return cast(Hashable, t)
    return get_aval(x)


# A NumPy array's aval by its shape, dtype and the x64 mode (which makes its
# dtype canonical): one shared object per type, found without building one.
# A plain dict, emptied when full: the hit path reads it inline.
NDARRAY_AVALS: Final[dict[tuple[Any, ...], ShapedArray]] = {}
NDARRAY_AVALS_SIZE: Final = 1024


def ndarray_aval(x: np.ndarray[Any, Any], mode: Hashable) -> ShapedArray:
    # (mode: the trace mode, whose x64 part makes the dtype canonical.)
    key = (x.shape, x.dtype, mode)
    aval = NDARRAY_AVALS.get(key)
    if aval is None:
        if len(NDARRAY_AVALS) >= NDARRAY_AVALS_SIZE:
            NDARRAY_AVALS.clear()
        aval = NDARRAY_AVALS[key] = get_aval(x)
    return aval


ARRAY_KINDS: Final = frozenset({ValueKind.SCALAR, ValueKind.HOST, ValueKind.ARRAY})


# The leaf signatures the hit path reads without a call: a device Array's
# aval, and a scalar's type: a Python scalar's says its weak type, a NumPy
# scalar's its dtype (``leaf_signature``; the x64 mode is keyed too).
SCALAR_SIGNATURES: Final[dict[type, Hashable]] = {
    float: float,
    int: int,
    bool: bool,
    complex: complex,
    **{d.type: cast(Hashable, d.type) for d in dtypes.SUPPORTED},
}


def _check_static_args(
    params: list[inspect.Parameter],
    positional: list[str],
    nums: tuple[int, ...],
    names: tuple[str, ...],
) -> None:
    """JAX's checks: static positions and names must exist in the signature (when known)."""
    for i in nums:
        operator.index(i)
    if not params:
        return
    kinds = {p.kind for p in params}
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        n = len(positional)
        if builtins.any(not -n <= i < n for i in nums):
            raise ValueError(
                f"Jitted function has static_argnums={nums}, but only accepts {n} "
                "positional arguments."
            )
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        known = {p.name for p in params}
        bad = {m for m in names if m not in known}
        if bad:
            raise ValueError(
                f"Jitted function has invalid argnames {bad} in static_argnames. "
                "Function does not take these args."
            )


def _donated_args(
    positional: list[str],
    donate_argnums: int | Sequence[int],
    donate_argnames: str | Sequence[str],
    static_nums: frozenset[int],
    static_names: frozenset[str],
) -> tuple[frozenset[int], frozenset[str]]:
    """The positions and names of donated arguments, checked as JAX checks them."""
    nums = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
    names = (donate_argnames,) if isinstance(donate_argnames, str) else tuple(donate_argnames)
    for i in nums:
        operator.index(i)
    if positional:
        n = len(positional)
        if builtins.any(not -n <= i < n for i in nums):
            raise ValueError(
                f"Jitted function has donate_argnums={nums}, but only accepts {n} "
                "positional arguments."
            )
        nums = tuple(i % n for i in nums)
    donated = frozenset(nums + tuple(positional.index(m) for m in names if m in positional))
    both = (donated & static_nums) | {positional.index(m) for m in names if m in static_names}
    if both:
        clash = sorted(positional[i] if i < len(positional) else str(i) for i in both)
        raise ValueError(f"static and donated arguments cannot intersect: {clash} are both")
    return donated, frozenset(names) | {positional[i] for i in donated if i < len(positional)}


@final
@attrs.frozen(eq=False)
class Options:
    """A jitted function's checked options, and its trace cache.

    Shared by every ``jit(fun, ...)`` of the same ``fun`` and options (see
    ``options_for``): a re-created ``jit(f)`` finds the signatures traced
    before and retraces nothing, as JAX's process-wide cache.
    """

    static_nums: frozenset[int]
    static_names: frozenset[str]
    donated: frozenset[int]
    donated_names: frozenset[str]
    in_shardings: Any = None
    out_shardings: Any = None
    cache: LRUCache[Entry] = attrs.field(factory=lambda: LRUCache(maxsize=TRACE_CACHE_SIZE))


def _check_options(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int],
    static_argnames: str | Sequence[str],
    donate_argnums: int | Sequence[int],
    donate_argnames: str | Sequence[str],
    in_shardings: Any = None,
    out_shardings: Any = None,
) -> Options:
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    # Like JAX: a static parameter may be passed by position or by name.
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    try:
        _check_static_args(params, positional, nums, names)
    except (TypeError, ValueError) as e:
        e.add_note(f"at {user_frame_summary()}")
        raise
    if positional and all(p.kind != p.VAR_POSITIONAL for p in params):
        nums = tuple(i % len(positional) for i in nums)
    static_nums = frozenset(nums + tuple(positional.index(n) for n in names if n in positional))
    static_names = frozenset(names + tuple(positional[i] for i in nums if 0 <= i < len(positional)))
    donated, donated_names = _donated_args(
        positional, donate_argnums, donate_argnames, static_nums, static_names
    )
    return Options(static_nums, static_names, donated, donated_names, in_shardings, out_shardings)


# The options and trace caches of every jitted function, held weakly by the
# function: they go with it. Bounded by the functions alive (each cache by
# TRACE_CACHE_SIZE); ``clear_caches`` empties every cache.
SHARED: Final[weakref.WeakKeyDictionary[Any, dict[Hashable, Options]]] = weakref.WeakKeyDictionary()
SHARED_LOCK: Final = threading.Lock()


def options_for(fun: Callable[..., Any], *options: Any) -> Options:
    """``fun``'s checked options and trace cache, shared among its jits with equal options."""
    try:
        key = tuple(_hashable(o) for o in options)
        hash(key)
        per_fun = SHARED.get(fun)
    except TypeError:  # an unhashable option, or a function that is not weakly referable
        return _check_options(fun, *options)
    if per_fun is not None:
        found = per_fun.get(key)
        if found is not None:
            return found
    checked = _check_options(fun, *options)
    try:
        with SHARED_LOCK:
            return SHARED.setdefault(fun, {}).setdefault(key, checked)
    except TypeError:
        return checked


def _hashable(option: Any) -> Hashable:
    if isinstance(option, (list, tuple)):
        return tuple(_hashable(o) for o in option)
    if isinstance(option, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in option.items()))
    key: Hashable = option
    return key


def clear_trace_caches() -> None:
    """Empties the trace cache of every jitted function alive (they keep their caches)."""
    with SHARED_LOCK:
        caches = [o.cache for per_fun in SHARED.values() for o in per_fun.values()]
    for cache in caches:
        cache.clear()
