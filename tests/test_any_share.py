"""How much of didax's own code is typed ``Any``: the census issue 27 measures, as a ratchet.

``python tests/test_any_share.py`` prints the shares; the test fails if a
share grows past the figure recorded here, so lower the figure whenever the
code gets better typed (the issue's target: at most 10% of return
annotations and 8% of parameters).

An annotation counts as ``Any`` when it is ``Any`` itself or an alias of it
(``Array = Any`` at a module's top level, or such a name imported from
another didax module), spelled bare or as a string; ``*args`` and
``**kwargs`` are parameters like any other. ``self`` and ``cls`` are not
counted, nor are unannotated parameters (mypy --strict allows none).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import attrs

SRC: Final = Path(__file__).resolve().parent.parent / "src" / "didax"


@attrs.frozen
class Census:
    params: int
    any_params: int
    returns: int
    any_returns: int

    @property
    def param_share(self) -> float:
        return self.any_params / self.params

    @property
    def return_share(self) -> float:
        return self.any_returns / self.returns


def _any_aliases(tree: ast.Module) -> set[str]:
    """Module-level names bound to ``Any`` (``Array = Any``, ``X: TypeAlias = Any``)."""
    names = {"Any"}
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_any(node.value, names):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and isinstance(node.target, ast.Name)
            and _is_any(node.value, names)
        ):
            names.add(node.target.id)
    return names


def _is_any(annotation: ast.expr | None, aliases: set[str]) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() in aliases
    if isinstance(annotation, ast.Name):
        return annotation.id in aliases
    return isinstance(annotation, ast.Attribute) and annotation.attr == "Any"


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _module_name(path: Path, root: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_aliases(tree: ast.Module, exported: dict[str, set[str]]) -> set[str]:
    """Names this module imports that another module defines as an alias of ``Any``."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in exported:
            for alias in node.names:
                if alias.name in exported[node.module]:
                    names.add(alias.asname or alias.name)
    return names


def census(root: Path = SRC) -> Census:
    trees = {
        _module_name(path, root): ast.parse(path.read_text(), str(path))
        for path in sorted(root.rglob("*.py"))
    }
    exported = {name: _any_aliases(tree) - {"Any"} for name, tree in trees.items()}
    params = any_params = returns = any_returns = 0
    for tree in trees.values():
        aliases = _any_aliases(tree) | _imported_aliases(tree, exported)
        for fn in _functions(tree):
            a = fn.args
            every = [*a.posonlyargs, *a.args, *a.kwonlyargs]
            every += [x for x in (a.vararg, a.kwarg) if x is not None]
            for arg in every:
                if arg.arg in ("self", "cls") or arg.annotation is None:
                    continue
                params += 1
                any_params += _is_any(arg.annotation, aliases)
            if fn.returns is not None:
                returns += 1
                any_returns += _is_any(fn.returns, aliases)
    return Census(params, any_params, returns, any_returns)


# The shares last measured (issue 27 started from 21.1% and 38.2%); lower
# them as the typing improves.
MAX_PARAM_SHARE: Final = 0.068
MAX_RETURN_SHARE: Final = 0.058


def test_any_shares_do_not_grow() -> None:
    c = census()
    assert c.params > 1000  # the walk found didax's code
    assert c.returns > 1000
    assert c.param_share <= MAX_PARAM_SHARE, c
    assert c.return_share <= MAX_RETURN_SHARE, c


def test_aliases_of_any_are_counted() -> None:
    tree = ast.parse("from typing import Any\nArray = Any\ndef f(x: Array) -> 'Array': ...\n")
    aliases = _any_aliases(tree)
    fn = next(_functions(tree))
    assert _is_any(fn.args.args[0].annotation, aliases)
    assert _is_any(fn.returns, aliases)
    assert not _is_any(ast.parse("int", mode="eval").body, aliases)
    user = ast.parse("from didax.a import Array as A\ndef g(x: int) -> A: ...\n")
    assert _imported_aliases(user, {"didax.a": {"Array"}}) == {"A"}


if __name__ == "__main__":
    c = census()
    print(
        f"Any in {c.any_params} of {c.params} parameters ({c.param_share:.1%}) and "
        f"{c.any_returns} of {c.returns} return annotations ({c.return_share:.1%})",
        file=sys.stdout,
    )
