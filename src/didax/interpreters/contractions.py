"""The interpreters' rules for ``dot_general_p`` (``core.lax.contractions``).

Design rules:
- The impl is one batched matrix product (``np.matmul`` on operands laid
  out as (batch, free, contracting)), which calls BLAS for floats; 16-bit
  floats are computed in float32 and rounded once (``in_float32``), as
  XLA's CPU dot accumulates. ``precision`` changes nothing on a CPU;
  ``preferred_element_type`` is the type the product is computed in when
  XLA would upcast the operands to it, else the type its result is
  converted to.
- The product is bilinear: its jvp is the sum of the two tangent
  products, and its transpose with respect to one operand is a
  ``dot_general`` of the cotangent with the other, axes permuted back
  (JAX's ``_dot_general_transpose_lhs``). Both keep the equation's
  ``precision`` and ``preferred_element_type``.
- Batching adds the batch axis as a batch dimension when both operands
  are batched, as a free axis when one is.
- Flops are ``2 x output size x contracted size``, at every precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.array import backend
from didax.core.basearray import HostArray, Value
from didax.core.dtypes import DType
from didax.core.lax.contractions import DotDimensionNumbers, dot_general_p
from didax.core.lax.precision import CanonicalPrecision
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, shift_axes
from didax.interpreters.evaluation import IMPL_RULES, in_float32
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, add_tangents
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    not_linear,
)

__all__: list[str] = []

# --- impl -----------------------------------------------------------------------------------


@in_float32
def _dot_general_impl(
    lhs: HostArray, rhs: HostArray, *, dimension_numbers: DotDimensionNumbers
) -> HostArray:
    """One batched matrix product (``np.matmul``), as XLA computes a ``dot_general``.

    Each operand is laid out as (batch, free, contracting) and flattened to
    one 3-d array: ``matmul`` then calls BLAS for floats (multi-threaded),
    where ``einsum`` runs one core's loops, several times slower.

    >>> x = np.arange(6.0).reshape(2, 3)
    >>> _dot_general_impl(x, x, dimension_numbers=(((1,), (1,)), ((), ())))
    array([[ 5., 14.],
           [14., 50.]])
    """
    (lc, rc), (lb, rb) = dimension_numbers
    lf = [i for i in range(lhs.ndim) if i not in lc + lb]
    rf = [i for i in range(rhs.ndim) if i not in rc + rb]
    batch = [lhs.shape[i] for i in lb]
    lfree, rfree = [lhs.shape[i] for i in lf], [rhs.shape[i] for i in rf]
    b, m, n = _size(batch), _size(lfree), _size(rfree)
    k = _size([lhs.shape[i] for i in lc])
    x = np.transpose(lhs, (*lb, *lf, *lc)).reshape(b, m, k)
    y = np.transpose(rhs, (*rb, *rc, *rf)).reshape(b, k, n)
    # A large product is written where the device backend can take it
    # without a copy: the large operations after it are compiled (see LARGE),
    # and copying an unaligned product for them costs as much as the op.
    out = backend().empty((b, m, n), x.dtype) if b * m * n >= _ALIGNED_PRODUCT else None
    product: HostArray = np.matmul(x, y, out=out)
    return product.reshape((*batch, *lfree, *rfree))


_ALIGNED_PRODUCT: Final = 1 << 16


def _size(shape: Sequence[int]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


@IMPL_RULES.defines(dot_general_p)
def _dot_general_params_impl(
    lhs: HostArray,
    rhs: HostArray,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision,
    preferred_element_type: np.dtype[Any] | None,
) -> HostArray:
    """``_dot_general_impl`` with ``dot_general``'s other params, as XLA on a CPU.

    ``precision`` changes nothing on a CPU (XLA computes in full
    precision). A ``preferred_element_type`` wider than the operands' type
    (int32 for int8, float32 for bfloat16, any float or complex type for
    integers) is the type the product is computed in, the operands
    converted to it first, as XLA's operand upcasting does; otherwise (a
    narrower or equally wide float type, or an integer type for floats) the
    product is computed in the operands' type and its result converted.
    """
    out = preferred_element_type
    if out is None or out == lhs.dtype:
        return np.asarray(_dot_general_impl(lhs, rhs, dimension_numbers=dimension_numbers))
    if _dot_upcasts(lhs.dtype, out):
        lhs, rhs = lhs.astype(out), rhs.astype(out)
        return np.asarray(_dot_general_impl(lhs, rhs, dimension_numbers=dimension_numbers))
    result = np.asarray(_dot_general_impl(lhs, rhs, dimension_numbers=dimension_numbers))
    if dtypes.is_complex(result.dtype) and not dtypes.is_complex(out):
        result = result.real  # (XLA's conversion, without NumPy's warning)
    return np.asarray(result.astype(out))


def _dot_upcasts(operands: np.dtype[Any], out: np.dtype[Any]) -> bool:
    """Whether XLA computes a product of ``operands`` typed ``out`` in ``out``."""
    k, ko = dtypes.kind(operands), dtypes.kind(out)
    if k in "biu":
        return ko != "b"
    if k == "f" and ko in "fc":
        return out.itemsize > operands.itemsize
    return k == "c" and ko == "c" and out.itemsize > operands.itemsize


# --- jvp ------------------------------------------------------------------------------------


@JVP_RULES.defines(dot_general_p)
def _dot_general_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[Any, Any]:
    # Bilinear: the tangent products keep the equation's params (precision,
    # preferred_element_type), as JAX's.
    lhs, rhs = primals
    t_lhs, t_rhs = tangents
    out = dot_general_p.bind(lhs, rhs, **params)
    t_out: Any = Zero.like(get_aval(out))
    if not isinstance(t_lhs, Zero):
        t_out = dot_general_p.bind(t_lhs, rhs, **params)
    if not isinstance(t_rhs, Zero):
        t_out = add_tangents(t_out, dot_general_p.bind(lhs, t_rhs, **params))
    return out, t_out


# --- batching -------------------------------------------------------------------------------


@BATCH_RULES.defines(dot_general_p)
def _dot_general_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    dimension_numbers: DotDimensionNumbers,
    **params: Any,
) -> tuple[Any, Any]:
    # precision and preferred_element_type pass through unchanged.
    (lhs, rhs), (dl, dr) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if dl is not None and dr is not None:
        lhs, rhs = bdim_at_front(lhs, dl, axis_size), bdim_at_front(rhs, dr, axis_size)
        new = ((shift_axes(lc), shift_axes(rc)), ((0, *shift_axes(lb)), (0, *shift_axes(rb))))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=new, **params), 0
    if dl is not None:
        # The batch axis is lhs's first free axis: it lands right after the batch axes.
        lhs = bdim_at_front(lhs, dl, axis_size)
        new = ((shift_axes(lc), rc), (shift_axes(lb), rb))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=new, **params), len(lb)
    rhs = bdim_at_front(rhs, dr, axis_size)
    new = ((lc, shift_axes(rc)), (lb, shift_axes(rb)))
    lhs_free = get_aval(lhs).ndim - len(lc) - len(lb)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=new, **params), len(lb) + lhs_free


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(dot_general_p)
def _dot_general_transpose(
    ct: ArrayLike,
    lhs: PrimalOrUndefined,
    rhs: PrimalOrUndefined,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision,
    preferred_element_type: dtypes.DType | None,
) -> list[Any]:
    (lc, rc), (lb, rb) = dimension_numbers
    # As JAX's: the transposed product keeps the equation's precision (not
    # swapped for the rhs) and preferred_element_type.
    p, t = precision, preferred_element_type
    if isinstance(lhs, UndefinedPrimal):
        if isinstance(rhs, UndefinedPrimal):
            raise not_linear(dot_general_p, "both operands are linear inputs")
        ct_lhs = _dot_general_transpose_lhs(
            ct, lhs, rhs, lc, rc, lb, rb, swap_ans=False, precision=p, preferred=t
        )
        return [ct_lhs, None]
    ct_rhs = _dot_general_transpose_lhs(
        ct, rhs, lhs, rc, lc, rb, lb, swap_ans=True, precision=p, preferred=t
    )
    return [None, ct_rhs]


def _dot_general_transpose_lhs(
    ct: ArrayLike,
    x: PrimalOrUndefined,
    y: ArrayLike,
    x_contract: tuple[int, ...],
    y_contract: tuple[int, ...],
    x_batch: tuple[int, ...],
    y_batch: tuple[int, ...],
    *,
    swap_ans: bool,
    precision: CanonicalPrecision,
    preferred: dtypes.DType | None,
) -> Value:
    """The cotangent of ``x`` in ``dot_general(x, y)`` (``y, x`` when ``swap_ans``).

    ``ct``'s axes are (batch, lhs free, rhs free). Contracting ``ct``'s axes
    of ``y``'s free part with ``y``'s free axes, batched over the batch axes,
    gives (batch, ``x``'s free axes, ``y``'s contracting axes in increasing
    order); the last group are ``x``'s contracting axes in the order of
    their partners in ``y``. A transpose puts every axis where ``x`` has it,
    and the result is converted to ``x``'s type (JAX's
    ``_dot_general_transpose_lhs``).
    """
    x_ndim, y_ndim = aval_of(x).ndim, aval_of(y).ndim
    x_kept = [i for i in range(x_ndim) if i not in x_contract and i not in x_batch]
    y_kept = [i for i in range(y_ndim) if i not in y_contract and i not in y_batch]
    nb = len(x_batch)
    ct_batch = tuple(range(nb))
    if swap_ans:  # ct is (batch, y free, x free)
        ct_y = tuple(range(nb, nb + len(y_kept)))
    else:  # ct is (batch, x free, y free)
        ct_y = tuple(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
    dims = ((ct_y, tuple(y_kept)), (ct_batch, tuple(y_batch)))
    y_dtype = aval_of(y).dtype
    if preferred is not None and y_dtype != preferred:
        # The cotangent has the preferred type, y its own: JAX binds this
        # product on mixed operands, which its CPU and GPU lowerings convert
        # to the result type; didax's dot_general takes operands of one
        # dtype, so the conversion is an equation here. (Bound directly:
        # a complex y meets a real preferred type without a warning, as in
        # JAX's lowering.)
        y = lax.convert_element_type_p.bind(y, new_dtype=preferred, weak_type=False)
    out: Value = dot_general_p.bind(
        ct, y, dimension_numbers=dims, precision=precision, preferred_element_type=preferred
    )
    x_contract_by_y = [x_contract[k] for k in np.argsort(y_contract)]
    produced = [*x_batch, *x_kept, *x_contract_by_y]
    permutation = tuple(int(i) for i in np.argsort(produced))
    if permutation != tuple(range(x_ndim)):
        out = lax.transpose(out, permutation)
    x_aval = aval_of(x)
    if get_aval(out).dtype != x_aval.dtype:
        out = lax.convert_element_type_p.bind(
            out, new_dtype=x_aval.dtype, weak_type=x_aval.weak_type
        )
    return out


# --- flops ----------------------------------------------------------------------------------


@FLOPS_RULES.defines(dot_general_p)
def _dot_general_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision,
    preferred_element_type: DType | None,
) -> Cost:
    # The count is the same at every precision and result type (a reduced-
    # precision pass is still a multiply and an add per term, as XLA counts).
    (lhs_contracting, _), _ = dimension_numbers
    lhs = operands[0].aval
    contracted = int(np.prod([lhs.shape[d] for d in lhs_contracting], dtype=np.int64))
    # One multiply and one add per contracted element of each output element.
    return Cost(2 * out_avals[0].size * contracted)
