"""Array methods: NumPy's operators and methods on tracers and Arrays.

Importing this module installs them (JAX's ``_set_tracer_aval_forwarding``):
``+ - * / // % ** @``, comparisons, ``& | ^ << >> ~``, unary ``- + abs``,
``__getitem__``, ``.at``, ``.T``, ``.mT`` and ``reshape``, ``sum``, ``mean``,
``astype``, ... Core knows nothing of NumPy's broadcasting, so its
``Tracer`` and ``Array`` get their operators from this layer. Tracers and
Arrays stay unhashable.

The reductions take NumPy's keywords, since NumPy's own functions call
them (``np.sum(a)`` calls ``a.sum(axis=None, dtype=None, out=None)``): an
``out`` array cannot be written (Arrays are immutable) and is refused, as
in JAX.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, Final

import numpy as np

from didax.api.arrays import device_put
from didax.api.numpy.array_types import ArrayLike, Axis
from didax.api.numpy.bits import bitwise_xor, left_shift, right_shift
from didax.api.numpy.editing import choose, compress
from didax.api.numpy.elementwise import (
    abs,
    add,
    bitwise_and,
    bitwise_or,
    clip,
    divide,
    equal,
    floor_divide,
    greater,
    greater_equal,
    invert,
    less,
    less_equal,
    multiply,
    negative,
    not_equal,
    power,
    remainder,
    round,
    subtract,
)
from didax.api.numpy.index_updates import IndexUpdateHelper
from didax.api.numpy.indexing import getitem, take
from didax.api.numpy.joining import repeat
from didax.api.numpy.linear_algebra import dot, matmul
from didax.api.numpy.manipulation import ravel, reshape, squeeze, swapaxes, transpose
from didax.api.numpy.matrices import diagonal, trace
from didax.api.numpy.more_elementwise import conj, imag, real
from didax.api.numpy.more_routines import ptp
from didax.api.numpy.operands import as_result, asarray, is_array_like
from didax.api.numpy.positions import nonzero
from didax.api.numpy.reductions import argmax, argmin, cumsum, max, mean, min, prod, sum
from didax.api.numpy.searching import searchsorted
from didax.api.numpy.sorting import argpartition, argsort, sort
from didax.api.numpy.statistics import all, any, cumprod, std, var
from didax.core import dtypes, lax
from didax.core.array import Array
from didax.core.basearray import Value
from didax.core.dtypes import DTypeLike
from didax.core.trace import Tracer

__all__: list[str] = []


def _binary_operator(
    fn: Callable[[ArrayLike, ArrayLike], Value], reflected: bool
) -> Callable[[Value, object], object]:
    # An operand that is not array-like gets NotImplemented, so that Python
    # tries the other operand's method (and ``tracer == None`` is False).
    if reflected:

        def method(self: Value, other: object) -> object:
            return fn(other, self) if is_array_like(other) else NotImplemented

    else:

        def method(self: Value, other: object) -> object:
            return fn(self, other) if is_array_like(other) else NotImplemented

    return method


def _axes_args(args: tuple[Any, ...]) -> Any:
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike (also for transpose)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return args[0]
    return args


def _tracer_iter(self: Value) -> Iterator[Value]:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (getitem(self, i) for i in range(self.shape[0]))


def _no_out(name: str, out: object, where: object = None, initial: object = None) -> None:
    if out is not None:
        raise TypeError(
            f"{name}: the 'out' argument is not supported: didax Arrays are immutable, "
            "use the returned value"
        )
    if where is not None:
        raise NotImplementedError(f"{name}: the 'where' argument is not supported")
    if initial is not None:
        raise NotImplementedError(f"{name}: the 'initial' argument is not supported")


# NumPy's reduction methods: the function that does the work and NumPy's
# parameters, in NumPy's order (each positional or keyword, as NumPy's).
_REDUCTIONS: Final[dict[str, tuple[Callable[..., Value], str]]] = {
    "sum": (sum, "axis dtype out keepdims initial where"),
    "prod": (prod, "axis dtype out keepdims initial where"),
    "mean": (mean, "axis dtype out keepdims where"),
    "max": (max, "axis out keepdims initial where"),
    "min": (min, "axis out keepdims initial where"),
    "argmax": (argmax, "axis out keepdims"),
    "argmin": (argmin, "axis out keepdims"),
    "cumsum": (cumsum, "axis dtype out"),
    "cumprod": (cumprod, "axis dtype out"),
    "all": (all, "axis out keepdims where"),
    "any": (any, "axis out keepdims where"),
    "ptp": (ptp, "axis out keepdims"),
}


def _reduction_method(name: str, fn: Callable[..., Value], params: str) -> Callable[..., Value]:
    """``x.<name>(...)`` with NumPy's ``params``, passed on to ``fn`` by name.

    ``out``, ``where`` and ``initial`` are refused (``_no_out``); a call that
    NumPy's signature refuses gets its ``TypeError`` (``inspect.Signature``,
    which is slow, binds only those).
    """
    p = inspect.Parameter
    signature = inspect.Signature(
        [p("self", p.POSITIONAL_ONLY)]
        + [
            p(param, p.POSITIONAL_OR_KEYWORD, default=False if param == "keepdims" else None)
            for param in params.split()
        ]
    )
    names = params.split()
    known = frozenset(names)

    def method(self: Value, *args: Any, **kwargs: Any) -> Value:
        arguments = dict(zip(names, args, strict=False), **kwargs)  # (extra ones: below)
        if len(arguments) != len(args) + len(kwargs) or not arguments.keys() <= known:
            try:  # too many arguments, an unknown one or one given twice: Python's error
                signature.bind(self, *args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{name}() {e}") from None
        _no_out(name, *(arguments.pop(refused, None) for refused in ("out", "where", "initial")))
        return fn(self, **arguments)

    method.__name__ = method.__qualname__ = name
    setattr(method, "__signature__", signature)  # noqa: B010 - what inspect and help() show
    return method


def _clip(
    self: Value, min: ArrayLike | None = None, max: ArrayLike | None = None, out: object = None
) -> Value:
    _no_out("clip", out)
    return clip(self, min, max)


def _round(self: Value, decimals: int = 0, out: object = None) -> Value:
    _no_out("round", out)
    return round(self, decimals)


def _astype(self: Value, dtype: DTypeLike, copy: bool = False) -> Value:
    return asarray(self, dtype)


def _spread_method(name: str, fn: Callable[..., Value]) -> Callable[..., Value]:
    """``x.var(...)``/``x.std(...)`` with NumPy's parameters and JAX's ``where``/``correction``."""

    def method(
        self: Value,
        axis: Axis = None,
        dtype: DTypeLike = None,
        out: object = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        where: ArrayLike | None = None,
        correction: int | float | None = None,
    ) -> Value:
        _no_out(name, out)
        return fn(self, axis, dtype, ddof, keepdims, correction=correction, where=where)

    method.__name__ = method.__qualname__ = name
    return method


def _trace(
    self: Value,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: DTypeLike = None,
    out: object = None,
) -> Value:
    _no_out("trace", out)
    return trace(self, offset, axis1, axis2, dtype)


def _compress(
    self: Value,
    condition: ArrayLike,
    axis: int | None = None,
    *,
    out: object = None,
    size: int | None = None,
    fill_value: ArrayLike = 0,
) -> Value:
    return compress(condition, self, axis, out=out, size=size, fill_value=fill_value)


def _view(self: Value, dtype: DTypeLike = None, type: object = None) -> Value:
    """The same bits read as ``dtype`` (JAX's ``Array.view``: the last axis rescales)."""
    if type is not None:
        raise NotImplementedError("view: the 'type' argument is not supported")
    if dtype is None:
        return self
    new = dtypes.canonicalize(dtype)
    old = self.dtype
    if self.ndim == 0:
        if old.itemsize != new.itemsize:
            raise ValueError("view: a 0-d array can only be viewed as a dtype of the same size")
        return squeeze(_view(lax.expand_dims(self, (0,)), new), 0)
    if (self.shape[-1] * old.itemsize) % new.itemsize:
        raise ValueError(
            "view: the new dtype's size must divide the size in bytes of the last axis"
        )
    if old == new:
        return self
    # The bitcast takes no booleans and no complex numbers: go through uint8 and the parts.
    if old == dtypes.bool_:
        return _view(asarray(self, dtypes.uint8), new)
    if dtypes.is_complex(old):
        parts = lax.concatenate(
            [lax.expand_dims(real(self), (self.ndim,)), lax.expand_dims(imag(self), (self.ndim,))],
            self.ndim,
        )
        return _view(reshape(parts, (*self.shape[:-1], 2 * self.shape[-1])), new)
    if new == dtypes.bool_:
        return asarray(_view(self, dtypes.uint8), dtypes.bool_)
    if dtypes.is_complex(new):
        flat = asarray(_view(self, dtypes.real_dtype(new)), new)
        return add(flat[..., 0::2], multiply(1j, flat[..., 1::2]))
    if old.itemsize < new.itemsize:
        factor = new.itemsize // old.itemsize
        grouped = reshape(self, (*self.shape[:-1], self.shape[-1] // factor, factor))
        return as_result(lax.bitcast_convert_type(grouped, new))
    out = as_result(lax.bitcast_convert_type(self, new))
    if old.itemsize > new.itemsize:
        return reshape(out, (*out.shape[:-2], out.shape[-2] * out.shape[-1]))
    return out


def _byteswap(self: Value, inplace: bool = False) -> Value:
    """The elements with their bytes in reverse order (JAX's ``Array.byteswap``)."""
    if inplace:
        raise ValueError("byteswap: in-place byteswapping is not supported (Arrays are immutable)")
    if dtypes.is_complex(self.dtype):
        return as_result(lax.complex(_byteswap(real(self)), _byteswap(imag(self))))
    if self.dtype.itemsize == 1:
        return self
    as_bytes = lax.bitcast_convert_type(self, dtypes.uint8)
    return as_result(lax.bitcast_convert_type(lax.rev(as_bytes, (self.ndim,)), self.dtype))


def _flat(self: Value) -> Value:
    raise NotImplementedError(
        "didax Arrays do not implement the arr.flat property (as JAX's): use arr.flatten()"
    )


def _to_device(self: Array, device: Any, *, stream: object = None) -> Array:
    """A copy of the Array placed on ``device`` (a device or a sharding), as ``device_put``."""
    if stream is not None:
        raise NotImplementedError("to_device: the 'stream' argument is not supported")
    out: Array = device_put(self, device)
    return out


def _matrix_transpose(self: Value) -> Value:
    if self.ndim < 2:
        raise ValueError(f"mT needs an array of rank 2 or more, got rank {self.ndim}")
    return swapaxes(self, -1, -2)


_BINARY_OPERATORS: Final[dict[str, Callable[[ArrayLike, ArrayLike], Value]]] = {
    "add": add,
    "sub": subtract,
    "mul": multiply,
    "truediv": divide,
    "floordiv": floor_divide,
    "mod": remainder,
    "pow": power,
    "matmul": matmul,
    "and": bitwise_and,
    "or": bitwise_or,
    "xor": bitwise_xor,
    "lshift": left_shift,
    "rshift": right_shift,
}


_COMPARISON_OPERATORS: Final[dict[str, Callable[[ArrayLike, ArrayLike], Value]]] = {
    "eq": equal,
    "ne": not_equal,
    "lt": less,
    "le": less_equal,
    "gt": greater,
    "ge": greater_equal,
}


_METHODS: Final[dict[str, Callable[..., Any]]] = {
    "__neg__": negative,
    "__pos__": lambda self: self,
    "__abs__": abs,
    "__invert__": invert,
    "__getitem__": getitem,
    "reshape": lambda self, *shape, order="C": reshape(self, _axes_args(shape), order),
    "transpose": lambda self, *axes: transpose(self, _axes_args(axes) if axes else None),
    **{name: _reduction_method(name, fn, params) for name, (fn, params) in _REDUCTIONS.items()},
    "astype": _astype,
    "ravel": lambda self, order="C": ravel(self),
    "flatten": lambda self, order="C": ravel(self),
    "squeeze": squeeze,
    "swapaxes": swapaxes,
    "dot": dot,
    "clip": _clip,
    "round": _round,
    "conj": conj,
    "conjugate": conj,
    "var": _spread_method("var", var),
    "std": _spread_method("std", std),
    "sort": lambda self, axis=-1, **options: sort(self, axis, **options),
    "argsort": lambda self, axis=-1, **options: argsort(self, axis, **options),
    "argpartition": lambda self, kth, axis=-1: argpartition(self, kth, axis),
    "take": take,
    "repeat": repeat,
    "diagonal": diagonal,
    "trace": _trace,
    "nonzero": lambda self, *, fill_value=None, size=None: nonzero(
        self, size=size, fill_value=fill_value
    ),
    "searchsorted": searchsorted,
    "compress": _compress,
    "choose": choose,
    "view": _view,
    "byteswap": _byteswap,
}

_PROPERTIES: Final[dict[str, Callable[[Any], Any]]] = {
    "T": lambda self: transpose(self),
    "mT": _matrix_transpose,
    # Wrapped: a property's docstring would be collected as a doctest of Array.
    "real": lambda self: real(self),
    "imag": lambda self: imag(self),
    "at": IndexUpdateHelper,  # x.at[idx].set(y), .add(y), ..., .get()
    "flat": _flat,  # refused with JAX's advice
}


def _install_array_methods(cls: type) -> None:
    """Gives ``cls`` NumPy's operators and methods (JAX's ``_set_tracer_aval_forwarding``).

    Installed on ``Tracer`` and on the device ``Array``, whose layers know
    nothing of NumPy semantics.
    """
    for name, fn in _BINARY_OPERATORS.items():
        setattr(cls, f"__{name}__", _binary_operator(fn, reflected=False))
        setattr(cls, f"__r{name}__", _binary_operator(fn, reflected=True))
    for name, fn in _COMPARISON_OPERATORS.items():
        setattr(cls, f"__{name}__", _binary_operator(fn, reflected=False))
    for name, fn in _METHODS.items():
        setattr(cls, name, fn)
    for name, getter in _PROPERTIES.items():
        setattr(cls, name, property(getter))
    # Defining __eq__ must not make them hashable: keep their refusal.
    assert "__hash__" in vars(cls)


_install_array_methods(Tracer)
_install_array_methods(Array)
# Arrays iterate and copy on their host data (core.array); tracers here.
setattr(Tracer, "__iter__", _tracer_iter)  # noqa: B010 - installed, as the operators are
setattr(Tracer, "copy", lambda self: self)  # noqa: B010
# Placing on a device is for concrete Arrays only (a tracer has no device), as in JAX.
setattr(Array, "to_device", _to_device)  # noqa: B010
# A tracer's sizes are static (its aval's); its item() needs the value, and says so.
setattr(Tracer, "itemsize", property(lambda self: self.dtype.itemsize))  # noqa: B010
setattr(Tracer, "nbytes", property(lambda self: self.size * self.dtype.itemsize))  # noqa: B010
setattr(Tracer, "item", lambda self, *args: np.asarray(self).item(*args))  # noqa: B010
