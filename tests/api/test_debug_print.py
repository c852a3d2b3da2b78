"""``debug.print`` and ``debug.callback`` against JAX's: what each prints, in what order.

Each case is one program written once over a namespace (``ns.debug``,
``ns.lax``, ``ns.jit``...) and run by both libraries on the same input;
their captured stdout must be the same lines. Ordered prints under
jit, scan, cond and while must come in program order in both.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax
import didax.numpy as dnp

NS = {
    "jax": SimpleNamespace(
        debug=jax.debug, lax=jax.lax, jit=jax.jit, vmap=jax.vmap, grad=jax.grad, np=jnp
    ),
    "didax": SimpleNamespace(
        debug=didax.debug, lax=didax.lax, jit=didax.jit, vmap=didax.vmap, grad=didax.grad, np=dnp
    ),
}


def _two_prints(ns: Any, x: Any) -> Any:
    ns.debug.print("x = {x}", x=x)
    ns.debug.print("sin {} {}", ns.np.sin(x), "tag", ordered=True)
    return x * 2.0


def _scan(ns: Any, x: Any) -> Any:
    def body(c: Any, i: Any) -> Any:
        ns.debug.print("step {} carry {}", i, c, ordered=True)
        return c + i, c

    return ns.lax.scan(body, x, ns.np.arange(3, dtype="float32"))[0]


def _cond(ns: Any, x: Any) -> Any:
    def yes(y: Any) -> Any:
        ns.debug.print("positive {}", y, ordered=True)
        return y + 1.0

    def no(y: Any) -> Any:
        ns.debug.print("not positive {}", y, ordered=True)
        return y - 1.0

    ns.debug.print("before", ordered=True)
    out = ns.lax.cond(x > 0, yes, no, x)
    ns.debug.print("after {}", out, ordered=True)
    return out


def _while(ns: Any, x: Any) -> Any:
    def body(c: Any) -> Any:
        ns.debug.print("c={c}", c=c, ordered=True)
        return c + 1.0

    return ns.lax.while_loop(lambda c: c < x + 3.0, body, x)


def _unused(ns: Any, x: Any) -> Any:
    # Neither the print's operand nor anything after it is an output: DCE keeps it.
    y = ns.np.cos(x)
    ns.debug.print("unused {}", y)
    return x


def _no_placeholders(ns: Any, x: Any) -> Any:
    ns.debug.print("values: {} {}", x, x + 1.0)
    ns.debug.callback(lambda v: print("callback", np.asarray(v)), x)
    return x


def _nested_jit(ns: Any, x: Any) -> Any:
    inner = ns.jit(lambda y: (ns.debug.print("inner {}", y, ordered=True), y * 3.0)[1])
    ns.debug.print("outer {}", x, ordered=True)
    inner(x)  # its result unused
    return inner(x + 1.0)


PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "two_prints": _two_prints,
    "scan": _scan,
    "cond": _cond,
    "while": _while,
    "unused": _unused,
    "no_placeholders": _no_placeholders,
    "nested_jit": _nested_jit,
}

# (how the program is run) -> a function of (namespace, program, input).
MODES: dict[str, Callable[[Any, Callable[[Any, Any], Any], Any], Any]] = {
    "eager": lambda ns, f, x: f(ns, x),
    "jit": lambda ns, f, x: ns.jit(lambda v: f(ns, v))(x),
    "vmap": lambda ns, f, x: ns.jit(ns.vmap(lambda v: f(ns, v)))(ns.np.stack([x, -x])),
    "grad": lambda ns, f, x: ns.grad(lambda v: f(ns, v))(x),
    "jit_grad": lambda ns, f, x: ns.jit(ns.grad(lambda v: f(ns, v)))(x),
}

# CI keeps jit, vmap and grad of every program, and every mode of the first
# two; the rest is the slow session's (``nox -s slow``).
CASES = [
    pytest.param(
        p,
        m,
        id=f"{p}-{m}",
        marks=[pytest.mark.slow]
        if m in ("eager", "jit_grad") and p not in ("two_prints", "scan")
        else [],
    )
    for p in PROGRAMS
    for m in MODES
    if not (m in ("grad", "jit_grad") and p == "while")  # while_loop has no reverse mode
]


def _printed(capsys: pytest.CaptureFixture[str], lib: str, prog: str, mode: str) -> list[str]:
    capsys.readouterr()
    ns = NS[lib]
    out = MODES[mode](ns, PROGRAMS[prog], np.float32(0.5))
    jax.block_until_ready(out) if lib == "jax" else didax.block_until_ready(out)
    jax.effects_barrier() if lib == "jax" else didax.effects_barrier()
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("prog", "mode"), CASES)
def test_prints_as_jax(capsys: pytest.CaptureFixture[str], prog: str, mode: str) -> None:
    expected = _printed(capsys, "jax", prog, mode)
    assert expected, "the JAX program printed nothing"
    assert _printed(capsys, "didax", prog, mode) == expected


def test_print_checks_arguments_as_jax() -> None:
    for lib in (jax, didax):
        with pytest.raises(ValueError, match="Unused positional arguments"):
            lib.debug.print("{}", 1.0, 2.0)
        with pytest.raises(ValueError, match="f-string"):
            lib.debug.print("no fields", x=1.0)


def test_two_call_form(capsys: pytest.CaptureFixture[str]) -> None:
    f = didax.jit(lambda x: didax.debug.print(ordered=True)("v={}", x))
    f(np.int32(3))
    didax.debug.callback(ordered=True)(lambda v: print("cb", v), np.int32(4))
    assert capsys.readouterr().out.splitlines() == ["v=3", "cb 4"]


def test_print_options_at_the_call(capsys: pytest.CaptureFixture[str]) -> None:
    f = lambda x: didax.debug.print("{}", x)  # noqa: E731
    with np.printoptions(precision=2):
        didax.jit(f)(np.arange(3, dtype=np.float32) / 3)
    assert capsys.readouterr().out == "[0.   0.33 0.67]\n"


def test_log_as_jax(caplog: pytest.LogCaptureFixture) -> None:
    messages = {}
    for lib, logger in ((jax, "jax._src.debugging"), (didax, "didax.debug")):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger=logger):
            lib.jit(lambda x, lib=lib: lib.debug.log("logged {x}", x=x * 2))(np.arange(3))
            lib.effects_barrier()
        messages[lib.__name__] = [r.getMessage() for r in caplog.records if r.name == logger]
    assert messages["didax"] == messages["jax"] == ["logged [0 2 4]"]


def test_breakpoint_prompt(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def f(x: Any) -> Any:
        y = x + 1
        didax.debug.breakpoint(ordered=True)
        return y

    monkeypatch.setattr("sys.stdin", io.StringIO("p y * 10\np nope\nw\nc\n"))
    didax.vmap(f)(np.arange(2))  # once per batch element, as a debug callback
    out = capsys.readouterr().out
    # Element 0 reads the four commands; element 1 finds the input ended.
    assert out.count("(didaxdb)") == 4 + 1
    assert "Array(10, dtype=int" in out
    assert "*** NameError" in out
    assert "test_debug_print.py(" in out


def test_sharding_tools_as_jax(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[object] = []
    didax.jit(lambda x: didax.debug.inspect_array_sharding(x, callback=seen.append))(np.ones(2))
    didax.debug.inspect_array_sharding({"a": didax.numpy.ones(2)}, callback=seen.append)
    assert [type(s).__name__ for s in seen] == ["SingleDeviceSharding"] * 2
    capsys.readouterr()
    didax.debug.visualize_array_sharding(didax.numpy.ones((4, 4)))
    ours = capsys.readouterr().out
    jax.debug.visualize_array_sharding(jnp.ones((4, 4)))
    theirs = capsys.readouterr().out
    assert "CPU 0" in ours
    assert "CPU 0" in theirs


def _remat_and_custom_jvp(lib: Any) -> None:
    def f(x: Any) -> Any:
        lib.debug.print("in remat {}", x)
        return lib.numpy.sin(x) * x

    @lib.custom_jvp
    def g(x: Any) -> Any:
        lib.debug.print("in custom_jvp {}", x)
        return x * 2

    g.defjvp(lambda p, t: (g(p[0]), t[0] * 2))
    lib.grad(lib.checkpoint(f))(np.float32(0.5))  # the forward pass, and its recomputation
    lib.jit(lib.grad(lib.checkpoint(f)))(np.float32(0.25))
    lib.grad(g)(np.float32(0.5))
    lib.jit(lib.grad(g))(np.float32(0.75))
    lib.effects_barrier()


def test_prints_in_checkpoint_and_custom_jvp_as_jax(capsys: pytest.CaptureFixture[str]) -> None:
    _remat_and_custom_jvp(jax)
    expected = capsys.readouterr().out.splitlines()
    assert len(expected) == 6
    _remat_and_custom_jvp(didax)
    assert capsys.readouterr().out.splitlines() == expected
