"""The StableHLO lowering of the linear-algebra primitives (``core.lax.linalg``).

``cholesky`` is StableHLO's own op (XLA expands it); ``triangular_solve``,
``lu``, ``qr``, ``eigh`` and ``svd`` are custom calls to the LAPACK kernels
that jaxlib registers with XLA for CPUs (``trsm``, ``getrf``, ``geqrf`` +
``orgqr``, ``syevd``, ``gesdd``; for the complex dtypes ``ungqr`` in place
of ``orgqr`` and ``heevd`` of ``syevd``, with LAPACK's ``c``/``z``
prefixes), exactly as JAX lowers them there: typed
FFI calls whose attributes are a ``mhlo.backend_config`` dictionary of
LAPACK's one-letter options, whose matrices are column major (layout
``(n-2, n-1, n-3, ..., 0)``) and whose first operand is overwritten by
the first result. Never a host callback.

``triangular_solve`` was first lowered to ``stablehlo.triangular_solve``;
XLA's CPU expansion of it made a jitted 256x256 ``solve`` 3.4 times as
slow as JAX's (``bench/bench_linalg.py``) and, on a singular matrix, gave
NaN where JAX's ``trsm`` gives inf. With ``trsm`` both match JAX.

Design rules:
- Failure is JAX's: the kernels' ``info`` result says, per matrix, whether
  the decomposition succeeded; where it did not, the results are NaN
  (``lu`` only fails on invalid arguments: a singular matrix is a valid LU
  whose U has a zero on its diagonal, and it gives ``inf`` downstream).
  A failed complex result is ``nan + nan j``, as JAX's.
  ``stablehlo.cholesky`` gives NaNs somewhere in a matrix that is not
  positive definite; the lowering fills that whole matrix with NaNs, as
  JAX's ``potrf`` path does, then zeroes the upper triangle (as JAX's
  does, after its NaN fill).
- ``lu``'s permutation is computed from the pivots in the program (a
  ``stablehlo.while`` applying the row swaps), as JAX's
  ``lu_pivots_to_permutation``.
- These primitives have no impl rule: eager evaluation runs each as a
  one-equation program through XLA (its compiled route, see
  ``interpreters.evaluation``), as the higher-order primitives do: the
  LAPACK kernels are XLA's to call, so eager values equal jitted ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.linalg import (
    cholesky_p,
    eigh_p,
    lu_p,
    qr_p,
    svd_p,
    triangular_solve_p,
)
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
    dense_i64,
    full,
)
from didax.lowering.rules import compare
from didax.lowering.xla import lapack_target

__all__: list[str] = []

_I32: Final = dtypes.int32


# --- custom calls -----------------------------------------------------------------------


def _matrix_layout(ndim: int) -> tuple[int, ...]:
    """Column-major matrices, batch axes major (minor-to-major order, as XLA writes layouts)."""
    return (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1))


def _row_major(ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim - 1, -1, -1))


def _layouts(layouts: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get(
        [
            ir.DenseIntElementsAttr.get(  # type: ignore[call-overload]
                np.asarray(list(lay), np.int64), type=ir.IndexType.get()
            )
            for lay in layouts
        ]
    )


def _char(c: str) -> ir.Attribute:
    """A LAPACK option letter, as the kernels read it (an unsigned byte)."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _lapack_call(
    target: str,
    operands: Sequence[IrValue],
    in_avals: Sequence[ShapedArray],
    out_avals: Sequence[ShapedArray],
    *,
    matrices_out: Sequence[bool],
    config: dict[str, ir.Attribute],
    num_batch: int,
    alias: tuple[int, int] | None = (0, 0),
) -> list[IrValue]:
    """One typed-FFI custom call to ``target``; ``matrices_out`` says which results are matrices."""
    in_layouts = [
        _matrix_layout(a.ndim) if a.ndim == num_batch + 2 else _row_major(a.ndim) for a in in_avals
    ]
    out_layouts = [
        _matrix_layout(a.ndim) if is_matrix else _row_major(a.ndim)
        for a, is_matrix in zip(out_avals, matrices_out, strict=True)
    ]
    attributes: dict[str, ir.Attribute] = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(False),
        "backend_config": ir.StringAttr.get(""),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": _layouts(in_layouts),
        "result_layouts": _layouts(out_layouts),
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
        results=[aval_to_ir_type(a) for a in out_avals],
        operands=list(operands),
        attributes=attributes,
    )
    # The typed FFI reads its attributes from this dictionary (JAX's way of
    # passing them with api_version 1).
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(config)
    op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(num_batch))}
    )
    return list(op.results)


