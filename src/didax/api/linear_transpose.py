"""``linear_transpose(fun, *primals)``: the transpose of a linear function, as JAX's.

Design rules:
- ``fun`` is traced once, on the primals' types (arrays, scalars or
  anything with ``shape`` and ``dtype``, such as ``ShapeDtypeStruct``), and
  its jaxpr transposed by ``interpreters.transpose.linear_transpose_flat``
  (the backward pass of reverse mode, without a forward pass).
- As JAX's: inputs and outputs must all be inexact or all integer; the
  transposed function takes one cotangent structured as ``fun``'s output,
  checked against the output's types, and returns a tuple structured as the
  primals, zeros where no cotangent flowed, in the primals' dtypes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.located import locate_errors
from didax.api.transformations import _FlatFun
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.values import get_aval, is_python_scalar
from didax.interpreters.jvp import Zero, instantiate_zeros
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import linear_transpose_flat

__all__ = ["linear_transpose"]


def _aval(x: object) -> ShapedArray:
    """The type of a primal: of an array or scalar, or a duck-typed ``shape``/``dtype``."""
    if is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic)) or hasattr(x, "aval"):
        try:
            return get_aval(x)
        except TypeError:
            pass
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return ShapedArray(tuple(x.shape), dtypes.canonicalize(x.dtype))
    raise TypeError(
        f"linear_transpose: a primal must be an array, a scalar or have shape and dtype, "
        f"got {type(x).__name__}"
    )


def _kind(avals: list[ShapedArray]) -> set[str]:
    return {"inexact" if dtypes.is_inexact(a.dtype) else a.dtype.kind for a in avals}


@locate_errors
def linear_transpose(
    fun: Callable[..., Any], *primals: Any, reduce_axes: Any = ()
) -> Callable[[Any], tuple[Any, ...]]:
    """The transpose of the linear ``fun``, for arguments of the primals' types.

    >>> import didax as dx
    >>> import numpy as np
    >>> scalar = dx.ShapeDtypeStruct((), np.float32)
    >>> f_t = dx.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, scalar, scalar)
    >>> f_t(1.0)
    (Array(0.5, dtype=float32), Array(-0.5, dtype=float32))
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_tree = tree_util.tree_flatten(primals)
    in_avals = [_aval(x).strip_weak() for x in leaves]
    flat = _FlatFun(fun, in_tree)
    # Traced once to learn the output types (and for the dtype check, before
    # any cotangent is given); the transposition traces it again.
    out_avals = [
        a.strip_weak() for a in trace_to_jaxpr(flat, in_avals, "linear_transpose").out_avals
    ]
    kinds = _kind([*in_avals, *out_avals])
    if not (kinds <= {"inexact"} or kinds <= {"i", "u"}):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            f"integer -> integer functions, but got {[str(a.dtype) for a in in_avals]} -> "
            f"{[str(a.dtype) for a in out_avals]}."
        )
    out_tree = flat.out_tree
    transposed_flat = linear_transpose_flat(flat, in_avals)

    def transposed(out_cotangent: Any) -> tuple[Any, ...]:
        cts, ct_tree = tree_util.tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(
                "linear_transpose: the cotangent's tree does not match the function's output, "
                f"expected {out_tree} but got {ct_tree}"
            )
        for ct, a in zip(cts, out_avals, strict=True):
            ct_aval = get_aval(ct)
            if ct_aval.shape != a.shape or not (
                ct_aval.dtype == a.dtype or ct_aval.weak_type or is_python_scalar(ct)
            ):
                raise TypeError(
                    "linear_transpose: the cotangent's type does not match the function's "
                    f"output, expected {[x.str_short() for x in out_avals]} but got "
                    f"{[get_aval(c).str_short() for c in cts]}"
                )
        # A weakly typed cotangent takes its output's dtype, as JAX's typecheck allows.
        typed = [lax.convert_element_type(c, a.dtype) for c, a in zip(cts, out_avals, strict=True)]
        in_cts = transposed_flat(*typed)
        results = [
            instantiate_zeros(Zero.like(a)) if isinstance(c, Zero) else c
            for c, a in zip(in_cts, in_avals, strict=True)
        ]
        # The primals' dtypes, exactly (JAX's rule: a complex cotangent of a
        # real primal keeps its real part).
        results = [
            lax.convert_element_type(lax.real(r) if _complex_to_real(r, a) else r, a.dtype)
            for r, a in zip(results, in_avals, strict=True)
        ]
        return tuple(tree_util.tree_unflatten(in_tree, results))

    return locate_errors(transposed)


def _complex_to_real(x: object, aval: ShapedArray) -> bool:
    return dtypes.is_complex(get_aval(x).dtype) and not dtypes.is_complex(aval.dtype)
