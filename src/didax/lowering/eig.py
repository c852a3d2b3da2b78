"""The StableHLO lowering of ``eig`` (``core.lax.eig``): LAPACK's ``geev`` on CPUs.

The rule calls jaxlib's typed-FFI LAPACK kernel ``lapack_?geev_ffi``, laid
out as JAX lays it out (``_eig_cpu_lowering``), through ``lowering.linalg``'s
custom-call helpers: the operand is a column-major matrix (not overwritten:
geev works on a copy), and the results are the eigenvalues (for a real
operand, their real and imaginary parts, which the rule joins with
``stablehlo.complex``), the left and right eigenvectors (complex,
column major; LAPACK's packed real pairs already unpacked by the kernel)
and ``info``. The options ``compute_left`` and ``compute_right`` are
jaxlib's ``eig.ComputationMode`` values, whose numbers are LAPACK's
option letters (``"V"``, ``"N"``). Eigenvectors not asked for are not
computed and their results dropped.

Design rules:
- Failure is JAX's: where ``info`` is not 0 (QR iterations that did not
  converge) that matrix's results are ``nan + nan j``.
- CPUs only. On CUDA JAX picks among cuSOLVER's ``geev`` (by the library's
  version and whether left eigenvectors are asked for), MAGMA, and a hybrid
  kernel running LAPACK on the host; none is compared with JAX's here, so
  lowering ``eig`` for a GPU fails with the table's error naming the
  primitive and the platform (as JAX fails on platforms without a rule).
- Empty batches and 0x0 matrices give empty results without a kernel call.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.eig import eig_p
from didax.lowering import mlir
from didax.lowering.kernel_targets import lapack_target
from didax.lowering.linalg import _char, _ffi_call, _nan_unless, _ok
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext

__all__: list[str] = []


@LOWERING_RULES.defines(eig_p, platform="cpu")
def _eig_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> list[IrValue]:
    (aval,) = ctx.avals_in
    if aval.size == 0:
        return [mlir.full(a, 0) for a in ctx.avals_out]
    w_aval = ctx.avals_out[0]
    batch = aval.shape[:-2]
    vectors_aval = ShapedArray(aval.shape, w_aval.dtype)
    # A real operand's eigenvalues come as two real arrays (real, imaginary parts).
    parts = 1 if dtypes.is_complex(aval.dtype) else 2
    w_parts_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    *w_parts, vl, vr, info = _ffi_call(
        lapack_target("geev_ffi", aval.dtype),
        [x],
        [aval],
        [*[w_parts_aval] * parts, vectors_aval, vectors_aval, ShapedArray(batch, dtypes.int32)],
        config={
            "compute_left": _char("V" if compute_left_eigenvectors else "N"),
            "compute_right": _char("V" if compute_right_eigenvectors else "N"),
        },
        alias=None,
    )
    w = hlo.complex(*w_parts) if parts == 2 else w_parts[0]
    ok = _ok(info, batch, "EQ")
    outs = [w]
    if compute_left_eigenvectors:
        outs.append(vl)
    if compute_right_eigenvectors:
        outs.append(vr)
    return [_nan_unless(ok, v, a, len(batch)) for v, a in zip(outs, ctx.avals_out, strict=True)]
