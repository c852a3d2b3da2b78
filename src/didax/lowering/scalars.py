"""Device scalars: one kept device copy per scalar value, reused by every call that passes it.

Design rules:
- Scalars are immutable and recur (step sizes, flags, loop bounds), so
  their device copies are kept and reused rather than transferred at
  every call.
- A key says everything that makes the buffer: a Python scalar's tells 1
  from 1.0 from True, and -0.0 from 0.0 (a zero, inf or NaN float is keyed
  by its bits, a complex number by its parts' bits, as complex equality
  ignores zeros' signs); a NumPy scalar's (or rank-0 array's) is its dtype
  and bytes. Both hold the x64 mode, which decides the buffer's dtype
  (float64 or float32).
- A kept buffer never aliases the caller's memory: a NumPy value is copied
  before it goes to the device.
- The table is a plain dict read with one lookup, bounded by emptying it
  when full (its scalars then go to the device again): the jit hit path
  reads it, and an ``LRUCache``'s recency bookkeeping costs more than it
  saves on alternating keys (docs/performance.md, "Dispatch internals").
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Final

import numpy as np

from didax.core.config import x64_enabled
from didax.core.values import as_array
from didax.lowering import xla

SCALAR_BUFFERS: Final[dict[Hashable, xla.Buffer]] = {}
SCALAR_BUFFERS_SIZE: Final = 256


def scalar_buffer(x: bool | int | float | complex) -> xla.Buffer:
    """A Python scalar's kept device copy."""
    value: object = x
    if type(x) is float:
        if not (x and x * 0.0 == 0.0):  # a zero, an inf or a NaN
            value = x.hex()
    elif type(x) is complex:
        value = (x.real.hex(), x.imag.hex())
    key = (type(x), value, x64_enabled())
    buffer = SCALAR_BUFFERS.get(key)
    return buffer if buffer is not None else _keep(key, x)


def numpy_scalar_buffer(x: np.generic | np.ndarray[Any, Any]) -> xla.Buffer:
    """A NumPy scalar's (or rank-0 array's) kept device copy, keyed by its dtype and bytes."""
    key = (x.dtype, x.tobytes(), x64_enabled())
    buffer = SCALAR_BUFFERS.get(key)
    # np.array copies: the kept buffer must never alias the caller's memory.
    return buffer if buffer is not None else _keep(key, np.array(x))


def clear() -> None:
    """Forgets every kept device scalar."""
    SCALAR_BUFFERS.clear()


def _keep(key: Hashable, x: object) -> xla.Buffer:
    """``x``'s new device copy, kept under ``key``."""
    # Two threads may both make one; either is kept.
    if len(SCALAR_BUFFERS) >= SCALAR_BUFFERS_SIZE:
        SCALAR_BUFFERS.clear()
    buffer = SCALAR_BUFFERS[key] = xla.to_device(as_array(x))
    return buffer
