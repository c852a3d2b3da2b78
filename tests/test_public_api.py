"""Every name of the public API contract (``shared/API.md``) is importable from its module.

The contract's names are copied here, section by section, because CI has
only this repository. Names whose issue has not landed yet are listed in
``PENDING`` with that issue, and the test asserts that they are *not* there
yet: whoever implements one must move it to ``PUBLIC``, so this list can
never silently drift from the code.
"""

from __future__ import annotations

import importlib
from typing import Any, Final

import numpy as np
import pytest

import didax as dx


def _module(name: str) -> Any:
    """The public module ``name``; ``didax.numpy.linalg`` is an attribute of the module
    ``didax.numpy`` (as ``jax.numpy.linalg`` is reached), not an importable submodule."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        parent, _, attr = name.rpartition(".")
        return getattr(_module(parent), attr)


def _words(text: str) -> list[str]:
    return text.split()


PUBLIC: Final[dict[str, list[str]]] = {
    "didax": _words(
        "jit grad value_and_grad jvp linearize vjp vmap jacfwd jacrev hessian make_jaxpr random "
        "device_put compile_cache_info Array errors extend lax numpy tree_util "
        "custom_jvp custom_vjp checkpoint remat checkpoint_policies flops "
        "config enable_x64 disable_jit device_get block_until_ready ShapeDtypeStruct eval_shape "
        # issue 10: didax.nn, didax.scipy
        "nn scipy "
        # issue 14: devices and shardings
        "devices device_count local_device_count P sharding shard_map pmap distributed "
        "process_index process_count make_array_from_process_local_data "
        # issue 26: matmul precision
        "default_matmul_precision "
        # issue 30: stages
        "stages log_compiles explain_cache_misses export"
        " pure_callback effects_barrier debug ffi"  # issue 30 (h-effects)
        # issue 30 (h-xforms): transformations
        " jacobian linear_transpose custom_gradient closure_convert named_call named_scope"
        " ensure_compile_time_eval checkpoint_name test_util"
    ),
    "didax.lax": _words(
        # element-wise
        "add sub mul div rem pow integer_pow neg sign abs max min exp log log1p expm1 sin "
        "cos tan tanh logistic sqrt rsqrt floor ceil round eq ne lt le gt ge and_ or_ not_ "
        "select convert_element_type stop_gradient "
        # issue 11: complex numbers and the Fourier transform
        "real imag conj complex fft FftType "
        # structural
        "broadcast_in_dim reshape transpose squeeze expand_dims slice dynamic_slice "
        "dynamic_update_slice concatenate pad rev iota "
        # reductions, linear algebra
        "reduce_sum reduce_max reduce_min reduce_prod argmax argmin cumsum dot_general dot "
        # control flow
        "cond switch while_loop fori_loop scan map "
        # issue 10: gather and scatter
        "gather scatter scatter_add scatter_mul scatter_min scatter_max "
        "GatherDimensionNumbers ScatterDimensionNumbers GatherScatterMode "
        # issue 10: special functions
        "erf erfc erf_inv lgamma digamma polygamma sinh cosh asin acos atan asinh acosh atanh "
        "atan2 exp2 is_finite nextafter "
        # issue 14: collectives and sharding constraints
        "with_sharding_constraint psum pmean pmax all_gather psum_scatter ppermute axis_index "
        # issue 11: linear algebra
        "linalg "
        # issue 26: matmul precision
        "Precision"
    ),
    # issue 11: the decompositions, as jax.lax.linalg
    "didax.lax.linalg": _words("cholesky triangular_solve lu qr eigh svd")
    + _words("schur hessenberg householder_product"),  # issue 29 (h-schur)
    # issue 11: NumPy's linear algebra
    "didax.numpy.linalg": _words(
        "norm det slogdet inv solve cholesky qr svd eigh eigvalsh lstsq pinv matrix_power "
        "matrix_rank "
        # issue 26
        "multi_dot "
        # issue 29
        "cond tensorinv tensorsolve vector_norm matrix_norm svdvals cross outer "
        "matrix_transpose tensordot vecdot"
    ),
    "didax.numpy": _words(
        "array asarray zeros ones zeros_like ones_like full arange linspace eye add "
        "subtract multiply divide true_divide power negative abs exp log log1p sqrt sin cos "
        "tan tanh maximum minimum where clip sum mean max min prod argmax argmin cumsum dot "
        "matmul einsum outer transpose swapaxes moveaxis reshape ravel broadcast_to "
        "expand_dims squeeze concatenate stack greater greater_equal less less_equal equal "
        "not_equal logical_and logical_or logical_not sign floor ceil round float32 float64 "
        "int32 int64 bool_ floor_divide bfloat16 float16 int8 int16 uint8 uint16 uint32 uint64 "
        # issue 10: the rest of jax.numpy (the composites)
        "all any count_nonzero cumprod diag flip meshgrid repeat roll split std tile trace "
        "tril triu var tensordot allclose isclose array_equal append vstack hstack dstack "
        "column_stack row_stack array_split hsplit vsplit diff ediff1d kron inner cross pad "
        "fliplr flipud rot90 rollaxis atleast_1d atleast_2d atleast_3d select piecewise "
        "polyval nanmean nansum nanmax nanmin average cov corrcoef convolve correlate "
        "full_like empty identity diag_indices tril_indices triu_indices nonzero gradient "
        "real imag conj angle dtype pi e inf nan newaxis euler_gamma linalg isnan isfinite "
        "nan_to_num logaddexp square reciprocal log2 log10 mod searchsorted unique histogram "
        # issue 10: sorting
        "sort argsort "
        # issue 10: gather-based indexing
        "take take_along_axis "
        # issue 10: element-wise functions over the special primitives
        "exp2 arctan2 sinh cosh arcsin arccos arctan arcsinh arccosh arctanh logaddexp2 hypot "
        "sinc deg2rad rad2deg degrees radians fmax fmin absolute fabs expm1 heaviside signbit "
        "copysign "
        # issue 10: order statistics, interpolation, index tricks
        "quantile percentile median nanquantile nanpercentile nanmedian interp "
        "r_ c_ mgrid ogrid s_ index_exp "
        # issue 10: the rest of jax.numpy's routines (api/numpy/more_routines.py)
        "acos acosh asin asinh atan atan2 atanh pow concat permute_dims matrix_transpose amax "
        "amin around positive cumulative_sum cumulative_prod unstack vecdot matvec vecmat rint "
        "trunc logical_xor fmod divmod modf float_power gcd lcm ptp nanargmax nanargmin "
        "nancumsum nancumprod isin digitize bincount unravel_index ravel_multi_index indices ix_ "
        "diag_indices_from tril_indices_from triu_indices_from logspace geomspace trapezoid "
        "broadcast_arrays broadcast_shapes ndim shape size isscalar iinfo finfo issubdtype "
        "promote_types result_type can_cast "
        # issue 11: complex numbers and the Fourier transforms
        "complex64 complex128 iscomplex isreal iscomplexobj isrealobj conjugate vdot fft"
    ),
    # issue 10: activations, softmax and friends; SciPy's special functions
    "didax.nn": _words(
        "relu relu6 sigmoid softplus silu swish gelu elu leaky_relu tanh log_sigmoid softmax "
        "log_softmax logsumexp one_hot standardize "
        # issue 29: the rest of jax.nn
        "celu glu hard_sigmoid hard_silu hard_swish hard_tanh identity log1mexp logmeanexp mish "
        "selu soft_sign sparse_plus sparse_sigmoid squareplus dot_product_attention "
        "scaled_dot_general scaled_matmul get_scaled_dot_general_config initializers"
    ),
    "didax.scipy": ["special", "linalg", "stats"],
    # issue 11: SciPy's linear algebra
    "didax.scipy.linalg": _words(
        "solve_triangular cho_factor cho_solve lu lu_factor lu_solve expm "
        # issue 29: the rest of jax.scipy.linalg
        "block_diag cholesky circulant companion convolution_matrix det dft eigh eigh_tridiagonal "
        "expm_frechet "
        "fiedler fiedler_companion hadamard hankel helmert hilbert inv invhilbert invpascal "
        "leslie pascal polar qr qr_multiply solve svd toeplitz"
        " schur rsf2csf sqrtm funm solve_sylvester hessenberg"  # issue 29 (h-schur)
    ),
    "didax.scipy.special": _words(
        "logsumexp erf erfc erfinv gammaln digamma xlogy xlog1py expit logit "
        # issue 29: the rest but the distribution functions (h-special)
        "gamma gammasgn loggamma factorial comb poch multigammaln entr rel_entr kl_div boxcox "
        "boxcox1p zeta polygamma bernoulli softmax log_softmax erfcx dawsn wofz fresnel sici "
        "spence owens_t expi expn exp1 i0 i0e i1 i1e bessel_jn hyp1f1 hyp2f1 sph_harm_y"
        " ndtr ndtri log_ndtr gammainc gammaincc betainc beta betaln"  # issue 29 (h-stats)
    ),
    # issue 30 (h-effects): effects and callbacks
    "didax.debug": _words("print callback log breakpoint inspect_array_sharding"),
    "didax.ffi": _words("ffi_call register_ffi_target ffi_lowering pycapsule include_dir"),
    "didax.experimental": ["io_callback"],
    "didax.scipy.stats": _words("norm multivariate_normal beta gamma t poisson mode rankdata sem"),
    # issue 29: the smaller modules of jax.scipy
    "didax.scipy.signal": _words(
        "convolve convolve2d correlate correlate2d csd detrend fftconvolve istft stft welch"
    ),
    "didax.scipy.fft": _words("dct dctn idct idctn"),
    "didax.scipy.ndimage": ["map_coordinates"],
    "didax.scipy.integrate": ["trapezoid"],
    "didax.scipy.interpolate": ["RegularGridInterpolator"],
    "didax.scipy.cluster.vq": ["vq"],
    "didax.scipy.optimize": _words("minimize OptimizeResults"),
    "didax.scipy.sparse.linalg": _words("cg bicgstab gmres"),
    "didax.scipy.spatial.transform": _words("Rotation Slerp"),
    # issue 10: JAX's counter-based PRNG
    "didax.random": _words(
        "PRNGKey key key_data wrap_key_data split fold_in bits uniform normal truncated_normal "
        "bernoulli randint categorical permutation choice gumbel"
        " random_gamma_p gamma loggamma beta dirichlet chisquare f t"  # issue 29
    ),
    "didax.tree_util": _words(
        "tree_flatten tree_unflatten tree_map tree_leaves tree_structure register_pytree_node"
    ),
    "didax.extend": _words("Primitive ShapedArray Zero UndefinedPrimal lowering"),
    "didax.custom_derivatives": _words(
        "custom_jvp custom_vjp SymbolicZero custom_gradient closure_convert linear_call"
    ),
    "didax.test_util": _words("check_grads check_jvp check_vjp"),  # issue 30
    "didax.experimental.checkify": _words(  # issue 30
        "checkify check Error user_checks nan_checks div_checks index_checks float_checks"
        " all_checks"
    ),
    # issue 14
    "didax.experimental.shard_map": ["shard_map"],
    "didax.distributed": _words(
        "initialize shutdown process_index process_count make_array_from_process_local_data"
    ),
    "didax.sharding": _words("Mesh PartitionSpec NamedSharding SingleDeviceSharding"),
    # issue 30: stages and export
    "didax.stages": _words("Traced Lowered Compiled Wrapped ArgInfo CompilerOptions"),
    "didax.export": _words(
        "export Exported serialize deserialize default_export_platform "
        "minimum_supported_calling_convention_version maximum_supported_calling_convention_version "
        "DisabledSafetyCheck register_pytree_node_serialization register_namedtuple_serialization"
    ),
    "didax.errors": _words(
        "ConcretizationTypeError UnexpectedTracerError ShapeError DTypeError"
        " TracerBoolConversionError TracerIntegerConversionError TracerArrayConversionError"
        " NonConcreteBooleanIndexError KeyReuseError JaxRuntimeError JAXTypeError JAXIndexError"
        " JaxprTypeError"
    ),
}

# (module, name) -> the issue that delivers it.
PENDING: Final[dict[tuple[str, str], int]] = {}

# The Array attributes and methods API.md names ("Values and dtypes", "didax.numpy");
# those of arrays and tracers alike, then those of Arrays only.
ARRAY_AND_TRACER_ATTRIBUTES: Final = _words(
    "shape dtype ndim size __array__ __getitem__ T reshape sum mean astype __add__ __mul__ __lt__ "
    "at"
)
ARRAY_ONLY_ATTRIBUTES: Final = ["__dlpack__", "block_until_ready"]


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, names in PUBLIC.items() for n in names])
def test_public_name_importable(module: str, name: str) -> None:
    mod = _module(module)
    assert hasattr(mod, name), f"{module}.{name} is in API.md but missing"
    assert name in mod.__all__, f"{module}.__all__ lacks {name}"


@pytest.mark.parametrize("name", ["hlo", "ir", "LoweringRuleContext"])
def test_extend_lowering_names(name: str) -> None:
    from didax.extend import lowering

    assert name in lowering.__all__
    assert hasattr(lowering, name)


@pytest.mark.parametrize(("module", "name"), sorted(PENDING))
def test_pending_name_not_there_yet(module: str, name: str) -> None:
    mod = _module(module)
    assert not hasattr(mod, name), (
        f"{module}.{name} exists now: move it from PENDING (issue {PENDING[module, name]}) "
        "to PUBLIC"
    )


@pytest.mark.parametrize("name", ARRAY_AND_TRACER_ATTRIBUTES + ARRAY_ONLY_ATTRIBUTES)
def test_array_attributes(name: str) -> None:
    x = dx.device_put(np.ones((2, 3)))
    assert hasattr(x, name)
    if name in ARRAY_ONLY_ATTRIBUTES:
        return
    traced: list[bool] = []

    def f(t: dx.Array) -> dx.Array:
        traced.append(hasattr(t, name))
        return t

    dx.make_jaxpr(f)(x)
    assert traced == [True]


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_all_is_exact(module: str) -> None:
    """``__all__`` lists only names the module has, each once."""
    mod = _module(module)
    names = list(mod.__all__)
    assert len(names) == len(set(names))
    assert [n for n in names if not hasattr(mod, n)] == []
