"""Linear algebra lowered per platform: didax's kernel calls are JAX's, on CPUs and on CUDA.

No GPU is needed: JAX lowers for CUDA without one
(``jax.export.export(jax.jit(f), platforms=["cuda"])``, and
``jax.jit(f).trace(...).lower(lowering_platforms=("cuda",))`` before the
export's passes), and so does didax (``Lowered.as_text(platform="cuda")``).
The oracle is JAX's module: for
each primitive, at float32, float64 and complex64 (complex128 where the
dtype changes a kernel's name), batched and not, didax's module holds
the same kernel calls in the same order: custom calls with their targets,
``mhlo.backend_config``, layouts, aliases, operand and result types, and
StableHLO's ``cholesky``/``triangular_solve`` ops with their attributes
(locations, SSA names and sharding-propagation attributes normalised
away). Then user-level functions against JAX's same-named ones; the same
comparison for the CPU's LAPACK calls (which this change must not move);
the registration mechanism (per-platform rules, duplicates refused); and
the clear error, at lowering, of a primitive with no rule for a platform,
eagerly too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
import didax.scipy.linalg as dsl
from didax import lax
from didax.extend import Primitive
from didax.lowering import xla
from didax.lowering.mlir import LOWERING_RULES, LoweringRuleContext, LoweringRuleTable

Fn: TypeAlias = Callable[..., Any]
# (attributes, operand types, result types) of one kernel call.
Call: TypeAlias = tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]

KERNEL_OPS: Final = ("stablehlo.custom_call", "stablehlo.cholesky", "stablehlo.triangular_solve")

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
C64: Final = np.dtype(np.complex64)
C128: Final = np.dtype(np.complex128)
DTYPES: Final = (F32, F64, C64)


def _kernel_calls(text: str) -> list[Call]:
    """The kernel calls of a module's text, in program order, normalised.

    Locations and SSA names are not attributes, so they are gone already;
    the sharding propagation's ``sdy.*`` attributes (JAX's, with Shardy on)
    are dropped, and so is an empty ``backend_config`` string (JAX's
    export drops it; the typed FFI's options are in ``mhlo.backend_config``).
    """
    calls: list[Call] = []
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        assert module.operation.verify()

        def walk(op: Any) -> None:
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.operations:
                        o = inner.operation
                        if o.name in KERNEL_OPS:
                            attrs = {n: str(o.attributes[n]) for n in o.attributes}
                            attrs = {
                                k: v
                                for k, v in attrs.items()
                                if not k.startswith("sdy.")
                                and k != "mhlo.sharding"
                                and (k, v) != ("backend_config", '""')
                            }
                            attrs["op"] = o.name
                            calls.append(
                                (
                                    attrs,
                                    tuple(str(x.type) for x in o.operands),
                                    tuple(str(r.type) for r in o.results),
                                )
                            )
                        walk(o)

        walk(module.operation)
    return calls


def _jax_calls(
    f: Fn, shapes: tuple[tuple[int, ...], ...], dtype: Any, platform: str
) -> tuple[list[Call], list[Call]]:
    """JAX's kernel calls for ``platform``: as lowered, and as exported.

    The export's serialization drops the calls whose results are unused
    (``slogdet`` needs no permutation from ``lu``), as XLA does when it
    compiles; didax's module, like JAX's lowered one, still has them.
    """
    args = [jax.ShapeDtypeStruct(s, dtype) for s in shapes]
    lowered = jax.jit(f).trace(*args).lower(lowering_platforms=(platform,))
    exported = jax.export.export(jax.jit(f), platforms=[platform])(*args)
    return _kernel_calls(lowered.as_text()), _kernel_calls(exported.mlir_module())


def _didax_calls(
    f: Fn, shapes: tuple[tuple[int, ...], ...], dtype: Any, platform: str
) -> list[Call]:
    args = [np.zeros(s, dtype) for s in shapes]
    return _kernel_calls(dx.jit(f).lower(*args).as_text(platform=platform))


def _assert_same_calls(
    jf: Fn, df: Fn, shapes: tuple[tuple[int, ...], ...], dtype: Any, platform: str = "cuda"
) -> list[Call]:
    want, exported = _jax_calls(jf, shapes, dtype, platform)
    got = _didax_calls(df, shapes, dtype, platform)
    assert exported, "JAX's module has no kernel call: the case tests nothing"
    assert got == want
    rest = iter(got)
    assert all(call in rest for call in exported), "the export's calls, in order, are didax's"
    return got


Case: TypeAlias = tuple[str, Fn, Fn, tuple[tuple[int, ...], ...]]
CASE_ARGS: Final = ("jf", "df", "shapes")


def _params(cases: list[Case]) -> list[Any]:
    """(id, JAX's function, didax's function, operand shapes) cases as pytest's parameters."""
    return [pytest.param(*case[1:], id=case[0]) for case in cases]


def _dtype_params(cases: list[Case]) -> list[Any]:
    """Every case at every dtype of ``DTYPES``, as ``(*CASE_ARGS, "dtype")``'s parameters.

    The default run's slice checks each case at one dtype, complex64,
    float32 and float64 in turn along the cases of one function (the id's
    first word; complex64 and float32 for a function with one case): every
    case's shapes and flags still lower, and every function still meets a
    real and a complex dtype, which differ in the kernels' names and in the
    complex paths (conjugates, real eigenvalues and singular values).
    """
    rows = [(*case[1:], dtype) for case in cases for dtype in DTYPES]
    ids = [f"{case[0]}-{dtype}" for case in cases for dtype in DTYPES]
    families = [case[0].split("-")[0] for case in cases]
    turn = (C64, F32, F64)
    kept = [
        (*case[1:], dtype)
        for i, case in enumerate(cases)
        for dtype in (
            (C64, F32)
            if families.count(families[i]) == 1
            else (turn[families[:i].count(families[i]) % 3],)
        )
    ]
    return slice_params(rows, lambda row: row in kept, ids)


def _targets(calls: list[Call]) -> list[str]:
    return [c[0].get("call_target_name", c[0]["op"]).strip('"') for c in calls]


# --- the primitives, lowered for CUDA ---------------------------------------------------------

PRIMITIVE_CASES: Final[list[Case]] = [
    ("lu", jax.lax.linalg.lu, lax.linalg.lu, ((3, 3),)),
    ("lu-tall-batched", jax.lax.linalg.lu, lax.linalg.lu, ((2, 4, 3),)),
    ("lu-wide", jax.lax.linalg.lu, lax.linalg.lu, ((3, 5),)),
    ("qr-full-tall", jax.lax.linalg.qr, lax.linalg.qr, ((4, 3),)),
    (
        "qr-reduced-tall-batched",
        lambda x: jax.lax.linalg.qr(x, full_matrices=False),
        lambda x: lax.linalg.qr(x, full_matrices=False),
        ((2, 4, 3),),
    ),
    ("qr-wide-batched", jax.lax.linalg.qr, lax.linalg.qr, ((2, 3, 5),)),
    ("eigh", jax.lax.linalg.eigh, lax.linalg.eigh, ((3, 3),)),
    (
        "eigh-upper-batched",
        lambda x: jax.lax.linalg.eigh(x, lower=False, symmetrize_input=False),
        lambda x: lax.linalg.eigh(x, lower=False, symmetrize_input=False),
        ((2, 4, 4),),
    ),
    ("cholesky", jax.lax.linalg.cholesky, lax.linalg.cholesky, ((3, 3),)),
    (
        "cholesky-batched",
        lambda x: jax.lax.linalg.cholesky(x, symmetrize_input=False),
        lambda x: lax.linalg.cholesky(x, symmetrize_input=False),
        ((2, 4, 4),),
    ),
    ("svd-jacobi-full", jax.lax.linalg.svd, lax.linalg.svd, ((4, 3),)),
    (
        "svd-jacobi-reduced-batched",
        lambda x: jax.lax.linalg.svd(x, full_matrices=False),
        lambda x: lax.linalg.svd(x, full_matrices=False),
        ((2, 3, 5),),
    ),
    (
        "svd-jacobi-economy",  # both sides above 32: gesvdj's own economy mode
        lambda x: jax.lax.linalg.svd(x, full_matrices=False),
        lambda x: lax.linalg.svd(x, full_matrices=False),
        ((40, 50),),
    ),
    (
        "svd-jacobi-values-batched",
        lambda x: jax.lax.linalg.svd(x, compute_uv=False),
        lambda x: lax.linalg.svd(x, compute_uv=False),
        ((2, 5, 3),),
    ),
    ("svd-qr-tall", jax.lax.linalg.svd, lax.linalg.svd, ((1030, 3),)),
    (
        "svd-qr-wide-reduced",  # gesvd on the transpose, row-major layouts
        lambda x: jax.lax.linalg.svd(x, full_matrices=False),
        lambda x: lax.linalg.svd(x, full_matrices=False),
        ((3, 1030),),
    ),
    (
        "svd-qr-values",  # rank-0 placeholders for U and V^H
        lambda x: jax.lax.linalg.svd(x, compute_uv=False),
        lambda x: lax.linalg.svd(x, compute_uv=False),
        ((1030, 2),),
    ),
]


@pytest.mark.parametrize((*CASE_ARGS, "dtype"), _dtype_params(PRIMITIVE_CASES))
def test_primitive_kernel_calls_on_cuda_are_jaxs(
    jf: Fn, df: Fn, shapes: tuple[tuple[int, ...], ...], dtype: np.dtype[Any]
) -> None:
    _assert_same_calls(jf, df, shapes, dtype)


def _triangular_solve_case(**flags: bool) -> tuple[Fn, Fn]:
    return (
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, **flags),
        lambda a, b: lax.linalg.triangular_solve(a, b, **flags),
    )


