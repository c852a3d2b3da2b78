"""``Exported`` to and from JAX's serialized form: the FlatBuffer of ``jax.export.serialize``.

Design rules:
- The tables and slots are those of JAX's schema (``serialization.fbs`` in
  JAX's ``_src/export``), written as JAX 0.10 writes them: the avals both
  as lists (older readers) and as indices into ``unique_avals``; the
  shardings as empty tables and zero indices (unspecified: a one-device
  program); the header's version 3, which every JAX reader accepts. What
  JAX wrote, didax reads: either form of avals, and unspecified shardings
  (a program given shardings carries Shardy's dialect, which didax's
  contexts do not load).
- What didax cannot represent is refused by name, never dropped:
  unregistered pytree nodes (``pytrees`` registers them), effects, a VJP,
  several devices. Symbolic dimensions are read as JAX wrote them
  (``SymbolicArray``), for ``Exported.call`` to refine.
"""

from __future__ import annotations

import types
from typing import Any, Final, Protocol, TypeAlias, final

import attrs
import ml_dtypes
import numpy as np
from jax import tree_util

from didax.api.export.flatbuffer import Reader, Scalar, Scalars, Table, write
from didax.api.export.pytrees import DESERIALIZERS, SERIALIZERS
from didax.core import dtypes
from didax.core.abstract import ShapedArray

__all__ = ["Serializable", "SymbolicArray", "fields_of", "serialize"]


@final
@attrs.frozen
class SymbolicArray:
    """An array type with symbolic dimensions, as JAX serialized them (``"b"``, ``"2*b"``).

    The type of an argument or result of a shape-polymorphic export as read
    from its bytes: didax calls such exports at concrete shapes (the
    module's shape refinement binds and checks the dimensions). didax's own
    exports hold ``ShapedArray``s with ``core.shape_poly`` dimensions.
    """

    shape: tuple[int | str, ...]
    dtype: np.dtype[Any]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def strip_weak(self) -> SymbolicArray:
        return self


AnyAval: TypeAlias = "ShapedArray | SymbolicArray"


class Serializable(Protocol):
    """The fields of an ``Exported`` that its serialized form holds."""

    @property
    def fun_name(self) -> str: ...
    @property
    def in_tree(self) -> Any: ...
    @property
    def in_avals(self) -> tuple[AnyAval, ...]: ...
    @property
    def out_tree(self) -> Any: ...
    @property
    def out_avals(self) -> tuple[AnyAval, ...]: ...
    @property
    def nr_devices(self) -> int: ...
    @property
    def platforms(self) -> tuple[str, ...]: ...
    @property
    def ordered_effects(self) -> tuple[str, ...]: ...
    @property
    def unordered_effects(self) -> tuple[str, ...]: ...
    @property
    def disabled_safety_checks(self) -> tuple[object, ...]: ...
    @property
    def mlir_module_serialized(self) -> bytes: ...
    @property
    def calling_convention_version(self) -> int: ...
    @property
    def module_kept_var_idx(self) -> tuple[int, ...]: ...
    @property
    def uses_global_constants(self) -> bool: ...


# The header's serialization version: JAX's readers before 11/2025 accepted
# only 2 or 3, so JAX itself still writes 3.
_HEADER_VERSION: Final = 3

# Slots of the ``Exported`` table (the schema's field indices; 0 is the header version).
_NAME, _IN_TREE, _IN_AVALS, _OUT_TREE, _OUT_AVALS, _NR_DEVICES_SHORT = 1, 2, 3, 4, 5, 6
_IN_SHARDINGS, _OUT_SHARDINGS, _PLATFORMS, _ORDERED, _UNORDERED, _CHECKS = 7, 8, 9, 10, 11, 12
_MODULE, _VERSION, _KEPT, _GLOBAL_CONSTANTS, _VJP, _NR_DEVICES = 13, 14, 15, 16, 17, 18
_UNIQUE_AVALS, _IN_AVAL_IDXS, _OUT_AVAL_IDXS = 19, 22, 23
_IN_SHARDING_IDXS, _OUT_SHARDING_IDXS = 24, 25

# ``PyTreeDefKind``.
_LEAF, _NONE, _TUPLE, _LIST, _DICT, _CUSTOM = range(6)

# ``DType``, by NumPy's (or ml_dtypes') name; 22 is float0.
_DTYPE_NAMES: Final = tuple(
    " ".join(
        (
            "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
            "complex64 complex128 bfloat16 int4 uint4 float8_e4m3b11fnuz float8_e4m3fn",
            "float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float0 float8_e4m3 float8_e3m4",
            "float8_e8m0fnu float4_e2m1fn",
        )
    ).split(" ")
)


def _dtype_of(name: str) -> np.dtype[Any] | None:
    if name == "float0":
        return dtypes.float0
    scalar = getattr(ml_dtypes, name, None) or getattr(np, name, None)
    return None if scalar is None else np.dtype(scalar)


