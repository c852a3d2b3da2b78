"""Compiling and running jaxprs: the compile cache, and the impls of the higher-order primitives.

Design rules:
- One process-wide compile cache, an ``LRUCache`` keyed by the jaxpr's
  structural fingerprint (which includes its input types), never by object
  identity: re-creating ``jit(f)``, or transforming it again, finds the
  executable compiled before.
- A key is compiled once even when many threads ask for it at once.
- Arguments that are Arrays pass their buffers as they are; anything else
  is copied to the device. Results come back as Arrays.
- One dispatch path: ``Compiled.run`` executes every program, whether the
  api's jit cache-hit path, a nested eager jit call (the jit primitive's
  impl) or a control-flow primitive applied eagerly (``apply_primitive``).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any, Final, final

import attrs
import numpy as np
from jaxlib.mlir import ir

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.array import Array
from didax.core.cache import CacheInfo, LRUCache
from didax.core.config import x64_enabled
from didax.core.primitive import Primitive
from didax.core.values import as_array, get_aval
from didax.interpreters.cond import cond_p
from didax.interpreters.evaluation import IMPL_RULES, VALUE_IMPLS, set_device_executor
from didax.interpreters.jit import jit_p
from didax.interpreters.scan import scan_p
from didax.interpreters.while_loop import while_p
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Var
from didax.lowering import persistent_cache, xla
from didax.lowering.array import BACKEND
from didax.lowering.mlir import lower_to_module


@final
@attrs.frozen(eq=False)
class Compiled:
    """An executable with the types of its results, and the module it came from."""

    executable: xla.Executable
    out_avals: tuple[ShapedArray, ...]
    module: ir.Module
    handlers: list[xla.ResultHandler] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        handlers = xla.result_handlers([(a.shape, a.dtype) for a in self.out_avals])
        object.__setattr__(self, "handlers", handlers)

    @property
    def text(self) -> str:
        with self.module.context:
            return str(self.module)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimates for this executable (``flops``, ``transcendentals``, bytes)."""
        return xla.cost_analysis(self.executable)

    def run(
        self,
        const_buffers: Sequence[xla.Buffer],
        args: Sequence[Any],
        donated: frozenset[int] = frozenset(),
    ) -> list[Array]:
        """Executes on constants already on the device, then ``args``.

        ``donated`` holds the positions (in ``args``) of arguments the program
        was compiled to donate: an Array whose buffer XLA took is deleted, as
        JAX's; other values are given fresh buffers, never a shared one.
        """
        if donated:
            return self._run_donating(const_buffers, args, donated)
        # Device Arrays (the common case) hand over their buffer directly.
        buffers = [*const_buffers, *[to_buffer(x) for x in args]]
        outs = xla.execute(self.executable, buffers, self.handlers)
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]

    def run_single(self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> Array:
        """``run`` for a program with one result (the jit hit path's common case)."""
        buffers = list(const_buffers)
        for x in args:  # a loop: cheaper than a comprehension here
            buffers.append(x.buffer if type(x) is Array else to_buffer(x))
        (out,) = xla.execute(self.executable, buffers, self.handlers)
        return Array.from_buffer(out, self.out_avals[0])

    def _run_donating(
        self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any], donated: frozenset[int]
    ) -> list[Array]:
        buffers = list(const_buffers)
        for i, x in enumerate(args):
            if i in donated and type(x) is not Array:
                buffers.append(xla.to_device(as_array(x)))
            else:
                buffers.append(to_buffer(x))
        outs = xla.execute(self.executable, buffers, self.handlers)
        for i in donated:
            x = args[i]
            if type(x) is Array and buffers[len(const_buffers) + i].is_deleted():
                x.delete()
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]


COMPILE_CACHE: Final[LRUCache[Compiled]] = LRUCache(maxsize=1024)


def compile_cache_info() -> CacheInfo:
    """Hits, misses and size of the process-wide cache of compiled executables."""
    return COMPILE_CACHE.info()


def clear_caches() -> None:
    """Empties the compile cache and the caches of device scalars and one-equation programs."""
    for cache in (COMPILE_CACHE, _SCALAR_BUFFERS, _ONE_EQUATION):
        cache.clear()


