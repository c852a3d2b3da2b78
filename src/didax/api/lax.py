"""The ``didax.lax`` functions: core's bind wrappers, with every interpreter installed."""

import didax.interpreters  # noqa: F401  (installs the root trace and all rules)
from didax.core.lax import add as add
from didax.core.lax import sub as sub
from didax.core.lax import mul as mul
from didax.core.lax import div as div
from didax.core.lax import rem as rem
from didax.core.lax import pow as pow
from didax.core.lax import integer_pow as integer_pow
from didax.core.lax import neg as neg
from didax.core.lax import sign as sign
from didax.core.lax import abs as abs
from didax.core.lax import max as max
from didax.core.lax import min as min
from didax.core.lax import exp as exp
from didax.core.lax import log as log
from didax.core.lax import log1p as log1p
from didax.core.lax import expm1 as expm1
from didax.core.lax import sin as sin
from didax.core.lax import cos as cos
from didax.core.lax import tan as tan
from didax.core.lax import tanh as tanh
from didax.core.lax import logistic as logistic
from didax.core.lax import sqrt as sqrt
from didax.core.lax import rsqrt as rsqrt
from didax.core.lax import floor as floor
from didax.core.lax import ceil as ceil
from didax.core.lax import round as round
from didax.core.lax import eq as eq
from didax.core.lax import ne as ne
from didax.core.lax import lt as lt
from didax.core.lax import le as le
from didax.core.lax import gt as gt
from didax.core.lax import ge as ge
from didax.core.lax import and_ as and_
from didax.core.lax import or_ as or_
from didax.core.lax import not_ as not_
from didax.core.lax import select as select
from didax.core.lax import convert_element_type as convert_element_type
from didax.core.lax import stop_gradient as stop_gradient
from didax.core.lax import broadcast_in_dim as broadcast_in_dim
from didax.core.lax import reshape as reshape
from didax.core.lax import transpose as transpose
from didax.core.lax import squeeze as squeeze
from didax.core.lax import expand_dims as expand_dims
from didax.core.lax import slice as slice
from didax.core.lax import dynamic_slice as dynamic_slice
from didax.core.lax import dynamic_update_slice as dynamic_update_slice
from didax.core.lax import concatenate as concatenate
from didax.core.lax import pad as pad
from didax.core.lax import rev as rev
from didax.core.lax import iota as iota
from didax.core.lax import reduce_sum as reduce_sum
from didax.core.lax import reduce_max as reduce_max
from didax.core.lax import reduce_min as reduce_min
from didax.core.lax import reduce_prod as reduce_prod
from didax.core.lax import argmax as argmax
from didax.core.lax import argmin as argmin
from didax.core.lax import cumsum as cumsum
from didax.core.lax import dot_general as dot_general
from didax.core.lax import dot as dot
from didax.core.lax import broadcast as broadcast
from didax.core.lax import full_like as full_like

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