TRIANGULAR_FLAGS: Final[dict[str, dict[str, bool]]] = {
    "left-lower": {"left_side": True, "lower": True},
    "right-upper-T": {"left_side": False, "lower": False, "transpose_a": True},
    "left-upper-H": {"left_side": True, "lower": False, "transpose_a": True, "conjugate_a": True},
    "left-lower-conj-unit": {
        "left_side": True,
        "lower": True,
        "conjugate_a": True,
        "unit_diagonal": True,
    },
}
BATCHES: Final[dict[str, tuple[int, ...]]] = {"single": (), "batched": (2,)}


# The slice: every flag set, unbatched at complex64 (the conjugates) and
# batched at float32 (the real path); float64 lowers as float32 does.
@pytest.mark.parametrize(
    ("flags", "batch", "dtype"),
    slice_params(
        [(f, b, d) for b in BATCHES.values() for f in TRIANGULAR_FLAGS.values() for d in DTYPES],
        lambda row: row[2] == (C64 if row[1] == () else F32),
        [f"{b}-{f}-{d}" for b in BATCHES for f in TRIANGULAR_FLAGS for d in DTYPES],
    ),
)
def test_triangular_solve_on_cuda_is_stablehlos_op(
    flags: dict[str, bool], batch: tuple[int, ...], dtype: np.dtype[Any]
) -> None:
    jf, df = _triangular_solve_case(**flags)
    b = (*batch, 3, 2) if flags["left_side"] else (*batch, 2, 3)
    calls = _assert_same_calls(jf, df, ((*batch, 3, 3), b), dtype)
    # XLA's GPU compiler hands it to cuBLAS: no custom call of didax's own.
    assert _targets(calls) == ["stablehlo.triangular_solve"]


