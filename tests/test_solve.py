"""The generic exhaustive solver (solve_template) against Nim's theory and its own key modes."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.games import nim_kernels, nogo_kernels
from mctslab.kernels import codegen
from mctslab.search import solve_template


@pytest.fixture(scope="module")
def nim_solver():
    return codegen.specialize(solve_template, nim_kernels)


def _nim(n: int, k: int, coin: bool = False):
    g = mctslab.load_game(f"nim(n={n},k={k},coin={str(coin).lower()})")
    return g, g.new_initial_state().array


@pytest.mark.parametrize("mode", [solve_template.KEY_NONE, solve_template.KEY_STATE])
def test_nim_values_follow_theory(nim_solver, mode):
    for k in (2, 3, 4):
        for n in range(1, 15 if mode == solve_template.KEY_NONE else 40):
            g, root = _nim(n, k)
            for player in (0, 1):
                value, nodes = nim_solver.solve_value(
                    g.consts, root, player, k, g.spec.max_game_length, mode=mode
                )
                mover_wins = n % (k + 1) != 0
                assert value == (1.0 if mover_wins == (player == 0) else -1.0), (n, k, player)
                assert nodes >= 1


def test_table_saves_work(nim_solver):
    g, root = _nim(14, 3)
    _, plain = nim_solver.solve_value(g.consts, root, 0, 3, 14, mode=solve_template.KEY_NONE)
    _, keyed = nim_solver.solve_value(g.consts, root, 0, 3, 14, mode=solve_template.KEY_STATE)
    assert keyed * 10 < plain


def test_nim_move_values(nim_solver):
    for n in (5, 9, 10, 12):
        g, root = _nim(n, 3)
        got = nim_solver.solve_moves(g.consts, root, 3, n, mode=solve_template.KEY_STATE)
        # action a takes a+1 counters; the move wins iff it leaves a multiple of 4
        assert got == {a: 1.0 if (n - a - 1) % 4 == 0 else -1.0 for a in range(min(3, n))}


def test_refuses_chance_and_reports_budget(nim_solver):
    g, root = _nim(6, 2, coin=True)
    with pytest.raises(ValueError, match="chance"):
        nim_solver.solve_value(g.consts, root, 0, 2, g.spec.max_game_length, mode=0)
    g, root = _nim(30, 3)
    with pytest.raises(RuntimeError, match="nodes"):
        nim_solver.solve_value(g.consts, root, 0, 3, 30, mode=0, max_nodes=1000)


def test_terminal_root_gives_returns():
    solver = codegen.specialize(solve_template, nogo_kernels)
    g = mctslab.load_game("nogo(size=3)")
    state = g.state_from_ascii(". X .\nX . X\n. X .", to_move="O")
    for player, expected in ((0, 1.0), (1, -1.0)):
        value, nodes = solver.solve_value(g.consts, state.array, player, 9, 9)
        assert (value, nodes) == (expected, 1)


def test_move_keys_agree_with_no_keys_on_nogo():
    solver = codegen.specialize(solve_template, nogo_kernels)
    g = mctslab.load_game("nogo(size=3)")
    root = g.new_initial_state().array
    for mode in (solve_template.KEY_NONE, solve_template.KEY_MOVES):
        moves = solver.solve_moves(g.consts, root, 9, 9, mode=mode)
        assert moves == dict.fromkeys(range(9), 1.0)
