"""Statistical smoke tests of the enhancements (slow: whole games). Each prints its win rate
with the Wilson 95% interval and asserts that the lower bound is above 50%."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.arena import play_game
from mctslab.harness.stats import wilson_interval


def match(game_spec: str, spec_a: str, spec_b: str, games: int) -> tuple[float, float, float]:
    """A's score (win 1, draw 1/2) over ``games`` games, colours alternating; returns the mean
    and the Wilson 95% interval."""
    game = mctslab.load_game(game_spec)
    score = 0.0
    for g in range(games):
        seat = g % 2
        a = make_agent(spec_a, game, seed=2 * g)
        b = make_agent(spec_b, game, seed=2 * g + 1)
        agents = [a, b] if seat == 0 else [b, a]
        returns = play_game(game, agents, rng_seed=g).returns
        score += 0.5 + 0.5 * (returns[seat] - returns[1 - seat]) / 2
    lo, hi = wilson_interval(score, games)
    print(f"\n{spec_a} vs {spec_b} on {game_spec}: {score / games:.3f} [{lo:.3f}, {hi:.3f}]")
    return score / games, lo, hi


@pytest.mark.slow
def test_rave_beats_uct_7x7_nogo_1000_sims():
    # the NoGo paper, section 3.1: 64% +- 2% at 1,000 simulations per move
    _, lo, _ = match(
        "nogo(size=7)",
        "mcts(preset=rave,formula=paper,sims=1000)",
        "mcts(formula=paper,sims=1000)",
        200,
    )
    assert lo > 0.5


@pytest.mark.slow
def test_nogo_legal_only_playouts_beat_naive():
    # the NoGo paper, section 3.3: 60% +- 3% at 100 simulations, 70% at 1,000
    _, lo, _ = match("nogo(size=7)", "mcts(sims=1000)", "mcts(playout=naive,sims=1000)", 200)
    assert lo > 0.5


@pytest.mark.slow
def test_nf_beats_uniform_playouts_at_160_sims():
    # the NoGo paper, section 3.5: a - b scores 77.7% +- 4.9% at 160 simulations
    _, lo, _ = match("nogo(size=7)", "mcts(preset=nf,sims=160)", "mcts(sims=160)", 100)
    assert lo > 0.5
