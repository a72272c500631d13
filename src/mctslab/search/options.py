"""The options of a UCT-family search (:class:`UctConfig`), as the search itself takes them.

The spec-string model of ``mcts(...)`` (:mod:`mctslab.agents.mcts`) and this record are to be
generated from one declaration per option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Formula = Literal["slides", "paper", "book", "ucb1tuned"]
RaveSchedule = Literal["off", "paper", "gelly_silver", "article"]

#: The default exploration constant of each formula, for win values in [0, 1]:
#: ``slides`` 0.7 ≈ 1/sqrt(2), the constant of Kocsis and Szepesvári's analysis (its bonus
#: 0.7 sqrt(2 ln N/n) ≈ sqrt(ln N/n)); ``book`` 1.0, the same bonus; ``paper`` 0.4, the NoGo
#: paper's best C against C = 0 at 2,000 simulations per move (its Table in section 3.4);
#: ``ucb1tuned`` 1.0 as in Auer et al. (2002), where the variance term already scales the bonus.
DEFAULT_C = {"slides": 0.7, "book": 1.0, "paper": 0.4, "ucb1tuned": 1.0}


@dataclass(frozen=True)
class UctConfig:
    """One UCT-family search. See :func:`mctslab.search.uct_template.uct` for every formula.

    ``final`` picks the move played once the search ends, among the root's children (a child
    proven lost is never picked while another is not; a proven win is always picked; once every
    child is solved, the best exact value is picked, ties by this rule):

    * ``robust``: the most visits (the "robust child"); ties go to the better mean.
    * ``mean``: the best mean win value among visited children (the slides' greedy policy
      ``argmax Q(s0, a)``, the "max child"); ties go to more visits.
    * ``ratio``: the Nim report's rule, the best #wins / #playouts. Statistics here are win
      values with a draw counted as half a win, so this is the ``mean`` rule; the name is kept
      so that the report's agent can be spelled as it describes itself.

    ``transpositions`` gives MCTS-Solver its table of solved positions
    (:mod:`mctslab.search.transpositions`), sized from the memory cap: the power of two at or
    above ``max_nodes / 2`` slots, 16 bytes each (8 to 16 bytes per node of ``max_nodes`` beside
    the tree's 21; 16.8 MB for the default 2,000,000, paged in only where used). It is kept
    across searches (with or without tree reuse: a proven position stays proven) until
    :meth:`Uct.reset`. Off, the solver is the tree-only one of Winands et al. (2008); there is
    no agent key for that, it is there to measure the table.
    """

    c: float = 0.7
    formula: Formula = "slides"
    z: int = 1
    expand_all: bool = True
    solver: bool = True
    leaf: Literal["playout", "coin"] = "playout"
    final: Literal["robust", "mean", "ratio"] = "robust"
    reuse: bool = True
    max_nodes: int = 2_000_000
    transpositions: bool = True
    #: RAVE/AMAF schedule (:func:`template.rave_beta`) and its constants K and b
    rave: RaveSchedule = "off"
    rave_k: float = 300.0
    rave_b: float = 0.1
    #: base playout policy (a key of :data:`mctslab.search.playouts.common.BASE_NAMES`)
    playout: str = "uniform"
    decisive: bool = False
    antidecisive: bool = False
    lgrf: bool = False
    #: PoolRAVE: pool size per player (0 off) and the probability of trying a pool move
    pool: int = 0
    pool_p: float = 0.5
    #: Quality-Based Rewards, with the bonus weight a and the sigmoid's k
    qbr: bool = False
    qbr_a: float = 0.25
    qbr_k: float = 1.4
    #: chance events: ``sampled`` chance nodes in the tree, ``expanded`` ones (outcomes visited
    #: in proportion to their probabilities, probability-weighted values), or left to the
    #: ``playout`` (:func:`template.uct`)
    chance: Literal["sampled", "expanded", "playout"] = "sampled"
    #: node budget of the exact search (expectimax) tried where the tree grows, 0 off; needs
    #: the solver (:func:`template.exact_search`)
    exact: int = 0

    @property
    def uses_policy(self) -> bool:
        """Whether playouts need the policies module's ``policy_playout``."""
        return (
            self.playout != "uniform"
            or self.decisive
            or self.antidecisive
            or self.lgrf
            or self.pool > 0
            or self.qbr
        )
