"""An n-tuple network for 2048 and its TD(0) training (compiled kernels).

The value of an *afterstate* (the board right after a move, before the new tile) is a sum of
table entries, one per feature (Szubert and Jaśkowski 2014, "Temporal difference learning of
n-tuple networks for the game 2048", IEEE CIG)::

    V(b) = Σ_p Σ_{σ in D4} w_p[ idx(σ(b), p) ],   idx(b, p) = Σ_j e_{p_j}(b) · 16^j

over the four 6-cell patterns ``p`` of :data:`PATTERNS` (two 2x3 rectangles and two straight
lines with their neighbours, the network of Wu et al. 2014 and Yeh et al. 2016) and the 8
symmetries of the square, ``e_i(b)`` the exponent of cell ``i`` (0 empty). Each pattern has one
table of 16^6 float32 weights shared by its 8 symmetric copies (4 · 16^6 · 4 bytes = 268 MB).

Play: from board ``s`` the move ``a`` maximising ``r(s, a) + V(after(s, a))``. TD(0) on
afterstates (their Fig. 3, ``TD-AFTERSTATE``): after the move from ``s'`` (an afterstate) to
the next afterstate ``s'''`` with reward ``r``,

    w ← w + α/F · (r + V(s''') − V(s'))       for each of the F = 32 features active in s'

and at the end of the game (no move from the board after the new tile) the target is 0. So
``V(b)`` estimates the score still to come after ``b``, the quantity MCTS's rollouts estimate.
Tiles above 32768 (exponent 16) do not fit a bitboard: a move that would make a 65536 is not
considered (the array kernels play such boards exactly; no trained player reaches them).

The network agents read, in order: the file they are given, the float32 network ``mctslab train
2048`` writes to the cache folder, and the packed network shipped with the package
(:mod:`mctslab.games.g2048_ntuple_pack`, 300,000 training games at seed 0).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

from mctslab.errors import MctslabError
from mctslab.games import g2048_ntuple_pack as packed
from mctslab.games.g2048_kernels import (
    board_move,
    board_spawn,
    feature_index,
    make_consts,
    network_afterstate_value,
    pack,
)
from mctslab.games.g2048_kernels import network_best_move as best_move
from mctslab.kernels import cache

#: the four 6-cell patterns (cells row-major, 0 top-left)
PATTERNS = ((0, 1, 2, 3, 4, 5), (4, 5, 6, 7, 8, 9), (0, 1, 2, 4, 5, 6), (4, 5, 6, 8, 9, 10))
TUPLE = 6
TABLE_SIZE = 16**TUPLE
#: the step size of TD(0) (Szubert and Jaśkowski's α, split over the 32 features)
ALPHA = 0.1
#: the network file under the cache folder's ``networks/`` (a NumPy ``.npy`` of the weights, with
#: a ``.json`` beside it recording how it was trained)
NETWORK_FILE = "2048-ntuple-4x6.npy"
#: the packed network shipped in the package's ``data/`` folder (made by ``mctslab train
#: pack-2048`` from a 300,000-game network)
PACKED_FILE = "2048-ntuple-4x6.npz.xz"
_M4 = np.uint64(15)


def symmetries() -> list[list[int]]:
    """The 8 symmetries of the 4x4 square as cell maps: ``cell -> sigma[cell]``."""
    maps = []
    for t in range(8):
        m = []
        for cell in range(16):
            r, c = divmod(cell, 4)
            if t & 4:  # transpose
                r, c = c, r
            if t & 2:  # flip the rows
                r = 3 - r
            if t & 1:  # flip the columns
                c = 3 - c
            m.append(4 * r + c)
        maps.append(m)
    return maps


def feature_shifts() -> np.ndarray:
    """``[32, 6]`` bit offsets (``4 · cell``) of every feature's cells, pattern-major: feature
    ``f`` reads table ``f // 8``."""
    rows = [[4 * sigma[c] for c in p] for p in PATTERNS for sigma in symmetries()]
    return np.array(rows, dtype=np.uint64)


