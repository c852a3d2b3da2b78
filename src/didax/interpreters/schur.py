"""The interpreters' rules for the Schur and Hessenberg primitives (``core.lax.schur``).

Batching and flops rules; the lowering (LAPACK's kernels, which eager
evaluation runs as one compiled equation each) is in ``lowering.schur``.

Design rules:
- No jvp (hence no transpose) rules, as in JAX, which defines no
  derivative for these primitives: ``jvp`` (``grad``...) of one raises the
  jvp interpreter's ``NotImplementedError`` naming the primitive, as
  ``jax.jvp`` of JAX's raises its "Differentiation rule ... not
  implemented".
- Batching: every operand's batched axis moves to the front (an unbatched
  ``taus`` or ``a`` is broadcast) and the same primitive is bound, since
  each takes any leading batch axes (``interpreters.linalg``'s batcher).
- Flops are LAPACK's usual operation counts per matrix, times the number
  of matrices: about ``10 n^3`` for the real Schur form (``25 n^3`` with
  the vectors: Golub and Van Loan's count for the Francis QR iteration),
  ``10 n^3 / 3`` for the Hessenberg reduction and ``2 m n k - (m + n) k^2
  + 2 k^3 / 3`` for forming ``k`` reflectors into an ``m x n`` matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

from didax.core.abstract import ShapedArray
from didax.core.lax.schur import hessenberg_p, householder_product_p, schur_p
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.linalg import _count, _front_batcher

__all__: list[str] = []

for _p in (schur_p, hessenberg_p, householder_product_p):
    _front_batcher(_p)


@FLOPS_RULES.defines(schur_p)
def _schur_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    compute_schur_vectors: bool,
    **_: object,
) -> Cost:
    aval = operands[0].aval
    per = (25 if compute_schur_vectors else 10) * aval.shape[-1] ** 3
    return Cost(_count(aval) * per)


@FLOPS_RULES.defines(hessenberg_p)
def _hessenberg_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /) -> Cost:
    aval = operands[0].aval
    return Cost(_count(aval) * 10 * aval.shape[-1] ** 3 // 3)


@FLOPS_RULES.defines(householder_product_p)
def _householder_product_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /
) -> Cost:
    a, taus = operands[0].aval, operands[1].aval
    m, n = a.shape[-2:]
    k = taus.shape[-1]
    return Cost(_count(a) * (2 * m * n * k - (m + n) * k * k + 2 * k**3 // 3))
