"""The interpreters' rules for the special element-wise primitives (``core.lax.special``).

Impl, jvp, batching and flops rules, registered in each interpreter's
table; the lowerings are in ``lowering.special``.

Design rules:
- Impls give JAX's numbers. The functions JAX lowers to ``chlo`` ops
  that XLA expands with its own algorithms (``erf``, ``erfc``, ``erf_inv``,
  ``lgamma``, ``digamma``, ``polygamma``, ``sinh``, ``cosh``, ``asin``,
  ``acos``, ``atan``, ``asinh``, ``acosh``, ``atanh``) are defined by those
  algorithms: NumPy has no ``erf``, and its ``sinh`` or ``arctan`` differ
  from XLA's by up to 10 ulps. So they have no impl rule: eager
  evaluation runs them by its compiled route (one-primitive programs,
  compiled once per operand type; see ``interpreters.evaluation``), and
  eager values equal jitted ones and JAX's, bit for bit
  (``random.normal`` depends on ``erf_inv`` exactly). The
  others are NumPy's ufuncs, as ``sin`` and ``tanh`` are: ``arctan2``
  (within an ulp of XLA's), ``isfinite``, ``nextafter`` (exact; XLA's
  differs only in flushing subnormal operands to zero), and ``exp2`` with
  JAX's formula ``exp(log(2) * x)`` rather than ``np.exp2``, so that
  ``exp2(0.5)`` rounds as JAX's does.
- Jvp rules are JAX's formulas (``d erf_inv = sqrt(pi)/2 * exp(erf_inv(x)**2)``,
  ``d digamma = polygamma(1, x)``); constants are weak Python scalars that
  take the operand's dtype. ``is_finite`` has a zero (``float0``) tangent,
  as a comparison. ``polygamma`` is differentiable in ``x`` only,
  ``betainc`` in ``x`` only (its rule for ``a`` and ``b`` raises, as
  JAX's), and ``nextafter``, ``zeta`` and ``igamma_grad_a`` not at all
  (no rule), as in JAX. ``igamma``'s derivative in ``a`` is
  ``igamma_grad_a``; ``random_gamma_grad``'s jvp differentiates the lax
  operations that compute it (``interpreters.special_series``), as JAX's,
  which is those operations.
- Batching is the generic element-wise rule of ``interpreters.batching``.
- Flops follow XLA's CPU cost analysis of the compiled programs (most of
  these lower to a ``chlo`` op that XLA expands into elementary ops), per
  element: ``FLOPS_PER_ELEMENT`` holds ``(flops, transcendentals)`` for
  float32 and for float64 (``erfc`` and ``erf_inv`` expand differently
  there); 16-bit floats count as float32 (XLA's CPU compiler adds
  conversions around them, which are not counted). The functions lowered
  to loops (``LOOP_FLOPS``) count per element plus a fixed part, the
  loops' scalar bookkeeping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NoReturn

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax import special
from didax.core.primitive import Primitive
from didax.core.values import get_aval
from didax.interpreters import special_series as series
from didax.interpreters.batching import elementwise_batcher
from didax.interpreters.evaluation import IMPL_RULES, ImplRule
from didax.interpreters.flops import FLOPS_RULES, Cost, FlopsRule, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, defjvp, jvp_flat

__all__ = ["FLOPS_PER_ELEMENT", "LOOP_FLOPS", "XLA_DEFINED"]


# --- impl rules -----------------------------------------------------------------------


def _exp2(x: HostArray) -> HostArray:
    # JAX's definition (its lowering): exp(log(2) * x), with log(2) in x's dtype.
    return np.asarray(np.exp(np.multiply(np.asarray(np.log(2), x.dtype), x)))


_NUMPY_SPECIAL: Final[dict[Primitive, ImplRule]] = {
    special.atan2_p: np.arctan2,
    special.exp2_p: _exp2,
    special.is_finite_p: np.isfinite,
    special.nextafter_p: np.nextafter,
}
for _prim, _fn in _NUMPY_SPECIAL.items():
    IMPL_RULES.register(_prim, _fn)

# The functions XLA defines by its own algorithms: no impl rule, so eager
# evaluation compiles them (see the module's design rules).
XLA_DEFINED: Final = tuple(p for p in special.SPECIAL_PRIMITIVES if p not in _NUMPY_SPECIAL)


# --- jvp rules ------------------------------------------------------------------------


def _square(x: Value) -> Value:
    out: Value = lax.mul(x, x)
    return out


_TWO_OVER_SQRT_PI: Final = 2.0 / float(np.sqrt(np.pi))

defjvp(
    special.erf_p,
    lambda t, x, out: lax.mul(_TWO_OVER_SQRT_PI, lax.mul(t, lax.exp(lax.neg(_square(x))))),
)
defjvp(
    special.erfc_p,
    lambda t, x, out: lax.mul(-_TWO_OVER_SQRT_PI, lax.mul(t, lax.exp(lax.neg(_square(x))))),
)
defjvp(
    special.erf_inv_p,
    lambda t, x, out: lax.mul(float(np.sqrt(np.pi) / 2.0), lax.mul(t, lax.exp(_square(out)))),
)
defjvp(special.lgamma_p, lambda t, x, out: lax.mul(t, special.digamma(x)))
defjvp(
    special.digamma_p,
    lambda t, x, out: lax.mul(t, special.polygamma(lax.full_like(x, 1.0), x)),
)


def _polygamma_jvp_m(t: Value, m: Value, x: Value, out: Value) -> NoReturn:
    raise ValueError("polygamma gradient with respect to m is not supported")


defjvp(
    special.polygamma_p,
    _polygamma_jvp_m,
    lambda t, m, x, out: lax.mul(t, special.polygamma(lax.add(m, 1.0), x)),
)
defjvp(special.sinh_p, lambda t, x, out: lax.mul(t, special.cosh(x)))
defjvp(special.cosh_p, lambda t, x, out: lax.mul(t, special.sinh(x)))
defjvp(special.asin_p, lambda t, x, out: lax.mul(t, lax.rsqrt(lax.sub(1.0, _square(x)))))
defjvp(special.acos_p, lambda t, x, out: lax.mul(t, lax.neg(lax.rsqrt(lax.sub(1.0, _square(x))))))
defjvp(special.atan_p, lambda t, x, out: lax.div(t, lax.add(1.0, _square(x))))
defjvp(
    special.atan2_p,
    lambda t, x, y, out: lax.mul(t, lax.div(y, lax.add(_square(x), _square(y)))),
    lambda t, x, y, out: lax.mul(t, lax.div(lax.neg(x), lax.add(_square(x), _square(y)))),
)
defjvp(special.asinh_p, lambda t, x, out: lax.mul(t, lax.rsqrt(lax.add(_square(x), 1.0))))
# x**2 - 1 rather than (x + 1)(x - 1), as JAX: the domain is x >= 1.
defjvp(special.acosh_p, lambda t, x, out: lax.mul(t, lax.rsqrt(lax.sub(_square(x), 1.0))))
defjvp(
    special.atanh_p,
    lambda t, x, out: lax.mul(lax.integer_pow(lax.add(1.0, x), -1), lax.div(t, lax.sub(1.0, x))),
)
defjvp(
    special.exp2_p,
    lambda t, x, out: lax.mul(lax.log(lax.full_like(x, 2.0)), lax.mul(t, out)),
)


def _igamma_grad_x(t: Value, a: Value, x: Value) -> Value:
    # d igamma / dx = x**(a - 1) e**-x / gamma(a), in logarithms.
    log_density = lax.sub(
        lax.add(lax.neg(x), lax.mul(lax.sub(a, 1.0), lax.log(x))), special.lgamma(a)
    )
    out: Value = lax.mul(t, lax.exp(log_density))
    return out


defjvp(
    special.igamma_p,
    lambda t, a, x, out: lax.mul(t, special.igamma_grad_a(a, x)),
    lambda t, a, x, out: _igamma_grad_x(t, a, x),
)
defjvp(
    special.igammac_p,
    lambda t, a, x, out: lax.neg(lax.mul(t, special.igamma_grad_a(a, x))),
    lambda t, a, x, out: lax.neg(_igamma_grad_x(t, a, x)),
)


def _betainc_jvp_ab(t: Value, a: Value, b: Value, x: Value, out: Value) -> NoReturn:
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_jvp_x(t: Value, a: Value, b: Value, x: Value, out: Value) -> Value:
    lbeta = lax.sub(lax.add(special.lgamma(a), special.lgamma(b)), special.lgamma(lax.add(a, b)))
    log_density = lax.add(
        lax.mul(lax.sub(b, 1.0), lax.log1p(lax.neg(x))), lax.mul(lax.sub(a, 1.0), lax.log(x))
    )
    out_t: Value = lax.mul(lax.exp(lax.sub(log_density, lbeta)), t)
    return out_t


defjvp(special.regularized_incomplete_beta_p, _betainc_jvp_ab, _betainc_jvp_ab, _betainc_jvp_x)
defjvp(
    special.bessel_i0e_p,
    lambda t, x, out: lax.mul(t, lax.sub(special.bessel_i1e(x), lax.mul(lax.sign(x), out))),
)


def _bessel_i1e_jvp(t: Value, x: Value, out: Value) -> Value:
    # i1e' = i0e - i1e (sign(x) + 1/x), with its limit 1/2 at (and near) 0.
    eps = series.finfo(get_aval(x).dtype, "eps")
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = lax.sub(
        special.bessel_i0e(safe_x), lax.mul(out, lax.add(lax.sign(safe_x), lax.reciprocal(safe_x)))
    )
    out_t: Value = lax.mul(t, lax.select(not_tiny, slope, lax.full_like(x, 0.5)))
    return out_t


defjvp(special.bessel_i1e_p, _bessel_i1e_jvp)


@JVP_RULES.defines(special.random_gamma_grad_p)
def _random_gamma_grad_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    # JAX's random_gamma_grad is lax operations, and its jvp theirs: differentiate
    # them (forward mode through their while loops), on operands of one shape.
    shape = next((s for s in (get_aval(p).shape for p in primals) if s), ())
    full = [
        lax.broadcast_in_dim(p, shape, ()) if get_aval(p).shape != shape else p for p in primals
    ]
    _, (t_out,) = jvp_flat(
        lambda a, x: [series.upcast16(series.random_gamma_grad)(a, x)], full, tangents
    )
    return special.random_gamma_grad_p.bind(*primals), t_out


@JVP_RULES.defines(special.is_finite_p)
def _is_finite_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    out = special.is_finite_p.bind(*primals)
    return out, Zero.like(get_aval(out))


# --- batching ---------------------------------------------------------------------------

for _prim in special.SPECIAL_PRIMITIVES:
    elementwise_batcher(_prim)


# --- flops ------------------------------------------------------------------------------

# (flops, transcendentals) per element, as XLA's CPU cost analysis counts the
# expansion of each chlo op: float32, then float64 where it differs.
FLOPS_PER_ELEMENT: Final[dict[Primitive, tuple[tuple[int, int], tuple[int, int]]]] = {
    special.erf_p: ((0, 1), (0, 1)),
    special.erfc_p: ((60, 1), (88, 1)),
    special.erf_inv_p: ((37, 2), (100, 2)),
    special.lgamma_p: ((52, 4), (52, 4)),
    special.digamma_p: ((73, 3), (73, 3)),
    special.polygamma_p: ((254, 19), (254, 19)),
    special.sinh_p: ((10, 3), (10, 3)),
    special.cosh_p: ((3, 2), (3, 2)),
    special.asin_p: ((5, 2), (5, 2)),
    special.acos_p: ((3, 2), (3, 2)),
    special.atan_p: ((0, 1), (0, 1)),
    special.asinh_p: ((11, 3), (11, 3)),
    special.acosh_p: ((7, 4), (7, 4)),
    special.atanh_p: ((6, 2), (6, 2)),
    special.atan2_p: ((0, 1), (0, 1)),
    special.exp2_p: ((1, 1), (1, 1)),
    special.is_finite_p: ((1, 0), (1, 0)),
    special.nextafter_p: ((23, 0), (23, 0)),
    special.zeta_p: ((122, 11), (122, 11)),
    special.bessel_i0e_p: ((83, 1), (173, 1)),
    special.bessel_i1e_p: ((83, 1), (173, 1)),
}

# The functions lowered to loops (``special_series``): (flops per element, flops
# per program, transcendentals per element), in float32 and float64 alike. XLA
# counts a while loop's body once, and its scalar bookkeeping once per program.
# (The counts are XLA's up to a few dozen elements; beyond, its count of the
# loops' reductions grows a little faster than the size.)
LOOP_FLOPS: Final[dict[Primitive, tuple[int, int, int]]] = {
    special.igamma_p: (268, 5, 6),
    special.igammac_p: (268, 5, 6),
    special.igamma_grad_a_p: (539, 14, 11),
    special.random_gamma_grad_p: (522, 14, 10),
    special.regularized_incomplete_beta_p: (258, 56, 16),
}


def _flops_rule(f32: tuple[int, int], f64: tuple[int, int]) -> FlopsRule:
    def rule(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object) -> Cost:
        flops, transcendentals = f64 if operands[0].aval.dtype == dtypes.float64 else f32
        n = out_avals[0].size
        return Cost(flops * n, transcendentals * n)

    return rule


def _loop_flops_rule(per_element: int, fixed: int, transcendentals: int) -> FlopsRule:
    def rule(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object) -> Cost:
        n = out_avals[0].size
        return Cost(per_element * n + fixed, transcendentals * n)

    return rule


for _prim, (_f32, _f64) in FLOPS_PER_ELEMENT.items():
    FLOPS_RULES.register(_prim, _flops_rule(_f32, _f64))
for _prim, (_n, _fixed, _t) in LOOP_FLOPS.items():
    FLOPS_RULES.register(_prim, _loop_flops_rule(_n, _fixed, _t))
