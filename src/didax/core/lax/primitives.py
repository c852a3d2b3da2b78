"""The standard primitives: one ``Primitive`` per ``didax.lax`` operation.

Design rules:
- This module only *declares* primitives (and the types of their params);
  what a primitive means lives in rule tables: its typing rule in
  ``core.lax.typing_rules``, its impl, jvp, batching, transpose and lowering
  rules with their interpreters. Control flow is not here: it carries
  jaxprs, so its primitives live with the interpreters.
- Params are hashable values with exactly one spelling (tuples of ints,
  dtypes, nested tuples), so that fingerprints and caches are exact; the
  bind wrappers (``core.lax.wrappers``) normalise what users pass.
- The groups (``ELEMENTWISE``, ``REDUCTIONS``, ...) let interpreters register
  one rule for many primitives, and ``STANDARD_PRIMITIVES`` lets coverage
  tests walk them all.
"""

from __future__ import annotations

from typing import Final

from didax.core.lax.contractions import dot_general_p
from didax.core.lax.conversions import convert_element_type_p
from didax.core.lax.cumulative import cumsum_p
from didax.core.lax.reductions import (
    REDUCTIONS,
    argmax_p,
    argmin_p,
    reduce_max_p,
    reduce_min_p,
    reduce_prod_p,
    reduce_sum_p,
)
from didax.core.lax.slicing import dynamic_slice_p, dynamic_update_slice_p, pad_p, slice_p
from didax.core.lax.structural import (
    broadcast_in_dim_p,
    concatenate_p,
    expand_dims_p,
    iota_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)
from didax.core.primitive import Primitive

__all__ = [
    "add_p",
    "sub_p",
    "mul_p",
    "div_p",
    "rem_p",
    "pow_p",
    "max_p",
    "min_p",
    "integer_pow_p",
    "neg_p",
    "sign_p",
    "abs_p",
    "exp_p",
    "log_p",
    "log1p_p",
    "expm1_p",
    "sin_p",
    "cos_p",
    "tan_p",
    "tanh_p",
    "logistic_p",
    "sqrt_p",
    "rsqrt_p",
    "floor_p",
    "ceil_p",
    "round_p",
    "eq_p",
    "ne_p",
    "lt_p",
    "le_p",
    "gt_p",
    "ge_p",
    "and_p",
    "or_p",
    "not_p",
    "select_p",
    "convert_element_type_p",
    "stop_gradient_p",
    "real_p",
    "imag_p",
    "conj_p",
    "complex_p",
    "broadcast_in_dim_p",
    "reshape_p",
    "transpose_p",
    "squeeze_p",
    "expand_dims_p",
    "slice_p",
    "dynamic_slice_p",
    "dynamic_update_slice_p",
    "concatenate_p",
    "pad_p",
    "rev_p",
    "iota_p",
    "reduce_sum_p",
    "reduce_max_p",
    "reduce_min_p",
    "reduce_prod_p",
    "argmax_p",
    "argmin_p",
    "cumsum_p",
    "dot_general_p",
    "ARITHMETIC_BINARY",
    "FLOAT_UNARY",
    "NUMERIC_UNARY",
    "COMPARISONS",
    "LOGICAL_BINARY",
    "COMPLEX_PARTS",
    "REDUCTIONS",
    "ELEMENTWISE",
    "STANDARD_PRIMITIVES",
    "ROUND_AWAY_FROM_ZERO",
    "ROUND_TO_NEAREST_EVEN",
]

# Element-wise, by the operand kinds they accept.
add_p: Final = Primitive("add", scalar_operands=True)
sub_p: Final = Primitive("sub", scalar_operands=True)
mul_p: Final = Primitive("mul", scalar_operands=True)
div_p: Final = Primitive("div", scalar_operands=True)
rem_p: Final = Primitive("rem", scalar_operands=True)
pow_p: Final = Primitive("pow", scalar_operands=True)
max_p: Final = Primitive("max", scalar_operands=True)
min_p: Final = Primitive("min", scalar_operands=True)
integer_pow_p: Final = Primitive("integer_pow")
neg_p: Final = Primitive("neg")
sign_p: Final = Primitive("sign")
abs_p: Final = Primitive("abs")
exp_p: Final = Primitive("exp")
log_p: Final = Primitive("log")
log1p_p: Final = Primitive("log1p")
expm1_p: Final = Primitive("expm1")
sin_p: Final = Primitive("sin")
cos_p: Final = Primitive("cos")
tan_p: Final = Primitive("tan")
tanh_p: Final = Primitive("tanh")
logistic_p: Final = Primitive("logistic")
sqrt_p: Final = Primitive("sqrt")
rsqrt_p: Final = Primitive("rsqrt")
floor_p: Final = Primitive("floor")
ceil_p: Final = Primitive("ceil")
round_p: Final = Primitive("round")
eq_p: Final = Primitive("eq", scalar_operands=True)
ne_p: Final = Primitive("ne", scalar_operands=True)
lt_p: Final = Primitive("lt", scalar_operands=True)
le_p: Final = Primitive("le", scalar_operands=True)
gt_p: Final = Primitive("gt", scalar_operands=True)
ge_p: Final = Primitive("ge", scalar_operands=True)
and_p: Final = Primitive("and", scalar_operands=True)
or_p: Final = Primitive("or", scalar_operands=True)
not_p: Final = Primitive("not")
select_p: Final = Primitive("select")
stop_gradient_p: Final = Primitive("stop_gradient")

# Complex numbers: their parts, conjugate, and the number made of two parts.
real_p: Final = Primitive("real")
imag_p: Final = Primitive("imag")
conj_p: Final = Primitive("conj")
complex_p: Final = Primitive("complex")

# Structural.

# Reductions and scans.

ARITHMETIC_BINARY: Final = (add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p)
FLOAT_UNARY: Final = (
    exp_p,
    log_p,
    log1p_p,
    expm1_p,
    sin_p,
    cos_p,
    tan_p,
    tanh_p,
    logistic_p,
    sqrt_p,
    rsqrt_p,
    floor_p,
    ceil_p,
    round_p,
)
NUMERIC_UNARY: Final = (neg_p, sign_p, abs_p)
COMPARISONS: Final = (eq_p, ne_p, lt_p, le_p, gt_p, ge_p)
LOGICAL_BINARY: Final = (and_p, or_p)
COMPLEX_PARTS: Final = (real_p, imag_p, conj_p, complex_p)
ELEMENTWISE: Final = (
    *ARITHMETIC_BINARY,
    integer_pow_p,
    *NUMERIC_UNARY,
    *FLOAT_UNARY,
    *COMPARISONS,
    *LOGICAL_BINARY,
    *COMPLEX_PARTS,
    not_p,
    select_p,
    convert_element_type_p,
    stop_gradient_p,
)

STANDARD_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    *ELEMENTWISE,
    broadcast_in_dim_p,
    reshape_p,
    transpose_p,
    squeeze_p,
    expand_dims_p,
    slice_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    concatenate_p,
    pad_p,
    rev_p,
    iota_p,
    *REDUCTIONS,
    argmax_p,
    argmin_p,
    cumsum_p,
    dot_general_p,
)

# --- param types ----------------------------------------------------------------

# ``round``'s ``rounding_method``.
ROUND_AWAY_FROM_ZERO: Final = 0
ROUND_TO_NEAREST_EVEN: Final = 1
