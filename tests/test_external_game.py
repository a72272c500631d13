"""A game defined outside the package plugs into everything (docs/adding-a-game.md).

The two files of the built-in Connect Four are copied into a temporary folder under another name
(``c4ext``), imported from there, registered, and run through the same checks as the built-in
games, the compiled contract loop (code generation for a kernels module outside the package) and
the compiled search.
"""

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.games import generic_template, registry
from mctslab.kernels import codegen
from mctslab.kernels.rng import seed_state
from test_conformance import random_game

GAMES = Path(mctslab.__file__).parent / "games"


@pytest.fixture(scope="module")
def c4ext(tmp_path_factory):
    folder = tmp_path_factory.mktemp("external")
    kernels = (GAMES / "connect_four_kernels.py").read_text()
    wrapper = (GAMES / "connect_four.py").read_text()
    wrapper = wrapper.replace(
        "from mctslab.games import connect_four_kernels as k", "import c4ext_kernels as k"
    ).replace('NAME = "connect_four"', 'NAME = "c4ext"')
    wrapper = wrapper.replace('("connect_four", "connect_four(', '("c4ext", "c4ext(')
    assert "import c4ext_kernels" in wrapper and 'NAME = "c4ext"' in wrapper
    (folder / "c4ext_kernels.py").write_text(kernels)
    (folder / "c4ext.py").write_text(wrapper)
    sys.path.insert(0, str(folder))
    try:
        import c4ext

        yield c4ext
    finally:
        sys.path.remove(str(folder))
        registry._REGISTRY.pop("c4ext", None)


def test_an_external_game_is_registered_and_plays(c4ext):
    assert "c4ext" in mctslab.registered_games()
    rnd = random.Random(3)
    for spec in c4ext.ConnectFour.EXAMPLE_SPECS:
        game = mctslab.load_game(spec)
        for _ in range(20):
            random_game(game, rnd)


def test_its_compiled_contract_loop_agrees_with_the_wrapper(c4ext):
    game = mctslab.load_game("c4ext")
    kern = codegen.specialize(generic_template, game.kernels)
    moves = np.empty(2 * game.spec.max_game_length + 2, np.int32)
    out = np.zeros(2)
    state = game.new_initial_state()
    n, _ = kern.contract_random_game(
        game.consts, state.array, seed_state(1),
        np.empty(game.spec.num_distinct_actions, np.int32), np.empty(1, np.int32), moves, out,
    )  # fmt: skip
    replay = game.new_initial_state()
    for i in range(n):
        replay.apply_action(int(moves[2 * i + 1]))
    assert replay.is_terminal() and replay.returns() == list(out)


def test_the_compiled_search_runs_on_it(c4ext):
    game = mctslab.load_game("c4ext")
    agent = make_agent("mcts(sims=2000)", game, seed=0)
    s = game.new_initial_state()
    for c in "17171":  # X threatens column 1; O must block
        s.apply_move(c)
    assert agent.step(s) == 0