_KIND_OF_DTYPE: Final = {d: i for i, d in enumerate(map(_dtype_of, _DTYPE_NAMES)) if d is not None}
_DTYPE_OF_KIND: Final = {i: d for d, i in _KIND_OF_DTYPE.items()}

# ``MemorySpace.Device``; ``DisabledSafetyCheckKind``.
_DEVICE_MEMORY: Final = 1
_CHECK_KINDS: Final = ("platform", "custom_call", "shape_assertions")


def _tree(tree: Any, where: str) -> Table:
    node = tree.node_data()
    children = [_tree(c, where) for c in tree.children()]
    fields: dict[int, Any] = {}
    if node is None:
        kind = _LEAF
    elif node[0] is types.NoneType:
        kind = _NONE
    elif node[0] in (tuple, list):
        kind = _TUPLE if node[0] is tuple else _LIST
    elif node[0] is dict:
        kind = _DICT
        if not all(isinstance(k, str) for k in node[1]):
            raise TypeError(f"{where}: only dictionaries with string keys serialize, got {node}")
        fields[2] = list(node[1])
    elif node[0] in SERIALIZERS:
        kind = _CUSTOM
        name, serialize_auxdata = SERIALIZERS[node[0]]
        data = serialize_auxdata(node[1])
        if not isinstance(data, (bytes, bytearray)):
            raise ValueError(f"{where}: serialize_auxdata of {name} returned a {type(data)}")
        fields[3], fields[4] = name, bytes(data)
    else:
        raise ValueError(
            f"{where}: cannot serialize a pytree with an unregistered type `{node[0]}`; use "
            "`didax.export.register_pytree_node_serialization` or "
            "`register_namedtuple_serialization`"
        )
    fields[0] = Scalar("b", kind)
    if children:
        fields[1] = children
    return Table(fields)


def _aval(aval: AnyAval) -> Table:
    return Table(
        {
            0: Scalar("b", 0),  # shapedArray
            1: [str(d) for d in aval.shape],
            2: Scalar("b", _KIND_OF_DTYPE[aval.dtype]),
            3: Scalar("b", _DEVICE_MEMORY),
        }
    )


def _check(check: object) -> Table:
    kind, _, target = str(check).partition(":")
    fields: dict[int, Any] = {0: Scalar("b", _CHECK_KINDS.index(kind))}
    if target:
        fields[1] = target
    return Table(fields)


def _unsupported(exp: Serializable, what: str) -> NotImplementedError:
    return NotImplementedError(f"didax.export.serialize({exp.fun_name}): {what}")


def serialize(exp: Serializable, vjp_order: int = 0) -> bytearray:
    """The bytes ``jax.export.deserialize`` reads (JAX's FlatBuffer schema).

    ``vjp_order`` must be 0: didax exports no VJPs.
    """
    if vjp_order:
        raise _unsupported(exp, f"vjp_order={vjp_order}: didax exports no VJP functions")
    if exp.ordered_effects or exp.unordered_effects:
        raise _unsupported(exp, "effects do not serialize")
    where = f"didax.export.serialize({exp.fun_name})"
    unique = list(dict.fromkeys(a.strip_weak() for a in (*exp.in_avals, *exp.out_avals)))
    index = {a: i for i, a in enumerate(unique)}
    n_in, n_out = len(exp.in_avals), len(exp.out_avals)
    root = Table(
        {
            0: Scalar("H", _HEADER_VERSION),
            _NAME: exp.fun_name,
            _IN_TREE: _tree(exp.in_tree, where),
            _IN_AVALS: [_aval(a) for a in exp.in_avals],
            _OUT_TREE: _tree(exp.out_tree, where),
            _OUT_AVALS: [_aval(a) for a in exp.out_avals],
            _IN_SHARDINGS: [Table({}) for _ in range(n_in)],
            _OUT_SHARDINGS: [Table({}) for _ in range(n_out)],
            _PLATFORMS: list(exp.platforms),
            _ORDERED: [],
            _UNORDERED: [],
            _CHECKS: [_check(c) for c in exp.disabled_safety_checks],
            _MODULE: exp.mlir_module_serialized,
            _VERSION: Scalar("H", exp.calling_convention_version),
            _KEPT: Scalars("H", exp.module_kept_var_idx),
            _GLOBAL_CONSTANTS: Scalar("?", exp.uses_global_constants),
            _NR_DEVICES: Scalar("I", exp.nr_devices),
            _UNIQUE_AVALS: [_aval(a) for a in unique],
            _IN_AVAL_IDXS: Scalars("I", tuple(index[a.strip_weak()] for a in exp.in_avals)),
            _OUT_AVAL_IDXS: Scalars("I", tuple(index[a.strip_weak()] for a in exp.out_avals)),
            _IN_SHARDING_IDXS: Scalars("I", (0,) * n_in),
            _OUT_SHARDING_IDXS: Scalars("I", (0,) * n_out),
        }
    )
    return write(root)


