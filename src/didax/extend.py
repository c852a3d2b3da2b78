"""didax.extend: define new primitives (see docs/primitives.md)."""

from didax.api import extend_lowering as lowering
from didax.api.extend import Primitive as Primitive
from didax.api.extend import ShapedArray as ShapedArray
from didax.api.extend import UndefinedPrimal as UndefinedPrimal
from didax.api.extend import Zero as Zero

__all__ = ["Primitive", "ShapedArray", "UndefinedPrimal", "Zero", "lowering"]
