"""``didax.flops`` against XLA's own cost analysis, and the acceptance tests of issue 8.

``PROGRAMS`` are the programs of the agreement table in ``docs/flops.md``.
Each says how XLA's count of the compiled program relates to didax's:
equal, or a documented relationship (XLA counts a loop's body once,
simplifies, pads long reductions...). ``test_docs_table_is_current``
keeps the page's numbers the ones measured here; run this file as a
script to print the table::

    python tests/api/test_flops.py
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.api.flops import cost
from didax.interpreters.flops import Cost
from didax.lowering import xla

RNG: Final = np.random.default_rng(0)
X: Final = RNG.normal(size=(4, 5))
W: Final = RNG.normal(size=(5, 5)) / 5


def _normal(*shape: int) -> np.ndarray[Any, Any]:
    return RNG.normal(size=shape)


# --- the programs -------------------------------------------------------------------------


Relation = Callable[[Cost], tuple[int, int]]


def same(c: Cost) -> tuple[int, int]:
    return c.flops, c.transcendentals


class Program(NamedTuple):
    name: str
    fun: Callable[..., Any]
    args: tuple[Any, ...]
    xla: Relation = same  # XLA's (flops, transcendentals) from didax's count
    why: str = ""  # the relationship, when it is not equality


def _mlp(params: Any, x: Any) -> Any:
    for w, b in params:
        x = dnp.tanh(x @ w + b)
    return x


def _loss(params: Any, x: Any) -> Any:
    return dnp.sum(_mlp(params, x) ** 2)


MLP_PARAMS: Final = [
    (_normal(8, 16), _normal(16)),
    (_normal(16, 16), _normal(16)),
    (_normal(16, 4), _normal(4)),
]
BATCH: Final = _normal(32, 8)


def _softmax(x: Any) -> Any:
    e = dnp.exp(x - dnp.max(x, axis=-1, keepdims=True))
    return e / dnp.sum(e, axis=-1, keepdims=True)


def _cond(pred: Any, x: Any) -> Any:
    # True: 20 flops; False: 200 flops and 20 transcendentals.
    return lax.cond(pred, lambda v: v * 2.0, lambda v: dnp.tanh(v @ W), x)


def _double(i: Any, c: Any) -> Any:
    return c * 2.0


def _counter_loop(x: Any) -> Any:
    return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 3, c[1] * 2.0), (0, x))[1]


def _rnn(h: Any, xs: Any) -> Any:
    return lax.scan(lambda h, x: (dnp.tanh(h @ W + x), h), h, xs)[0]


def _per_iteration(trips: int, outside: int = 0, overhead: int = 0) -> Relation:
    """XLA counts a loop's body once: didax's count = outside + trips x body."""

    def relation(c: Cost) -> tuple[int, int]:
        return (c.flops - outside) // trips + outside + overhead, c.transcendentals // trips

    return relation


PROGRAMS: Final = [
    Program("element-wise chain", lambda x: dnp.sqrt(dnp.abs(x) * 3.0 + 1.0) - x / 2.0, (X,)),
    Program("float32 chain", lambda x: dnp.exp(-x * x) * 0.5, (X.astype(np.float32),)),
    Program(
        "integer powers x**3 + x**-2",
        lambda x: x**3 + x**-2,
        (X,),
        lambda c: (c.flops - 20, 0),
        "both powers square x: XLA computes x * x once (CSE)",
    ),
    Program("logistic", lax.logistic, (X,)),
    Program("matmul 7x9 @ 9x3", lambda a, b: a @ b, (_normal(7, 9), _normal(9, 3))),
    Program(
        "matmul 64x32 @ 32x16, float32",
        lambda a, b: a @ b,
        (_normal(64, 32).astype(np.float32), _normal(32, 16).astype(np.float32)),
    ),
    Program("matrix @ vector", lambda a, b: a @ b, (_normal(7, 9), _normal(9))),
    Program(
        "vector . vector",
        lambda a, b: a @ b,
        (_normal(9), _normal(9)),
        lambda c: (c.flops - 1, 0),
        "XLA rewrites it as multiply + reduce: 2k - 1",
    ),
    Program(
        "outer product (dot_general)",
        lambda a, b: lax.dot_general(a, b, (((), ()), ((), ()))),
        (_normal(16), _normal(16)),
        lambda c: (c.flops // 2, 0),
        "XLA rewrites it as a multiply: m n, not 2 m n",
    ),
    Program(
        "batched matmul (einsum)",
        lambda a, b: dnp.einsum("bij,bjk->bik", a, b),
        (_normal(3, 4, 5), _normal(3, 5, 6)),
    ),
    Program("sum of all elements", dnp.sum, (X,)),
    Program("mean over an axis", lambda x: dnp.mean(x, axis=0), (X,)),
    Program(
        "max over rows of 100",
        lambda x: dnp.max(x, axis=1),
        (_normal(3, 100),),
        lambda c: (c.flops + 3 * 28, 0),
        "XLA's CPU compiler pads a long reduction to a multiple of 32: 127 per row",
    ),
    Program(
        "argmax",
        lambda x: dnp.argmax(x, axis=1),
        (X,),
        lambda c: (14 * c.flops, 0),
        "XLA counts the 14 operations of didax's NaN-aware comparator per step",
    ),
    Program(
        "cumsum",
        lambda x: dnp.cumsum(x, axis=1),
        (X,),
        lambda c: (5 * c.flops, 0),
        "lowered as a reduce_window: n - 1 additions for each of the n outputs",
    ),
    Program(
        "softmax",
        _softmax,
        (X,),
        lambda c: (c.flops + 4, c.transcendentals),
        "XLA divides by a row's sum as 1 reciprocal per row, then multiplies",
    ),
    Program("MLP forward (3 layers, batch 32)", _mlp, (MLP_PARAMS, BATCH)),
    Program("MLP loss", _loss, (MLP_PARAMS, BATCH)),
    Program(
        "grad of the MLP loss",
        dx.grad(_loss),
        (MLP_PARAMS, BATCH),
        lambda c: (c.flops - 32 * 4, c.transcendentals),
        "XLA drops grad's multiplication by the seed cotangent, ones(32, 4)",
    ),
    Program(
        "vmap of tanh(a @ b)",
        dx.vmap(lambda a, b: dnp.tanh(a @ b)),
        (_normal(3, 4, 5), _normal(3, 5, 6)),
    ),
    Program("nested jit", dx.jit(lambda x: dx.jit(lambda y: dnp.sin(y) * y)(x) + 1.0), (X,)),
    Program("cond, literal predicate", lambda x: _cond(True, x), (X,)),
    Program("cond, data-dependent predicate", lambda x: _cond(dnp.sum(x) > 0.0, x), (X,)),
    Program(
        "cond on an integer argument (n = 5)",
        lambda n, x: _cond(n > 3, x),
        (5, X),
        lambda c: (c.flops - 20 + 200, 20),
        "didax knows n and counts the branch taken; XLA, the larger branch",
    ),
    Program(
        "switch, literal index",
        lambda x: lax.switch(
            2, [lambda v: v * 2.0, lambda v: dnp.tanh(v @ W), lambda v: v + v * v], x
        ),
        (X,),
    ),
    Program(
        "fori_loop, literal bounds (a scan, 10 trips)",
        lambda x: lax.fori_loop(0, 10, _double, x),
        (X,),
        _per_iteration(10, overhead=2),
        "XLA counts the body once, plus the loop's own counter and test",
    ),
    Program(
        "fori_loop, bound an argument (a while, n = 10)",
        lambda x, n: lax.fori_loop(0, n, _double, x),
        (X, 10),
        lambda c: ((c.flops - 11) // 10 + 1, 0),
        "XLA counts the body and the test once: didax, 10 bodies and 11 tests",
    ),
    Program(
        "while_loop on a counter (4 trips)",
        _counter_loop,
        (X,),
        lambda c: ((c.flops - 5) // 4 + 1, 0),
        "XLA counts the body and the test once: didax, 4 bodies and 5 tests",
    ),
    Program(
        "while_loop, data-dependent predicate",
        lambda x: lax.while_loop(lambda v: dnp.sum(v) < 100.0, lambda v: v * 2.0, x),
        (X,),
    ),
    Program(
        "scan: an RNN over 6 steps",
        _rnn,
        (X[0], _normal(6, 5)),
        _per_iteration(6, overhead=2),
        "XLA counts the body once, plus the loop's own counter and test",
    ),
]


class Measured(NamedTuple):
    didax: Cost
    xla_flops: int
    xla_transcendentals: int
    lowered_flops: int
    lowered_transcendentals: int


@functools.cache
def measure(index: int) -> Measured:
    program = PROGRAMS[index]
    c = cost(program.fun)(*program.args)
    lowered = dx.jit(program.fun).lower(*program.args)
    compiled = lowered.compile().cost_analysis()
    before = lowered.cost_analysis()
    return Measured(
        c,
        int(compiled.get("flops", 0)),
        int(compiled.get("transcendentals", 0)),
        int(before.get("flops", 0)),
        int(before.get("transcendentals", 0)),
    )


ON_CPU: Final = xla.platform() == "cpu"
cpu_only = pytest.mark.skipif(
    not ON_CPU, reason="the relationships are those of XLA's CPU compiler"
)


def test_at_least_twenty_programs() -> None:
    assert len(PROGRAMS) >= 20
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)
    assert all(p.why for p in PROGRAMS if p.xla is not same)


@cpu_only
@pytest.mark.parametrize("index", range(len(PROGRAMS)), ids=[p.name for p in PROGRAMS])
def test_didax_agrees_with_xla(index: int) -> None:
    program = PROGRAMS[index]
    m = measure(index)
    assert (m.xla_flops, m.xla_transcendentals) == program.xla(m.didax), program.why or "equal"


# --- the table in docs/flops.md -----------------------------------------------------------

TABLE_BEGIN: Final = "<!-- agreement table: generated by tests/api/test_flops.py -->"
TABLE_END: Final = "<!-- end of the agreement table -->"


def agreement_table() -> str:
    rows = [
        "| program | didax flops | didax transc. | XLA flops | XLA transc. "
        "| XLA before optimization | agree? |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for i, p in enumerate(PROGRAMS):
        m = measure(i)
        estimated = " (estimated)" if m.didax.estimated else ""
        agree = "yes" if p.xla is same else f"no: {p.why}"
        rows.append(
            f"| {p.name} | {m.didax.flops}{estimated} | {m.didax.transcendentals} "
            f"| {m.xla_flops} | {m.xla_transcendentals} "
            f"| {m.lowered_flops} / {m.lowered_transcendentals} | {agree} |"
        )
    return "\n".join(rows)


@cpu_only
def test_docs_table_is_current() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "flops.md").read_text()
    start = page.index(TABLE_BEGIN) + len(TABLE_BEGIN)
    table = page[start : page.index(TABLE_END)].strip()
    assert table == agreement_table(), "regenerate it: python tests/api/test_flops.py"
    agree = sum(p.xla is same for p in PROGRAMS)
    assert f"{agree} of the {len(PROGRAMS)} programs agree exactly" in page


# --- acceptance -------------------------------------------------------------------------------


@pytest.mark.parametrize(("m", "k", "n"), [(2, 3, 4), (64, 128, 32), (1, 1000, 1), (5, 7, 11)])
def test_a_matmul_counts_two_m_k_n(m: int, k: int, n: int) -> None:
    flops = dx.flops(lambda a, b: a @ b)(np.ones((m, k)), np.ones((k, n)))
    assert flops == 2 * m * k * n
    assert type(flops) is int


def test_a_scan_counts_length_times_its_body() -> None:
    def step(h: Any, x: Any) -> Any:
        return dnp.tanh(h @ W + x) * 0.5

    h = X[0]
    body = dx.flops(step)(h, h)
    for length in (1, 7, 100):
        xs = np.ones((length, 5))
        scanned = dx.flops(lambda h, xs: lax.scan(lambda h, x: (step(h, x), None), h, xs)[0])
        assert scanned(h, xs) == length * body


def test_grad_costs_at_most_four_forward_passes_on_a_deep_chain() -> None:
    ws = [_normal(16, 16) / 4 for _ in range(100)]

    def forward(ws: Any, x: Any) -> Any:
        for w in ws:
            x = dnp.tanh(w @ x)
        return dnp.sum(x)

    x = _normal(16)
    fwd = dx.flops(forward)(ws, x)
    grad = dx.flops(dx.grad(forward))(ws, x)
    assert fwd > 100 * 2 * 16 * 16
    assert grad / fwd <= 4
    both = cost(dx.grad(forward))(ws, x)
    assert (both.flops + both.transcendentals) / fwd <= 4


# --- the public function ------------------------------------------------------------------------


def test_flops_takes_pytrees_and_python_scalars() -> None:
    assert dx.flops(_mlp)(MLP_PARAMS, BATCH) == cost(_mlp)(MLP_PARAMS, BATCH).flops
    assert dx.flops(lambda d: d["a"] * d["b"][0])({"a": 2.0, "b": (3.0,)}) == 1
    assert dx.flops(lambda x: x)(X) == 0


def test_transcendentals_are_not_flops() -> None:
    assert dx.flops(dnp.tanh)(X) == 0
    assert cost(dnp.tanh)(X) == Cost(0, 20)


def test_integer_scalar_arguments_decide_control_flow() -> None:
    f = dx.flops(lambda x, n: lax.fori_loop(0, n, _double, x))
    assert [f(X, n) for n in (0, 1, 5)] == [21 * n + n + 1 for n in (0, 1, 5)]
    assert f(X, np.int32(3)) == f(X, dx.device_put(np.int64(3)))


def test_nothing_runs() -> None:
    # A (100000 x 100000) @ (100000 x 100000) product: 2e15 operations, counted at once.
    big = np.broadcast_to(np.float32(1.0), (100_000, 100_000))
    start = time.perf_counter()
    assert dx.flops(lambda a: dnp.tanh(a @ a))(big) == 2 * 100_000**3
    assert time.perf_counter() - start < 5


def test_flops_of_a_jitted_function_and_under_jit() -> None:
    f = dx.jit(lambda x: x * 2.0 + 1.0)
    assert dx.flops(f)(X) == 40
    assert dx.jit(lambda x: x + dx.flops(lambda y: y * y)(x))(X).shape == (4, 5)


def test_arguments_must_be_values() -> None:
    with pytest.raises(TypeError, match="flops argument: str 'a' is not a valid didax value"):
        dx.flops(lambda x: x)("a")


def test_compiled_and_lowered_cost_analysis() -> None:
    lowered = dx.jit(lambda a, b: a @ b).lower(np.ones((2, 3)), np.ones((3, 4)))
    compiled = lowered.compile()
    assert compiled.cost_analysis()["flops"] == 48.0
    assert compiled.cost_analysis()["bytes accessed"] > 0
    if ON_CPU:
        assert lowered.cost_analysis()["flops"] == 48.0


if __name__ == "__main__":
    print(agreement_table())
