"""What every search returns (the budget loop is :mod:`mctslab.search.budget`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mctslab.games.base import Game, State


@dataclass
class SearchResult:
    """The outcome and statistics of one search from one position.

    Values are mean win values (1 win, 0.5 draw, 0 loss) for the player to move at the root.
    """

    #: the chosen action
    action: int
    #: the root's moves, ascending, with their visit counts and mean win values
    actions: list[int] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    #: principal variation: from the root, the most-visited child at each step (actions)
    pv: list[int] = field(default_factory=list)
    #: simulations run by this search (not counting those inherited through tree reuse)
    simulations: int = 0
    elapsed: float = 0.0
    sims_per_second: float = 0.0
    #: nodes in the tree, and pool slots reserved (they differ with one child per simulation,
    #: where a node's children block is reserved at once but its children are created one by one)
    nodes: int = 0
    slots: int = 0
    #: memory of the tree: slots × bytes_per_node
    bytes: int = 0
    bytes_per_node: int = 0
    #: depth in the tree at which the simulations of this search left it (the root is depth 0)
    depth_mean: float = 0.0
    depth_median: float = 0.0
    depth_max: int = 0
    #: mean win value of the chosen move (the Nim report's "convincity")
    win_ratio: float = 0.0
    #: nodes kept from the previous search's tree / nodes it had (0 when the tree is new)
    reused_fraction: float = 0.0
    #: MCTS-Solver's verdict for the player to move: 1 proven win, -1 proven loss, 2 every
    #: move's exact value known (a draw or an expectation over chance events), 0 unknown
    proven: int = 0
    #: the root's exact win value for the player to move when ``proven`` is not 0, else None
    solved_value: float | None = None
    #: positions in MCTS-Solver's transposition table (proven; kept across searches until reset)
    proven_positions: int = 0
    #: AlphaZero searches: the network's prior of each root move (beside ``actions``) and its
    #: value of the root for the player to move (in [-1, 1]); empty and None for other searches
    priors: list[float] = field(default_factory=list)
    network_value: float | None = None


def first_decision_state(game: Game) -> State | None:
    """The game's first position with a player to move (chance resolved by its first outcome),
    or None if the game ends before; searches warm their kernels up on it."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return None if state.is_terminal() else state


def depth_summary(hist: np.ndarray) -> tuple[float, float, int]:
    """Mean, median and maximum of the depths counted in ``hist`` (``hist[d]`` simulations left
    the tree at depth ``d``)."""
    total = int(hist.sum())
    if total == 0:
        return 0.0, 0.0, 0
    depths = np.arange(hist.shape[0])
    mean = float((depths * hist).sum() / total)
    cum = np.cumsum(hist)
    lo = int(np.searchsorted(cum, (total + 1) // 2))  # the lower and upper middle elements
    hi = int(np.searchsorted(cum, total // 2 + 1))
    return mean, (lo + hi) / 2.0, int(np.flatnonzero(hist)[-1])