def test_kernel_names_on_cuda() -> None:
    # One cuSOLVER target per kernel, for every dtype (LAPACK's names carry it).
    def targets(f: Fn, shape: tuple[int, ...], dtype: np.dtype[Any]) -> list[str]:
        return _targets(_didax_calls(f, (shape,), dtype, "cuda"))

    for dtype in (F32, C128):
        assert targets(lax.linalg.lu, (3, 3), dtype) == [
            "cusolver_getrf_ffi",
            "cu_lu_pivots_to_permutation",
        ]
        assert targets(lax.linalg.qr, (3, 3), dtype) == ["cusolver_geqrf_ffi", "cusolver_orgqr_ffi"]
        assert targets(lax.linalg.eigh, (3, 3), dtype) == ["cusolver_syevd_ffi"]
        assert targets(lax.linalg.cholesky, (3, 3), dtype) == ["cusolver_potrf_ffi"]
        assert targets(lax.linalg.svd, (3, 3), dtype) == ["cusolver_gesvdj_ffi"]
        assert targets(lax.linalg.svd, (1025, 3), dtype) == ["cusolver_gesvd_ffi"]
        assert targets(lax.linalg.svd, (3, 1024), dtype) == ["cusolver_gesvdj_ffi"]


@pytest.mark.parametrize(
    CASE_ARGS,
    _params([c for c in PRIMITIVE_CASES if c[0] in ("lu-tall-batched", "qr-wide-batched", "eigh")]),
)
def test_complex128_kernel_calls_on_cuda_are_jaxs(
    jf: Fn, df: Fn, shapes: tuple[tuple[int, ...], ...]
) -> None:
    _assert_same_calls(jf, df, shapes, C128)


