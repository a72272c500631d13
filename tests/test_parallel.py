"""Root parallelisation: the merged result is the sum of the workers' own searches."""

import mctslab
from mctslab.agents import make_agent
from mctslab.search import Uct, UctConfig
from mctslab.search.budget import Budget
from mctslab.search.parallel import RootParallel


def test_root_parallel_merges_the_workers_searches():
    game = mctslab.load_game("hex(size=5)")
    state = game.new_initial_state()
    par = RootParallel(game, UctConfig(), seed=11, workers=2)
    merged = par.search(state, Budget(sims=1001))
    assert merged.simulations == 1001
    singles = [Uct(game, UctConfig(), seed=11 + 7919 * i).search(state, Budget(sims=s)) for i, s in
               enumerate((501, 500))]  # fmt: skip
    visits = {a: 0 for a in merged.actions}
    wins = {a: 0.0 for a in merged.actions}
    for r in singles:
        for a, n, v in zip(r.actions, r.visits, r.values, strict=True):
            visits[a] += n
            wins[a] += n * v
    assert merged.visits == [visits[a] for a in merged.actions]
    for a, v in zip(merged.actions, merged.values, strict=True):
        assert abs(v - wins[a] / max(1, visits[a])) < 1e-6
    best = max(merged.actions, key=lambda a: (visits[a], wins[a] / max(1, visits[a])))
    assert merged.action == best


def test_workers_key_makes_a_root_parallel_agent():
    game = mctslab.load_game("nogo(size=5)")
    agent = make_agent("mcts(sims=400,workers=2,preset=rave)", game, seed=3)
    assert "workers=2" in agent.spec_string
    result = agent.search(game.new_initial_state())
    assert result.simulations == 400 and sum(result.visits) == 400


def test_threads_become_workers_unless_the_spec_gives_them():
    game = mctslab.load_game("nogo(size=5)")
    agent = make_agent("mcts(sims=10)", game, seed=1, threads=2)
    assert agent.spec_string.startswith("mcts(sims=10,") and agent.spec_string.endswith(
        ",workers=2)"
    )
    assert isinstance(agent.searcher, RootParallel)
    assert make_agent("mcts(sims=10,workers=3)", game, threads=2).spec_string.endswith("workers=3)")
    one = make_agent("mcts(sims=10,workers=1)", game, threads=2)  # the spec's one thread wins
    assert isinstance(one.searcher, Uct) and "workers" not in one.spec_string
    assert "workers" not in make_agent("mcts(sims=10)", game, threads=1).spec_string
    assert make_agent("random", game, threads=2).spec_string == "random"  # no threads to set
    best = make_agent("best(time=0.05)", game, threads=2)  # the agent best stands for gets them
    assert best.spec_string.startswith("mcts(") and "preset=strong" in best.spec_string
    assert best.spec_string.endswith(",workers=2)") and isinstance(best.searcher, RootParallel)
