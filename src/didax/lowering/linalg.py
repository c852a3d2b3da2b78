"""The StableHLO lowering of the linear-algebra primitives (``core.lax.linalg``), per platform.

Each platform calls its own kernels, exactly as JAX lowers for it (the
kernels are XLA's to call: never a host callback), with typed FFI custom
calls whose options are a ``mhlo.backend_config`` dictionary, whose
matrices are column major (layout ``(n-2, n-1, n-3, ..., 0)``) and whose
first operand is overwritten by the first result:

- On CPUs (``"cpu"``): ``cholesky`` is StableHLO's own op (XLA expands it);
  ``triangular_solve``, ``lu``, ``qr``, ``eigh`` and ``svd`` call the LAPACK
  kernels jaxlib registers (``trsm``, ``getrf``, ``geqrf`` + ``orgqr``,
  ``syevd``, ``gesdd``; for the complex dtypes ``ungqr`` in place of
  ``orgqr`` and ``heevd`` of ``syevd``, with LAPACK's ``c``/``z``
  prefixes); their options are LAPACK's one-letter ones.
- On CUDA GPUs (``"cuda"``): the cuSOLVER kernels of jaxlib's CUDA plugin
  (``potrf``, ``getrf`` then jaxlib's ``lu_pivots_to_permutation``,
  ``geqrf`` + ``orgqr``, ``syevd``, ``gesvdj`` up to 1024x1024 and ``gesvd``
  beyond), one target per kernel for every dtype, with the kernels' own
  options (``lower = true``...); ``triangular_solve`` is
  ``stablehlo.triangular_solve``, which XLA's GPU compiler gives to cuBLAS.
- ``cholesky`` and ``triangular_solve`` have a rule for every platform
  (StableHLO's ops, JAX's default rules) and one of their own on CUDA
  (``potrf``) and on CPUs (``trsm``). ``lu``, ``qr``, ``eigh`` and ``svd``
  lower on CPUs and CUDA only: elsewhere (ROCm) lowering them fails, naming
  the primitive and the platform, rather than emitting calls to kernels no
  test has compared with JAX's.

``triangular_solve`` was first lowered to ``stablehlo.triangular_solve`` on
CPUs too; XLA's CPU expansion of it made a jitted 256x256 ``solve`` 3.4
times as slow as JAX's (``bench/bench_linalg.py``) and, on a singular
matrix, gave NaN where JAX's ``trsm`` gives inf. With ``trsm`` both match
JAX.

Design rules:
- One rule per primitive serves both platforms where JAX's does: the
  kernels' names and options depend on ``ctx.platform``, the
  post-processing (below) does not, so both give the decompositions the
  interpreters' rules expect (``core.lax.linalg``'s conventions).
- Failure is JAX's: the kernels' ``info`` result says, per matrix, whether
  the decomposition succeeded; where it did not, the results are NaN
  (``lu`` only fails on invalid arguments: a singular matrix is a valid LU
  whose U has a zero on its diagonal, and it gives ``inf`` downstream).
  A failed complex result is ``nan + nan j``, as JAX's.
  ``stablehlo.cholesky`` gives NaNs somewhere in a matrix that is not
  positive definite; the lowering fills that whole matrix with NaNs, as
  JAX's ``potrf`` path does, then zeroes the upper triangle (as JAX's
  does, after its NaN fill; ``potrf`` leaves it as it found it).
- ``lu``'s permutation is computed from the pivots: on CPUs in the program
  (a ``stablehlo.while`` applying the row swaps, as JAX's generic
  ``lu_pivots_to_permutation``), on CUDA by jaxlib's kernel, as JAX's.
- ``svd`` on CUDA: ``gesvdj`` gives V, not V^H (the rule transposes and
  conjugates it), and computes full U and V unless ``full_matrices`` is
  off and both sides exceed 32 (its batched form has no economy mode; the
  rule slices); ``gesvd`` on a wide matrix (m < n) factors the transpose
  (row-major layouts, ``transposed = true``), so its U and V^H come swapped.
- These primitives have no impl rule: eager evaluation runs each as a
  one-equation program through XLA (its compiled route, see
  ``interpreters.evaluation``), as the higher-order primitives do: the
  kernels are XLA's to call, so eager values equal jitted ones, on
  whatever platform the backend is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Unpack

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.linalg import (
    TriangularSolveParams,
    cholesky_p,
    eigh_p,
    lu_p,
    qr_p,
    svd_p,
    triangular_solve_p,
)
from didax.lowering import mlir
from didax.lowering.kernel_targets import gpu_linalg_target, gpu_solver_target, lapack_target
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare

__all__: list[str] = []

_I32: Final = dtypes.int32

# JAX's choice of SVD kernel on CUDA (``_resolve_gpu_svd_implementation``):
# Jacobi (gesvdj) while both sides are at most this, after NVIDIA's
# measurements; QR (gesvd) beyond.
_GESVDJ_MAX_SIDE: Final = 1024
# gesvdj works in economy mode only when both sides exceed this: smaller
# matrices take its batched form, which has none.
_GESVDJ_BATCHED_SIDE: Final = 32


# --- custom calls -----------------------------------------------------------------------


def _matrix_layout(ndim: int) -> tuple[int, ...]:
    """Column-major matrices, batch axes major (minor-to-major order, as XLA writes layouts)."""
    return (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1))


def _char(c: str) -> ir.Attribute:
    """A LAPACK option letter, as the kernels read it (an unsigned byte)."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _flag(b: bool) -> ir.Attribute:
    """A cuSOLVER kernel's boolean option."""
    return ir.BoolAttr.get(b)