# --- user-level functions ---------------------------------------------------------------


USER_CASES: Final[list[Case]] = [
    ("solve", jnp.linalg.solve, dnp.linalg.solve, ((3, 3), (3,))),
    ("solve-batched", jnp.linalg.solve, dnp.linalg.solve, ((2, 3, 3), (2, 3, 4))),
    ("inv", jnp.linalg.inv, dnp.linalg.inv, ((3, 3),)),
    ("inv-batched", jnp.linalg.inv, dnp.linalg.inv, ((2, 4, 4),)),
    ("slogdet", jnp.linalg.slogdet, dnp.linalg.slogdet, ((2, 3, 3),)),
    ("det", jnp.linalg.det, dnp.linalg.det, ((2, 4, 4),)),  # JAX's 3x3 det is a formula
    ("eigh", jnp.linalg.eigh, dnp.linalg.eigh, ((2, 3, 3),)),
    ("svd", jnp.linalg.svd, dnp.linalg.svd, ((4, 3),)),
    (
        "svd-reduced-batched",
        lambda x: jnp.linalg.svd(x, full_matrices=False),
        lambda x: dnp.linalg.svd(x, full_matrices=False),
        ((2, 3, 5),),
    ),
    ("qr", jnp.linalg.qr, dnp.linalg.qr, ((4, 3),)),
    (
        "qr-complete-batched",
        lambda x: jnp.linalg.qr(x, mode="complete"),
        lambda x: dnp.linalg.qr(x, mode="complete"),
        ((2, 4, 3),),
    ),
    ("cholesky", jnp.linalg.cholesky, dnp.linalg.cholesky, ((2, 3, 3),)),
    (
        "solve_triangular",
        lambda a, b: jsl.solve_triangular(a, b, lower=True),
        lambda a, b: dsl.solve_triangular(a, b, lower=True),
        ((3, 3), (3, 2)),
    ),
    (
        "solve_triangular-batched-trans",
        lambda a, b: jsl.solve_triangular(a, b, trans="C"),
        lambda a, b: dsl.solve_triangular(a, b, trans="C"),
        ((2, 3, 3), (2, 3, 2)),
    ),
]


@pytest.mark.parametrize((*CASE_ARGS, "dtype"), _dtype_params(USER_CASES))
def test_user_functions_on_cuda_call_jaxs_kernels(
    jf: Fn, df: Fn, shapes: tuple[tuple[int, ...], ...], dtype: np.dtype[Any]
) -> None:
    _assert_same_calls(jf, df, shapes, dtype)


