"""The jax/jaxlib versions didax's lowering adapter (``xla.py``) is tested with.

Design rules:
- One range, ``TESTED_JAX_RANGE`` (the range ``pyproject.toml`` installs).
  Outside it ``check_version`` warns (``xla.py`` calls it at import), naming
  the range, instead of refusing: GPU images ship other versions, and the
  adapter's calls often still work there.
"""

from __future__ import annotations

import warnings
from typing import Final

TESTED_JAX_RANGE: Final = ((0, 10, 2), (0, 11, 0))  # [low, high)


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".")[:3] if p.isdigit())


class UntestedJaxWarning(UserWarning):
    """The installed jax or jaxlib is outside the range didax's adapter is tested with."""


def untested_versions() -> list[str]:
    """The installed jax/jaxlib versions outside ``TESTED_JAX_RANGE`` (``"jaxlib 0.11.2"``...)."""
    low, high = TESTED_JAX_RANGE
    from importlib.metadata import version as installed_version

    found = [(name, installed_version(name)) for name in ("jax", "jaxlib")]
    return [f"{n} {v}" for n, v in found if not low <= _version_tuple(v) < high]


def check_version() -> None:
    """Warns (``UntestedJaxWarning``) if the installed jax/jaxlib is outside the tested range."""
    untested = untested_versions()
    if untested:
        low, high = TESTED_JAX_RANGE
        warnings.warn(
            f"didax's lowering adapter is tested with jax and jaxlib in "
            f"[{'.'.join(map(str, low))}, {'.'.join(map(str, high))}), found "
            f"{' and '.join(untested)}: didax may fail or compute wrongly with it; "
            "`pip install .` installs a tested version",
            UntestedJaxWarning,
            stacklevel=2,
        )
