"""The user-facing transformations: jvp, vmap, jacfwd, make_jaxpr.

Design rules:
- Each transformation here only translates the user's conventions (pytrees,
  argnums, in_axes/out_axes, static arguments) into a flat call of an
  interpreter (``jvp_flat``, ``vmap_flat``, ``trace_to_jaxpr``). No
  interpreter knows about pytrees.
- Arguments are validated before any tracing, with errors that name the
  transformation and the offending argument.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.located import locate_errors
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.parallel import axis_frame
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval, is_python_scalar, to_array
from didax.interpreters.batching import move_axis, vmap_flat
from didax.interpreters.jvp import Zero, instantiate_zeros, jvp_flat
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import ClosedJaxpr

__all__ = [
    "jvp",
    "vmap",
    "jacfwd",
    "make_jaxpr",
]

# jaxlib's PyTreeDef reaches mypy as a partial type (jaxlib._jax has no stubs).
PyTreeDef = Any


class _FlatFun:
    """``fun`` as a function of flat leaves to flat leaves; remembers the output tree.

    Output leaves that are not tracers become Arrays, as a transformation
    returns them; with ``keep_scalars`` a Python scalar stays one (weakly
    typed), which is what a staged body (a branch, a loop body) returns.
    """

    def __init__(
        self, fun: Callable[..., Any], in_tree: PyTreeDef, keep_scalars: bool = False
    ) -> None:
        self.fun = fun
        self.in_tree = in_tree
        self.keep_scalars = keep_scalars
        self.out_tree: PyTreeDef | None = None

    def __call__(self, *leaves: Any) -> list[Any]:
        args = tree_util.tree_unflatten(self.in_tree, leaves)
        out = self.fun(*args)
        flat, self.out_tree = tree_util.tree_flatten(out)
        if self.keep_scalars:
            return [x if is_python_scalar(x) else _check_output(x) for x in flat]
        return [_check_output(x) for x in flat]

    def unflatten(self, leaves: Sequence[Any]) -> Any:
        assert self.out_tree is not None
        return tree_util.tree_unflatten(self.out_tree, list(leaves))


def _check_output(x: Any) -> Any:
    try:
        return to_array(x)
    except TypeError:
        raise TypeError(
            f"a transformed function returned {type(x).__name__} {x!r}, which is not an array"
        ) from None


def _input_value(x: Any, what: str) -> Any:
    """An argument of a transformation: a Python scalar stays one (weak), else an Array."""
    try:
        return x if is_python_scalar(x) else to_array(x)
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None


# --- jvp -------------------------------------------------------------------


@locate_errors
def jvp(
    fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[Any, Any]:
    """Forward-mode derivative: ``(fun(*primals), J(primals) @ tangents)``.

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> dx.jvp(dnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples or lists of arguments")
    in_tree: PyTreeDef
    t_tree: PyTreeDef
    primals_flat, in_tree = tree_util.tree_flatten(tuple(primals))
    tangents_flat, t_tree = tree_util.tree_flatten(tuple(tangents))
    if in_tree != t_tree:
        raise TypeError(
            "jvp: primals and tangents must have the same tree structure, "
            f"got {in_tree} and {t_tree}"
        )
    primals_flat = [_input_value(x, "jvp primal") for x in primals_flat]
    tangent_ins = [_tangent_input(p, t) for p, t in zip(primals_flat, tangents_flat, strict=True)]
    flat = _FlatFun(fun, in_tree)
    outs, t_outs = jvp_flat(flat, primals_flat, tangent_ins)
    t_outs = [to_array(instantiate_zeros(t)) for t in t_outs]
    return flat.unflatten(list(map(to_array, outs))), flat.unflatten(t_outs)


def _tangent_input(primal: Any, tangent: Any) -> Any:
    p_aval = get_aval(primal)
    t_aval = get_aval(tangent)
    expected = dtypes.tangent_dtype(p_aval.dtype)
    if t_aval.shape != p_aval.shape:
        raise ValueError(
            f"jvp: tangent of shape {t_aval.shape} for a primal of shape {p_aval.shape}"
        )
    if expected == dtypes.float0:
        if t_aval.dtype != dtypes.float0:
            raise TypeError(
                f"jvp: the tangent of a primal of dtype {p_aval.dtype} must have dtype float0 "
                f"(didax.dtypes.float0), got {t_aval.dtype}"
            )
        return Zero(ShapedArray(p_aval.shape, dtypes.float0))
    if t_aval.dtype != expected and not t_aval.weak_type:
        raise TypeError(
            f"jvp: tangent dtype {t_aval.dtype} differs from primal dtype {p_aval.dtype}"
        )
    if t_aval.dtype != expected or t_aval.weak_type != p_aval.weak_type:
        # A tangent has its primal's type, weakness included (as JAX's).
        tangent = lax.convert_element_type(tangent, expected, weak_type=p_aval.weak_type)
    return to_array(tangent)


# --- vmap ------------------------------------------------------------------


def _broadcast_prefix(prefix: Any, tree: Any, what: str) -> list[Any]:
    """One entry of the pytree prefix ``prefix`` per leaf of ``tree`` (None is a leaf)."""
    try:
        expanded = tree_util.tree_map(
            lambda p, sub: [p] * len(tree_util.tree_leaves(sub)),
            prefix,
            tree,
            is_leaf=lambda x: x is None,
        )
    except ValueError as e:
        raise ValueError(f"vmap {what} does not match the structure of the values: {e}") from None
    return [
        p
        for group in tree_util.tree_leaves(expanded, is_leaf=lambda x: isinstance(x, list))
        for p in group
    ]


def _check_axis_spec(spec: Any, what: str, n: int) -> None:
    if spec is None or isinstance(spec, int):
        return
    if isinstance(spec, list):
        raise TypeError(
            f"vmap {what} must be an int, None, or a tuple with one entry per argument; "
            f"got the list {spec}"
        )
    if isinstance(spec, tuple) and what == "in_axes" and len(spec) != n:
        raise ValueError(
            f"vmap in_axes {spec} has {len(spec)} entries but the function got {n} arguments"
        )


def vmap(
    fun: Callable[..., Any],
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_size: int | None = None,
    axis_name: str | None = None,
) -> Callable[..., Any]:
    """Vectorising map: ``fun`` on slices along ``in_axes``, results stacked at ``out_axes``.

    >>> import didax as dx
    >>> import numpy as np
    >>> dx.vmap(lambda x: x * 2.0)(np.arange(3.0))
    Array([0., 2., 4.], dtype=float32)

    With ``axis_name``, collectives in ``fun`` may name the mapped axis, as
    JAX's: ``lax.psum(x, name)`` sums across the batch.

    >>> dx.vmap(lambda x: x / dx.lax.psum(x, "i"), axis_name="i")(np.arange(4.0))
    Array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)
    """

    @functools.wraps(fun)
    def batched(*args: Any) -> Any:
        _check_axis_spec(in_axes, "in_axes", len(args))
        leaves, in_tree = tree_util.tree_flatten(args)
        leaves = [_input_value(x, "vmap argument") for x in leaves]
        axes = _broadcast_prefix(
            in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args), args, "in_axes"
        )
        dims: list[int | None] = []
        sizes = set()
        for x, ax in zip(leaves, axes, strict=True):
            if ax is None:
                dims.append(None)
                continue
            ndim = get_aval(x).ndim
            if not -ndim <= ax < ndim:
                raise ValueError(
                    f"vmap in_axes {ax} is out of range for an argument of rank {ndim}"
                )
            dims.append(ax % ndim)
            sizes.add(get_aval(x).shape[ax % ndim])
        if axis_size is not None:
            sizes.add(axis_size)
        if not sizes:
            raise ValueError("vmap needs at least one mapped argument, or axis_size")
        if len(sizes) > 1:
            raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {sorted(sizes)}")
        (size,) = sizes
        flat = _FlatFun(fun, in_tree)
        if axis_name is None:
            pairs = vmap_flat(flat, size, leaves, dims)
        else:
            with axis_frame({axis_name: size}):
                pairs = vmap_flat(flat, size, leaves, dims, axis_name)
        assert flat.out_tree is not None
        out_leaves_tree = tree_util.tree_unflatten(flat.out_tree, [0] * len(pairs))
        _check_axis_spec(out_axes, "out_axes", 0)
        out_specs = _broadcast_prefix(out_axes, out_leaves_tree, "out_axes")
        results = []
        for (val, dim), spec in zip(pairs, out_specs, strict=True):
            if spec is None:
                if dim is not None:
                    raise ValueError(
                        "vmap has out_axes=None for an output that depends on the mapped axis"
                    )
                results.append(val)
                continue
            ndim = get_aval(val).ndim + (1 if dim is None else 0)
            if not -ndim <= spec < ndim:
                raise ValueError(
                    f"vmap out_axes {spec} is out of range for an output of rank {ndim} "
                    f"(at {user_frame_summary()})"
                )
            results.append(move_axis(val, dim, spec % ndim, size))
        return flat.unflatten(list(map(to_array, results)))

    return locate_errors(batched)


