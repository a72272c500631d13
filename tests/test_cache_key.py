"""The compiled-code cache key covers every module compiled code reads (mctslab.kernels.cache).

Numba freezes a module-level array a kernel reads (``go_playouts.py`` reads ``TABLE`` from
``go_patterns.py``, which has no ``njit``) into the machine code it caches: an edit of the table
must give a fresh cache folder, or the old table would keep being played.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
from pathlib import Path

import pytest

from mctslab.kernels import cache

PACKAGE = Path(cache.__file__).resolve().parents[1]


def _load_cache_module(package: Path, name: str):
    """The ``kernels/cache.py`` of a package folder, loaded on its own (it imports only the
    standard library), so that its ``_PACKAGE`` is that folder."""
    spec = importlib.util.spec_from_file_location(name, package / "kernels" / "cache.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def copy(tmp_path, monkeypatch):
    monkeypatch.setenv("MCTSLAB_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "src" / "mctslab"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_editing_a_table_module_changes_the_key_and_the_compiled_folder(copy):
    patterns = copy / "games" / "go_patterns.py"
    assert b"njit" not in patterns.read_bytes()  # the case the old rule missed
    before = _load_cache_module(copy, "cache_copy_before")
    key, folder = before.kernel_source_hash(), before.compiled_dir()
    assert key == cache.kernel_source_hash(copy) and folder == cache.compiled_dir(copy)
    assert folder.parent == Path(cache.base_dir())
    text = patterns.read_text()
    edited = text.replace('("XOX", "...", "???"),', '("XOX", "..X", "???"),', 1)
    assert edited != text
    patterns.write_text(edited)
    after = _load_cache_module(copy, "cache_copy_after")
    assert after.kernel_source_hash() != key
    assert after.compiled_dir() != folder
    assert patterns in after.hashed_files()


def test_a_module_above_the_compiled_layers_does_not_change_the_key(copy):
    key = cache.kernel_source_hash(copy)
    treeviz = copy / "interfaces" / "treeviz.py"
    treeviz.write_text(treeviz.read_text() + "\n# an edit of the user interface\n")
    assert cache.kernel_source_hash(copy) == key


def _imported_mctslab_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return {n for n in names if n == "mctslab" or n.startswith("mctslab.")}


def _module_file(name: str) -> Path | None:
    parts = name.split(".")[1:]
    if not parts:
        return PACKAGE / "__init__.py"
    rel = Path(*parts)
    for candidate in (PACKAGE / rel.with_suffix(".py"), PACKAGE / rel / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None  # a name imported from a module, not a module


def test_every_module_a_hashed_module_imports_is_hashed():
    """The rule is closed: a hashed module (compiled code or something it may read) imports, at
    any depth and lazily or not, only hashed mctslab modules."""
    hashed = set(cache.hashed_files())
    assert any(p.name == "go_patterns.py" for p in hashed)
    outside = {}
    for path in hashed:
        for name in _imported_mctslab_modules(path):
            target = _module_file(name)
            if target is not None and target not in hashed:
                outside.setdefault(str(path.relative_to(PACKAGE)), []).append(name)
    assert not outside
