"""Careful C reference playouts, compiled on first use and measured in the same run as ours.

The C sources ship inside the package (``references/c/*.c``). On first use each is compiled with
the system C compiler (``$CC``, else ``gcc``, else ``cc``) as ``-O2 -march=native`` into a small
shared library under ``mctslab.kernels.cache.base_dir() / "references"``, named by a hash of the
source,
the flags, the compiler and the machine, so an edited source or another compiler gives a fresh
build and an unchanged one is reused. The library is loaded with :mod:`ctypes`; the C function
times only its own playout loop (``CLOCK_MONOTONIC``), so neither compilation nor the ctypes call
is in the figure. ctypes releases the GIL during the call, and the C code keeps its state on the
stack, so calls may run in parallel threads.

* ``nogo_playout.c`` — NoGo uniform random playouts from the empty board with the standard fast
  technique (per-player shrinking candidate lists, since no stone is ever removed; group lists
  with pseudo-liberty sums for atari tests). See the file's header for the details.
* ``hex_playout.c`` — Hex random fills (shuffle, fill alternately, one flood fill from Black's top
  edge), the same algorithm as ``mctslab.games.hex_kernels.random_playout``.

Each C file also exports a brute-force self-check (:func:`selfcheck`).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import math
import os
import platform
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from mctslab.errors import MctslabError, SpecError
from mctslab.kernels import cache

#: compiler flags: optimised for this machine, position-independent shared library
CFLAGS = ("-O2", "-march=native", "-std=gnu11", "-fPIC", "-shared")
#: game name -> (source file, board sizes the C code accepts)
GAMES = {"nogo": ("nogo_playout.c", range(2, 20)), "hex": ("hex_playout.c", range(1, 20))}


class CompilerNotFoundError(MctslabError, RuntimeError):
    """No C compiler to build the C reference playouts."""


class ReferenceBuildError(MctslabError, RuntimeError):
    """The C compiler failed on a reference source (its message is included)."""


def find_compiler() -> str:
    """The path of ``$CC`` if set, else ``gcc``, else ``cc``.

    Raises :class:`CompilerNotFoundError` if there is none.
    """
    names = [os.environ["CC"]] if os.environ.get("CC") else []
    names += ["gcc", "cc"]
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise CompilerNotFoundError(
        f"no C compiler found (looked for {', '.join(names)}); the C reference playouts are "
        "compiled on first use: install one (e.g. `apt-get install gcc`) or set $CC"
    )


def _source(game: str) -> bytes:
    return resources.files("mctslab.harness.references").joinpath("c", GAMES[game][0]).read_bytes()


def _check_game(game: str, size: int | None = None) -> None:
    if game not in GAMES:
        raise SpecError(f"no C reference for game {game!r}; known: {', '.join(GAMES)}")
    sizes = GAMES[game][1]
    if size is not None and size not in sizes:
        raise SpecError(f"C reference {game}: size must be in {sizes.start}..{sizes.stop - 1}")


@functools.cache
def _library(game: str) -> ctypes.CDLL:
    """Compile (once per source hash) and load the shared library of ``game``'s reference."""
    cc = find_compiler()
    src = _source(game)
    key = hashlib.sha256()
    for part in (src, " ".join(CFLAGS).encode(), cc.encode(), platform.machine().encode()):
        key.update(part + b"\0")
    folder = cache.base_dir() / "references"
    target = folder / f"{game}-{key.hexdigest()[:16]}.so"
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            c_file = Path(tmp) / GAMES[game][0]
            c_file.write_bytes(src)
            so_file = Path(tmp) / target.name
            proc = subprocess.run(
                [cc, *CFLAGS, "-o", str(so_file), str(c_file)], capture_output=True, text=True
            )
            if proc.returncode != 0:
                raise ReferenceBuildError(
                    f"{cc} failed to build the {game} C reference:\n{proc.stderr.strip()}"
                )
            os.replace(so_file, target)  # atomic: concurrent builders never see half a file
    lib = ctypes.CDLL(str(target))
    run = getattr(lib, f"{game}_playouts")
    run.argtypes = [
        ctypes.c_int,
        ctypes.c_int64,
        ctypes.c_double,
        ctypes.c_uint64,
        ctypes.POINTER(ctypes.c_int64),
        ctypes.POINTER(ctypes.c_double),
    ]
    run.restype = ctypes.c_int
    check = getattr(lib, f"{game}_selfcheck")
    check.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint64]
    check.restype = ctypes.c_int
    return lib


def build(game: str) -> Path:
    """Build (if needed) the reference library of ``game`` and return its path."""
    _check_game(game)
    return Path(_library(game)._name)


def c_playouts(
    game: str, size: int, seconds: float = 1.0, *, playouts: int = 0, seed: int = 0
) -> dict:
    """Uniform random playouts per second from the empty board, by the careful C reference.

    Runs for ``seconds`` of playout loop, or exactly ``playouts`` playouts when that is positive
    (then ``seconds`` only caps the run if also positive). Returns ``playouts_per_second``,
    ``mean_length`` (moves per playout; for Hex the whole fill, ``size * size``, as our kernel
    records), ``length_std`` (standard deviation of the length), ``playouts``,
    ``first_player_win_rate`` (Black), ``seconds``, ``game`` and ``compiler``.
    """
    _check_game(game, size)
    if playouts <= 0 and seconds <= 0:
        raise SpecError("c_playouts: give seconds > 0 or playouts > 0")
    run = getattr(_library(game), f"{game}_playouts")
    out = (ctypes.c_int64 * 4)()
    elapsed = ctypes.c_double()
    seed64 = seed & 0xFFFFFFFFFFFFFFFF
    if run(size, playouts, seconds, seed64, out, ctypes.byref(elapsed)) != 0:
        raise SpecError(f"C reference {game}: bad size {size}")
    count, total, total_sq, first = out[0], out[1], out[2], out[3]
    mean = total / count
    return {
        "game": f"{game}(size={size})",
        "playouts": count,
        "seconds": elapsed.value,
        "playouts_per_second": count / elapsed.value if elapsed.value > 0 else math.inf,
        "mean_length": mean,
        "length_std": math.sqrt(max(total_sq / count - mean * mean, 0.0)),
        "first_player_win_rate": first / count,
        "compiler": find_compiler(),
    }


def selfcheck(game: str, size: int, games: int = 200, seed: int = 1) -> int:
    """Run the C program's own brute-force check; returns the number of violations (0 = pass).

    NoGo: after every move of ``games`` random games, the fast legality test agrees with a
    flood-fill one on every empty point for both colours, no legal point has left its player's
    candidate list, and the loser has no legal move. Hex: after each of ``games`` fills Black has
    ceil(N/2) stones and exactly one of Black (top-bottom) and White (left-right) is connected.
    """
    _check_game(game, size)
    return getattr(_library(game), f"{game}_selfcheck")(size, games, seed & 0xFFFFFFFFFFFFFFFF)
