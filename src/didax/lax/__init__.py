"""didax.lax: one function per primitive, with strict types, and control flow.

Operands of element-wise functions have one shape and one dtype, except that
weakly typed values (Python scalars) take their partner's dtype, and, as in
JAX, the binary element-wise operations (arithmetic, comparisons, logical and
bitwise operations, shifts, ``atan2``, ``nextafter``, ``polygamma``) take
rank-0 operands beside an array of any shape (``mul x 2.0``: no broadcast
staged).
The functions live in the family modules of ``didax.core.lax``
(``elementwise``, ``structural``, ``slicing``, ``reductions``,
``contractions``, ``conversions``),
``didax.core.lax.bits`` (xor, shifts, bit counts, bit casts),
``didax.core.lax.sorting`` (``sort``),
``didax.core.lax.cumulative`` (``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp``),
``didax.core.lax.special`` (``erf``, ``erf_inv``, ``lgamma``, ``sinh``, ...),
``didax.core.lax.indexing`` (``gather``) and ``didax.core.lax.scatter``
(the ``scatter`` family) and ``didax.api.control_flow``
(``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``);
this module re-exports them. ``didax.lax.linalg`` is a submodule, as
``jax.lax.linalg`` is (``cholesky``, ``triangular_solve``, ``lu``, ``qr``,
``eigh``, ``svd``).
"""

from didax.api import control_flow as _control_flow
from didax.api import parallel as _parallel
from didax.api.control_flow import *  # noqa: F403
from didax.api.parallel import *  # noqa: F403
from didax.core.lax.bits import bitcast_convert_type as bitcast_convert_type
from didax.core.lax.bits import bitwise_and as bitwise_and
from didax.core.lax.bits import bitwise_not as bitwise_not
from didax.core.lax.bits import bitwise_or as bitwise_or
from didax.core.lax.bits import bitwise_xor as bitwise_xor
from didax.core.lax.bits import clz as clz
from didax.core.lax.bits import population_count as population_count
from didax.core.lax.bits import shift_left as shift_left
from didax.core.lax.bits import shift_right_arithmetic as shift_right_arithmetic
from didax.core.lax.bits import shift_right_logical as shift_right_logical
from didax.core.lax.contractions import dot as dot
from didax.core.lax.contractions import dot_general as dot_general
from didax.core.lax.conversions import convert_element_type as convert_element_type
from didax.core.lax.cumulative import cumlogsumexp as cumlogsumexp
from didax.core.lax.cumulative import cummax as cummax
from didax.core.lax.cumulative import cummin as cummin
from didax.core.lax.cumulative import cumprod as cumprod
from didax.core.lax.cumulative import cumsum as cumsum
from didax.core.lax.elementwise import abs as abs  # noqa: A004 - lax's name
from didax.core.lax.elementwise import add as add
from didax.core.lax.elementwise import and_ as and_
from didax.core.lax.elementwise import ceil as ceil
from didax.core.lax.elementwise import complex as complex  # noqa: A004 - lax's name
from didax.core.lax.elementwise import conj as conj
from didax.core.lax.elementwise import cos as cos
from didax.core.lax.elementwise import div as div
from didax.core.lax.elementwise import eq as eq
from didax.core.lax.elementwise import exp as exp
from didax.core.lax.elementwise import expm1 as expm1
from didax.core.lax.elementwise import floor as floor
from didax.core.lax.elementwise import ge as ge
from didax.core.lax.elementwise import gt as gt
from didax.core.lax.elementwise import imag as imag
from didax.core.lax.elementwise import integer_pow as integer_pow
from didax.core.lax.elementwise import le as le
from didax.core.lax.elementwise import log as log
from didax.core.lax.elementwise import log1p as log1p
from didax.core.lax.elementwise import logistic as logistic
from didax.core.lax.elementwise import lt as lt
from didax.core.lax.elementwise import max as max  # noqa: A004 - lax's name
from didax.core.lax.elementwise import min as min  # noqa: A004 - lax's name
from didax.core.lax.elementwise import mul as mul
from didax.core.lax.elementwise import ne as ne
from didax.core.lax.elementwise import neg as neg
from didax.core.lax.elementwise import not_ as not_
from didax.core.lax.elementwise import or_ as or_
from didax.core.lax.elementwise import pow as pow  # noqa: A004 - lax's name
from didax.core.lax.elementwise import real as real
from didax.core.lax.elementwise import rem as rem
from didax.core.lax.elementwise import round as round  # noqa: A004 - lax's name
from didax.core.lax.elementwise import rsqrt as rsqrt
from didax.core.lax.elementwise import select as select
from didax.core.lax.elementwise import sign as sign
from didax.core.lax.elementwise import sin as sin
from didax.core.lax.elementwise import sqrt as sqrt
from didax.core.lax.elementwise import stop_gradient as stop_gradient
from didax.core.lax.elementwise import sub as sub
from didax.core.lax.elementwise import tan as tan
from didax.core.lax.elementwise import tanh as tanh
from didax.core.lax.fft import FftType as FftType
from didax.core.lax.fft import fft as fft
from didax.core.lax.indexing import GatherDimensionNumbers as GatherDimensionNumbers
from didax.core.lax.indexing import GatherScatterMode as GatherScatterMode
from didax.core.lax.indexing import ScatterDimensionNumbers as ScatterDimensionNumbers
from didax.core.lax.indexing import gather as gather
from didax.core.lax.precision import Precision as Precision
from didax.core.lax.reductions import argmax as argmax
from didax.core.lax.reductions import argmin as argmin
from didax.core.lax.reductions import reduce_max as reduce_max
from didax.core.lax.reductions import reduce_min as reduce_min
from didax.core.lax.reductions import reduce_prod as reduce_prod
from didax.core.lax.reductions import reduce_sum as reduce_sum
from didax.core.lax.scatter import scatter as scatter
from didax.core.lax.scatter import scatter_add as scatter_add
from didax.core.lax.scatter import scatter_max as scatter_max
from didax.core.lax.scatter import scatter_min as scatter_min
from didax.core.lax.scatter import scatter_mul as scatter_mul
from didax.core.lax.slicing import dynamic_slice as dynamic_slice
from didax.core.lax.slicing import dynamic_update_slice as dynamic_update_slice
from didax.core.lax.slicing import pad as pad
from didax.core.lax.slicing import slice as slice  # noqa: A004 - lax's name
from didax.core.lax.sorting import sort as sort
from didax.core.lax.sorting import sort_key_val as sort_key_val
from didax.core.lax.special import acos as acos
from didax.core.lax.special import acosh as acosh
from didax.core.lax.special import asin as asin
from didax.core.lax.special import asinh as asinh
from didax.core.lax.special import atan as atan
from didax.core.lax.special import atan2 as atan2
from didax.core.lax.special import atanh as atanh
from didax.core.lax.special import cosh as cosh
from didax.core.lax.special import digamma as digamma
from didax.core.lax.special import erf as erf
from didax.core.lax.special import erf_inv as erf_inv
from didax.core.lax.special import erfc as erfc
from didax.core.lax.special import exp2 as exp2
from didax.core.lax.special import is_finite as is_finite
from didax.core.lax.special import lgamma as lgamma
from didax.core.lax.special import nextafter as nextafter
from didax.core.lax.special import polygamma as polygamma
from didax.core.lax.special import sinh as sinh
from didax.core.lax.structural import broadcast as broadcast
from didax.core.lax.structural import broadcast_in_dim as broadcast_in_dim
from didax.core.lax.structural import concatenate as concatenate
from didax.core.lax.structural import expand_dims as expand_dims
from didax.core.lax.structural import full as full
from didax.core.lax.structural import full_like as full_like
from didax.core.lax.structural import iota as iota
from didax.core.lax.structural import reshape as reshape
from didax.core.lax.structural import rev as rev
from didax.core.lax.structural import squeeze as squeeze
from didax.core.lax.structural import transpose as transpose
from didax.lax import linalg as linalg

