"""``didax.debug``: ``print`` and ``callback`` inside transformed programs, as JAX's.

Design rules:
- Both bind ``core.lax.callbacks.debug_callback_p``, a primitive with no
  results and the effect ``Debug`` (``OrderedDebug`` with ``ordered=True``):
  DCE keeps it, jit calls it from inside the XLA program, vmap calls it per
  batch element, grad on the forward pass only (its jvp rule prints the
  primals), control flow carries it in its bodies.
- ``print`` formats as JAX's: ``fmt.format(*args, **kwargs)`` under the
  NumPy print options in force when it was called; a format with no
  placeholder prints its arguments after it, space-separated; an argument
  the format does not use is an error at the call, as in JAX.
- Both accept JAX's two-call form, ``debug.print(ordered=True)(fmt, x)``.
"""

from __future__ import annotations

import logging
import string
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, overload

import numpy as np

from didax.api.callbacks import flatten_callback
from didax.core.effects import DebugEffect as DebugEffect
from didax.core.effects import OrderedDebugEffect as OrderedDebugEffect
from didax.core.lax.callbacks import debug_callback_p, debug_effect

__all__ = ["print", "callback", "log", "DebugEffect", "OrderedDebugEffect"]


def _no_results(_: object) -> tuple[()]:
    return ()


def _bind(
    name: str,
    fn: Callable[..., object],
    ordered: bool,
    args: tuple[object, ...],
    kwargs: dict[str, object],
) -> None:
    host, flat = flatten_callback(name, fn, args, kwargs, results=_no_results)
    debug_callback_p.bind(*flat, callback=host, effect=debug_effect(ordered))


@overload
def debug_callback(
    callback: None = None, *, ordered: bool = False, partitioned: bool = False
) -> Callable[..., None]: ...
@overload
def debug_callback(
    callback: Callable[..., None],
    *args: object,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: object,
) -> None: ...
def debug_callback(
    callback: Callable[..., None] | None = None,
    *args: object,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: object,
) -> Callable[..., None] | None:
    """Calls ``callback(*args, **kwargs)`` from a program (``jax.debug.callback``).

    >>> import didax
    >>> seen = []
    >>> def f(x):
    ...     didax.debug.callback(seen.append, x)
    ...     return x * 2
    >>> didax.jit(f)(1.5), seen
    (Array(3., dtype=float32, weak_type=True), [Array(1.5, dtype=float32)])
    """
    del partitioned  # one device: the logical operands are the local ones

    def call(fn: Callable[..., None], *c_args: object, **c_kwargs: object) -> None:
        _bind("didax.debug.callback", fn, ordered, c_args, c_kwargs)

    if callback is not None:
        call(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(
            f"debug_callback received unexpected arguments in the two-call form: {args=} {kwargs=}"
        )
    return call


class _FormatChecker(string.Formatter):
    """Formats nothing; refuses arguments the format does not use (JAX's check)."""

    def format_field(self, value: object, format_spec: str) -> str:
        return ""

    def check_unused_args(
        self, used_args: set[int | str], args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `didax.debug.print`: {unused}")
        if unused_kw:
            raise ValueError(
                f"Unused keyword arguments to `didax.debug.print`: {unused_kw}. "
                'You may be passing an f-string (i.e, `f"{x}"`) into `didax.debug.print` '
                "and instead should pass in a regular string."
            )


@overload
def debug_print(
    fmt: None = None, *, ordered: bool = False, partitioned: bool = False
) -> Callable[..., None]: ...
@overload
def debug_print(
    fmt: str, *args: object, ordered: bool = False, partitioned: bool = False, **kwargs: object
) -> None: ...
def debug_print(
    fmt: str | None = None,
    *args: object,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: object,
) -> Callable[..., None] | None:
    """Prints ``fmt.format(*args, **kwargs)`` when the program runs (``jax.debug.print``).

    >>> import didax
    >>> @didax.jit
    ... def f(x):
    ...     didax.debug.print("x = {x}", x=x)
    ...     return x + 1
    >>> f(2)
    x = 2
    Array(3, dtype=int32, weak_type=True)
    """
    del partitioned
    return _formatted("didax.debug.print", _stdout, fmt, ordered, args, kwargs)


def _stdout(msg: str) -> None:
    sys.stdout.write(msg + "\n")


def _formatted(
    name: str,
    emit: Callable[[str], None],
    fmt: str | None,
    ordered: bool,
    args: tuple[object, ...],
    kwargs: dict[str, object],
) -> Callable[..., None] | None:
    """``print`` and ``log``: ``emit`` the formatted message when the program runs."""

    def call(fmt: str, *c_args: object, **c_kwargs: object) -> None:
        _FormatChecker().format(fmt, *c_args, **c_kwargs)
        placeholders = bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None
        options = np.get_printoptions()

        def write(*a: object, **kw: object) -> None:
            if placeholders:
                with np.printoptions(**options):
                    msg = fmt.format(*map(_host, a), **{k: _host(v) for k, v in kw.items()})
            else:
                msg = " ".join((fmt, *(str(_host(x)) for x in a)))
            emit(msg)

        _bind(name, write, ordered, c_args, c_kwargs)

    if fmt is not None:
        call(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(
            f"{name} received unexpected arguments in the two-call form: {args=} {kwargs=}"
        )
    return call


# JAX's debug.log writes to its debugging module's logger; didax's to its own.
LOGGER: Final = logging.getLogger("didax.debug")


def _log(msg: str) -> None:
    LOGGER.info(msg)


@overload
def debug_log(
    fmt: None = None, *, ordered: bool = False, partitioned: bool = False
) -> Callable[..., None]: ...
@overload
def debug_log(
    fmt: str, *args: object, ordered: bool = False, partitioned: bool = False, **kwargs: object
) -> None: ...
def debug_log(
    fmt: str | None = None,
    *args: object,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: object,
) -> Callable[..., None] | None:
    """``print``'s message, logged at INFO level to the ``didax.debug`` logger (``jax.debug.log``).

    >>> import logging, sys, didax
    >>> logger = logging.getLogger("didax.debug")
    >>> handler = logging.StreamHandler(sys.stdout)
    >>> logger.addHandler(handler); logger.setLevel(logging.INFO)
    >>> didax.jit(lambda x: didax.debug.log("x = {}", x))(2)
    x = 2
    >>> logger.removeHandler(handler); logger.setLevel(logging.NOTSET)
    """
    del partitioned
    return _formatted("didax.debug.log", _log, fmt, ordered, args, kwargs)


def _host(x: object) -> object:
    """An Array as NumPy prints it (JAX's print formats host values)."""
    return np.asarray(x) if hasattr(x, "__array__") and not isinstance(x, np.ndarray) else x


print = debug_print  # noqa: A001 - the public name, as JAX's jax.debug.print
callback = debug_callback
log = debug_log
