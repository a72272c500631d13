"""The top of a search tree as a picture, like Figure 9.4 of *Algorithms for Decision Making*.

:func:`tree_top` reads the first levels of a UCT tree (the ``width`` most visited children of
every shown node, down to ``depth``), :func:`to_dot` writes it as Graphviz DOT, and :func:`to_svg`
lays it out with Graphviz's ``dot`` program (Debian package ``graphviz``). Each node shows the move
that leads to it, its visit count ``N`` and its mean win value ``Q`` for the player who made that
move, filled with the heat-map colour of ``Q`` (:func:`mctslab.interfaces.render.heat_colour`);
edges are as
thick as their share of the parent's visits. The children not shown are summed in one grey node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import graphviz

from mctslab.agents import Agent
from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import State
from mctslab.interfaces.render import heat_colour
from mctslab.search import PROVEN_EXACT, PROVEN_LOSS, PROVEN_WIN, ROOT, Tree


@dataclass
class TreeNode:
    """One shown node: ``value`` is for the player who moved into it (unused at the root)."""

    move: str
    visits: int
    value: float
    proven: int = 0
    children: list[TreeNode] = field(default_factory=list)
    #: children not shown (beyond ``width``, or unvisited) and their visits
    hidden: int = 0
    hidden_visits: int = 0


def search_tree(agent: Agent) -> Tree | None:
    """The agent's own search tree, the one its searches grow (for root-parallel search the first
    worker's, :attr:`mctslab.search.parallel.RootParallel.tree`), or None for an agent that keeps
    none (``flat``, ``random``, ``mdp``)."""
    tree = getattr(agent.searcher, "tree", None)
    return tree if isinstance(tree, Tree) else None


def require_tree(agent: Agent) -> Tree:
    """:func:`search_tree`, or :class:`SpecError` for an agent without a tree."""
    tree = search_tree(agent)
    if tree is None:
        raise SpecError(
            f"agent {agent.spec_string!r} keeps no search tree; use an mcts agent, "
            "e.g. 'mcts(sims=2000)'"
        )
    return tree


def tree_top(tree: Tree, state: State, depth: int = 2, width: int = 4) -> TreeNode:
    """The first ``depth`` levels below the root of ``tree`` (a search from ``state``), the
    ``width`` most visited children of each node."""
    if depth < 0 or width < 1:
        raise SpecError(f"tree picture: depth must be >= 0 and width >= 1, got {depth}, {width}")
    status = str(state).splitlines()[-1]  # every game's picture ends with who is to move
    root = TreeNode(move=status, visits=int(tree.visits[ROOT]), value=0.0)
    _fill(tree, ROOT, root, state.clone(), depth, width)
    return root


def _fill(tree: Tree, node: int, out: TreeNode, state: State, depth: int, width: int) -> None:
    kids = sorted(tree.children(node), key=lambda i: -int(tree.visits[i]))
    shown = [i for i in kids if tree.visits[i] > 0][:width] if depth > 0 else []
    if state.current_player() < 0:
        shown = []  # past a chance event or the end, the tree's actions are not moves
    for i in shown:
        action = int(tree.action[i])
        child = TreeNode(
            move=state.action_to_string(action),
            visits=int(tree.visits[i]),
            value=float(tree.value[i]),
            proven=int(tree.proven[i]),
        )
        out.children.append(child)
        nxt = state.clone()
        nxt.apply_action(action)
        _fill(tree, i, child, nxt, depth - 1, width)
    out.hidden = len(kids) - len(shown)
    out.hidden_visits = sum(int(tree.visits[i]) for i in kids) - sum(c.visits for c in out.children)


def _label(node: TreeNode) -> str:
    proven = {
        PROVEN_WIN: "\nproven win",
        PROVEN_LOSS: "\nproven loss",
        PROVEN_EXACT: f"\nexact {node.value:.4f}",
    }.get(node.proven, "")
    return f"{node.move}\nN={node.visits:,}\nQ={node.value:.2f}{proven}"


def to_dot(top: TreeNode, title: str = "") -> str:
    """Graphviz DOT source of a :func:`tree_top` picture."""
    g = graphviz.Digraph("search_tree")
    g.attr(rankdir="TB", labelloc="t", fontname="Helvetica", fontsize="12")
    note = "N: visits, Q: mean win value for the player who made the move"
    g.attr(label=f"{title}\n{note}" if title else note)
    g.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    g.attr("edge", arrowsize="0.6")
    counter = iter(range(1_000_000))

    def add(node: TreeNode, name: str, is_root: bool) -> None:
        if is_root:
            g.node(name, f"{node.move}\nN={node.visits:,}", fillcolor="#dfe7f5")
        else:
            g.node(name, _label(node), fillcolor=heat_colour(node.value))
        for child in node.children:
            cname = f"n{next(counter)}"
            add(child, cname, False)
            share = child.visits / max(node.visits, 1)
            g.edge(name, cname, penwidth=f"{0.6 + 5 * share:.2f}")
        if node.hidden and node.children:
            cname = f"n{next(counter)}"
            g.node(
                cname,
                f"{node.hidden} more\nN={node.hidden_visits:,}",
                fillcolor="#eeeeee",
                fontcolor="#555555",
            )
            g.edge(name, cname, style="dashed", color="#999999")

    add(top, "root", True)
    return g.source


def to_svg(dot: str) -> str:
    """Lay DOT out with Graphviz's ``dot``; a clear error if the program is not installed."""
    try:
        return graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound as exc:
        raise MctslabError(
            "drawing the tree needs Graphviz's 'dot' program: install the Debian package "
            "'graphviz' (apt-get install graphviz), or ask for --dot"
        ) from exc
