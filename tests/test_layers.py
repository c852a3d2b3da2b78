"""The layering rules of docs/design.md, checked, and the checks themselves tested.

``core -> ir -> interpreters -> lowering -> api``: each layer imports only
from the layers to its left, no layer imports the public facade modules, and
only ``lowering`` talks to XLA. The import-linter contracts in
``pyproject.toml`` say so. These tests run them on the real package, and
then on copies of it broken on purpose, so that a contract that silently
checks nothing (a misspelled module, a wrong option) fails here too.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent
PACKAGE: Final = ROOT / "src" / "didax"
PYPROJECT: Final[dict[str, Any]] = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONTRACTS: Final[dict[str, dict[str, Any]]] = {
    c["id"]: c for c in PYPROJECT["tool"]["importlinter"]["contracts"]
}
LAYERS_NAME: Final = str(CONTRACTS["layers"]["name"])
FACADE_NAME: Final = str(CONTRACTS["facade"]["name"])
XLA_NAME: Final = str(CONTRACTS["xla"]["name"])
CONTRACTS_BY_NAME: Final = {str(c["name"]) for c in CONTRACTS.values()}

# Modules through which JAX reaches XLA (compilation, PJRT, MLIR). Only
# didax.lowering may import them. import-linter can only forbid `jaxlib`
# (it squashes external packages to their top-level name), so the rest of
# the rule is checked by reading the imports: see test_xla_only_in_lowering.
XLA_MODULES: Final = ("jaxlib", "jax._src", "jax.extend", "jax.lib", "jax.interpreters")

# Public facade *packages* (``didax.scipy``, holding ``didax.scipy.special``, as
# JAX's ``jax.scipy``; ``didax.lax``, holding ``didax.lax.linalg``, as JAX's
# ``jax.lax.linalg``): re-exports like the facade modules, not layers.
FACADE_PACKAGES: Final = frozenset({"scipy", "lax", "experimental", "nn"})


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    """Runs import-linter on ``project`` (its pyproject.toml, its src/didax)."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=project,
        # PYTHONPATH comes before the editable install's path entry, so the
        # copy, not the installed package, is what import-linter finds.
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def broken_copy(tmp_path: Path, edits: dict[str, str]) -> Path:
    """A copy of the project's package and import-linter configuration, with ``edits``.

    ``edits`` maps a module path relative to ``src/didax`` to a line that is
    appended to it (the module is created if it does not exist).
    """
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(
        PACKAGE, tmp_path / "src" / "didax", ignore=shutil.ignore_patterns("__pycache__")
    )
    for rel, line in edits.items():
        path = tmp_path / "src" / "didax" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text() if path.exists() else ""
        path.write_text(f"{text}\n{line}\n")
    return tmp_path


def broken_contracts(output: str) -> set[str]:
    """The names of the contracts import-linter reports broken in ``output``."""
    return {name for name in CONTRACTS_BY_NAME if f"{name} BROKEN" in output}


# --- the real package --------------------------------------------------------


def test_contracts_are_kept() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in CONTRACTS_BY_NAME:
        assert f"{name} KEPT" in result.stdout


