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
from didax.core.shape_poly import is_constant_shape
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
        names = _argument_names(self.in_tree)
        _check_types(where, names, got, self.in_avals)
        _check_dimension_sizes(where, names, got, self.in_avals)
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


def _argument_names(in_tree: Any) -> list[str]:
    """Each flat argument's name in JAX's error messages: ``args[0]``, ``kwargs['k']``..."""
    placeholders = tree_util.tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    paths = [path for path, _ in tree_util.tree_flatten_with_path(placeholders)[0]]
    return [("args" if p[0].idx == 0 else "kwargs") + tree_util.keystr(p[1:]) for p in paths]


def _written_shape(aval: AnyAval) -> str:
    """The shape as JAX prints it in its errors: ``(b, 4)``."""
    dims = [str(_parsed_dimension(d) or d) for d in aval.shape]
    return f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"


def _check_types(
    where: str, names: Sequence[str], got: Sequence[ShapedArray], want: Sequence[AnyAval]
) -> None:
    """JAX's ValueErrors for arguments whose rank, dtype or a fixed size differs from the export's.

    A symbolic dimension fits any size here; ``_check_dimension_sizes``
    checks the sizes given to them (and the module does, when refined).
    """
    for name, g, w in zip(names, got, want, strict=True):
        expected = f"expected {_written_shape(w)} and called with {g.shape}"
        if g.ndim != w.ndim:
            raise ValueError(f"{where}: Rank mismatch for {name}: {expected}")
        if g.dtype != w.dtype:
            raise ValueError(
                f"{where}: Dtype mismatch for {name}: expected {w.dtype} and called with {g.dtype}"
            )
        for axis, (size, dim) in enumerate(zip(g.shape, w.shape, strict=True)):
            if isinstance(dim, int) and dim != size:
                raise ValueError(
                    f"{where}: Shape mismatch for {name}.shape[{axis}] (expected same "
                    f"constant): {expected}"
                )


def _check_dimension_sizes(
    where: str, names: Sequence[str], got: Sequence[ShapedArray], want: Sequence[AnyAval]
) -> None:
    """Raises JAX's ValueError where the arguments give a dimension variable two sizes.

    A variable takes its size from the first dimension that is exactly it;
    every symbolic dimension is then evaluated and compared. (A dimension
    JAX wrote in a form didax does not parse is left to the module's checks.)
    """
    symbolic: list[tuple[str, shape_poly.DimExpr, int]] = []
    for name, g, w in zip(names, got, want, strict=True):
        for axis, (size, written) in enumerate(zip(g.shape, w.shape, strict=True)):
            dim = _parsed_dimension(written)
            if dim is not None:
                symbolic.append((f"{name}.shape[{axis}]", dim, size))
    sizes: dict[str, int] = {}
    for _, dim, size in symbolic:
        var = dim.as_variable()
        if var is not None:
            sizes.setdefault(var, size)
    for name, dim, size in symbolic:
        value = dim.evaluate(sizes)
        if value is not None and value != size:
            raise ValueError(
                f"{where}: Input shapes do not match the polymorphic shapes specification. "
                f"Found inconsistency between dimension size {name} (= {size}) and the "
                f"specification '{dim}' (= {value}), with "
                + ", ".join(f"'{k}' = {v}" for k, v in sorted(sizes.items()))
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
