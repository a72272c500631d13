"""Benchmarks: playout throughput, search throughput and start-up time.

Figures are measured, never assumed; ratios are against references measured in the same run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from mctslab import codegen
from mctslab.games import generic_template
from mctslab.games.base import Game
from mctslab.rng import as_state, seed_state


def playouts(game: Game, seconds: float = 2.0, seed: int = 0) -> dict:
    """Uniform random playouts per second on one core from the initial state.

    The first call (compilation or cache load) is timed separately; then batches grow until
    ``seconds`` of measurement have passed.
    """
    spec = game.spec
    t0 = time.perf_counter()
    kern = codegen.specialize(generic_template, game.kernels)
    root = game.new_initial_state().array
    moves = np.empty(2 * spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(spec.num_players)
    totals = np.zeros(spec.num_players)
    _, rng = kern.run_playouts(game.consts, root, 1, seed_state(seed), moves, out, totals)
    first_call = time.perf_counter() - t0
    totals[:] = 0
    count, length, elapsed, batch = 0, 0, 0.0, 64
    while count == 0 or elapsed < seconds:
        t = time.perf_counter()
        n, rng = kern.run_playouts(game.consts, root, batch, as_state(rng), moves, out, totals)
        elapsed += time.perf_counter() - t
        count += batch
        length += n
        batch = min(batch * 2, max(64, int(count / max(elapsed, 1e-9) * 0.25)))
    return {
        "game": spec.spec_string,
        "playouts": count,
        "seconds": elapsed,
        "playouts_per_second": count / elapsed,
        "mean_length": length / count,
        "mean_returns": (totals / count).tolist(),
        "first_call_seconds": first_call,
    }


_STARTUP = """
import time
t0 = time.perf_counter()
import mctslab
from mctslab import bench
g = mctslab.load_game({spec!r})
r = bench.playouts(g, seconds=0.0)
print(time.perf_counter() - t0)
"""


def startup(spec: str) -> dict:
    """Seconds from a fresh interpreter to the first playout, with an empty and a warm cache.

    Runs two child processes against a new, empty cache folder (so the user's cache is untouched).
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MCTSLAB_CACHE_DIR": tmp}
        env.pop("NUMBA_CACHE_DIR", None)
        times = []
        for _ in range(2):
            cmd = [sys.executable, "-c", _STARTUP.format(spec=spec)]
            t = time.perf_counter()
            subprocess.run(cmd, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
    return {"game": spec, "cold_seconds": times[0], "warm_seconds": times[1]}
