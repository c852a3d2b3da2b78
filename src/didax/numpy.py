"""didax.numpy: NumPy-named functions with NumPy broadcasting and NEP 50 promotion.

The implementation is ``didax.api.numpy``; importing it also gives tracers
NumPy's operators and array methods.
"""

from didax.api.numpy import float32 as float32
from didax.api.numpy import float64 as float64
from didax.api.numpy import int32 as int32
from didax.api.numpy import int64 as int64
from didax.api.numpy import bool_ as bool_
from didax.api.numpy import array as array
from didax.api.numpy import asarray as asarray
from didax.api.numpy import zeros as zeros
from didax.api.numpy import ones as ones
from didax.api.numpy import zeros_like as zeros_like
from didax.api.numpy import ones_like as ones_like
from didax.api.numpy import full as full
from didax.api.numpy import arange as arange
from didax.api.numpy import linspace as linspace
from didax.api.numpy import eye as eye
from didax.api.numpy import add as add
from didax.api.numpy import subtract as subtract
from didax.api.numpy import multiply as multiply
from didax.api.numpy import divide as divide
from didax.api.numpy import true_divide as true_divide
from didax.api.numpy import power as power
from didax.api.numpy import negative as negative
from didax.api.numpy import abs as abs
from didax.api.numpy import exp as exp
from didax.api.numpy import log as log
from didax.api.numpy import log1p as log1p
from didax.api.numpy import sqrt as sqrt
from didax.api.numpy import sin as sin
from didax.api.numpy import cos as cos
from didax.api.numpy import tan as tan
from didax.api.numpy import tanh as tanh
from didax.api.numpy import maximum as maximum
from didax.api.numpy import minimum as minimum
from didax.api.numpy import where as where
from didax.api.numpy import clip as clip
from didax.api.numpy import sign as sign
from didax.api.numpy import floor as floor
from didax.api.numpy import ceil as ceil
from didax.api.numpy import round as round
from didax.api.numpy import greater as greater
from didax.api.numpy import greater_equal as greater_equal
from didax.api.numpy import less as less
from didax.api.numpy import less_equal as less_equal
from didax.api.numpy import equal as equal
from didax.api.numpy import not_equal as not_equal
from didax.api.numpy import logical_and as logical_and
from didax.api.numpy import logical_or as logical_or
from didax.api.numpy import logical_not as logical_not
from didax.api.numpy import sum as sum
from didax.api.numpy import mean as mean
from didax.api.numpy import max as max
from didax.api.numpy import min as min
from didax.api.numpy import prod as prod
from didax.api.numpy import argmax as argmax
from didax.api.numpy import argmin as argmin
from didax.api.numpy import cumsum as cumsum
from didax.api.numpy import dot as dot
from didax.api.numpy import matmul as matmul
from didax.api.numpy import einsum as einsum
from didax.api.numpy import outer as outer
from didax.api.numpy import transpose as transpose
from didax.api.numpy import swapaxes as swapaxes
from didax.api.numpy import moveaxis as moveaxis
from didax.api.numpy import reshape as reshape
from didax.api.numpy import ravel as ravel
from didax.api.numpy import broadcast_to as broadcast_to
from didax.api.numpy import expand_dims as expand_dims
from didax.api.numpy import squeeze as squeeze
from didax.api.numpy import concatenate as concatenate
from didax.api.numpy import stack as stack

__all__ = [
    "float32",
    "float64",
    "int32",
    "int64",
    "bool_",
    "array",
    "asarray",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "full",
    "arange",
    "linspace",
    "eye",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "power",
    "negative",
    "abs",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "maximum",
    "minimum",
    "where",
    "clip",
    "sign",
    "floor",
    "ceil",
    "round",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    "cumsum",
    "dot",
    "matmul",
    "einsum",
    "outer",
    "transpose",
    "swapaxes",
    "moveaxis",
    "reshape",
    "ravel",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "concatenate",
    "stack",
]
