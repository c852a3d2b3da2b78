"""didax.lax: one function per primitive, with strict types.

Operands of element-wise functions have one shape and one dtype, except that
weakly typed values (Python scalars) take their partner's dtype and shape.
"""

from didax.api.lax import add as add
from didax.api.lax import sub as sub
from didax.api.lax import mul as mul
from didax.api.lax import div as div
from didax.api.lax import rem as rem
from didax.api.lax import pow as pow
from didax.api.lax import integer_pow as integer_pow
from didax.api.lax import neg as neg
from didax.api.lax import sign as sign
from didax.api.lax import abs as abs
from didax.api.lax import max as max
from didax.api.lax import min as min
from didax.api.lax import exp as exp
from didax.api.lax import log as log
from didax.api.lax import log1p as log1p
from didax.api.lax import expm1 as expm1
from didax.api.lax import sin as sin
from didax.api.lax import cos as cos
from didax.api.lax import tan as tan
from didax.api.lax import tanh as tanh
from didax.api.lax import logistic as logistic
from didax.api.lax import sqrt as sqrt
from didax.api.lax import rsqrt as rsqrt
from didax.api.lax import floor as floor
from didax.api.lax import ceil as ceil
from didax.api.lax import round as round
from didax.api.lax import eq as eq
from didax.api.lax import ne as ne
from didax.api.lax import lt as lt
from didax.api.lax import le as le
from didax.api.lax import gt as gt
from didax.api.lax import ge as ge
from didax.api.lax import and_ as and_
from didax.api.lax import or_ as or_
from didax.api.lax import not_ as not_
from didax.api.lax import select as select
from didax.api.lax import convert_element_type as convert_element_type
from didax.api.lax import stop_gradient as stop_gradient
from didax.api.lax import broadcast_in_dim as broadcast_in_dim
from didax.api.lax import reshape as reshape
from didax.api.lax import transpose as transpose
from didax.api.lax import squeeze as squeeze
from didax.api.lax import expand_dims as expand_dims
from didax.api.lax import slice as slice
from didax.api.lax import dynamic_slice as dynamic_slice
from didax.api.lax import dynamic_update_slice as dynamic_update_slice
from didax.api.lax import concatenate as concatenate
from didax.api.lax import pad as pad
from didax.api.lax import rev as rev
from didax.api.lax import iota as iota
from didax.api.lax import reduce_sum as reduce_sum
from didax.api.lax import reduce_max as reduce_max
from didax.api.lax import reduce_min as reduce_min
from didax.api.lax import reduce_prod as reduce_prod
from didax.api.lax import argmax as argmax
from didax.api.lax import argmin as argmin
from didax.api.lax import cumsum as cumsum
from didax.api.lax import dot_general as dot_general
from didax.api.lax import dot as dot
from didax.api.lax import broadcast as broadcast
from didax.api.lax import full_like as full_like

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "integer_pow",
    "neg",
    "sign",
    "abs",
    "max",
    "min",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tan",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "floor",
    "ceil",
    "round",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and_",
    "or_",
    "not_",
    "select",
    "convert_element_type",
    "stop_gradient",
    "broadcast_in_dim",
    "reshape",
    "transpose",
    "squeeze",
    "expand_dims",
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "concatenate",
    "pad",
    "rev",
    "iota",
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "argmax",
    "argmin",
    "cumsum",
    "dot_general",
    "dot",
    "broadcast",
    "full_like",
]