def _ok(info: IrValue, batch: tuple[int, ...], direction: str) -> IrValue:
    """Per matrix, whether LAPACK's ``info`` compares to 0 by ``direction`` (success)."""
    return compare(info, full(ShapedArray(batch, _I32), 0), direction, _I32)


def _nan_unless(ok: IrValue, x: IrValue, aval: ShapedArray, num_batch: int) -> IrValue:
    """``x`` where its matrix (or vector) succeeded, NaNs (``nan + nan j``) elsewhere."""
    mask_type = aval_to_ir_type(ShapedArray(aval.shape, dtypes.bool_))
    mask = hlo.broadcast_in_dim(mask_type, ok, dense_i64(range(num_batch)))
    nan = complex(float("nan"), float("nan")) if dtypes.is_complex(aval.dtype) else float("nan")
    return hlo.select(mask, x, full(aval, nan))


# --- masks and slices --------------------------------------------------------------------------


def _triangle(x: IrValue, aval: ShapedArray, lower: bool, k: int = 0) -> IrValue:
    """``x`` with the entries above (``lower``) or below diagonal ``k`` zeroed."""
    m, n = aval.shape[-2:]
    nd = aval.ndim
    idx = ShapedArray((m, n), _I32)
    rows = hlo.iota(aval_to_ir_type(idx), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
    cols = hlo.iota(aval_to_ir_type(idx), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
    rows = hlo.add(rows, full(idx, k))
    keep = compare(rows, cols, "GE" if lower else "LE", _I32)
    mask_type = aval_to_ir_type(ShapedArray(aval.shape, dtypes.bool_))
    mask = hlo.broadcast_in_dim(mask_type, keep, dense_i64((nd - 2, nd - 1)))
    return hlo.select(mask, x, full(aval, 0))


def _slice(x: IrValue, aval: ShapedArray, rows: int, cols: int) -> tuple[IrValue, ShapedArray]:
    """The leading ``rows x cols`` block of each matrix."""
    nd = aval.ndim
    limits = (*aval.shape[:-2], rows, cols)
    out = hlo.slice(x, dense_i64([0] * nd), dense_i64(limits), dense_i64([1] * nd))
    return out, ShapedArray(limits, aval.dtype)


# --- cholesky and triangular_solve: StableHLO's ops -----------------------------------------------


@LOWERING_RULES.defines(cholesky_p)
def _cholesky_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    nd = aval.ndim
    factor = _triangle(hlo.cholesky(x, lower=ir.BoolAttr.get(True)), aval, True)
    # A matrix that is not positive definite leaves NaNs in its factor: the
    # sum of the factor is NaN exactly then (infinities sum to infinities).
    scalar = ir.RankedTensorType.get((), aval_to_ir_type(aval).element_type)
    reduce = hlo.ReduceOp(
        [aval_to_ir_type(ShapedArray(batch, aval.dtype))],
        [factor],
        [full(ShapedArray((), aval.dtype), 0)],
        dense_i64((nd - 2, nd - 1)),
    )
    block = reduce.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    total = reduce.results[0]
    ok = compare(total, total, "EQ", aval.dtype)
    return [_triangle(_nan_unless(ok, factor, aval, len(batch)), aval, True)]


@LOWERING_RULES.defines(triangular_solve_p)
def _triangular_solve_lowering(
    ctx: LoweringRuleContext,
    a: IrValue,
    b: IrValue,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[IrValue]:
    # LAPACK's trsm, as JAX lowers it on CPUs (see the module docstring for why
    # not stablehlo.triangular_solve). conjugate_a without transpose_a
    # conjugates a first (trsm has no such option; nothing to do for the
    # real dtypes); with it, the op is the adjoint ("C").
    a_aval, b_aval = ctx.avals_in
    if conjugate_a and not transpose_a:
        if dtypes.is_complex(a_aval.dtype):
            a = hlo.complex(hlo.real(a), hlo.negate(hlo.imag(a)))
        conjugate_a = False
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    (out,) = _lapack_call(
        lapack_target("trsm_ffi", a_aval.dtype),
        [a, b],
        [a_aval, b_aval],
        [b_aval],
        matrices_out=[True],
        config={
            "side": _char("L" if left_side else "R"),
            "uplo": _char("L" if lower else "U"),
            "trans_x": _char(trans),
            "diag": _char("U" if unit_diagonal else "N"),
        },
        num_batch=b_aval.ndim - 2,
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
    perm_type = aval_to_ir_type(perm_aval)
    lanes = hlo.iota(perm_type, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), nb))
    counter = ShapedArray((), _I32)
    counter_type = aval_to_ir_type(counter)
    loop = hlo.WhileOp([counter_type, perm_type], [full(counter, 0), lanes])
    cond = loop.regions[0].blocks.append(counter_type, perm_type)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], full(counter, k), "LT", _I32)])
    body = loop.regions[1].blocks.append(counter_type, perm_type)
    with ir.InsertionPoint(body):
        i, perm = body.arguments
        zero = full(counter, 0)
        column = ShapedArray((*batch, 1), _I32)
        pivot = hlo.dynamic_slice(pivots, [zero] * nb + [i], dense_i64(column.shape))
        current = hlo.dynamic_slice(perm, [zero] * nb + [i], dense_i64(column.shape))
        every = dense_i64(range(nb + 1))
        at_pivot = compare(lanes, hlo.broadcast_in_dim(perm_type, pivot, every), "EQ", _I32)
        at_i = compare(lanes, hlo.broadcast_in_dim(perm_type, i, dense_i64(())), "EQ", _I32)
        zeros = full(perm_aval, 0)
        reduce = hlo.ReduceOp(
            [aval_to_ir_type(ShapedArray(batch, _I32))],
            [hlo.select(at_pivot, perm, zeros)],
            [full(counter, 0)],
            dense_i64((nb,)),
        )
        block = reduce.regions[0].blocks.append(counter_type, counter_type)
        with ir.InsertionPoint(block):
            hlo.return_([hlo.add(*block.arguments)])
        swapped = hlo.broadcast_in_dim(perm_type, reduce.results[0], dense_i64(range(nb)))
        moved = hlo.select(at_pivot, hlo.broadcast_in_dim(perm_type, current, every), perm)
        new_perm = hlo.select(at_i, swapped, moved)
        hlo.return_([hlo.add(i, full(counter, 1)), new_perm])
    perm_out: IrValue = loop.results[1]
    return perm_out


