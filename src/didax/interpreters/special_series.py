"""The special functions XLA has no op for, written in lax operations as JAX writes them.

The regularized incomplete gamma functions (``igamma``, ``igammac``), the
derivative of ``igamma`` in ``a`` (``igamma_grad_a``), the derivative of a
``Gamma(a, 1)`` sample in ``a`` (``random_gamma_grad``), the regularized
incomplete beta function (``betainc``) and ``bessel_i0e``: XLA's client
library's algorithms (a power series and continued fractions iterated in
``while`` loops until every element has converged, and Cephes' Chebyshev
expansions), which JAX ports to lax operations and lowers with
``mlir.lower_fun``. ``lowering.special`` stages these functions into a
jaxpr and lowers that; ``random_gamma_grad``'s jvp differentiates its
function, as JAX's differentiates its lax operations.

Design rules:
- Each function takes operands of one shape and one float dtype (the
  lowering broadcasts rank-0 operands first) and computes in that dtype;
  ``upcast16`` runs one in float32 for the 16-bit floats, as JAX's
  ``_up_and_broadcast`` does.
- The arithmetic is JAX's, operation for operation and in its order, so
  that XLA compiles the same computation and the values are JAX's (to an
  ulp, where XLA fuses differently). One difference: ``betainc`` halves
  its iteration count with a truncating division where JAX's ``//`` adds
  a floor correction, which changes nothing for counts that are never
  negative. Loops carry the state JAX's carry; a loop stops when no
  element is still enabled (``_any``).
- Loops are ``while_p`` over bodies staged here (``_while_loop``): this
  module sits below ``api``, whose ``lax.while_loop`` it cannot call.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Sequence
from typing import Final

import ml_dtypes
import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes, lax
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax import special
from didax.core.lax.while_loop import WhileParams
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.staging import trace_to_jaxpr

__all__ = [
    "bessel_i0e",
    "finfo",
    "betainc",
    "igamma",
    "igamma_grad_a",
    "igammac",
    "random_gamma_grad",
    "upcast16",
]

Fn = Callable[..., Value]


def upcast16(fn: Fn) -> Fn:
    """``fn`` computed in float32 for 16-bit float operands (their result converted back)."""

    @functools.wraps(fn)
    def wrapped(*args: ArrayLike) -> Value:
        dtype = get_aval(args[0]).dtype
        if dtype.itemsize > 2:
            return fn(*args)
        f32 = [lax.convert_element_type(a, dtypes.float32) for a in args]
        return lax.convert_element_type(fn(*f32), dtype)

    return wrapped


def _while_loop(
    cond: Callable[[list[Value]], Value],
    body: Callable[[list[Value]], Sequence[ArrayLike]],
    init: Sequence[ArrayLike],
) -> list[Value]:
    avals = [get_aval(x) for x in init]
    cond_c = trace_to_jaxpr(lambda *c: [cond(list(c))], avals, "while_cond")
    body_c = trace_to_jaxpr(lambda *c: list(body(list(c))), avals, "while_body")
    params = WhileParams(cond_c.jaxpr, body_c.jaxpr, len(cond_c.consts), len(body_c.consts))
    return params.bind(*cond_c.consts, *body_c.consts, *init)


def _any(pred: ArrayLike) -> Value:
    return lax.reduce_max(pred, tuple(range(get_aval(pred).ndim)))


def _any_of(first: ArrayLike, *rest: ArrayLike) -> Value:
    out = lax.or_(first, rest[0])
    for pred in rest[1:]:
        out = lax.or_(out, pred)
    return out


def _isnan(x: ArrayLike) -> Value:
    return lax.ne(x, x)


def _const(dtype: DType, value: float) -> np.ndarray:
    """A rank-0 constant of ``dtype`` (a strong operand, as JAX's ``_const``)."""
    return np.asarray(value, dtype)


def finfo(dtype: DTypeLike, name: str) -> float:
    """``np.finfo(dtype).<name>`` (``eps``, ``tiny``, ``max``) as a float."""
    return float(getattr(ml_dtypes.finfo(dtype), name))  # NumPy's knows no bfloat16


def _eps(dtype: DTypeLike) -> float:
    return finfo(dtype, "eps")


# --- the continued fraction of betainc (modified Lentz) ---------------------------------------

Partial = Callable[[ArrayLike, Value, Value, Value], Value]


def _lentz(
    iterations: int,
    small: np.ndarray,
    numerator: Partial,
    denominator: Partial,
    inputs: tuple[Value, Value, Value],
) -> Value:
    """The continued fraction ``b0 + a1 / (b1 + a2 / (b2 + ...))`` by Lentz-Thompson-Barnett.

    ``small`` stands for denominators near zero and is the convergence
    threshold too (JAX passes ``eps / 2`` for both).
    """
    first = denominator(0, *inputs)
    tiny = lax.full_like(first, float(small))
    h = lax.select(lax.lt(lax.abs(first), small), tiny, first)

    def cond(v: list[Value]) -> Value:
        return lax.and_(lax.lt(v[0], iterations), v[1])

    def body(v: list[Value]) -> list[Value]:
        it, _, c_prev, d_prev, h_prev = v
        a_n, b_n = numerator(it, *inputs), denominator(it, *inputs)
        c = lax.add(b_n, lax.div(a_n, c_prev))
        c = lax.select(lax.lt(lax.abs(c), small), tiny, c)
        d = lax.add(b_n, lax.mul(a_n, d_prev))
        d = lax.reciprocal(lax.select(lax.lt(lax.abs(d), small), tiny, d))
        delta = lax.mul(c, d)
        unconverged = _any(lax.ge(lax.abs(lax.sub(delta, 1.0)), small))
        return [lax.add(it, 1), unconverged, c, d, lax.mul(h_prev, delta)]

    init: list[ArrayLike] = [np.asarray(1, np.int32), np.asarray(True), h, lax.full_like(h, 0), h]
    return _while_loop(cond, body, init)[4]


def betainc(a: Value, b: Value, x: Value) -> Value:
    """The regularized incomplete beta function ``I_x(a, b)`` (DLMF 8.17.22 and 8.17.4)."""
    dtype = get_aval(a).dtype
    shape = get_aval(a).shape

    def numerator(it: ArrayLike, a: Value, b: Value, x: Value) -> Value:
        # DLMF 8.17.23; the first partial numerator is 1.
        n = lax.broadcast_in_dim(it, shape, ())
        even = lax.eq(lax.rem(n, 2), 0)
        m_int = lax.div(lax.sub(n, 1), 2)
        m = lax.convert_element_type(m_int, dtype)
        a2m = lax.add(a, lax.mul(2.0, m))
        # Near a == 0 with m == 0, this form avoids losing the term to FTZ/DAZ.
        first = lax.div(lax.mul(lax.neg(lax.add(a, b)), x), lax.add(a, 1.0))
        even_term = lax.div(
            lax.mul(lax.mul(lax.neg(lax.add(a, m)), lax.add(lax.add(a, b), m)), x),
            lax.mul(a2m, lax.add(a2m, 1.0)),
        )
        odd_term = lax.div(lax.mul(lax.mul(m, lax.sub(b, m)), x), lax.mul(lax.sub(a2m, 1.0), a2m))
        term = lax.select(even, lax.select(lax.eq(m_int, 0), first, even_term), odd_term)
        return lax.select(lax.eq(n, 1), lax.full_like(x, 1.0), term)

    def denominator(it: ArrayLike, a: Value, b: Value, x: Value) -> Value:
        n = lax.broadcast_in_dim(it, shape, ())
        return lax.select(lax.eq(n, 0), lax.full_like(x, 0), lax.full_like(x, 1))

    inf = float("inf")
    a_is_zero = lax.or_(lax.eq(a, 0.0), lax.eq(b, inf))
    b_is_zero = lax.or_(lax.eq(b, 0.0), lax.eq(a, inf))
    x_is_zero, x_is_one = lax.eq(x, 0.0), lax.eq(x, 1.0)
    is_zero = lax.or_(lax.and_(b_is_zero, lax.not_(x_is_one)), lax.and_(a_is_zero, x_is_zero))
    is_one = lax.or_(lax.and_(a_is_zero, lax.not_(x_is_zero)), lax.and_(b_is_zero, x_is_one))
    is_nan = _any_of(
        _any_of(lax.lt(a, 0.0), lax.lt(b, 0.0), lax.lt(x, 0.0), lax.gt(x, 1.0)),
        _any_of(lax.and_(a_is_zero, b_is_zero), _any_of(_isnan(a), _isnan(b), _isnan(x))),
    )
    # The fraction converges fast for x < (a + 1) / (a + b + 2); elsewhere use
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    fast = lax.lt(x, lax.div(lax.add(a, 1.0), lax.add(lax.add(a, b), 2.0)))
    a, b = lax.select(fast, a, b), lax.select(fast, b, a)
    x = lax.select(fast, x, lax.sub(1.0, x))
    eps = _const(dtype, _eps(dtype) / 2)
    fraction = _lentz(
        200 if dtype == dtypes.float32 else 600, eps, numerator, denominator, (a, b, x)
    )
    # a * gamma(a) = gamma(a + 1) -> 1 as a -> 0: no division by a tiny a.
    lbeta_small_a = lax.sub(special.lgamma(b), special.lgamma(lax.add(a, b)))
    lbeta = lax.add(special.lgamma(a), lbeta_small_a)
    log1m_x_b = lax.mul(lax.log1p(lax.neg(x)), b)
    factor = lax.select(
        lax.lt(a, _const(dtype, finfo(dtype, "tiny") * 2)),
        lax.exp(lax.sub(log1m_x_b, lbeta_small_a)),
        lax.div(lax.exp(lax.sub(lax.add(lax.mul(lax.log(x), a), log1m_x_b), lbeta)), a),
    )
    result = lax.mul(fraction, factor)
    result = lax.select(fast, result, lax.sub(1.0, result))
    result = lax.select(is_zero, lax.full_like(a, 0), result)
    result = lax.select(is_one, lax.full_like(a, 1), result)
    return lax.select(is_nan, lax.full_like(a, float("nan")), result)


# --- the incomplete gamma functions ------------------------------------------------------------


class _Mode(enum.Enum):
    """What the series and the continued fraction compute (XLA's ``kIgammaMode``)."""

    VALUE = 1
    DERIVATIVE = 2  # d igamma / d a
    SAMPLE_DERIVATIVE = 3  # d x / d a of a Gamma(a, 1) sample x, with igamma(a, x) held


def _series(ax: Value, x: Value, a: Value, enabled: Value, mode: _Mode) -> Value:
    """``igamma`` by its power series in ``x`` (for ``x < 1`` or ``x <= a``), or a derivative."""
    eps = _const(get_aval(a).dtype, _eps(get_aval(a).dtype))

    def body(v: list[Value]) -> list[Value]:
        on, r, c, ans, x, dc_da, dans_da = v
        r = lax.add(r, 1.0)
        dc_da = lax.sub(lax.mul(dc_da, lax.div(x, r)), lax.div(lax.mul(c, x), lax.mul(r, r)))
        dans_da = lax.add(dans_da, dc_da)
        c = lax.mul(c, lax.div(x, r))
        ans = lax.add(ans, c)
        if mode is _Mode.VALUE:
            going = lax.and_(on, lax.gt(lax.div(c, ans), eps))
        else:
            going = lax.and_(on, lax.gt(lax.abs(lax.div(dc_da, dans_da)), eps))
        new = (r, c, ans, x, dc_da, dans_da)
        return [going, *(lax.select(on, n, o) for n, o in zip(new, v[1:], strict=True))]

    one, zero = lax.full_like(a, 1), lax.full_like(a, 0)
    v = _while_loop(lambda v: _any(v[0]), body, [enabled, a, one, one, x, zero, zero])
    ans, dans_da = v[3], v[6]
    if mode is _Mode.VALUE:
        return lax.div(lax.mul(ans, ax), a)
    dlogax_da = lax.sub(lax.log(x), special.digamma(lax.add(a, 1.0)))
    if mode is _Mode.DERIVATIVE:
        return lax.div(lax.mul(ax, lax.add(lax.mul(ans, dlogax_da), dans_da)), a)
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _fraction(ax: Value, x: Value, a: Value, enabled: Value, mode: _Mode) -> Value:
    """``igammac`` by its continued fraction (for ``x >= 1`` and ``x > a``), or a derivative."""
    dtype = get_aval(x).dtype
    eps = _eps(dtype)
    small = _const(dtype, eps)

    def body(v: list[Value]) -> list[Value]:
        on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans = v
        c, y, z = lax.add(c, 1.0), lax.add(y, 1.0), lax.add(z, 2.0)
        yc = lax.mul(y, c)
        pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
        qk_nonzero = lax.ne(qk, 0.0)
        r = lax.div(pk, qk)
        t = lax.select(qk_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(qk_nonzero, r, ans)
        dpk = lax.add(
            lax.sub(lax.sub(lax.mul(dpkm1, z), pkm1), lax.mul(dpkm2, yc)), lax.mul(pkm2, c)
        )
        dqk = lax.add(
            lax.sub(lax.sub(lax.mul(dqkm1, z), qkm1), lax.mul(dqkm2, yc)), lax.mul(qkm2, c)
        )
        dans_new = lax.select(qk_nonzero, lax.div(lax.sub(dpk, lax.mul(ans, dqk)), qk), dans)
        change = lax.select(qk_nonzero, lax.abs(lax.sub(dans_new, dans)), lax.full_like(dans, 1))
        # Shift the recurrences, rescaling them all when pk grows past 1 / eps.
        rescale = lax.gt(lax.abs(pk), _const(dtype, 1 / eps))
        shifted = [
            lax.select(rescale, lax.mul(s, small), s)
            for s in (pkm1, pk, qkm1, qk, dpkm1, dqkm1, dpk, dqk)
        ]
        pkm2, pkm1, qkm2, qkm1, dpkm2, dqkm2, dpkm1, dqkm1 = shifted
        going = lax.and_(on, lax.gt(t if mode is _Mode.VALUE else change, small))
        new = (ans, t, y, z)
        rest = (pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans_new)
        return [
            going,
            *(lax.select(on, n, o) for n, o in zip(new, v[1:5], strict=True)),
            c,
            *(lax.select(on, n, o) for n, o in zip(rest, v[6:], strict=True)),
        ]

    def cond(v: list[Value]) -> Value:
        return lax.and_(lax.lt(v[5], 2000.0), _any(v[0]))

    y = lax.sub(1.0, a)
    z = lax.add(lax.add(x, y), 1.0)
    pkm1, qkm1 = lax.add(x, 1.0), lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    zero, neg_x = lax.full_like(x, 0), lax.neg(x)
    dans = lax.div(lax.sub(zero, lax.mul(ans, neg_x)), qkm1)
    init: list[ArrayLike] = [enabled, ans, lax.full_like(x, 1), y, z, _const(dtype, 0)]
    init += [pkm1, qkm1, lax.full_like(x, 1), x, zero, zero, zero, neg_x, dans]
    v = _while_loop(cond, body, init)
    ans, dans = v[1], v[14]
    if mode is _Mode.VALUE:
        return lax.mul(ans, ax)
    dlogax_da = lax.sub(lax.log(x), special.digamma(a))
    if mode is _Mode.DERIVATIVE:
        return lax.mul(ax, lax.add(lax.mul(ans, dlogax_da), dans))
    return lax.neg(lax.mul(lax.add(dans, lax.mul(ans, dlogax_da)), x))


def _log_ax(a: Value, x: Value) -> tuple[Value, Value]:
    """``x**a e**-x / gamma(a)`` and whether its logarithm underflows."""
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), special.lgamma(a))
    floor = _const(get_aval(a).dtype, -float(np.log(finfo(get_aval(a).dtype, "max"))))
    return lax.exp(log_ax), lax.lt(log_ax, floor)