def new_weights() -> np.ndarray:
    """A zero network (``[4, 16^6]`` float32)."""
    return np.zeros((len(PATTERNS), TABLE_SIZE), dtype=np.float32)


@njit(cache=True)
def update(w, fs, b, delta):
    """Add ``delta / F`` to each of the ``F`` weights that ``V(b)`` sums."""
    step = np.float32(delta / fs.shape[0])
    for f in range(fs.shape[0]):
        w[f >> 3, feature_index(b, fs, f)] += step


@njit(cache=True)
def _start(rng):
    b = np.uint64(0)
    b, rng = board_spawn(b, rng)
    b, rng = board_spawn(b, rng)
    return b, rng


@njit(cache=True)
def _max_exponent(b):
    top = 0
    for i in range(16):
        top = max(top, np.int64((b >> np.uint64(4 * i)) & _M4))
    return top


@njit(cache=True)
def train(consts, w, fs, n_games, alpha, rng, scores, max_tiles):
    """``n_games`` games of TD(0) afterstate learning (module docstring) with step ``alpha``,
    the network playing greedily (``alpha = 0``: play only, the weights untouched); game ``g``'s
    score and largest exponent go into ``scores[g]`` and ``max_tiles[g]``. Returns the
    generator state."""
    for g in range(n_games):
        b, rng = _start(rng)
        a, prev, r, _ = best_move(consts, w, fs, b)
        score = r
        while a >= 0:
            b, rng = board_spawn(prev, rng)
            a, after, r, v = best_move(consts, w, fs, b)
            if alpha > 0.0:
                target = v if a >= 0 else 0.0  # r + V(after), or 0 at the end
                update(w, fs, prev, alpha * (target - network_afterstate_value(w, fs, prev)))
            prev = after
            score += r
        scores[g] = score
        max_tiles[g] = _max_exponent(b)
    return rng


def move_values(consts: np.ndarray, w: np.ndarray, fs: np.ndarray, state, moves: list[int]):
    """The greedy player's value of each move in ``moves`` from decision state ``state`` (a
    :class:`~mctslab.games.base.State`, not changed): ``r(s, a) + V(after(s, a))``, or the merge
    reward alone where a tile is beyond the bitboard (the array kernels play that move). The
    player of the ``network`` agent (:mod:`mctslab.agents.g2048`): no search, what the network
    alone is worth."""
    b, ok = pack(state.array)
    values = []
    for a in moves:
        nb, r = board_move(consts, np.uint64(b), a) if ok else (0, -1)
        if r < 0:  # a tile beyond the bitboard: the merge reward alone
            after = state.clone()
            before = float(after.returns()[0])
            after.apply_action(a)
            values.append(float(after.returns()[0]) - before)
        else:
            values.append(r + network_afterstate_value(w, fs, np.uint64(nb)))
    return values


# -- files and training from Python -------------------------------------------------------------


def default_path() -> Path:
    """Where ``mctslab train 2048`` writes the network and agents look for it first."""
    return cache.base_dir() / "networks" / NETWORK_FILE


def shipped_path() -> Path:
    """The packed network shipped with the package, used when none has been trained."""
    return Path(__file__).parent / "data" / PACKED_FILE


def find_network() -> Path | None:
    """The network agents use without ``network=FILE``: the trained one (:func:`default_path`)
    if it exists, else the shipped one (:func:`shipped_path`), else None."""
    return next((p for p in (default_path(), shipped_path()) if p.exists()), None)


def _train_hint(path: Path) -> str:
    return (
        f"train one with `mctslab train 2048 --out {path}` "
        "(300,000 games, about 30 minutes on one core)"
    )


