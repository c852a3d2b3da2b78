"""The api layer's modules import each other in one direction: no import hides in a function.

A function-local import of a didax module is how a cycle between two
modules is usually dodged (``elementwise.where`` once imported
``logic.nonzero`` so, as ``logic`` builds on ``elementwise``). The cure is
to move what both need down (``positions.nonzero`` sits below
``elementwise``), so this test refuses any such import in ``didax.api``
unless ``ALLOWED`` lists it with the reason it must stay.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

API: Final = Path(__file__).resolve().parents[2] / "src" / "didax" / "api"

# "path relative to src/didax/api:function -> imported module": why it must stay local.
ALLOWED: Final[dict[str, str]] = {}


def local_didax_imports(path: Path) -> list[str]:
    """``function -> module`` for each import of a didax module inside a function of ``path``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom):
                modules = [inner.module or ""] if inner.level == 0 else ["(relative)"]
            elif isinstance(inner, ast.Import):
                modules = [alias.name for alias in inner.names]
            else:
                continue
            found.extend(
                f"{node.name} -> {m}" for m in modules if m == "(relative)" or m.startswith("didax")
            )
    return found


def test_no_function_local_imports_of_didax_modules_in_the_api_layer() -> None:
    offenders = []
    seen = set()
    for path in sorted(API.rglob("*.py")):
        rel = path.relative_to(API).as_posix()
        for entry in local_didax_imports(path):
            key = f"{rel}:{entry}"
            seen.add(key)
            if key not in ALLOWED:
                offenders.append(key)
    assert not offenders, (
        "function-local imports of didax modules (move the shared code down):\n"
        + ("\n".join(offenders))
    )
    assert not set(ALLOWED) - seen, f"stale ALLOWED entries: {sorted(set(ALLOWED) - seen)}"


def test_the_scan_finds_a_function_local_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import didax\n\n\ndef f():\n    from didax.api.numpy import logic\n\n"
        "    import numpy\n    return logic, numpy\n"
    )
    assert local_didax_imports(module) == ["f -> didax.api.numpy"]