# --- jacfwd ----------------------------------------------------------------


def _argnums_tuple(argnums: int | Sequence[int], nargs: int, what: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(f"{what}: argnums {argnums} out of range for {nargs} arguments")
    return tuple(i % nargs for i in nums)


def partial_at(
    fun: Callable[..., Any], args: Sequence[Any], positions: Sequence[int], **kwargs: Any
) -> Callable[..., Any]:
    """``fun`` as a function of ``args[positions]`` only, the other arguments fixed."""

    def partial_fun(*chosen: Any) -> Any:
        full = list(args)
        for i, x in zip(positions, chosen, strict=True):
            full[i] = x
        return fun(*full, **kwargs)

    return partial_fun


def split_basis(basis: Any, avals: Sequence[ShapedArray]) -> list[Any]:
    """Cuts a flat basis vector into one array per aval (consecutive slices, reshaped, cast)."""
    parts = []
    start = 0
    for a in avals:
        piece = lax.slice(basis, (start,), (start + a.size,))
        parts.append(lax.reshape(lax.convert_element_type(piece, a.dtype), a.shape))
        start += a.size
    return parts


def check_input_dtype(name: str, dtype: DType, holomorphic: bool, allow_int: bool = False) -> None:
    """JAX's check of a differentiated input's dtype (``jacfwd`` wants reals, others inexact).

    With ``holomorphic`` every input must be complex. Otherwise ``jacfwd``
    takes real inputs only (a forward-mode basis of a complex input would be
    ambiguous), and the reverse-mode transformations float or complex ones;
    ``allow_int`` admits integers and booleans (they get float0 gradients).
    """
    if holomorphic:
        if not dtypes.is_complex(dtype):
            raise TypeError(
                f"{name} with holomorphic=True requires inputs with complex dtype, "
                f"but got {dtype.name}."
            )
        return
    if dtypes.is_complex(dtype) and name == "jacfwd":
        raise TypeError(
            f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex inputs, use jvp directly."
        )
    if not dtypes.is_inexact(dtype) and not allow_int:
        raise TypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype "
            f"of np.inexact), but got {dtype.name}. If you want to use Boolean- or "
            "integer-valued inputs, use vjp or set allow_int to True."
            if name != "jacfwd"
            else f"jacfwd requires floating-point inputs, got an input of dtype {dtype}"
        )


