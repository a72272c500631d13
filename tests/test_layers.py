"""Imports point one way: kernels -> games -> search -> agents -> harness -> interfaces, each
layer importing only its own and the layers below (docs/architecture.md). Every ``mctslab``
import counts, at the top of a module or inside a function."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mctslab"
LAYERS = ["kernels", "games", "search", "agents", "harness", "interfaces"]
#: beside the kernels: imported by every layer, importing nothing above them
BOTTOM = {"errors", "specstr"}
#: a game's playout policies are specialised into the search's template, so they import the
#: playout-policy interface of the search layer (docs/architecture.md)
ALLOWED = {
    ("games", "search.playouts"),
    ("games", "search.records"),
    ("games", "search.enhancements"),
}


def _layer(parts: list[str]) -> int:
    if parts[0] in BOTTOM:
        return -1
    return LAYERS.index(parts[0])


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if node.module == "mctslab":
                names = [f"mctslab.{a.name}" for a in node.names]
            yield from (n for n in names if n.startswith("mctslab."))
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("mctslab."))


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if len(parts) > 1 and parts[0] in LAYERS:
            yield path, parts


@pytest.mark.parametrize("path, parts", list(_modules()), ids=lambda x: getattr(x, "name", ""))
def test_no_module_imports_a_layer_above_its_own(path, parts):
    own = LAYERS.index(parts[0])
    upward = []
    for name in _imports(path):
        target = name.split(".")[1:]
        if not target or target[0] not in LAYERS + sorted(BOTTOM):
            continue
        if _layer(target) > own and not any(
            parts[0] == a and ".".join(target).startswith(b) for a, b in ALLOWED
        ):
            upward.append(name)
    assert not upward, f"{path.relative_to(PACKAGE)} imports upward: {sorted(set(upward))}"


def test_the_bottom_modules_import_no_layer():
    for name in BOTTOM:
        found = [n for n in _imports(PACKAGE / f"{name}.py") if n.split(".")[1] in LAYERS]
        assert not found, (name, found)
