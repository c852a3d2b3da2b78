"""Naming the user's line in errors raised by argument checks of public functions.

The primitives' typing rules already name the user's line; the argument
checks of ``didax.numpy`` (shapes for ``reshape``, axes, operand counts, ...)
are many small ``raise`` sites. Rather than each formatting the location,
the public functions are wrapped once (``locate_errors``): a ``TypeError``,
``ValueError`` or ``IndexError`` leaving one gets a note with the caller's
``file:line``, unless its message names it already. The stack is read only
when an error is raised (see ``core.source_info``).

>>> import didax.numpy as dnp
>>> try:
...     dnp.reshape(dnp.ones(6), (4, 2))
... except ValueError as e:
...     print(e.__notes__[0].startswith("at "))
True
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, TypeVar, cast

from didax.core.source_info import user_frame_summary

__all__ = ["locate_errors", "locate_module_errors"]

F = TypeVar("F", bound=Callable[..., Any])

_LOCATED = (TypeError, ValueError, IndexError)


def locate_errors(fn: F) -> F:
    """``fn``, whose argument errors note the user's line."""

    @functools.wraps(fn)
    def located(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _LOCATED as e:
            where = user_frame_summary()
            if where not in str(e) and not any(where in n for n in getattr(e, "__notes__", ())):
                e.add_note(f"at {where}")
            raise

    return cast(F, located)


def locate_module_errors(namespace: MutableMapping[str, Any], names: Sequence[str]) -> None:
    """Wraps the public functions ``names`` of a facade module's ``namespace`` in place."""
    for name in names:
        value = namespace[name]
        if inspect.isfunction(value):
            namespace[name] = locate_errors(value)
