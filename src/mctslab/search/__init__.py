"""Compiled Monte-Carlo searches: the UCT family (with slow node creation, MCTS-Solver, tree
reuse, budgets) and flat Monte Carlo. Agents (:mod:`mctslab.agents`) wrap them."""

from mctslab.search.flat import Flat
from mctslab.search.options import DEFAULT_C, UctConfig
from mctslab.search.parallel import RootParallel
from mctslab.search.result import SearchResult
from mctslab.search.tree import (
    NO_CHILD,
    NO_PARENT,
    PROVEN_EXACT,
    PROVEN_LOSS,
    PROVEN_WIN,
    ROOT,
    UNPROVEN,
    Tree,
)
from mctslab.search.uct import Uct

__all__ = [
    "DEFAULT_C",
    "NO_CHILD",
    "NO_PARENT",
    "PROVEN_EXACT",
    "PROVEN_LOSS",
    "PROVEN_WIN",
    "ROOT",
    "UNPROVEN",
    "Flat",
    "RootParallel",
    "SearchResult",
    "Tree",
    "Uct",
    "UctConfig",
]
