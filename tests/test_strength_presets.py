"""The strong preset against plain UCT at equal simulations on small boards: fast enough for
the main suite and decisive (the Wilson 95% lower bound of the strong preset's score is above
50%), so a change that breaks the strength of a game's default fails CI. Seeds are fixed, so
each match is the same games at every run. The equal-time evidence at full size is in
docs/strength.md."""

import pytest

from test_policies_strength import match


@pytest.mark.parametrize(
    "game_spec, games",
    [("nogo(size=5)", 100), ("hex(size=5)", 60), ("go(size=5)", 200)],
)
def test_the_strong_preset_beats_plain_uct_at_equal_simulations(game_spec, games):
    _, lo, _ = match(game_spec, "mcts(preset=strong,sims=200)", "mcts(sims=200)", games)
    assert lo > 0.5