def _ffi_call(
    target: str,
    operands: Sequence[IrValue],
    in_avals: Sequence[ShapedArray],
    out_avals: Sequence[ShapedArray],
    *,
    config: dict[str, ir.Attribute],
    alias: tuple[int, int] | None = (0, 0),
    column_major: bool = True,
    non_batch_dims: int = 2,
) -> list[IrValue]:
    """One typed-FFI custom call to ``target``, laid out as JAX lays out its linear-algebra calls.

    The operands and results whose rank is the highest operand rank are the
    matrices: column major when ``column_major``, row major otherwise, as
    are the others (pivots, taus, eigenvalues, infos). The axes before the
    last ``non_batch_dims`` of that rank are batch axes. ``alias`` is
    (operand, result): the result overwrites the operand.
    """
    rank = max(a.ndim for a in in_avals)

    def layout(a: ShapedArray) -> tuple[int, ...]:
        return _matrix_layout(a.ndim) if column_major and a.ndim == rank else mlir.row_major(a.ndim)

    attributes: dict[str, ir.Attribute] = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(False),
        "backend_config": ir.StringAttr.get(""),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": mlir.layouts_attr([layout(a) for a in in_avals]),
        "result_layouts": mlir.layouts_attr([layout(a) for a in out_avals]),
    }
    if alias is not None:
        operand, result = alias
        attributes["output_operand_aliases"] = ir.ArrayAttr.get(
            [
                hlo.OutputOperandAlias.get(
                    output_tuple_indices=[result] if len(out_avals) > 1 else [],
                    operand_index=operand,
                    operand_tuple_indices=[],
                )
            ]
        )
    op = hlo.CustomCallOp.build_generic(
        results=[mlir.aval_to_ir_type(a) for a in out_avals],
        operands=list(operands),
        attributes=attributes,
    )
    # The typed FFI reads its attributes from this dictionary (JAX's way of
    # passing them with api_version 1).
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(config)
    # XLA's batch partitioner splits the call along these axes.
    op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(rank - non_batch_dims))}
    )
    return list(op.results)