def igamma(a: Value, x: Value) -> Value:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    is_nan = lax.or_(_isnan(a), _isnan(x))
    x_is_inf, a_is_zero, x_is_zero = lax.eq(x, float("inf")), lax.eq(a, 0.0), lax.eq(x, 0.0)
    domain_error = _any_of(lax.lt(x, 0.0), lax.lt(a, 0.0), lax.and_(a_is_zero, x_is_zero), is_nan)
    use_fraction = lax.and_(lax.ge(x, 1.0), lax.gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = lax.not_(_any_of(x_is_zero, domain_error, underflow, x_is_inf))
    out = lax.select(
        use_fraction,
        lax.sub(1.0, _fraction(ax, x, a, lax.and_(enabled, use_fraction), _Mode.VALUE)),
        _series(ax, x, a, lax.and_(enabled, lax.not_(use_fraction)), _Mode.VALUE),
    )
    out = lax.select(x_is_zero, lax.full_like(a, 0), out)
    out = lax.select(x_is_inf, lax.full_like(a, 1), out)
    return lax.select(domain_error, lax.full_like(a, float("nan")), out)


def igammac(a: Value, x: Value) -> Value:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    is_nan = lax.or_(_isnan(a), _isnan(x))
    a_is_zero, x_is_zero, x_is_inf = lax.eq(a, 0.0), lax.eq(x, 0.0), lax.eq(x, float("inf"))
    domain_error = _any_of(lax.lt(x, 0.0), lax.lt(a, 0.0), lax.and_(a_is_zero, x_is_zero), is_nan)
    use_series = lax.or_(lax.lt(x, 1.0), lax.lt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = lax.not_(_any_of(domain_error, underflow, x_is_inf, a_is_zero))
    lower = _series(ax, x, a, lax.and_(enabled, use_series), _Mode.VALUE)
    upper = _fraction(ax, x, a, lax.and_(enabled, lax.not_(use_series)), _Mode.VALUE)
    out = lax.select(use_series, lax.sub(1.0, lower), upper)
    out = lax.select(lax.or_(x_is_inf, a_is_zero), lax.full_like(out, 0), out)
    return lax.select(domain_error, lax.full_like(a, float("nan")), out)


def _derivative(a: Value, x: Value, mode: _Mode) -> Value:
    is_nan = lax.or_(_isnan(a), _isnan(x))
    x_is_zero = lax.eq(x, 0.0)
    domain_error = lax.or_(lax.lt(x, 0.0), lax.le(a, 0.0))
    use_fraction = lax.and_(lax.gt(x, 1.0), lax.gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = lax.not_(_any_of(x_is_zero, domain_error, underflow, is_nan))
    out = lax.select(
        use_fraction,
        lax.neg(_fraction(ax, x, a, lax.and_(enabled, use_fraction), mode)),
        _series(ax, x, a, lax.and_(enabled, lax.not_(use_fraction)), mode),
    )
    out = lax.select(x_is_zero, lax.full_like(out, 0), out)
    return lax.select(lax.or_(domain_error, is_nan), lax.full_like(a, float("nan")), out)


def igamma_grad_a(a: Value, x: Value) -> Value:
    """``d igamma(a, x) / d a``."""
    return _derivative(a, x, _Mode.DERIVATIVE)


def random_gamma_grad(a: Value, x: Value) -> Value:
    """``d x / d a`` of a sample ``x`` of ``Gamma(a, 1)`` (implicit reparameterization)."""
    return _derivative(a, x, _Mode.SAMPLE_DERIVATIVE)


# --- bessel_i0e: Cephes' Chebyshev expansions ------------------------------------------------

# Cephes' i0e coefficients on [0, 8] (in 0.5 x - 2) and on (8, inf) (in 32 / x - 2), most
# significant last. Double precision uses all of them, single precision the last 18 and 7.
_I0E_SMALL: Final = (
    *(-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16),
    *(1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14),
    *(-4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11),
    *(9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9),
    *(-1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7),
    *(1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5),
    *(-5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4),
    *(1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2),
    *(-2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2),
    *(1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1),
)
_I0E_LARGE: Final = (
    *(-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17),
    *(3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16),
    *(1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15),
    *(-4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13),
    *(7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11),
    *(-3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10),
    *(3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7),
    *(2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3),
    8.04490411014108831608e-1,
)


def _chebyshev(x: Value, coefficients: Sequence[float]) -> Value:
    """Clenshaw's recurrence for ``sum c_i T_i(x / 2)``, Cephes' ``chbevl``."""
    b0 = b1 = b2 = lax.full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(x, b1), b2), lax.full_like(x, c))
    return lax.mul(0.5, lax.sub(b0, b2))


def bessel_i0e(x: Value) -> Value:
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    double = get_aval(x).dtype == dtypes.float64
    small = _I0E_SMALL if double else _I0E_SMALL[-18:]
    large = _I0E_LARGE if double else _I0E_LARGE[-7:]
    x = lax.abs(x)
    near = _chebyshev(lax.sub(lax.mul(lax.full_like(x, 0.5), x), lax.full_like(x, 2.0)), small)
    far_t = lax.sub(lax.div(lax.full_like(x, 32.0), x), lax.full_like(x, 2.0))
    far = lax.div(_chebyshev(far_t, large), lax.sqrt(x))
    return lax.select(lax.le(x, 8.0), near, far)
