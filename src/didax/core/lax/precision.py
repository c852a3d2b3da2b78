"""Matmul precision: ``Precision``, and how ``dot_general``'s ``precision`` param is spelled.

``dot_general`` carries two params beside its dimension numbers, as JAX's:

- ``precision``: None (the backend's default, XLA's ``DEFAULT``: TF32 passes
  for float32 on recent GPUs, bfloat16 passes on TPUs, full precision on
  CPUs) or a pair of ``Precision`` values, one per operand.
- ``preferred_element_type``: None or the dtype of the result (and the
  accumulation type XLA is asked for), e.g. int32 for int8 operands.

Design rules:
- Params have one spelling: the wrappers canonicalize what users pass
  (``canonicalize_precision``: a ``Precision``, one of JAX's strings or a
  pair of either) before binding, and ``None`` there means the value of
  ``jax_default_matmul_precision`` when that option is set, read when the
  dot is traced (so the option keys trace caches).
- Transformations keep an equation's ``precision`` as it is: the option is
  read once, when a dot is first bound, so a transformed program does not
  depend on the context it is transformed in (its caches are keyed by the
  program alone).
- JAX's ``DotAlgorithm`` and ``DotAlgorithmPreset`` (explicit operand and
  accumulation types) are accepted as ``precision`` by ``dot_general``,
  as on JAX's CPU backend: the presets CPUs run (``DEFAULT``,
  ``F16_F16_F16``, ``F32_F32_F32``, ``F64_F64_F64``, ``BF16_BF16_F32``
  and its ``_X3``, ``_X6``) are their conversions (``algorithm_types``:
  the operands to the algorithm's type, the product accumulated in its
  type, the result back to the dot's), staged as converts around a
  default-precision ``dot_general``; the others, and any ``DotAlgorithm``,
  are refused with JAX's CPU error. ``jax_default_matmul_precision``
  still refuses preset names.
"""

from __future__ import annotations

import enum
from typing import Final, NamedTuple, TypeAlias

from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.config import DOT_ALGORITHM_PRESETS, config
from didax.core.dtypes import DType

__all__ = [
    "Precision",
    "PrecisionLike",
    "AccuracyMode",
    "Tolerance",
    "DotAlgorithm",
    "DotAlgorithmPreset",
]


