"""Search-tree pictures (mctslab.interfaces.treeviz) and ``mctslab tree``."""

from __future__ import annotations

import shutil

import graphviz
import pytest
from click.testing import CliRunner

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import MctslabError, SpecError
from mctslab.interfaces import treeviz
from mctslab.interfaces.cli.main import main
from mctslab.search.budget import Budget

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")


def searched(spec="nogo(size=5)", sims=1500, moves=()):
    game = mctslab.load_game(spec)
    state = game.new_initial_state()
    for m in moves:
        state.apply_move(m)
    agent = make_agent(f"mcts(sims={sims})", game, seed=2)
    result = agent.search(state, Budget(sims=sims))
    return treeviz.require_tree(agent), state, result


def walk(node):
    yield node
    for c in node.children:
        yield from walk(c)


def test_tree_top_reads_the_most_visited_children():
    tree, state, result = searched()
    top = treeviz.tree_top(tree, state, depth=2, width=3)
    assert top.visits == result.simulations == 1500
    assert top.move == "Black (X) to move"
    by_visits = sorted(zip(result.visits, result.actions, strict=True), reverse=True)
    assert [c.visits for c in top.children] == [v for v, _ in by_visits[:3]]
    assert {c.move for c in top.children} == {state.action_to_string(a) for _, a in by_visits[:3]}
    assert top.hidden == len(result.actions) - 3
    assert top.hidden_visits + sum(c.visits for c in top.children) == sum(result.visits)
    for c in top.children:
        assert len(c.children) <= 3
        assert all(g.children == [] for g in c.children)  # depth 2 stops here
        # a child's visits are its own first visit plus its children's
        assert c.visits >= sum(g.visits for g in c.children) + c.hidden_visits
        # second-level moves are White's: legal after the first move
        after = state.clone()
        after.apply_move(c.move)
        for g in c.children:
            assert after.string_to_action(g.move) in after.legal_actions()


def test_tree_top_depth_zero_and_bad_arguments():
    tree, state, _ = searched(sims=200)
    top = treeviz.tree_top(tree, state, depth=0, width=4)
    assert top.children == [] and top.hidden_visits == sum(tree.visits[i] for i in tree.children(0))
    with pytest.raises(SpecError, match="depth"):
        treeviz.tree_top(tree, state, depth=-1)
    with pytest.raises(SpecError, match="width"):
        treeviz.tree_top(tree, state, width=0)


def test_dot_source_has_a_node_per_shown_move():
    tree, state, _ = searched(spec="hex(size=4)", sims=600)
    top = treeviz.tree_top(tree, state, depth=2, width=2)
    dot = treeviz.to_dot(top, "a title")
    nodes = list(walk(top))
    assert dot.startswith("digraph")
    for n in nodes[1:]:
        assert f"N={n.visits:,}" in dot and f"Q={n.value:.2f}" in dot
    assert dot.count("->") == len(nodes) - 1 + sum(1 for n in nodes if n.hidden and n.children)
    assert "a title" in dot


def test_proven_nodes_are_labelled():
    # 3x3 NoGo is a first-player win: enough simulations prove the root's best move
    tree, state, result = searched(spec="nogo(size=3)", sims=20000)
    assert result.proven == 1
    dot = treeviz.to_dot(treeviz.tree_top(tree, state, depth=1, width=9))
    assert "proven win" in dot


def test_an_agent_without_a_tree_is_refused():
    game = mctslab.load_game("nim(n=9)")
    with pytest.raises(SpecError, match="keeps no search tree"):
        treeviz.require_tree(make_agent("flat(sims=10)", game, 1))


@needs_dot
def test_svg_is_laid_out_by_dot():
    tree, state, _ = searched(sims=300)
    svg = treeviz.to_svg(treeviz.to_dot(treeviz.tree_top(tree, state)))
    assert "<svg" in svg and "N=300" in svg


def test_missing_dot_is_a_clear_error(monkeypatch):
    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    with pytest.raises(MctslabError, match="apt-get install graphviz"):
        treeviz.to_svg("digraph { a }")


def test_cli_tree(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["tree", "hex(size=4)", "--agent", "mcts(sims=500)", "--depth", "1"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("digraph") and "N=500" in out.output
    bad = runner.invoke(main, ["tree", "nim(n=12)", "--agent", "random"])
    assert bad.exit_code == 2 and "keeps no search tree" in bad.output
    bad = runner.invoke(main, ["tree", "nogo(size=5)", "--moves", "Z9"])
    assert bad.exit_code == 2 and "bad vertex" in bad.output
    if shutil.which("dot"):
        target = tmp_path / "t.svg"
        ok = runner.invoke(main, ["tree", "nogo(size=5)", "--svg", "-o", str(target)])
        assert ok.exit_code == 0, ok.output
        assert "<svg" in target.read_text()
