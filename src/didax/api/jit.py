"""``jit``: trace once per signature, compile once per program, then just call XLA.

Design rules:
- Calling a jitted function first computes its trace-cache key: the
  pytree structure, each leaf's type, the static arguments and the trace
  mode (``trace_cache``). The per-function trace cache maps a key to the
  traced, closure-converted jaxpr, its constants (already on the device)
  and its compiled executable. A hit does one lookup and one XLA call: no
  tracing, no lowering, no fingerprinting.
- One function makes every key (``Jitted._cache_key``): the hit path, the
  miss path that inserts and ``lower`` cannot disagree on a signature.
- The trace cache is used only when the call is not under a transformation
  (the current trace is eager evaluation): under one, the function may
  close over that transformation's tracers, so it is traced again and bound
  as the ``jit`` primitive, whose rules transform its jaxpr.
- Compiled executables live in the process-wide compile cache, keyed by
  fingerprint, so a re-created ``jit(f)`` compiles nothing new.
- Arrays laid out over several devices key the cache by (aval, sharding)
  (``Array.jit_key``), others by their aval alone: the hit path reads one
  slot per Array either way. A signature with a sharded argument, or a jit
  given ``in_shardings``/``out_shardings``, compiles one SPMD program for
  the mesh (``SpmdLayout``); unspecified inputs are replicated over it and
  XLA chooses unspecified results' layouts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypedDict, Unpack, overload

import numpy as np
from jax import tree_util

from didax.api.aot import CompiledFunction as CompiledFunction
from didax.api.aot import Lowered as Lowered
from didax.api.arrays import ShapeDtypeStruct, leaf_aval
from didax.api.cache_misses import explain_cache_miss
from didax.api.hit_path import HitPath
from didax.api.stages import Traced
from didax.api.trace_cache import (
    ARRAY_KINDS,
    NDARRAY_AVALS,
    SCALAR_SIGNATURES,
    Entry,
    clear_trace_caches,
    leaf_signature,
    ndarray_aval,
    options_for,
)
from didax.core.array import Array
from didax.core.cache import CacheInfo
from didax.core.config import (
    disable_jit,
    dispatch_mode,
    flag,
    trace_mode,
)
from didax.core.lax.jit import jit_p
from didax.core.sharding import NamedSharding, SingleDeviceSharding
from didax.core.source_info import user_frame_summary
from didax.core.trace import current_trace
from didax.core.values import kind_or_none
from didax.interpreters.evaluation import EVAL_TRACE, check_nans
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.parallel import program_meshes
from didax.interpreters.staging import trace_to_jaxpr
from didax.lowering import dispatch
from didax.lowering.compiled import compile_cache_info, compile_jaxpr
from didax.lowering.sharding import SpmdLayout, mesh_of, replicated

__all__ = [
    "jit",
    "Jitted",
    "Lowered",
    "CompiledFunction",
    "compile_cache_info",
    "clear_caches",
]


def _is_sharding_leaf(s: Any) -> bool:
    return s is None or isinstance(s, (NamedSharding, SingleDeviceSharding))


def _per_leaf(shardings: Any, tree: Any) -> list[Any]:
    """A sharding (or None) per leaf of ``tree``, from a pytree prefix of it (or one for all)."""
    n = tree.num_leaves
    if _is_sharding_leaf(shardings):
        return [shardings] * n
    positions = tree_util.tree_unflatten(tree, range(n))
    out: list[Any] = [None] * n
    prefix = tuple(shardings) if isinstance(shardings, list) else shardings

    def assign(s: Any, sub: Any) -> None:
        for i in tree_util.tree_leaves(sub):
            out[i] = s

    tree_util.tree_map(assign, prefix, positions, is_leaf=_is_sharding_leaf)
    return out


def _leaf_sharding(x: Any) -> Any:
    """An argument's own layout: a committed Array's, or a ``ShapeDtypeStruct``'s."""
    if type(x) is Array:
        return x.committed_sharding
    return x.sharding if isinstance(x, ShapeDtypeStruct) else None


def clear_caches() -> None:
    """Empties every cache of traced and compiled programs (``jax.clear_caches``).

    Every jitted function's trace cache, the compile cache, and the device
    copies of scalars; the next call of a jitted function traces and
    compiles again (or loads from the persistent cache, if one is set).
    """
    # Entries are emptied, not dropped: jitted functions alive keep theirs.
    clear_trace_caches()
    dispatch.clear_caches()


