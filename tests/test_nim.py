"""Nim and Nim with a coin: rules, theory, and the dynamic-programming oracle."""

from functools import cache

import pytest

import mctslab
from mctslab.errors import IllegalMoveError


def test_initial_state_and_moves():
    game = mctslab.load_game("nim(n=7,k=3)")
    s = game.new_initial_state()
    assert s.current_player() == 0
    assert s.legal_actions() == [0, 1, 2]
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["1", "2", "3"]
    s.apply_action(2)  # take 3
    assert s.current_player() == 1 and "(4)" in str(s)
    s.apply_move("3")
    assert s.legal_actions() == [0]  # one counter left
    s.apply_action(0)
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    assert s.legal_actions() == []


def test_illegal_moves_are_refused_and_nothing_changes():
    s = mctslab.load_game("nim(n=2,k=3)").new_initial_state()
    before = s.array.copy()
    with pytest.raises(IllegalMoveError, match="legal moves: 1, 2"):
        s.apply_action(2)
    with pytest.raises(IllegalMoveError, match="from 1 to 3"):
        s.string_to_action("four")
    assert (s.array == before).all() and s.history == []


def _solve(game_spec: str) -> dict:
    """Exhaustive negamax over the wrapper: value for the player to move from each count."""
    game = mctslab.load_game(game_spec)

    @cache
    def value(n: int) -> int:
        s = game.new_initial_state()
        s.array[0] = n
        return max(-value(n - a - 1) if n - a - 1 > 0 else 1 for a in s.legal_actions())

    return {n: value(n) for n in range(1, game.params.n + 1)}


def test_theory_mover_loses_iff_multiple_of_k_plus_1():
    for k in (1, 2, 3, 5):
        values = _solve(f"nim(n=40,k={k})")
        for n, v in values.items():
            assert (v < 0) == (n % (k + 1) == 0), (k, n)


def coin_nim_values(n_max: int, k: int) -> dict[int, float]:
    """Exact expected return for the player to move in coin Nim (dynamic programming).

    V(0) is never asked (game over). After taking j from n, m = n - j: if m == 0 the mover wins;
    otherwise tails (1/2) -> opponent faces m; heads (1/2) -> m - 1, mover wins if that is 0.
    """
    v: dict[int, float] = {}
    for n in range(1, n_max + 1):
        best = -1.0
        for j in range(1, min(k, n) + 1):
            m = n - j
            if m == 0:
                q = 1.0
            else:
                heads = 1.0 if m - 1 == 0 else -v[m - 1]
                q = 0.5 * -v[m] + 0.5 * heads
            best = max(best, q)
        v[n] = best
    return v


def test_coin_nim_chance_and_dp_oracle_agree_with_the_kernels():
    """The DP oracle equals an exhaustive expectimax over the compiled kernels."""
    game = mctslab.load_game("nim(n=12,k=3,coin=true)")
    oracle = coin_nim_values(12, 3)

    def expectimax(state) -> float:  # value for player 0
        if state.is_terminal():
            return state.returns()[0]
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
            total = 0.0
            for o, p in outcomes:
                child = state.clone()
                child.apply_action(o)
                total += p * expectimax(child)
            return total
        vals = []
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            vals.append(expectimax(child))
        return max(vals) if state.current_player() == 0 else min(vals)

    for n in range(1, 13):
        s = game.new_initial_state()
        s.array[0] = n
        assert expectimax(s) == pytest.approx(oracle[n]), n


def test_coin_can_take_the_last_counter_and_the_flipper_wins():
    s = mctslab.load_game("nim(n=3,k=3,coin=true)").new_initial_state()
    s.apply_action(1)  # player 0 takes 2, one left
    assert s.is_chance_node() and s.legal_actions() == []
    assert [o for o, _ in s.chance_outcomes()] == [0, 1]
    s.apply_action(1)  # heads: the coin takes the last counter
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
