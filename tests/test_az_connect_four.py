"""The Connect Four network that ships (mctslab.models) against the solver's benchmark set:
how often ``az`` plays a move that keeps the position's game-theoretic value (issue 18's
target: >= 95% of the 1,000 positions at 200 simulations; a random move keeps it in about 36%).
The fast test plays a small search on the first positions; the slow test is the target."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.harness import connect_four_positions as c4
from mctslab.models import shipped

pytest.importorskip("torch")
GAME = mctslab.load_game("connect_four")


def test_a_connect_four_network_ships_with_its_card():
    model = shipped(GAME.spec.spec_string)
    assert model is not None and model.path.stat().st_size < 5_000_000
    assert model.card["network"]["blocks"] >= 1 and model.card["evaluation"]


def test_the_shipped_network_with_a_small_search_keeps_the_value():
    """50 simulations on the first 100 positions (measured 2026-12-06: 94 of 100 with the card's
    ``int8``, Wilson lower bound 87.5%, 93 in floats; the networks shipped before: 85 and 91): the
    lower bound must clear 70%, far above a random move's 36%."""
    score = c4.keep_rate(make_agent("az(sims=50)", GAME, seed=0), c4.load()[:100])
    assert score["wilson_low"] > 0.70, score


@pytest.mark.slow
def test_the_shipped_network_keeps_the_value_in_95_percent_at_200_simulations():
    """Measured 2026-12-06 with the card's ``int8``: 962 of 1,000 (Wilson 95% [94.8, 97.2]); in
    floats 958, and 955 of a second 1,000 none of the snapshots was chosen on
    (docs/alphazero.md)."""
    score = c4.keep_rate(make_agent("az(sims=200)", GAME, seed=0), c4.load())
    assert score["rate"] >= 0.95, score
