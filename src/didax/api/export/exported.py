"""``export(jit(f))(*specs)``: a jitted function as a serializable StableHLO program, as JAX's.

Design rules:
- An ``Exported`` holds what JAX's holds (its fields have JAX's names):
  the argument and result pytrees and types, the platforms, the calling
  convention version and the module as a StableHLO portable artifact
  (``lowering.portable``). Its serialized bytes are JAX's (see
  ``serialization``), so ``jax.export.deserialize`` calls what didax
  exported, and ``deserialize`` here calls what JAX exported.
- The calling convention is JAX's version 10 for a program with no
  effects and one device: ``main`` takes the flattened array arguments and
  returns the flattened results. With symbolic dimensions in the specs
  (``symbolic.symbolic_shape``), ``main`` computes its dimension variables
  from its arguments' shapes, as JAX's does (``lowering.shape_poly``), and
  the export says it ``uses_global_constants``, as JAX's: callers refine
  the module at each call's shapes. didax makes no platform-index
  arguments or effect tokens (what a multi-platform or effectful export
  adds).
- ``Exported.call`` compiles the artifact once per ``Exported`` (once per
  argument shapes of a polymorphic one, refined for them as JAX refines
  it) and runs it eagerly on arguments of the exported types; under a
  transformation it raises (didax has no primitive that inlines a foreign
  module).
- One platform per export; ``platforms`` names it ("cpu", "cuda",
  "rocm"), by default this machine's (``default_export_platform``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, final

import attrs
from jax import tree_util

from didax.api.arrays import leaf_aval
from didax.api.export import serialization
from didax.api.export.serialization import AnyAval
from didax.api.jit import Jitted
from didax.core import shape_poly
from didax.core.abstract import ShapedArray
from didax.core.shape_poly import is_constant_shape, is_symbolic_dim
from didax.core.trace import current_trace
from didax.interpreters.evaluation import EVAL_TRACE
from didax.lowering import portable, xla
from didax.lowering.compiled import Compiled

__all__ = [
    "DisabledSafetyCheck",
    "Exported",
    "default_export_platform",
    "deserialize",
    "export",
    "maximum_supported_calling_convention_version",
    "minimum_supported_calling_convention_version",
    "serialize",
]

minimum_supported_calling_convention_version: Final = 9
maximum_supported_calling_convention_version: Final = 10
# The version written: JAX 0.10's default (``jax_export_calling_convention_version``).
_CALLING_CONVENTION_VERSION: Final = 10


@final
@attrs.frozen
class DisabledSafetyCheck:
    """A safety check an export skips (JAX's): build one with ``platform`` or ``custom_call``.

    ``platform()`` lets an ``Exported`` run on a platform it was not exported
    for; ``custom_call(name)`` is recorded for JAX (didax exports any custom
    call its lowering emits).
    """

    impl: str

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        kind, _, target = self.impl.partition(":")
        return target if kind == "custom_call" and target else None

    def __str__(self) -> str:
        return self.impl


def default_export_platform() -> str:
    """The platform an export is lowered for by default: this machine's ("cpu", "cuda"...)."""
    return xla.platform()


@final
@attrs.frozen
class Exported:
    """A function lowered to StableHLO for fixed argument types (JAX's ``jax.export.Exported``)."""

    fun_name: str
    in_tree: Any  # the pytree of (args, kwargs)
    # A ``SymbolicArray`` where JAX exported a symbolic dimension.
    in_avals: tuple[AnyAval, ...]
    out_tree: Any
    out_avals: tuple[AnyAval, ...]
    nr_devices: int
    platforms: tuple[str, ...]
    ordered_effects: tuple[str, ...]
    unordered_effects: tuple[str, ...]
    disabled_safety_checks: tuple[DisabledSafetyCheck, ...]
    mlir_module_serialized: bytes
    calling_convention_version: int
    module_kept_var_idx: tuple[int, ...]
    uses_global_constants: bool
    # The artifact compiled for this machine (by ``call``): once, or once per
    # argument shapes of a shape-polymorphic export.
    _compiled: dict[tuple[ShapedArray, ...], Compiled] = attrs.field(
        factory=dict, eq=False, repr=False, init=False
    )

    @property
    def in_shardings_hlo(self) -> tuple[None, ...]:
        """Unspecified for every argument: didax exports one-device programs."""
        return (None,) * len(self.in_avals)

    @property
    def out_shardings_hlo(self) -> tuple[None, ...]:
        return (None,) * len(self.out_avals)

    def mlir_module(self) -> str:
        """The StableHLO module, as text."""
        return portable.module_text(self.mlir_module_serialized)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        return serialize(self, vjp_order)

    def has_vjp(self) -> bool:
        return False

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the exported program on arguments of its exported structure and types."""
        where = f"Exported.call({self.fun_name})"
        platform = default_export_platform()
        skip = DisabledSafetyCheck.platform() in self.disabled_safety_checks
        if platform not in self.platforms and not skip:
            raise ValueError(
                f"Function '{self.fun_name}' was exported for platforms '{self.platforms}' "
                f"but it is used on '{(platform,)}'."
            )
        if current_trace() is not EVAL_TRACE:
            raise NotImplementedError(
                f"{where}: called under a transformation (jit, vmap, grad...); didax calls "
                "an Exported eagerly only"
            )
        leaves, tree = tree_util.tree_flatten((args, kwargs))
        if tree != self.in_tree:
            raise ValueError(
                f"{where}: the exported function was called with a different argument "
                f"structure: {tree}, exported for {self.in_tree}"
            )
        got = tuple(leaf_aval(x).strip_weak() for x in leaves)
        if not all(_fits(a, w) for a, w in zip(got, self.in_avals, strict=True)):
            raise TypeError(
                f"{where}: called with arguments of types {[a.str_short() for a in got]}, "
                f"exported for {[a.str_short() for a in self.in_avals]}"
            )
        _check_dimension_sizes(where, got, self.in_avals)
        kept = tuple(got[i] for i in self.module_kept_var_idx)
        compiled = self._compiled.get(kept)
        if compiled is None:
            artifact = self.mlir_module_serialized
            if self.uses_global_constants:
                dtypes = [a.dtype for a in self.out_avals]
                compiled = portable.compile_refined(artifact, kept, dtypes)
            else:
                out_avals = [a for a in self.out_avals if isinstance(a, ShapedArray)]
                compiled = portable.compile_artifact(artifact, kept, out_avals)
            self._compiled[kept] = compiled
        outs = compiled.run((), [leaves[i] for i in self.module_kept_var_idx])
        return tree_util.tree_unflatten(self.out_tree, outs)


def _fits(got: ShapedArray, want: AnyAval) -> bool:
    """Whether an argument of type ``got`` fits ``want`` (a symbolic dimension fits any size).

    The sizes given to symbolic dimensions are checked by ``_check_dimension_sizes``
    (and by the module itself, when refined for them).
    """
    if got.dtype != want.dtype or got.ndim != want.ndim:
        return False
    return all(
        isinstance(w, str) or is_symbolic_dim(w) or w == g
        for g, w in zip(got.shape, want.shape, strict=True)
    )


def _check_dimension_sizes(where: str, got: Sequence[ShapedArray], want: Sequence[AnyAval]) -> None:
    """Raises JAX's ValueError where the arguments give a dimension variable two sizes.

    A variable takes its size from the first dimension that is exactly it;
    every symbolic dimension is then evaluated and compared. (A dimension
    JAX wrote in a form didax does not parse is left to the module's checks.)
    """
    symbolic: list[tuple[str, shape_poly.DimExpr, int]] = []
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        for axis, (size, written) in enumerate(zip(g.shape, w.shape, strict=True)):
            dim = _parsed_dimension(written)
            if dim is not None:
                symbolic.append((f"args[{i}].shape[{axis}]", dim, size))
    sizes: dict[str, int] = {}
    for _, dim, size in symbolic:
        var = dim.as_variable()
        if var is not None:
            sizes.setdefault(var, size)
    for name, dim, size in symbolic:
        value = dim.evaluate(sizes)
        if value is not None and value != size:
            raise ValueError(
                f"{where}: Input shapes do not match the polymorphic shapes specification: "
                f"dimension size {name} (= {size}) and the specification '{dim}' "
                f"(= {value}) with {', '.join(f'{k} = {v}' for k, v in sorted(sizes.items()))}"
            )


def _parsed_dimension(written: object) -> shape_poly.DimExpr | None:
    """A symbolic dimension of an exported type: didax's, or JAX's text parsed (if didax can)."""
    if isinstance(written, str):
        try:
            written = shape_poly.symbolic_shape(written)[0]
        except ValueError:
            return None
    return written if isinstance(written, shape_poly.DimExpr) else None


def export(
    fun_jit: Jitted,
    *,
    platforms: Sequence[str] | None = None,
    disabled_checks: Sequence[DisabledSafetyCheck] = (),
) -> Callable[..., Exported]:
    """``export(jit(f))(*arg_specs, **kwarg_specs)``: ``f`` lowered and wrapped as an ``Exported``.

    Specs are ``ShapeDtypeStruct``s or arrays (only their types count).

    >>> import didax as dx
    >>> import numpy as np
    >>> exp = dx.export.export(dx.jit(lambda x: x * 2.0))(dx.ShapeDtypeStruct((3,), np.float32))
    >>> exp.in_avals, exp.platforms == (dx.export.default_export_platform(),)
    ((ShapedArray(f32[3]),), True)
    >>> exp.call(np.arange(3, dtype=np.float32))
    Array([0., 2., 4.], dtype=float32)
    """
    if not isinstance(fun_jit, Jitted):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    chosen = tuple(platforms) if platforms is not None else (default_export_platform(),)
    if len(chosen) != 1:
        raise NotImplementedError(
            f"export: multi-platform export (platforms={chosen}) is not supported by didax; "
            "export once per platform"
        )
    name = str(getattr(fun_jit, "__name__", "fun"))

    def do_export(*args_specs: Any, **kwargs_specs: Any) -> Exported:
        traced = fun_jit.trace(*args_specs, **kwargs_specs)
        if traced.spmd_layout is not None:
            raise NotImplementedError(
                f"export({name}): a program over several devices does not export in didax"
            )
        closed = traced.jaxpr
        artifact = portable.export_module(closed.jaxpr, closed.consts, name, chosen[0])
        in_avals = closed.in_avals
        return Exported(
            fun_name=name,
            in_tree=traced.in_tree,
            in_avals=in_avals,
            out_tree=tree_util.tree_structure(traced.out_info),
            out_avals=closed.out_avals,
            nr_devices=1,
            platforms=chosen,
            ordered_effects=(),
            unordered_effects=(),
            disabled_safety_checks=tuple(disabled_checks),
            mlir_module_serialized=artifact,
            calling_convention_version=_CALLING_CONVENTION_VERSION,
            module_kept_var_idx=tuple(range(len(in_avals))),
            # As JAX's: a module with dimension variables is refined at each call's shapes.
            uses_global_constants=not all(is_constant_shape(a.shape) for a in in_avals),
        )

    return do_export


def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
    """The bytes of ``exp`` in JAX's format: ``jax.export.deserialize`` reads them."""
    return serialization.serialize(exp, vjp_order)


def deserialize(blob: bytes | bytearray) -> Exported:
    """The ``Exported`` that ``blob`` holds: ``serialize``'s or ``jax.export.serialize``'s."""
    fields = serialization.fields_of(blob)
    checks = tuple(DisabledSafetyCheck(c) for c in fields.pop("disabled_safety_checks"))
    return Exported(**fields, disabled_safety_checks=checks)
