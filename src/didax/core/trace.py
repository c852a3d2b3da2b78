"""The stackless interpreter context: traces, tracers and the current trace.

Design rules (JAX's 2024 "stackless" core, autodidax2):
- The *current trace* lives in thread-local state. ``Primitive.bind`` hands
  the primitive to it; there is no interpreter stack and no levels.
- Every trace has a parent (the trace that was current when it started) and
  processes a primitive with its own rule, binding what the rule computes
  under its parent. The root is the ``EvalTrace`` of
  ``interpreters.evaluation``, installed here through ``set_root_trace``.
- A value that is not one of a trace's own tracers is a constant to it.
  Identity of the trace object is the tag that decides "own", so two
  instances of the same transformation can never confuse their tracers
  (no perturbation confusion).
- A trace is invalidated when its transformation ends. A tracer of an
  invalidated trace that reaches a ``bind`` raises ``UnexpectedTracerError``.
- Concreteness is asked of tracers (``to_concrete_value``): a tracer whose
  value bottoms out in a concrete array answers ``bool()``/``int()``, one
  under staging raises ``ConcretizationTypeError``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from numpy.typing import DTypeLike

from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

if TYPE_CHECKING:
    from didax.core.primitive import Primitive

_tags: Final = itertools.count(1)


class Trace:
    """An interpreter: processes primitives whose operands may be its tracers."""

    # A short word for messages: "jvp", "vmap", "make_jaxpr", "jit", ...
    name: str = "trace"

    def __init__(self, parent: Trace | None) -> None:
        self.parent = parent
        self.tag = next(_tags)
        self.is_valid = True

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        raise NotImplementedError

    def invalidate(self) -> None:
        self.is_valid = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tag={self.tag})"


class Tracer(Value):
    """A value being traced by a ``Trace``.

    Subclasses store what their interpreter needs (a primal and a tangent, a
    batched value and its axis, a jaxpr variable) and say what they know
    concretely. Array operators are installed by ``didax.numpy`` (as JAX's
    ``_set_tracer_aval_forwarding``), since NumPy's broadcasting belongs to
    that layer.
    """

    __slots__ = ("_trace",)
    # NumPy must defer to our reflected operators instead of converting.
    __array_priority__ = 1000
    __array_ufunc__ = None

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def to_concrete_value(self) -> np.ndarray[Any, Any] | None:
        """The concrete value under this tracer, or None when it is abstract."""
        return None

    def concretization_reason(self) -> str:
        """Why this tracer has no concrete value (when ``to_concrete_value`` is None)."""
        return f"it is traced by {self._trace.name}"

    # --- concreteness -----------------------------------------------------
    def _concrete(
        self, what: str, error: type[ConcretizationTypeError] = ConcretizationTypeError
    ) -> np.ndarray[Any, Any]:
        value = self.to_concrete_value()
        if value is None:
            from didax.core.source_info import user_frame_summary

            # The class is JAX's for the conversion (``core.errors``).
            raise error(
                f"{what} of an abstract tracer with type {self.aval.str_short()} "
                f"at {user_frame_summary()}: a concrete value is needed, but "
                f"{self.concretization_reason()}. For control flow that depends on "
                "a traced value use lax.cond, lax.switch or lax.while_loop; for a "
                "value that should be fixed at trace time mark the argument with "
                "static_argnums."
            )
        return value

    def __bool__(self) -> bool:
        return bool(self._concrete("bool()", TracerBoolConversionError))

    def __int__(self) -> int:
        return int(self._concrete("int()"))

    def __float__(self) -> float:
        return float(self._concrete("float()"))

    def __index__(self) -> int:
        value = self._concrete("index conversion", TracerIntegerConversionError)
        if value.dtype.kind not in "iu":
            raise TypeError(f"only integer tracers can be used as an index, got {self.aval}")
        return int(value)

    def __array__(
        self, dtype: DTypeLike | None = None, copy: bool | None = None
    ) -> np.ndarray[Any, Any]:
        value = self._concrete("conversion to a NumPy array", TracerArrayConversionError)
        return value if dtype is None else value.astype(dtype)

    # --- array attributes (shape, dtype, ... are Value's, from the aval) ---------
    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tracer")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"

    def __hash__(self) -> int:
        raise TypeError("tracers are not hashable")


# --- the thread-local context ------------------------------------------------


class _Context(threading.local):
    trace: Trace
    # Inside ``ensure_compile_time_eval``: staging traces evaluate primitives
    # whose operands are all concrete instead of recording them.
    compile_time_eval: bool = False


_context: Final = _Context()
# For jit's hit path: ``getattr(THREAD_CONTEXT, "trace", None)`` is
# ``current_trace()`` without a call, or None before this thread's first trace.
THREAD_CONTEXT: Final = _context
_root: list[Trace] = []


def set_root_trace(trace: Trace) -> None:
    """Installs the root (eager evaluation) trace; called once by interpreters.evaluation."""
    if _root:
        raise RuntimeError("the root trace is already installed")
    _root.append(trace)


def current_trace() -> Trace:
    try:
        return _context.trace
    except AttributeError:
        if not _root:
            raise RuntimeError("didax.interpreters.evaluation was not imported") from None
        _context.trace = _root[0]
        return _context.trace


@contextmanager
def set_current_trace(trace: Trace) -> Iterator[None]:
    """Makes ``trace`` current for the body, restoring the previous one after."""
    prev = current_trace()
    _context.trace = trace
    try:
        yield
    finally:
        _context.trace = prev


@contextmanager
def eager_evaluation() -> Iterator[None]:
    """Runs the body under the root trace: primitives bound there are evaluated now."""
    current_trace()  # installs the root for this thread
    with set_current_trace(_root[0]):
        yield


def compile_time_eval_enabled() -> bool:
    """Whether the current thread is inside ``compile_time_eval``."""
    return _context.compile_time_eval


@contextmanager
def compile_time_eval() -> Iterator[None]:
    """Operations on concrete values evaluate now, even while staging (JAX's
    ``ensure_compile_time_eval``); operations on staged values are staged."""
    prev = _context.compile_time_eval
    _context.compile_time_eval = True
    try:
        yield
    finally:
        _context.compile_time_eval = prev


@contextmanager
def new_trace(trace: Trace) -> Iterator[Trace]:
    """Runs the body with ``trace`` current and invalidates it when the body ends."""
    with set_current_trace(trace):
        try:
            yield trace
        finally:
            trace.invalidate()


def check_valid(x: object) -> None:
    """Raises ``UnexpectedTracerError`` if ``x`` is a tracer whose trace ended."""
    if isinstance(x, Tracer) and not x._trace.is_valid:
        from didax.core.source_info import user_frame_summary

        raise UnexpectedTracerError(
            f"a tracer with type {x.aval.str_short()} created by {x._trace.name} "
            f"was used at {user_frame_summary()} after that transformation ended. "
            "A tracer escaped, e.g. through a global or a closure kept past the "
            "transformed call; return values from the transformed function instead."
        )