def _solver_target(
    ctx: LoweringRuleContext, fn_base: str, dtype: np.dtype[Any], complex_lapack: str = ""
) -> str:
    """The target of the solver kernel ``fn_base`` ("getrf"...) on the rule's platform.

    LAPACK's on CPUs, for ``dtype`` (``complex_lapack`` names its complex
    variant where LAPACK has one: ``heevd`` for ``syevd``); cuSOLVER's on
    CUDA, one kernel for every dtype.
    """
    if ctx.platform == "cpu":
        name = complex_lapack if complex_lapack and dtypes.is_complex(dtype) else fn_base
        return lapack_target(f"{name}_ffi", dtype)
    return gpu_solver_target(ctx.platform, fn_base)


def _ok(info: IrValue, batch: tuple[int, ...], direction: str) -> IrValue:
    """Per matrix, whether the kernel's ``info`` compares to 0 by ``direction`` (success)."""
    return compare(info, mlir.full(ShapedArray(batch, _I32), 0), direction, _I32)


def _nan_unless(ok: IrValue, x: IrValue, aval: ShapedArray, num_batch: int) -> IrValue:
    """``x`` where its matrix (or vector) succeeded, NaNs (``nan + nan j``) elsewhere."""
    mask_type = mlir.aval_to_ir_type(ShapedArray(aval.shape, dtypes.bool_))
    mask = hlo.broadcast_in_dim(mask_type, ok, mlir.dense_i64(range(num_batch)))
    nan = complex(float("nan"), float("nan")) if dtypes.is_complex(aval.dtype) else float("nan")
    return hlo.select(mask, x, mlir.full(aval, nan))


# --- masks, slices, conjugates ----------------------------------------------------------------


def _triangle(x: IrValue, aval: ShapedArray, lower: bool, k: int = 0) -> IrValue:
    """``x`` with the entries above (``lower``) or below diagonal ``k`` zeroed."""
    m, n = aval.shape[-2:]
    nd = aval.ndim
    idx = ShapedArray((m, n), _I32)
    rows = hlo.iota(
        mlir.aval_to_ir_type(idx), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)
    )
    cols = hlo.iota(
        mlir.aval_to_ir_type(idx), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    )
    rows = hlo.add(rows, mlir.full(idx, k))
    keep = compare(rows, cols, "GE" if lower else "LE", _I32)
    mask_type = mlir.aval_to_ir_type(ShapedArray(aval.shape, dtypes.bool_))
    mask = hlo.broadcast_in_dim(mask_type, keep, mlir.dense_i64((nd - 2, nd - 1)))
    return hlo.select(mask, x, mlir.full(aval, 0))


def _slice(x: IrValue, aval: ShapedArray, rows: int, cols: int) -> tuple[IrValue, ShapedArray]:
    """The leading ``rows x cols`` block of each matrix."""
    nd = aval.ndim
    limits = (*aval.shape[:-2], rows, cols)
    out = hlo.slice(x, mlir.dense_i64([0] * nd), mlir.dense_i64(limits), mlir.dense_i64([1] * nd))
    return out, ShapedArray(limits, aval.dtype)


def _conj(x: IrValue, aval: ShapedArray) -> IrValue:
    """The complex conjugate (``x`` itself for the real dtypes)."""
    if not dtypes.is_complex(aval.dtype):
        return x
    return hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))


def _adjoint(x: IrValue, aval: ShapedArray) -> tuple[IrValue, ShapedArray]:
    """The conjugate transpose of each matrix."""
    nb = aval.ndim - 2
    *batch, m, n = aval.shape
    out = hlo.transpose(x, mlir.dense_i64((*range(nb), nb + 1, nb)))
    return _conj(out, aval), ShapedArray((*batch, n, m), aval.dtype)


# --- cholesky: StableHLO's op; potrf on CUDA ------------------------------------------------------


