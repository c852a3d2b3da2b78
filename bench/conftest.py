"""Benchmarks against JAX: each workload is timed for didax and for JAX in the same run.

A benchmark calls the ``record`` fixture after ``benchmark(...)``; at the end
of a timed session (``nox -s bench``, or ``pytest bench --benchmark-enable``)
a table of didax/JAX ratios of median times follows pytest-benchmark's own.
Under ``--benchmark-disable`` (the default in pyproject.toml, and so in
``nox -s tests``) each benchmark runs once as a plain test, checking its
result against JAX, and no table is printed.

Design rules:
- Never assert on a timing: machines differ, and CI has 2 shared cores.
  Timings are reported; correctness is asserted.
- A ratio compares the same workload (same function, same shapes and
  dtypes) measured in the same process, so machine speed cancels out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

import attrs
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

Impl: TypeAlias = Literal["didax", "jax"]


@attrs.frozen
class Measurement:
    """The median time of one workload under one implementation, per ``unit``."""

    workload: str
    impl: Impl
    seconds: float  # median time of one call
    per: int  # how many units one call does (equations traced, ops dispatched)
    unit: str

    @property
    def per_unit(self) -> float:
        return self.seconds / self.per


_MEASUREMENTS = pytest.StashKey[list[Measurement]]()

Record: TypeAlias = Callable[..., None]


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Record:
    """Call ``record(benchmark, workload=..., impl=..., per=n, unit=...)`` after a benchmark."""
    measurements = request.config.stash.setdefault(_MEASUREMENTS, [])

    def record(
        benchmark: BenchmarkFixture, *, workload: str, impl: Impl, per: int = 1, unit: str = "call"
    ) -> None:
        stats = benchmark.stats
        if stats is None:  # benchmarks disabled: the call ran once, untimed
            return
        measurements.append(Measurement(workload, impl, float(stats.stats.median), per, unit))

    return record


def _fmt(seconds: float) -> str:
    for scale, suffix in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {suffix}"
    return f"{seconds / 1e-9:.3g} ns"


def ratio_table(measurements: list[Measurement]) -> list[str]:
    """One line per workload measured for both implementations, plus growth lines.

    A workload name of the form ``"<family>, n=<N>"`` takes part in a growth
    line for its family: the per-unit time at the largest ``N`` over the one
    at the smallest (1.0 means linear scaling).
    """
    by_workload: dict[str, dict[Impl, Measurement]] = {}
    for m in measurements:
        by_workload.setdefault(m.workload, {})[m.impl] = m
    rows: list[tuple[str, str, str, str]] = []
    families: dict[str, list[tuple[int, dict[Impl, Measurement]]]] = {}
    for workload, impls in by_workload.items():
        if set(impls) != {"didax", "jax"}:
            continue
        d, j = impls["didax"], impls["jax"]
        rows.append(
            (
                workload,
                f"{_fmt(d.per_unit)}/{d.unit}",
                f"{_fmt(j.per_unit)}/{j.unit}",
                f"{d.per_unit / j.per_unit:.2f}",
            )
        )
        family, sep, n = workload.rpartition(", n=")
        if sep and n.isdigit():
            families.setdefault(family, []).append((int(n), impls))
    for family, sizes in families.items():
        if len(sizes) < 2:
            continue
        sizes.sort(key=lambda s: s[0])
        (n0, small), (n1, large) = sizes[0], sizes[-1]
        growth = {i: large[i].per_unit / small[i].per_unit for i in ("didax", "jax")}
        rows.append(
            (
                f"{family}: per-{small['didax'].unit} growth n={n1} / n={n0}",
                f"{growth['didax']:.2f}",
                f"{growth['jax']:.2f}",
                "",
            )
        )
    if not rows:
        return []
    header = ("workload (median)", "didax", "jax", "didax/jax")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]

    def line(r: tuple[str, str, str, str]) -> str:
        return "  ".join(
            [r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True))]
        )

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    lines = ratio_table(config.stash.get(_MEASUREMENTS, []))
    if not lines:
        return
    terminalreporter.write_sep("=", "didax vs JAX, same workloads, same run")
    for text in lines:
        terminalreporter.write_line(text)
    terminalreporter.write_line(
        "didax/jax < 1: didax is faster. Growth 1.0: time per unit is flat in n (linear total)."
    )
