"""UCT through chance nodes (sampled and expanded): decision and chance levels alternate as the
game says, outcomes are drawn by their probabilities, coin Nim's clearly better moves are found
(the DP oracle), chance=playout keeps the old leaf behaviour, and incompatible enhancements are
refused.
"""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import SpecError
from mctslab.interfaces.cli.g2048 import coin_nim_q
from mctslab.search import ROOT
from test_nim import coin_nim_values


def walk(game, tree, node, state, seen):
    """Check every expanded node's children against the game, recursively."""
    kids = tree.children(node)
    if not kids:
        return
    labels = [int(tree.action[i]) for i in kids]
    if state.is_chance_node():
        seen["chance"] += 1
        assert labels == [o for o, _ in state.chance_outcomes()]
    else:
        seen["decision"] += 1
        assert labels == state.legal_actions()
    for i, label in zip(kids, labels, strict=True):
        if tree.visits[i] > 0:
            child = state.clone()
            child.apply_action(label)
            walk(game, tree, i, child, seen)


@pytest.mark.parametrize("chance", ["sampled", "expanded"])
@pytest.mark.parametrize("spec", ["nim(n=30,k=3,coin=true)", "2048"])
def test_decision_and_chance_levels_follow_the_game(spec, chance):
    game = mctslab.load_game(spec)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    agent = make_agent(f"mcts(sims=3000,chance={chance})", game, seed=1)
    agent.search(state)
    seen = {"chance": 0, "decision": 0}
    walk(game, agent.searcher.tree, ROOT, state, seen)
    assert seen["chance"] >= 3 and seen["decision"] >= 3


def test_outcomes_are_sampled_by_their_probabilities():
    game = mctslab.load_game("nim(n=20,k=3,coin=true)")
    agent = make_agent("mcts(sims=20000)", game, seed=2)
    agent.search(game.new_initial_state())
    tree = agent.searcher.tree
    node = max(tree.children(ROOT), key=lambda i: int(tree.visits[i]))  # a chance node
    tails, heads = (int(tree.visits[i]) for i in tree.children(node))
    n = tails + heads
    assert n > 5000
    assert abs(heads - n / 2) < 4 * (n * 0.25) ** 0.5


def test_coin_nim_moves_with_a_clear_margin_are_dp_optimal():
    """Positions whose best move is at least 0.1 (in expected return) ahead of the others."""
    q = coin_nim_q(20, 3)  # the bench's DP (checked against the oracle below)
    checked = 0
    for n in range(1, 21):
        qs = q[n]
        best = max(qs)
        if len(qs) == 1 or sorted(qs)[-2] > best - 0.1:
            continue
        game = mctslab.load_game(f"nim(n={n},k=3,coin=true)")
        action = make_agent("mcts(sims=20000)", game, seed=n).step(game.new_initial_state())
        assert qs[action] == best, n
        checked += 1
    assert checked >= 9


def test_chance_playout_keeps_chance_out_of_the_tree():
    game = mctslab.load_game("nim(n=9,k=3,coin=true)")
    agent = make_agent("mcts(sims=2000,chance=playout)", game, seed=1)
    agent.search(game.new_initial_state())
    tree = agent.searcher.tree
    assert all(not tree.children(i) for i in tree.children(ROOT))


def test_rave_with_a_chance_tree_is_refused():
    game = mctslab.load_game("nim(n=9,k=3,coin=true)")
    with pytest.raises(SpecError, match="chance=playout"):
        make_agent("mcts(rave=paper)", game)
    make_agent("mcts(rave=paper,chance=playout,sims=100)", game, seed=1).step(
        game.new_initial_state()
    )


def test_bench_coin_nim_dp_matches_the_test_oracle_and_reports_the_share():
    import json

    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    v = coin_nim_values(30, 3)
    q = coin_nim_q(30, 3)
    assert all(max(q[n]) == pytest.approx(v[n], abs=1e-12) for n in range(1, 31))
    args = ["bench", "coin-nim", "--agent", "mcts(sims=3000)", "--max-n", "6", "--json"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["positions"] == 6 and data["optimal_share"] == 1.0 and data["wrong"] == {}