@LOWERING_RULES.defines(cholesky_p)
def _cholesky_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    nd = aval.ndim
    factor = _triangle(hlo.cholesky(x, lower=ir.BoolAttr.get(True)), aval, True)
    # A matrix that is not positive definite leaves NaNs in its factor: the
    # sum of the factor is NaN exactly then (infinities sum to infinities).
    scalar = ir.RankedTensorType.get((), mlir.aval_to_ir_type(aval).element_type)
    reduce = hlo.ReduceOp(
        [mlir.aval_to_ir_type(ShapedArray(batch, aval.dtype))],
        [factor],
        [mlir.full(ShapedArray((), aval.dtype), 0)],
        mlir.dense_i64((nd - 2, nd - 1)),
    )
    block = reduce.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    total = reduce.results[0]
    ok = compare(total, total, "EQ", aval.dtype)
    return [_triangle(_nan_unless(ok, factor, aval, len(batch)), aval, True)]


@LOWERING_RULES.defines(cholesky_p, platform="cuda")
def _cholesky_potrf_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    factor, info = _ffi_call(
        _solver_target(ctx, "potrf", aval.dtype),
        [x],
        [aval],
        [aval, ShapedArray(batch, _I32)],
        config={"lower": _flag(True)},
    )
    factor = _nan_unless(_ok(info, batch, "EQ"), factor, aval, len(batch))
    return [_triangle(factor, aval, True)]


# --- triangular_solve: StableHLO's op; trsm on CPUs -----------------------------------------------


def _triangular_op(
    a: IrValue, a_aval: ShapedArray, transpose_a: bool, conjugate_a: bool
) -> tuple[IrValue, str]:
    """``a`` and what the solve applies to it: ``"N"`` (itself), ``"T"`` or ``"C"`` (adjoint).

    Neither trsm nor StableHLO has a conjugate-without-transpose option:
    then ``a`` is conjugated first.
    """
    if not transpose_a:
        return (_conj(a, a_aval) if conjugate_a else a), "N"
    return a, "C" if conjugate_a else "T"


