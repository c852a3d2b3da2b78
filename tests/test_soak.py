"""``bench/soak.py`` (``nox -s soak``), a short slice: both phases run and are measured."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, Final

import pytest

SCRIPT: Final = Path(__file__).resolve().parent.parent / "bench" / "soak.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("didax_bench_soak", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_soak_slice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    soak = _load()
    # A slice too short to judge growth: the limit is loose, the report is checked.
    plot = str(tmp_path / "rss.png")
    code = soak.main(["--steps", "200", "--shapes", "20", "--max-growth", "10", "--plot", plot])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "training: 200 iterations" in out
    assert "new shapes: 20 iterations" in out
