"""didax in one page: trace a function to a jaxpr, differentiate it, vectorise it.

Run it from the repository root after installing didax:

    python3 -m pip install . && python3 examples/quickstart.py

Every result is printed and checked against a value computed by hand with
NumPy, so the script fails loudly (an AssertionError) if anything is off.
didax computes in float32 by default, as JAX does, so the checks allow
float32's rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import didax as dx
import didax.numpy as dnp


def predict(w: Any, x: Any) -> Any:
    """A one-unit network: ``tanh(w . x)``."""
    return dnp.tanh(dnp.sum(w * x))


RTOL = 1e-6  # float32's rounding, a few ulps


def main() -> None:
    w = np.array([0.5, -1.0, 0.25])
    x = np.array([1.0, 2.0, 3.0])
    expected = np.tanh(np.dot(w, x))

    # 1. make_jaxpr: the program didax sees, one primitive per line.
    print("make_jaxpr(predict):")
    print(dx.make_jaxpr(predict)(w, x))

    # 2. jvp: the value and the directional derivative along v, in one pass.
    v = np.array([1.0, 0.0, 0.0])
    y, dy = dx.jvp(lambda w: predict(w, x), (w,), (v,))
    print(f"\njvp: predict = {float(y):.6f}, d/dw0 = {float(dy):.6f}")
    np.testing.assert_allclose(y, expected, rtol=RTOL)
    np.testing.assert_allclose(dy, (1 - expected**2) * x[0], rtol=RTOL)

    # 3. jacfwd: the whole gradient with respect to w (a vmap of jvps).
    grad_w = dx.jacfwd(predict)(w, x)
    print(f"jacfwd: d predict / dw = {np.asarray(grad_w)}")
    np.testing.assert_allclose(grad_w, (1 - expected**2) * x, rtol=RTOL)

    # 4. vmap: predict for a batch of inputs (rows of xs), w shared.
    xs = np.stack([x, -x, 2 * x])
    batch = dx.vmap(predict, in_axes=(None, 0))(w, xs)
    print(f"vmap over 3 inputs: {np.asarray(batch)}")
    np.testing.assert_allclose(batch, np.tanh(xs @ w), rtol=RTOL)

    # 5. Transformations compose: the jaxpr of the batched Jacobian.
    print("\nmake_jaxpr(vmap(jacfwd(predict))):")
    print(dx.make_jaxpr(dx.vmap(dx.jacfwd(predict), in_axes=(None, 0)))(w, xs))

    # 6. jit: compiled by XLA through StableHLO; the result stays on the device.
    activate = dx.jit(lambda w, x: dnp.tanh(w * x))
    out = activate(w, x)
    print(f"\njit: tanh(w * x) = {np.asarray(out)}  ({type(out).__name__})")
    np.testing.assert_allclose(np.asarray(out), np.tanh(w * x), rtol=RTOL)

    print("\nquickstart: all results match NumPy")


if __name__ == "__main__":
    main()