@LOWERING_RULES.defines(triangular_solve_p)
def _triangular_solve_lowering(
    ctx: LoweringRuleContext, a: IrValue, b: IrValue, **params: Unpack[TriangularSolveParams]
) -> list[IrValue]:
    a, op = _triangular_op(a, ctx.avals_in[0], params["transpose_a"], params["conjugate_a"])
    out = hlo.triangular_solve(
        a,
        b,
        ir.BoolAttr.get(params["left_side"]),
        ir.BoolAttr.get(params["lower"]),
        ir.BoolAttr.get(params["unit_diagonal"]),
        hlo.TransposeAttr.get({"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}[op]),
    )
    return [out]


@LOWERING_RULES.defines(triangular_solve_p, platform="cpu")
def _triangular_solve_trsm_lowering(
    ctx: LoweringRuleContext, a: IrValue, b: IrValue, **params: Unpack[TriangularSolveParams]
) -> list[IrValue]:
    # LAPACK's trsm, as JAX lowers it on CPUs (see the module docstring for why
    # not stablehlo.triangular_solve).
    a_aval, b_aval = ctx.avals_in
    a, trans = _triangular_op(a, a_aval, params["transpose_a"], params["conjugate_a"])
    (out,) = _ffi_call(
        lapack_target("trsm_ffi", a_aval.dtype),
        [a, b],
        [a_aval, b_aval],
        [b_aval],
        config={
            "side": _char("L" if params["left_side"] else "R"),
            "uplo": _char("L" if params["lower"] else "U"),
            "trans_x": _char(trans),
            "diag": _char("U" if params["unit_diagonal"] else "N"),
        },
        alias=(1, 0),
    )
    return [out]


# --- lu: getrf, and the permutation of its pivots -------------------------------------------------


def _pivots_to_permutation(pivots: IrValue, batch: tuple[int, ...], k: int, m: int) -> IrValue:
    """The permutation that the row swaps ``i <-> pivots[..., i]`` (in order) make of ``range(m)``.

    A ``stablehlo.while`` over ``i``: ``a = perm[i]``, ``b = perm[pivots[i]]``
    (a one-hot sum, as the pivot differs per matrix), then ``perm[i] = b``,
    ``perm[pivots[i]] = a``.
    """
    nb = len(batch)
    perm_aval = ShapedArray((*batch, m), _I32)
    perm_type = mlir.aval_to_ir_type(perm_aval)
    lanes = hlo.iota(perm_type, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), nb))
    counter = ShapedArray((), _I32)
    counter_type = mlir.aval_to_ir_type(counter)
    loop = hlo.WhileOp([counter_type, perm_type], [mlir.full(counter, 0), lanes])
    cond = loop.regions[0].blocks.append(counter_type, perm_type)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], mlir.full(counter, k), "LT", _I32)])
    body = loop.regions[1].blocks.append(counter_type, perm_type)
    with ir.InsertionPoint(body):
        i, perm = body.arguments
        zero = mlir.full(counter, 0)
        column = ShapedArray((*batch, 1), _I32)
        pivot = hlo.dynamic_slice(pivots, [zero] * nb + [i], mlir.dense_i64(column.shape))
        current = hlo.dynamic_slice(perm, [zero] * nb + [i], mlir.dense_i64(column.shape))
        every = mlir.dense_i64(range(nb + 1))
        at_pivot = compare(lanes, hlo.broadcast_in_dim(perm_type, pivot, every), "EQ", _I32)
        at_i = compare(lanes, hlo.broadcast_in_dim(perm_type, i, mlir.dense_i64(())), "EQ", _I32)
        zeros = mlir.full(perm_aval, 0)
        reduce = hlo.ReduceOp(
            [mlir.aval_to_ir_type(ShapedArray(batch, _I32))],
            [hlo.select(at_pivot, perm, zeros)],
            [mlir.full(counter, 0)],
            mlir.dense_i64((nb,)),
        )
        block = reduce.regions[0].blocks.append(counter_type, counter_type)
        with ir.InsertionPoint(block):
            hlo.return_([hlo.add(*block.arguments)])
        swapped = hlo.broadcast_in_dim(perm_type, reduce.results[0], mlir.dense_i64(range(nb)))
        moved = hlo.select(at_pivot, hlo.broadcast_in_dim(perm_type, current, every), perm)
        new_perm = hlo.select(at_i, swapped, moved)
        hlo.return_([hlo.add(i, mlir.full(counter, 1)), new_perm])
    perm_out: IrValue = loop.results[1]
    return perm_out


@LOWERING_RULES.defines(lu_p, platform="cpu")
@LOWERING_RULES.defines(lu_p, platform="cuda")
def _lu_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    k = min(m, n)
    if aval.size == 0:
        pivots = mlir.full(pivots_aval, 0)
        lanes = hlo.iota(
            mlir.aval_to_ir_type(perm_aval),
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(batch)),
        )
        return [x, pivots, lanes]
    info_aval = ShapedArray(batch, _I32)
    packed, pivots, info = _ffi_call(
        _solver_target(ctx, "getrf", aval.dtype),
        [x],
        [aval],
        [lu_aval, pivots_aval, info_aval],
        config={},
    )
    pivots = hlo.subtract(pivots, mlir.full(pivots_aval, 1))  # the kernels count from 1
    packed = _nan_unless(_ok(info, batch, "GE"), packed, lu_aval, len(batch))
    if ctx.platform == "cpu":
        perm = _pivots_to_permutation(pivots, batch, k, m)
    else:
        (perm,) = _ffi_call(
            gpu_linalg_target(ctx.platform, "lu_pivots_to_permutation"),
            [pivots],
            [pivots_aval],
            [perm_aval],
            config={},
            alias=None,
            column_major=False,
            non_batch_dims=1,
        )
    return [packed, pivots, perm]