class Jitted(HitPath):
    """A jitted function: call it, ``lower`` it, inspect and clear its trace cache."""

    def __init__(
        self,
        fun: Callable[..., Any],
        static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (),
        donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = (),
        in_shardings: Any = None,
        out_shardings: Any = None,
    ) -> None:
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun!r}")
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._name = getattr(fun, "__name__", "fun")
        options = options_for(
            fun,
            static_argnums,
            static_argnames,
            donate_argnums,
            donate_argnames,
            in_shardings,
            out_shardings,
        )
        self._in_shardings = options.in_shardings
        self._out_shardings = options.out_shardings
        self._static_nums = options.static_nums
        self._static_names = options.static_names
        self._donated = options.donated
        self._donated_names = options.donated_names
        self._cache = options.cache
        # Whether positional array arguments key the cache directly.
        self._plain = not options.static_nums and not options.static_names

    # --- calling ---------------------------------------------------------------

    def _miss(self, *args: Any, **kwargs: Any) -> Any:
        """A call the hit path did not answer.

        A call first takes ``HitPath.__call__`` (``api.hit_path``, in C where
        built), which answers a repeat of the most recent signature on
        Arrays alone; every other call comes here.
        """
        # The cache-hit path: one key (``_cache_key``), one lookup, the XLA
        # call. The dispatch mode is the trace mode, or None when the call
        # cannot take this path (``jax_disable_jit``, ``jax_debug_nans``).
        mode = dispatch_mode()
        if mode is not None and current_trace() is EVAL_TRACE:
            key, leaves = self._cache_key(args, kwargs, mode)
            entry = self._cache.get(key)
            if entry is not None and not entry.donated:
                compiled = entry.compiled
                assert compiled is not None
                if entry.single_output:
                    return compiled.run_single(entry.const_buffers, leaves)
                outs = compiled.run(entry.const_buffers, leaves)
                return tree_util.tree_unflatten(entry.out_tree, outs)
        return self._call(args, kwargs)

    def _cache_key(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], mode: Hashable
    ) -> tuple[Hashable, Sequence[Any]]:
        """The trace-cache key of a call, and the leaves its program takes.

        The one key function: the hit path, the miss path and ``lower`` all
        use it, so they find the same entry for the same arguments. ``mode``
        is the trace mode (``trace_mode()``, or ``dispatch_mode()``'s equal
        value). Positional array arguments of a jit without static
        arguments (the common case) key by their leaf signatures alone, in
        one loop that reads an Array's from its slot (a comprehension would
        be a call); anything else by its pytree structure, leaf signatures
        and static arguments.
        """
        if self._plain and not kwargs:
            key: list[Hashable] = [mode]
            for x in args:
                if type(x) is Array:
                    key.append(x._key)
                elif type(x) is np.ndarray:
                    aval = NDARRAY_AVALS.get((x.shape, x.dtype, mode))
                    key.append(aval if aval is not None else ndarray_aval(x, mode))
                else:
                    leaf = SCALAR_SIGNATURES.get(type(x))
                    if leaf is None:
                        if kind_or_none(x) not in ARRAY_KINDS:
                            break  # a pytree, or not an array: the general key
                        leaf = leaf_signature(x)
                    key.append(leaf)
            else:
                return tuple(key), args
        dyn, static_key, _ = self._split(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        return (in_tree, tuple(map(leaf_signature, leaves)), static_key, mode), leaves

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Every call the hit path does not answer: a miss, donation, tracers, debug flags."""
        if flag("jax_disable_jit"):
            return self._fun(*args, **kwargs)
        if current_trace() is EVAL_TRACE:
            key, leaves = self._cache_key(args, kwargs, trace_mode())
            entry = self._cache.get(key)
            if entry is None:
                dyn, _, rebuild = self._split(args, kwargs)
                if flag("jax_explain_cache_misses"):
                    explain_cache_miss(self._fun, self._cache.keys(), key, dyn, self._plain)
                flat, in_tree = tree_util.tree_flatten(dyn)
                donated = self._donated_leaves(args, kwargs)
                entry = self._cache.get_or_create(
                    key, lambda: self._compile(flat, in_tree, rebuild, donated)
                )
            compiled = entry.compiled
            assert compiled is not None
            outs: list[Any] = compiled.run(entry.const_buffers, leaves, entry.donated)
            if flag("jax_debug_nans") or flag("jax_debug_infs"):
                self._find_nans(args, kwargs, outs)
            if entry.single_output:
                return outs[0]
        else:
            dyn, _, rebuild = self._split(args, kwargs)
            leaves, in_tree = tree_util.tree_flatten(dyn)
            entry = self._trace(leaves, in_tree, rebuild)
            outs = jit_p.bind(*entry.consts, *leaves, jaxpr=entry.jaxpr, name=self._name)
        return tree_util.tree_unflatten(entry.out_tree, outs)

    def _find_nans(self, args: tuple[Any, ...], kwargs: dict[str, Any], outs: list[Any]) -> None:
        """``jax_debug_nans``: a NaN in a result re-runs the function eagerly to find its source.

        As JAX does: the eager run raises at the first primitive producing a
        NaN, naming it and the user's line; if it does not (a NaN only XLA's
        arithmetic made), the jitted function is named instead.
        """
        try:
            check_nans(f"jit({self._name})", outs)
        except FloatingPointError:
            with disable_jit():
                self._fun(*args, **kwargs)
            raise

    def _call_unpacked(self, dyn: tuple[tuple[Any, ...], dict[str, Any]]) -> Any:
        return self._fun(*dyn[0], **dyn[1])

    def _donated_leaves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> frozenset[int]:
        """The positions, among the flattened dynamic arguments, of the donated leaves."""
        if not self._donated and not self._donated_names:
            return frozenset()
        marks = (
            tuple(
                tree_util.tree_map(lambda _, i=i: i in self._donated, a)
                for i, a in enumerate(args)
                if i not in self._static_nums
            ),
            {
                k: tree_util.tree_map(lambda _, k=k: k in self._donated_names, v)
                for k, v in kwargs.items()
                if k not in self._static_names
            },
        )
        return frozenset(i for i, mark in enumerate(tree_util.tree_leaves(marks)) if mark)

    def _compile(
        self,
        leaves: Sequence[Any],
        in_tree: Any,
        rebuild: Callable[[Any], Any],
        donated: frozenset[int] = frozenset(),
    ) -> Entry:
        entry = self._trace(leaves, in_tree, rebuild)
        entry.donated = donated
        layout = self._layout(entry, leaves, in_tree)
        if layout is None:
            # The program's parameters are the constants, then the leaves.
            params = frozenset(len(entry.consts) + i for i in donated)
            entry.compiled = compile_jaxpr(entry.jaxpr, self._name, params)
        else:
            entry.compiled = compile_jaxpr(entry.jaxpr, self._name, layout=layout)
        # Constants go to the device once, not at every call.
        entry.const_buffers = entry.compiled.place_consts(entry.consts)
        if self._plain and entry.single_output and not donated:
            entry.hot = entry.compiled.hot_call(entry.const_buffers)
        return entry

    def _layout(self, entry: Entry, leaves: Sequence[Any], in_tree: Any) -> SpmdLayout | None:
        """The SPMD layout of this signature's program, or None for one device.

        Asked shardings first (``in_shardings``, ``out_shardings``), then
        the arguments' own; the rest are replicated (inputs) or XLA's
        choice (results).
        """
        # in_shardings name the positional arguments: kwargs' leaves get none.
        asked_in = self._in_shardings
        if not _is_sharding_leaf(asked_in):
            asked_in = (tuple(asked_in), None)
        asked = _per_leaf(asked_in, in_tree)
        ins = [
            a if a is not None else _leaf_sharding(x) for a, x in zip(asked, leaves, strict=True)
        ]
        outs = _per_leaf(self._out_shardings, entry.out_tree)
        mesh = mesh_of([*ins, *outs, *program_meshes(entry.jaxpr)])
        if mesh is None:
            return None
        rep = replicated(mesh)
        in_layout = (rep,) * len(entry.consts) + tuple(
            s if isinstance(s, NamedSharding) else rep for s in ins
        )
        out_layout = tuple(s if isinstance(s, NamedSharding) else None for s in outs)
        where = f"jit({self._name}) at {user_frame_summary()}"
        for s, a in zip(in_layout, entry.jaxpr.in_avals, strict=True):
            s.check_rank(a.ndim, f"an argument of {where}")
            s.shard_shape(a.shape)
        for o, a in zip(out_layout, entry.jaxpr.out_avals, strict=True):
            if o is not None:
                o.check_rank(a.ndim, f"a result of {where}")
                o.shard_shape(a.shape)
        return SpmdLayout(mesh, in_layout, out_layout)

    def _split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, dict[str, Any]], Hashable, Callable[[Any], Any]]:
        """(dynamic arguments, hashable static key, function of the dynamic arguments)."""
        if not self._static_nums and not self._static_names:
            return (args, kwargs), (), self._call_unpacked
        static_pos = {i: a for i, a in enumerate(args) if i in self._static_nums}
        static_kw = {k: v for k, v in kwargs.items() if k in self._static_names}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in self._static_nums)
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self._static_names}
        key = (tuple(sorted(static_pos.items())), tuple(sorted(static_kw.items())))
        try:
            hash(key)
        except TypeError:
            # JAX's type and words: "Non-hashable static arguments are not supported".
            raise ValueError(
                f"jit: non-hashable static arguments are not supported; the static arguments "
                f"of {self._name} are {key} (at {user_frame_summary()})"
            ) from None
        n = len(args)
        fun = self._fun

        def rebuild(d: tuple[tuple[Any, ...], dict[str, Any]]) -> Any:
            it = iter(d[0])
            full = [static_pos[i] if i in static_pos else next(it) for i in range(n)]
            return fun(*full, **d[1], **static_kw)

        return (dyn_args, dyn_kw), key, rebuild

    def _trace(self, leaves: Sequence[Any], in_tree: Any, rebuild: Callable[[Any], Any]) -> Entry:
        out_tree: list[Any] = []

        def flat_fun(*xs: Any) -> list[Any]:
            out = rebuild(tree_util.tree_unflatten(in_tree, xs))
            flat, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            return flat

        avals = [leaf_aval(x) for x in leaves]
        closed = trace_to_jaxpr(flat_fun, avals, f"jit({self._name})")
        jaxpr, consts = close_over_nothing(closed)
        return Entry(jaxpr, consts, out_tree[0])

    # --- ahead of time ---------------------------------------------------------

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Traces for these arguments' types (arrays or ``ShapeDtypeStruct``s); see ``Traced``.

        Outside any transformation, the program a call with these arguments
        traced (found under the same ``_cache_key``) is taken, not traced
        again, as JAX's stages share jit's tracing cache; calls alone count
        as the cache's hits.
        """
        dyn, _, rebuild = self._split(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        entry = None
        abstract = any(isinstance(x, ShapeDtypeStruct) for x in leaves)
        if current_trace() is EVAL_TRACE and not abstract:
            entry = self._cache.peek(self._cache_key(args, kwargs, trace_mode())[0])
        if entry is None:
            entry = self._trace(leaves, in_tree, rebuild)
        layout = self._layout(entry, leaves, in_tree)
        donated = self._donated_leaves(args, kwargs)
        return Traced(entry, self._name, layout, in_tree, donated)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Traces and lowers for these arguments' types: ``trace(*args, **kwargs).lower()``."""
        return self.trace(*args, **kwargs).lower()

    # --- the trace cache -------------------------------------------------------

    def cache_info(self) -> CacheInfo:
        """Hits, misses and size of this function's trace cache."""
        return self._cache.info()

    def clear_cache(self) -> None:
        self._cache.clear()

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"


class JitOptions(TypedDict, total=False):
    """``jit``'s keyword options, as JAX's; their defaults are ``Jitted``'s."""

    static_argnums: int | Sequence[int]
    static_argnames: str | Sequence[str]
    donate_argnums: int | Sequence[int]
    donate_argnames: str | Sequence[str]
    in_shardings: Any
    out_shardings: Any


@overload
def jit(fun: Callable[..., Any], **options: Unpack[JitOptions]) -> Jitted: ...


@overload
def jit(
    fun: None = None, **options: Unpack[JitOptions]
) -> Callable[[Callable[..., Any]], Jitted]: ...


def jit(
    fun: Callable[..., Any] | None = None, **options: Unpack[JitOptions]
) -> Jitted | Callable[[Callable[..., Any]], Jitted]:
    """Compiles ``fun`` with XLA; usable as ``jit(f)``, ``@jit`` or ``@jit(static_argnums=...)``.

    >>> import didax as dx
    >>> f = dx.jit(lambda x: x * 2.0 + 1.0)
    >>> f(3.0)
    Array(7., dtype=float32, weak_type=True)

    ``donate_argnums``/``donate_argnames`` donate those arguments' buffers
    to XLA, as JAX's: XLA may reuse them for results, and a donated Array is
    deleted by the call (using it again raises).

    ``in_shardings``/``out_shardings`` (a sharding for all, or one per
    positional argument / result, as pytree prefixes) compile one SPMD
    program over their mesh, as do arguments already laid out over one
    (``device_put(x, NamedSharding(...))``): XLA partitions it.
    """
    if fun is None:
        return lambda f: Jitted(f, **options)
    return Jitted(fun, **options)
