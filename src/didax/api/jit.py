"""``jit``: trace once per signature, compile once per program, then just call XLA.

Design rules:
- Calling a jitted function first flattens its arguments and computes a
  *signature*: the pytree structure, each leaf's type, and the static
  arguments. The per-function trace cache maps a signature to the traced,
  closure-converted jaxpr, its constants (already on the device) and its
  compiled executable. A hit does one lookup and one XLA call: no tracing,
  no lowering, no fingerprinting.
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

import builtins
import functools
import inspect
import operator
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, cast, final, overload

import attrs
import numpy as np
from jax import tree_util

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.cache import CacheInfo, LRUCache
from didax.core.config import disable_jit, dispatch_mode, flag, trace_mode
from didax.core.sharding import NamedSharding, SingleDeviceSharding
from didax.core.source_info import user_frame_summary
from didax.core.trace import current_trace
from didax.core.values import ValueKind, get_aval, kind_or_none, value_kind
from didax.interpreters.evaluation import EVAL_TRACE, check_nans
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.jit import jit_p
from didax.interpreters.parallel import program_meshes
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr
from didax.lowering import dispatch
from didax.lowering.dispatch import (
    AnyCompiled,
    compile_cache_info,
    compile_jaxpr,
    spmd_annotations,
)
from didax.lowering.mlir import lower_to_text
from didax.lowering.sharding import SpmdLayout, mesh_of, replicated
from didax.lowering.xla import lowered_cost_analysis

__all__ = [
    "jit",
    "Jitted",
    "Lowered",
    "CompiledFunction",
    "compile_cache_info",
    "clear_caches",
]

TRACE_CACHE_SIZE: Final = 256


@final
class _Entry:
    """A traced signature: its jaxpr, constants, output tree and (eagerly) executable."""

    __slots__ = (
        "compiled",
        "const_buffers",
        "consts",
        "donated",
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


def _leaf_signature(x: Any) -> Hashable:
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
# A plain dict, emptied when full: the hit path reads it inline (~0.3 µs an
# argument; an LRUCache call costs ~1 µs).
_NDARRAY_AVALS: Final[dict[tuple[Any, ...], ShapedArray]] = {}
_NDARRAY_AVALS_SIZE: Final = 1024


def _ndarray_aval(x: np.ndarray[Any, Any], mode: Hashable) -> ShapedArray:
    # (mode: the trace mode, whose x64 part makes the dtype canonical.)
    key = (x.shape, x.dtype, mode)
    aval = _NDARRAY_AVALS.get(key)
    if aval is None:
        if len(_NDARRAY_AVALS) >= _NDARRAY_AVALS_SIZE:
            _NDARRAY_AVALS.clear()
        aval = _NDARRAY_AVALS[key] = get_aval(x)
    return aval


_ARRAY_KINDS: Final = frozenset({ValueKind.SCALAR, ValueKind.HOST, ValueKind.ARRAY})


def _positional_signature(args: tuple[Any, ...], mode: Hashable) -> tuple[Hashable, ...] | None:
    """The leaf signatures of positional array arguments, or None if one is not an array.

    One pass, with device Arrays (the common case) read directly: this is
    the jit cache-hit path's key.
    """
    signature: list[Hashable] = []
    for x in args:
        if type(x) is Array:
            signature.append(x.jit_key)
        elif type(x) is np.ndarray:
            signature.append(_ndarray_aval(x, mode))
        elif kind_or_none(x) in _ARRAY_KINDS:
            signature.append(_leaf_signature(x))
        else:
            return None
    return tuple(signature)


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
class _Options:
    """A jitted function's checked options, and its trace cache.

    Shared by every ``jit(fun, ...)`` of the same ``fun`` and options (see
    ``_options_for``): a re-created ``jit(f)`` finds the signatures traced
    before and retraces nothing, as JAX's process-wide cache.
    """

    static_nums: frozenset[int]
    static_names: frozenset[str]
    donated: frozenset[int]
    donated_names: frozenset[str]
    in_shardings: Any = None
    out_shardings: Any = None
    cache: LRUCache[_Entry] = attrs.field(factory=lambda: LRUCache(maxsize=TRACE_CACHE_SIZE))


def _check_options(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int],
    static_argnames: str | Sequence[str],
    donate_argnums: int | Sequence[int],
    donate_argnames: str | Sequence[str],
    in_shardings: Any = None,
    out_shardings: Any = None,
) -> _Options:
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
    return _Options(static_nums, static_names, donated, donated_names, in_shardings, out_shardings)


# The options and trace caches of every jitted function, held weakly by the
# function: they go with it. Bounded by the functions alive (each cache by
# TRACE_CACHE_SIZE); ``clear_caches`` empties every cache.
_SHARED: Final[weakref.WeakKeyDictionary[Any, dict[Hashable, _Options]]] = (
    weakref.WeakKeyDictionary()
)
_SHARED_LOCK: Final = threading.Lock()


def _options_for(fun: Callable[..., Any], *options: Any) -> _Options:
    """``fun``'s checked options and trace cache, shared among its jits with equal options."""
    try:
        key = tuple(_hashable(o) for o in options)
        hash(key)
        per_fun = _SHARED.get(fun)
    except TypeError:  # an unhashable option, or a function that is not weakly referable
        return _check_options(fun, *options)
    if per_fun is not None:
        found = per_fun.get(key)
        if found is not None:
            return found
    checked = _check_options(fun, *options)
    try:
        with _SHARED_LOCK:
            return _SHARED.setdefault(fun, {}).setdefault(key, checked)
    except TypeError:
        return checked


