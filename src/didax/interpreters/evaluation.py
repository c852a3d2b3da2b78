"""Eager evaluation: the root trace, its routes (XLA, or NumPy impl rules), and ``eval_jaxpr``.

Design rules:
- ``EvalTrace`` is the root of every chain of traces: it applies a
  primitive to concrete values and returns ``Array``s. Eager work runs
  where the data lives, by one of two routes:

  * compiled: the primitive as a one-equation program compiled by XLA and
    run on the device, as JAX's ``apply_primitive`` (the ``CompiledEvaluator``
    the lowering layer installs: ``lowering.dispatch.apply_primitive``). It
    is every primitive's route on an accelerator (data made on the host is
    placed on the device first, and results stay there), and on a CPU the
    route of every primitive that has no host impl rule: the higher-order
    primitives (a loop runs in XLA, not one NumPy call per iteration), and
    the primitives XLA defines (the special functions XLA expands with its
    own algorithms, FFTs, the LAPACK kernels), whose eager values are then
    the jitted ones, bit for bit.
  * host: the primitive's NumPy impl rule (``IMPL_RULES``) on the host data
    of its operands. On a CPU a device buffer's host view shares its memory,
    so this is the fast path there for small arrays: a few microseconds, no
    XLA dispatch (on large ones XLA's loops win: see ``LARGE``). A user's
    primitive with an impl rule and no lowering runs here on any platform,
    as JAX calls such a primitive's impl.

  Which platform the data lives on is asked once, at the first eager
  primitive (it starts the backend, as JAX's first operation does).
- Eager code is typed exactly as traced code: the primitive's typing rule
  gives the result types (weak types included, so that ``lax.add(2.0, 3.0)``
  is weak as in JAX), and an ill-typed eager call fails with the same
  message a traced one does. The rule's answer for a (primitive, operand
  types, params) is cached, which is what makes an eager op cost a few
  microseconds: the key, one dict lookup, the NumPy call, one Array.
- Impl rules return NumPy arrays of exactly the dtype the typing rule
  says: NumPy's own promotion is never relied upon.
- 16-bit floats (bfloat16, float16) are computed as XLA computes them on
  CPUs: each primitive in float32, its result rounded once to the 16-bit
  type. NumPy's ufuncs already do so; the impls that would round at every
  step (sums, products, cumulative sums, dots, composite formulas such as
  ``logistic``) go through ``in_float32``. (XLA's long products of 16-bit
  floats round as they go, and may drift from these by a few ulps.)
- Floating-point results follow IEEE arithmetic, as XLA's do: NumPy's
  warnings (overflow, division by zero, invalid) are silenced, so eager
  ``log(0)`` is ``-inf``, not an error under ``-W error``.
- An Array's host data is never written to, and a result never aliases a
  NumPy array the user still holds (a view of one is copied), so Arrays
  are immutable as JAX's.
- With ``jax_debug_nans`` on, a primitive producing a NaN raises
  ``FloatingPointError`` naming it and the user's line, as JAX's does.
- A tracer reaching this trace has escaped its transformation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, Protocol

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, abstract_eval
from didax.core.array import Array as DidaxArray
from didax.core.basearray import HostArray
from didax.core.config import flag
from didax.core.errors import UnexpectedTracerError
from didax.core.primitive import Primitive, RuleTable
from didax.core.trace import Trace, Tracer, check_valid, set_root_trace
from didax.core.transfer_guard import GUARDS_IN_FORCE
from didax.core.values import ValueKind, as_array, get_aval, guard_host_data, value_kind, wrap_host
from didax.ir.jaxpr import Atom, ClosedJaxpr, Jaxpr, Literal, Var


class ImplRule(Protocol):
    """``(*arrays, **params) -> array`` (a list when the primitive has multiple results).

    The arrays are NumPy arrays (the operands' host data). Each rule names
    its own operands and params.
    """

    def __call__(self, *args: Any, **params: Any) -> HostArray | Sequence[HostArray]: ...


# The host route's rules (see the module's design rules): optional, the CPU's
# fast path. A primitive without one is evaluated by its compiled program.
IMPL_RULES: Final[RuleTable[ImplRule]] = RuleTable("impl (eager evaluation)")


class CompiledEvaluator(Protocol):
    """The compiled route: one primitive as a one-equation XLA program, where its data lives.

    ``lowering.dispatch`` provides it (``apply_primitive``): ``run`` returns
    the results as device Arrays (a list, one per result), ``lowers`` says
    whether the primitive can be compiled (has a lowering), ``platform``
    names the platform eager data lives on (it starts the backend).
    """

    def run(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]: ...

    def lowers(self, prim: Primitive) -> bool: ...

    def platform(self) -> str: ...


_evaluator: list[CompiledEvaluator] = []
# Whether eager primitives with an impl rule run it on the host: the CPU's
# fast path. None until the first eager primitive asks the platform.
_on_host: bool | None = None


def set_compiled_evaluator(evaluator: CompiledEvaluator) -> None:
    """Installs the compiled route (the lowering layer does, at import)."""
    global _on_host
    _evaluator[:] = [evaluator]
    _on_host = None


def _host_route() -> bool:
    """Whether impl rules run on the host: on a CPU (asked once), or with no compiled route."""
    global _on_host
    if _on_host is None:
        _on_host = not _evaluator or _evaluator[0].platform() == "cpu"
    return _on_host


def eager_on_host() -> bool:
    """Whether eager primitives with a NumPy impl rule run it on the host (on a CPU)."""
    return _host_route()


@contextmanager
def compiled_route() -> Iterator[None]:
    """Every eager primitive takes the compiled route, as on an accelerator (for tests).

    >>> with compiled_route():
    ...     _host_route()
    False
    """
    global _on_host
    previous = _host_route()
    _on_host = False
    try:
        yield
    finally:
        _on_host = previous


def _compiled(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    """``prim`` on ``args`` by the compiled route (results checked for NaNs if asked)."""
    if not _evaluator or not _evaluator[0].lowers(prim):
        where = f" for platform '{_evaluator[0].platform()}'" if _evaluator else ""
        raise NotImplementedError(
            f"primitive '{prim.name}' has no {IMPL_RULES.interpreter} rule, and no lowering"
            f"{where} to compile it"
        )
    outs = _evaluator[0].run(prim, args, params)
    if flag("jax_debug_nans") or flag("jax_debug_infs"):
        check_nans(prim.name, outs)
    return outs if prim.multiple_results else outs[0]


# NumPy's floating-point error state lives in a context variable; setting it
# directly costs a tenth of entering ``np.errstate`` (which an eager op would
# otherwise pay once per primitive). Where the variable is not there (another
# NumPy), ``np.errstate`` is used.
try:
    from numpy._core import _ufunc_config

    _ERRSTATE: Any = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
    with np.errstate(all="ignore"):
        _IGNORE_ERRORS: Any = _ERRSTATE.get()
except (ImportError, AttributeError):  # pragma: no cover - depends on NumPy's internals
    _ERRSTATE = None


def _run_impl(
    impl: ImplRule, hosts: Sequence[HostArray], params: dict[str, Any]
) -> HostArray | Sequence[HostArray]:
    """The impl rule on host data, with NumPy's floating-point warnings off (IEEE results)."""
    if _ERRSTATE is None:
        with np.errstate(all="ignore"):
            return impl(*hosts, **params)
    token = _ERRSTATE.set(_IGNORE_ERRORS)
    try:
        return impl(*hosts, **params)
    finally:
        _ERRSTATE.reset(token)


# Operands or results of this many elements or more are computed by the
# compiled route even on a CPU: XLA's loops (over both cores) beat NumPy's
# there; around a million elements the two are within noise
# (docs/performance.md has the measurements).
LARGE: Final = 1 << 20
# Except a product: BLAS beat XLA's CPU dot at every size measured.
_HOST_AT_ANY_SIZE: Final = frozenset({lax.dot_general_p})

# (primitive, operand types, params) -> (result types, impl rule, or None
# for the compiled route): what eager dispatch needs to know of a signature,
# found with one dict lookup. Bounded: cleared when full.
_SIGNATURES: Final[dict[Any, tuple[list[ShapedArray], ImplRule | None]]] = {}
_SIGNATURES_MAX: Final = 4096


def _route(
    prim: Primitive, avals: list[ShapedArray], out_avals: list[ShapedArray]
) -> ImplRule | None:
    """The host route's impl rule for this signature, or None if it is compiled (see LARGE)."""
    if (
        prim not in _HOST_AT_ANY_SIZE
        and any(a.size >= LARGE for a in (*avals, *out_avals))
        and _evaluator
        and _evaluator[0].lowers(prim)
    ):
        return None
    return IMPL_RULES[prim]


def _signature_entry(
    prim: Primitive, avals: list[ShapedArray], params: dict[str, Any]
) -> tuple[list[ShapedArray], ImplRule | None]:
    key: tuple[object, ...] | None = (prim, *avals, *params.items()) if params else (prim, *avals)
    try:
        entry = _SIGNATURES.get(key)
    except TypeError:  # an unhashable param: typed every time
        key, entry = None, None
    if entry is None:
        out_avals = abstract_eval(prim, avals, params)
        entry = (out_avals, _route(prim, avals, out_avals))
        if key is not None:
            if len(_SIGNATURES) >= _SIGNATURES_MAX:
                _SIGNATURES.clear()
            _SIGNATURES[key] = entry
    return entry


class EvalTrace(Trace):
    """The root trace: evaluates primitives on concrete arrays, returning Arrays."""

    name = "eager evaluation"

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        # The fast path (the host route): every operand an Array with host
        # data, a signature seen before. Anything else takes the general path.
        if _on_host is not True:
            return self._process_general(prim, args, params)
        hosts: list[HostArray] = []
        avals: list[ShapedArray] = []
        for x in args:
            if type(x) is not DidaxArray or x._host is None:
                return self._process_general(prim, args, params)
            hosts.append(x._host)
            avals.append(x._aval)
        try:
            entry = _SIGNATURES.get((prim, *avals, *params.items()) if params else (prim, *avals))
        except TypeError:
            entry = None
        if entry is None:
            return self._process_general(prim, args, params)
        impl = entry[1]
        if impl is None:
            return _compiled(prim, args, params)
        return _finish(prim, entry[0], _run_impl(impl, hosts, params), None)

    def _process_general(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        kinds = [value_kind(x) for x in args]
        if ValueKind.TRACER in kinds:
            _check_no_tracers(prim, args)
        if GUARDS_IN_FORCE[0]:
            _guard_host_operands(args, kinds)
        if prim not in IMPL_RULES or not (_host_route() or not _evaluator[0].lowers(prim)):
            return _compiled(prim, args, params)
        hosts: list[HostArray] = []
        user_data = False  # a NumPy array the user holds: results must not alias it
        for x, kind in zip(args, kinds, strict=True):
            if kind is ValueKind.ARRAY:
                assert isinstance(x, DidaxArray)
                hosts.append(x.host())
            else:
                user_data |= kind is not ValueKind.SCALAR
                hosts.append(as_array(x))
        if prim not in ABSTRACT_EVAL:
            # A user's primitive with only an impl rule: eager evaluation
            # needs no typing rule (as JAX's), the results type themselves.
            return _untyped_results(prim, _run_impl(IMPL_RULES[prim], hosts, params))
        out_avals, impl = _signature_entry(prim, [get_aval(x) for x in args], params)
        if impl is None:
            return _compiled(prim, args, params)
        return _finish(
            prim, out_avals, _run_impl(impl, hosts, params), hosts if user_data else None
        )


def _guard_host_operands(args: Sequence[Any], kinds: Sequence[ValueKind]) -> None:
    # Host data given to a primitive goes to the device in JAX: an implicit transfer.
    for x, kind in zip(args, kinds, strict=True):
        if kind is not ValueKind.ARRAY and kind is not ValueKind.TRACER:
            guard_host_data(x)


def _untyped_results(
    prim: Primitive, outs: HostArray | Sequence[HostArray]
) -> DidaxArray | list[DidaxArray]:
    def wrap(out: object) -> DidaxArray:
        host = as_array(np.array(out))  # a copy: the impl's data may be an operand's
        return wrap_host(host)

    return [wrap(o) for o in outs] if prim.multiple_results else wrap(outs)


def _finish(
    prim: Primitive, out_avals: list[ShapedArray], outs: Any, user_hosts: list[HostArray] | None
) -> DidaxArray | list[DidaxArray]:
    """The impl's results as Arrays of the typing rule's types (``jax_debug_nans`` checked)."""
    if not prim.multiple_results:
        result = _as_result(outs, out_avals[0], user_hosts)
        if flag("jax_debug_nans") or flag("jax_debug_infs"):
            check_nans(prim.name, [result])
        return result
    results = [_as_result(o, a, user_hosts) for o, a in zip(outs, out_avals, strict=True)]
    if flag("jax_debug_nans") or flag("jax_debug_infs"):
        check_nans(prim.name, results)
    return results


def _as_result(
    out: HostArray | np.generic, aval: ShapedArray, user_hosts: list[HostArray] | None
) -> DidaxArray:
    # (dtypes of one type are one object: ``is`` is the cheap test, ``!=`` the sure one)
    if type(out) is not np.ndarray or (out.dtype is not aval.dtype and out.dtype != aval.dtype):
        out = np.asarray(out, aval.dtype)  # NumPy returns scalars from 0-d operations
    elif user_hosts is not None and (out.base is not None or any(out is h for h in user_hosts)):
        out = out.copy()  # the user's array or a view of it (reshape, slice): theirs to write
    return DidaxArray.from_host(out, aval)


def _check_no_tracers(prim: Primitive, args: Sequence[Any]) -> None:
    for x in args:
        if isinstance(x, Tracer):
            check_valid(x)
            raise UnexpectedTracerError(
                f"a tracer of {x._trace.name} reached eager evaluation of {prim.name}: "
                "it escaped its transformation"
            )


def check_nans(name: str, results: Sequence[Any]) -> None:
    """``FloatingPointError`` if a result of ``name`` holds a NaN (an inf).

    Under ``jax_debug_nans`` (``jax_debug_infs``), as JAX's checks.
    """
    nans, infs = flag("jax_debug_nans"), flag("jax_debug_infs")
    for r in results:
        if not dtypes.is_float(r.dtype):
            continue
        data = np.asarray(r, np.float64)
        kind = "nan" if nans and np.isnan(data).any() else None
        if kind is None and infs and np.isinf(data).any():
            kind = "inf"
        if kind is not None:
            from didax.core.source_info import user_frame_summary

            raise FloatingPointError(
                f"invalid value ({kind}) encountered in {name} "
                f"(jax_debug_{kind}s is on) at {user_frame_summary()}"
            )


EVAL_TRACE: Final = EvalTrace(parent=None)
set_root_trace(EVAL_TRACE)


def eval_jaxpr(jaxpr: Jaxpr, args: Sequence[Any]) -> list[Any]:
    """Interprets ``jaxpr`` by binding each equation under the current trace."""
    env: dict[Var, Any] = {}

    def read(x: Atom) -> Any:
        return x.operand if isinstance(x, Literal) else env[x]

    for v, a in zip(jaxpr.in_binders, args, strict=True):
        env[v] = a
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*(read(x) for x in eqn.inputs), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, o in zip(eqn.out_binders, outs, strict=True):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


def eval_closed_jaxpr(closed: ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    return eval_jaxpr(closed.jaxpr, [*closed.consts, *args])


# --- helpers for the families' impl rules (interpreters.<family>) ---------------


_HALF_FLOATS: Final = frozenset({dtypes.bfloat16, dtypes.float16})


def in_float32(impl: Callable[..., HostArray]) -> Callable[..., HostArray]:
    """``impl`` computing 16-bit float operands in float32 and rounding its result once.

    XLA computes bfloat16 and float16 arithmetic in float32 (its sums and
    dots accumulate there), where NumPy rounds every partial sum to the
    16-bit type, and has no bfloat16 loop for ``einsum``. The operands of
    the first operand's dtype are widened (the primitives this wraps take
    operands of one dtype); at other dtypes ``impl`` runs as it is.

    >>> x = np.ones(1000, dtypes.bfloat16)
    >>> total = in_float32(lambda x: np.sum(x, dtype=x.dtype))
    >>> float(np.sum(x, dtype=x.dtype)), float(total(x))
    (256.0, 1000.0)
    """

    @functools.wraps(impl)
    def widened(*args: HostArray, **params: Any) -> HostArray:
        dtype = args[0].dtype
        if dtype not in _HALF_FLOATS:
            return np.asarray(impl(*args, **params))
        wide = [a.astype(np.float32) if a.dtype == dtype else a for a in args]
        return np.asarray(impl(*wide, **params)).astype(dtype)

    return widened