# --- qr: geqrf, then orgqr ------------------------------------------------------------------------


@LOWERING_RULES.defines(qr_p, platform="cpu")
@LOWERING_RULES.defines(qr_p, platform="cuda")
def _qr_lowering(ctx: LoweringRuleContext, x: IrValue, *, full_matrices: bool) -> list[IrValue]:
    (aval,) = ctx.avals_in
    q_aval, r_aval = ctx.avals_out
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    nb = len(batch)
    k = min(m, n)
    if m == 0 or n == 0:
        qk = q_aval.shape[-1]
        eye = np.broadcast_to(np.eye(m, qk, dtype=aval.dtype), q_aval.shape)
        return [mlir.constant(np.ascontiguousarray(eye)), mlir.full(r_aval, 0)]
    taus_aval = ShapedArray((*batch, k), aval.dtype)
    r, taus = _ffi_call(
        _solver_target(ctx, "geqrf", aval.dtype),
        [x],
        [aval],
        [aval, taus_aval],
        config={},
    )
    orgqr = _solver_target(ctx, "orgqr", aval.dtype, complex_lapack="ungqr")

    def householder(a: IrValue, a_aval: ShapedArray) -> IrValue:
        (q,) = _ffi_call(orgqr, [a, taus], [a_aval, taus_aval], [a_aval], config={})
        return q

    if m < n:
        q = householder(*_slice(r, aval, m, m))
    elif full_matrices and m > n:
        padded_aval = ShapedArray((*batch, m, m), aval.dtype)
        padded = hlo.pad(
            r,
            mlir.full(ShapedArray((), aval.dtype), 0),
            mlir.dense_i64([0] * (nb + 2)),
            mlir.dense_i64([0] * (nb + 1) + [m - n]),
            mlir.dense_i64([0] * (nb + 2)),
        )
        q = householder(padded, padded_aval)
    else:
        q = householder(r, aval)
        r, _ = _slice(r, aval, n, n)
    return [q, _triangle(r, r_aval, lower=False)]


# --- eigh: syevd (LAPACK's heevd for the complex dtypes) ------------------------------------------


@LOWERING_RULES.defines(eigh_p, platform="cpu")
@LOWERING_RULES.defines(eigh_p, platform="cuda")
def _eigh_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, lower: bool, sort_eigenvalues: bool
) -> list[IrValue]:
    # syevd always sorts its eigenvalues (ascending), whatever sort_eigenvalues says.
    (aval,) = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    batch = aval.shape[:-2]
    if aval.size == 0:
        return [x, mlir.full(w_aval, 0)]
    if ctx.platform == "cpu":
        config = {"mode": _char("V"), "uplo": _char("L" if lower else "U")}
    else:
        # algorithm 0: cuSOLVER's own choice, JAX's when no algorithm is asked for.
        config = {
            "lower": _flag(lower),
            "algorithm": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), 0),
        }
    v, ev, info = _ffi_call(
        _solver_target(ctx, "syevd", aval.dtype, complex_lapack="heevd"),
        [x],
        [aval],
        [v_aval, w_aval, ShapedArray(batch, _I32)],
        config=config,
    )
    ok = _ok(info, batch, "EQ")
    return [_nan_unless(ok, v, v_aval, len(batch)), _nan_unless(ok, ev, w_aval, len(batch))]


# --- svd: gesdd on CPUs; gesvdj or gesvd on CUDA --------------------------------------------------


def _gesdd(
    ctx: LoweringRuleContext, x: IrValue, *, full_matrices: bool, compute_uv: bool
) -> tuple[IrValue, IrValue, IrValue, IrValue]:
    """LAPACK's divide and conquer: ``(s, u, vt, info)`` (``u``, ``vt`` only when asked for)."""
    (aval,) = ctx.avals_in
    s_aval = ctx.avals_out[0]
    *batch, m, n = aval.shape
    k = min(m, n)
    u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    _, s, u, vt, info = _ffi_call(
        lapack_target("gesdd_ffi", aval.dtype),
        [x],
        [aval],
        [aval, s_aval, u_aval, vt_aval, ShapedArray(tuple(batch), _I32)],
        config={"mode": _char(mode)},
    )
    return s, u, vt, info


