"""``named_call``, ``named_scope`` and ``ensure_compile_time_eval``, as JAX's.

Design rules:
- ``named_scope(name)`` is a context manager (and decorator) that pushes
  ``name`` on a per-thread name stack, and ``named_call(fun, name=...)`` is
  ``fun`` run inside ``named_scope(name)``, as JAX defines it. JAX copies
  the stack into each equation's source info, from where it reaches the
  StableHLO locations (``loc("jit(f)/name/mul")``) and the profiler's op
  names; didax's equations carry no source info, so the names are checked
  and kept (``current_name_stack``) but do not reach the lowered program.
  Values, jaxprs and derivatives are exactly ``fun``'s, as in JAX.
- ``ensure_compile_time_eval()`` makes staging traces evaluate a primitive
  whose operands are all concrete instead of recording it (JAX's
  ``eager_constant_folding``): the results are concrete Arrays usable in
  Python control flow under ``jit``; operations on staged values are still
  staged. The switch lives in ``core.trace``; ``interpreters.staging``
  reads it.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

from didax.core.trace import compile_time_eval

__all__ = ["named_call", "named_scope", "ensure_compile_time_eval"]

_F = TypeVar("_F", bound=Callable[..., Any])


class _NameStack(threading.local):
    names: tuple[str, ...] = ()


_stack = _NameStack()


def current_name_stack() -> str:
    """The names of the enclosing ``named_scope``s, outermost first, joined by ``/``."""
    return "/".join(_stack.names)


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Adds ``name`` to the name stack for the operations in the body (JAX's ``named_scope``).

    Usable as ``with named_scope("layer1"):`` or as a decorator.

    >>> import didax as dx
    >>> with dx.named_scope("layer1"):
    ...     print(float(dx.numpy.sin(0.0)))
    0.0
    """
    if not isinstance(name, str):
        raise TypeError(f"named_scope: the name must be a str, got {type(name).__name__}")
    prev = _stack.names
    _stack.names = (*prev, name)
    try:
        yield
    finally:
        _stack.names = prev


def named_call(fun: _F, *, name: str | None = None) -> _F:
    """``fun`` with its operations under ``named_scope(name)`` (default: ``fun.__name__``).

    >>> import didax as dx
    >>> f = dx.named_call(lambda x: x * 2.0, name="double")
    >>> float(f(3.0))
    6.0
    """
    scope = name if name is not None else getattr(fun, "__name__", None)
    if scope is None:
        raise TypeError(f"named_call: {type(fun).__name__} has no __name__; pass name= explicitly")

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        with named_scope(scope):
            return fun(*args, **kwargs)

    return cast(_F, named)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Operations on concrete values run now, even while ``jit`` traces (JAX's context manager).

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> @dx.jit
    ... def f(x):
    ...     with dx.ensure_compile_time_eval():
    ...         positive = dnp.sin(3.0) > 0  # a concrete Array, usable in an ``if``
    ...     return dnp.sin(x) if positive else dnp.cos(x)
    >>> f(0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    with compile_time_eval():
        yield