__all__ = [
    # element-wise (didax.core.lax.elementwise)
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "integer_pow",
    "neg",
    "sign",
    "abs",
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
    "stop_gradient",
    "real",
    "imag",
    "conj",
    "complex",
    # products (didax.core.lax.contractions)
    "dot_general",
    "dot",
    # structural (didax.core.lax.structural)
    "broadcast_in_dim",
    "full",
    "full_like",
    "broadcast",
    "reshape",
    "transpose",
    "squeeze",
    "expand_dims",
    "concatenate",
    "rev",
    "iota",
    # slicing (didax.core.lax.slicing)
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "pad",
    # reductions (didax.core.lax.reductions)
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "argmax",
    "argmin",
    # conversions (didax.core.lax.conversions)
    "convert_element_type",
    *_control_flow.__all__,
    # the decompositions (didax.lax.linalg)
    "linalg",
    *_parallel.__all__,
    # bits (didax.core.lax.bits)
    "bitwise_and",
    "bitwise_or",
    "bitwise_not",
    "bitwise_xor",
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
    "population_count",
    "clz",
    "bitcast_convert_type",
    # the Fourier transform (didax.core.lax.fft)
    "fft",
    "FftType",
    # matmul precision (didax.core.lax.precision)
    "Precision",
    # cumulative reductions (didax.core.lax.cumulative)
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "cumlogsumexp",
    # sorting (didax.core.lax.sorting)
    "sort",
    "sort_key_val",
    # gather and scatter (didax.core.lax.indexing, didax.core.lax.scatter)
    "gather",
    "scatter",
    "scatter_add",
    "scatter_mul",
    "scatter_min",
    "scatter_max",
    "GatherDimensionNumbers",
    "ScatterDimensionNumbers",
    "GatherScatterMode",
    # special functions (didax.core.lax.special)
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "digamma",
    "polygamma",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "atan2",
    "exp2",
    "is_finite",
    "nextafter",
]
