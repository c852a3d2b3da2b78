"""The documentation stays true: its examples run, its names exist, its commands are CI's.

The ``>>>`` examples of ``docs/*.md`` and ``README.md`` are doctests that
pytest collects itself (``--doctest-glob=*.md`` in pyproject.toml); this
module checks what doctests cannot: that no Python example escapes them,
that every internal name the pages cite exists, that the example scripts
run (the README's trains a network to a good accuracy), and that CI runs
the README's test command.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent
PAGES: Final = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
CODE_BLOCK: Final = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
DOTTED_NAME: Final = re.compile(r"`(didax(?:\.\w+)+)`")


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_docs_exist() -> None:
    names = {p.name for p in PAGES}
    assert {"index.md", "tracing.md", "autodidax_map.md", "README.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_python_blocks_are_doctests(page: Path) -> None:
    """Every ```python block is a doctest, ending in a blank line so ``` is not output."""
    for lang, body in CODE_BLOCK.findall(page.read_text()):
        if lang != "python":
            continue
        assert body.lstrip().startswith(">>>"), f"{page_id(page)}: a python block without >>>"
        assert body.endswith("\n\n"), (
            f"{page_id(page)}: end the block with a blank line before ``` "
            "(else doctest reads the fence as expected output):\n" + body
        )


def resolve(dotted: str) -> object:
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_cited_names_exist(page: Path) -> None:
    missing = []
    for dotted in sorted(set(DOTTED_NAME.findall(page.read_text()))):
        try:
            resolve(dotted)
        except (ImportError, AttributeError) as e:
            missing.append(f"{dotted}: {e}")
    assert not missing, f"{page_id(page)} cites names that do not exist:\n" + "\n".join(missing)


# The examples run as a user runs them: with didax's defaults (32-bit), not
# the suite's 64-bit mode (tests/conftest.py sets JAX_ENABLE_X64 for it).
USER_ENV: Final = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}


def test_quickstart_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=USER_ENV,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "quickstart: all results match NumPy" in result.stdout
    for heading in ("make_jaxpr(predict):", "jvp:", "jacfwd:", "vmap over", "jit:"):
        assert heading in result.stdout


EXAMPLE_COMMAND: Final = "python3 -m pip install . && python3 examples/train_mlp.py"


def test_readme_example_trains() -> None:
    """The README's example command's script, shortened with ``--steps``, learns the task.

    Its output is captured (not a terminal), so the progress bar must print a
    few plain lines instead of redrawing itself.
    """
    assert EXAMPLE_COMMAND in readme_commands()
    script = ROOT / EXAMPLE_COMMAND.split()[-1]
    result = subprocess.run(
        [sys.executable, str(script), "--steps", "200", "--no-plot"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=USER_ENV,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    match = re.search(r"test accuracy (\d+\.\d)%", result.stdout)
    assert match, result.stdout
    assert float(match.group(1)) > 90.0
    progress = [ln for ln in result.stderr.splitlines() if ln.startswith("step ")]
    assert "\r" not in result.stderr
    assert 2 <= len(progress) <= 6, result.stderr
    assert progress[-1].startswith("step 200/200  loss ")


def test_cnn_example_trains() -> None:
    """``examples/train_cnn.py``, shortened with ``--steps``, learns its shapes."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_cnn.py"), "--steps", "50"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=USER_ENV,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    match = re.search(r"test accuracy (\d+\.\d)%", result.stdout)
    assert match, result.stdout
    assert float(match.group(1)) > 90.0
    assert [ln for ln in result.stderr.splitlines() if ln.startswith("step 50/50  loss ")]


def readme_commands() -> list[str]:
    """The shell commands of the README's ```sh blocks (comments dropped)."""
    commands = []
    for lang, body in CODE_BLOCK.findall((ROOT / "README.md").read_text()):
        if lang == "sh":
            commands += [ln for ln in body.splitlines() if ln and not ln.startswith("#")]
    return commands


def test_ci_runs_the_readme_test_command() -> None:
    commands = readme_commands()
    assert EXAMPLE_COMMAND in commands
    test_command = "python3 -m pip install nox && python3 -m nox"
    assert test_command in commands
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in ci
    assert ci[-1] == test_command
