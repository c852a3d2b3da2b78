"""``didax.debug``'s sharding tools: ``inspect_array_sharding``, ``visualize_*_sharding``.

Design rules:
- ``inspect_array_sharding(x, callback=...)`` calls ``callback`` with each
  array's sharding as early as it is known, as JAX's: at once for a
  concrete Array (its ``sharding``), at trace time for a traced value, whose
  program runs on the default device (didax's jit programs are single-device
  unless ``shard_map`` or a mesh's shardings place them).
- ``visualize_sharding(shape, sharding)`` draws which device holds which
  block of a rank-1 or rank-2 array, with ``rich`` as JAX's does: one cell
  per block, labelled with its devices (``CPU 0``), sized in proportion.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from jax import tree_util

from didax.core.sharding import SingleDeviceSharding
from didax.core.trace import Tracer
from didax.lowering import xla

__all__ = ["inspect_array_sharding", "visualize_array_sharding", "visualize_sharding"]


def inspect_array_sharding(value: object, *, callback: Callable[[Any], None]) -> None:
    """Calls ``callback`` with the sharding of each array in the pytree ``value``.

    >>> import didax
    >>> didax.debug.inspect_array_sharding(didax.numpy.ones(2), callback=print)
    SingleDeviceSharding(device=CpuDevice(id=0))
    """
    for leaf in tree_util.tree_leaves(value):
        if isinstance(leaf, Tracer):
            callback(SingleDeviceSharding(xla.device()))
        else:
            callback(getattr(leaf, "sharding", SingleDeviceSharding(xla.device())))


def _label(device: Hashable) -> str:
    platform = str(getattr(device, "platform", "device")).upper()
    return f"{platform} {getattr(device, 'id', device)}"


def _blocks(shape: Sequence[int], sharding: Any) -> dict[tuple[int, int], list[Hashable]]:
    """``(row start, column start)`` of each block -> the devices holding it."""
    blocks: dict[tuple[int, int], list[Hashable]] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        starts = [s.start or 0 for s in index] + [0, 0]
        key = (starts[0], starts[1]) if len(shape) == 2 else (0, starts[0])
        blocks.setdefault(key, []).append(device)
    return blocks


def visualize_sharding(
    shape: Sequence[int],
    sharding: Any,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map: object = None,
) -> None:
    """Draws which device holds which block of an array of ``shape`` (rank 1 or 2).

    >>> import didax
    >>> from didax.sharding import SingleDeviceSharding
    >>> didax.debug.visualize_sharding((4,), SingleDeviceSharding(didax.devices()[0]))
    ┌───────┐
    │ CPU 0 │
    └───────┘
    """
    if not importlib.util.find_spec("rich"):
        raise ValueError("`visualize_sharding` requires `rich` to be installed.")
    import rich.box
    import rich.console
    import rich.table

    if len(shape) > 2 or len(shape) == 0:
        raise ValueError(f"visualize_sharding only works for rank-1 and rank-2 shapes, got {shape}")
    blocks = _blocks(shape, sharding)
    rows = sorted({r for r, _ in blocks})
    cols = sorted({c for _, c in blocks})
    table = rich.table.Table(show_header=False, show_lines=True, box=rich.box.SQUARE)
    for _ in cols:
        table.add_column(justify="center", vertical="middle")
    for r in rows:
        cells = [", ".join(sorted(map(_label, blocks.get((r, c), [])))) for c in cols]
        table.add_row(*cells)
    console = rich.console.Console(width=max_width, color_system="auto" if use_color else None)
    console.print(table)


def visualize_array_sharding(arr: object, **kwargs: Any) -> None:
    """``visualize_sharding`` of the array ``arr``'s shape and sharding."""
    shape = tuple(getattr(arr, "shape", ()))
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(shape, s, **kwargs))
