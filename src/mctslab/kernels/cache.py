"""Where compiled code is cached, so that a warm start is fast and a stale cache is never used.

Numba's on-disk cache (``cache=True``) keys each function on its own file's timestamp only: a
change to a kernel it calls in another file would not invalidate it, nor would a change to a
module-level value (a table, a constant) that it reads from another module and freezes into its
machine code as a global. We therefore point ``NUMBA_CACHE_DIR`` at a folder named by a hash of
the Numba version and of every source file that compiled code may read (:func:`hashed_files`):

* every ``.py`` file of the three layers that hold compiled code and the modules it imports,
  ``kernels/``, ``games/`` and ``search/`` (imports point down, so a compiled module there reads
  only modules of these layers; a plain-Python table module such as ``games/go_patterns.py``,
  frozen into ``go_playouts.py``, is covered without containing ``njit``);
* the package's top-level modules (``errors.py``, ``specstr.py``...), which any layer may import;
* any other file of the package that contains ``njit`` (should compiled code appear higher up).

Any change to any of them gives a fresh folder; an unchanged tree reuses the cache. (The rule is
checked by ``tests/test_cache_key.py``: every mctslab module a hashed module imports is hashed.)
A user's own ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the mctslab package
#: the layers whose every module is hashed (compiled code and everything it can import)
COMPILED_LAYERS = ("kernels", "games", "search")


def base_dir() -> Path:
    """``$MCTSLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/mctslab``, else ``~/.cache/mctslab``."""
    env = os.environ.get("MCTSLAB_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "mctslab" if xdg else Path.home() / ".cache" / "mctslab"


def hashed_files(package: Path | None = None) -> list[Path]:
    """The source files the cache key covers (module docstring), sorted: every ``.py`` file under
    :data:`COMPILED_LAYERS` and at the package's top level, and any other one containing
    ``njit``. ``package`` is the mctslab folder (default: this one)."""
    root = package or _PACKAGE
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if len(rel.parts) == 1 or rel.parts[0] in COMPILED_LAYERS or b"njit" in path.read_bytes():
            out.append(path)
    return out


def kernel_source_hash(package: Path | None = None) -> str:
    """SHA-256 (first 16 hex digits) of the Numba version and every file of
    :func:`hashed_files` (its path in the package and its bytes)."""
    root = package or _PACKAGE
    h = hashlib.sha256()
    h.update(importlib.metadata.version("numba").encode())
    for path in hashed_files(root):
        h.update(str(path.relative_to(root).as_posix()).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def compiled_dir(package: Path | None = None) -> Path:
    """The folder for this source tree's compiled code and generated modules."""
    return base_dir() / f"build-{kernel_source_hash(package)}"


def configure() -> None:
    """Point Numba's cache at :func:`compiled_dir` unless the user chose a folder."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    target = compiled_dir()
    target.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target / "numba")
    if "numba" in sys.modules:  # imported before us: make it re-read its settings
        from numba.core import config

        config.reload_config()
