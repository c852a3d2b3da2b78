"""jit's hit path: a repeat call of a jitted function on Arrays, straight to XLA.

Design rules:
- ``Jitted`` calls go through its base class, ``HitPath``: where the call
  repeats the trace cache's most recent signature (the cache's ``recent``
  item), on positional Arrays alone, eagerly, with no option overridden in
  this thread, it runs the entry's ``HotCall`` (jaxlib's C++ dispatch on the
  Arrays' buffers) and wraps the one result in an Array. Any other call
  goes to ``self._miss(*args, **kwargs)``, the general path, which says why
  (a miss, a host value, a deleted Array).
- The key is compared in place, not built and looked up: it applies where
  ``Jitted._cache_key`` would give that same key (a jit without static
  arguments, whose key is the mode then one signature per argument).
- ``HitPath`` is ``didax.core._native.HitPath``, the C translation of
  ``PyHitPath`` below, where that extension was built (it is optional: an
  install without a C compiler runs this module's reference). After a
  program over megabytes the interpreter's own data has left the CPU's
  caches, and each Python frame on the path then costs microseconds
  (docs/performance.md, "Dispatch internals"); JAX's call makes none, and
  neither does the C path. ``DIDAX_NO_NATIVE=1`` in the environment at
  import selects the reference; tests hold the two to the same decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from didax.api.trace_cache import Entry
from didax.core import array as array_module
from didax.core.array import DELETED, Array
from didax.core.cache import LRUCache
from didax.core.config import GLOBAL_DISPATCH, THREAD_OVERRIDES
from didax.core.trace import THREAD_CONTEXT
from didax.interpreters.evaluation import EVAL_TRACE

__all__ = ["HitPath", "NATIVE", "PyHitPath"]


class PyHitPath:
    """The hit path in Python: the reference ``didax.core._native.HitPath`` translates."""

    _cache: LRUCache[Entry]

    def _miss(self, *args: object, **kwargs: object) -> object:
        """Every call the hit path does not answer (``Jitted`` defines it)."""
        raise NotImplementedError

    def __call__(self, *args: object, **kwargs: object) -> Any:
        # Each step below is one statement of _native.c's ``hit``.
        recent = self._cache.recent
        if recent is not None and not kwargs:
            hot = recent[1].hot
            key: Any = recent[0]  # (mode, one signature per argument): see _cache_key
            mode = GLOBAL_DISPATCH[0]
            if (
                hot is not None
                and len(key) == len(args) + 1
                and (key[0] is mode or (mode is not None and key[0] == mode))
                and not THREAD_OVERRIDES.values
                and getattr(THREAD_CONTEXT, "trace", None) is EVAL_TRACE
            ):
                values = list(hot.const_buffers)
                i = 1
                for x in args:
                    if type(x) is not Array:
                        break
                    k = x._key
                    if k is not key[i] and k != key[i]:
                        break
                    buffer = x._buffer
                    if buffer is None or buffer is DELETED:
                        break  # on the host, or deleted: the general path says which
                    values.append(buffer)
                    i += 1
                else:
                    self._cache.hits += 1
                    try:
                        (result,) = hot.call(*values)
                    except RuntimeError as e:
                        hot.program.note_out_of_memory(e)
                        raise
                    # ``Array.from_buffer`` written out.
                    out = object.__new__(Array)
                    out._aval = out._key = hot.out_aval
                    out._host = None
                    out._buffer = result
                    return out
        return self._miss(*args, **kwargs)


def _native_hit_path() -> type[PyHitPath] | None:
    """The C hit path, configured, or None where it was not built or is turned off."""
    native = array_module.NATIVE
    if native is None:
        return None
    native.configure_hit_path(GLOBAL_DISPATCH, THREAD_OVERRIDES, THREAD_CONTEXT, EVAL_TRACE)
    hit_path: type[PyHitPath] = native.HitPath
    return hit_path


_NATIVE_CLASS: Final = _native_hit_path()
# Whether jit's hit path (and Array.block_until_ready) run in C.
NATIVE: Final = _NATIVE_CLASS is not None

if TYPE_CHECKING:
    HitPath = PyHitPath
else:
    HitPath = _NATIVE_CLASS or PyHitPath
