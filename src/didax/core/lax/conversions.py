"""Conversions between dtypes: ``convert_element_type``, its typing rule and ``didax.lax`` wrapper.

``convert_element_type_p`` changes an array's dtype (and weak type) element
by element, with XLA's semantics: floats to integers truncate toward zero
and saturate (NaN becomes 0), complex to real keeps the real part,
integers wrap. Its interpreters' rules are in ``interpreters.conversions``,
its lowering in ``lowering.conversions``. (A bit-preserving cast,
``bitcast_convert_type``, is one of ``core.lax.bits``.)

Design rules:
- Every conversion of an array in didax is this primitive: ``core.promotion``
  binds it (it imports this module), so this module imports no promotion,
  and its wrapper converts exactly what it is asked to.
- The params are ``new_dtype`` (a canonical NumPy dtype) and ``weak_type``.
- ``reduce_precision_p`` rounds floats to ``exponent_bits`` and
  ``mantissa_bits`` as XLA's ``ReducePrecision`` does (to nearest even,
  overflow to infinity, underflow and subnormals to zero, NaNs kept), in
  the operand's own dtype and weak type.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, check_kinds, shape_failure
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.operands import bind_value
from didax.core.primitive import primitives
from didax.core.values import ArrayLike, get_aval, is_python_scalar

__all__ = [
    "convert_element_type_p",
    "convert_element_type",
    "reduce_precision_p",
    "reduce_precision",
]

convert_element_type_p, reduce_precision_p = primitives("convert_element_type", "reduce_precision")


@ABSTRACT_EVAL.defines(convert_element_type_p)
def _convert_element_type_abstract_eval(
    x: ShapedArray, *, new_dtype: DType, weak_type: bool
) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


def convert_element_type(x: ArrayLike, new_dtype: DTypeLike, weak_type: bool = False) -> Value:
    """Converts ``x`` to ``new_dtype`` (floats to integers round toward zero).

    >>> convert_element_type(np.arange(3), np.float32)
    Array([0., 1., 2.], dtype=float32)
    """
    if is_python_scalar(x):
        x = np.asarray(x, dtypes.python_scalar_dtype(x))
    new = dtypes.canonicalize(new_dtype)
    if dtypes.is_complex(get_aval(x).dtype) and not dtypes.is_complex(new):
        # As JAX (and NumPy): the conversion keeps the real part, with a warning.
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
            stacklevel=2,
        )
    return bind_value(convert_element_type_p, x, new_dtype=new, weak_type=bool(weak_type))


@ABSTRACT_EVAL.defines(reduce_precision_p)
def _reduce_precision_abstract_eval(
    x: ShapedArray, *, exponent_bits: int, mantissa_bits: int
) -> ShapedArray:
    check_kinds("f", "floating-point arrays", x)
    if exponent_bits < 1:
        raise shape_failure(f"exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise shape_failure(f"mantissa_bits must be non-negative; got {mantissa_bits}")
    return x


def reduce_precision(x: ArrayLike, exponent_bits: int, mantissa_bits: int) -> Value:
    """``x`` rounded to a float format of ``exponent_bits`` and ``mantissa_bits``, as XLA's.

    >>> reduce_precision(np.float32(0.1), exponent_bits=5, mantissa_bits=10)  # float16's
    Array(0.09997559, dtype=float32)
    """
    return bind_value(
        reduce_precision_p,
        x,
        exponent_bits=operator.index(exponent_bits),
        mantissa_bits=operator.index(mantissa_bits),
    )
