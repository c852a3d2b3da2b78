"""Shared checks of didax.scipy functions against JAX's: values, types, jit, vmap, gradients.

A table maps a case's name to a function of the module (``didax``'s or
JAX's) and its arguments. ``check_table`` evaluates every case of a table in
one compiled program per library (the compilations dominate: a program per
case would cost a compilation per case): JAX's jitted values are the
reference for didax's eager values, its jitted values and its values under
``vmap`` (over the arguments' leading axis, inside the one jitted program);
the gradients of the sums, for the cases that name arguments to
differentiate, are compared in one more program each. Dtype and weak type
must be JAX's exactly, values within a tolerance in units of the dtype's
epsilon (eager didax computes ``exp``, ``log``, ... with NumPy, JAX with
XLA).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import attrs
import jax
import jax.numpy as jnp
import numpy as np

import didax as dx
import didax.numpy as dnp

Fn = Callable[..., Any]


@attrs.frozen
class Case:
    """``fn(module, *args)``, differentiated in ``argnums`` at ``grad_args``, if any."""

    fn: Fn
    args: tuple[Any, ...]
    argnums: tuple[int, ...] = ()
    grad_args: tuple[Any, ...] = ()
    vmap: bool = True


def compare(
    got: Any, want: Any, ulps: float = 64, types: bool = True, what: str = "", eps_of: Any = None
) -> None:
    """Equal shape, dtype and weak type; values within ``ulps`` epsilons (NaNs where JAX's).

    The epsilon is the result's, or that of ``eps_of`` if larger (the
    precision the values were computed in: ``norm.ppf`` returns float64
    computed in float32).
    """
    if isinstance(want, tuple | list):
        assert isinstance(got, tuple | list), what
        assert len(got) == len(want), what
        for g, w in zip(got, want, strict=True):
            compare(g, w, ulps, types, what, eps_of)
        return
    assert got.shape == want.shape, what
    assert got.dtype == want.dtype, what
    if types:
        assert got.weak_type == want.weak_type, what
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    eps = float(np.finfo(g.dtype).eps)
    if eps_of is not None:
        eps = max(eps, float(np.finfo(eps_of).eps))
    np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=ulps * eps, equal_nan=True, err_msg=what)


def _cast(args: Sequence[Any], dtype: Any) -> list[Any]:
    # Lists become arrays of ``dtype``; anything else (scalars, arrays) is kept as it is.
    return [np.array(a, dtype) if isinstance(a, list) else a for a in args]


def check_table(
    ours: Any,
    theirs: Any,
    table: Mapping[str, Case],
    dtype: Any,
    ulps: float = 64,
    grad_ulps: float = 256,
    eager: bool = True,
) -> None:
    """Every case of ``table``: didax's module ``ours`` against JAX's ``theirs``."""
    args = {k: _cast(c.args, dtype) for k, c in table.items()}

    def values(m: Any, vmap: Fn) -> Fn:
        def run(a: dict[str, list[Any]]) -> dict[str, Any]:
            out = {}
            for k, c in table.items():
                out[k] = c.fn(m, *a[k])
                if c.vmap:
                    out[k + "/vmap"] = vmap(partial(c.fn, m))(*a[k])
            return out

        return run

    want = jax.jit(values(theirs, jax.vmap))(args)
    got = dx.jit(values(ours, dx.vmap))(args)
    for k, w in want.items():
        compare(got[k], w, ulps, not k.endswith("/vmap"), f"jit {k}", dtype)
    if eager:
        for k, c in table.items():
            compare(c.fn(ours, *args[k]), want[k], ulps, what=f"eager {k}", eps_of=dtype)
    diff = {k: c for k, c in table.items() if c.argnums}
    if not diff:
        return
    gargs = {k: _cast(c.grad_args, dtype) for k, c in diff.items()}

    def grads(m: Any, grad: Fn, total: Fn) -> Fn:
        def run(a: dict[str, list[Any]]) -> dict[str, Any]:
            return {
                k: grad(lambda *v, c=c: total(c.fn(m, *v)), c.argnums)(*a[k])
                for k, c in diff.items()
            }

        return run

    want = jax.jit(grads(theirs, jax.grad, jnp.sum))(gargs)
    got = dx.jit(grads(ours, dx.grad, dnp.sum))(gargs)
    for k, w in want.items():
        compare(got[k], w, grad_ulps, types=False, what=f"grad {k}", eps_of=dtype)
