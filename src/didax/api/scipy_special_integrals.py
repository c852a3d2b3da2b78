"""Error-function relatives and integrals of ``jax.scipy.special`` (``erfcx`` to ``owens_t``).

Design rules:
- Each function is JAX's rational approximation or quadrature, coefficient
  for coefficient (Cephes' tables, Weideman's Faddeeva expansion, Cody's
  Dawson approximation, Patefield and Tandy's Owen's T quadrature), so that
  values match JAX's; the regions are computed whole and selected, each
  region fed a safe argument where it is not used, so that no NaN reaches a
  gradient.
- Each has JAX's custom derivative (``erfcx' = 2x erfcx - 2/sqrt(pi)``,
  ``dawsn' = 1 - 2x dawsn``, ``fresnel`` from ``sin``/``cos(pi x**2 / 2)``,
  ``sici`` from ``sinc`` and ``cos(x)/x``, ``owens_t`` in both arguments);
  ``spence`` has the derivative of its formula, as in JAX.
- Float16 and bfloat16 operands are computed in float32 and cast back, as
  JAX does; the polynomials are ``didax.numpy.polyval`` (Horner's rule from
  0, as JAX's ``jnp.polyval``).
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy import elementwise as enp
from didax.api.numpy import more_elementwise as mnp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.logic import piecewise, select
from didax.api.numpy.manipulation import expand_dims
from didax.api.numpy.more_routines import finfo, fmod
from didax.api.numpy.operands import as_result, asarray, astype
from didax.api.numpy.polynomials import polyval
from didax.api.scipy_special_gamma import inexact_args
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = ["erfcx", "dawsn", "wofz", "fresnel", "sici", "spence", "owens_t"]

_NAN: Final = float("nan")
_INF: Final = float("inf")
_SQRT_PI: Final = math.sqrt(math.pi)


def poly(coeffs: Any, x: Array) -> Array:
    """``polyval`` of a table of coefficients (highest power first) in ``x``'s dtype."""
    return polyval(asarray(np.asarray(coeffs), get_aval(x).dtype), x)


def _in_float32(fn: Any, x: Array) -> Any:
    """``fn(x)``, computed in float32 for a 16-bit ``x`` and cast back (JAX's upcast)."""
    dtype = get_aval(x).dtype
    if dtype in (np.float32, np.float64):
        return fn(x)
    return astype(fn(astype(x, np.dtype(np.float32))), dtype)


# --- the Faddeeva function and erfcx -------------------------------------------------

# Weideman (1994), N = 32: w(z) = 2 p(Z) / (L - iz)**2 + 1 / (sqrt(pi) (L - iz)),
# Z = (L + iz) / (L - iz), for Im(z) >= 0 (JAX's coefficients).
_WOFZ_L: Final = 4.7568284600108841
_WOFZ_C: Final = (
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282,
    0.14060716226893755, 0.29544451071508743, 0.54601397206393376,
    0.9019254893648001, 1.3455441692345449, 1.8256696296324815,
    2.2635372999002676, 2.5722534081245696,
)  # fmt: skip


def _complex(re: Array, im: float | Array) -> Array:
    return as_result(lax.complex(re, lax.full_like(re, im) if isinstance(im, float) else im))


def _wofz_upper(z: Array) -> Array:
    re = mnp.real(z)
    big_l = _complex(lax.full_like(re, _WOFZ_L), 0.0)
    iz = _complex(-mnp.imag(z), re)
    denom = big_l - iz
    p = poly(_WOFZ_C, (big_l + iz) / denom)
    return 2 * p / (denom * denom) + _complex(lax.full_like(re, 1 / _SQRT_PI), 0.0) / denom


@custom_jvp
def _wofz(z: Array) -> Array:
    upper = mnp.imag(z) >= 0
    z_upper = enp.where(upper, z, -z)
    w_upper = _wofz_upper(z_upper)
    return enp.where(upper, w_upper, 2 * enp.exp(-(z * z)) - w_upper)


_wofz.defjvps(
    lambda g, ans, z: g * (-(2 * z * ans) + _complex(lax.full_like(mnp.real(z), 0.0), 2 / _SQRT_PI))
)