def _gpu_svd(
    ctx: LoweringRuleContext, x: IrValue, *, full_matrices: bool, compute_uv: bool
) -> tuple[IrValue, IrValue, IrValue, IrValue]:
    """cuSOLVER's Jacobi (gesvdj) or QR (gesvd) SVD, chosen as JAX chooses: ``(s, u, vt, info)``."""
    (aval,) = ctx.avals_in
    s_aval = ctx.avals_out[0]
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    k = min(m, n)
    info_aval = ShapedArray(batch, _I32)
    if m <= _GESVDJ_MAX_SIDE and n <= _GESVDJ_MAX_SIDE:
        econ = not full_matrices and m > _GESVDJ_BATCHED_SIDE and n > _GESVDJ_BATCHED_SIDE
        u_aval = ShapedArray((*batch, m, k if econ else m), aval.dtype)
        v_aval = ShapedArray((*batch, n, k if econ else n), aval.dtype)
        _, s, u, v, info = _ffi_call(
            gpu_solver_target(ctx.platform, "gesvdj"),
            [x],
            [aval],
            [aval, s_aval, u_aval, v_aval, info_aval],
            config={"full_matrices": _flag(not econ), "compute_uv": _flag(compute_uv)},
        )
        if not compute_uv:
            return s, u, v, info
        vt, vt_aval = _adjoint(v, v_aval)
        if not full_matrices and not econ:
            u, _ = _slice(u, u_aval, m, k)
            vt, _ = _slice(vt, vt_aval, k, n)
        return s, u, vt, info
    # Without compute_uv, gesvd's U and V^H results are placeholders (rank 0).
    scalar = ShapedArray((), aval.dtype)
    _, u_out, vt_out = ctx.avals_out if compute_uv else (s_aval, scalar, scalar)
    # A wide matrix's transpose, read column major, is the row-major matrix
    # as it lies: gesvd factors that, and its U and V^H come swapped.
    transposed = m < n
    _, s, first, second, info = _ffi_call(
        gpu_solver_target(ctx.platform, "gesvd"),
        [x],
        [aval],
        [aval, s_aval, *((vt_out, u_out) if transposed else (u_out, vt_out)), info_aval],
        config={
            "full_matrices": _flag(full_matrices),
            "compute_uv": _flag(compute_uv),
            "transposed": _flag(transposed),
        },
        column_major=not transposed,
    )
    u, vt = (second, first) if transposed else (first, second)
    return s, u, vt, info


@LOWERING_RULES.defines(svd_p, platform="cpu")
@LOWERING_RULES.defines(svd_p, platform="cuda")
def _svd_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, full_matrices: bool, compute_uv: bool
) -> list[IrValue]:
    (aval,) = ctx.avals_in
    s_aval = ctx.avals_out[0]
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    nb = len(batch)
    k = min(m, n)
    if k == 0:
        outs = [mlir.full(s_aval, 0)]
        if compute_uv:
            for a in ctx.avals_out[1:]:
                eye = np.broadcast_to(np.eye(*a.shape[-2:], dtype=a.dtype), a.shape)
                outs.append(mlir.constant(np.ascontiguousarray(eye)))
        return outs
    kernel = _gesdd if ctx.platform == "cpu" else _gpu_svd
    s, u, vt, info = kernel(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)
    ok = _ok(info, batch, "EQ")
    outs = [_nan_unless(ok, s, s_aval, nb)]
    if compute_uv:
        _, u_aval, vt_aval = ctx.avals_out
        outs += [_nan_unless(ok, u, u_aval, nb), _nan_unless(ok, vt, vt_aval, nb)]
    return outs
