"""The device side of ``didax.Array``: XLA buffers behind core's ``DeviceBackend``.

Design rules:
- Core's ``Array`` holds host data, a device buffer, or both; this module
  is how it moves between them, through the XLA adapter (``xla``), and is
  installed as core's backend when didax is imported.
- On a CPU, a buffer's host view shares its memory (``host_is_device``), so
  eager primitives on small arrays run on the host with no transfer; on an
  accelerator every eager primitive is computed on the device by XLA
  (``eager.apply_primitive``), host data transferred once, at first use.
"""

from __future__ import annotations

from typing import Any, Final, final

import numpy as np
from jax.errors import JaxRuntimeError

from didax.core import transfer_guard
from didax.core.abstract import ShapedArray
from didax.core.array import Array, set_backend
from didax.core.values import as_array, get_aval
from didax.lowering import xla


@final
class XlaBackend:
    """Transfers between NumPy arrays and XLA buffers on ``xla.device()``."""

    def __init__(self) -> None:
        # Known when the backend starts (first use); until then no data is on
        # a device.
        self.host_is_device: bool = True
        xla.on_backend_start(self._started)

    def _started(self, platform: str) -> None:
        self.host_is_device = platform == "cpu"

    def to_device(self, host: np.ndarray[Any, Any]) -> xla.Buffer:
        return xla.to_device(host)

    def to_host(self, buffer: xla.Buffer) -> np.ndarray[Any, Any]:
        return xla.to_host(buffer)

    # The adapter's own function: one Python call fewer after every jitted call waited for.
    block_until_ready = staticmethod(xla.block_until_ready)

    def default_device(self) -> xla.Device:
        return xla.device()

    def shards(self, buffer: xla.Buffer) -> list[tuple[xla.Device, xla.Buffer]]:
        return xla.shards(buffer)

    def empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
        # Aligned as jaxlib's CPU client aliases: a host result a compiled
        # program then reads (a large eager product) is not copied first.
        return xla.aliasable_host_array(shape, dtype)


BACKEND: Final = XlaBackend()
set_backend(BACKEND)
# A refused transfer is jaxlib's runtime error, as JAX's guard raises.
transfer_guard.set_error(JaxRuntimeError)


def on_device(x: object) -> Array:
    """``x`` (an array-like) as an Array whose data is on the device (``device_put``).

    An Array is returned as it is, transferred first if it was only on the
    host; NumPy data is copied (the Array must not see the user's later
    writes); a Python scalar stays weakly typed.
    """
    if type(x) is Array:
        x.buffer  # noqa: B018 - transfers once
        return x
    aval = get_aval(x)
    if transfer_guard.GUARDS_IN_FORCE[0]:
        transfer_guard.host_to_device(aval, xla.device())
    host = as_array(x)
    if host is x:
        host = host.copy()
    out = Array.from_host(host, ShapedArray(host.shape, host.dtype, aval.weak_type))
    out.buffer  # noqa: B018
    return out
