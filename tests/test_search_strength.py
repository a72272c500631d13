"""UCT beats a random player (slow: whole games)."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.arena import play_game
from mctslab.harness.stats import wilson_interval


@pytest.mark.slow
@pytest.mark.parametrize("game_spec", ["hex(size=5)", "nogo(size=5)"])
def test_uct_beats_random(game_spec):
    game = mctslab.load_game(game_spec)
    games, score = 40, 0.0
    for g in range(games):
        seat = g % 2  # UCT plays each colour half the time
        uct = make_agent("mcts(sims=2000)", game, seed=g)
        rnd = make_agent("random", game, seed=1000 + g)
        agents = [uct, rnd] if seat == 0 else [rnd, uct]
        returns = play_game(game, agents, rng_seed=g).returns
        score += 0.5 + 0.5 * (returns[seat] - returns[1 - seat]) / 2
    assert wilson_interval(score, games)[0] > 0.5
