"""JAX's stages: a jitted function ``Traced``, ``Lowered`` and ``Compiled``.

Design rules:
- ``jit(f).trace(*args)`` traces once for the arguments' types and gives
  a ``Traced``: its jaxpr, its results' shapes and dtypes, and ``lower()``;
  ``jit(f).lower(*args)`` is ``trace(*args).lower()``. Arguments may be
  arrays, scalars or ``ShapeDtypeStruct``s (no data: a signature only);
  an array argument finds the program a call with it traced, as JAX's
  stages share jit's tracing cache.
- ``Wrapped`` is the protocol of what ``jit`` returns (JAX's name for it):
  callable, with ``trace`` and ``lower``.
- ``Lowered`` and ``Compiled`` live in ``api.aot``; this module names the
  stages as ``jax.stages`` does.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, final, runtime_checkable

from didax.api.aot import ArgInfo, Compiled, Lowered, Staged
from didax.ir.jaxpr import ClosedJaxpr
from didax.lowering.sharding import SpmdLayout

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]

# XLA compiler options by name, as JAX's stages type them; didax compiles with
# fixed options (``lowering.xla.compile_options``) and takes none.
CompilerOptions: TypeAlias = dict[str, str | bool]


@final
class Traced(Staged):
    """A jitted function traced for one signature (JAX's ``jax.stages.Traced``).

    >>> import didax as dx
    >>> import numpy as np
    >>> traced = dx.jit(lambda x: x * 2.0).trace(dx.ShapeDtypeStruct((3,), np.float32))
    >>> print(traced.jaxpr)
    { lambda a:f32[3] .
      let b:f32[3] = mul a 2.0
      in ( b ) }
    >>> traced.out_info
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    """

    @property
    def jaxpr(self) -> ClosedJaxpr:
        """The traced program, its constants closed over (as ``make_jaxpr`` prints it)."""
        return ClosedJaxpr(self._entry.jaxpr, self._entry.consts)

    @property
    def fun_name(self) -> str:
        return self._name

    @property
    def spmd_layout(self) -> SpmdLayout | None:
        """The program's layout over a mesh, or None for one device."""
        return self._layout

    def lower(self) -> Lowered:
        return Lowered(self._entry, self._name, self._layout, self._in_tree, self._donated)


@runtime_checkable
class Wrapped(Protocol):
    """What ``jit`` returns: callable, and traceable and lowerable ahead of time."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def trace(self, *args: Any, **kwargs: Any) -> Traced: ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered: ...
