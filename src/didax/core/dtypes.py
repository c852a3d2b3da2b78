"""dtypes: the element types didax supports, their defaults, and JAX's promotion lattice.

Design rules:
- didax's defaults are JAX's: 32-bit, a Python ``float`` is float32 and an
  ``int`` int32, and 64-bit data is *canonicalized* to 32 bits where it
  enters (``canonical``). With ``jax_enable_x64`` on they are 64-bit
  (float64, int64) and data keeps its dtype.
- Promotion is JAX's type lattice (``jnp.promote_types``), not NumPy's
  table: ``int32 + float32`` is float32, ``bfloat16 + float16`` is float32,
  and Python scalars are *weakly typed*: a weak int or float is the lattice
  node ``i*`` or ``f*`` just above bool or the integers, so it takes the
  dtype of a strongly typed partner of a compatible kind
  (``float32_array * 2.0`` is float32). Weakness is a property of abstract
  values (``ShapedArray``), never of the NumPy arrays holding data.
- ``bfloat16`` comes from ``ml_dtypes``, as JAX's; NumPy calls its kind
  ``'V'``, so every kind test goes through ``kind`` here.
- Complex numbers are ``complex64`` and ``complex128`` (kind ``'c'``); a
  Python ``complex`` is the weak node ``c*`` above ``f*``, as in JAX's
  lattice. "Inexact" means float or complex: the dtypes that have tangents.
- ml_dtypes' narrow dtypes (the float8, float6 and float4 families, and
  the 1-, 2- and 4-bit integers) are dtypes as in JAX: each is a lattice
  node of its own with no implicit promotion to anything else (a weak
  Python scalar keeps it), so they are only ever combined by an explicit
  conversion. NumPy calls their kind ``'V'`` too; ``kind`` gives theirs.
- Only the dtypes in ``SUPPORTED`` exist; anything else (object, strings,
  datetimes) is a ``TypeError`` where it enters.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable
from typing import Final, TypeAlias

import ml_dtypes
import numpy as np
import numpy.typing as npt

from didax.core.config import strict_promotion, x64_enabled

DType = np.dtype[np.generic]
# What a ``dtype=`` argument may be: whatever NumPy takes for one (a dtype, a
# scalar type, a name, an object with a ``dtype`` attribute such as
# ``didax.numpy.float32``), None meaning the default.
DTypeLike: TypeAlias = npt.DTypeLike | None

bool_: Final = np.dtype(np.bool_)
int8: Final = np.dtype(np.int8)
int16: Final = np.dtype(np.int16)
int32: Final = np.dtype(np.int32)
int64: Final = np.dtype(np.int64)
uint8: Final = np.dtype(np.uint8)
uint16: Final = np.dtype(np.uint16)
uint32: Final = np.dtype(np.uint32)
uint64: Final = np.dtype(np.uint64)
bfloat16: Final[DType] = np.dtype(ml_dtypes.bfloat16)
float16: Final = np.dtype(np.float16)
float32: Final = np.dtype(np.float32)
float64: Final = np.dtype(np.float64)
complex64: Final = np.dtype(np.complex64)
complex128: Final = np.dtype(np.complex128)


def _ml(name: str) -> DType:
    # By name: ml_dtypes' type stubs do not list every type it defines.
    scalar_type: type[np.generic] = getattr(ml_dtypes, name)
    return np.dtype(scalar_type)


# JAX's narrow dtypes (``jax._src.dtypes``): floats of 8, 6 and 4 bits and the
# sub-byte integers, each held one element per byte by ml_dtypes.
FLOAT8S: Final[tuple[DType, ...]] = tuple(
    _ml(f"float8_{n}")
    for n in ("e3m4", "e4m3", "e8m0fnu", "e4m3b11fnuz", "e4m3fn", "e4m3fnuz", "e5m2", "e5m2fnuz")
)
FLOAT6S: Final[tuple[DType, ...]] = (_ml("float6_e2m3fn"), _ml("float6_e3m2fn"))
FLOAT4S: Final[tuple[DType, ...]] = (_ml("float4_e2m1fn"),)
INTNS: Final[tuple[DType, ...]] = tuple(_ml(n) for n in ("int1", "int2", "int4"))
UINTNS: Final[tuple[DType, ...]] = tuple(_ml(n) for n in ("uint1", "uint2", "uint4"))
NARROW_FLOATS: Final = (*FLOAT8S, *FLOAT6S, *FLOAT4S)
NARROW: Final[tuple[DType, ...]] = (*NARROW_FLOATS, *INTNS, *UINTNS)
# What XLA's CPU backend holds no buffers of and computes nothing in (JAX's
# ``device_put`` of them fails too): didax's arrays hold them on the host only.
HOST_ONLY: Final[tuple[DType, ...]] = (*FLOAT6S, INTNS[0], UINTNS[0])
_NARROW_KINDS: Final[dict[DType, str]] = {
    **dict.fromkeys(NARROW_FLOATS, "f"),
    **dict.fromkeys(INTNS, "i"),
    **dict.fromkeys(UINTNS, "u"),
}
_NARROW_BITS: Final[dict[DType, int]] = {d: int(d.name[-1]) for d in (*INTNS, *UINTNS)}

# The dtype of tangents of integer and boolean values: it has no values,
# exactly as JAX's float0 (a tangent of an integer input carries nothing).
float0: Final = np.dtype([("float0", np.void, 0)])

SUPPORTED: Final[tuple[DType, ...]] = (
    bool_,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bfloat16,
    float16,
    float32,
    float64,
    complex64,
    complex128,
    *NARROW,
)
_SUPPORTED_SET: Final = frozenset(SUPPORTED)

_SHORT_NAMES: Final[dict[DType, str]] = {
    bool_: "bool",
    int8: "i8",
    int16: "i16",
    int32: "i32",
    int64: "i64",
    uint8: "u8",
    uint16: "u16",
    uint32: "u32",
    uint64: "u64",
    bfloat16: "bf16",
    float16: "f16",
    float32: "f32",
    float64: "f64",
    complex64: "c64",
    complex128: "c128",
    float0: "float0",
    # JAX's short names: float8_e4m3fn is f8_e4m3fn, int4 i4, uint4 u4.
    **{d: d.name.replace("float", "f").replace("uint", "u").replace("int", "i") for d in NARROW},
}


def short_name(dtype: DType) -> str:
    """The short name used in jaxpr types: ``short_name(float64) == 'f64'``."""
    return _SHORT_NAMES.get(dtype, str(dtype))


def kind(dtype: DType) -> str:
    """NumPy's kind letter (``'b'``, ``'i'``, ``'u'``, ``'f'``, ``'c'``), ml_dtypes' types included.

    >>> kind(bfloat16), kind(np.dtype(ml_dtypes.int4))
    ('f', 'i')
    """
    if dtype == bfloat16:
        return "f"
    return _NARROW_KINDS.get(dtype, dtype.kind)


def bit_width(dtype: DType) -> int:
    """The bits of one element: ``8 * itemsize``, or 1, 2 or 4 for ml_dtypes' sub-byte integers.

    >>> bit_width(int16), bit_width(np.dtype(ml_dtypes.uint4))
    (16, 4)
    """
    return _NARROW_BITS.get(dtype, 8 * dtype.itemsize)


def is_float(dtype: DType) -> bool:
    return kind(dtype) == "f"


def is_complex(dtype: DType) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype: DType) -> bool:
    """Float or complex: the dtypes whose values have tangents."""
    return kind(dtype) in "fc"


_REAL_OF: Final[dict[DType, DType]] = {complex64: float32, complex128: float64}
_COMPLEX_OF: Final[dict[DType, DType]] = {
    bfloat16: complex64,
    float16: complex64,
    float32: complex64,
    float64: complex128,
}


def real_dtype(dtype: DType) -> DType:
    """The dtype of a complex dtype's parts (``complex64`` → ``float32``); others are themselves.

    >>> real_dtype(complex128), real_dtype(float32)
    (dtype('float64'), dtype('float32'))
    """
    return _REAL_OF.get(dtype, dtype)


def complex_dtype(dtype: DType) -> DType:
    """The complex dtype whose parts have ``dtype`` (float32 and smaller → ``complex64``).

    >>> complex_dtype(float64)
    dtype('complex64')
    """
    if is_complex(dtype):
        return dtype
    return canonical(_COMPLEX_OF.get(dtype, complex128))


def int_bounds(dtype: DType) -> tuple[int, int]:
    """An integer dtype's least and greatest values (NumPy's ``iinfo`` knows no int4).

    >>> int_bounds(int8), int_bounds(np.dtype(ml_dtypes.uint4))
    ((-128, 127), (0, 15))
    """
    bits = bit_width(dtype)
    if is_unsigned(dtype):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def float_max(dtype: DType) -> float:
    """Infinity, or the greatest finite value where ``dtype`` has no infinity (``float8_e4m3fn``).

    JAX's identity of ``max`` and ``min`` for such floats (``dtypes.supports_inf``).

    >>> float_max(float32), float_max(np.dtype(ml_dtypes.float8_e4m3fn))
    (inf, 448.0)
    """
    if dtype in NARROW and not np.isinf(np.float32(np.inf).astype(dtype)):
        return float(ml_dtypes.finfo(dtype).max)
    return float(np.inf)


def is_integer(dtype: DType) -> bool:
    return kind(dtype) in "iu"


def is_unsigned(dtype: DType) -> bool:
    return kind(dtype) == "u"


def is_bool(dtype: DType) -> bool:
    return dtype.kind == "b"


def is_signed(dtype: DType) -> bool:
    return kind(dtype) in "ifc"


# --- defaults and canonicalization (jax_enable_x64) -------------------------

_TO_32: Final[dict[DType, DType]] = {
    float64: float32,
    int64: int32,
    uint64: uint32,
    complex128: complex64,
}


def default_float() -> DType:
    """float64, or float32 with ``jax_enable_x64`` off."""
    return float64 if x64_enabled() else float32


def default_int() -> DType:
    """int64, or int32 with ``jax_enable_x64`` off."""
    return int64 if x64_enabled() else int32


def default_uint() -> DType:
    return uint64 if x64_enabled() else uint32


def default_complex() -> DType:
    """complex128, or complex64 with ``jax_enable_x64`` off."""
    return complex128 if x64_enabled() else complex64


def default_of_kind(k: str) -> DType:
    """The default dtype of a kind letter: ``'f'`` → ``default_float()``..."""
    if k == "b":
        return bool_
    if k == "i":
        return default_int()
    if k == "u":
        return default_uint()
    if k == "c":
        return default_complex()
    return default_float()


def canonical(dtype: DType) -> DType:
    """``dtype`` as didax holds it: itself, or its 32-bit counterpart with x64 off."""
    if x64_enabled():
        return dtype
    return _TO_32.get(dtype, dtype)


def _to_dtype(dtype: object) -> DType:
    if isinstance(dtype, np.dtype):
        return dtype
    if dtype is float:
        return default_float()
    if dtype is int:
        return default_int()
    if dtype is bool:
        return bool_
    try:
        dt: DType = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a dtype") from e
    return dt


def as_dtype(dtype: object) -> DType:
    """A dtype argument as the supported dtype it names, not canonicalized to the x64 mode.

    Python's ``float`` and ``int`` are float64 and int64 here, as NumPy's
    (JAX's ``promote_types`` reads them so).

    >>> as_dtype(float), as_dtype("int64")
    (dtype('float64'), dtype('int64'))
    """
    try:
        dt: DType = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a dtype") from e
    if dt not in _SUPPORTED_SET and dt != float0:
        raise unsupported(dt)
    return dt


def canonicalize(dtype: object) -> DType:
    """A dtype argument (``np.float32``, ``'int64'``, ``float``) as a supported dtype.

    Python's ``float`` and ``int`` mean the default float and int. With x64
    off a 64-bit request becomes 32-bit, with JAX's warning.

    >>> canonicalize(float)
    dtype('float32')
    """
    dt = _to_dtype(dtype)
    if dt not in _SUPPORTED_SET and dt != float0:
        raise unsupported(dt)
    out = canonical(dt)
    if out != dt:
        warnings.warn(
            f"Explicitly requested dtype {dt} is not available with jax_enable_x64 off, "
            f"and will be truncated to dtype {out}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
            "variable (as in JAX)",
            UserWarning,
            stacklevel=3,
        )
    return out


def unsupported(dtype: DType, what: str = "dtype") -> TypeError:
    """The error for a value of a dtype didax lacks."""
    return TypeError(f"didax does not support {what} {dtype}")


def python_scalar_dtype(x: bool | int | float | complex) -> DType:
    """The dtype a Python scalar has before weak-type promotion (the default of its kind)."""
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        dt = default_int()
        bound = 1 << (8 * dt.itemsize - 1)
        if not -bound <= x < bound:  # as JAX: no silent wrap-around or float conversion
            raise OverflowError(f"Python int {x} too large to convert to {dt}")
        return dt
    if isinstance(x, complex):
        return default_complex()
    return default_float()


def tangent_dtype(dtype: DType) -> DType:
    """The dtype of tangents of values of ``dtype``: itself for floats and complex, else float0."""
    return dtype if is_inexact(dtype) else float0


_INEXACT: Final[dict[DType, DType]] = {
    bool_: float32,
    int8: float32,
    int16: float32,
    int32: float32,
    uint8: float32,
    uint16: float32,
    uint32: float32,
    int64: float64,
    uint64: float64,
    # JAX's table has the 4-bit integers only (the 1- and 2-bit ones stay).
    **dict.fromkeys((INTNS[-1], UINTNS[-1]), float32),
}


def to_inexact(dtype: DType) -> DType:
    """The float dtype a function of reals computes ``dtype`` values in (JAX's table).

    Integers of up to 32 bits and bools become float32, 64-bit integers
    float64, floats and complex numbers stay.

    >>> to_inexact(int32), to_inexact(int64)
    (dtype('float32'), dtype('float32'))
    """
    return canonical(_INEXACT.get(dtype, dtype))


# --- JAX's promotion lattice ------------------------------------------------

# A lattice node: a dtype, or a weak type ("i*" weak int, "f*" weak float,
# "c*" weak complex).
Node: TypeAlias = DType | str
WEAK_INT: Final = "i*"
WEAK_FLOAT: Final = "f*"
WEAK_COMPLEX: Final = "c*"


# Which lattice promotes: the standard one with x64 on (True) or off (False),
# or "strict" (``jax_numpy_dtype_promotion='strict'``).
LatticeMode: TypeAlias = bool | str


def lattice_mode() -> LatticeMode:
    """The lattice the current configuration promotes on."""
    return "strict" if strict_promotion() else x64_enabled()


class TypePromotionError(ValueError):
    """Operands whose dtypes have no implicit promotion (``jax.dtypes.TypePromotionError``)."""


_INTS: Final = (uint8, uint16, uint32, uint64, int8, int16, int32, int64)
_FLOATS: Final = (bfloat16, float16, float32, float64)


def _lattice(mode: LatticeMode) -> dict[Node, list[Node]]:
    """Each node's immediate successors: JAX's ``_type_promotion_lattice``.

    The strict lattice only lets a weak type join the dtypes of its kind (or
    a wider weak kind): two different dtypes have no upper bound.
    """
    if mode == "strict":
        lattice: dict[Node, list[Node]] = {n: [] for n in (bool_, *_INTS, *_FLOATS, *NARROW)}
        lattice[complex64] = lattice[complex128] = []
        lattice[WEAK_INT] = [WEAK_FLOAT, *_INTS, *INTNS, *UINTNS]
        lattice[WEAK_FLOAT] = [WEAK_COMPLEX, *_FLOATS, *NARROW_FLOATS]
        lattice[WEAK_COMPLEX] = [complex64, complex128]
        return lattice
    x64 = mode is True
    # The narrow dtypes are dead ends: only a weak scalar joins them.
    return {
        **{n: [] for n in NARROW},
        bool_: [WEAK_INT],
        WEAK_INT: [uint8, int8, *INTNS, *UINTNS],
        uint8: [int16, uint16],
        uint16: [int32, uint32],
        # Without x64, u32 with i32 stays i32 rather than forming i64 (JAX's choice).
        uint32: [int64, uint64] if x64 else [int32, uint64],
        uint64: [WEAK_FLOAT],
        int8: [int16],
        int16: [int32],
        int32: [int64],
        int64: [WEAK_FLOAT],
        WEAK_FLOAT: [*NARROW_FLOATS, bfloat16, float16, WEAK_COMPLEX],
        bfloat16: [float32],
        float16: [float32],
        float32: [float64, complex64],
        float64: [complex128],
        WEAK_COMPLEX: [complex64],
        complex64: [complex128],
        complex128: [],
    }


@functools.cache
def _upper_bounds(mode: LatticeMode) -> dict[Node, frozenset[Node]]:
    lattice = _lattice(mode)

    def ub(n: Node) -> frozenset[Node]:
        out = {n}
        for succ in lattice[n]:
            out |= ub(succ)
        return frozenset(out)

    return {n: ub(n) for n in lattice}


@functools.lru_cache(maxsize=1024)
def _least_upper_bound(mode: LatticeMode, nodes: frozenset[Node]) -> Node:
    bounds = _upper_bounds(mode)
    common = frozenset.intersection(*(bounds[n] for n in nodes))
    least = [c for c in common if common <= bounds[c]]
    if not least:
        raise _no_promotion(mode, nodes)
    assert len(least) == 1, f"the lattice has no least upper bound of {nodes}"
    return least[0]


def _no_promotion(mode: LatticeMode, nodes: frozenset[Node]) -> TypePromotionError:
    """JAX's error for dtypes with no common upper bound (strict mode, or a narrow dtype)."""
    names = tuple(sorted(n if isinstance(n, str) else n.name for n in nodes))
    head = f"Input dtypes {names} have no available implicit dtype promotion path"
    if mode == "strict":
        return TypePromotionError(
            f"{head} when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
            "the desired output type, or set jax_numpy_dtype_promotion=standard."
        )
    narrow = [n for n in nodes if isinstance(n, np.dtype) and n in NARROW]
    family = "1-, 2- and 4-bit integers" if narrow and is_integer(narrow[0]) else "narrow floats"
    target = "int32" if narrow and is_integer(narrow[0]) else "float32"
    return TypePromotionError(
        f"{head}. To avoid unintended promotion, {family} (float8, float6, float4, int4, ...) "
        "do not support implicit promotion. If you'd like your inputs to be promoted to "
        f"another type, you can do so explicitly using e.g. x.astype('{target}')"
    )


def _node(dtype: DType, weak: bool) -> Node:
    if not weak or dtype == bool_:
        return dtype
    if is_complex(dtype):
        return WEAK_COMPLEX
    return WEAK_FLOAT if is_float(dtype) else WEAK_INT


def promote_types(a: DType, b: DType) -> DType:
    """The dtype two strongly typed values combine into (``jnp.promote_types``).

    >>> promote_types(int32, float32)
    dtype('float32')
    >>> promote_types(bfloat16, float16)
    dtype('float32')

    As JAX's, the result is not canonicalized: 64-bit dtypes stay 64-bit
    with x64 off (only the lattice is the 32-bit mode's).

    >>> promote_types(complex64, float64)
    dtype('complex128')
    """
    if a == b:
        return a
    return _node_dtype(_least_upper_bound(lattice_mode(), frozenset((a, b))))


def result_type(operands: Iterable[tuple[DType, bool]]) -> tuple[DType, bool]:
    """Promotes ``(dtype, weak)`` pairs on JAX's lattice; returns ``(dtype, weak)``.

    JAX's ``lattice_result_type``: one operand keeps its type; operands all
    weak promote as their strong counterparts and stay weak; otherwise the
    least upper bound of the lattice nodes, where a weak result (``i*`` or
    ``f*``) takes the default dtype of its kind. Bool is never weak; the
    result is canonical (32-bit with x64 off).

    >>> result_type([(float32, False), (float64, True)])
    (dtype('float32'), False)
    >>> result_type([(int32, False), (float64, True)])
    (dtype('float32'), True)
    """
    ops = tuple(operands)
    mode = lattice_mode()
    key = (ops, mode)
    hit = _RESULT_TYPES.get(key)
    if hit is None:
        if len(_RESULT_TYPES) >= 4096:
            _RESULT_TYPES.clear()
        hit = _RESULT_TYPES[key] = _result_type(ops, mode)
    return hit


# result_type's answers: it is called for every promoted operation, and its
# questions are few ((dtype, weak) pairs, the lattice mode).
_RESULT_TYPES: dict[tuple[tuple[tuple[DType, bool], ...], LatticeMode], tuple[DType, bool]] = {}


def _result_type(ops: tuple[tuple[DType, bool], ...], mode: LatticeMode) -> tuple[DType, bool]:
    dts = {d for d, _ in ops}
    all_weak = all(w for _, w in ops)
    if len(ops) == 1:
        out, weak = ops[0]
    elif len(dts) == 1 and not all_weak:
        out, weak = ops[0][0], False
    elif all_weak and mode != "strict":
        # (Strict promotion joins weak operands as weak types, as JAX's does.)
        out, weak = _node_dtype(_least_upper_bound(mode, frozenset(dts))), True
    else:
        node = _least_upper_bound(mode, frozenset(_node(d, w) for d, w in ops))
        out, weak = _node_dtype(node), isinstance(node, str)
    return canonical(out), weak and out != bool_


def _node_dtype(node: Node) -> DType:
    """A lattice node's dtype: a weak type's is the 64-bit one of its kind (before canonical)."""
    if node == WEAK_INT:
        return int64
    if node == WEAK_FLOAT:
        return float64
    if node == WEAK_COMPLEX:
        return complex128
    assert isinstance(node, np.dtype)
    return node
