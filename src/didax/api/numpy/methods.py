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

from didax.api.numpy.array_types import ArrayLike
from didax.api.numpy.bits import bitwise_xor, left_shift, right_shift
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
from didax.api.numpy.indexing import getitem
from didax.api.numpy.linear_algebra import dot, matmul
from didax.api.numpy.manipulation import ravel, reshape, squeeze, swapaxes, transpose
from didax.api.numpy.more_elementwise import conj, imag, real
from didax.api.numpy.operands import asarray, is_array_like
from didax.api.numpy.reductions import argmax, argmin, cumsum, max, mean, min, prod, sum
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
}

_PROPERTIES: Final[dict[str, Callable[[Any], Any]]] = {
    "T": lambda self: transpose(self),
    "mT": _matrix_transpose,
    # Wrapped: a property's docstring would be collected as a doctest of Array.
    "real": lambda self: real(self),
    "imag": lambda self: imag(self),
    "at": IndexUpdateHelper,  # x.at[idx].set(y), .add(y), ..., .get()
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
