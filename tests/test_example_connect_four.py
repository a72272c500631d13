"""The worked example: a game defined outside the package plugs into everything.

Connect Four (``examples/connect_four``) is imported here, registered, and run through the same
checks as the built-in games, the compiled contract loop, and the compiled search.
"""

import random
import sys
from pathlib import Path

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.games import generic_template
from mctslab.kernels import codegen
from mctslab.kernels.rng import seed_state
from test_conformance import random_game

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "connect_four"


@pytest.fixture(scope="module")
def c4():
    sys.path.insert(0, str(EXAMPLE))
    try:
        import connect_four

        yield connect_four
    finally:
        sys.path.remove(str(EXAMPLE))


def play(state, columns):
    for c in columns:
        state.apply_move(str(c))
    return state


def test_lines_in_all_four_directions_win(c4):
    game = mctslab.load_game("connect_four")
    cases = {
        "horizontal": [1, 1, 2, 2, 3, 3, 4],
        "vertical": [1, 2, 1, 2, 1, 2, 1],
        "diagonal /": [1, 2, 2, 3, 4, 3, 3, 4, 5, 4, 4],
        "diagonal \\": [7, 6, 6, 5, 4, 5, 5, 4, 3, 4, 4],
    }
    for name, cols in cases.items():
        s = play(game.new_initial_state(), cols)
        assert s.is_terminal() and s.returns() == [1.0, -1.0], (name, str(s))
    s = play(game.new_initial_state(), [1, 1, 2, 2, 3, 3])
    assert not s.is_terminal() and s.current_player() == 0


def test_full_board_without_a_line_is_a_draw(c4):
    game = mctslab.load_game("connect_four(rows=4,cols=4,connect=4)")
    s = play(game.new_initial_state(), [1, 3, 2, 3, 1, 1, 3, 4, 1, 3, 4, 4, 2, 4, 2, 2])
    assert s.is_terminal() and s.returns() == [0.0, 0.0], str(s)
    assert str(s).endswith("draw")


def test_bad_moves_and_full_columns(c4):
    s = mctslab.load_game("connect_four(rows=4,cols=4)").new_initial_state()
    with pytest.raises(mctslab.IllegalMoveError, match="from 1 to 4"):
        s.apply_move("9")
    play(s, [1, 1, 1, 1])
    assert 0 not in s.legal_actions()
    with pytest.raises(mctslab.IllegalMoveError):
        s.apply_move("1")


def test_passes_the_conformance_checks_and_the_compiled_loop_agrees(c4):
    rnd = random.Random(3)
    for spec in c4.ConnectFour.EXAMPLE_SPECS:
        game = mctslab.load_game(spec)
        for _ in range(20):
            random_game(game, rnd)
        kern = codegen.specialize(generic_template, game.kernels)
        import numpy as np

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


def test_the_compiled_search_takes_the_win_and_blocks(c4):
    game = mctslab.load_game("connect_four")
    agent = make_agent("mcts(sims=3000)", game, seed=0)
    s = play(game.new_initial_state(), [1, 7, 1, 7, 1])  # X threatens column 1; O must block
    assert agent.step(s) == 0
    s = play(game.new_initial_state(), [1, 7, 1, 7, 1, 7])  # X to move wins in column 1
    assert agent.step(s) == 0
