"""The configuration flags JAX exposes at its top level (``jax.debug_infs``...).

Design rules:
- Each flag is a ``Flag`` over one option of ``didax.config`` (the options
  live in ``core.config``'s registry, so ``config.update`` and the
  environment variable set them too): calling it gives a context manager
  (also a decorator) that sets the option for this thread, as JAX's
  ``State`` objects do; ``.value`` reads it.
- didax honours some flags fully (``debug_nans``, ``debug_infs``,
  ``numpy_dtype_promotion``, ``numpy_rank_promotion``, the transfer guards,
  which ``core.transfer_guard`` applies); the others it
  honours at JAX's default only, and any other value JAX accepts is a
  ``NotImplementedError`` naming the option where it is set (the option's
  validator says which values), never a silent no-op.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Final, final

from didax.core.config import add_user_context, config
from didax.lowering import xla

__all__ = [
    "Flag",
    "debug_nans",
    "debug_infs",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "default_device",
    "transfer_guard",
    "transfer_guard_host_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_device_to_device",
    "check_tracer_leaks",
    "checking_leaks",
    "enable_checks",
    "default_prng_impl",
    "threefry_partitionable",
    "enable_custom_prng",
    "legacy_prng_key",
    "debug_key_reuse",
    "array_garbage_collection_guard",
    "allow_f16_reductions",
    "no_tracing",
    "no_execution",
    "thread_guard",
    "auto_pcast",
    "remove_size_one_mesh_axis_from_type",
    "softmax_custom_jvp",
    "jax2tf_associative_scan_reductions",
    "make_user_context",
]

_UNSET: Final = object()


@final
class Flag:
    """A configuration option as a context manager factory, as JAX's top-level flags.

    >>> import didax as dx
    >>> with dx.numpy_rank_promotion("raise"):
    ...     dx.numpy_rank_promotion.value
    'raise'
    >>> dx.numpy_rank_promotion.value
    'allow'
    """

    def __init__(
        self,
        option: str,
        doc: str,
        bare: object = _UNSET,
        check: Callable[[object], None] | None = None,
    ) -> None:
        config.read(option)  # an unknown option fails at import
        self.option = option
        self.__doc__ = doc
        # What ``flag()`` with no argument sets (True for JAX's boolean flags).
        self._bare = bare
        # Refuses a value the api layer knows didax cannot honour (core cannot tell).
        self._check = check

    @property
    def value(self) -> Any:
        """The option's value in this thread."""
        return config.read(self.option)

    def __call__(self, new_val: object = _UNSET) -> contextlib.AbstractContextManager[None]:
        if new_val is _UNSET:
            if self._bare is _UNSET:
                raise TypeError(f"{self.option}: the context manager takes the new value")
            new_val = self._bare
        if self._check is not None:
            self._check(new_val)
        return config.override(self.option, new_val)

    def __repr__(self) -> str:
        return f"Flag({self.option}={self.value!r})"


def _bool_flag(option: str, doc: str) -> Flag:
    return Flag(option, doc, bare=True)