@LOWERING_RULES.defines(lu_p)
def _lu_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    k = min(m, n)
    if aval.size == 0:
        pivots = full(pivots_aval, 0)
        lanes = hlo.iota(
            aval_to_ir_type(perm_aval),
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(batch)),
        )
        return [x, pivots, lanes]
    info_aval = ShapedArray(batch, _I32)
    packed, pivots, info = _lapack_call(
        lapack_target("getrf_ffi", aval.dtype),
        [x],
        [aval],
        [lu_aval, pivots_aval, info_aval],
        matrices_out=[True, False, False],
        config={},
        num_batch=len(batch),
    )
    pivots = hlo.subtract(pivots, full(pivots_aval, 1))  # LAPACK counts from 1
    packed = _nan_unless(_ok(info, batch, "GE"), packed, lu_aval, len(batch))
    return [packed, pivots, _pivots_to_permutation(pivots, batch, k, m)]


# --- qr: geqrf, then orgqr ------------------------------------------------------------------------


@LOWERING_RULES.defines(qr_p)
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
        return [constant(np.ascontiguousarray(eye)), full(r_aval, 0)]
    taus_aval = ShapedArray((*batch, k), aval.dtype)
    r, taus = _lapack_call(
        lapack_target("geqrf_ffi", aval.dtype),
        [x],
        [aval],
        [aval, taus_aval],
        matrices_out=[True, False],
        config={},
        num_batch=nb,
    )
    orgqr = lapack_target("ungqr_ffi" if dtypes.is_complex(aval.dtype) else "orgqr_ffi", aval.dtype)

    def householder(a: IrValue, a_aval: ShapedArray) -> IrValue:
        (q,) = _lapack_call(
            orgqr,
            [a, taus],
            [a_aval, taus_aval],
            [a_aval],
            matrices_out=[True],
            config={},
            num_batch=nb,
        )
        return q

    if m < n:
        q = householder(*_slice(r, aval, m, m))
    elif full_matrices and m > n:
        padded_aval = ShapedArray((*batch, m, m), aval.dtype)
        padded = hlo.pad(
            r,
            full(ShapedArray((), aval.dtype), 0),
            dense_i64([0] * (nb + 2)),
            dense_i64([0] * (nb + 1) + [m - n]),
            dense_i64([0] * (nb + 2)),
        )
        q = householder(padded, padded_aval)
    else:
        q = householder(r, aval)
        r, _ = _slice(r, aval, n, n)
    return [q, _triangle(r, r_aval, lower=False)]


