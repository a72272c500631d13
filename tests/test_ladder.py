"""The ladder: the Bradley–Terry fit against hand-computed cases, its intervals, the round robin's
errors, and a tiny ladder that orders its agents and resumes without replaying."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from mctslab.errors import SpecError
from mctslab.harness import ladder, schedule
from mctslab.harness.ladder import ELO_PER_THETA, LadderError, fit, run_ladder
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

NOGO5 = "nogo(size=5)"
AGENTS = ["random", "mcts(sims=50)", "mcts(sims=400)"]


def test_two_players_three_to_one_is_ln3():
    theta, se = fit(np.array([[0.0, 1.0], [3.0, 0.0]]), alpha=0.0)
    assert theta[0] == 0.0
    assert theta[1] == pytest.approx(math.log(3), abs=1e-4)
    # observed information of 4 games at p = 3/4: 4·p(1−p) = 3/4
    assert se[1] == pytest.approx(math.sqrt(4 / 3), rel=1e-3)


def test_draws_count_half_a_win():
    # 2 wins and 2 draws out of 4 for player 1: a score of 3 out of 4, as 3-1
    theta, _ = fit(np.array([[0.0, 1.0], [3.0, 0.0]]), alpha=0.0)
    assert ELO_PER_THETA * theta[1] == pytest.approx(400 * math.log10(3), abs=0.05)


def test_three_players_consistent_ratios():
    # odds A:B = 2 (2-1), B:C = 2 (2-1), A:C = 4 (4-1): θ = (0, −ln 2, −ln 4) fits every pair
    # exactly, so it is the maximum-likelihood estimate
    scores = np.array([[0, 2, 4], [1, 0, 2], [1, 1, 0]], dtype=float)
    theta, _ = fit(scores, alpha=0.0)
    assert theta == pytest.approx([0.0, -math.log(2), -math.log(4)], abs=1e-4)


def test_intervals_shrink_with_more_games():
    base = np.array([[0, 6, 8], [4, 0, 6], [2, 4, 0]], dtype=float)
    _, small = fit(base)
    _, large = fit(10 * base)
    assert all(large[1:] < small[1:])
    # Wald: ten times the games, sqrt(10) times narrower (the prior is negligible here)
    assert small[1:] / large[1:] == pytest.approx([math.sqrt(10)] * 2, rel=0.01)


def test_undefeated_agent_stays_finite():
    theta, se = fit(np.array([[0.0, 0.0], [5.0, 0.0]]))
    assert 0 < theta[1] < 50 and math.isfinite(se[1])


@pytest.mark.parametrize(
    ("agents", "games", "error", "message"),
    [
        (["random"], 2, LadderError, "at least two agents, got 1"),
        (["random", "mcts(sims=50)", "random"], 2, LadderError, "'random' is the same agent"),
        (["mcts", "mcts(sims=10000)"], 2, LadderError, "same agent as 'mcts'"),
        (["random", "mcts(bogus=1)"], 2, SpecError, "bogus"),
        (["random", "mcts"], 0, LadderError, "at least 1 game per pair"),
    ],
)
def test_bad_ladders_fail_before_any_game(monkeypatch, agents, games, error, message):
    monkeypatch.setattr(ladder, "run_match", lambda *a, **k: pytest.fail("a game was played"))
    with pytest.raises(error, match=message):
        run_ladder(NOGO5, agents, games)


def test_tiny_ladder_orders_agents_and_resumes(tmp_path, monkeypatch):
    db = tmp_path / "ladder.sqlite"
    with ResultsStore(db) as store:
        result = run_ladder(NOGO5, AGENTS, 8, seed=1, store=store)
    elo = [r.elo for r in result.ratings]
    assert elo[0] == 0.0 and elo[0] < elo[1] < elo[2], elo
    assert [r.games for r in result.ratings] == [16, 16, 16]
    assert result.scores[0][1] + result.scores[1][0] == 8
    assert sum(r.score for r in result.ratings) == 24  # every game gives out one point
    assert result.resumed_games == 0
    with ResultsStore(db) as store:
        assert store.game_count() == 24
        assert len(store.runs()) == 3
    # the same ladder again: every game comes from the database, none is played
    monkeypatch.setattr(schedule, "play_task", lambda t: pytest.fail(f"replayed game {t}"))
    runner = CliRunner()
    res = runner.invoke(
        main, ["ladder", NOGO5, *AGENTS, "--games", "8", "--seed", "1", "--db", str(db), "--json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["resumed_games"] == 24
    assert [r["elo"] for r in out["ratings"]] == pytest.approx(elo)
    assert out["scores"] == result.scores and out["games_per_pair"] == 8
    assert out["given"] == AGENTS and out["agents"][1].startswith("mcts(sims=50,")


def test_cli_ladder_errors_are_one_line():
    runner = CliRunner()
    res = runner.invoke(main, ["ladder", NOGO5, "random"])
    assert res.exit_code == 2
    assert res.output.strip() == "error: a ladder needs at least two agents, got 1"
    res = runner.invoke(main, ["ladder", NOGO5, "random", "mcts", "--games", "0"])
    assert res.exit_code == 2 and "--games': 0 is not in the range 1<=x" in res.output
