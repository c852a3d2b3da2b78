"""didax's checks, one nox session each: `python3 -m pip install nox && python3 -m nox`.

Default sessions (the README's test command, and CI's): ``lint`` (ruff),
``layers`` (import-linter), ``typecheck`` (mypy --strict) and ``tests``
(pytest: the test suite, the doctests of ``src``, ``docs/*.md`` and the
README, and every benchmark once as a test). On demand: ``bench`` (the
benchmarks, timed, with a didax/JAX ratio table), ``fuzz`` (the
differential fuzzer against JAX, for as long as asked; a fixed-seed slice
runs in ``tests``) and ``docs`` (the doctests of the documentation pages).

Design rules:
- Nothing is pinned here: Python versions (the trove classifiers) and every
  dependency (the ``dev`` extra) are read from ``pyproject.toml``, and each
  tool's configuration lives there too, so a session and a bare ``pytest`` or
  ``mypy`` run check the same thing.
- Sessions that import didax install it editable with its ``dev`` extra, so
  the doctests of ``src`` run against the files in the work tree; ``lint``
  and ``layers`` only parse source and install just their tool.
- A missing interpreter is an error, not a skipped session: a check that
  did not run must not pass.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Final

import nox

ROOT: Final = Path(__file__).parent
PYPROJECT: Final[dict[str, Any]] = tomllib.loads((ROOT / "pyproject.toml").read_text())

nox.needs_version = ">=2024.4.15"
nox.options.sessions = ["lint", "layers", "typecheck", "tests"]
nox.options.error_on_missing_interpreters = True
# A tool missing from a session's virtualenv must fail, not fall back to the
# machine's copy: the checks have to pass on a machine that has none.
nox.options.error_on_external_run = True
# Reruns reuse a session's virtualenv but still reinstall from pyproject.toml
# each time; a fresh clone (CI) creates them.
nox.options.reuse_venv = "yes"


def python_versions(pyproject: dict[str, Any]) -> list[str]:
    """The ``Programming Language :: Python :: 3.X`` classifiers' versions, oldest first."""
    found = []
    for classifier in pyproject["project"].get("classifiers", []):
        match = re.fullmatch(r"Programming Language :: Python :: (\d+\.\d+)", classifier)
        if match:
            found.append(match.group(1))
    if not found:
        raise ValueError("pyproject.toml lists no 'Programming Language :: Python :: 3.X'")
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def dev_requirement(name: str) -> str:
    """The requirement for ``name`` in the ``dev`` extra, e.g. ``'ruff>=0.5'``."""
    for req in PYPROJECT["project"]["optional-dependencies"]["dev"]:
        match = re.match(r"[A-Za-z0-9._-]+", req)
        if match and match.group(0).lower() == name.lower():
            return str(req)
    raise ValueError(f"pyproject.toml's dev extra has no requirement for {name!r}")


PYTHON: Final = python_versions(PYPROJECT)


# The flags the tests under ``tests/`` run XLA's CPU backend with (``tests`` session).
UNOPTIMIZED: Final = "--xla_backend_optimization_level=0"
OLDER_EMITTERS: Final = "--xla_cpu_use_fusion_emitters=false"
# Whether a jaxlib knows a flag: XLA aborts the process on an unknown one.
_FLAG_PROBE: Final = (
    "import os, subprocess, sys; "
    "code = 'import jax.numpy as jnp; jnp.zeros(1).block_until_ready()'; "
    "env = dict(os.environ, XLA_FLAGS=sys.argv[1]); "
    "print(subprocess.run([sys.executable, '-c', code], env=env).returncode == 0)"
)


def unoptimized_env(*flags: str) -> dict[str, str]:
    """The environment of the suite under ``tests/``: XLA's CPU backend compiling fastest.

    Most of the suite's time is XLA compiling one small program per case, for
    didax and for JAX alike. Without LLVM's optimisation (``UNOPTIMIZED``)
    those compiles take about a third less time; with XLA's older CPU
    emitters too (``OLDER_EMITTERS``, where the installed jaxlib has them)
    the suite takes two thirds of the time it takes without them
    (docs/performance.md, "The test suite's time"). Both libraries run on
    the same backend with the same flags, so the comparisons still compare
    like with like (the exact ones of
    ``tests/interpreters/test_special_primitives.py`` allow a few ulps
    there). The tests marked ``xla_default_emitters`` are exact only with
    XLA's own emitters (compared with NumPy, or bit for bit with JAX's
    program built otherwise) and run apart, without ``OLDER_EMITTERS``. The
    doctests, whose printed digits are what a user sees, and the benchmarks
    keep XLA's defaults, as do ``nox -s slow`` and any run given arguments.
    """
    previous = os.environ.get("XLA_FLAGS", "")
    return {"XLA_FLAGS": " ".join([previous, *flags]).strip()}


