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
- JAX's ``DotAlgorithm`` and ``DotAlgorithmPreset`` (explicit accumulation
  algorithms) are not implemented: a preset's name or either object is
  refused with ``NotImplementedError``.
"""

from __future__ import annotations

import enum
from typing import Final, TypeAlias

from didax.core.config import DOT_ALGORITHM_PRESETS, config

__all__ = ["Precision", "PrecisionLike", "AccuracyMode", "Tolerance"]


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
# What users may pass as a ``precision``: None, a ``Precision``, one of its
# string aliases, or a pair of those (lhs's, rhs's).
PrecisionLike: TypeAlias = Precision | str | tuple[Precision | str, Precision | str] | None


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
