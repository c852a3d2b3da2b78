"""The interpreters' rules for ``random_gamma_p`` (``core.lax.random_gamma``): JAX's rules.

Design rules:
- No impl rule: the samples are the rejection loop's values as XLA
  computes them, so eager evaluation runs the compiled program (bit for
  bit JAX's, which lowers the loop the same way).
- Batching is JAX's ``_gamma_batching_rule``: the batch axis is moved to
  the front of the keys and of ``a`` (an unbatched key is broadcast), and
  the primitive is bound again, so each batch element draws from its own
  key exactly as an unbatched call with that key would.
- The jvp is implicit reparameterisation, as JAX's: a sample ``x`` of
  ``Gamma(a, 1)`` moves with ``a`` as ``dx/da = random_gamma_grad(a, x)``
  (the derivative of the inverse CDF at fixed quantile). In log space the
  sample is ``log x``, whose derivative is ``dx/da / x``, with ``x``
  clamped to the smallest normal float where ``exp(log x)`` underflows.
  The keys' tangents are zero (they are integers). JAX maps
  ``random_gamma_grad`` over the elements one at a time on CPUs (and
  vectorises it on GPUs); here it is one vectorised call everywhere. The
  values agree to the bit in float64; in float32 XLA's scalar and vector
  code differ by an ulp now and then (as JAX's own map and vmap do).
- Flops: a rejection loop's trip count depends on the draws; the rule
  counts one pass of the loop body per element and says it is estimated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax import special
from didax.core.lax.random_gamma import random_gamma_p
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero
from didax.interpreters.special_series import finfo

__all__: list[str] = []


@BATCH_RULES.defines(random_gamma_p)
def _random_gamma_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, log_space: bool
) -> tuple[Any, Any]:
    keys = bdim_at_front(args[0], dims[0], axis_size)
    a = bdim_at_front(args[1], dims[1], axis_size)
    return random_gamma_p.bind(keys, a, log_space=log_space), 0


def gamma_grad(sample: Value, a: Value, log_space: bool) -> Value:
    """d sample / d a for samples of ``Gamma(a, 1)`` (their logarithms if ``log_space``)."""
    if not log_space:
        return special.random_gamma_grad(a, sample)
    x = lax.exp(sample)
    tiny = lax.full_like(x, finfo(get_aval(x).dtype, "tiny"))
    x = lax.select(lax.eq(x, lax.full_like(x, 0)), tiny, x)
    return lax.div(special.random_gamma_grad(a, x), x)


@JVP_RULES.defines(random_gamma_p)
def _random_gamma_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, log_space: bool
) -> tuple[Any, Any]:
    key, a = primals
    out = random_gamma_p.bind(key, a, log_space=log_space)
    if isinstance(tangents[1], Zero):
        return out, Zero.like(get_aval(out))
    return out, lax.mul(tangents[1], gamma_grad(out, a, log_space))


# Per element and pass of the loop body: the Threefry hashes of three key
# splits and two draws (about 120 integer operations each), and the test.
_FLOPS_PER_ELEMENT = 5 * 120 + 30
_TRANSCENDENTALS_PER_ELEMENT = 6


@FLOPS_RULES.defines(random_gamma_p)
def _random_gamma_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    n = out_avals[0].size
    return Cost(_FLOPS_PER_ELEMENT * n, _TRANSCENDENTALS_PER_ELEMENT * n, estimated=True)
