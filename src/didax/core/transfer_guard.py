"""Transfer guards (``jax.transfer_guard``): refusing or logging transfers between host and device.

Design rules:
- The levels are JAX's, one option per direction
  (``jax_transfer_guard_host_to_device``...): ``'allow'`` (the default),
  ``'log'`` and ``'disallow'`` act on implicit transfers only,
  ``'log_explicit'`` and ``'disallow_explicit'`` on explicit ones too.
  Explicit transfers are ``device_put`` and ``device_get`` (they run inside
  ``explicit``); implicit ones are host data (a NumPy array, a Python or
  NumPy scalar) given to a jitted function or to an eager primitive, and,
  off a CPU, an Array read on the host (``np.asarray``, ``float``,
  printing). On a CPU the host is the device and reading an Array on it
  is no transfer, as JAX's CPU client guards none. Device-to-device
  transfers are ``device_put``'s of an Array to a new layout (explicit);
  didax makes no implicit ones (a jitted call never moves its arguments).
- A refused transfer raises jaxlib's ``JaxRuntimeError`` (installed by the
  lowering layer: core cannot import jaxlib) with JAX's message; a logged
  one is a warning on the ``didax`` logger with JAX's text.
- An Array whose data didax keeps on the host (an eager result on a CPU)
  is on the device as far as the user can tell: moving it there later is
  didax's business, never a guarded transfer.
- The transfer points read ``config.GUARDS_IN_FORCE`` first (one list
  slot): while no guard is set anywhere they cost nothing more, and the
  jit hit path on Arrays reads nothing at all.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Final

from didax.core.abstract import ShapedArray
from didax.core.config import GUARDS_IN_FORCE, config
from didax.core.sharding import NamedSharding, SingleDeviceSharding

__all__ = [
    "GUARDS_IN_FORCE",
    "explicit",
    "host_to_device",
    "device_to_host",
    "device_to_device",
    "set_error",
]

_logger: Final = logging.getLogger("didax")


class _Explicit(threading.local):
    def __init__(self) -> None:
        self.on = False


_explicit: Final = _Explicit()

# What a refused transfer raises (jaxlib's JaxRuntimeError, once the lowering layer is imported).
_ERROR: list[Callable[[str], Exception]] = [RuntimeError]


def set_error(make: Callable[[str], Exception]) -> None:
    """Installs the exception a refused transfer raises (called once, by ``didax.lowering``)."""
    _ERROR[0] = make


@contextlib.contextmanager
def explicit() -> Iterator[None]:
    """The transfers made in this block are explicit (``device_put``, ``device_get``)."""
    previous = _explicit.on
    _explicit.on = True
    try:
        yield
    finally:
        _explicit.on = previous


def _jax_aval(aval: ShapedArray) -> str:
    # JAX's ShapedArray text, which its guard's messages show.
    weak = ", weak_type=True" if aval.weak_type else ""
    return f"ShapedArray({aval.dtype.name}[{','.join(map(str, aval.shape))}]{weak})"


def _apply(option: str, what: str, describe: Callable[[], str]) -> None:
    level = config.read(option)
    if level is None or level == "allow":
        return
    if _explicit.on and not level.endswith("_explicit"):
        return
    if level.startswith("log"):
        _logger.warning("%s transfer: %s", what, describe())
    else:
        raise _ERROR[0](f"INVALID_ARGUMENT: Disallowed {what} transfer: {describe()}")


def _where(aval: ShapedArray, dst: object, key: str) -> Callable[[], str]:
    # A device (or a single-device sharding) in jaxlib's words.
    def describe() -> str:
        device = dst.device if isinstance(dst, SingleDeviceSharding) else dst
        text = f"SingleDeviceSharding(device={device!r}, memory_kind=device)"
        if isinstance(dst, NamedSharding):
            text = repr(dst)
        return f"aval={_jax_aval(aval)}, {key}={text}"

    return describe


def host_to_device(aval: ShapedArray, device: object) -> None:
    """Applies the host-to-device guard to host data of type ``aval`` going to ``device``.

    ``device`` may be a sharding (the layout the data takes).
    """
    _apply(
        "jax_transfer_guard_host_to_device", "host-to-device", _where(aval, device, "dst_sharding")
    )


def device_to_host(aval: ShapedArray, device: object) -> None:
    """The device-to-host guard on an Array of type ``aval`` on ``device`` read on the host."""
    _apply("jax_transfer_guard_device_to_host", "device-to-host", _where(aval, device, "sharding"))


def device_to_device(aval: ShapedArray, dst_sharding: object) -> None:
    """Applies the device-to-device guard to an Array of type ``aval`` laid out anew."""
    _apply(
        "jax_transfer_guard_device_to_device",
        "device-to-device",
        _where(aval, dst_sharding, "dst_sharding"),
    )
