"""The StableHLO lowering of the Schur and Hessenberg primitives (``core.lax.schur``).

Typed FFI custom calls to the LAPACK kernels jaxlib registers, laid out
and checked as ``lowering.linalg``'s (whose helpers these rules use):

- ``schur``: ``gees`` (``lapack_?gees_ffi``), options ``mode`` (``"V"``
  with Schur vectors, ``"N"`` without) and ``sort`` (``"N"``); its results
  are the Schur form, the vectors, the eigenvalues (real and imaginary parts
  for the real dtypes), the count of sorted eigenvalues and ``info``.
- ``hessenberg``: ``gehrd`` (``lapack_?gehrd_ffi``) over the whole matrix
  (``low = 1``, ``high = n``), results the packed matrix, the taus and
  ``info``.
- ``householder_product``: ``orgqr`` (``ungqr`` for the complex dtypes) on
  CPUs, cuSOLVER's ``orgqr`` on CUDA, as JAX's (and as ``qr``'s lowering
  forms its ``q``).

Design rules:
- As in JAX, ``schur`` and ``hessenberg`` lower on CPUs only: on another
  platform lowering raises ``NotImplementedError`` naming the primitive
  and the platform (``LOWERING_RULES`` has no rule for it there), before
  anything runs.
- Failure is JAX's: where ``info`` is not 0 the matrix's results are NaN.
- No impl rule: eager evaluation runs each as a one-equation program through
  XLA, as the other LAPACK primitives (``lowering.linalg``).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from jaxlib.mlir import ir

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.schur import hessenberg_p, householder_product_p, schur_p
from didax.lowering import mlir
from didax.lowering.kernel_targets import lapack_target
from didax.lowering.linalg import _char, _ffi_call, _nan_unless, _ok, _solver_target
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext

__all__: list[str] = []

_I32: Final = dtypes.int32


def _i32(v: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)


@LOWERING_RULES.defines(schur_p, platform="cpu")
def _schur_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    *,
    compute_schur_vectors: bool,
    sort_eig_vals: bool,
    select_callable: None,
) -> list[IrValue]:
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    if aval.size == 0:
        return [x, x] if compute_schur_vectors else [x]
    info_aval = ShapedArray(batch, _I32)
    eig_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    # The real kernels give the eigenvalues' real and imaginary parts apart.
    eigs = [eig_aval] if dtypes.is_complex(aval.dtype) else [eig_aval, eig_aval]
    t, z, *_, info = _ffi_call(
        lapack_target("gees_ffi", aval.dtype),
        [x],
        [aval],
        [aval, aval, *eigs, info_aval, info_aval],
        config={
            "mode": _char("V" if compute_schur_vectors else "N"),
            "sort": _char("S" if sort_eig_vals else "N"),
        },
    )
    ok = _ok(info, batch, "EQ")
    outs = [_nan_unless(ok, t, aval, len(batch))]
    if compute_schur_vectors:
        outs.append(_nan_unless(ok, z, aval, len(batch)))
    return outs


@LOWERING_RULES.defines(hessenberg_p, platform="cpu")
def _hessenberg_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    _, taus_aval = ctx.avals_out
    batch = aval.shape[:-2]
    n = aval.shape[-1]
    if n == 0:
        return [x, mlir.full(taus_aval, 0)]
    packed, taus, info = _ffi_call(
        lapack_target("gehrd_ffi", aval.dtype),
        [x],
        [aval],
        [aval, taus_aval, ShapedArray(batch, _I32)],
        config={"low": _i32(1), "high": _i32(n)},
    )
    ok = _ok(info, batch, "EQ")
    return [_nan_unless(ok, packed, aval, len(batch)), _nan_unless(ok, taus, taus_aval, len(batch))]


@LOWERING_RULES.defines(householder_product_p, platform="cpu")
@LOWERING_RULES.defines(householder_product_p, platform="cuda")
def _householder_product_lowering(
    ctx: LoweringRuleContext, a: IrValue, taus: IrValue
) -> list[IrValue]:
    a_aval, taus_aval = ctx.avals_in
    if a_aval.size == 0:
        eye = np.broadcast_to(np.eye(*a_aval.shape[-2:], dtype=a_aval.dtype), a_aval.shape)
        return [mlir.constant(np.ascontiguousarray(eye))]
    (q,) = _ffi_call(
        _solver_target(ctx, "orgqr", a_aval.dtype, complex_lapack="ungqr"),
        [a, taus],
        [a_aval, taus_aval],
        [a_aval],
        config={},
    )
    return [q]
