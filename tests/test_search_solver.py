"""MCTS-Solver against Nim's theory: the mover loses iff n % (k+1) == 0."""

import pytest

import mctslab
from mctslab.agents import make_agent


def nim_search(n: int, spec: str):
    game = mctslab.load_game(f"nim(n={n},k=3)")
    return make_agent(spec, game, seed=n).search(game.new_initial_state())


def test_takes_an_immediate_win_and_stops():
    r = nim_search(3, "mcts(sims=100000)")
    assert r.action == 2 and r.proven == 1 and r.simulations < 50


@pytest.mark.parametrize("n", range(1, 13))
def test_small_nim_is_proven_both_ways(n):
    r = nim_search(n, "mcts(sims=100000)")
    if n % 4 == 0:
        assert r.proven == -1
    else:
        assert r.proven == 1 and (n - (r.action + 1)) % 4 == 0
    assert r.simulations < 100000


def test_without_solver_the_search_runs_its_budget():
    r = nim_search(3, "mcts(sims=500,solver=false)")
    assert r.proven == 0 and r.simulations == 500 and r.action == 2


@pytest.mark.parametrize("n", [n for n in range(13, 22) if n % 4])
def test_plays_the_winning_move_in_nim(n):
    assert (n - (nim_search(n, "mcts(sims=20000)").action + 1)) % 4 == 0


@pytest.mark.slow
@pytest.mark.parametrize("n", [n for n in range(22, 31) if n % 4])
def test_proves_nim_up_to_30(n):
    """Without transpositions the proof tree grows like 3^(n/4): n = 30 takes ~2M simulations."""
    r = nim_search(n, "mcts(sims=4000000,max_nodes=20000000)")
    assert r.proven == 1 and (n - (r.action + 1)) % 4 == 0
