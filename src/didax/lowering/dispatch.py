"""Compiling and running jaxprs: the compile cache and the jit primitive's impl.

Design rules:
- One process-wide compile cache, an ``LRUCache`` keyed by the jaxpr's
  structural fingerprint (which includes its input types), never by object
  identity: re-creating ``jit(f)``, or transforming it again, finds the
  executable compiled before.
- A key is compiled once even when many threads ask for it at once.
- Arguments that are Arrays pass their buffers as they are; anything else
  is copied to the device. Results come back as Arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

import attrs

from didax.core.abstract import ShapedArray, as_array
from didax.core.cache import CacheInfo, LRUCache
from didax.interpreters.evaluation import IMPL_RULES, VALUE_IMPLS
from didax.interpreters.jit import jit_p
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import ClosedJaxpr
from didax.lowering import xla
from didax.lowering.array import Array
from didax.lowering.mlir import lower_to_text


@final
@attrs.frozen(eq=False)
class Compiled:
    """An executable with the types of its results."""

    executable: xla.Executable
    out_avals: tuple[ShapedArray, ...]
    text: str

    def __call__(self, args: Sequence[Any]) -> list[Array]:
        buffers = [to_buffer(x) for x in args]
        outs = xla.execute(self.executable, buffers)
        return [Array(b, a) for b, a in zip(outs, self.out_avals, strict=True)]


COMPILE_CACHE: Final[LRUCache[Compiled]] = LRUCache(maxsize=1024)


def compile_cache_info() -> CacheInfo:
    """Hits, misses and size of the process-wide cache of compiled executables."""
    return COMPILE_CACHE.info()


def compile_jaxpr(closed: ClosedJaxpr, name: str = "main") -> Compiled:
    """The executable for ``closed`` (a jaxpr without constants), compiled at most once."""

    def build() -> Compiled:
        text = lower_to_text(closed, name)
        return Compiled(xla.compile(text), closed.out_avals, text)

    return COMPILE_CACHE.get_or_create(fingerprint(closed), build)


def to_buffer(x: Any) -> xla.Buffer:
    if isinstance(x, Array):
        return x.buffer
    return xla.to_device(as_array(x))


@IMPL_RULES.defines(jit_p)
def _jit_impl(*args: Any, jaxpr: ClosedJaxpr, name: str) -> list[Array]:
    return compile_jaxpr(jaxpr, name)(args)


VALUE_IMPLS.add(jit_p)
