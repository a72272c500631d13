"""The Nim report's greedy player is perfect play from a winning position."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import SpecError
from mctslab.harness.game import play_game


@pytest.mark.parametrize("n", range(1, 30))
def test_greedy_wins_every_winning_start_against_random(n):
    game = mctslab.load_game(f"nim(n={n},k=3)")
    record = play_game(game, [make_agent("greedy", game), make_agent("random", game, seed=n)])
    first_wins = record.returns[0] > record.returns[1]
    if n % 4:
        assert first_wins
    assert make_agent("greedy", game).step(game.new_initial_state()) + 1 == (n % 4 or 1)


def test_greedy_plays_nim_only():
    with pytest.raises(SpecError, match="Nim only"):
        make_agent("greedy", mctslab.load_game("nogo(size=5)"))