def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function ``exp(-z**2) erfc(-iz)`` (Weideman's expansion); a complex result.

    >>> wofz(np.array([0.0, 1.0 + 1.0j]))
    Array([1.0000001 +0.j        , 0.30474424+0.20821896j], dtype=complex64)
    """
    (v,) = inexact_args("wofz", z, real=False)
    dtype = get_aval(v).dtype
    if not dtypes.is_complex(dtype):
        v = astype(v, dtypes.complex_dtype(dtype))
    return as_result(_wofz(v))


# erfcx(x) ~ P(1/x**2) / (sqrt(pi) x), P's coefficients (-1)**k (2k-1)!! / 2**k, highest first.
_ERFCX_ASYMPTOTIC: Final = (
    7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5, 1.0,
)  # fmt: skip


def _erfcx_impl(x: Array) -> Array:
    # The direct formula exp(x**2) erfc(x) until exp(x**2) overflows, the
    # asymptotic series beyond (9 terms in float64, 5 in float32).
    dtype = get_aval(x).dtype
    n_terms = 9 if dtype == np.float64 else 5
    large = x > math.sqrt(math.log(float(finfo(dtype).max)))
    safe_x = enp.where(large, lax.full_like(x, 1.0), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    asymptotic = poly(_ERFCX_ASYMPTOTIC[-n_terms:], 1.0 / lax.square(x)) / (x * _SQRT_PI)
    return enp.where(large, asymptotic, direct)


@custom_jvp
def _erfcx(x: Array) -> Array:
    out: Array = _in_float32(_erfcx_impl, x)
    return out


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - 2 / _SQRT_PI))


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function ``exp(x**2) erfc(x)`` (complex: ``wofz(ix)``).

    >>> erfcx(np.array([0.0, 1.0, 30.0]))
    Array([1.        , 0.42758366, 0.01879589], dtype=float32)
    """
    (v,) = inexact_args("erfcx", x, real=False)
    if dtypes.is_complex(get_aval(v).dtype):
        return as_result(_wofz(_complex(-mnp.imag(v), mnp.real(v))))
    return as_result(_erfcx(v))


# --- Dawson's integral ------------------------------------------------------------------

# Cody, Paciorek and Thacher (1970): three regions of |x|.
_DAWSN_AN: Final = (
    1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
    9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
    -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
    9.99999999999999994612e-1,
)  # fmt: skip
_DAWSN_AD: Final = (
    2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
    1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
    3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
    5.74918629489320327824e-1, 1.00000000000000000539e0,
)  # fmt: skip
_DAWSN_BN: Final = (
    5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
    -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
    3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
    -2.40274520828250956942e-9, 3.59233385440928410398e-11,
)  # fmt: skip
_DAWSN_BD: Final = (
    1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
    -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
    7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
    -4.91324691331920606875e-9, 7.18466403235734541950e-11,
)  # fmt: skip
_DAWSN_CN: Final = (
    -5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
    1.64837047825189632310e-2, -4.86827613020462700845e-4,
)  # fmt: skip
_DAWSN_CD: Final = (
    1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
    -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4,
)  # fmt: skip


def _dawsn_tail(ax: Array, t: Array, in_region: Array, num: Any, den: Any) -> Array:
    # 0.5/|x| (1 + t P(t)/Q(t)), t = 1/x**2, with safe arguments outside the region.
    safe_t = enp.where(in_region, t, lax.full_like(t, 1.0))
    safe_ax = enp.where(in_region, ax, lax.full_like(ax, 1.0))
    return (0.5 / safe_ax) * (1.0 + safe_t * poly(num, safe_t) / poly(den, safe_t))


def _dawsn_impl(x: Array) -> Array:
    ax = lax.abs(x)
    t = 1.0 / lax.square(ax)
    near = ax < 3.25
    safe_ax = enp.where(near, ax, lax.full_like(ax, 1.0))
    safe_ax2 = lax.square(safe_ax)
    val1 = safe_ax * poly(_DAWSN_AN, safe_ax2) / poly(_DAWSN_AD, safe_ax2)
    middle = enp.logical_and(ax >= 3.25, ax < 6.25)
    val2 = _dawsn_tail(ax, t, middle, _DAWSN_BN, _DAWSN_BD)
    val3 = _dawsn_tail(ax, t, ax >= 6.25, _DAWSN_CN, _DAWSN_CD)
    return enp.sign(x) * enp.where(near, val1, enp.where(ax < 6.25, val2, val3))


@custom_jvp
def _dawsn(x: Array) -> Array:
    out: Array = _in_float32(_dawsn_impl, x)
    return out


_dawsn.defjvps(lambda g, ans, x: g * (1.0 - 2.0 * x * ans))


def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt``.

    >>> dawsn(np.array([0.0, 1.0, 10.0]))
    Array([0.        , 0.5380795 , 0.05025385], dtype=float32)
    """
    (v,) = inexact_args("dawsn", x)
    return as_result(_dawsn(v))


# --- Fresnel integrals ------------------------------------------------------------------


def _sincos_pi_x2_half(x: Array) -> tuple[Array, Array]:
    """``sin`` and ``cos`` of ``pi x**2 / 2``, reduced modulo 2 first (exact for huge ``x``)."""
    x = lax.abs(x)
    s = fmod(x, 2.0)
    r = fmod(s * (x - s / 2), 2.0)
    pi = math.pi
    sinpi = enp.where(
        r < 0.5,
        enp.sin(pi * r),
        enp.where(r > 1.5, enp.sin(pi * (r - 2.0)), -enp.sin(pi * (r - 1.0))),
    )
    cospi = enp.where(
        enp.equal(r, 0.5),
        0.0,
        enp.where(r < 1.0, -enp.sin(pi * (r - 0.5)), enp.sin(pi * (r - 1.5))),
    )
    return sinpi, cospi


# Cephes' fresnl.c: single precision (numerators only) and double precision.
_FRESNEL_32: Final = {
    "sn": (
        1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
        -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
        5.235987735681432e-1,
    ),
    "cn": (
        1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
        -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
        9.999999760004487e-1,
    ),
    "fn": (
        -1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9,
        7.343848463587323e7, -8.732356681548485e5, 8.560515466275470e3,
        -1.032877601091159e2, 2.999401847870011e0,
    ),
    "gn": (
        -1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8,
        6.492611570598858e6, -7.787789623358162e4, 8.602931494734327e2,
        -1.493439396592284e1, 9.999841934744914e-1,
    ),
}  # fmt: skip
_FRESNEL_64: Final = {
    "sn": (
        -2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11,
    ),
    "sd": (
        1.00000000000000000000e0, 2.81376268889994315696e2, 4.55847810806532581675e4,
        5.17343888770096400730e6, 4.19320245898111231129e8, 2.24411795645340920940e10,
        6.07366389490084639049e11,
    ),
    "cn": (
        -4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1,
    ),
    "cd": (
        3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0,
    ),
    "fn": (
        4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20,
    ),
    "fd": (
        1.00000000000000000000e0, 7.51586398353378947175e-1, 1.16888925859191382142e-1,
        6.44051526508858611005e-3, 1.55934409164153020873e-4, 1.84627567348930545870e-6,
        1.12699224763999035261e-8, 3.60140029589371370404e-11, 5.88754533621578410010e-14,
        4.52001434074129701496e-17, 1.25443237090011264384e-20,
    ),
    "gn": (
        5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22,
    ),
    "gd": (
        1.00000000000000000000e0, 1.47495759925128324529e0, 3.37748989120019970451e-1,
        2.53603741420338795122e-2, 8.14679107184306179049e-4, 1.27545075667729118702e-5,
        1.04314589657571990585e-7, 4.60680728146520428211e-10, 1.10273215066240270757e-12,
        1.38796531259578871258e-15, 8.39158816283118707363e-19, 1.86958710162783236342e-22,
    ),
}  # fmt: skip


def _ratio(table: dict[str, Any], name: str, t: Array) -> Array:
    """``P(t) / Q(t)`` from the double tables, ``P(t)`` alone from the single ones."""
    den = table.get(name[0] + "d")
    value = poly(table[name], t)
    return value / poly(den, t) if den is not None else value


def _fresnel_impl(xxa: Array) -> tuple[Array, Array]:
    single = get_aval(xxa).dtype == np.float32
    table = _FRESNEL_32 if single else _FRESNEL_64
    x = lax.abs(xxa)
    x2 = x * x
    t = x2 * x2
    s_small = x * x2 * _ratio(table, "sn", t)
    c_small = x * _ratio(table, "cn", t)
    sinpi, cospi = _sincos_pi_x2_half(x)
    if single:
        c_large: Array | float = 0.5
        s_large: Array | float = 0.5
    else:
        c_large = 0.5 + 1 / (math.pi * x) * sinpi
        s_large = 0.5 - 1 / (math.pi * x) * cospi
    t = math.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    f = 1.0 - u * _ratio(table, "fn", u)
    g = t * _ratio(table, "gn", u)
    t = math.pi * x
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t
    isinf = mnp.isinf(xxa)
    small = x2 < 2.5625
    large = x > 36974.0
    s = enp.where(isinf, 0.5, enp.where(small, s_small, enp.where(large, s_large, s_other)))
    c = enp.where(isinf, 0.5, enp.where(small, c_small, enp.where(large, c_large, c_other)))
    neg = xxa < 0.0
    return enp.where(neg, -s, s), enp.where(neg, -c, c)


@custom_jvp
def _fresnel(x: Array) -> tuple[Array, Array]:
    out: tuple[Array, Array] = _in_float32(_fresnel_impl, x)
    return out


@_fresnel.defjvp
def _fresnel_jvp(primals: tuple[Array], tangents: tuple[Array]) -> Any:
    (x,), (x_dot,) = primals, tangents
    sinpi, cospi = _sincos_pi_x2_half(x)
    return _fresnel(x), (sinpi * x_dot, cospi * x_dot)


def fresnel(x: ArrayLike) -> tuple[Array, Array]:
    """The Fresnel integrals ``(S(x), C(x))`` of ``sin`` and ``cos(pi t**2 / 2)`` (Cephes).

    >>> s, c = fresnel(np.array([0.0, 1.0]))
    >>> s, c
    (Array([0.        , 0.43825915], dtype=float32), Array([0.       , 0.7798934], dtype=float32))
    """
    (v,) = inexact_args("fresnel", x)
    s, c = _fresnel(v)
    return as_result(s), as_result(c)


# --- sine and cosine integrals ------------------------------------------------------------

# Cephes' sici.c.
_SICI_SN: Final = (
    -8.39167827910303881427e-11, 4.62591714427012837309e-8, -9.75759303843632795789e-6,
    9.76945438170435310816e-4, -4.13470316229406538752e-2, 1.00000000000000000302e0,
)  # fmt: skip
_SICI_SD: Final = (
    2.03269266195951942049e-12, 1.27997891179943299903e-9, 4.41827842801218905784e-7,
    9.96412122043875552487e-5, 1.42085239326149893930e-2, 9.99999999999999996984e-1,
)  # fmt: skip
_SICI_CN: Final = (
    2.02524002389102268789e-11, -1.35249504915790756375e-8, 3.59325051419993077021e-6,
    -4.74007206873407909465e-4, 2.89159652607555242092e-2, -1.00000000000000000080e0,
)  # fmt: skip
_SICI_CD: Final = (
    4.07746040061880559506e-12, 3.06780997581887812692e-9, 1.23210355685883423679e-6,
    3.17442024775032769882e-4, 5.10028056236446052392e-2, 4.00000000000000000080e0,
)  # fmt: skip
_SICI_FN4: Final = (
    4.23612862892216586994e0, 5.45937717161812843388e0, 1.62083287701538329132e0,
    1.67006611831323023771e-1, 6.81020132472518137426e-3, 1.08936580650328664411e-4,
    5.48900223421373614008e-7,
)  # fmt: skip
_SICI_FD4: Final = (
    1.0, 8.16496634205391016773e0, 7.30828822505564552187e0, 1.86792257950184183883e0,
    1.78792052963149907262e-1, 7.01710668322789753610e-3, 1.10034357153915731354e-4,
    5.48900252756255700982e-7,
)  # fmt: skip
_SICI_GN4: Final = (
    8.71001698973114191777e-2, 6.11379109952219284151e-1, 3.97180296392337498885e-1,
    7.48527737628469092119e-2, 5.38868681462177273157e-3, 1.61999794598934024525e-4,
    1.97963874140963632189e-6, 7.82579040744090311069e-9,
)  # fmt: skip
_SICI_GD4: Final = (
    1.0, 1.64402202413355338886e0, 6.66296701268987968381e-1, 9.88771761277688796203e-2,
    6.22396345441768420760e-3, 1.73221081474177119497e-4, 2.02659182086343991969e-6,
    7.82579218933534490868e-9,
)  # fmt: skip
_SICI_FN8: Final = (
    4.55880873470465315206e-1, 7.13715274100146711374e-1, 1.60300158222319456320e-1,
    1.16064229408124407915e-2, 3.49556442447859055605e-4, 4.86215430826454749482e-6,
    3.20092790091004902806e-8, 9.41779576128512936592e-11, 9.70507110881952024631e-14,
)  # fmt: skip
_SICI_FD8: Final = (
    1.0, 9.17463611873684053703e-1, 1.78685545332074536321e-1, 1.22253594771971293032e-2,
    3.58696481881851580297e-4, 4.92435064317881464393e-6, 3.21956939101046018377e-8,
    9.43720590350276732376e-11, 9.70507110881952025725e-14,
)  # fmt: skip
_SICI_GN8: Final = (
    6.97359953443276214934e-1, 3.30410979305632063225e-1, 3.84878767649974295920e-2,
    1.71718239052347903558e-3, 3.48941165502279436777e-5, 3.47131167084116673800e-7,
    1.70404452782044526189e-9, 3.85945925430276600453e-12, 3.14040098946363334640e-15,
)  # fmt: skip
_SICI_GD8: Final = (
    1.0, 1.68548898811011640017e0, 4.87852258695304967486e-1, 4.67913194259625806320e-2,
    1.90284426674399523638e-3, 3.68475504442561108162e-5, 3.57043223443740838771e-7,
    1.72693748966316146736e-9, 3.87830166023954706752e-12, 3.14040098946363335242e-15,
)  # fmt: skip


def _sici_series(x: Array) -> tuple[Array, Array]:
    # 0 <= x <= 4
    t = x * x
    si = (x * poly(_SICI_SN, t)) / poly(_SICI_SD, t)
    ci = np.euler_gamma + enp.log(x) + t * poly(_SICI_CN, t) / poly(_SICI_CD, t)
    zero = enp.equal(x, 0)
    return enp.where(zero, 0.0, si), enp.where(zero, -_INF, ci)


def _sici_asymptotic(x: Array) -> tuple[Array, Array]:
    # 4 < x <= 1e9
    s, c = enp.sin(x), enp.cos(x)
    z = 1.0 / (x * x)
    f4 = poly(_SICI_FN4, z) / (x * poly(_SICI_FD4, z))
    g4 = z * poly(_SICI_GN4, z) / poly(_SICI_GD4, z)
    f8 = poly(_SICI_FN8, z) / (x * poly(_SICI_FD8, z))
    g8 = z * poly(_SICI_GN8, z) / poly(_SICI_GD8, z)
    below8 = x < 8.0
    f, g = enp.where(below8, f4, f8), enp.where(below8, g4, g8)
    return (math.pi / 2) - f * c - g * s, f * s - g * c


def _sici_huge(x: Array) -> tuple[Array, Array]:
    # x > 1e9
    inf = mnp.isposinf(x)
    si = enp.where(inf, math.pi / 2, (math.pi / 2) - enp.cos(x) / x)
    return si, enp.where(inf, 0.0, enp.sin(x) / x)


@custom_jvp
def _sici(x: Array) -> tuple[Array, Array]:
    x_abs = lax.abs(x)
    si_series, ci_series = _sici_series(x_abs)
    si_asymptotic, ci_asymptotic = _sici_asymptotic(x_abs)
    si_huge, ci_huge = _sici_huge(x_abs)
    conds = [x_abs <= 4, enp.logical_and(x_abs > 4, x_abs <= 1e9)]
    si = select(conds, [si_series, si_asymptotic], si_huge)
    ci = select(conds, [ci_series, ci_asymptotic], ci_huge)
    return enp.sign(x) * si, enp.where(mnp.isneginf(x), _NAN, ci)


@_sici.defjvp
def _sici_jvp(primals: tuple[Array], tangents: tuple[Array]) -> Any:
    (p,), (t,) = primals, tangents
    return _sici(p), (mnp.sinc(p / math.pi) * t, enp.cos(p) / p * t)


def sici(x: ArrayLike) -> tuple[Array, Array]:
    """The sine and cosine integrals ``(Si(x), Ci(x))`` (Cephes' approximations).

    >>> si, ci = sici(np.array([1.0, 10.0]))
    >>> si
    Array([0.94608307, 1.6583477 ], dtype=float32)
    >>> ci
    Array([ 0.33740395, -0.04545644], dtype=float32)
    """
    (v,) = inexact_args("sici", x)
    si, ci = _sici(v)
    return as_result(si), as_result(ci)


# --- the dilogarithm ----------------------------------------------------------------------

_SPENCE_A: Final = (
    4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
    8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
    3.29771340985225106936e0, 1.00000000000000000126e0,
)  # fmt: skip
_SPENCE_B: Final = (
    6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
    1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
    3.54771340985225096217e0, 9.99999999999999998740e-1,
)  # fmt: skip


def _spence_calc(x: Array) -> Array:
    above2 = x > 2.0
    x = piecewise(x, [above2], [lambda v: 1.0 / v, lambda v: v])
    above15 = x > 1.5
    below05 = x < 0.5
    above2 = enp.logical_or(above2, above15)
    w = piecewise(x, [above15, below05], [lambda v: 1.0 / v - 1.0, lambda v: -v, lambda v: v - 1.0])
    y = -w * poly(_SPENCE_A, w) / poly(_SPENCE_B, w)
    y = enp.where(below05, math.pi**2 / 6.0 - enp.log(x) * enp.log(1.0 - x) - y, y)
    return enp.where(above2, -0.5 * enp.log(x) ** 2 - y, y)


def spence(x: ArrayLike) -> Array:
    """The dilogarithm ``integral_1^x log(t) / (1 - t) dt`` (Cephes); NaN for ``x < 0``.

    Only float32 and float64 operands are accepted, as in JAX.

    >>> spence(np.array([0.0, 1.0, 2.0], dtype=np.float32))
    Array([ 1.644934  ,  0.        , -0.82246685], dtype=float32)
    """
    v = asarray(x)
    dtype = get_aval(v).dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"spence: x.dtype={dtype} is not supported (float32 or float64 only)")
    return piecewise(
        v,
        [v < 0.0, enp.equal(v, 1.0), enp.equal(v, 0.0)],
        [_NAN, 0, math.pi**2 / 6, _spence_calc],
    )


# --- Owen's T function --------------------------------------------------------------------

# Patefield and Tandy (2000), method T5: 13-point Gauss quadrature of
# T(h, a) = a sum_i w_i exp(-h**2 (1 + a**2 t_i) / 2) / (1 + a**2 t_i).
_OWENS_T_POINTS: Final = (
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704,
)  # fmt: skip
_OWENS_T_WEIGHTS: Final = (
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239,
    0.0038862217010742058, 0.0016793031084546090,
)  # fmt: skip


def _owens_t_quadrature(h: Array, a: Array) -> Array:
    dtype = get_aval(a).dtype
    points = asarray(np.asarray(_OWENS_T_POINTS), dtype)
    r = expand_dims(lax.square(a), -1) * points
    integrand = enp.exp(-0.5 * expand_dims(lax.square(h), -1) * (1.0 + r)) / (1.0 + r)
    return a * matmul(integrand, asarray(np.asarray(_OWENS_T_WEIGHTS), dtype))


@custom_jvp
def _owens_t(h: Array, a: Array) -> Array:
    h_abs, a_abs = lax.abs(h), lax.abs(a)
    root_2 = math.sqrt(2)
    h_normed = h_abs / root_2
    near = a_abs <= 1.0
    mod_a = enp.where(near, a_abs, mnp.reciprocal(a_abs))
    mod_h = enp.where(near, h_abs, a_abs * h_abs)
    result = _owens_t_quadrature(mod_h, mod_a)
    # Exact values at h = 0 and a = 1.
    result = enp.where(enp.equal(mod_h, 0.0), mnp.arctan(mod_a) / (2 * math.pi), result)
    result = enp.where(
        enp.equal(mod_a, 1.0),
        0.125 * lax.erfc(-mod_h / root_2) * lax.erfc(mod_h / root_2),
        result,
    )
    # The reciprocal relation for |a| > 1.
    normh = lax.erfc(h_normed)
    normah = lax.erfc(a_abs * h_normed)
    reciprocal = enp.where(
        a_abs * h_abs <= 0.67,
        0.25 - 0.25 * lax.erf(h_normed) * lax.erf(a_abs * h_normed) - result,
        0.25 * (normh + normah - normh * normah) - result,
    )
    result = lax.sign(a) * enp.where(a_abs > 1.0, reciprocal, result)
    nan = enp.logical_or(mnp.isnan(a), mnp.isnan(h))
    return enp.where(nan, lax.full_like(result, _NAN), result)


@_owens_t.defjvp
def _owens_t_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> Any:
    (h, a), (dh, da) = primals, tangents
    result = _owens_t(h, a)
    dout_dh = (
        -lax.exp(-0.5 * lax.square(h))
        * lax.erf(a * h / math.sqrt(2))
        / (2.0 * math.sqrt(2.0 * math.pi))
    )
    a2p1 = lax.square(a) + 1.0
    dout_da = lax.exp(-0.5 * a2p1 * lax.square(h)) / (2.0 * math.pi * a2p1)
    return result, astype(dout_dh * dh + dout_da * da, get_aval(result).dtype)


def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function ``T(h, a)`` (Patefield and Tandy's quadrature), differentiable in both.

    >>> owens_t(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    Array([0.125     , 0.04306469], dtype=float32)
    """
    h_arr, a_arr = inexact_args("owens_t", h, a)
    return as_result(_owens_t(h_arr, a_arr))