def compile_jaxpr(
    jaxpr: Jaxpr, name: str = "main", donated: frozenset[int] = frozenset()
) -> Compiled:
    """The executable for ``jaxpr`` (constant-free), compiled at most once per program.

    Keyed by the fingerprint, which is computed once per jaxpr object: a
    nested eager jit call finds its executable with two dict lookups. The
    inputs at the positions in ``donated`` are donated to XLA.
    """

    def build() -> Compiled:
        module = lower_to_module(jaxpr, name, donated)
        return Compiled(persistent_cache.compile_module(module), jaxpr.out_avals, module)

    key: Hashable = (fingerprint(jaxpr), donated) if donated else fingerprint(jaxpr)
    return COMPILE_CACHE.get_or_create(key, build)


def to_buffer(x: Any) -> xla.Buffer:
    """``x``'s device buffer: an Array's own (transferred at most once), else a fresh copy."""
    t = type(x)
    if t is Array:
        buffer: xla.Buffer = x.buffer
        return buffer
    if t is float or t is int or t is bool:
        return _scalar_buffer(x)
    if isinstance(x, np.generic):
        return _numpy_scalar_buffer(x)
    return xla.to_device(as_array(x))


# Scalars are immutable and recur (step sizes, flags, loop bounds), so their
# device copies are kept and reused. A Python scalar's key tells 1 from 1.0
# from True, and -0.0 from 0.0 (a zero, inf or NaN float is keyed by its bits, a
# complex number by its parts' bits, as complex equality ignores zeros' signs); a
# NumPy scalar's is its dtype and bytes. Both hold the x64 mode, which
# decides the buffer's dtype (float64 or float32).
_SCALAR_BUFFERS: Final[LRUCache[xla.Buffer]] = LRUCache(maxsize=256)


def _scalar_buffer(x: bool | int | float | complex) -> xla.Buffer:
    value: object = x
    if isinstance(x, float) and not (x and x * 0.0 == 0.0):  # a zero, an inf or a NaN
        value = x.hex()
    elif isinstance(x, complex):
        value = (x.real.hex(), x.imag.hex())
    key = (type(x), value, x64_enabled())
    return _SCALAR_BUFFERS.get_or_create(key, lambda: xla.to_device(as_array(x)))


def _numpy_scalar_buffer(x: np.generic) -> xla.Buffer:
    key = (type(x), x.tobytes(), x64_enabled())
    return _SCALAR_BUFFERS.get_or_create(key, lambda: xla.to_device(as_array(x)))


@IMPL_RULES.defines(jit_p)
def _jit_impl(*args: Any, jaxpr: Jaxpr, name: str) -> list[Array]:
    # The one dispatch path: the api's cache-hit path runs ``Compiled.run`` too.
    return compile_jaxpr(jaxpr, name).run((), args)


VALUE_IMPLS.add(jit_p)


# A higher-order primitive applied eagerly runs as a one-equation program, as
# JAX's ``apply_primitive``: a loop compiles once and runs in XLA, not one
# NumPy call per iteration. The program for a (primitive, operand types,
# params) is built once; params hold jaxprs, which hash by identity.
_ONE_EQUATION: Final[LRUCache[Jaxpr]] = LRUCache(maxsize=256)


def apply_primitive(prim: Primitive, *args: Any, **params: Any) -> list[Array]:
    """Runs ``prim`` on ``args`` now, compiled by XLA; results are device Arrays."""
    avals = tuple(get_aval(x) for x in args)
    key = (prim, avals, tuple(sorted(params.items())))
    jaxpr = _ONE_EQUATION.get_or_create(key, lambda: _one_equation(prim, avals, params))
    return compile_jaxpr(jaxpr, prim.name).run((), args)


def _one_equation(prim: Primitive, avals: Sequence[ShapedArray], params: dict[str, Any]) -> Jaxpr:
    ins = tuple(Var(a) for a in avals)
    outs = tuple(Var(a) for a in abstract_eval(prim, avals, params))
    return Jaxpr(ins, (JaxprEqn(prim, ins, params, outs),), outs)


for _prim in (cond_p, while_p, scan_p):
    IMPL_RULES.register(_prim, functools.partial(apply_primitive, _prim))
    VALUE_IMPLS.add(_prim)

# Data that lives only on an accelerator is computed on there, one compiled
# primitive at a time, rather than copied back for NumPy (see core.array).
if not BACKEND.host_is_device:
    set_device_executor(apply_primitive)