def _hashable(option: Any) -> Hashable:
    if isinstance(option, (list, tuple)):
        return tuple(_hashable(o) for o in option)
    if isinstance(option, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in option.items()))
    key: Hashable = option
    return key


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


def clear_caches() -> None:
    """Empties every cache of traced and compiled programs (``jax.clear_caches``).

    Every jitted function's trace cache, the compile cache, and the device
    copies of scalars; the next call of a jitted function traces and
    compiles again (or loads from the persistent cache, if one is set).
    """
    # Entries are emptied, not dropped: jitted functions alive keep theirs.
    with _SHARED_LOCK:
        caches = [o.cache for per_fun in _SHARED.values() for o in per_fun.values()]
    for cache in caches:
        cache.clear()
    dispatch.clear_caches()


# The leaf signatures the hit path reads without a call: a device Array's
# aval, and a scalar's type: a Python scalar's says its weak type, a NumPy
# scalar's its dtype (``_leaf_signature``; the x64 mode is keyed too).
_SCALAR_SIGNATURES: Final[dict[type, Hashable]] = {
    float: float,
    int: int,
    bool: bool,
    complex: complex,
    **{d.type: cast(Hashable, d.type) for d in dtypes.SUPPORTED},
}


class Jitted:
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
        options = _options_for(
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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The cache-hit path: positional device Arrays and Python scalars (the
        # common case) key the cache by their types and the trace mode (x64,
        # and the default matmul precision when set), which decides what
        # tracing produced; a hit is one lookup and the XLA call.
        mode = dispatch_mode()
        if mode is not None and self._plain and not kwargs and current_trace() is EVAL_TRACE:
            # The key _positional_signature builds (the miss path inserts
            # under it), inlined: a loop reads fastest here (a comprehension
            # is a call), and an Array's aval is read from its slot.
            signature: list[Hashable] = [mode]
            for x in args:
                if type(x) is Array:
                    signature.append(x._key)
                elif type(x) is np.ndarray:
                    aval = _NDARRAY_AVALS.get((x.shape, x.dtype, mode))
                    signature.append(aval if aval is not None else _ndarray_aval(x, mode))
                else:
                    leaf = _SCALAR_SIGNATURES.get(type(x))
                    if leaf is None:
                        break
                    signature.append(leaf)
            else:
                entry = self._cache.get(tuple(signature))
                if entry is not None and not entry.donated:
                    compiled = entry.compiled
                    assert compiled is not None
                    if entry.single_output:
                        return compiled.run_single(entry.const_buffers, args)
                    outs = compiled.run(entry.const_buffers, args)
                    return tree_util.tree_unflatten(entry.out_tree, outs)
        return self._call(args, kwargs)

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Every call the hit path does not answer: a miss, pytrees, statics, tracers."""
        if flag("jax_disable_jit"):
            return self._fun(*args, **kwargs)
        if current_trace() is EVAL_TRACE:
            # The options that change tracing (x64, the default matmul
            # precision) key the cache, as the hit path's dispatch mode does.
            mode = trace_mode()
            signature = None if kwargs or not self._plain else _positional_signature(args, mode)
            if signature is not None:
                key: Hashable = (mode, *signature)
                entry = self._cache.get(key)
                leaves: Sequence[Any] = args
            else:
                dyn, static_key, rebuild = self._split(args, kwargs)
                leaves, in_tree = tree_util.tree_flatten(dyn)
                key = (in_tree, tuple(map(_leaf_signature, leaves)), static_key, mode)
                entry = self._cache.get(key)
            if entry is None:
                dyn, _, rebuild = self._split(args, kwargs)
                leaves, in_tree = tree_util.tree_flatten(dyn)
                donated = self._donated_leaves(args, kwargs)
                entry = self._cache.get_or_create(
                    key, lambda: self._compile(leaves, in_tree, rebuild, donated)
                )
            compiled = entry.compiled
            assert compiled is not None
            outs: list[Any] = compiled.run(entry.const_buffers, leaves, entry.donated)
            if flag("jax_debug_nans"):
                self._find_nans(args, kwargs, outs)
            if entry.single_output:
                return outs[0]
        else:
            dyn, static_key, rebuild = self._split(args, kwargs)
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
    ) -> _Entry:
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
        return entry

    def _layout(self, entry: _Entry, leaves: Sequence[Any], in_tree: Any) -> SpmdLayout | None:
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
            a if a is not None else (x.committed_sharding if type(x) is Array else None)
            for a, x in zip(asked, leaves, strict=True)
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

    def _trace(self, leaves: Sequence[Any], in_tree: Any, rebuild: Callable[[Any], Any]) -> _Entry:
        out_tree: list[Any] = []

        def flat_fun(*xs: Any) -> list[Any]:
            out = rebuild(tree_util.tree_unflatten(in_tree, xs))
            flat, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            return flat

        avals = [get_aval(x) for x in leaves]
        closed = trace_to_jaxpr(flat_fun, avals, f"jit({self._name})")
        jaxpr, consts = close_over_nothing(closed)
        return _Entry(jaxpr, consts, out_tree[0])

    # --- ahead of time ---------------------------------------------------------

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Traces and lowers for these arguments' types; see ``Lowered``."""
        dyn, _, rebuild = self._split(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        entry = self._trace(leaves, in_tree, rebuild)
        return Lowered(entry, self._name, self._layout(entry, leaves, in_tree))

    # --- the trace cache -------------------------------------------------------

    def cache_info(self) -> CacheInfo:
        """Hits, misses and size of this function's trace cache."""
        return self._cache.info()

    def clear_cache(self) -> None:
        self._cache.clear()

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"


@final
class Lowered:
    """A jitted function lowered for one signature."""

    def __init__(self, entry: _Entry, name: str, layout: SpmdLayout | None = None) -> None:
        self._entry = entry
        self._name = name
        self._layout = layout

    def as_text(self, platform: str | None = None) -> str:
        """The StableHLO module, as text (annotated with ``mhlo.sharding`` over a mesh).

        Lowered for ``platform`` ("cpu", "cuda"...; by default the backend's):
        a program's text for a platform this machine lacks, as JAX's
        ``jax.export(..., platforms=[...])`` gives it.
        """
        jaxpr = self._entry.jaxpr
        spmd = None if self._layout is None else spmd_annotations(jaxpr, self._layout)
        return lower_to_text(jaxpr, self._name, spmd, platform)

    def compile(self) -> CompiledFunction:
        compiled = compile_jaxpr(self._entry.jaxpr, self._name, layout=self._layout)
        return CompiledFunction(self._entry, compiled)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost analysis of the program as lowered, before XLA optimizes it.

        JAX's ``Lowered.cost_analysis()``: before XLA's passes fuse and
        simplify it (converting to HLO only drops dead code and trivial
        operations); ``CompiledFunction.cost_analysis`` is after. Raises
        ``NotImplementedError`` where XLA's client cannot do it (GPU plugins).
        """
        return lowered_cost_analysis(self.as_text())


@final
class CompiledFunction:
    """A compiled executable for one signature; call it with arguments of that signature."""

    def __init__(self, entry: _Entry, compiled: AnyCompiled) -> None:
        self._entry = entry
        self._compiled = compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = tree_util.tree_leaves((args, kwargs))
        expected = self._entry.jaxpr.in_avals[len(self._entry.consts) :]
        got = tuple(get_aval(x) for x in leaves)
        if len(got) != len(expected) or any(
            g.strip_weak() != e.strip_weak() for g, e in zip(got, expected, strict=True)
        ):
            raise TypeError(
                "compiled function called with arguments of types "
                f"({', '.join(a.str_short() for a in got)}), compiled for "
                f"({', '.join(a.str_short() for a in expected)})"
            )
        outs = self._compiled.run((), [*self._entry.consts, *leaves])
        return tree_util.tree_unflatten(self._entry.out_tree, outs)

    def as_text(self) -> str:
        return self._compiled.text

    def as_hlo_text(self) -> str:
        """The HLO XLA compiled: for a sharded program, one device's partitioned program."""
        return self._compiled.optimized_hlo()

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost analysis of the compiled program, as JAX's ``Compiled.cost_analysis()``.

        ``"flops"`` and ``"transcendentals"`` are absent when zero; XLA counts
        a loop's body once. ``didax.flops`` counts from the jaxpr instead.

        >>> import didax as dx
        >>> import numpy as np
        >>> compiled = dx.jit(lambda x: x * 2.0 + 1.0).lower(np.ones(3)).compile()
        >>> compiled.cost_analysis()["flops"]
        6.0
        """
        return self._compiled.cost_analysis()


@overload
def jit(
    fun: Callable[..., Any],
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: Any = None,
    out_shardings: Any = None,
) -> Jitted: ...


@overload
def jit(
    fun: None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: Any = None,
    out_shardings: Any = None,
) -> Callable[[Callable[..., Any]], Jitted]: ...


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: Any = None,
    out_shardings: Any = None,
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
    options = (
        static_argnums,
        static_argnames,
        donate_argnums,
        donate_argnames,
        in_shardings,
        out_shardings,
    )
    if fun is None:
        return lambda f: Jitted(f, *options)
    return Jitted(fun, *options)
