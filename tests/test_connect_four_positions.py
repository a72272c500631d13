"""The shipped Connect Four benchmark set: solved positions in which some move loses value."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.harness import connect_four_positions as c4

bitbully = pytest.importorskip("bitbully")


@pytest.fixture(scope="module")
def positions():
    return c4.load()


def test_the_set_has_1000_distinct_positions_where_some_move_loses_value(positions):
    game = mctslab.load_game("connect_four")
    assert len(positions) == 1000
    boards = set()
    for p in positions:
        state = game.new_initial_state()
        for m in p.moves:
            state.apply_action(m)
        legal = set(state.legal_actions())
        assert not state.is_terminal() and p.keeping and p.keeping < legal, p.line()
        assert p.value in (0, 1)  # a lost position has no move that loses value
        boards.add(state.array.tobytes())
    assert len(boards) == 1000


def test_a_sample_of_the_set_solves_again_to_the_same_values(positions):
    solver = bitbully.BitBully()
    for p in positions[::40]:
        values = c4.solve(solver, bitbully.Board.from_moves(list(p.moves)))
        best = max(values.values())
        assert best == p.value, p.line()
        assert {c for c, v in values.items() if v == best} == p.keeping, p.line()


def test_the_generator_rebuilds_the_start_of_the_shipped_set(positions):
    assert c4.generate(3, seed=0) == positions[:3]


def test_board_ids_name_boards_whatever_the_move_order():
    ids = [c4.board_id(c4.SolvedPosition(moves, 1, frozenset({3}))) for moves in
           [(0, 1, 2), (2, 1, 0), (0, 1), (1, 0)]]  # fmt: skip
    assert ids[0] == ids[1] and ids[2] != ids[3]


def test_a_second_set_leaves_out_the_boards_it_is_given(positions):
    first = {c4.board_id(p) for p in positions[:20]}
    second = c4.generate(20, seed=0, exclude=first)
    assert len(second) == 20 and not first & {c4.board_id(p) for p in second}


def test_keep_rate_counts_value_keeping_moves(positions):
    game = mctslab.load_game("connect_four")
    sample = positions[:60]
    searched = c4.keep_rate(make_agent("mcts(sims=2000)", game, seed=1), sample)
    random = c4.keep_rate(make_agent("random", game, seed=1), sample)
    assert searched["positions"] == 60 and 0 <= searched["kept"] <= 60
    assert searched["wilson_low"] <= searched["rate"] <= searched["wilson_high"]
    assert searched["kept"] > random["kept"]
