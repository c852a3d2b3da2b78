"""Golden jaxprs of whole programs, as a user writes them.

These pin what the public API stages for a set of representative programs
(didax.numpy with broadcasting and promotion, indexing, every transformation
and their compositions), so that a refactoring that moves code around
cannot change a single equation unnoticed. The expected text lives in
``tests/golden/programs/<name>.txt``; after an intended change, regenerate
it with ``DIDAX_UPDATE_GOLDEN=1 pytest tests/api/test_golden_programs.py``
and review the diff.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.ir.typecheck import typecheck_jaxpr

GOLDEN = pathlib.Path(__file__).parent.parent / "golden" / "programs"
UPDATE = os.environ.get("DIDAX_UPDATE_GOLDEN") == "1"

F32_W = np.ones((3, 4), np.float32)
F32_X = np.ones((2, 3), np.float32)
F32_B = np.ones(4, np.float32)


def _mlp_loss(w: Any, b: Any, x: Any) -> Any:
    h = dnp.tanh(x @ w + b)
    return dnp.mean(h * h) + 0.5 * dnp.sum(w**2)


def _numpy_mix(x: Any, i: Any) -> Any:
    y = dnp.where(x > 0.5, x, 2.0 * x)
    z = dnp.clip(y, 0.0, 1.0)[1:, ::-2] + x[i, None, :2]
    return (
        dnp.max(z, axis=0, keepdims=True),
        dnp.argmax(x, axis=1),
        dnp.cumsum(x, axis=0),
        dnp.concatenate([x[:2, :2], z], axis=1),
        dnp.stack([x, x]),
        x // 2 + x % 3.0,
        dnp.power(x, 3),
    )


def _promotion(a: Any, b: Any, c: Any) -> Any:
    return a + b, b * c, a / 2, dnp.exp(a), dnp.sum(a), dnp.mean(c), a == 3


def _creation(x: Any) -> Any:
    return x + dnp.arange(1, 7, 2) + dnp.linspace(0.0, 1.0, 3) + dnp.eye(3)[0] + dnp.ones(3)


def _einsum(x: Any, y: Any) -> Any:
    return dnp.einsum("bij,bjk->bik", x, y), dnp.outer(x[0, 0], y[0, 0]), dnp.matmul(x, y)


def _lax_strict(x: Any) -> Any:
    y = lax.pad(x, np.float64(0.0), [(1, 2, 1)])
    s = lax.dynamic_slice(y, [lax.convert_element_type(x[0], np.int64)], [2])
    u = lax.dynamic_update_slice(y, s, [np.int64(3)])
    return lax.reduce_prod(u, 0), lax.rev(u, [0]), lax.select(u > 1.0, u, -u)


def _sin_sum(x: Any) -> Any:
    return dnp.sum(dnp.sin(x) * x)


def _jitted_inner(x: Any) -> Any:
    return dnp.sin(x) * 2.0


PROGRAMS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "mlp_loss": (_mlp_loss, (F32_W, F32_B, F32_X)),
    "mlp_grad": (dx.grad(_mlp_loss, argnums=(0, 1)), (F32_W, F32_B, F32_X)),
    "mlp_value_and_grad_jit": (dx.jit(dx.value_and_grad(_mlp_loss)), (F32_W, F32_B, F32_X)),
    "per_example_grads": (
        dx.vmap(dx.grad(_mlp_loss), in_axes=(None, None, 0)),
        (F32_W, F32_B, np.ones((5, 2, 3), np.float32)),
    ),
    "numpy_mix": (_numpy_mix, (np.arange(12.0).reshape(3, 4), np.int64(1))),
    "promotion": (_promotion, (np.ones(3, np.int32), np.ones(3, np.float32), 2.0)),
    "creation": (_creation, (np.ones(3),)),
    "einsum": (_einsum, (np.ones((2, 3, 4)), np.ones((2, 4, 5)))),
    "lax_strict": (_lax_strict, (np.arange(4.0),)),
    "jvp_of_jit": (
        lambda x, t: dx.jvp(dx.jit(_jitted_inner), (x,), (t,)),
        (np.ones(3), np.ones(3)),
    ),
    "vmap_of_jit": (dx.vmap(dx.jit(_jitted_inner)), (np.ones((2, 3)),)),
    "linearize": (lambda x, t: dx.linearize(_sin_sum, x)[1](t), (np.ones(3), np.ones(3))),
    "vjp_of_jit": (lambda x: dx.vjp(dx.jit(_sin_sum), x)[1](1.0), (np.ones(3),)),
    "hessian": (dx.hessian(_sin_sum), (np.ones(2),)),
    "jacfwd": (dx.jacfwd(lambda x: dnp.tanh(x) * x[::-1]), (np.ones(3),)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_program(name: str) -> None:
    fun, args = PROGRAMS[name]
    closed = dx.make_jaxpr(fun)(*args)
    typecheck_jaxpr(closed)
    text = str(closed)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    assert text == path.read_text().rstrip("\n")
