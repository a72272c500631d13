"""The arena imposes a budget through ``agent.step(state, budget)``; the agents' own budgets are
left alone."""

from __future__ import annotations

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.game import play_game
from mctslab.search.budget import Budget


def test_play_game_searches_every_move_with_the_budget_given():
    game = mctslab.load_game("nim(n=12)")
    agents = [make_agent("mcts(sims=5000)", game, 1), make_agent("mcts(sims=5000)", game, 2)]
    record = play_game(game, agents, rng_seed=0, budget=Budget(sims=40))
    sims = record.search_stats["simulations"]
    # 40 until the solver proves the position (a proven root needs no more, or none at all)
    assert sims[0] == 40 and all(0 <= s <= 40 for s in sims)
    assert all(a.budget == Budget(sims=5000) for a in agents)  # the agents' own are unchanged
    default = play_game(game, agents, rng_seed=0)
    assert max(default.search_stats["simulations"]) > 40