def knows_flag(session: nox.Session, flag: str) -> bool:
    """Whether the session's jaxlib accepts the XLA flag ``flag``."""
    out = session.run("python", "-c", _FLAG_PROBE, flag, silent=True)
    return isinstance(out, str) and out.strip().endswith("True")


def files_marking(marker: str) -> list[str]:
    """The test files that name ``marker``: where its tests can be.

    Collecting the whole suite takes each worker about 25 s; a pass that
    runs a few files' tests collects those files only. A test can carry a
    marker only where its file names it (``pytest.mark.<marker>``), so a
    file that does not is left out safely.
    """
    return sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if marker in p.read_text(encoding="utf-8")
    )


def install_dev(session: nox.Session) -> None:
    session.install("-e", ".[dev]")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite, the doctests (src, docs, README) and each benchmark once."""
    install_dev(session)
    # pytest's configuration (testpaths, doctests, --benchmark-disable) is in
    # pyproject.toml; exit status 5 (no tests collected) fails the session.
    # Two worker processes, a test file each at a time (its module fixtures
    # built once): the machines have 2 cores, and a worker holds up to ~6 GB
    # of the 24, so not "auto".
    # --durations: the log names the slowest tests, where trimming starts.
    # Tests marked slow (long tables, each with a slice that runs here) are
    # `nox -s slow`'s, to keep this under 30 minutes on 2 cores.
    args = ["-n", "2", "--dist", "loadfile", "--durations=30"]
    if session.posargs:  # a chosen selection, at XLA's defaults
        session.run("pytest", *args, "-m", "not slow", *session.posargs)
        return
    unoptimized = unoptimized_env(UNOPTIMIZED)
    if knows_flag(session, OLDER_EMITTERS):
        fastest = unoptimized_env(UNOPTIMIZED, OLDER_EMITTERS)
        older, default = "not xla_default_emitters", "xla_default_emitters"
        session.run("pytest", *args, "-m", f"not slow and {older}", "tests", env=fastest)
        marking = files_marking(default)
        session.run("pytest", *args, "-m", f"not slow and {default}", *marking, env=unoptimized)
    else:
        session.run("pytest", *args, "-m", "not slow", "tests", env=unoptimized)
    session.run("pytest", *args, "-m", "not slow", "docs", "bench", "src", "README.md")


@nox.session(python=PYTHON)
def slow(session: nox.Session) -> None:
    """The tests marked slow: the long tables the default run takes a slice of."""
    install_dev(session)
    session.run("pytest", "-n", "2", "--dist", "loadfile", "-m", "slow", *session.posargs)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src, tests, bench, examples and this file."""
    install_dev(session)
    session.run("mypy", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff's lints and its formatter, in check mode."""
    session.install(dev_requirement("ruff"))
    session.run("ruff", "check", *session.posargs)
    session.run("ruff", "format", "--check", *session.posargs)


@nox.session(python=PYTHON)
def layers(session: nox.Session) -> None:
    """The import-linter contracts of pyproject.toml (layering, XLA only in lowering)."""
    session.install(dev_requirement("import-linter"))
    # import-linter reads source files; it only needs to find the package.
    session.run("lint-imports", "--no-cache", env={"PYTHONPATH": str(ROOT / "src")})


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The benchmarks, timed, ending with a table of didax/JAX time ratios.

    Then ``bench/paired.py``: the dispatch, MLP-step and first-call workloads
    again, didax and JAX in alternating rounds (steadier ratios on a small
    shared machine than the table's didax-then-JAX runs).
    """
    install_dev(session)
    session.run(
        "pytest",
        "bench",
        "--benchmark-enable",
        "--benchmark-sort=name",
        "--benchmark-columns=min,median,mean,stddev,rounds",
        *session.posargs,
    )
    session.run("python", "bench/paired.py")


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """The differential fuzzer against JAX, long: ``nox -s fuzz -- --seconds 1800 --seed 0``.

    Prints the number of program x transformation pairs run (a job per core);
    a mismatch is shrunk and appended to tests/fuzz/regressions.json, which
    the tests replay.
    """
    install_dev(session)
    # A job per core: XLA's compiles take most of the time, one core each; a
    # ``--jobs`` given after ``--`` comes later and wins.
    session.run("python", "tests/fuzz/fuzz.py", f"--jobs={os.cpu_count() or 1}", *session.posargs)


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """The doctests of the documentation pages and the README, and the docs' own checks."""
    install_dev(session)
    # tests/test_docs.py: cited names exist, the example runs, CI runs the README's command.
    session.run("pytest", "docs", "README.md", "tests/test_docs.py", *session.posargs)


@nox.session(python=PYTHON)
def soak(session: nox.Session) -> None:
    """Long runs whose memory must level off: ``nox -s soak -- --steps 100000 --shapes 50000``.

    Training steps, then jitted calls on new shapes; fails if the resident
    set grows 5% after warm-up, and draws the curve (``soak_rss.png``).
    """
    session.install("-e", ".[dev,plot]")
    session.run("python", "bench/soak.py", *session.posargs)