def _read_aval(t: Reader, where: str) -> AnyAval:
    if t.scalar(0, "b") != 0:
        raise NotImplementedError(f"{where}: only arrays (shapedArray) deserialize")
    kind = t.scalar(2, "b")
    if kind not in _DTYPE_OF_KIND:
        raise NotImplementedError(f"{where}: dtype kind {kind} is not one of didax's dtypes")
    dims = [int(d) if d.lstrip("-").isdigit() else d for d in t.strings(1)]
    if all(isinstance(d, int) for d in dims):
        return ShapedArray(tuple(int(d) for d in dims), _DTYPE_OF_KIND[kind])
    return SymbolicArray(tuple(dims), _DTYPE_OF_KIND[kind])


_BUILTIN_NODES: Final = {_NONE: types.NoneType, _TUPLE: tuple, _LIST: list}


def _read_tree(t: Reader | None, where: str) -> Any:
    """The ``PyTreeDef`` a serialized tree describes."""
    if t is None:
        raise ValueError(f"{where}: the serialized function has no pytree")
    kind = t.scalar(0, "b")
    children = [_read_tree(c, where) for c in t.tables(1)]
    if kind == _LEAF:
        return tree_util.tree_structure(0)
    if kind in _BUILTIN_NODES:
        node: tuple[Any, Any] = (_BUILTIN_NODES[kind], None)
    elif kind == _DICT:
        node = (dict, t.strings(2))
    elif kind == _CUSTOM:
        name = t.string(3) or ""
        if name not in DESERIALIZERS:
            raise ValueError(
                f"{where}: cannot deserialize a pytree with the unregistered type `{name}`; use "
                "`didax.export.register_pytree_node_serialization` or "
                "`register_namedtuple_serialization`"
            )
        nodetype, deserialize_auxdata, from_children = DESERIALIZERS[name]
        aux = deserialize_auxdata(t.byte_vector(4) or b"")
        if from_children is not None:
            placeholders = [tree_util.tree_unflatten(c, [0] * c.num_leaves) for c in children]
            return tree_util.tree_structure(from_children(aux, placeholders))
        node = (nodetype, aux)
    else:
        raise ValueError(f"{where}: a pytree node of unknown kind {kind}")
    return tree_util.PyTreeDef.from_node_data_and_children(
        tree_util.default_registry, node, children
    )


def _read_check(t: Reader) -> str:
    kind = _CHECK_KINDS[t.scalar(0, "b")]
    target = t.string(1)
    return kind if target is None else f"{kind}:{target}"


def fields_of(blob: bytes | bytearray) -> dict[str, Any]:
    """The fields of the ``Exported`` that ``blob`` (JAX's or didax's serialization) holds."""
    r = Reader(blob)
    name = r.string(_NAME) or ""
    where = f"didax.export.deserialize({name})"
    unique = [_read_aval(a, where) for a in r.tables(_UNIQUE_AVALS)]

    def avals(idxs: int, legacy: int) -> tuple[AnyAval, ...]:
        if r.scalars(idxs, "I"):
            return tuple(unique[i] for i in r.scalars(idxs, "I"))
        return tuple(_read_aval(a, where) for a in r.tables(legacy))

    in_avals = avals(_IN_AVAL_IDXS, _IN_AVALS)
    out_avals = avals(_OUT_AVAL_IDXS, _OUT_AVALS)
    nr_devices = r.scalar(_NR_DEVICES, "I") or r.scalar(_NR_DEVICES_SHORT, "h")
    if nr_devices != 1:
        raise NotImplementedError(f"{where}: exported for {nr_devices} devices; didax calls one")
    sharded = any(r.scalars(_IN_SHARDING_IDXS, "I")) or any(r.scalars(_OUT_SHARDING_IDXS, "I"))
    if sharded or any(t.table(2) is not None for t in r.tables(_IN_SHARDINGS)):
        raise NotImplementedError(
            f"{where}: exported with shardings (a mesh, Shardy's annotations); didax reads "
            "exports with unspecified shardings"
        )
    if r.tables(_ORDERED) or r.tables(_UNORDERED):
        raise NotImplementedError(f"{where}: the function has effects, which didax cannot call")
    if r.table(_VJP) is not None:
        raise NotImplementedError(f"{where}: serialized VJPs are not read by didax")
    return dict(
        fun_name=name,
        in_tree=_read_tree(r.table(_IN_TREE), where),
        in_avals=in_avals,
        out_tree=_read_tree(r.table(_OUT_TREE), where),
        out_avals=out_avals,
        nr_devices=nr_devices,
        platforms=tuple(r.strings(_PLATFORMS)),
        ordered_effects=(),
        unordered_effects=(),
        disabled_safety_checks=tuple(_read_check(c) for c in r.tables(_CHECKS)),
        mlir_module_serialized=r.byte_vector(_MODULE) or b"",
        calling_convention_version=r.scalar(_VERSION, "H"),
        module_kept_var_idx=r.scalars(_KEPT, "H"),
        uses_global_constants=bool(r.scalar(_GLOBAL_CONSTANTS, "?")),
    )
