"""Connect Four, the built-in game: its rules by hand and against a perfect solver (bitbully)."""

import random

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent

bitbully = pytest.importorskip("bitbully")


def play(state, columns):
    for c in columns:
        state.apply_move(str(c))
    return state


def test_lines_in_all_four_directions_win():
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


def test_full_board_without_a_line_is_a_draw():
    game = mctslab.load_game("connect_four(rows=4,cols=4,connect=4)")
    s = play(game.new_initial_state(), [1, 3, 2, 3, 1, 1, 3, 4, 1, 3, 4, 4, 2, 4, 2, 2])
    assert s.is_terminal() and s.returns() == [0.0, 0.0], str(s)
    assert str(s).endswith("draw")


def test_bad_moves_and_full_columns():
    s = mctslab.load_game("connect_four(rows=4,cols=4)").new_initial_state()
    with pytest.raises(mctslab.IllegalMoveError, match="from 1 to 4"):
        s.apply_move("9")
    play(s, [1, 1, 1, 1])
    assert 0 not in s.legal_actions()
    with pytest.raises(mctslab.IllegalMoveError):
        s.apply_move("1")


def test_rules_agree_with_the_solver_package_on_random_games():
    """Legal moves, the discs on the board, the end of the game and the winner, at every position
    of 200 random games, against bitbully's own board."""
    game = mctslab.load_game("connect_four")
    rnd = random.Random(11)
    ends = {"win": 0, "draw": 0}
    for _ in range(200):
        state, board = game.new_initial_state(), bitbully.Board()
        while True:
            ours = game.cells(state.array)
            theirs = np.array(board.to_array()).T  # [column][row] -> [row][column]
            assert (ours == theirs).all(), str(state)
            assert state.is_terminal() == board.is_game_over(), str(state)
            if state.is_terminal():
                break
            assert state.legal_actions() == board.legal_moves()
            move = rnd.choice(state.legal_actions())
            state.apply_action(move)
            assert board.play(move)
        winner = board.winner()
        expected = [0.0, 0.0] if winner is None else [1.0, -1.0] if winner == 1 else [-1.0, 1.0]
        assert state.returns() == expected
        ends["draw" if winner is None else "win"] += 1
    assert ends["win"] > 0


def test_the_compiled_search_takes_the_win_and_blocks():
    game = mctslab.load_game("connect_four")
    agent = make_agent("mcts(sims=3000)", game, seed=0)
    s = play(game.new_initial_state(), [1, 7, 1, 7, 1])  # X threatens column 1; O must block
    assert agent.step(s) == 0
    s = play(game.new_initial_state(), [1, 7, 1, 7, 1, 7])  # X to move wins in column 1
    assert agent.step(s) == 0