# --- eigh: syevd (heevd for the complex dtypes) ---------------------------------------------------


@LOWERING_RULES.defines(eigh_p)
def _eigh_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, lower: bool, sort_eigenvalues: bool
) -> list[IrValue]:
    # syevd always sorts its eigenvalues (ascending), whatever sort_eigenvalues says.
    (aval,) = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    batch = aval.shape[:-2]
    if aval.size == 0:
        return [x, full(w_aval, 0)]
    v, ev, info = _lapack_call(
        lapack_target("heevd_ffi" if dtypes.is_complex(aval.dtype) else "syevd_ffi", aval.dtype),
        [x],
        [aval],
        [v_aval, w_aval, ShapedArray(batch, _I32)],
        matrices_out=[True, False, False],
        config={"mode": _char("V"), "uplo": _char("L" if lower else "U")},
        num_batch=len(batch),
    )
    ok = _ok(info, batch, "EQ")
    return [_nan_unless(ok, v, v_aval, len(batch)), _nan_unless(ok, ev, w_aval, len(batch))]


# --- svd: gesdd ----------------------------------------------------------------------------


@LOWERING_RULES.defines(svd_p)
def _svd_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, full_matrices: bool, compute_uv: bool
) -> list[IrValue]:
    (aval,) = ctx.avals_in
    s_aval = ctx.avals_out[0]
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    nb = len(batch)
    k = min(m, n)
    u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    if k == 0:
        outs = [full(s_aval, 0)]
        if compute_uv:
            for a in (u_aval, vt_aval):
                eye = np.broadcast_to(np.eye(*a.shape[-2:], dtype=a.dtype), a.shape)
                outs.append(constant(np.ascontiguousarray(eye)))
        return outs
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    _, s, u, vt, info = _lapack_call(
        lapack_target("gesdd_ffi", aval.dtype),
        [x],
        [aval],
        [aval, s_aval, u_aval, vt_aval, ShapedArray(batch, _I32)],
        matrices_out=[True, False, True, True, False],
        config={"mode": _char(mode)},
        num_batch=nb,
    )
    ok = _ok(info, batch, "EQ")
    outs = [_nan_unless(ok, s, s_aval, nb)]
    if compute_uv:
        outs += [_nan_unless(ok, u, u_aval, nb), _nan_unless(ok, vt, vt_aval, nb)]
    return outs
