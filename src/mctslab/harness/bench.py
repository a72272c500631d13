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

from mctslab.games import generic_template
from mctslab.games.base import Game
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state


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
from mctslab.harness import bench
g = mctslab.load_game({spec!r})
if {agent!r} is None:
    bench.playouts(g, seconds=0.0)
else:
    from mctslab.agents import make_agent
    make_agent({agent!r}, g, seed=0).search(g.new_initial_state())
print(time.perf_counter() - t0)
"""


def startup(spec: str, agent: str | None = None) -> dict:
    """Seconds from a fresh interpreter to the first playout (or, with ``agent``, to the end of
    that agent's first search from the initial state: what a user waits for before the first
    move), with an empty and a warm cache.

    Runs two child processes against a new, empty cache folder (so the user's cache is untouched).
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MCTSLAB_CACHE_DIR": tmp}
        env.pop("NUMBA_CACHE_DIR", None)
        times = []
        for _ in range(2):
            cmd = [sys.executable, "-c", _STARTUP.format(spec=spec, agent=agent)]
            t = time.perf_counter()
            subprocess.run(cmd, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
    first = {} if agent is None else {"agent": agent}
    return {"game": spec, **first, "cold_seconds": times[0], "warm_seconds": times[1]}


def search(game: Game, agent_spec: str, seed: int = 0) -> dict:
    """One search from the initial state; ``first_call_seconds`` is making the agent (compile or
    cache load), measured apart from the search itself."""
    from mctslab.agents import make_agent

    t0 = time.perf_counter()
    agent = make_agent(agent_spec, game, seed=seed)
    first_call = time.perf_counter() - t0
    result = agent.search(game.new_initial_state())
    return {
        "game": game.spec.spec_string,
        "agent": agent.spec_string,
        "simulations": result.simulations,
        "seconds": result.elapsed,
        "sims_per_second": result.sims_per_second,
        "nodes": result.nodes,
        "bytes_per_node": result.bytes_per_node,
        "bytes": result.bytes,
        "depth_mean": result.depth_mean,
        "depth_max": result.depth_max,
        "action": game.action_to_string(0, result.action),
        "first_call_seconds": first_call,
    }


#: ``bench presets``: the agents compared with plain UCT (every ``mcts`` preset, decisive and
#: anti-decisive moves alone, the other NoGo playouts, a combination, the strong preset (each
#: game's default), root parallelisation); a row is skipped where the game lacks the policy.
PRESET_AGENTS = (
    "mcts(preset=uct)",
    "mcts(preset=rave)",
    "mcts(preset=pool_rave)",
    "mcts(preset=lgrf)",
    "mcts(preset=rave,lgrf=true)",
    "mcts(preset=decisive)",
    "mcts(decisive=true)",
    "mcts(antidecisive=true)",
    "mcts(preset=nf)",
    "mcts(playout=nf2)",
    "mcts(playout=naive)",
    "mcts(playout=contested)",
    "mcts(playout=go)",
    "mcts(preset=qbr)",
    "mcts(preset=strong)",
    "mcts(workers=2)",
)


def presets(
    games: tuple[str, ...] = ("nogo(size=9)", "hex(size=11)"),
    seconds: float = 1.0,
    rounds: int = 3,
    agents: tuple[str, ...] = PRESET_AGENTS,
) -> list[dict]:
    """Simulations per second of every enhancement from each game's initial state, ``seconds``
    per search, and its cost relative to plain UCT measured in the same run: the agents take
    turns (interleaved), ``rounds`` times, and each keeps its best round. ``relative`` is
    (its sims/s) / (plain UCT's sims/s)."""
    from mctslab.agents import make_agent
    from mctslab.errors import SpecError
    from mctslab.games import load_game

    rows = []
    for spec in games:
        game = load_game(spec)
        made = {}
        for a in agents:
            try:
                made[a] = make_agent(a[:-1] + f",time={seconds})", game, seed=0)
            except SpecError:
                continue  # the policy does not exist for this game
        best = dict.fromkeys(made, 0.0)
        for _ in range(rounds):
            for a, agent in made.items():
                agent.reset()
                r = agent.search(game.new_initial_state())
                best[a] = max(best[a], r.sims_per_second)
        base = best[agents[0]]
        rows += [
            {"game": spec, "agent": a, "sims_per_second": v, "relative": v / base}
            for a, v in best.items()
        ]
    return rows


#: (our game, C reference name, size, target playouts/s) — issue targets on this 2-core machine
PLAYOUT_CASES = (
    ("nogo(size=9)", "nogo", 9, 200_000),
    ("nogo(size=7)", "nogo", 7, None),
    ("hex(size=11)", "hex", 11, 1_000_000),
    ("hex(size=7)", "hex", 7, None),
)
#: (our game, OpenSpiel game or None, target ratio or absolute sims/s)
SEARCH_CASES = (
    ("hex(size=11)", "hex(board_size=11)", ("ratio", 10.0)),
    ("hex(size=7)", "hex(board_size=7)", ("ratio", 10.0)),
    ("nogo(size=9)", None, ("absolute", 150_000)),
    ("go(size=9)", "go(board_size=9)", ("ratio", 5.0)),
)


def _target_text(target) -> str | None:
    if target is None:
        return None
    kind, value = target
    return {"ratio": f">= {value:g}x ref", "max": f"<= {value:,.0f}"}.get(kind, f">= {value:,.0f}")


def run_all(seconds: float = 2.0, sims: int = 10_000, memory_sims: int = 100_000) -> list[dict]:
    """Every benchmark with its same-run reference; one row each.

    Rows: ``what``, ``ours``, ``reference`` (None when not measurable here), ``ratio``,
    ``target`` and ``meets`` (None when there is no target). Playouts are compared with the careful
    C references, searches with OpenSpiel's C++ ``MCTSBot`` (if installed), bytes per node with
    OpenSpiel's ``SearchNode``.
    """
    from mctslab.errors import MctslabError
    from mctslab.games import load_game
    from mctslab.harness import references

    rows = []

    def row(what, ours, ref, target, unit):
        ratio = ours / ref if ref else None
        if target is None:
            meets = None
        elif target[0] == "ratio":
            meets = None if ratio is None else ratio >= target[1]
        elif target[0] == "max":
            meets = ours <= target[1]
        else:
            meets = ours >= target[1]
        rows.append(
            {
                "what": what,
                "unit": unit,
                "ours": ours,
                "reference": ref,
                "ratio": ratio,
                "target": _target_text(target),
                "meets": meets,
            }
        )

    for spec, cname, size, target in PLAYOUT_CASES:
        ours = playouts(load_game(spec), seconds=seconds)["playouts_per_second"]
        try:
            ref = references.c_playouts(cname, size, seconds)["playouts_per_second"]
        except MctslabError:
            ref = None
        row(f"random playouts {spec}", ours, ref, target and ("absolute", target), "playouts/s")
    for spec, os_game, target in SEARCH_CASES:
        ours = search(load_game(spec), f"mcts(sims={sims})")["sims_per_second"]
        ref = None
        if os_game is not None:
            try:
                ref = references.openspiel_search(os_game, sims)["sims_per_second"]
            except MctslabError:
                ref = None
        row(f"UCT {sims} sims {spec}", ours, ref, target, "sims/s")
    big = search(load_game("hex(size=11)"), f"mcts(sims={memory_sims})")
    row(
        f"bytes per node, UCT {memory_sims} sims hex(size=11)",
        big["bytes_per_node"],
        references.SEARCH_NODE_BYTES,
        ("max", 24),
        "bytes",
    )
    return rows
