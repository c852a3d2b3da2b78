"""Special and inverse-trigonometric element-wise primitives: declarations, typing, wrappers.

``erf``, ``erfc``, ``erf_inv``, ``lgamma``, ``digamma``, ``polygamma``,
the hyperbolic and inverse trigonometric functions (``sinh`` ... ``atanh``,
``atan2``), ``exp2``, ``is_finite`` and ``nextafter``, the incomplete gamma
and beta functions (``igamma``, ``igammac``, ``igamma_grad_a``,
``random_gamma_grad``, ``betainc``, whose primitive is JAX's
``regularized_incomplete_beta``), ``zeta`` and the scaled Bessel functions
``bessel_i0e`` and ``bessel_i1e``: JAX's ``lax`` primitives of those names,
with JAX's operand rules. (JAX's ``random_gamma_grad`` is a function of lax
operations, not a primitive; didax's is a primitive, not public as one,
lowered to those operations.) The interpreters'
rules are in ``interpreters.special``, the lowerings in ``lowering.special``.

Design rules:
- Every one of them takes floating-point operands only, as JAX's (an
  integer is refused, not converted: ``didax.numpy`` converts first);
  binary ones (``atan2``, ``nextafter``, ``polygamma``) take operands of one
  shape and dtype, a weakly typed operand taking its partner's dtype.
- ``is_finite`` is a predicate: a boolean result (weakly typed when its
  operand is, as JAX's), so its tangent is a ``float0`` zero.
- The groups (``SPECIAL_UNARY``, ``SPECIAL_BINARY``) let interpreters
  register one rule for many primitives; ``SPECIAL_PRIMITIVES`` holds them
  all.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, same_shapes_and_dtypes
from didax.core.basearray import Value
from didax.core.lax.elementwise import nary, unary
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike

__all__ = [
    "erf_p",
    "erfc_p",
    "erf_inv_p",
    "lgamma_p",
    "digamma_p",
    "polygamma_p",
    "sinh_p",
    "cosh_p",
    "asin_p",
    "acos_p",
    "atan_p",
    "asinh_p",
    "acosh_p",
    "atanh_p",
    "atan2_p",
    "exp2_p",
    "is_finite_p",
    "nextafter_p",
    "igamma_p",
    "igammac_p",
    "igamma_grad_a_p",
    "regularized_incomplete_beta_p",
    "zeta_p",
    "bessel_i0e_p",
    "bessel_i1e_p",
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "digamma",
    "polygamma",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "atan2",
    "exp2",
    "is_finite",
    "nextafter",
    "igamma",
    "igammac",
    "igamma_grad_a",
    "random_gamma_grad",
    "betainc",
    "zeta",
    "bessel_i0e",
    "bessel_i1e",
]

erf_p, erfc_p, erf_inv_p, lgamma_p, digamma_p = primitives(
    "erf", "erfc", "erf_inv", "lgamma", "digamma"
)
polygamma_p: Final = Primitive("polygamma", scalar_operands=True)
sinh_p, cosh_p, asin_p, acos_p, atan_p, asinh_p, acosh_p, atanh_p = primitives(
    "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh"
)
atan2_p: Final = Primitive("atan2", scalar_operands=True)
exp2_p, is_finite_p = primitives("exp2", "is_finite")
nextafter_p, igamma_p, igammac_p, igamma_grad_a_p, random_gamma_grad_p = primitives(
    "nextafter", "igamma", "igammac", "igamma_grad_a", "random_gamma_grad", scalar_operands=True
)
regularized_incomplete_beta_p: Final = Primitive(
    "regularized_incomplete_beta", scalar_operands=True
)
zeta_p: Final = Primitive("zeta", scalar_operands=True)
bessel_i0e_p, bessel_i1e_p = primitives("bessel_i0e", "bessel_i1e")

# The hyperbolic and inverse trigonometric functions and exp2 are analytic:
# they take complex numbers too, as JAX's.
COMPLEX_ANALYTIC: Final = (
    sinh_p,
    cosh_p,
    asin_p,
    acos_p,
    atan_p,
    asinh_p,
    acosh_p,
    atanh_p,
    exp2_p,
)
# Float to float, one operand.
SPECIAL_UNARY: Final = (
    erf_p,
    erfc_p,
    erf_inv_p,
    lgamma_p,
    digamma_p,
    *COMPLEX_ANALYTIC,
    bessel_i0e_p,
    bessel_i1e_p,
)
# Float to float, two operands of one type.
SPECIAL_BINARY: Final = (
    polygamma_p,
    atan2_p,
    nextafter_p,
    igamma_p,
    igammac_p,
    igamma_grad_a_p,
    random_gamma_grad_p,
    zeta_p,
)
# Float to float, three operands of one type.
SPECIAL_TERNARY: Final = (regularized_incomplete_beta_p,)
SPECIAL_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    *SPECIAL_UNARY,
    *SPECIAL_BINARY,
    *SPECIAL_TERNARY,
    is_finite_p,
)


# --- typing rules -------------------------------------------------------------------------


def _check_float(*avals: ShapedArray) -> None:
    for a in avals:
        if not dtypes.is_float(a.dtype):
            raise dtype_failure(f"operands must be floating-point, got {a.dtype}")


def _float_unary_abstract_eval(x: ShapedArray) -> ShapedArray:
    _check_float(x)
    return x


def _float_nary_abstract_eval(*avals: ShapedArray) -> ShapedArray:
    # The binary and ternary ones are all scalar_operands primitives.
    _check_float(*avals)
    return same_shapes_and_dtypes(*avals, scalars=True)


def _analytic_unary_abstract_eval(x: ShapedArray) -> ShapedArray:
    if not dtypes.is_inexact(x.dtype):
        raise dtype_failure(f"operands must be floating-point or complex, got {x.dtype}")
    return x


for _p in SPECIAL_UNARY:
    if _p in COMPLEX_ANALYTIC:
        ABSTRACT_EVAL.register(_p, _analytic_unary_abstract_eval)
    else:
        ABSTRACT_EVAL.register(_p, _float_unary_abstract_eval)
for _p in (*SPECIAL_BINARY, *SPECIAL_TERNARY):
    ABSTRACT_EVAL.register(_p, _float_nary_abstract_eval)


@ABSTRACT_EVAL.defines(is_finite_p)
def _is_finite_abstract_eval(x: ShapedArray) -> ShapedArray:
    _check_float(x)
    return ShapedArray(x.shape, dtypes.bool_, x.weak_type)


# --- the didax.lax wrappers ----------------------------------------------------------------


def erf(x: ArrayLike) -> Value:
    """Element-wise error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    >>> import numpy as np
    >>> erf(np.array([0.0, 0.5], np.float32))
    Array([0.       , 0.5204999], dtype=float32)
    """
    return nary(erf_p, x)


erfc = unary(
    erfc_p, "Element-wise complementary error function ``1 - erf(x)``, accurate for large ``x``."
)


def erf_inv(x: ArrayLike) -> Value:
    """Element-wise inverse of ``erf`` on ``[-1, 1]`` (``-inf`` and ``inf`` at the ends).

    >>> import numpy as np
    >>> erf_inv(np.array([0.0, 0.5, 1.0]))
    Array([0.        , 0.47693628,        inf], dtype=float32)
    """
    return nary(erf_inv_p, x)


lgamma = unary(lgamma_p, "Element-wise ``log(|gamma(x)|)``.")
digamma = unary(digamma_p, "Element-wise digamma function, the derivative of ``lgamma``.")


def polygamma(m: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise ``m``-th derivative of ``digamma`` (``m`` a non-negative whole float)."""
    return nary(polygamma_p, m, x)


