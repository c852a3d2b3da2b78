"""Golden jaxprs and StableHLO of one program per control-flow primitive, and their lowering.

The expected text lives in ``tests/golden/control_flow/``; regenerate it with
``DIDAX_UPDATE_GOLDEN=1`` after an intended change and review the diff.
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

GOLDEN = pathlib.Path(__file__).parent.parent / "golden" / "control_flow"
UPDATE = os.environ.get("DIDAX_UPDATE_GOLDEN") == "1"


def _cond(x: Any) -> Any:
    return lax.cond(x > 0.0, lambda v: dnp.sin(v), lambda v: v * 2.0, x)


def _switch(i: Any, x: Any) -> Any:
    return lax.switch(i, [lambda v: v, lambda v: -v, lambda v: v * v], x)


def _while(x: Any) -> Any:
    return lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)


def _scan(xs: Any) -> Any:
    return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)


def _scan_reverse_unroll(xs: Any) -> Any:
    return lax.scan(lambda c, x: (c * x, c), 1.0, xs, reverse=True, unroll=2)


PROGRAMS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "cond": (_cond, (1.0,)),
    "switch": (_switch, (np.int32(1), 3.0)),
    "while": (_while, (1.0,)),
    "scan": (_scan, (np.arange(3.0),)),
    "scan_reverse_unroll": (_scan_reverse_unroll, (np.arange(1.0, 6.0),)),
}


def _check_golden(path: pathlib.Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    assert text == path.read_text().rstrip("\n")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_jaxpr(name: str) -> None:
    fun, args = PROGRAMS[name]
    closed = dx.make_jaxpr(fun)(*args)
    typecheck_jaxpr(closed)
    _check_golden(GOLDEN / f"{name}_jaxpr.txt", str(closed))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_stablehlo(name: str) -> None:
    fun, args = PROGRAMS[name]
    text = dx.jit(fun).lower(*args).as_text()
    _check_golden(GOLDEN / f"{name}_stablehlo.txt", text.rstrip("\n"))


def test_cond_lowers_to_case_and_loops_to_while() -> None:
    assert "stablehlo.case" in dx.jit(_cond).lower(1.0).as_text()
    assert "stablehlo.while" in dx.jit(_while).lower(1.0).as_text()
    scan_text = dx.jit(_scan).lower(np.arange(3.0)).as_text()
    assert "stablehlo.while" in scan_text
    assert "stablehlo.dynamic_slice" in scan_text
    assert "stablehlo.dynamic_update_slice" in scan_text


@pytest.mark.parametrize("unroll", [1, 2, 3, 5, 7, 8])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_unroll_and_reverse_agree(unroll: int, reverse: bool) -> None:
    xs = np.arange(1.0, 8.0)

    def f(xs: Any) -> Any:
        return lax.scan(lambda c, x: (c * 0.5 + x, c - x), 0.25, xs, reverse=reverse, unroll=unroll)

    carry, ys = dx.jit(f)(xs)
    expected_c, expected_ys = 0.25, []
    for x in xs[::-1] if reverse else xs:
        expected_ys.append(expected_c - x)
        expected_c = expected_c * 0.5 + x
    if reverse:
        expected_ys.reverse()
    np.testing.assert_allclose(float(carry), expected_c)
    np.testing.assert_allclose(np.asarray(ys), expected_ys)


def test_zero_length_scan() -> None:
    carry, ys = dx.jit(lambda xs: lax.scan(lambda c, x: (c + x, x * 2.0), 1.0, xs))(np.ones(0))
    assert float(carry) == 1.0
    assert np.asarray(ys).shape == (0,)


def test_eager_control_flow_runs_compiled() -> None:
    # Applied eagerly, a loop is one compiled program (JAX's apply_primitive).
    before = dx.compile_cache_info().misses
    out = lax.while_loop(lambda v: v < 1000.0, lambda v: v + 1.0, 0.5)
    assert float(out) == 1000.5
    assert isinstance(out, dx.Array)
    after = dx.compile_cache_info().misses
    lax.while_loop(lambda v: v < 1000.0, lambda v: v + 1.0, 0.5)
    assert dx.compile_cache_info().misses == after
    assert after >= before