def test_grad_of_slogdet_on_cuda_calls_jaxs_kernels() -> None:
    # The derivative's LU and triangular solves, as JAX's. didax's program
    # also keeps the primal slogdet's LU, whose results the gradient does
    # not use (JAX's DCE drops that custom_jvp_call, didax's does not yet):
    # XLA drops it when it compiles, so only the distinct calls compare.
    jf = jax.grad(lambda a: jnp.linalg.slogdet(a)[1])
    df = dx.grad(lambda a: dnp.linalg.slogdet(a)[1])
    want, _ = _jax_calls(jf, ((3, 3),), F32, "cuda")
    got = _didax_calls(df, ((3, 3),), F32, "cuda")
    distinct = [c for i, c in enumerate(got) if c not in got[:i]]
    assert distinct == want
    assert len(got) == len(want) + 2


# --- CPUs: LAPACK, as before ---------------------------------------------------------------------

# JAX's CPU lowering of cholesky is LAPACK's potrf, didax's StableHLO's op
# (its module docstring says why); lu's permutation is a loop in both.
CPU_CASES: Final[list[Case]] = [
    *(c for c in PRIMITIVE_CASES if not c[0].startswith("cholesky")),
    (
        "triangular_solve-lower",
        *_triangular_solve_case(left_side=True, lower=True),
        ((3, 3), (3, 2)),
    ),
    (
        "triangular_solve-upper-H",
        *_triangular_solve_case(transpose_a=True, conjugate_a=True),
        ((2, 3, 3), (2, 2, 3)),
    ),
    ("eig", jax.lax.linalg.eig, lax.linalg.eig, ((3, 3),)),
    ("eigvals-batched", jnp.linalg.eigvals, dnp.linalg.eigvals, ((2, 4, 4),)),
]


@pytest.mark.parametrize((*CASE_ARGS, "dtype"), _dtype_params(CPU_CASES))
def test_kernel_calls_on_cpu_are_jaxs(
    jf: Fn, df: Fn, shapes: tuple[tuple[int, ...], ...], dtype: np.dtype[Any]
) -> None:
    calls = _assert_same_calls(jf, df, shapes, dtype, platform="cpu")
    assert all(t.startswith("lapack_") for t in _targets(calls))


def test_cholesky_on_cpu_is_stablehlos_op() -> None:
    calls = _didax_calls(lax.linalg.cholesky, ((3, 3),), F64, "cpu")
    assert _targets(calls) == ["stablehlo.cholesky"]


def test_default_platform_is_the_backends() -> None:
    assert xla.platform() == "cpu"
    x = np.eye(3)
    text = dx.jit(lax.linalg.lu).lower(x).as_text()
    assert text == dx.jit(lax.linalg.lu).lower(x).as_text(platform="cpu")
    assert "lapack_dgetrf_ffi" in text


# --- the mechanism: rules per platform -----------------------------------------------------


def test_linalg_rules_by_platform() -> None:
    from didax.core.lax import linalg as core_linalg

    for prim in (core_linalg.lu_p, core_linalg.qr_p, core_linalg.eigh_p, core_linalg.svd_p):
        assert LOWERING_RULES.platforms(prim) == ("cpu", "cuda")
        assert prim not in LOWERING_RULES  # no rule for every platform
        assert not LOWERING_RULES.lowers_on(prim, "rocm")
    # StableHLO's ops for every platform, a kernel of its own on one.
    assert core_linalg.cholesky_p in LOWERING_RULES
    assert LOWERING_RULES.platforms(core_linalg.cholesky_p) == ("cuda",)
    assert core_linalg.triangular_solve_p in LOWERING_RULES
    assert LOWERING_RULES.platforms(core_linalg.triangular_solve_p) == ("cpu",)
    assert LOWERING_RULES.lowers_on(core_linalg.cholesky_p, "rocm")


def _rule(ctx: LoweringRuleContext, x: Any) -> list[Any]:
    return [x]