def check_output_dtype(name: str, dtype: DType, holomorphic: bool) -> None:
    """JAX's check of a differentiated output's dtype: real, or complex with ``holomorphic``."""
    if holomorphic:
        if not dtypes.is_complex(dtype):
            raise TypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, "
                f"but got {dtype.name}."
            )
    elif dtypes.is_complex(dtype):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use vjp directly."
        )
    elif not dtypes.is_float(dtype):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}. For differentiation of functions with "
            "integer outputs, use vjp directly."
        )


def jacfwd(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, holomorphic: bool = False
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by forward mode: one jvp per input element, vmapped.

    The result for an output leaf of shape ``S`` and an input of shape ``T``
    has shape ``S + T``; with a tuple ``argnums`` it is a tuple, one entry per
    argument. With ``holomorphic``, inputs and outputs are complex and the
    result is the complex derivative.

    >>> import didax as dx
    >>> import numpy as np
    >>> dx.jacfwd(lambda x: x * x)(np.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """

    @functools.wraps(fun)
    def jacobian(*args: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "jacfwd")
        dyn = tuple(args[i] for i in nums)
        dyn_leaves, dyn_tree = tree_util.tree_flatten(dyn)
        dyn_leaves = [_input_value(x, "jacfwd argument") for x in dyn_leaves]
        avals = [get_aval(x) for x in dyn_leaves]
        for a in avals:
            check_input_dtype("jacfwd", a.dtype, holomorphic)
        sizes = [a.size for a in avals]
        total = sum(sizes)
        offsets = np.cumsum([0, *sizes])

        with_dyn = partial_at(fun, args, nums)

        def pushforward(basis: Any) -> Any:
            tangents = split_basis(basis, avals)

            def of_leaves(*xs: Any) -> Any:
                return with_dyn(*tree_util.tree_unflatten(dyn_tree, list(xs)))

            out_tangents = jvp(of_leaves, tuple(dyn_leaves), tuple(tangents))[1]
            if holomorphic:
                for leaf in tree_util.tree_leaves(out_tangents):
                    check_output_dtype("jacfwd", get_aval(leaf).dtype, holomorphic)
            return out_tangents

        jac = vmap(pushforward, out_axes=-1)(np.eye(total))

        def split(out_jac: Any) -> Any:
            out_shape = get_aval(out_jac).shape[:-1]
            parts = [
                lax.reshape(
                    lax.slice(
                        out_jac,
                        (0,) * len(out_shape) + (int(offsets[i]),),
                        (*out_shape, int(offsets[i + 1])),
                    ),
                    out_shape + a.shape,
                )
                for i, a in enumerate(avals)
            ]
            per_arg = tree_util.tree_unflatten(dyn_tree, parts)
            return per_arg[0] if isinstance(argnums, int) else per_arg

        return tree_util.tree_map(split, jac)

    return locate_errors(jacobian)


# --- make_jaxpr ------------------------------------------------------------


def make_jaxpr(
    fun: Callable[..., Any], static_argnums: int | Sequence[int] = ()
) -> Callable[..., ClosedJaxpr]:
    """Traces ``fun`` on abstract values of the arguments' types and returns its jaxpr.

    >>> import didax as dx
    >>> print(dx.make_jaxpr(lambda x: 2. * x)(3.))
    { lambda a:f32[] .
      let b:f32[] = mul 2.0 a
      in ( b ) }
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def jaxpr_maker(*args: Any) -> ClosedJaxpr:
        nums = {i % len(args) for i in static} if args else set()
        dyn_idx = [i for i in range(len(args)) if i not in nums]

        with_static = partial_at(fun, args, dyn_idx)
        leaves, in_tree = tree_util.tree_flatten(tuple(args[i] for i in dyn_idx))
        avals = [get_aval(_input_value(x, "make_jaxpr argument")) for x in leaves]
        flat = _FlatFun(with_static, in_tree)
        return trace_to_jaxpr(flat, avals, "make_jaxpr")

    return jaxpr_maker