def test_xla_only_in_lowering() -> None:
    """No module outside didax.lowering imports JAX's XLA-facing modules."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        if rel.parts[1] == "lowering":
            continue
        for lineno, name in imported_modules(path):
            if any(name == m or name.startswith(m + ".") for m in XLA_MODULES):
                offenders.append(f"{rel}:{lineno} imports {name}")
    assert not offenders, "only didax.lowering may talk to XLA:\n" + "\n".join(offenders)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every absolute module a file imports, anywhere in it (``from a import b`` gives a.b)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


# --- the configuration: is it complete? ----------------------------------------


def test_layers_are_the_subpackages() -> None:
    """The layers contract names every subpackage of didax, and nothing else."""
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert subpackages >= FACADE_PACKAGES
    subpackages -= FACADE_PACKAGES
    assert CONTRACTS["layers"]["containers"] == ["didax"]
    assert set(CONTRACTS["layers"]["layers"]) == subpackages
    assert CONTRACTS["layers"]["layers"] == ["api", "lowering", "interpreters", "ir", "core"]
    assert CONTRACTS["layers"]["exhaustive"] is True


def test_facade_modules_are_all_covered() -> None:
    """Every public facade module is exempt from the layers and forbidden to them."""
    facade = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | FACADE_PACKAGES
    assert facade <= set(CONTRACTS["layers"]["exhaustive_ignores"])
    assert set(CONTRACTS["facade"]["forbidden_modules"]) == {f"didax.{m}" for m in facade}
    layers = {f"didax.{m}" for m in CONTRACTS["layers"]["layers"]}
    assert set(CONTRACTS["facade"]["source_modules"]) == layers
    assert set(CONTRACTS["xla"]["source_modules"]) == layers - {"didax.lowering"}
    assert CONTRACTS["xla"]["allow_indirect_imports"] is True  # api -> lowering -> jaxlib is fine


# --- the configuration: does it catch violations? -------------------------------


@pytest.mark.parametrize(
    ("edits", "broken"),
    [
        pytest.param({"core/dtypes.py": "import didax.api"}, {LAYERS_NAME}, id="core-imports-api"),
        pytest.param(
            {"ir/jaxpr.py": "from didax.interpreters import staging"},
            {LAYERS_NAME},
            id="ir-imports-interpreters",
        ),
        pytest.param(
            {"interpreters/jvp.py": "import didax.lowering"},
            {LAYERS_NAME},
            id="interpreters-imports-lowering",
        ),
        pytest.param(
            # An import inside a function is still an import.
            {"lowering/__init__.py": "def f() -> None:\n    import didax.api.transformations"},
            {LAYERS_NAME},
            id="lowering-imports-api-lazily",
        ),
        pytest.param(
            {"util/__init__.py": "import didax.core"}, {LAYERS_NAME}, id="unlisted-subpackage"
        ),
        pytest.param({"api/lax.py": "import didax.numpy"}, {FACADE_NAME}, id="api-imports-facade"),
        pytest.param(
            {"core/lax.py": "from didax import errors"}, {FACADE_NAME}, id="core-imports-facade"
        ),
        pytest.param(
            {"core/primitive.py": "import jaxlib.mlir.ir"}, {XLA_NAME}, id="core-imports-jaxlib"
        ),
        pytest.param(
            {"api/transformations.py": "from jaxlib import xla_client"},
            {XLA_NAME},
            id="api-imports-jaxlib",
        ),
    ],
)
def test_contract_catches(tmp_path: Path, edits: dict[str, str], broken: set[str]) -> None:
    result = lint_imports(broken_copy(tmp_path, edits))
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert broken_contracts(output) == broken, output


def test_unlisted_subpackage_is_reported_as_such(tmp_path: Path) -> None:
    result = lint_imports(broken_copy(tmp_path, {"util/__init__.py": ""}))
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "didax.util" in output
    assert broken_contracts(output) == {LAYERS_NAME}


def test_lowering_may_import_jaxlib(tmp_path: Path) -> None:
    """The XLA contract forbids jaxlib to the other layers only."""
    edits = {"lowering/__init__.py": "import jaxlib.mlir.ir\nfrom didax.ir import jaxpr"}
    result = lint_imports(broken_copy(tmp_path, edits))
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_linter_rejects_external_submodules(tmp_path: Path) -> None:
    """Why the XLA contract names only ``jaxlib``: ``jax.extend`` is not accepted there.

    If a future import-linter accepts it, this test fails: then forbid
    ``jax.extend`` and ``jax._src`` in pyproject.toml instead of only
    checking them in test_xla_only_in_lowering.
    """
    project = broken_copy(tmp_path, {})
    text = (project / "pyproject.toml").read_text()
    needle = 'forbidden_modules = ["jaxlib"]'
    assert needle in text
    (project / "pyproject.toml").write_text(
        text.replace(needle, 'forbidden_modules = ["jaxlib", "jax.extend"]')
    )
    result = lint_imports(project)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "subpackages of external packages are not valid" in " ".join(output.split())
