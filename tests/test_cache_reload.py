"""Compiled code loads from Numba's on-disk cache in a fresh process without crashing.

Numba's cache can load some compiled functions into a crash (recursive functions: numba issue
#6061; the 2048 expectimax agent was one, found by a segfault in the test suite). Here a fresh
cache folder is filled by one process and read by a second, which must play the same moves.
The UCT kernels take typed records (``typing.NamedTuple``, :mod:`mctslab.search.records`): the
second process must load every one of them from the cache, none compiled again.
"""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import sys

import mctslab
from mctslab.agents import make_agent

moves = []
for game_spec, agent_spec in [
    ("2048", "expectimax(depth=2)"),
    ("2048", "mdp(d=2,sims=50)"),
    ("nim(n=30,k=3,coin=true)", "mcts(sims=200,chance=expanded,exact=100)"),
    ("hex(size=4)", "mcts(sims=200,rave=paper,lgrf=true,pool=2,qbr=true,decisive=true)"),
    ("nim(n=20,k=3)", "mcts(sims=200,playout=strategic,formula=ucb1tuned)"),
    ("hex(size=4)", "flat(sims=50)"),
]:
    game = mctslab.load_game(game_spec)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    moves.append(make_agent(agent_spec, game, seed=3).step(state))
print(moves)
from mctslab.kernels import cache

print("build", cache.compiled_dir(), file=sys.stderr)
# the record-taking kernels of the generated per-game modules: (loaded, compiled) signatures
for name, module in sorted(sys.modules.items()):
    if name.startswith("mctslab_generated.") and ("uct_template" in name or "flat_t" in name):
        f = module.uct if hasattr(module, "uct") else module.flat
        hits, misses = sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())
        print("kernel", name.split(".")[1][:40], hits, misses, file=sys.stderr)
"""


def test_agents_reload_from_a_warm_cache(tmp_path):
    env = dict(os.environ, MCTSLAB_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600
        )
        for _ in range(2)
    ]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
    builds = [[line for line in r.stderr.splitlines() if line.startswith("build ")] for r in runs]
    if builds[0] != builds[1]:  # the sources changed between the runs (someone edited them)
        pytest.skip(f"compiled-code folder changed between the two runs: {builds}")
    kernels = [[line.split() for line in r.stderr.splitlines() if line.startswith("kernel ")]
               for r in runs]  # fmt: skip
    assert len(kernels[1]) == 3, kernels  # uct for Nim and Hex, flat for Hex
    assert all(int(k[3]) > 0 for k in kernels[0])  # the first process compiled them
    assert all(int(k[2]) > 0 and int(k[3]) == 0 for k in kernels[1]), kernels[1]
