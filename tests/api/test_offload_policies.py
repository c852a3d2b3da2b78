"""``checkpoint_policies``' offload policies against JAX's: what the backward pass recomputes
(JAX's offloaded residuals are not recomputed; didax saves them where they are) and the
gradients under jit."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

W = np.linspace(-0.5, 0.5, 9).reshape(3, 3)
X = np.linspace(0.1, 0.6, 6).reshape(2, 3)


def _counts(jaxpr: Any, c: Counter[str]) -> Counter[str]:
    for e in jaxpr.eqns:
        c[e.primitive.name] += 1
        for v in e.params.values():
            inner = getattr(v, "jaxpr", v)
            if hasattr(inner, "eqns"):
                _counts(inner, c)
    return c


def _program(np_: Any, name: Any) -> Callable[[Any, Any], Any]:
    def f(w: Any, x: Any) -> Any:
        a = name(np_.sin(x @ w), "a")
        b = name(np_.exp(a), "b")
        batched = np_.einsum("bi,bi->b", b, a)  # a dot with a batch dimension
        return np_.sum(np_.tanh(b @ w) * a) + np_.sum(batched)

    return f


def _policies(mod: Any) -> dict[str, Any]:
    pol = mod.checkpoint_policies
    return {
        "dots": pol.offload_dot_with_no_batch_dims("device", "pinned_host"),
        "names_offloaded": pol.save_and_offload_only_these_names(
            names_which_can_be_saved=[],
            names_which_can_be_offloaded=["a"],
            offload_src="device",
            offload_dst="pinned_host",
        ),
        "names_both": pol.save_and_offload_only_these_names(
            names_which_can_be_saved=["b"],
            names_which_can_be_offloaded=["a"],
            offload_src="device",
            offload_dst="pinned_host",
        ),
    }


@pytest.mark.parametrize(
    "policy", ["dots", "names_offloaded", pytest.param("names_both", marks=pytest.mark.slow)]
)
def test_recomputes_what_jax_recomputes(policy: str) -> None:
    out = {}
    for mod, np_, name in (
        (dx, dnp, dx.checkpoint_name),
        (jax, jnp, jax.ad_checkpoint.checkpoint_name),
    ):
        f = mod.checkpoint(_program(np_, name), policy=_policies(mod)[policy])
        jaxpr = mod.make_jaxpr(mod.grad(f))(W, X)
        c = _counts(getattr(jaxpr, "jaxpr", jaxpr), Counter())
        out[mod] = ((c["sin"], c["exp"], c["tanh"], c["dot_general"]), mod.jit(mod.grad(f))(W, X))
    assert out[dx][0] == out[jax][0], (out[dx][0], out[jax][0])
    np.testing.assert_allclose(np.asarray(out[dx][1]), np.asarray(out[jax][1]), rtol=1e-12)


def test_errors_are_jax_s() -> None:
    kw: dict[str, Any] = {
        "names_which_can_be_saved": ["a"],
        "names_which_can_be_offloaded": ["a"],
        "offload_src": "device",
        "offload_dst": "pinned_host",
    }
    with pytest.raises(ValueError, match="should be exclusive") as ours:
        dx.checkpoint_policies.save_and_offload_only_these_names(**kw)
    with pytest.raises(ValueError, match="should be exclusive") as theirs:
        jax.checkpoint_policies.save_and_offload_only_these_names(**kw)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(
        TypeError, match="offload_dot_with_no_batch_dims: offload_dst must be a memory kind"
    ):
        dx.checkpoint_policies.offload_dot_with_no_batch_dims(
            "device", kw["names_which_can_be_saved"]
        )
