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
    samples = tmp_path / "rss.csv"
    argv = ["--steps", "200", "--shapes", "20", "--max-growth", "10", "--plot", plot]
    code = soak.main([*argv, "--samples", str(samples)])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = samples.read_text().splitlines()
    assert rows[0] == "phase,iteration,rss_mib"
    assert rows[-1].startswith("new shapes,20,")
    assert "training: 200 iterations" in out
    assert "new shapes: 20 iterations" in out
    # The curve is drawn with or without matplotlib (the script's own PNG writer).
    assert Path(plot).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
