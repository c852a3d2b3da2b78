"""``custom_jvp`` and ``custom_vjp``: functions whose derivative the user defines, as JAX's.

Design rules:
- Calling a custom function traces the function into a constant-free jaxpr
  (what it closed over becomes explicit operands) and binds one primitive of
  ``interpreters.custom_derivatives`` with the rules as ``CustomRule``s:
  functions of flat lists that a transformation calls when it needs them
  (a jvp rule usually calls the function itself, so it cannot be traced
  before).
- Pytrees, ``nondiff_argnums`` and the checks of what a rule returns
  (structure, shapes and dtypes, with the messages JAX gives) are this
  module's; the primitives see flat lists of floating-point tangents.
- As in JAX (with ``symbolic_zeros=False``, its default), a jvp rule gets
  zeros for the tangents of inputs that are not being differentiated; with
  ``symbolic_zeros=True`` it gets (and may return) ``SymbolicZero``s
  instead. A bwd rule may return ``None`` for an argument's zero
  cotangent. Tangents of integer inputs are float0 zeros.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, final

import attrs
import numpy as np
from jax import tree_util

from didax.api.transformations import PyTreeDef
from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.basearray import AvalAttributes
from didax.core.lax.custom_derivatives import CustomRule, custom_jvp_call_p, custom_vjp_call_p
from didax.core.promotion import convert
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval, is_value
from didax.interpreters.custom_derivatives import is_differentiable
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.jvp import Zero
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr

__all__ = [
    "custom_jvp",
    "custom_vjp",
    "SymbolicZero",
    "CustomVJPPrimal",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]


@final
@attrs.frozen
class SymbolicZero(AvalAttributes):
    """A zero tangent, as a jvp rule with ``symbolic_zeros=True`` receives it (JAX's).

    It has the type of the tangent it stands for; a rule may return one too.

    >>> SymbolicZero(ShapedArray((2,), dtypes.float32)).shape
    (2,)
    """

    aval: ShapedArray


@final
@attrs.frozen
class CustomVJPPrimal:
    """A primal argument leaf as a ``custom_vjp`` fwd rule with ``symbolic_zeros=True`` gets it.

    ``perturbed`` says whether its tangent is nonzero (JAX's).
    """

    value: Any
    perturbed: bool


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """``tree`` with each ``CustomVJPPrimal`` leaf replaced by its value (JAX's)."""

    def value(leaf: object) -> Any:
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tree_util.tree_map(value, tree)


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
    """The zero tangent of each leaf of ``val``: a ``SymbolicZero``, or zeros (JAX's).

    >>> zero_from_primal(np.ones(2, np.float32))
    array([0., 0.], dtype=float32)
    """

    def zero(x: Any) -> Any:
        aval = Zero.like(get_aval(x)).aval
        return SymbolicZero(aval) if symbolic_zeros else np.zeros(aval.shape, aval.dtype)

    return tree_util.tree_map(zero, val)


def _symbolic_cts(cts: Sequence[Any]) -> list[Any]:
    return [SymbolicZero(c.aval) if isinstance(c, Zero) else c for c in cts]


def _bwd_zero(ct: SymbolicZero, arg: Any, name: str) -> Any:
    """A bwd rule's ``SymbolicZero`` cotangent as zeros, if it has the argument's tangent type."""
    want = Zero.like(get_aval(arg)).aval
    got = ShapedArray(tuple(ct.aval.shape), np.dtype(ct.aval.dtype))
    if got.shape != want.shape or got.dtype != want.dtype:
        raise ValueError(
            f"{name}: Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
            f"not match the corresponding input tangent shape/dtype: the SymbolicZero had "
            f"shape/dtype {got.str_short()} while the corresponding input had shape/dtype "
            f"{get_aval(arg).str_short()}. Consider just returning a None here instead of a "
            "SymbolicZero object."
        )
    return np.zeros(want.shape, want.dtype)


def _resolve_args(
    fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    """Keyword arguments turned positional, as JAX's custom functions require."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TypeError(f"custom function {getattr(fun, '__name__', fun)}: {e}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError("custom functions take no keyword-only arguments")
    return tuple(bound.args)


class _Split:
    """The arguments of a call: ``nondiff_argnums`` apart, the rest flattened."""

    def __init__(self, args: tuple[Any, ...], nondiff_argnums: tuple[int, ...], name: str) -> None:
        n = len(args)
        for i in nondiff_argnums:
            if not -n <= i < n:
                raise ValueError(f"{name}: nondiff_argnums {nondiff_argnums} out of range")
        self.nums = tuple(sorted(i % n for i in nondiff_argnums))
        self.static = [args[i] for i in self.nums]
        self.dyn = tuple(a for i, a in enumerate(args) if i not in self.nums)
        self.n = n
        self.leaves, self.in_tree = tree_util.tree_flatten(self.dyn)
        for x in self.leaves:
            if not is_value(x):
                raise TypeError(
                    f"{name}: argument leaf {type(x).__name__} {x!r} is not a didax value"
                )
        self.avals = [get_aval(x) for x in self.leaves]

    def full_args(self, dyn: Sequence[Any]) -> list[Any]:
        it, static = iter(dyn), iter(self.static)
        return [next(static) if i in self.nums else next(it) for i in range(self.n)]

    def dyn_tree(self, leaves: Sequence[Any]) -> tuple[Any, ...]:
        out: tuple[Any, ...] = tree_util.tree_unflatten(self.in_tree, list(leaves))
        return out


def _trace(
    fun: Callable[..., Any], avals: Sequence[ShapedArray], name: str
) -> tuple[Jaxpr, tuple[Any, ...]]:
    return close_over_nothing(trace_to_jaxpr(fun, avals, name))


def _tangent_avals(avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    return [a.strip_weak() for a in avals if is_differentiable(a)]


def _with_float0(floats: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """Floating-point tangents in place, float0 zeros for the other avals (JAX's convention)."""
    it = iter(floats)
    return [next(it) if is_differentiable(a) else np.zeros(a.shape, dtypes.float0) for a in avals]


def _check_leaves(
    what: str, leaves: Sequence[Any], expected: Sequence[ShapedArray], name: str
) -> list[Any]:
    """``leaves`` of the types ``expected`` (a weak value converted); else JAX's TypeError."""
    out = []
    for x, e in zip(leaves, expected, strict=True):
        a = get_aval(x)
        if a.shape != e.shape or (a.dtype != e.dtype and not a.weak_type):
            raise TypeError(
                f"{name}: {what} must have the shapes and dtypes "
                f"({', '.join(t.str_short() for t in expected)}), but one is {a.str_short()} "
                f"where {e.str_short()} is expected (at {user_frame_summary()})"
            )
        out.append(x if a.dtype == e.dtype else convert(x, e.dtype))
    return out


def _pair(out: Any, what: str, name: str) -> tuple[Any, Any]:
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(
            f"{name}: {what} must return a pair, got {type(out).__name__} "
            f"(at {user_frame_summary()})"
        )
    return out[0], out[1]


# --- custom_jvp ----------------------------------------------------------------------------


class _CustomFunction:
    """What ``custom_jvp`` and ``custom_vjp`` share: the function they wrap (whose name and
    docstring they take), its ``nondiff_argnums``, and the tracing of a call."""

    symbolic_zeros: bool = False

    if TYPE_CHECKING:
        # Each subclass's: bind its primitive on the traced call.
        def __call__(self, *args: object, **kwargs: object) -> object: ...

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self._name = getattr(fun, "__name__", "fun")

    def _trace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], name: str
    ) -> tuple[_Split, Jaxpr, tuple[Any, ...], PyTreeDef]:
        """The call's arguments split into static and traced, and ``fun`` traced on them."""
        split = _Split(_resolve_args(self.fun, args, kwargs), self.nondiff_argnums, name)
        return (split, *_trace_call(self.fun, split, self._name))


class custom_jvp(_CustomFunction):
    """A function with a user-defined jvp rule (JAX's ``jax.custom_jvp``).

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> @dx.custom_jvp
    ... def log1pexp(x):
    ...     return dnp.log(1.0 + dnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t * (1.0 - 1.0 / (1.0 + dnp.exp(x)))
    >>> float(dx.grad(log1pexp)(100.0))
    1.0
    """

    jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False) -> Callable[..., Any]:
        """Sets the rule ``jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)``.

        With ``symbolic_zeros`` the rule gets a ``SymbolicZero`` for every
        tangent that is zero (an input not being differentiated), and may
        return one; otherwise it gets arrays of zeros (JAX's default).
        """
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument: ``jvp_i(g, primal_out, *primals)`` is argument i's share."""
        if self.nondiff_argnums:
            raise TypeError("custom_jvp: defjvps does not take nondiff_argnums; use defjvp")

        def jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
            primal_out = self(*primals)
            total: Any = None
            for rule, t in zip(jvps, tangents, strict=True):
                if rule is None:
                    continue
                part = rule(t, primal_out, *primals)
                total = part if total is None else tree_util.tree_map(_add, total, part)
            if total is None:
                total = tree_util.tree_map(lambda p: p * 0.0, primal_out)
            return primal_out, total

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = f"custom_jvp function {self._name}"
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for {name} using defjvp.")
        split, call_jaxpr, consts, out_tree = self._trace(args, kwargs, name)
        out_avals = call_jaxpr.out_avals
        rule = self.jvp

        def jvp(
            primals: Sequence[Any], float_tangents: Sequence[Any]
        ) -> tuple[list[Any], list[Any]]:
            tangents = [
                SymbolicZero(t.aval) if isinstance(t, Zero) else t
                for t in _with_float0(float_tangents, split.avals)
            ]
            primal_out, tangent_out = _pair(
                rule(*split.static, split.dyn_tree(primals), split.dyn_tree(tangents)),
                "the jvp rule",
                name,
            )
            p_leaves, p_tree = tree_util.tree_flatten(primal_out)
            t_leaves, t_tree = tree_util.tree_flatten(tangent_out)
            if p_tree != out_tree or t_tree != out_tree:
                raise TypeError(
                    f"{name}: the jvp rule must produce primal and tangent outputs with the "
                    f"structure of the function's output {out_tree}, got {p_tree} and "
                    f"{t_tree} (at {user_frame_summary()})"
                )
            p_leaves = _check_leaves("the jvp rule's primal outputs", p_leaves, out_avals, name)
            # A symbolic zero the rule returned stays symbolic (a Zero).
            zero = [isinstance(t, SymbolicZero) for t in t_leaves]
            checked = iter(
                _float_leaves(
                    "the jvp rule's tangent outputs",
                    [t for t, z in zip(t_leaves, zero, strict=True) if not z],
                    [a for a, z in zip(out_avals, zero, strict=True) if not z],
                    name,
                )
            )
            t_out = [
                Zero.like(a) if z else next(checked)
                for a, z in zip(out_avals, zero, strict=True)
                if is_differentiable(a)
            ]
            return p_leaves, t_out

        outs = custom_jvp_call_p.bind(
            *consts,
            *split.leaves,
            call_jaxpr=call_jaxpr,
            jvp=CustomRule(jvp, f"{self._name}_jvp", self.symbolic_zeros),
            num_consts=len(consts),
        )
        return tree_util.tree_unflatten(out_tree, outs)


def _add(a: Any, b: Any) -> Any:
    return a + b


def _trace_call(
    fun: Callable[..., Any], split: _Split, name: str
) -> tuple[Jaxpr, tuple[Any, ...], PyTreeDef]:
    """The function as a constant-free jaxpr of the flat arguments.

    Also returns its constants and its output tree.
    """
    out_tree: list[PyTreeDef] = []

    def call(*leaves: Any) -> list[Any]:
        flat, tree = tree_util.tree_flatten(fun(*split.full_args(split.dyn_tree(leaves))))
        out_tree.append(tree)
        return flat

    jaxpr, consts = close_over_nothing(trace_to_jaxpr(call, split.avals, name))
    return jaxpr, consts, out_tree[0]


def _float_leaves(
    what: str, leaves: Sequence[Any], avals: Sequence[ShapedArray], name: str
) -> list[Any]:
    """The leaves of floating-point avals, checked against their tangent types."""
    pairs = [(x, a) for x, a in zip(leaves, avals, strict=True) if is_differentiable(a)]
    return _check_leaves(what, [x for x, _ in pairs], [a.strip_weak() for _, a in pairs], name)


# --- custom_vjp ----------------------------------------------------------------------------


class custom_vjp(_CustomFunction):
    """A function with user-defined reverse-mode rules (JAX's ``jax.custom_vjp``).

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> @dx.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> def fwd(x):
    ...     return x, None
    >>> def bwd(_, g):
    ...     return (dnp.clip(g, -1.0, 1.0),)
    >>> clip_gradient.defvjp(fwd, bwd)
    >>> float(dx.grad(lambda x: 3.0 * clip_gradient(x))(2.0))
    1.0
    """

    fwd: Callable[..., Any] | None = None
    bwd: Callable[..., Any] | None = None

    def defvjp(
        self, fwd: Callable[..., Any], bwd: Callable[..., Any], symbolic_zeros: bool = False
    ) -> None:
        """``fwd(*args) -> (out, residuals)`` and ``bwd(*nondiff_args, residuals, g) -> cts``."""
        self.fwd, self.bwd = fwd, bwd
        # fwd gets each primal leaf as a CustomVJPPrimal; bwd may get and return SymbolicZeros.
        self.symbolic_zeros = bool(symbolic_zeros)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = f"custom_vjp function {self._name}"
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for {name} using defvjp.")
        fwd_fun, bwd_fun = self.fwd, self.bwd
        split, call_jaxpr, consts, out_tree = self._trace(args, kwargs, name)
        out_avals = call_jaxpr.out_avals
        res_tree: list[PyTreeDef] = []
        dyn_trees: list[PyTreeDef] = [tree_util.tree_structure(a) for a in split.dyn]

        symbolic = self.symbolic_zeros

        def fwd(
            primals: Sequence[Any], perturbed: Sequence[bool] | None = None
        ) -> tuple[list[Any], list[Any]]:
            if symbolic:  # (under vmap every input counts as perturbed)
                flags = [True] * len(primals) if perturbed is None else perturbed
                primals = [CustomVJPPrimal(x, p) for x, p in zip(primals, flags, strict=True)]
            out, res = _pair(fwd_fun(*split.full_args(split.dyn_tree(primals))), "fwd", name)
            p_leaves, p_tree = tree_util.tree_flatten(out)
            if p_tree != out_tree:
                raise TypeError(
                    f"{name}: fwd's primal output must have the structure of the function's "
                    f"output {out_tree}, got {p_tree} (at {user_frame_summary()})"
                )
            r_leaves, r_tree = tree_util.tree_flatten(res)
            res_tree[:] = [r_tree]
            return _check_leaves("fwd's primal outputs", p_leaves, out_avals, name), r_leaves

        def bwd(res: Sequence[Any], float_cts: Sequence[Any]) -> tuple[list[Any], list[Any]]:
            if symbolic:
                float_cts = _symbolic_cts(float_cts)
            g = tree_util.tree_unflatten(out_tree, _with_float0(float_cts, out_avals))
            in_cts = bwd_fun(*split.static, tree_util.tree_unflatten(res_tree[0], list(res)), g)
            if not isinstance(in_cts, (tuple, list)) or len(in_cts) != len(split.dyn):
                raise TypeError(
                    f"{name}: bwd must return a tuple with one cotangent per differentiable "
                    f"argument ({len(split.dyn)}), got {type(in_cts).__name__} "
                    f"(at {user_frame_summary()})"
                )
            leaves: list[Any] = []
            tree: PyTreeDef
            for arg, ct, tree in zip(split.dyn, in_cts, dyn_trees, strict=True):
                if ct is None:  # a zero cotangent
                    leaves.extend(
                        np.zeros(np.shape(x), get_aval(x).dtype) for x in tree_util.tree_leaves(arg)
                    )
                    continue
                ct_leaves, ct_tree = tree_util.tree_flatten(ct)
                if symbolic:
                    ct_leaves = [
                        _bwd_zero(c, x, name) if isinstance(c, SymbolicZero) else c
                        for c, x in zip(ct_leaves, tree_util.tree_leaves(arg), strict=False)
                    ]
                if ct_tree != tree:
                    raise TypeError(
                        f"{name}: bwd's cotangent for an argument of structure {tree} has "
                        f"structure {ct_tree} (at {user_frame_summary()})"
                    )
                leaves.extend(ct_leaves)
            return [], _float_leaves("bwd's cotangents", leaves, split.avals, name)

        outs = custom_vjp_call_p.bind(
            *consts,
            *split.leaves,
            call_jaxpr=call_jaxpr,
            fwd=CustomRule(fwd, f"{self._name}_fwd", symbolic),
            bwd=CustomRule(bwd, f"{self._name}_bwd", symbolic),
            num_consts=len(consts),
        )
        return tree_util.tree_unflatten(out_tree, outs)