class Precision(enum.Enum):
    """How precisely accelerators compute a float32 matrix product (JAX's ``lax.Precision``).

    ``DEFAULT`` (aliases ``'default'``, ``'fastest'``, ``'bfloat16'``): one
    bfloat16 pass on TPUs, TF32 on GPUs that have it. ``HIGH`` (``'high'``,
    ``'bfloat16_3x'``, ``'tensorfloat32'``): three bfloat16 passes on TPUs,
    TF32 on GPUs. ``HIGHEST`` (``'highest'``, ``'float32'``): full float32.
    CPUs compute in full precision whatever is asked.

    >>> Precision("float32")
    Precision.HIGHEST
    >>> str(Precision.HIGH)
    'HIGH'
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        return _PRECISION_STRINGS.get(value)

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name


# JAX's aliases, in JAX's order (its error messages list them so).
_PRECISION_STRINGS: Final[dict[object, Precision]] = {
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}

# ``dot_general``'s ``precision`` param.
CanonicalPrecision: TypeAlias = tuple[Precision, Precision] | None


def _algorithms_refused(precision: object) -> NotImplementedError:
    return NotImplementedError(
        f"didax does not implement JAX's dot algorithms (DotAlgorithm, DotAlgorithmPreset); "
        f"got precision {precision!r}: use None, a lax.Precision, one of "
        f"{[s for s in _PRECISION_STRINGS if s is not None]} or a pair of these"
    )


def _is_dot_algorithm(precision: object) -> bool:
    # JAX's classes, recognised by name: core does not import jax.
    return type(precision).__name__ in ("DotAlgorithm", "DotAlgorithmPreset")


def canonicalize_precision(precision: object) -> CanonicalPrecision:
    """A ``precision=`` argument as ``dot_general``'s param (JAX's ``canonicalize_precision``).

    >>> canonicalize_precision("highest")
    (Precision.HIGHEST, Precision.HIGHEST)
    >>> canonicalize_precision((Precision.HIGH, Precision.DEFAULT))
    (Precision.HIGH, Precision.DEFAULT)
    >>> canonicalize_precision(None) is None  # unless jax_default_matmul_precision is set
    True
    """
    if precision is None:
        default = config.read("jax_default_matmul_precision")
        if default is None:
            return None
        try:
            return canonicalize_precision(default)
        except ValueError:
            raise ValueError(
                "jax_default_matmul_precision flag must be set to None or a value in "
                f"{list(_PRECISION_STRINGS)}, but got {default}"
            ) from None
    if isinstance(precision, str):
        if precision in _PRECISION_STRINGS:
            p = Precision(precision)
            return p, p
        if precision in DOT_ALGORITHM_PRESETS:
            raise _algorithms_refused(precision)
    elif isinstance(precision, Precision):
        return precision, precision
    elif _is_dot_algorithm(precision):
        raise _algorithms_refused(precision)
    elif isinstance(precision, (list, tuple)) and len(precision) == 2:
        first, second = precision
        if isinstance(first, Precision) and isinstance(second, Precision):
            return first, second
        if isinstance(first, str) and isinstance(second, str):
            p1 = canonicalize_precision(first)
            p2 = canonicalize_precision(second)
            assert p1 is not None
            assert p2 is not None
            return p1[0], p2[0]
    raise ValueError(
        "Precision argument must be one of:\n"
        "- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n"
        "- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings;\n"
        f"but got {precision}."
    )


class AccuracyMode(enum.Enum):
    """An accuracy asked of a transcendental function's implementation (JAX's ``lax.AccuracyMode``).

    JAX's element-wise functions take it as ``accuracy=``, for XLA to pick
    among implementations where a platform has several; on CPUs there is
    one, which ``DEFAULT`` and ``HIGHEST`` both get.
    """

    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """Tolerances asked of a transcendental function (JAX's ``lax.Tolerance``): at most two.

    >>> Tolerance(atol=1e-6).atol
    1e-06
    """

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0) -> None:
        if atol < 0.0 or rtol < 0.0 or ulps < 0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps


class DotAlgorithm(NamedTuple):
    """A dot product's operand and accumulation types (JAX's ``lax.DotAlgorithm``).

    Platform dependent: JAX's CPU backend (and didax) accept only the
    presets of ``DotAlgorithmPreset`` that CPUs run, not these.
    """

    lhs_precision_type: DTypeLike
    rhs_precision_type: DTypeLike
    accumulation_type: DTypeLike
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """JAX's named dot algorithms, ``LHS_RHS_ACCUM`` (``lax.DotAlgorithmPreset``).

    >>> DotAlgorithmPreset["BF16_BF16_F32"]
    DotAlgorithmPreset.BF16_BF16_F32
    """

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple[DType, ...] | None:
        """The operand types it computes in (None: any); an operand of another becomes the first."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (dtypes.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (dtypes.bfloat16, dtypes.float32)
        if name == "F64_F64_F64":
            return (dtypes.float64,)
        return (dtypes.float32,)

    @property
    def supported_rhs_types(self) -> tuple[DType, ...] | None:
        return self.supported_lhs_types

    @property
    def accumulation_type(self) -> DType | None:
        """The type it accumulates in (None: the result's)."""
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return {
            "F16_F16_F16": dtypes.float16,
            "BF16_BF16_BF16": dtypes.bfloat16,
            "F64_F64_F64": dtypes.float64,
        }.get(name, dtypes.float32)

    def supported_output_types(self, lhs: DType, rhs: DType) -> tuple[DType, ...] | None:
        """The accumulation types it offers for operands of ``lhs`` and ``rhs`` (JAX's)."""
        if self.name in ("F16_F16_F32", "BF16_BF16_F32"):
            narrow = dtypes.float16 if self.name.startswith("F16") else dtypes.bfloat16
            both = dtypes.promote_types(lhs, rhs) == narrow
            return (dtypes.float32, narrow) if both else (dtypes.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


# What users may pass as a ``precision``: None, a ``Precision``, one of its
# string aliases, or a pair of those (lhs's, rhs's), or a dot algorithm.
PrecisionLike: TypeAlias = (
    Precision
    | str
    | tuple[Precision | str, Precision | str]
    | DotAlgorithm
    | DotAlgorithmPreset
    | None
)

# The presets JAX's CPU lowering accepts (the CPU backend ignores the
# algorithm itself, so these are their conversions).
CPU_PRESETS: Final = frozenset(
    {
        DotAlgorithmPreset.DEFAULT,
        DotAlgorithmPreset.F16_F16_F16,
        DotAlgorithmPreset.F32_F32_F32,
        DotAlgorithmPreset.F64_F64_F64,
        DotAlgorithmPreset.BF16_BF16_F32,
        DotAlgorithmPreset.BF16_BF16_F32_X3,
        DotAlgorithmPreset.BF16_BF16_F32_X6,
    }
)


def dot_algorithm(precision: object) -> DotAlgorithm | DotAlgorithmPreset | None:
    """The dot algorithm ``precision`` names, if it names one (JAX's objects too, by name)."""
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, str) and precision in DOT_ALGORITHM_PRESETS:
        return DotAlgorithmPreset[precision]
    if type(precision).__name__ == "DotAlgorithmPreset":
        return DotAlgorithmPreset[str(getattr(precision, "name", ""))]
    if type(precision).__name__ == "DotAlgorithm" and isinstance(precision, tuple):
        return DotAlgorithm(*precision)
    return None


def algorithm_types(
    algorithm: DotAlgorithm | DotAlgorithmPreset, lhs: DType, rhs: DType, out: DType
) -> tuple[DType, DType, DType]:
    """``(lhs, rhs, accumulation)`` types of a dot by ``algorithm`` (JAX's compute types).

    Raises JAX's CPU error for an algorithm CPUs do not run. A 64-bit type
    with ``jax_enable_x64`` off is its 32-bit one (didax has no other).

    >>> algorithm_types(DotAlgorithmPreset.F16_F16_F16, *[dtypes.float32] * 3)
    (dtype('float16'), dtype('float16'), dtype('float16'))
    """
    if not isinstance(algorithm, DotAlgorithmPreset) or algorithm not in CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")

    def pick(dtype: DType, supported: tuple[DType, ...] | None) -> DType:
        return dtype if supported is None or dtype in supported else supported[0]

    lt = pick(lhs, algorithm.supported_lhs_types)
    rt = pick(rhs, algorithm.supported_rhs_types)
    acc = pick(out, algorithm.supported_output_types(lt, rt))
    return dtypes.canonical(lt), dtypes.canonical(rt), dtypes.canonical(acc)
