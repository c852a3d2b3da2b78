"""Promotion: how operands of different dtypes, and weakly typed values, meet.

Design rules:
- One home for promotion (JAX's lattice, ``dtypes.result_type``). The
  strict ``didax.lax`` wrappers (a weakly typed operand takes its strong
  partner's dtype; nothing else is converted: ``coerce_weak``) and
  ``didax.numpy`` (JAX's lattice with weak Python scalars: ``result_type``,
  then ``convert``) both build on the functions here, so a Python scalar is
  turned into an array in exactly one way.
- Every conversion of an array goes through ``convert_element_type``:
  staged, it is an explicit equation; on concrete host data it runs that
  primitive's impl rule right away (under the root trace, so nothing is
  staged), which saturates floats converted to integers as XLA does (NaN
  becomes 0, out-of-range values the nearest bound). NumPy's own casts are
  never used for that, so eager NumPy input and jitted code agree.
- A Python scalar stays a Python scalar while it can (a weak result of the
  default width): it is then weak to every trace, and stages as a weak
  literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, overload

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.basearray import HostArray, Value
from didax.core.dtypes import DType
from didax.core.errors import DTypeError
from didax.core.lax.conversions import convert_element_type_p
from didax.core.lax.structural import broadcast_in_dim_p
from didax.core.primitive import Primitive
from didax.core.trace import Tracer, eager_evaluation
from didax.core.values import (
    ArrayLike,
    PythonScalar,
    ValueKind,
    as_array,
    get_aval,
    is_python_scalar,
    value_kind,
    wrap_host,
)

_KIND_RANK: Final = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def kind_rank(dtype: DType) -> int:
    """bool < integers < floats < complex: the order in which weak values raise a result's kind."""
    return _KIND_RANK[dtypes.kind(dtype)]


def result_type(*values: ArrayLike) -> tuple[DType, bool]:
    """The promoted dtype of ``values`` and whether it is weak (JAX's lattice).

    >>> result_type(np.ones(2, np.float32), 2.0)
    (dtype('float32'), False)
    >>> result_type(np.ones(2, np.int32), np.ones(2, np.float32))
    (dtype('float32'), False)
    """
    avals = [get_aval(v) for v in values]
    return dtypes.result_type((a.dtype, a.weak_type) for a in avals)


def scalar_as(x: PythonScalar, dtype: DType, weak: bool = False) -> ArrayLike:
    """The Python scalar ``x`` as a value of ``dtype``.

    A weak result of the default width keeps the Python scalar itself (it is
    weak to every trace); otherwise ``x`` becomes a NumPy scalar array.
    """
    if weak and dtype == dtypes.default_complex():
        return complex(x)
    if weak and dtype == dtypes.default_float() and not isinstance(x, (bool, complex)):
        return float(x)
    if weak and dtype == dtypes.default_int() and type(x) is int:
        return x
    if dtypes.is_integer(dtype) and isinstance(x, float):
        return _host_convert(np.asarray(x, dtypes.float64), dtype)
    return np.asarray(x, dtype)


def _host_convert(x: HostArray, dtype: DType, weak: bool = False) -> Array:
    """``convert_element_type`` of concrete host data, evaluated now (the impl rule)."""
    with eager_evaluation():
        out = convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak)
    assert isinstance(out, Array)
    return out


@overload
def convert(x: Value, dtype: DType, weak: bool = False) -> Value: ...
@overload
def convert(x: ArrayLike, dtype: DType, weak: bool = False) -> ArrayLike: ...
def convert(x: ArrayLike, dtype: DType, weak: bool = False) -> ArrayLike:
    """``x`` converted to ``dtype`` (weakly typed if ``weak``), by ``convert_element_type``.

    A value already of ``dtype`` is returned as it is, weak or not.

    Python scalars are converted on the host (``scalar_as``); host arrays
    by the primitive's impl rule, now; tracers and device arrays by binding
    the primitive under the current trace.

    >>> convert(np.array([np.nan, 1e10, -2.7]), dtypes.int32)
    Array([         0, 2147483647,         -2], dtype=int32)
    """
    if is_python_scalar(x):
        return scalar_as(x, dtype, weak)
    aval = get_aval(x)
    if aval.dtype == dtype:
        return x
    kind = value_kind(x)
    if kind is ValueKind.HOST or kind is ValueKind.FOREIGN:
        arr = as_array(x)
        return arr if arr.dtype == dtype else _host_convert(arr, dtype, weak)
    out: Value = convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak)
    return out


def coerce_weak(prim: Primitive, args: Sequence[ArrayLike]) -> list[ArrayLike]:
    """The strict ``lax`` rule: weakly typed operands take their strong partner's dtype.

    A Python scalar also takes its partner's shape (an explicit
    ``broadcast_in_dim``), unless ``prim`` takes scalar operands. With no
    strong operand, the first weak one's dtype wins; only Python scalars
    promote among themselves and stay weak (``lax.add(2, 3.0)`` is a weak
    float, as JAX's). A Python scalar of a
    higher kind than its partner (``2.5`` with an integer array) is a
    ``DTypeError``: lax never promotes arrays.
    """
    # Fast path (eager dispatch, most tracing): nothing is weakly typed.
    for a in args:
        t = type(a)
        if t is Array:
            if a.aval.weak_type:  # type: ignore[union-attr]
                break
        elif (
            t is not np.ndarray
            and not isinstance(a, np.generic)  # a NumPy scalar is strongly typed
            and not (isinstance(a, Tracer) and not a.aval.weak_type)
        ):
            break
    else:
        return list(args)
    avals = [None if is_python_scalar(a) else get_aval(a) for a in args]
    strong = [a for a in avals if a is not None and not a.weak_type]
    target: ShapedArray
    if strong:
        target = strong[0]
    else:
        weak_avals = [a for a in avals if a is not None]
        if not weak_avals:  # only Python scalars: weak, of their promoted dtype
            dtype, _ = result_type(*args)
            return [scalar_as(a, dtype, weak=True) for a in args]  # type: ignore[arg-type]
        target = weak_avals[0]
    return [coerce_to(prim, a, target) for a in args]


def coerce_to(prim: Primitive, x: ArrayLike, target: ShapedArray) -> ArrayLike:
    """``x`` given ``target``'s dtype if it is weakly typed (and shape, if a Python scalar).

    A strongly typed ``x`` is returned as it is: lax never promotes. This is
    also how an operand that must be a scalar of its partner's dtype (a
    padding value) takes it: with a rank-0 ``target``.
    """
    if is_python_scalar(x):
        return _scalar_like(prim, x, target)
    aval = get_aval(x)
    if aval.weak_type and aval.dtype != target.dtype:
        return convert(x, target.dtype)
    return x


def _scalar_like(prim: Primitive, x: PythonScalar, target: ShapedArray) -> ArrayLike:
    """The Python scalar ``x`` as an array of ``target``'s dtype and shape (weak if it is)."""
    if kind_rank(dtypes.python_scalar_dtype(x)) > kind_rank(target.dtype):
        from didax.core.source_info import user_frame_summary

        raise DTypeError(
            f"{prim.name}: the Python scalar {x!r} cannot take the dtype {target.dtype} "
            f"of its partner (at {user_frame_summary()})"
        )
    host = np.asarray(x, target.dtype)
    value: ArrayLike = wrap_host(host, weak_type=True) if target.weak_type else host
    if target.shape == () or prim.scalar_operands:
        return value  # a scalar operand stays rank-0 (JAX's ``mul x 2.0:f32[]``)
    out: Value = broadcast_in_dim_p.bind(value, shape=target.shape, broadcast_dimensions=())
    return out
