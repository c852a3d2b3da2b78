"""The exponential integrals and Bessel functions of ``jax.scipy.special``.

Design rules:
- ``expi`` and ``expn`` are JAX's ports of Cephes' ``ei.c`` and ``expn.c``:
  ``expi``'s rational approximations on ``(0, 2], (2, 4], ..., (64, inf)``
  and ``expn``'s power series, continued fraction and large-``n`` expansion,
  each a per-element ``while_loop`` mapped over the operands
  (``vectorized``), so that each element stops when its own term is below
  the dtype's epsilon, as in JAX. Their derivatives are JAX's rules
  (``expi' = exp(x)/x``, ``d expn(n, x)/dx = -expn(n - 1, x)``).
- ``i0``, ``i1`` are ``exp(|x|)`` times the exponentially scaled primitives
  (``lax.bessel_i0e``, ``lax.bessel_i1e``), as in JAX.
- ``bessel_jn`` is JAX's backward recurrence (Miller's algorithm) over
  ``n_iter`` steps, normalised by the sum of the even orders; it returns
  the orders ``0..v`` along a new leading axis.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from didax.api.control_flow import scan, switch, while_loop
from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy import elementwise as enp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.logic import piecewise
from didax.api.numpy.manipulation import moveaxis
from didax.api.numpy.more_routines import finfo
from didax.api.numpy.operands import as_result, astype, operand
from didax.api.scipy_special import gammaln
from didax.api.scipy_special_gamma import inexact_args, operator_index, vectorized
from didax.api.scipy_special_integrals import poly
from didax.api.transformations import vmap
from didax.core import lax
from didax.core.values import get_aval

__all__ = ["expi", "expn", "exp1", "i0", "i0e", "i1", "i1e", "bessel_jn"]

_NAN: Final = float("nan")
_INF: Final = float("inf")

# Cephes' ei.c: (A, B) with expi(x) = exp(x)/x (1 + A(1/x)/B(1/x) / x) on each interval
# after the first, where it is x A(x)/B(x) + euler_gamma + log(x).
_EXPINT: Final = (
    (
        (
            -5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
            5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6,
        ),
        (
            1.0, -5.250547959112862969197e1, 1.259616186786790571525e3,
            -1.756549581973534652631e4, 1.493062117002725991967e5, -7.294949239640527645655e5,
            1.592627163384945429726e6,
        ),
    ),
    (
        (
            1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
            2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
            -1.545042679673485262580e-3, 7.059980605299617478514e-5,
        ),
        (
            1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1,
            1.699017897879307263248e-1, 2.291647179034212017463e-2, 4.450150439728752875043e-3,
            1.727439612206521482874e-4, 3.953167195549672482304e-5,
        ),
    ),
    (
        (
            -1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
            -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
            4.371064420753005429514e-5, 2.141783679522602903795e-6,
        ),
        (
            1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1,
            7.687932158124475434091e-2, 2.449868241021887685904e-2, 8.832165941927796567926e-4,
            4.590952299511353531215e-4, -4.729848351866523044863e-6, 2.665195537390710170105e-6,
        ),
    ),
    (
        (
            -2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
            2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
            1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
            6.176407863710360207074e-10,
        ),
        (
            1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1,
            -1.566542966630792353556e-2, 2.761106850817352773874e-3, -2.089148012284048449115e-4,
            1.708528938807675304186e-5, -4.459311796356686423199e-7, 1.394634930353847498145e-8,
            6.150865933977338354138e-10,
        ),
    ),
    (
        (
            -2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
            -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
            2.644179518984235952241e-6, -4.239473659313765177195e-8,
        ),
        (
            1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1,
            9.695000254621984627876e-2, -1.601745692712991078208e-2, 1.496414899205908021882e-3,
            -8.462452563778485013756e-5, 2.728938403476726394024e-6, -4.239462431819542051337e-8,
        ),
    ),
    (
        (
            1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
            -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5,
        ),
        (
            1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1,
            -3.337004338674007801307e-2, 1.560544881127388842819e-3, -2.523137093603234562648e-5,
        ),
    ),
    (
        (
            -7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
            3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
            -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9,
        ),
        (
            1.0, -1.888802868662308731041e0, 1.066691687211408896850e0,
            -2.751915982306380647738e-1, 3.930852688233823569726e-2, -3.414684558602365085394e-3,
            1.866844370703555398195e-4, -6.345146083130515357861e-6, 1.239754287483206878024e-7,
            -1.086076102793126632978e-9,
        ),
    ),
)  # fmt: skip


def piecewise_switch(x: Array, conds: list[Array], funcs: list[Any]) -> Array:
    """JAX's ``jnp.piecewise``: the last true condition's function (else the last one).

    On a scalar only the chosen function runs (``switch``), as JAX's, which
    matters where the others are loops that would not end for that element;
    on an array every function runs and each element selects (what ``vmap``
    makes of JAX's ``switch``).
    """
    if get_aval(x).ndim:
        return piecewise(x, conds, funcs)
    index: Array = lax.full((), len(conds), np.int32)
    for i, c in enumerate(conds):
        index = enp.where(c, i, index)

    def branch(f: Any) -> Any:
        return lambda v: astype(operand(f(v) if callable(f) else f), get_aval(v).dtype)

    out: Array = switch(index, [branch(f) for f in funcs], x)
    return out


def _expint_first(x: Array) -> Array:
    # 0 < x <= 2
    num, den = _EXPINT[0]
    return x * (poly(num, x) / poly(den, x)) + np.euler_gamma + enp.log(x)


def _expint_interval(i: int) -> Any:
    num, den = _EXPINT[i]

    def expint(x: Array) -> Array:
        w = 1.0 / x
        f = w * (poly(num, w) / poly(den, w)) + 1.0
        return enp.exp(x) * w * f

    return expint


def _expi_pos(x: Array) -> Array:
    conds = [enp.logical_and(x > 0, x <= 2)] + [
        enp.logical_and(2**i < x, x <= 2 ** (i + 1)) for i in range(1, 6)
    ]
    return piecewise_switch(x, conds, [_expint_first] + [_expint_interval(i) for i in range(1, 7)])


@custom_jvp
def _expi(x: Array) -> Array:
    return piecewise_switch(x, [x < 0], [lambda v: -_exp1(-v), _expi_pos])


_expi.defjvps(lambda t, out, x: enp.exp(x) / x * t)


def expi(x: ArrayLike) -> Array:
    """The exponential integral ``Ei(x)``, the principal value of ``integral exp(t)/t`` to ``x``.

    >>> expi(np.array([-1.0, 1.0, 10.0]))
    Array([-2.1938425e-01,  1.8951179e+00,  2.4922292e+03], dtype=float32)
    """
    (v,) = inexact_args("expi", x)
    return as_result(_expi(v))


def _expn_series(x: Array, n: Array) -> Array:
    # The power series (x <= 1), Cephes' expn.c.
    eps = float(finfo(get_aval(x).dtype).eps)
    one, zero = lax.full_like(x, 1.0), lax.full_like(x, 0.0)

    def harmonic(state: tuple[Array, Array]) -> tuple[Array, Array]:
        i, psi = state
        return i + 1, psi + one / i

    psi0 = -np.euler_gamma - enp.log(x)
    _, psi = while_loop(lambda s: s[0] < n, harmonic, (one, psi0))
    n1 = enp.where(enp.equal(n, 1), one + one, n)
    z = -x

    def body(d: dict[str, Array]) -> dict[str, Array]:
        xk = d["xk"] + one
        yk = d["yk"] * (z / xk)
        pk = d["pk"] + one
        ans = d["ans"] + enp.where(enp.not_equal(pk, zero), yk / pk, zero)
        t = enp.where(enp.not_equal(ans, zero), lax.abs(yk / ans), one)
        return {"xk": xk, "yk": yk, "pk": pk, "ans": ans, "t": t}

    init = {
        "xk": zero,
        "yk": one,
        "pk": one - n,
        "ans": enp.where(enp.equal(n, 1), zero, one / (one - n1)),
        "t": lax.full_like(x, _INF),
    }
    d = while_loop(lambda d: enp.logical_and(x > 0.0, d["t"] > eps), body, init)
    return z ** (n - 1) * as_result(psi) / enp.exp(gammaln(n)) - as_result(d["ans"])


_EXPN_BIG: Final = 1.44115188075855872e17


def _expn_fraction(x: Array, n: Array) -> Array:
    # The continued fraction (x > 1), rescaled when its terms grow past BIG.
    eps = float(finfo(get_aval(x).dtype).eps)
    one, zero = lax.full_like(x, 1.0), lax.full_like(x, 0.0)

    def body(d: dict[str, Array]) -> dict[str, Array]:
        k = d["k"] + 1
        odd = enp.equal(k % 2, 1)
        yk = enp.where(odd, one, x)
        xk = enp.where(odd, n + (k - 1) / 2, k / 2)
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = enp.not_equal(qk, zero)
        r = enp.where(nz, pk / qk, d["r"])
        t = enp.where(nz, lax.abs((d["ans"] - r) / r), one)
        ans = enp.where(nz, r, d["ans"])
        out = {"k": k, "r": r, "t": t, "ans": ans}
        out.update(pkm2=d["pkm1"], pkm1=pk, qkm2=d["qkm1"], qkm1=qk)
        is_big = lax.abs(pk) > _EXPN_BIG
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            out[key] = enp.where(is_big, out[key] / _EXPN_BIG, out[key])
        return out

    init = {
        "k": lax.full_like(n, 1.0),
        "pkm2": one,
        "qkm2": x,
        "pkm1": one,
        "qkm1": x + n,
        "ans": one / (x + n),
        "t": lax.full_like(x, _INF),
        "r": zero,
    }
    d = while_loop(lambda d: enp.logical_and(x > 0, d["t"] > eps), body, init)
    return as_result(d["ans"]) * enp.exp(-x)


def _expn_large_n(x: Array, n: Array) -> Array:
    # n >= 5000: the asymptotic expansion in 1/(x + n).
    xk = x + n
    yk = 1.0 / (xk * xk)
    ans = yk * n * (6.0 * x * x - 8.0 * n * x + n * n)
    ans = yk * (ans + n * (n - 2.0 * x))
    ans = yk * (ans + n)
    return (ans + 1.0) * enp.exp(-x) / xk


def _expn_scalar(n: Array, x: Array) -> Array:
    conds = [
        enp.logical_or(n < 0, x < 0),
        enp.logical_and(enp.equal(x, 0), n < 2),
        enp.logical_and(enp.equal(x, 0), n >= 2),
        enp.logical_and(enp.equal(n, 0), x >= 0),
        n >= 5000,
        x > 1,
    ]
    n1 = enp.where(enp.equal(n, 1), n + n, n)  # JAX's value at x == 0, n >= 2: 1 / n
    values = [
        _NAN,
        _INF,
        1.0 / n1,
        enp.exp(-x) / x,
        lambda v: _expn_large_n(v, n),
        lambda v: _expn_fraction(v, n),
        lambda v: _expn_series(v, n),
    ]
    return piecewise_switch(x, conds, values)


_expn_mapped = vectorized(_expn_scalar)


def _expn_impl(n: Array, x: Array) -> Array:
    return _expn_mapped(n, x)


_expn = custom_jvp(_expn_impl, nondiff_argnums=(0,))


@_expn.defjvp
def _expn_jvp(n: Array, primals: tuple[Array], tangents: tuple[Array]) -> Any:
    (x,), (x_dot,) = primals, tangents
    return _expn(n, x), -x_dot * _expn(n - 1, x)


def expn(n: ArrayLike, x: ArrayLike) -> Array:
    """The generalised exponential integral ``E_n(x) = integral_1^inf exp(-x t) / t**n dt``.

    >>> expn(np.array([1, 2, 3]), np.array([0.5, 1.0, 2.0]))
    Array([0.55977356, 0.14849555, 0.03013338], dtype=float32)
    """
    n_arr, x_arr = inexact_args("expn", n, x)
    return as_result(_expn(n_arr, x_arr))


def _exp1(x: Array) -> Array:
    n_arr, x_arr = inexact_args("exp1", 1, x)
    return as_result(_expn(n_arr, x_arr))


def exp1(x: ArrayLike) -> Array:
    """The exponential integral ``E_1(x)``, ``expn(1, x)``.

    >>> exp1(np.array([0.5, 1.0]))
    Array([0.55977356, 0.21938425], dtype=float32)
    """
    (v,) = inexact_args("exp1", x)
    return _exp1(v)


# --- modified Bessel functions of orders 0 and 1 -------------------------------------------


def i0e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    (v,) = inexact_args("i0e", x)
    return as_result(lax.bessel_i0e(v))


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0, ``exp(|x|) * i0e(x)``.

    >>> i0(np.array([0.0, 1.0]))
    Array([1.0000001, 1.2660661], dtype=float32)
    """
    (v,) = inexact_args("i0", x)
    return as_result(lax.mul(lax.exp(lax.abs(v)), lax.bessel_i0e(v)))


def i1e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``."""
    (v,) = inexact_args("i1e", x)
    return as_result(lax.bessel_i1e(v))


def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of order 1, ``exp(|x|) * i1e(x)``.

    >>> i1(np.array([0.0, 1.0]))
    Array([0.        , 0.56515914], dtype=float32)
    """
    (v,) = inexact_args("i1", x)
    return as_result(lax.mul(lax.exp(lax.abs(v)), lax.bessel_i1e(v)))


# --- Bessel functions of the first kind ------------------------------------------------------


def _bessel_jn_scalar(z: Array, v: int, n_iter: int) -> Array:
    # Miller's backward recurrence f_k = 2(k+1) f_{k+1} / z - f_{k+2} from a tiny seed,
    # normalised by J_0 + 2 (J_2 + J_4 + ...) = 1.
    def step(carry: tuple[Array, Array, Array], k: Array) -> tuple[Any, Array]:
        f0, f1, bs = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        bs = enp.where(enp.equal(k % 2, 0), bs + 2.0 * f, bs)
        return (f1, f, bs), f

    dtype = get_aval(z).dtype
    init = (lax.full_like(z, 0.0), lax.full_like(z, 1e-16), lax.full_like(z, 0.0))
    (_, _, bs), j_vals = scan(step, init, lax.iota(dtype, n_iter + 1), reverse=True)
    f = lax.index_in_dim(j_vals, 0, keepdims=False)
    out: Array = as_result(lax.slice_in_dim(j_vals, 0, v + 1)) / (bs - f)
    return out


def bessel_jn(z: ArrayLike, *, v: int, n_iter: int = 50) -> Array:
    """The Bessel functions ``J_0(z) .. J_v(z)`` of the first kind, stacked on a new leading axis.

    JAX's backward recurrence over ``n_iter`` steps (more steps for larger
    ``|z|``); ``v`` and ``n_iter`` are static integers.

    >>> bessel_jn(np.array([1.0, 2.0]), v=1, n_iter=20)
    Array([[0.7651977, 0.2238908],
           [0.4400506, 0.5767248]], dtype=float32)
    """
    (arr,) = inexact_args("bessel_jn", operand(z))
    order = operator_index(v, "bessel_jn: v")
    steps = operator_index(n_iter, "bessel_jn: n_iter")

    def fn(s: Array) -> Array:
        return _bessel_jn_scalar(s, order, steps)

    mapped: Any = fn
    for _ in range(get_aval(arr).ndim):
        mapped = vmap(mapped)
    return moveaxis(mapped(arr), -1, 0)