debug_nans: Final = _bool_flag(
    "jax_debug_nans", "A primitive producing a NaN raises FloatingPointError (``jax.debug_nans``)."
)
debug_infs: Final = _bool_flag(
    "jax_debug_infs", "A primitive producing an inf raises FloatingPointError (``jax.debug_infs``)."
)
numpy_dtype_promotion: Final = Flag(
    "jax_numpy_dtype_promotion",
    "``'standard'`` or ``'strict'``: strict refuses implicit promotion between dtypes.",
)
numpy_rank_promotion: Final = Flag(
    "jax_numpy_rank_promotion",
    "``'allow'``, ``'warn'`` or ``'raise'`` on operands of different ranks broadcast together.",
)
transfer_guard_host_to_device: Final = Flag(
    "jax_transfer_guard_host_to_device",
    "The guard on host-to-device transfers: ``'allow'``, ``'log'``, ``'disallow'`` "
    "(implicit ones), ``'log_explicit'``, ``'disallow_explicit'`` (explicit ones too).",
)
transfer_guard_device_to_host: Final = Flag(
    "jax_transfer_guard_device_to_host",
    "The guard on device-to-host transfers: ``'allow'``, ``'log'``, ``'disallow'`` "
    "(implicit ones), ``'log_explicit'``, ``'disallow_explicit'`` (explicit ones too).",
)
transfer_guard_device_to_device: Final = Flag(
    "jax_transfer_guard_device_to_device",
    "The guard on device-to-device transfers: ``'allow'``, ``'log'``, ``'disallow'`` "
    "(implicit ones), ``'log_explicit'``, ``'disallow_explicit'`` (explicit ones too).",
)
check_tracer_leaks: Final = _bool_flag(
    "jax_check_tracer_leaks", "JAX's tracer leak checker (didax: off only)."
)
checking_leaks: Final = check_tracer_leaks
enable_checks: Final = _bool_flag("jax_enable_checks", "JAX's internal checks (didax: off only).")
default_prng_impl: Final = Flag(
    "jax_default_prng_impl", "The PRNG of new keys (didax: ``'threefry2x32'`` only)."
)
threefry_partitionable: Final = _bool_flag(
    "jax_threefry_partitionable", "Threefry's partitionable bits (JAX's default, didax's only)."
)
enable_custom_prng: Final = _bool_flag(
    "jax_enable_custom_prng", "Custom PRNG implementations (didax: off only)."
)
legacy_prng_key: Final = Flag(
    "jax_legacy_prng_key", "Whether raw uint32 keys are accepted (didax: ``'allow'`` only)."
)
debug_key_reuse: Final = _bool_flag(
    "jax_debug_key_reuse", "Checks that each key is used once (didax: off only)."
)
array_garbage_collection_guard: Final = Flag(
    "jax_array_garbage_collection_guard",
    "What collecting an Array in a reference cycle does (didax: ``'allow'`` only).",
)
allow_f16_reductions: Final = _bool_flag(
    "jax_allow_f16_reductions", "Reductions over float16 operands (didax: on only)."
)
no_tracing: Final = _bool_flag("jax_no_tracing", "Refuse to trace (didax: off only).")
no_execution: Final = _bool_flag("jax_no_execution", "Refuse to execute (didax: off only).")
thread_guard: Final = _bool_flag("jax_thread_guard", "Refuse multi-threaded use (didax: off only).")
auto_pcast: Final = _bool_flag(
    "jax_auto_pcast", "shard_map's implicit varying casts (JAX's default, didax's only)."
)
remove_size_one_mesh_axis_from_type: Final = _bool_flag(
    "jax_remove_size_one_mesh_axis_from_type", "Size-one mesh axes in types (didax: off only)."
)
softmax_custom_jvp: Final = _bool_flag(
    "jax_softmax_custom_jvp", "JAX's transient softmax JVP rule (didax: off only)."
)
jax2tf_associative_scan_reductions: Final = _bool_flag(
    "jax2tf_associative_scan_reductions",
    "jax2tf's lowering of cumulative reductions (no effect without jax2tf, in JAX as here).",
)


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """Sets the three transfer guards at once for this thread (``jax.transfer_guard``).

    >>> import didax as dx, numpy as np
    >>> with dx.transfer_guard("disallow"):
    ...     dx.device_put(np.ones(2)).shape  # explicit: allowed
    (2,)
    """
    with (
        transfer_guard_host_to_device(new_val),
        transfer_guard_device_to_host(new_val),
        transfer_guard_device_to_device(new_val),
    ):
        yield


def _only_the_first_device(new_val: object) -> None:
    first = xla.device()
    if new_val is not None and new_val != first and new_val != first.platform:
        raise NotImplementedError(
            f"default_device: didax places arrays on {first} only, got {new_val!r}"
        )


default_device: Final = Flag(
    "jax_default_device",
    "Arrays go to this device when none is named (``jax.default_device``): didax places "
    "them on the backend's first device, so None, that device or its platform's name.",
    check=_only_the_first_device,
)


def make_user_context(default_value: Hashable = None) -> Flag:
    """A context whose value keys jit's caches (``jax.make_user_context``).

    A jitted function called under another value of the context is traced
    and compiled again, as when the x64 mode changes.

    >>> import didax as dx
    >>> mode = dx.make_user_context(default_value="train")
    >>> with mode("eval"):
    ...     mode.value
    'eval'
    """
    return Flag(add_user_context(default_value), "A user context keying jit's caches.")
