"""Array methods: NumPy's operators and methods on tracers and device Arrays.

Importing this module installs them (JAX's ``_set_tracer_aval_forwarding``):
``+ - * / // % ** @``, comparisons, ``& | ~``, unary ``- + abs``,
``__getitem__``, ``__iter__``, ``.T`` and ``reshape``, ``sum``, ``mean``,
``astype``, ... Core and lowering know nothing of NumPy's broadcasting, so
their ``Tracer`` and ``Array`` get their operators from this layer. Tracers
and Arrays stay unhashable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

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
from didax.api.numpy.indexing import getitem
from didax.api.numpy.linear_algebra import dot, matmul
from didax.api.numpy.manipulation import ravel, reshape, squeeze, swapaxes, transpose
from didax.api.numpy.operands import asarray, is_array_like
from didax.api.numpy.reductions import argmax, argmin, cumsum, max, mean, min, prod, sum
from didax.core.trace import Tracer
from didax.lowering import array as _device

__all__: list[str] = []


def _binary_operator(fn: Callable[[Any, Any], Any], reflected: bool) -> Callable[[Any, Any], Any]:
    # An operand that is not array-like gets NotImplemented, so that Python
    # tries the other operand's method (and ``tracer == None`` is False).
    if reflected:

        def method(self: Any, other: Any) -> Any:
            return fn(other, self) if is_array_like(other) else NotImplemented

    else:

        def method(self: Any, other: Any) -> Any:
            return fn(self, other) if is_array_like(other) else NotImplemented

    return method


def _axes_args(args: tuple[Any, ...]) -> Any:
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike (also for transpose)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return args[0]
    return args


def _tracer_iter(self: Any) -> Any:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (getitem(self, i) for i in range(self.shape[0]))


_BINARY_OPERATORS: Final[dict[str, Callable[[Any, Any], Any]]] = {
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
}


_COMPARISON_OPERATORS: Final[dict[str, Callable[[Any, Any], Any]]] = {
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
    "__iter__": _tracer_iter,
    "reshape": lambda self, *shape, order="C": reshape(self, _axes_args(shape), order),
    "transpose": lambda self, *axes: transpose(self, _axes_args(axes) if axes else None),
    "sum": sum,
    "prod": prod,
    "mean": mean,
    "max": max,
    "min": min,
    "argmax": argmax,
    "argmin": argmin,
    "cumsum": cumsum,
    "astype": lambda self, dtype: asarray(self, dtype),
    "ravel": ravel,
    "flatten": ravel,
    "squeeze": squeeze,
    "swapaxes": swapaxes,
    "dot": dot,
    "clip": clip,
    "round": round,
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
    cls.T = property(lambda self: transpose(self))  # type: ignore[attr-defined]
    # Defining __eq__ must not make them hashable: keep their refusal.
    assert "__hash__" in vars(cls)


_install_array_methods(Tracer)


_install_array_methods(Tracer)
_install_array_methods(_device.Array)
