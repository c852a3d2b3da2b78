"""Every public function of didax, didax.numpy and didax.lax returns Arrays, never ndarrays.

The test walks the public names: each callable must have a call below (or an
exemption with its reason), and every leaf of what the call returns must be a
``didax.Array``, eagerly and (for didax.numpy and didax.lax) under jit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.lax as lax
import didax.numpy as dnp
from didax import tree_util
from didax.core import dtypes

X = dnp.asarray(np.array([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]))
V = dnp.asarray(np.array([0.5, 1.5, 2.0]))
I = dnp.asarray(np.array([1, 2, 3]))
B = dnp.asarray(np.array([True, False, True]))


def _f(x: Any) -> Any:
    return dnp.sum(dnp.sin(x) * x)


def _calls(module: ModuleType, args: tuple[Any, ...], names: tuple[str, ...]) -> dict[str, Any]:
    """``module.name(*args)`` for each name, as zero-argument calls."""
    return {name: functools.partial(getattr(module, name), *args) for name in names}


def _linearize() -> Any:
    out, f_jvp = dx.linearize(_f, V)
    return out, f_jvp(V)


def _vjp() -> Any:
    out, f_vjp = dx.vjp(_f, V)
    return out, f_vjp(1.0)


NUMPY_CALLS: dict[str, Callable[[], Any]] = {
    **_calls(
        dnp,
        (3,),
        (
            "bfloat16",
            "float16",
            "float32",
            "float64",
            "int8",
            "int16",
            "int32",
            "int64",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "bool_",
        ),
    ),
    "array": lambda: dnp.array([1.0, 2.0]),
    "asarray": lambda: dnp.asarray(2.0),
    "zeros": lambda: dnp.zeros(3),
    "ones": lambda: dnp.ones((2, 2)),
    "zeros_like": lambda: dnp.zeros_like(X),
    "ones_like": lambda: dnp.ones_like(X),
    "full": lambda: dnp.full((2,), 1.5),
    "arange": lambda: dnp.arange(4),
    "linspace": lambda: dnp.linspace(0.0, 1.0, 5),
    "eye": lambda: dnp.eye(3),
    **_calls(
        dnp,
        (
            X,
            V,
        ),
        (
            "add",
            "subtract",
            "multiply",
            "divide",
            "true_divide",
            "floor_divide",
            "remainder",
            "power",
            "maximum",
            "minimum",
            "equal",
            "not_equal",
            "less",
            "less_equal",
            "greater",
            "greater_equal",
        ),
    ),
    **_calls(
        dnp,
        (V,),
        (
            "negative",
            "abs",
            "sign",
            "exp",
            "log",
            "log1p",
            "sqrt",
            "sin",
            "cos",
            "tan",
            "tanh",
            "floor",
            "ceil",
            "round",
            "sum",
            "prod",
            "max",
            "min",
            "mean",
            "argmax",
            "argmin",
            "cumsum",
            "ravel",
            "squeeze",
            "transpose",
        ),
    ),
    **_calls(
        dnp,
        (
            B,
            B,
        ),
        (
            "logical_and",
            "logical_or",
            "bitwise_and",
            "bitwise_or",
        ),
    ),
    "logical_not": lambda: dnp.logical_not(B),
    "invert": lambda: dnp.invert(I),
    "clip": lambda: dnp.clip(X, 0.0, 1.0),
    "where": lambda: dnp.where(B, V, 0.0),
    "dot": lambda: dnp.dot(X, V),
    "matmul": lambda: dnp.matmul(X, X.T),
    "outer": lambda: dnp.outer(V, V),
    "einsum": lambda: dnp.einsum("ij,j->i", X, V),
    "swapaxes": lambda: dnp.swapaxes(X, 0, 1),
    "moveaxis": lambda: dnp.moveaxis(X, 0, 1),
    "reshape": lambda: dnp.reshape(X, (3, 2)),
    "broadcast_to": lambda: dnp.broadcast_to(V, (2, 3)),
    "expand_dims": lambda: dnp.expand_dims(V, 0),
    "concatenate": lambda: dnp.concatenate([V, V]),
    "stack": lambda: dnp.stack([V, V]),
}

# The composites of issue 10, grouped by their arguments.
NUMPY_CALLS.update(
    {
        **_calls(
            dnp,
            (X,),
            (
                "all",
                "any",
                "count_nonzero",
                "cumprod",
                "diag",
                "diagonal",
                "diff",
                "flip",
                "fliplr",
                "flipud",
                "rot90",
                "var",
                "std",
                "average",
                "cov",
                "corrcoef",
                "nanmax",
                "nanmean",
                "nanmin",
                "nanprod",
                "nanstd",
                "nansum",
                "nanvar",
                "real",
                "imag",
                "conj",
                "conjugate",
                "angle",
                "gradient",
                "atleast_1d",
                "atleast_2d",
                "atleast_3d",
                "diagflat",
                "empty_like",
                "ediff1d",
                "tril",
                "triu",
                "trace",
            ),
        ),
        **_calls(dnp, (X, X), ("allclose", "isclose", "array_equal", "array_equiv", "append")),
        **_calls(
            dnp, (V, V), ("convolve", "correlate", "cross", "inner", "kron", "vdot", "polyval")
        ),
        **_calls(dnp, ([X, X],), ("vstack", "hstack", "dstack", "column_stack", "row_stack")),
        **_calls(
            dnp, (3,), ("identity", "tri", "empty", "diag_indices", "tril_indices", "triu_indices")
        ),
        **_calls(dnp, (X, 3), ("hsplit", "array_split")),
        "split": lambda: dnp.split(X, [1]),
        "vsplit": lambda: dnp.vsplit(X, 2),
        "dsplit": lambda: dnp.dsplit(dnp.ones((1, 2, 4)), 2),
        "tile": lambda: dnp.tile(V, 2),
        "repeat": lambda: dnp.repeat(V, 2),
        "roll": lambda: dnp.roll(X, 1),
        "rollaxis": lambda: dnp.rollaxis(X, 1),
        "pad": lambda: dnp.pad(V, 1),
        "full_like": lambda: dnp.full_like(V, 2.0),
        "meshgrid": lambda: dnp.meshgrid(V, V),
        "tensordot": lambda: dnp.tensordot(X, X, ((0,), (0,))),
        "select": lambda: dnp.select([B], [V]),
        "piecewise": lambda: dnp.piecewise(V, [B], [dnp.sin]),
        "nonzero": lambda: dnp.nonzero(I),
        "flatnonzero": lambda: dnp.flatnonzero(I),
        "argwhere": lambda: dnp.argwhere(I),
        **_calls(
            dnp,
            (V,),
            (
                "square",
                "reciprocal",
                "log2",
                "log10",
                "isnan",
                "isinf",
                "isfinite",
                "isposinf",
                "isneginf",
                "nan_to_num",
                "absolute",
                "fabs",
                "deg2rad",
                "rad2deg",
                "degrees",
                "radians",
                "expm1",
            ),
        ),
        **_calls(dnp, (V, V), ("logaddexp", "mod", "fmax", "fmin", "searchsorted")),
        # issue 10: over the special primitives
        **_calls(
            dnp,
            (V / 4.0,),
            (
                "sinh",
                "cosh",
                "arcsin",
                "arccos",
                "arctan",
                "arcsinh",
                "arctanh",
                "exp2",
                "sinc",
                "signbit",
            ),
        ),
        "arccosh": lambda: dnp.arccosh(V + 1.0),
        **_calls(dnp, (V, V), ("arctan2", "logaddexp2", "hypot", "heaviside", "copysign")),
        **_calls(dnp, (V,), ("histogram", "histogram_bin_edges", "unique")),
    }
)

# Public callables of didax.numpy that return no array.
NUMPY_EXEMPT: dict[str, str] = {
    **dict.fromkeys(
        (
            "broadcast_shapes",
            "ndim",
            "shape",
            "size",
            "isscalar",
            "iinfo",
            "finfo",
            "issubdtype",
            "promote_types",
            "result_type",
            "can_cast",
        ),
        "a query: returns a Python value, a shape or a dtype, as jax.numpy's",
    ),
    "dtype": "numpy.dtype, the dtype constructor",
    "einsum_path": "returns opt_einsum's contraction path",
    "iscomplexobj": "returns a Python bool",
    "isrealobj": "returns a Python bool",
}

LAX_CALLS: dict[str, Callable[[], Any]] = {
    **_calls(
        lax,
        (
            V,
            V,
        ),
        (
            "add",
            "sub",
            "mul",
            "div",
            "rem",
            "pow",
            "max",
            "min",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
        ),
    ),
    **_calls(
        lax,
        (V,),
        (
            "neg",
            "sign",
            "abs",
            "exp",
            "log",
            "log1p",
            "expm1",
            "sin",
            "cos",
            "tan",
            "tanh",
            "logistic",
            "sqrt",
            "rsqrt",
            "floor",
            "ceil",
            "round",
            "stop_gradient",
        ),
    ),
    **_calls(
        lax,
        (
            B,
            B,
        ),
        ("and_", "or_"),
    ),
    "not_": lambda: lax.not_(B),
    # issue 10: special functions
    **_calls(
        lax,
        (V / 4.0,),
        (
            "erf",
            "erfc",
            "erf_inv",
            "lgamma",
            "digamma",
            "sinh",
            "cosh",
            "asin",
            "acos",
            "atan",
            "asinh",
            "atanh",
            "exp2",
            "is_finite",
        ),
    ),
    "acosh": lambda: lax.acosh(V + 1.0),
    **_calls(lax, (V, V), ("atan2", "nextafter", "polygamma")),
    "rev": lambda: lax.rev(X, (0,)),
    "integer_pow": lambda: lax.integer_pow(V, 3),
    "select": lambda: lax.select(B, V, V),
    "convert_element_type": lambda: lax.convert_element_type(V, np.float32),
    "broadcast_in_dim": lambda: lax.broadcast_in_dim(V, (2, 3), (1,)),
    "full": lambda: lax.full((2,), 1.0, np.float64),
    "full_like": lambda: lax.full_like(V, 2.0),
    "broadcast": lambda: lax.broadcast(V, (2,)),
    "reshape": lambda: lax.reshape(X, (3, 2)),
    "transpose": lambda: lax.transpose(X, (1, 0)),
    "squeeze": lambda: lax.squeeze(dnp.ones((1, 3)), (0,)),
    "expand_dims": lambda: lax.expand_dims(V, (0,)),
    "slice": lambda: lax.slice(V, (1,), (3,)),
    "dynamic_slice": lambda: lax.dynamic_slice(V, (1,), (2,)),
    "dynamic_update_slice": lambda: lax.dynamic_update_slice(V, dnp.zeros(1), (1,)),
    "concatenate": lambda: lax.concatenate([V, V], 0),
    "pad": lambda: lax.pad(V, np.float64(0.0), [(1, 1, 0)]),
    "iota": lambda: lax.iota(np.int32, 3),
    "reduce_sum": lambda: lax.reduce_sum(X, (0,)),
    "reduce_max": lambda: lax.reduce_max(X, (1,)),
    "reduce_min": lambda: lax.reduce_min(X, (0, 1)),
    "reduce_prod": lambda: lax.reduce_prod(X, (0,)),
    "argmax": lambda: lax.argmax(X, 1, np.int32),
    "argmin": lambda: lax.argmin(X, 0, np.int32),
    "cumsum": lambda: lax.cumsum(X, 1),
    "cumprod": lambda: lax.cumprod(X, 1),
    "cummax": lambda: lax.cummax(X, 0, reverse=True),
    "cummin": lambda: lax.cummin(X, 1),
    "cumlogsumexp": lambda: lax.cumlogsumexp(X, 1),
    "dot_general": lambda: lax.dot_general(X, V, (((1,), (0,)), ((), ()))),
    "dot": lambda: lax.dot(X, V),
    "cond": lambda: lax.cond(True, dnp.sin, dnp.cos, V),
    "switch": lambda: lax.switch(1, [dnp.sin, dnp.cos], V),
    "while_loop": lambda: lax.while_loop(lambda c: c < 5, lambda c: c + 1, 0),
    "fori_loop": lambda: lax.fori_loop(0, 3, lambda i, c: c * 2.0, V),
    "scan": lambda: lax.scan(lambda c, x: (c + x, c * x), 0.0, V),
    "map": lambda: lax.map(dnp.sin, X),
}

# Gather and scatter (issue 10), and the didax.numpy functions built on them.
_GD = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
_SD = lax.ScatterDimensionNumbers(
    update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
_IDX = dnp.asarray(np.array([[2], [0]]))
LAX_CALLS.update(
    {
        "gather": lambda: lax.gather(V, _IDX, _GD, (1,)),
        **{
            name: functools.partial(getattr(lax, name), V, _IDX, V[:2], _SD)
            for name in ("scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max")
        },
    }
)
NUMPY_CALLS.update(
    {
        "take": lambda: dnp.take(X, I, axis=1, mode="clip"),
        "take_along_axis": lambda: dnp.take_along_axis(X, dnp.asarray(np.array([[0], [2]])), 1),
        "roots": lambda: dnp.roots(dnp.asarray(np.array([1.0, -3.0, 2.0])), strip_zeros=False),
    }
)

# Bit operations and sorting (issue 10: what random and sort need).
_U = dnp.asarray(np.array([5, 12, 7], np.uint32))
LAX_CALLS.update(
    {
        **_calls(lax, (_U, _U), ("bitwise_and", "bitwise_or", "bitwise_xor")),
        **_calls(
            lax,
            (_U, dnp.asarray(np.array([1, 2, 3], np.uint32))),
            ("shift_left", "shift_right_logical", "shift_right_arithmetic"),
        ),
        **_calls(lax, (_U,), ("bitwise_not", "population_count", "clz")),
        "bitcast_convert_type": lambda: lax.bitcast_convert_type(_U, np.float32),
        "sort": lambda: lax.sort(X, 1),
        "sort_key_val": lambda: lax.sort_key_val(V, I),
    }
)
NUMPY_CALLS.update(
    {
        **_calls(
            dnp,
            (_U, _U),
            (
                "bitwise_xor",
                "left_shift",
                "right_shift",
                "bitwise_left_shift",
                "bitwise_right_shift",
            ),
        ),
        **_calls(dnp, (_U,), ("bitwise_not", "bitwise_invert", "bitwise_count")),
        "sort": lambda: dnp.sort(X, axis=1),
        "argsort": lambda: dnp.argsort(X, axis=0),
    }
)

# Order statistics and interpolation (issue 10).
NUMPY_CALLS.update(
    {
        **_calls(dnp, (X, 0.5), ("quantile", "nanquantile")),
        **_calls(dnp, (X, 50.0), ("percentile", "nanpercentile")),
        **_calls(dnp, (X,), ("median", "nanmedian")),
        "interp": lambda: dnp.interp(V, I, V),
    }
)

# The rest of jax.numpy's routines (issue 10).
NUMPY_CALLS.update(
    {
        **_calls(dnp, (V / 4.0,), ("acos", "acosh", "asin", "asinh", "atan", "atanh")),
        "acosh": lambda: dnp.acosh(V + 1.0),
        **_calls(dnp, (V, V), ("atan2", "pow", "fmod", "divmod", "float_power", "logical_xor")),
        **_calls(dnp, (X,), ("amax", "amin", "around", "positive", "ptp", "rint", "trunc", "modf")),
        **_calls(dnp, (X,), ("nanargmax", "nanargmin", "nancumsum", "nancumprod", "trapezoid")),
        **_calls(
            dnp,
            (X,),
            (
                "matrix_transpose",
                "broadcast_arrays",
            ),
        ),
        **_calls(dnp, (X,), ("tril_indices_from", "triu_indices_from")),
        **_calls(dnp, (I, I), ("gcd", "lcm", "isin")),
        "concat": lambda: dnp.concat([V, V]),
        "permute_dims": lambda: dnp.permute_dims(X, (1, 0)),
        "cumulative_sum": lambda: dnp.cumulative_sum(V),
        "cumulative_prod": lambda: dnp.cumulative_prod(V),
        "unstack": lambda: dnp.unstack(X),
        "vecdot": lambda: dnp.vecdot(X, X),
        "matvec": lambda: dnp.matvec(X, V),
        "vecmat": lambda: dnp.vecmat(V[:2], X),
        "digitize": lambda: dnp.digitize(V, V),
        "bincount": lambda: dnp.bincount(I, length=5),
        "unravel_index": lambda: dnp.unravel_index(I, (2, 2)),
        "ravel_multi_index": lambda: dnp.ravel_multi_index((I, I), (4, 4), mode="clip"),
        "indices": lambda: dnp.indices((2, 3)),
        "diag_indices_from": lambda: dnp.diag_indices_from(X[:, :2]),
        "ix_": lambda: dnp.ix_(I, I),
        "logspace": lambda: dnp.logspace(0.0, 2.0, 3),
        "geomspace": lambda: dnp.geomspace(1.0, 8.0, 4),
    }
)

# A mesh of this process's devices (issue 14).
_MESH = dx.sharding.Mesh(np.array(dx.devices()), ("i",))
_P = dx.sharding.PartitionSpec

DIDAX_CALLS: dict[str, Callable[[], Any]] = {
    "device_put": lambda: dx.device_put({"a": np.ones(2), "b": 2.0}),
    "shard_map": lambda: dx.shard_map(
        lambda x: lax.psum(x, "i"), mesh=_MESH, in_specs=_P("i"), out_specs=_P()
    )(V),
    "pmap": lambda: dx.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(V[None]),
    "make_array_from_process_local_data": lambda: dx.make_array_from_process_local_data(
        dx.sharding.NamedSharding(_MESH, _P("i")), np.ones(3)
    ),
    "block_until_ready": lambda: dx.block_until_ready([V, dnp.sin(V)]),
    "jit": lambda: dx.jit(_f)(V),
    "jvp": lambda: dx.jvp(_f, (V,), (V,)),
    "vmap": lambda: dx.vmap(dnp.sin)(X),
    "jacfwd": lambda: dx.jacfwd(dnp.sin)(V),
    "jacrev": lambda: dx.jacrev(dnp.sin)(V),
    "hessian": lambda: dx.hessian(_f)(V),
    "linearize": _linearize,
    "vjp": _vjp,
    "value_and_grad": lambda: dx.value_and_grad(_f)(V),
    "grad": lambda: dx.grad(_f)(V),
    "checkpoint": lambda: dx.grad(dx.checkpoint(_f))(V),
    "remat": lambda: dx.remat(_f)(V),
    # Issue 30's transformations and array makers.
    "jacobian": lambda: dx.jacobian(dnp.sin)(V),
    "checkpoint_name": lambda: dx.checkpoint_name(V, "v"),
    "linear_transpose": lambda: dx.linear_transpose(lambda x: 2.0 * x, V)(V),
    "custom_gradient": lambda: dx.grad(
        dx.custom_gradient(lambda x: (dnp.sum(dnp.sin(x)), lambda g: (g * dnp.cos(x),)))
    )(V),
    "closure_convert": lambda: dx.closure_convert(lambda x: dnp.sin(x) * V, V)[0](V),
    "named_call": lambda: dx.named_call(dnp.sin, name="s")(V),
    "pure_callback": lambda: dx.jit(
        lambda x: dx.pure_callback(np.sin, dx.ShapeDtypeStruct(x.shape, x.dtype), x)
    )(V),
    "fwd_and_bwd": lambda: dx.fwd_and_bwd(_f, argnums=0)[0](V),
    "make_array_from_callback": lambda: dx.make_array_from_callback(
        (3,), dx.sharding.NamedSharding(_MESH, _P("i")), lambda index: np.ones(3)[index]
    ),
    "make_array_from_single_device_arrays": lambda: dx.make_array_from_single_device_arrays(
        (3,), dx.sharding.NamedSharding(_MESH, _P()), [V]
    ),
    "reshard": lambda: dx.reshard(V, dx.sharding.NamedSharding(_MESH, _P())),
}

# Public callables that do not return array values, with what they return.
EXEMPT: dict[str, str] = {
    "device_get": "returns host NumPy values, as jax.device_get",
    "eval_shape": "returns ShapeDtypeStructs",
    "compile_cache_info": "returns cache statistics",
    "clear_caches": "returns None (empties the caches)",
    "make_jaxpr": "returns a ClosedJaxpr",
    "flops": "returns a count",
    "enable_x64": "a context manager",
    "disable_jit": "a context manager",
    "default_matmul_precision": "a context manager",
    "log_compiles": "a context manager",
    "explain_cache_misses": "a context manager",
    "devices": "returns Device objects, as jax.devices",
    "device_count": "returns an int",
    "local_device_count": "returns an int",
    "process_index": "returns an int",
    "process_count": "returns an int",
    # Issue 30's context managers, configuration flags and queries.
    **dict.fromkeys(
        (
            "allow_f16_reductions",
            "array_garbage_collection_guard",
            "auto_pcast",
            "check_tracer_leaks",
            "checking_leaks",
            "debug_infs",
            "debug_key_reuse",
            "debug_nans",
            "default_device",
            "default_prng_impl",
            "enable_checks",
            "enable_custom_prng",
            "ensure_compile_time_eval",
            "jax2tf_associative_scan_reductions",
            "legacy_prng_key",
            "make_user_context",
            "named_scope",
            "no_execution",
            "no_tracing",
            "numpy_dtype_promotion",
            "numpy_rank_promotion",
            "remove_size_one_mesh_axis_from_type",
            "softmax_custom_jvp",
            "thread_guard",
            "threefry_partitionable",
            "transfer_guard",
            "transfer_guard_device_to_device",
            "transfer_guard_device_to_host",
            "transfer_guard_host_to_device",
        ),
        "a context manager (a configuration flag), as JAX's",
    ),
    "copy_to_host_async": "returns None (starts a copy), as JAX's",
    "effects_barrier": "returns None (waits for callbacks), as JAX's",
    "print_environment_info": "prints, or returns the text with return_string=True",
    "default_backend": "returns the platform's name",
    "local_devices": "returns Device objects, as jax.local_devices",
    "live_arrays": "returns the live Arrays themselves (a list of existing values)",
    "make_mesh": "returns a Mesh",
    "host_count": "returns an int",
    "host_id": "returns an int",
    "host_ids": "returns a list of ints",
    "process_indices": "returns a list of ints",
    "typeof": "returns an abstract value",
    "smap": "returns a function (shard_map over one axis); shard_map's row walks its results",
}


def _public_callables(module: ModuleType) -> set[str]:
    return {
        n
        for n in module.__all__
        if callable(getattr(module, n))
        and not (isinstance(getattr(module, n), type) and module is not dnp)
    }


@pytest.mark.parametrize(
    ("module", "calls"),
    [(dx, DIDAX_CALLS), (dnp, NUMPY_CALLS), (lax, LAX_CALLS)],
    ids=["didax", "didax.numpy", "didax.lax"],
)
def test_every_public_callable_is_walked(module: ModuleType, calls: dict[str, Any]) -> None:
    exempt = (
        set(EXEMPT) if module is dx else set(NUMPY_EXEMPT) if module is dnp else set(LAX_EXEMPT)
    )
    assert _public_callables(module) - exempt == set(calls)


def _assert_arrays(out: Any, where: str) -> None:
    leaves = tree_util.tree_leaves(out)
    assert leaves, where
    for leaf in leaves:
        assert type(leaf) is dx.Array, f"{where} returned {type(leaf).__name__}: {leaf!r}"


# Complex numbers and the Fourier transform (issue 11).
_Z = dnp.asarray(np.array([1 + 2j, -0.5j, 3.0]))
NUMPY_CALLS.update(
    {
        **_calls(dnp, (3,), ("complex64", "complex128", "complex_")),
        **_calls(dnp, (_Z,), ("iscomplex", "isreal")),
    }
)
LAX_CALLS.update(
    {
        **_calls(lax, (_Z,), ("real", "imag", "conj")),
        "complex": lambda: lax.complex(V, V),
        "fft": lambda: lax.fft(_Z, "FFT", (3,)),
    }
)


# Past one device (issue 14), on this process's devices; the collectives under
# a named vmap, which binds their axis.
_ONES = dnp.ones((2, 4))


def _named(f: Callable[[Any], Any]) -> Callable[[], Any]:
    return lambda: dx.vmap(f, axis_name="i")(_ONES)


def _collective(name: str) -> Callable[[Any], Any]:
    return lambda x: getattr(lax, name)(x, "i")


LAX_CALLS.update(
    {
        **{name: _named(_collective(name)) for name in ("psum", "pmean", "pmax", "all_gather")},
        "psum_scatter": _named(lambda x: lax.psum_scatter(x, "i", tiled=True)),
        "axis_index": _named(lambda x: x + lax.axis_index("i")),
        "ppermute": _named(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)])),
        "with_sharding_constraint": lambda: lax.with_sharding_constraint(
            V, dx.sharding.NamedSharding(_MESH, _P())
        ),
    }
)

# Issue 28: implicit solves, ragged dot products, more collectives.
_SPD = dnp.asarray(np.array([[2.0, 1.0], [1.0, 3.0]]))
_GROUPS = dnp.asarray(np.array([1, 2], np.int32))


def _newton(f: Callable[[Any], Any], x: Any) -> Any:
    return lax.fori_loop(0, 5, lambda i, x: x - f(x) / (2 * x), x)


LAX_CALLS.update(
    {
        "custom_linear_solve": lambda: lax.custom_linear_solve(
            lambda x: _SPD @ x, V[:2], lambda mv, b: dnp.linalg.solve(_SPD, b), symmetric=True
        ),
        "custom_root": lambda: lax.custom_root(
            lambda x: x * x - 2.0, 1.0, _newton, lambda g, y: y / g(1.0)
        ),
        "ragged_dot": lambda: lax.ragged_dot(X.T, dnp.ones((2, 2, 3)), _GROUPS),
        "ragged_dot_general": lambda: lax.ragged_dot_general(
            X,
            dnp.ones((3, 2)),
            _GROUPS,
            lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], []),
        ),
        "pmin": _named(_collective("pmin")),
        "all_to_all": _named(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True)),
        "pswapaxes": _named(lambda x: lax.pswapaxes(x.reshape(2, 2), "i", 0)),
        "pshuffle": _named(lambda x: lax.pshuffle(x, "i", [1, 0])),
        "pbroadcast": _named(lambda x: lax.pbroadcast(x, "i", 1)),
        "pcast": _named(lambda x: lax.pcast(x, "i", to="varying")),
        "axis_size": _named(lambda x: x * lax.axis_size("i")),
    }
)

# Issue 28: the rest of jax.lax's element-wise, structural and window functions.
_SQUARE = dnp.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
_CASE = dnp.asarray(np.array([0, 1, 0], np.int32))
_KEY = dnp.asarray(np.array([1, 2, 3, 4], np.uint32))
LAX_CALLS.update(
    {
        **_calls(
            lax,
            (V,),
            ("cbrt", "square", "reciprocal", "bessel_i0e", "bessel_i1e", "optimization_barrier"),
        ),
        **_calls(lax, (V + 1.0, V), ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad")),
        "zeta": lambda: lax.zeta(V + 2.0, V),
        "betainc": lambda: lax.betainc(V, V + 1.0, V / 3.0),
        "clamp": lambda: lax.clamp(0.0, V, 1.0),
        "select_n": lambda: lax.select_n(_CASE, V, -V),
        "mulhi": lambda: lax.mulhi(_U, _U),
        "batch_matmul": lambda: lax.batch_matmul(X[None], X.T[None]),
        "broadcast_like": lambda: lax.broadcast_like(1.0, X),
        "broadcast_to_rank": lambda: lax.broadcast_to_rank(V, 2),
        "broadcasted_iota": lambda: lax.broadcasted_iota(np.int32, (2, 3), 1),
        "collapse": lambda: lax.collapse(X, 0, 2),
        "empty": lambda: lax.empty((2, 3), np.float32),
        "slice_in_dim": lambda: lax.slice_in_dim(X, 0, 2, axis=1),
        "index_in_dim": lambda: lax.index_in_dim(X, 1, axis=1),
        "dynamic_slice_in_dim": lambda: lax.dynamic_slice_in_dim(X, I[0], 2, axis=1),
        "dynamic_index_in_dim": lambda: lax.dynamic_index_in_dim(X, I[0], axis=1),
        "dynamic_update_slice_in_dim": lambda: lax.dynamic_update_slice_in_dim(
            X, X[:, :1], I[0], axis=1
        ),
        "dynamic_update_index_in_dim": lambda: lax.dynamic_update_index_in_dim(
            X, X[:, 0], I[0], axis=1
        ),
        "index_take": lambda: lax.index_take(X, (I[:2] - 1,), (0,)),
        "split": lambda: lax.split(X, (1, 2), axis=1),
        "stack": lambda: lax.stack([V, V]),
        "unstack": lambda: lax.unstack(X),
        "tile": lambda: lax.tile(V, (2,)),
        "scatter_sub": lambda: lax.scatter_sub(V, _IDX, V[:2], _SD),
        "scatter_apply": lambda: lax.scatter_apply(V, _IDX, dnp.sin, _SD, update_shape=(2,)),
        "platform_dependent": lambda: lax.platform_dependent(V, default=dnp.sin, cpu=dnp.cos),
        "rng_bit_generator": lambda: lax.rng_bit_generator(_KEY, (2, 3)),
        "rng_uniform": lambda: lax.rng_uniform(0.0, 1.0, (3,)),
        "reduce_window": lambda: lax.reduce_window(_SQUARE, 0.0, lax.add, (2, 1), (1, 1), "VALID"),
    }
)
# Convolutions: an NCH image (1, 1, 4) and an OIH kernel (1, 1, 2).
_IMAGE = dnp.asarray(np.arange(4.0).reshape(1, 1, 4))
_KERNEL = dnp.asarray(np.array([1.0, -1.0]).reshape(1, 1, 2))
LAX_CALLS.update(
    {
        "conv": lambda: lax.conv(_IMAGE, _KERNEL, (1,), "SAME"),
        "conv_general_dilated": lambda: lax.conv_general_dilated(_IMAGE, _KERNEL, (1,), "VALID"),
        "conv_with_general_padding": lambda: lax.conv_with_general_padding(
            _IMAGE, _KERNEL, (1,), [(1, 0)], None, None
        ),
        "conv_transpose": lambda: lax.conv_transpose(
            _IMAGE, _KERNEL, (2,), "SAME", dimension_numbers=("NCH", "OIH", "NCH")
        ),
        "conv_general_dilated_patches": lambda: lax.conv_general_dilated_patches(
            _IMAGE, (2,), (1,), "VALID"
        ),
        "conv_general_dilated_local": lambda: lax.conv_general_dilated_local(
            _IMAGE, dnp.ones((1, 2, 3)), (1,), "VALID", (2,)
        ),
    }
)
# Reductions, top_k and scans.
LAX_CALLS.update(
    {
        **_calls(lax, (B, (0,)), ("reduce_and", "reduce_or", "reduce_xor")),
        "reduce": lambda: lax.reduce(X, 1.0, lax.max, (1,)),
        "reduce_precision": lambda: lax.reduce_precision(V, 5, 10),
        "top_k": lambda: lax.top_k(V, 2),
        "approx_max_k": lambda: lax.approx_max_k(V, 2),
        "approx_min_k": lambda: lax.approx_min_k(V, 2),
        "associative_scan": lambda: lax.associative_scan(lax.add, V),
    }
)
# Public callables of didax.lax that return no array.
LAX_EXEMPT: dict[str, str] = {
    **dict.fromkeys(
        (
            "conv_dimension_numbers",
            "conv_general_permutations",
            "conv_general_shape_tuple",
            "conv_shape_tuple",
            "conv_transpose_shape_tuple",
            "padtype_to_pads",
        ),
        "a query: returns dimension numbers, permutations, a shape or pads, as jax.lax's",
    ),
    "DotDimensionNumbers": "a type (JAX's alias of the dimension numbers' nested tuples)",
    "broadcast_shapes": "a query: returns a shape, as jax.lax's",
    "dtype": "a query: returns a dtype, as jax.lax's",
    "reduce_window_shape_tuple": "a query: returns a shape, as jax.lax's",
    "shape_as_value": "a static shape as a NumPy vector, as jax.lax's (np.ndarray in JAX too)",
}


# Issue 29: the rest of jax.numpy.
_CLASS = "a class, as jax.numpy's (NumPy's abstract scalar type, for issubdtype and isinstance)"
NUMPY_EXEMPT.update(
    {
        **dict.fromkeys(
            (
                "generic",
                "number",
                "integer",
                "signedinteger",
                "unsignedinteger",
                "inexact",
                "floating",
                "complexfloating",
                "character",
                "flexible",
                "object_",
            ),
            _CLASS,
        ),
        "ndarray": "the Array type (for annotations and isinstance), as jax.numpy.ndarray",
        "ComplexWarning": "a warning class",
        "ufunc": "a class; its instances return arrays (tests/api/test_numpy_rest.py)",
        "frompyfunc": "returns a ufunc",
        "isdtype": "returns a Python bool",
        "iterable": "returns a Python bool",
        "array_repr": "returns a string",
        "array_str": "returns a string",
        "printoptions": "NumPy's printing options (a context manager)",
        "get_printoptions": "returns NumPy's printing options",
        "set_printoptions": "sets NumPy's printing options",
        "save": "writes a file (numpy.save, as jax.numpy.save)",
        "savez": "writes a file (numpy.savez, as jax.numpy.savez)",
        "load": "reads a file (tested in tests/api/test_numpy_rest.py)",
        "fromfile": "refused, as by jax.numpy",
        "fromiter": "refused, as by jax.numpy",
        **dict.fromkeys(
            (d.name for d in dtypes.HOST_ONLY),
            "a converter to a dtype XLA's CPU backend cannot compute in (as for JAX)",
        ),
    }
)
_IDX2 = dnp.asarray(np.array([[0], [1]]))
NUMPY_CALLS.update(
    {
        **_calls(
            dnp, (3,), ("bool", "float_", "int_", "uint", "single", "double", "csingle", "cdouble")
        ),
        # The narrow dtypes' scalar types (issue 29), as converters; XLA's CPU
        # backend computes nothing in the host-only ones.
        **_calls(dnp, (3,), tuple(d.name for d in dtypes.NARROW if d not in dtypes.HOST_ONLY)),
        **_calls(dnp, (V,), ("cbrt", "spacing", "i0", "sort_complex", "frexp", "unwrap", "copy")),
        **_calls(dnp, (V,), ("poly", "polyder", "polyint", "vander", "trim_zeros")),
        **_calls(dnp, (V, V), ("nextafter", "polyadd", "polysub", "polymul", "polydiv")),
        **_calls(dnp, (5,), ("bartlett", "blackman", "hamming", "hanning")),
        **_calls(dnp, (I,), ("unique_all", "unique_counts", "unique_inverse", "unique_values")),
        **_calls(dnp, (I, I), ("union1d", "intersect1d", "setdiff1d", "setxor1d")),
        **_calls(dnp, (B, V), ("compress", "extract")),
        **_calls(dnp, (V, 1), ("partition", "argpartition", "delete")),
        "kaiser": lambda: dnp.kaiser(5, 2.0),
        "ldexp": lambda: dnp.ldexp(V, I),
        "astype": lambda: dnp.astype(V, np.int32),
        "frombuffer": lambda: dnp.frombuffer(np.arange(3.0).tobytes()),
        "fromstring": lambda: dnp.fromstring("1 2", sep=" "),
        "from_dlpack": lambda: dnp.from_dlpack(np.arange(3.0)),
        "choose": lambda: dnp.choose(dnp.asarray(np.array([0, 1, 0])), [V, -V]),
        "insert": lambda: dnp.insert(V, 1, 5.0),
        "place": lambda: dnp.place(V, B, 0.0, inplace=False),
        "put": lambda: dnp.put(V, I[:1], 0.0, inplace=False),
        "put_along_axis": lambda: dnp.put_along_axis(X, _IDX2, 0.0, 1, inplace=False),
        "fill_diagonal": lambda: dnp.fill_diagonal(X, 0.0, inplace=False),
        "resize": lambda: dnp.resize(V, (2, 2)),
        "block": lambda: dnp.block([V, V]),
        "lexsort": lambda: dnp.lexsort([V, I]),
        "polyfit": lambda: dnp.polyfit(V, V, 1),
        "apply_along_axis": lambda: dnp.apply_along_axis(dnp.sum, 1, X),
        "apply_over_axes": lambda: dnp.apply_over_axes(dnp.sum, X, [0]),
        "fromfunction": lambda: dnp.fromfunction(lambda i: i * 2.0, (3,)),
        "mask_indices": lambda: dnp.mask_indices(3, dnp.triu, size=6),
        "vectorize": lambda: dnp.vectorize(lambda a, b: a * b)(X, V),
        "histogram2d": lambda: dnp.histogram2d(V, V, bins=2),
        "histogramdd": lambda: dnp.histogramdd(X.T, bins=2),
        "packbits": lambda: dnp.packbits(B),
        "unpackbits": lambda: dnp.unpackbits(dnp.asarray(np.array([3], np.uint8))),
    }
)


ALL_CALLS = [
    (f"{prefix}.{name}", call)
    for prefix, calls in (("didax", DIDAX_CALLS), ("numpy", NUMPY_CALLS), ("lax", LAX_CALLS))
    for name, call in calls.items()
]


@pytest.mark.parametrize(("name", "call"), ALL_CALLS, ids=[n for n, _ in ALL_CALLS])
def test_result_is_arrays(name: str, call: Callable[[], Any]) -> None:
    _assert_arrays(call(), name)


@pytest.mark.parametrize(
    ("name", "call"),
    [c for c in ALL_CALLS if not c[0].startswith("didax.")],
    ids=[n for n, _ in ALL_CALLS if not n.startswith("didax.")],
)
def test_result_under_jit_is_arrays(name: str, call: Callable[[], Any]) -> None:
    _assert_arrays(dx.jit(call)(), f"jit of {name}")
    _assert_arrays(dx.vmap(lambda _: call())(dnp.arange(2)), f"vmap of {name}")


def test_device_get_gives_host_values_and_eval_shape_gives_structs() -> None:
    host = dx.device_get({"a": V})
    assert isinstance(host["a"], np.ndarray)
    shape = dx.eval_shape(_f, V)
    assert isinstance(shape, dx.ShapeDtypeStruct)
    assert shape.shape == ()
    assert shape.dtype == np.float64
