"""What the bind wrappers of every family share: operands and axes in one spelling.

Design rules:
- A wrapper normalises what users pass before it binds, so that a
  primitive's params have exactly one spelling (fingerprints and caches
  stay exact): negative axes become non-negative (``normalize_axis``), and
  a Python scalar operand becomes a weakly typed Array of its default dtype
  (``as_operand``).
- Nothing here promotes: this module sits below every family module of
  ``core.lax`` and below ``core.promotion``. ``bind_value`` binds a
  single-result primitive and says what it returns: a ``Value`` (an
  ``Array`` eagerly, a ``Tracer`` under a transformation).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from didax.core.basearray import Value
from didax.core.primitive import Primitive, registering_module
from didax.core.values import ArrayLike, as_array, get_aval, is_python_scalar, wrap_host

__all__ = [
    "as_operand",
    "bind_value",
    "lax_wrapper",
    "named",
    "ndim",
    "normalize_axis",
    "normalize_axes",
]

F = TypeVar("F", bound=Callable[..., Any])


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` as a non-negative axis of a rank-``ndim`` operand; a ``ValueError`` if out of range.

    >>> normalize_axis(-1, 3)
    2
    """
    if not -ndim <= axis < ndim:
        from didax.core.source_info import user_frame_summary

        raise ValueError(f"axis {axis} is out of range for rank {ndim} (at {user_frame_summary()})")
    return axis % ndim if ndim else axis


def normalize_axes(axes: Sequence[int] | int, ndim: int) -> tuple[int, ...]:
    """``normalize_axis`` of each of ``axes`` (one int is one axis)."""
    if isinstance(axes, int):
        axes = (axes,)
    return tuple(normalize_axis(int(a), ndim) for a in axes)


def ndim(x: ArrayLike) -> int:
    """The rank of ``x`` (a Python scalar's is 0)."""
    return get_aval(x).ndim


def as_operand(x: ArrayLike) -> ArrayLike:
    """A Python scalar as a weakly typed Array of its default dtype; anything else as it is."""
    return wrap_host(as_array(x), type(x) is not bool) if is_python_scalar(x) else x


def bind_value(prim: Primitive, *args: ArrayLike, **params: object) -> Value:
    """``prim.bind(*args, **params)`` for a primitive with one result, typed as what it is."""
    out: Value = prim.bind(*args, **params)
    return out


def named(fn: F, name: str, doc: str) -> F:
    """``fn``, which a factory built, as the public function ``name`` documented by ``doc``.

    Its code object is renamed too: tracebacks, and the errors that name the
    function the user called (``_calling_function`` reads frames), say ``name``.
    """
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    if isinstance(fn, types.FunctionType):
        fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    return fn


def lax_wrapper(fn: F, name: str, doc: str) -> F:
    """``named``, of the ``didax.lax`` module whose import calls the factory that built ``fn``."""
    fn = named(fn, name, doc)
    fn.__module__ = registering_module()
    return fn