def test_registration_refuses_duplicates_per_platform() -> None:
    table = LoweringRuleTable("test")
    p = Primitive("platform_test_dup")
    table.register(p, _rule, platform="cpu")
    table.register(p, _rule, platform="cuda")
    table.register(p, _rule)  # the rule for every platform lives beside them
    with pytest.raises(ValueError, match="platform_test_dup on cpu is already registered"):
        table.register(p, _rule, platform="cpu")
    with pytest.raises(ValueError, match="platform_test_dup is already registered"):
        table.register(p, _rule)
    with pytest.raises(ValueError, match="unknown platform 'gpu'"):
        table.register(p, _rule, platform="gpu")


def test_platform_rule_takes_precedence() -> None:
    table = LoweringRuleTable("test")
    p = Primitive("platform_test_precedence")

    def everywhere(ctx: LoweringRuleContext, x: Any) -> list[Any]:
        return [x]

    def on_cuda(ctx: LoweringRuleContext, x: Any) -> list[Any]:
        return [x]

    table.defines(p)(everywhere)
    table.defines(p, platform="cuda")(on_cuda)
    assert table.rule_for(p, "cuda") is on_cuda
    assert table.rule_for(p, "cpu") is everywhere
    assert table.rule_for(p, "rocm") is everywhere
    assert table[p] is everywhere


def _custom_primitive(name: str) -> Primitive:
    p = Primitive(name)
    p.def_abstract_eval(lambda x: x)
    return p


def test_rule_sees_its_platform() -> None:
    p = _custom_primitive("platform_test_sees")
    seen: list[str] = []

    def rule(ctx: LoweringRuleContext, x: Any) -> list[Any]:
        seen.append(ctx.platform)
        return [x]

    p.def_lowering(rule)
    f = dx.jit(p.bind)
    for platform in ("cuda", "cpu", "rocm"):
        f.lower(np.ones(2)).as_text(platform=platform)
    assert seen == ["cuda", "cpu", "rocm"]


def test_missing_platform_rule_fails_at_lowering() -> None:
    p = _custom_primitive("platform_test_cpu_only")
    p.def_lowering(_rule, platform="cpu")
    f = dx.jit(p.bind)
    assert "func.func public @main" in f.lower(np.ones(2, np.float32)).as_text(platform="cpu")
    with pytest.raises(NotImplementedError) as info:
        f.lower(np.ones(2, np.float32)).as_text(platform="cuda")
    message = str(info.value)
    for piece in ("'platform_test_cpu_only'", "platform 'cuda'", "f32[2]", "lowers on cpu"):
        assert piece in message
    # Compiled here, where the backend is a CPU, it runs.
    np.testing.assert_array_equal(f(np.ones(2, np.float32)), np.ones(2, np.float32))


def test_linalg_without_a_rule_for_the_platform_fails_at_lowering() -> None:
    x = np.eye(3, dtype=np.float32)
    with pytest.raises(NotImplementedError) as info:
        dx.jit(lax.linalg.lu).lower(x).as_text(platform="rocm")
    message = str(info.value)
    for piece in ("'lu'", "platform 'rocm'", "f32[3,3]", "lowers on cpu, cuda"):
        assert piece in message


def test_unknown_platform_is_refused() -> None:
    lowered = dx.jit(dnp.sin).lower(np.ones(2))
    with pytest.raises(ValueError, match="unknown platform 'gpu'"):
        lowered.as_text(platform="gpu")


def test_eager_linalg_lowers_for_the_backends_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    # Eager linalg runs as a compiled one-equation program, lowered for the
    # backend's platform: were the backend a ROCm GPU, lu would fail there,
    # when lowered, rather than running LAPACK's kernel (an operand type no
    # other test uses, so that no compiled program is cached for it).
    x = np.eye(7, 5, dtype=np.float32)
    monkeypatch.setattr(xla, "platform", lambda: "rocm")
    with pytest.raises(NotImplementedError, match="platform 'rocm'"):
        lax.linalg.lu(x)
    monkeypatch.undo()
    packed, _, perm = lax.linalg.lu(x)
    want, _, want_perm = jax.lax.linalg.lu(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(packed), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(perm), np.asarray(want_perm))
