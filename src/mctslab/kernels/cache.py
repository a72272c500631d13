"""Where compiled code is cached, so that a warm start is fast and a stale cache is never used.

Numba's on-disk cache (``cache=True``) keys each function on its own file's timestamp only: a change
to a kernel it calls in another file would not invalidate it. We therefore point ``NUMBA_CACHE_DIR``
at a folder named by a hash of every mctslab source file that contains compiled code, plus the
Numba version. Any change to any kernel gives a fresh folder; an unchanged tree reuses the cache.
A user's own ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the mctslab package


def base_dir() -> Path:
    """``$MCTSLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/mctslab``, else ``~/.cache/mctslab``."""
    env = os.environ.get("MCTSLAB_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "mctslab" if xdg else Path.home() / ".cache" / "mctslab"


def kernel_source_hash() -> str:
    """SHA-256 (first 16 hex digits) of every package file that defines compiled code."""
    h = hashlib.sha256()
    h.update(importlib.metadata.version("numba").encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text:
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()[:16]


def compiled_dir() -> Path:
    """The folder for this source tree's compiled code and generated modules."""
    return base_dir() / f"build-{kernel_source_hash()}"


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