sinh = unary(sinh_p, "Element-wise hyperbolic sine.")
cosh = unary(cosh_p, "Element-wise hyperbolic cosine.")
asin = unary(asin_p, "Element-wise inverse sine (NaN outside ``[-1, 1]``).")
acos = unary(acos_p, "Element-wise inverse cosine (NaN outside ``[-1, 1]``).")
atan = unary(atan_p, "Element-wise inverse tangent.")
asinh = unary(asinh_p, "Element-wise inverse hyperbolic sine.")
acosh = unary(acosh_p, "Element-wise inverse hyperbolic cosine (NaN below 1).")
atanh = unary(
    atanh_p, "Element-wise inverse hyperbolic tangent (``+-inf`` at ``+-1``, NaN beyond)."
)


def atan2(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``atan(x / y)`` in the quadrant of the point ``(y, x)`` (C's ``atan2(x, y)``).

    >>> import numpy as np
    >>> atan2(np.array([1.0, -1.0]), -1.0)
    Array([ 2.3561945, -2.3561945], dtype=float32)
    """
    return nary(atan2_p, x, y)


exp2 = unary(exp2_p, "Element-wise ``2 ** x``, computed as JAX's: ``exp(log(2) * x)``.")


def is_finite(x: ArrayLike) -> Value:
    """Element-wise test for a finite value (neither infinite nor NaN); a boolean array.

    >>> import numpy as np
    >>> is_finite(np.array([1.0, np.inf, np.nan]))
    Array([ True, False, False], dtype=bool)
    """
    return nary(is_finite_p, x)


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Value:
    """Element-wise next float after ``x1`` in the direction of ``x2``."""
    return nary(nextafter_p, x1, x2)


def igamma(a: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise regularized lower incomplete gamma function ``P(a, x)``.

    >>> import numpy as np
    >>> igamma(np.float32(1.0), np.float32(2.0))
    Array(0.8646648, dtype=float32)
    """
    return nary(igamma_p, a, x)


def igammac(a: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return nary(igammac_p, a, x)


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise derivative of ``igamma(a, x)`` with respect to ``a``."""
    return nary(igamma_grad_a_p, a, x)


def random_gamma_grad(a: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise derivative in ``a`` of a sample ``x`` of ``Gamma(a, 1)`` (``igamma`` held)."""
    return nary(random_gamma_grad_p, a, x)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Value:
    """Element-wise regularized incomplete beta function ``I_x(a, b)``.

    >>> import numpy as np
    >>> betainc(np.float32(2.0), np.float32(3.0), np.float32(0.5))
    Array(0.6874998, dtype=float32)
    """
    return nary(regularized_incomplete_beta_p, a, b, x)


def zeta(x: ArrayLike, q: ArrayLike) -> Value:
    """Element-wise Hurwitz zeta function ``sum_k (k + q) ** -x``."""
    return nary(zeta_p, x, q)


bessel_i0e = unary(
    bessel_i0e_p,
    "Element-wise ``exp(-|x|) I0(x)``, the scaled modified Bessel function of order 0.",
)
bessel_i1e = unary(
    bessel_i1e_p,
    "Element-wise ``exp(-|x|) I1(x)``, the scaled modified Bessel function of order 1.",
)
