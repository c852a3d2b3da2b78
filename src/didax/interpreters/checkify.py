"""``check``'s interpreter rules: evaluation raises, jvp and vmap carry it, flops are nil.

Design rules:
- Evaluated, a false predicate raises jaxlib's ``JaxRuntimeError`` (JAX's
  class) with the message formatted with the arguments' values; under vmap
  the message names the first failing element, as JAX's.
- jvp binds the check on the primals (a check has no results to
  differentiate); vmap binds it on the batched operands moved to axis 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from jax.errors import JaxRuntimeError

from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.checkify import check_p
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES


def format_check(message: str, args: Sequence[Any]) -> str:
    """The message of a failed check, as JAX formats it."""
    return f"{message.format(*args)} (`check` failed)"


@IMPL_RULES.defines(check_p)
def _check_impl(pred: HostArray, *args: HostArray, message: str) -> list[Any]:
    failed = ~np.asarray(pred, bool)
    if failed.any():
        if failed.ndim:
            first = np.unravel_index(int(np.argmax(failed)), failed.shape)[0]
            values = [a[first] if np.ndim(a) == failed.ndim else a for a in args]
            raise JaxRuntimeError(f"at mapped index {first}: {format_check(message, values)}")
        raise JaxRuntimeError(format_check(message, args))
    return []


@JVP_RULES.defines(check_p)
def _check_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, message: str
) -> tuple[list[Any], list[Any]]:
    check_p.bind(*primals, message=message)
    return [], []


@BATCH_RULES.defines(check_p)
def _check_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, message: str
) -> tuple[list[Any], list[Dim]]:
    # Every operand batched at the front, so that the impl pairs each
    # failing element with its own arguments.
    check_p.bind(
        *(bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)), message=message
    )
    return [], []


@FLOPS_RULES.defines(check_p)
def _check_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Any
) -> Cost:
    return Cost()
