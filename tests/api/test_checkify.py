"""didax.experimental.checkify against jax.experimental.checkify: the same programs, the
same error sets, the same messages, under jit, vmap and grad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify as jc

import didax as dx
import didax.numpy as dnp
from didax.experimental import checkify as dc

LIBS: Final = ((dc, dnp, dx), (jc, jnp, jax))


def _program(ck: Any, np_: Any) -> Callable[[Any, Any], Any]:
    """A user check, a NaN (log of a negative), an index and an integer division."""

    def f(x: Any, i: Any) -> Any:
        ck.check(x[0] > 0, "x0 must be positive, got {}", x[0])
        y = np_.log(x)
        z = x[i]
        return y.sum() + z + (i // (i - 1))

    return f


# (x, i): fine; a failing check and a NaN; an out-of-bounds index; a division by zero.
INPUTS: Final = [
    (np.array([1.0, 2.0], np.float32), 0),
    (np.array([-1.0, 2.0], np.float32), 0),
    (np.array([1.0, 2.0], np.float32), 5),
    (np.array([1.0, 2.0], np.float32), 1),
]
# The sets all_checks and float_checks combine get CI's time; alone, the slow session's.
SETS: Final = [
    "user_checks",
    pytest.param("nan_checks", marks=pytest.mark.slow),
    pytest.param("div_checks", marks=pytest.mark.slow),
    "index_checks",
    "float_checks",
    pytest.param("automatic_checks", marks=pytest.mark.slow),
    "all_checks",
]


@pytest.mark.parametrize("errors", SETS)
def test_error_sets_under_jit(errors: str) -> None:
    messages = []
    for ck, np_, mod in LIBS:
        f = mod.jit(ck.checkify(_program(ck, np_), errors=getattr(ck, errors)))
        messages.append([f(x, i)[0].get() for x, i in INPUTS])
    assert messages[0] == messages[1]
    assert any(m is not None for m in messages[0])


def test_vmap_grad_and_values() -> None:
    xs, idx = np.array([[1.0, 2.0], [-1.0, 3.0]], np.float32), np.array([0, 0])
    got = []
    for ck, np_, mod in LIBS:
        checked = ck.checkify(_program(ck, np_), errors=ck.all_checks)
        err, out = mod.jit(mod.vmap(checked))(xs, idx)
        g = mod.jit(ck.checkify(mod.grad(lambda x, np_=np_: np_.log(x) * x), errors=ck.nan_checks))
        got.append((err.get(), np.asarray(out), g(-1.0)[0].get(), float(g(2.0)[1])))
    assert (
        got[0][0]
        == got[1][0]
        == ("at mapped index 1: x0 must be positive, got -1.0 (`check` failed)")
    )
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
    assert got[0][2:] == got[1][2:]


def test_check_outside_checkify() -> None:
    for ck, np_, mod in LIBS:
        f = _program(ck, np_)
        with pytest.raises(ValueError, match="not functionalized"):
            mod.jit(f)(np.array([1.0, 2.0], np.float32), 0)
        err, _ = ck.checkify(f)(np_.array([-1.0, 2.0], np.float32), 0)
        with pytest.raises(ck.JaxRuntimeError, match=r"\(`check` failed\)"):
            err.throw()
    assert dc.JaxRuntimeError is jax.errors.JaxRuntimeError
    # Evaluated eagerly, a failing check raises at once (JAX 0.10.2 refuses an Array
    # predicate there: "check takes a scalar pred").
    with pytest.raises(dc.JaxRuntimeError, match=r"x0 must be positive, got -1\.0"):
        _program(dc, dnp)(dnp.array([-1.0, 2.0]), 0)


def test_keyword_arguments_and_refusals() -> None:
    def f(x: Any) -> Any:
        dc.check(x > 0, "x={x} and twice {y}", x=x, y=2 * x)
        return x

    assert dc.checkify(f)(-1.0)[0].get() == "x=-1.0 and twice -2.0 (`check` failed)"
    with pytest.raises(TypeError, match="scalar pred"):
        dc.checkify(lambda x: dc.check(x > 0, "positive"))(np.ones(2, np.float32))

    def branch(v: Any) -> Any:
        dc.check(v > 1, "big")
        return v

    with pytest.raises(NotImplementedError, match="inside checkpoint"):
        dc.checkify(dx.checkpoint(branch))(2.0)
    # A region without a check runs (unchecked inside), its value as JAX's.
    err, y = dc.checkify(dx.checkpoint(lambda x: dnp.sin(x) * 2), errors=dc.all_checks)(0.5)
    assert err.get() is None
    assert float(y) == pytest.approx(2 * np.sin(0.5), rel=1e-6)


def test_debug_check_and_init_error() -> None:
    def f(x: Any) -> Any:
        dc.debug_check(x > 0, "x must be positive")
        return x

    assert dc.checkify(f)(-1.0)[0].get() == "x must be positive (`check` failed)"
    assert float(dx.jit(f)(-1.0)) == -1.0  # a no-op outside checkify
    assert dc.init_error.get() is None
