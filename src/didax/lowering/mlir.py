"""Lowering jaxprs to StableHLO modules with ``jaxlib.mlir``.

Design rules:
- ``LOWERING_RULES`` maps each primitive to a rule
  ``(ctx, *operands: IrValue, **params) -> list[IrValue]``; ``ctx``
  (``LoweringRuleContext``) carries the operands' and results' abstract
  values, the module being built and the platform it is built for. A
  primitive family's rules live in ``lowering.<family>`` (the placement
  convention of ``core.lax``).
- Rules per platform, as JAX's ``mlir.register_lowering(prim, rule,
  platform=...)``: a module is lowered for one platform (``"cpu"``,
  ``"cuda"``, ``"rocm"``; ``lower_to_module(..., platform=None)`` takes the
  backend's, ``xla.platform()``). A rule registered with no platform
  (``LOWERING_RULES.defines(p)``) lowers ``p`` on every platform; one
  registered for a platform (``LOWERING_RULES.defines(p, platform="cuda")``)
  takes precedence there. The platform-independent rule is StableHLO that
  XLA compiles anywhere; platform rules call that platform's kernels (the
  linear-algebra primitives: LAPACK on CPUs, cuSOLVER on CUDA). Each
  (primitive, platform) pair registers at most once. A primitive with no
  rule for the platform fails when it is lowered, naming the primitive, its
  operand types and the platform, never later when XLA runs the program
  (a custom call whose kernel the platform lacks only fails then).
  A new platform joins by adding its name to ``PLATFORMS`` and registering
  rules for it where the platform-independent ones do not do.
- A module has one public ``main``. A nested jit call lowers to a
  ``func.call`` of a private function, and an identical nested jaxpr (equal
  fingerprint) is emitted once per module.
- Literals become ``stablehlo.constant``; everything else arrives as a
  function argument (constants were hoisted to arguments by staging).
- Symbolic dimensions (a batch-polymorphic export's, ``core.shape_poly``)
  lower as JAX's do: a ``?`` in the tensor type, and where an op needs the
  size as a value, a shape operand computed from ``main``'s arguments
  (``DimensionSizes``, implemented by ``lowering.shape_poly``, which also
  decides which primitives' rules accept such dimensions).
- Effects: a host callback's function is added to the module context's
  ``host_callbacks`` (the custom call names it by index; the module is
  compiled with that list). Ordered effects are ordered by a token, as
  JAX's: ``main`` creates one when its jaxpr has any, and the rules of
  ordered equations read and replace ``ModuleContext.token``; a
  control-flow op whose body has ordered effects carries the token through
  its region (a loop carry, a branch result), and a nested jit call with
  ordered effects is lowered inline, so the token stays in one function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, TypeAlias, final

import attrs
import numpy as np
from jaxlib.mlir import ir as ir  # re-exported for didax.extend.lowering
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.effects import ordered
from didax.core.primitive import Primitive, RuleTable, registering_module
from didax.core.shape_poly import DimExpr, is_constant_shape, is_symbolic_dim
from didax.ir.fingerprint import Fingerprint, fingerprint
from didax.ir.jaxpr import Atom, Jaxpr, Literal, Var
from didax.lowering import xla

IrValue: TypeAlias = ir.Value[Any]


class LoweringRule(Protocol):
    """``(ctx, *operands, **params) -> results``: StableHLO ops built at the insertion point.

    Each rule names its own operands and params.
    """

    def __call__(
        self, ctx: LoweringRuleContext, /, *args: Any, **params: Any
    ) -> Sequence[IrValue]: ...


# The StableHLO dialect, re-exported for rules written outside (didax.extend.lowering).
stablehlo: Final = hlo

# The platforms a rule may be registered for and a module lowered for (JAX's
# names for them, as ``xla.platform()`` reports the backend's).
PLATFORMS: Final = ("cpu", "cuda", "rocm")


def _check_platform(platform: str) -> None:
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}: didax lowers for {', '.join(PLATFORMS)}")


@final
class LoweringRuleTable(RuleTable[LoweringRule]):
    """The lowering rules: one per primitive for every platform, and/or one per platform.

    ``table[p]``, ``p in table`` and ``table.get(p)`` see the rules for every
    platform (``RuleTable``'s meaning); ``rule_for(p, platform)`` is the rule
    a module for ``platform`` uses.

    >>> table = LoweringRuleTable("example")
    >>> p = Primitive("p_platform_example")
    >>> table.register(p, lambda ctx, x: [x], platform="cpu")
    >>> table.lowers_on(p, "cpu"), table.lowers_on(p, "cuda")
    (True, False)
    """

    def __init__(self, interpreter: str) -> None:
        super().__init__(interpreter)
        self._per_platform: dict[str, dict[Primitive, LoweringRule]] = {p: {} for p in PLATFORMS}
        self._platform_registered_from: dict[str, dict[Primitive, str]] = {p: {} for p in PLATFORMS}

    def register(self, prim: Primitive, rule: LoweringRule, platform: str | None = None) -> None:
        """Registers ``rule`` for ``platform`` (for every platform when None)."""
        if platform is None:
            super().register(prim, rule)
            return
        _check_platform(platform)
        rules = self._per_platform[platform]
        if prim in rules:
            raise ValueError(
                f"{self.interpreter} rule for {prim.name} on {platform} is already registered"
            )
        rules[prim] = rule
        self._platform_registered_from[platform][prim] = registering_module()

    def registered_from(self, prim: Primitive, platform: str | None = None) -> str:
        """The module whose import registered ``prim``'s rule for ``platform`` (None: every one)."""
        if platform is None:
            return super().registered_from(prim)
        where = self._platform_registered_from.get(platform, {})
        if prim not in where:
            raise NotImplementedError(
                f"primitive '{prim.name}' has no {self.interpreter} rule of its own for {platform}"
            )
        return where[prim]

    def defines(
        self, *prims: Primitive, platform: str | None = None
    ) -> Callable[[LoweringRule], LoweringRule]:
        """Decorator form of ``register``; stack one per platform that shares a rule."""

        def deco(rule: LoweringRule) -> LoweringRule:
            for p in prims:
                self.register(p, rule, platform)
            return rule

        return deco

    def platforms(self, prim: Primitive) -> tuple[str, ...]:
        """The platforms with a rule of their own for ``prim``."""
        return tuple(p for p in PLATFORMS if prim in self._per_platform[p])

    def lowers_on(self, prim: Primitive, platform: str) -> bool:
        return prim in self._per_platform.get(platform, {}) or prim in self

    def rule_for(
        self, prim: Primitive, platform: str, avals_in: Sequence[ShapedArray] = ()
    ) -> LoweringRule:
        """The rule lowering ``prim`` for ``platform``: its own, else the one for every platform."""
        rule = self._per_platform.get(platform, {}).get(prim)
        if rule is None:
            rule = self.get(prim)
        if rule is None:
            types = ", ".join(str(a) for a in avals_in)
            others = self.platforms(prim)
            raise NotImplementedError(
                f"primitive '{prim.name}' has no {self.interpreter} rule for platform "
                f"'{platform}': cannot lower {prim.name}({types}) for {platform}"
                + (f" (it lowers on {', '.join(others)})" if others else "")
            )
        return rule


LOWERING_RULES: Final = LoweringRuleTable("lowering (StableHLO)")


# --- types and constants ---------------------------------------------------------


# ml_dtypes' narrow floats, by name, as MLIR's builtin types (JAX's table).
_NARROW_FLOAT_TYPES: Final[dict[str, Callable[[], ir.Type]]] = {
    "float8_e3m4": ir.Float8E3M4Type.get,
    "float8_e4m3": ir.Float8E4M3Type.get,
    "float8_e8m0fnu": ir.Float8E8M0FNUType.get,
    "float8_e4m3b11fnuz": ir.Float8E4M3B11FNUZType.get,
    "float8_e4m3fn": ir.Float8E4M3FNType.get,
    "float8_e4m3fnuz": ir.Float8E4M3FNUZType.get,
    "float8_e5m2": ir.Float8E5M2Type.get,
    "float8_e5m2fnuz": ir.Float8E5M2FNUZType.get,
    "float6_e2m3fn": ir.Float6E2M3FNType.get,
    "float6_e3m2fn": ir.Float6E3M2FNType.get,
    "float4_e2m1fn": ir.Float4E2M1FNType.get,
}


def dtype_to_ir_type(dtype: np.dtype[Any]) -> ir.Type:
    if dtype in dtypes.HOST_ONLY:
        # Refused here: XLA's CPU compiler aborts the process on their constants.
        raise TypeError(
            f"didax cannot compile programs on {dtype} values: XLA's CPU backend does "
            "not compute in float6 or 1-bit integers (nor can JAX's); convert them first"
        )
    if dtype == dtypes.bool_:
        return ir.IntegerType.get_signless(1)
    if dtypes.is_integer(dtype):  # int4 is i4, uint4 ui4 (ml_dtypes' sub-byte ints)
        make = (
            ir.IntegerType.get_unsigned
            if dtypes.is_unsigned(dtype)
            else ir.IntegerType.get_signless
        )
        return make(dtypes.bit_width(dtype))
    if dtype.name in _NARROW_FLOAT_TYPES:
        return _NARROW_FLOAT_TYPES[dtype.name]()
    if dtype == dtypes.bfloat16:
        return ir.BF16Type.get()
    if dtype == dtypes.float16:
        return ir.F16Type.get()
    if dtype == dtypes.float32:
        return ir.F32Type.get()
    if dtype == dtypes.float64:
        return ir.F64Type.get()
    if dtype == dtypes.complex64:
        return ir.ComplexType.get(ir.F32Type.get())
    if dtype == dtypes.complex128:
        return ir.ComplexType.get(ir.F64Type.get())
    raise TypeError(f"no StableHLO type for dtype {dtype}")


def aval_to_ir_type(aval: ShapedArray) -> ir.RankedTensorType:
    dynamic = ir.ShapedType.get_dynamic_size()
    shape = [dynamic if is_symbolic_dim(d) else d for d in aval.shape]
    return ir.RankedTensorType.get(shape, dtype_to_ir_type(aval.dtype))


def constant(value: np.ndarray[Any, Any] | np.generic) -> IrValue:
    """A ``stablehlo.constant`` holding ``value`` (any shape)."""
    shape = np.shape(value)
    # ascontiguousarray makes 0-d arrays 1-d: the shape is taken before.
    arr = np.ascontiguousarray(value)
    if arr.dtype == dtypes.bool_:
        # MLIR's dense i1 attributes take one bit per element, packed.
        attr = ir.DenseElementsAttr.get(
            np.packbits(arr, bitorder="little").data,
            type=ir.IntegerType.get_signless(1),
            shape=shape,
        )
    elif arr.dtype in dtypes.NARROW:
        # MLIR packs sub-byte elements, ml_dtypes holds one a byte: the constant is
        # made in a wide type and converted (exact: every narrow value is a float32's
        # or an int8's).
        wide = dtypes.int8 if dtypes.is_integer(arr.dtype) else dtypes.float32
        wide_aval = ShapedArray(shape, arr.dtype)
        return hlo.convert(aval_to_ir_type(wide_aval), constant(np.asarray(value).astype(wide)))
    else:
        # ml_dtypes' bfloat16 cannot be exported as a buffer: pass its bits.
        raw = arr.view(f"u{arr.itemsize}") if arr.dtype == dtypes.bfloat16 else arr
        attr = ir.DenseElementsAttr.get(raw.data, type=dtype_to_ir_type(arr.dtype), shape=shape)
    return hlo.constant(attr)


def full(aval: ShapedArray, value: bool | int | float | complex) -> IrValue:
    """An array of ``aval``'s type filled with ``value`` (a scalar constant, broadcast)."""
    scalar = constant(np.asarray(value, aval.dtype))
    if aval.shape == ():
        return scalar
    return broadcast_scalar(scalar, aval)


def broadcast_scalar(scalar: IrValue, aval: ShapedArray) -> IrValue:
    """The rank-0 ``scalar`` broadcast to an array of type ``aval``."""
    if not is_constant_shape(aval.shape):
        sizes = _ACTIVE_SIZES[-1].shape_operand(aval.shape)
        return hlo.dynamic_broadcast_in_dim(aval_to_ir_type(aval), scalar, sizes, dense_i64(()))
    return hlo.broadcast_in_dim(aval_to_ir_type(aval), scalar, dense_i64(()))


def dense_i64(values: Sequence[int]) -> ir.DenseI64ArrayAttr:
    """The ``array<i64: ...>`` attribute StableHLO ops take for dimension lists."""
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def row_major(ndim: int) -> tuple[int, ...]:
    """The default layout of a rank-``ndim`` array (minor-to-major order, as XLA writes layouts)."""
    return tuple(range(ndim - 1, -1, -1))


def layouts_attr(layouts: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    """Layouts (minor-to-major) as a custom call's ``operand_layouts`` or ``result_layouts``."""
    return ir.ArrayAttr.get(
        [
            ir.DenseIntElementsAttr.get(  # type: ignore[call-overload]
                np.asarray(list(layout), np.int64), type=ir.IndexType.get()
            )
            for layout in layouts
        ]
    )


def pin_row_major(x: IrValue, aval: ShapedArray) -> IrValue:
    """``x``, laid out row-major in memory: XLA's ``LayoutConstraint`` custom call.

    For an op whose kernel reads or writes only the default layout where
    XLA's layout assignment does not insist on it. XLA's layout assignment
    takes the call's result layout as a constraint and then removes it (a
    copy where a neighbour wants another layout); its sharding propagation
    passes through it.
    """
    op = hlo.CustomCallOp(
        [aval_to_ir_type(aval)],
        [x],
        "LayoutConstraint",
        backend_config=ir.StringAttr.get(""),
        operand_layouts=layouts_attr([row_major(aval.ndim)]),
        result_layouts=layouts_attr([row_major(aval.ndim)]),
    )
    out: IrValue = op.results[0]
    return out


# --- the lowering context ------------------------------------------------------------


class DimensionSizes(Protocol):
    """The sizes of a symbolic module's dimension variables, as values in its ``main``."""

    def bind(self, args: Sequence[IrValue]) -> None:
        """Computes the sizes from ``main``'s arguments (at its entry)."""

    def size(self, d: int | DimExpr) -> IrValue:
        """The size ``d`` (an int or a ``shape_poly.DimExpr``) as a rank-0 ``i64`` value."""
        ...

    def shape_operand(self, shape: Sequence[int]) -> IrValue:
        """``shape`` as a 1-d ``i64`` tensor (the operand of the dynamic shape ops)."""
        ...

    def rule_for(
        self,
        prim: Primitive,
        avals: tuple[tuple[ShapedArray, ...], tuple[ShapedArray, ...]],
        rule: LoweringRule,
    ) -> LoweringRule:
        """The rule lowering ``prim`` on operands and results of types ``avals`` (or raises)."""
        ...


# The symbolic lowering in progress (innermost last), for ``broadcast_scalar``.
_ACTIVE_SIZES: Final[list[DimensionSizes]] = []


@final
class ModuleContext:
    """The module being built for ``platform``: where private functions for nested jaxprs go."""

    def __init__(
        self, module: ir.Module, platform: str, sizes: DimensionSizes | None = None
    ) -> None:
        self.module = module
        self.platform = platform
        self.sizes = sizes
        self.functions: dict[Fingerprint, func.FuncOp] = {}
        self._count = 0
        # The mesh of the enclosing shard_map body being lowered (its
        # collectives' replica groups are in that mesh's device ids), if any.
        self.manual_mesh: Any = None
        self._channels = 0
        # The host callbacks of the module's custom calls, by index, and the
        # ordered effects' token where the rules are emitting (None: none).
        self.host_callbacks: list[Callable[..., Any]] = []
        self.token: IrValue | None = None

    def next_channel(self) -> int:
        """A fresh channel id for a collective of this module."""
        self._channels += 1
        return self._channels

    def current_token(self) -> IrValue:
        """The ordered effects' token where the rules are emitting (one must be threaded)."""
        if self.token is None:
            raise RuntimeError("an ordered effect is lowered where no token is threaded")
        return self.token

    def function_for(self, jaxpr: Jaxpr, name: str) -> func.FuncOp:
        """The private function computing ``jaxpr``, emitted once per equal jaxpr."""
        key = fingerprint(jaxpr)
        fn = self.functions.get(key)
        if fn is None:
            # Numbered before its body is lowered: the body may emit functions too.
            self._count += 1
            fn = _lower_function(self, jaxpr, f"{_sanitize(name)}_{self._count}", public=False)
            self.functions[key] = fn
        return fn


@final
@attrs.frozen
class LoweringRuleContext:
    """What a lowering rule knows beyond its operands."""

    module_context: ModuleContext
    avals_in: tuple[ShapedArray, ...]
    avals_out: tuple[ShapedArray, ...]

    @property
    def platform(self) -> str:
        """The platform the module is lowered for (``"cpu"``, ``"cuda"``...)."""
        return self.module_context.platform


def _sanitize(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "fn"


def _lower_function(
    mctx: ModuleContext,
    jaxpr: Jaxpr,
    name: str,
    public: bool,
    donated: frozenset[int] = frozenset(),
    spmd: SpmdAnnotations | None = None,
) -> func.FuncOp:
    in_types = [aval_to_ir_type(v.aval) for v in jaxpr.in_binders]
    out_types = [aval_to_ir_type(x.aval) for x in jaxpr.outs]
    with ir.InsertionPoint(mctx.module.body):
        fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
    fn.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
    if donated or spmd is not None:
        arg_attrs: list[dict[str, ir.Attribute]] = [{} for _ in in_types]
        for i in donated:
            # As JAX marks donated arguments: XLA may reuse their buffers for
            # results of the same type, and PJRT deletes them after the call.
            arg_attrs[i]["jax.buffer_donor"] = ir.BoolAttr.get(True)
        if spmd is not None:
            for attrs_i, text in zip(arg_attrs, spmd.arguments, strict=True):
                attrs_i["mhlo.sharding"] = ir.StringAttr.get(text)
            fn.res_attrs = ir.ArrayAttr.get(
                [
                    ir.DictAttr.get({} if t is None else {"mhlo.sharding": ir.StringAttr.get(t)})
                    for t in spmd.results
                ]
            )
        fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in arg_attrs])
    entry = fn.regions[0].blocks.append(*in_types)
    outer_token = mctx.token
    with ir.InsertionPoint(entry):
        # A private function never has ordered effects (their jit is inlined).
        mctx.token = hlo.create_token() if public and ordered(jaxpr.effects) else None
        if public and mctx.sizes is not None:
            mctx.sizes.bind(list(entry.arguments))
        outs = lower_jaxpr_body(mctx, jaxpr, list(entry.arguments))
        func.ReturnOp(outs)
    mctx.token = outer_token
    return fn


def token_type() -> ir.Type:
    """``!stablehlo.token``."""
    token: ir.Type = hlo.TokenType.get()
    return token


def threads_token(*jaxprs: Jaxpr) -> bool:
    """Whether any of ``jaxprs`` has ordered effects: its op must carry the token."""
    return any(ordered(j.effects) for j in jaxprs)


def lower_jaxpr_body(mctx: ModuleContext, jaxpr: Jaxpr, args: Sequence[IrValue]) -> list[IrValue]:
    """Emits the equations of ``jaxpr`` at the current insertion point; returns its outputs."""
    env: dict[Var, IrValue] = dict(zip(jaxpr.in_binders, args, strict=True))
    # Each literal's constant (and its broadcasts) is emitted once per body,
    # where it is first used: it dominates every later use in the block.
    literals: dict[tuple[Any, ...], IrValue] = {}

    def read(x: Atom, shape: tuple[int, ...] | None = None) -> IrValue:
        if not isinstance(x, Literal):
            return env[x]
        key = (x.aval.dtype, x.val.tobytes(), shape)
        value = literals.get(key)
        if value is None:
            if shape is None:
                value = constant(x.val)
            else:
                value = broadcast_scalar(read(x), ShapedArray(shape, x.aval.dtype))
            literals[key] = value
        return value

    for eqn in jaxpr.eqns:
        avals_in = tuple(x.aval for x in eqn.inputs)
        shape = avals_in[0].shape if avals_in else ()
        if eqn.primitive.scalar_operands and any(a.shape != shape for a in avals_in):
            # Rank-0 operands stand for arrays of the others' shape: broadcast
            # (as JAX's lax n-ary lowerings do), so rules see one shape.
            shape = next(a.shape for a in avals_in if a.shape)
            ins = [
                read(x)
                if x.aval.shape == shape
                else read(x, shape)
                if isinstance(x, Literal)
                else broadcast_scalar(env[x], ShapedArray(shape, x.aval.dtype))
                for x in eqn.inputs
            ]
            avals_in = tuple(ShapedArray(shape, a.dtype, a.weak_type) for a in avals_in)
        else:
            ins = [read(x) for x in eqn.inputs]
        ctx = LoweringRuleContext(mctx, avals_in, tuple(v.aval for v in eqn.out_binders))
        rule = LOWERING_RULES.rule_for(eqn.primitive, mctx.platform, avals_in)
        if mctx.sizes is not None:
            rule = mctx.sizes.rule_for(eqn.primitive, (avals_in, ctx.avals_out), rule)
        outs = rule(ctx, *ins, **eqn.params)
        outs = list(outs)
        if len(outs) != len(eqn.out_binders):
            raise RuntimeError(
                f"the lowering of {eqn.primitive.name} returned {len(outs)} values, "
                f"expected {len(eqn.out_binders)}"
            )
        env.update(zip(eqn.out_binders, outs, strict=True))
    return [read(x) for x in jaxpr.outs]


@final
@attrs.frozen
class SpmdAnnotations:
    """The ``mhlo.sharding`` texts of a program's arguments and results (None: XLA chooses)."""

    num_partitions: int
    arguments: tuple[str, ...]
    results: tuple[str | None, ...]


def lower_to_module(
    jaxpr: Jaxpr,
    name: str = "main",
    donated: frozenset[int] = frozenset(),
    spmd: SpmdAnnotations | None = None,
    platform: str | None = None,
) -> ir.Module:
    """``lower_with_callbacks``'s module (see there)."""
    return lower_with_callbacks(jaxpr, name, donated, spmd, platform)[0]


def lower_with_callbacks(
    jaxpr: Jaxpr,
    name: str = "main",
    donated: frozenset[int] = frozenset(),
    spmd: SpmdAnnotations | None = None,
    platform: str | None = None,
    sizes: DimensionSizes | None = None,
) -> tuple[ir.Module, list[Callable[..., Any]]]:
    """A StableHLO module whose public ``main`` computes ``jaxpr`` (constant-free).

    The inputs at the positions in ``donated`` are marked as buffer donors.
    With ``spmd``, the module is one program for ``num_partitions`` devices:
    its arguments and results carry ``mhlo.sharding`` attributes, which
    XLA's SPMD partitioner reads. The module is lowered for ``platform``
    (one of ``PLATFORMS``; by default the backend's, which it then starts).
    A jaxpr with symbolic dimensions takes ``sizes`` (``lowering.shape_poly``).
    The host callbacks its custom calls name by index come beside it: the
    module must be compiled with them.
    """
    if platform is None:
        platform = xla.platform()
    else:
        _check_platform(platform)
    with xla.ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["sym_name"] = ir.StringAttr.get(_sanitize(name))
        if spmd is not None:
            i32 = ir.IntegerType.get_signless(32)
            module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
                i32, spmd.num_partitions
            )
            module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        mctx = ModuleContext(module, platform, sizes)
        if sizes is not None:
            _ACTIVE_SIZES.append(sizes)
        try:
            _lower_function(mctx, jaxpr, "main", public=True, donated=donated, spmd=spmd)
        finally:
            if sizes is not None:
                _ACTIVE_SIZES.pop()
        if not module.operation.verify():
            raise RuntimeError(f"didax produced an invalid StableHLO module:\n{module}")
    return module, mctx.host_callbacks


def lower_to_text(
    jaxpr: Jaxpr,
    name: str = "main",
    spmd: SpmdAnnotations | None = None,
    platform: str | None = None,
) -> str:
    """The StableHLO text of ``lower_to_module``."""
    module = lower_to_module(jaxpr, name, spmd=spmd, platform=platform)
    with module.context:
        return str(module)
