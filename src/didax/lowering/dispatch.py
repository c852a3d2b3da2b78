"""Running jaxprs on XLA, as one import: the names the api layer uses, and clearing every cache.

Design rules:
- Each concern has its own module, and this one only gathers them:
  ``compiled`` (``Compiled``, ``ShardedCompiled``, the compile cache),
  ``host_arguments`` (how arguments reach a program: NumPy arrays' host
  copies, their memory budget, when a call waits), ``scalars`` (kept
  device copies of scalars) and ``eager`` (eager evaluation's compiled
  route, ``apply_primitive``). Code that patches a module attribute
  patches the module that reads it, not this one.
- ``clear_caches`` empties every cache of the running side of lowering;
  it lives here, above the modules whose caches it empties.
"""

from __future__ import annotations

from didax.lowering import compiled, eager, scalars
from didax.lowering.compiled import COMPILE_CACHE as COMPILE_CACHE
from didax.lowering.compiled import AnyCompiled as AnyCompiled
from didax.lowering.compiled import Compiled as Compiled
from didax.lowering.compiled import ShardedCompiled as ShardedCompiled
from didax.lowering.compiled import compile_cache_info as compile_cache_info
from didax.lowering.compiled import compile_jaxpr as compile_jaxpr
from didax.lowering.compiled import spmd_annotations as spmd_annotations
from didax.lowering.eager import apply_primitive as apply_primitive
from didax.lowering.eager import layout_for_args as layout_for_args
from didax.lowering.host_arguments import to_buffer as to_buffer

__all__ = [
    "COMPILE_CACHE",
    "AnyCompiled",
    "Compiled",
    "ShardedCompiled",
    "apply_primitive",
    "clear_caches",
    "compile_cache_info",
    "compile_jaxpr",
    "layout_for_args",
    "spmd_annotations",
    "to_buffer",
]


def clear_caches() -> None:
    """Empties the compile cache and the caches of device scalars and one-equation programs."""
    compiled.COMPILE_CACHE.clear()
    eager.EAGER_PROGRAMS.clear()
    scalars.clear()