def load(path: str | Path | None = None) -> np.ndarray:
    """The weights in ``path`` (default :func:`find_network`), a float32 ``.npy`` or a packed
    file (:mod:`mctslab.games.g2048_ntuple_pack`), checked to be a network of this shape; a
    missing or unreadable file is a :class:`MctslabError` saying how to make one. The array is
    read once per process and file version and shared by every agent (do not write to it;
    training reads its own copy)."""
    p = Path(path) if path else find_network()
    if p is None:
        raise MctslabError(
            f"no trained 2048 network at {default_path()} and no shipped one at "
            f"{shipped_path()}; {_train_hint(default_path())}"
        )
    if not p.exists():
        raise MctslabError(f"no trained 2048 network at {p}; {_train_hint(p)}")
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _LOADED:
        _LOADED.clear()  # one network in memory at a time (268 MB)
        _LOADED[key] = _read(p)
    return _LOADED[key]


_LOADED: dict[tuple[str, int, int], np.ndarray] = {}


def _read(p: Path) -> np.ndarray:
    want = (len(PATTERNS), TABLE_SIZE)
    try:
        if packed.is_packed(p):
            return packed.read(p, want)
        w = np.load(p, allow_pickle=False)
    except MctslabError as e:  # a packed file that does not decode
        raise MctslabError(f"{e}; {_train_hint(default_path())}") from e
    except (OSError, ValueError, EOFError) as e:
        raise MctslabError(f"{p} is not a readable network file ({e}); {_train_hint(p)}") from e
    if w.shape != want or w.dtype != np.float32:
        raise MctslabError(
            f"{p} holds a {w.dtype} array of shape {w.shape}, not a 2048 n-tuple network "
            f"(float32, {want}); {_train_hint(p)}"
        )
    return w


def info(path: str | Path) -> dict:
    """The training record beside a network file (empty if there is none)."""
    side = Path(path).with_suffix(".json")
    try:
        return json.loads(side.read_text())
    except (OSError, ValueError):
        return {}


def save(w: np.ndarray, path: str | Path, record: dict) -> None:
    """Write the weights and their training record, each atomically (a temporary file renamed
    over the old one, so an interrupted save never leaves half a network)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp.npy")
    np.save(tmp, w)
    os.replace(tmp, p)
    side = p.with_suffix(".json")
    tmp_side = side.with_name(side.name + ".tmp")
    tmp_side.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp_side, side)


def train_network(
    games: int,
    path: str | Path,
    *,
    alpha: float = ALPHA,
    seed: int = 0,
    chunk: int = 1000,
    resume: bool = True,
    report: Callable[[dict], None] | None = None,
) -> dict:
    """Train the network in ``path`` for ``games`` more games of TD(0) (a new one unless the
    file exists and ``resume``), saving after every ``10 · chunk`` games and at the end; after
    each chunk ``report`` gets its summary (games so far, mean score, share reaching 2048 and
    4096). Returns the training record (also written beside the weights). The shipped network
    (:func:`shipped_path`) is refused as ``path``: training never overwrites it."""
    from mctslab.kernels.rng import as_state, seed_state

    p = Path(path)
    if p.resolve() == shipped_path().resolve():
        raise MctslabError(
            f"{p} is the network shipped with mctslab; train into another file "
            f"(the default is {default_path()})"
        )
    resume = resume and p.exists()
    record = info(p) if resume else {}
    w = _read(p) if resume else new_weights()
    record = {"games": record.get("games", 0), "alpha": alpha, "history": record.get("history", [])}
    consts, fs = make_consts(), feature_shifts()
    rng = seed_state(seed * 1_000_003 + record["games"])
    scores = np.zeros(chunk, dtype=np.int64)
    tiles = np.zeros(chunk, dtype=np.int64)
    start = time.perf_counter()
    done = 0
    while done < games:
        n = min(chunk, games - done)
        rng = as_state(train(consts, w, fs, n, alpha, rng, scores, tiles))
        done += n
        record["games"] += n
        row = {
            "games": record["games"],
            "this_run": done,
            "mean_score": float(scores[:n].mean()),
            "reached_2048": float(np.mean(tiles[:n] >= 11)),
            "reached_4096": float(np.mean(tiles[:n] >= 12)),
            "seconds": round(time.perf_counter() - start, 1),
        }
        record["history"].append(row)
        if report:
            report(row)
        if done == games or (done // chunk) % 10 == 0:
            save(w, p, record)
    return record
