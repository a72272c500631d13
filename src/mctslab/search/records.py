"""The typed records that the compiled search kernels take (``typing.NamedTuple``, which Numba
passes to ``@njit`` functions as tuples with named fields, and caches on disk like any argument).

A kernel reads a field by name (``params.c``, ``tree.visits``) instead of a slot of a float or
int array or a position in a long argument list. The hops from a spec string to a kernel are:
``mcts(c=0.5)`` -> the agent's pydantic model (:mod:`mctslab.agents.mcts`) -> :class:`UctConfig`
(:mod:`mctslab.search.options`) -> :class:`UctParams` (built by :mod:`mctslab.search.uct`) ->
the kernel (:func:`mctslab.search.uct_template.uct` and the enhancement kernels in
:mod:`mctslab.search.enhancements`).

Every field has one Numba type whatever the game (``int``, ``float``, ``bool``, arrays of fixed
dtypes), so a kernel compiles once per game, not once per option value. Arrays that an option
turns off have shape [0].
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Layout of ``counters`` (int64), the kernels' in-out counts: pool slots in use, the root's
# solved status for the player to move at the root (UNPROVEN, PROVEN_WIN, PROVEN_LOSS or
# PROVEN_EXACT: every move's exact value is known), transposition-table slots in use.
C_USED, C_ROOT_PROVEN, C_TT_USED = 0, 1, 2
N_COUNTERS = 3

#: QBR statistics per player (``PolicyStats.qbr[6 p ...]``): count, mean and sum of squared
#: deviations (Welford) of the lengths, then of the qualities, of the simulations that player won.
N_QSTATS = 6


class UctParams(NamedTuple):
    """The scalar parameters of one UCT search (built from :class:`UctConfig` and the game's
    spec by :class:`mctslab.search.uct.Uct`). The constants of ``formula``, ``leaf``, ``rave``
    and ``chance`` are in :mod:`mctslab.search.enhancements.selection` and
    :mod:`mctslab.search.uct_template`."""

    c: float  # exploration constant
    lo: float  # min utility: win value w = (r - lo) / span
    span: float  # max utility - min utility (1 when they are equal)
    formula: int  # selection formula (a value of selection.FORMULA_CODES)
    z: int  # visits before a node is expanded
    expand_all: bool  # every child at once (else one per simulation)
    solver: bool  # MCTS-Solver
    leaf: int  # LEAF_PLAYOUT or LEAF_COIN
    num_players: int
    num_actions: int
    max_length: int  # the game's max length (moves and chance events)
    rave: int  # RAVE schedule, RAVE_OFF for none
    rave_k: float
    rave_b: float
    prior: float  # weight of the policies' prior knowledge in new children's AMAF statistics
    policy: bool  # playouts by the policies module's policy_playout
    qbr: bool  # Quality-Based Rewards
    qbr_a: float
    qbr_k: float
    chance: int  # CHANCE_OFF (chance left to playouts), CHANCE_SAMPLED, CHANCE_EXPANDED
    num_chance: int  # the game's max number of chance outcomes
    exact: int  # node budget of the exact search where the tree grows, 0 off


class TreeArrays(NamedTuple):
    """The per-node arrays of :class:`mctslab.search.tree.Tree` (their meaning is there)."""

    first_child: np.ndarray
    num_children: np.ndarray
    action: np.ndarray
    parent: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    proven: np.ndarray
    value_sq: np.ndarray
    amaf_n: np.ndarray
    amaf_v: np.ndarray
    prob: np.ndarray
    exact: np.ndarray


class TableArrays(NamedTuple):
    """The arrays of :class:`mctslab.search.transpositions.ProvenTable`: ``keys`` (uint64),
    ``vals`` (float64), ``mult`` (uint64[2, state_size]); ``keys`` of shape [0]: no table."""

    keys: np.ndarray
    vals: np.ndarray
    mult: np.ndarray


class PlayoutParams(NamedTuple):
    """What a policies module's ``policy_playout`` is told (:mod:`mctslab.search.playouts`)."""

    base: int  # base policy id, as the game's policies module numbers them in its ``BASES``
    decisive: bool  # play a move that wins at once when there is one
    anti: bool  # anti-decisive: never leave the opponent a move that wins at once
    lgrf: bool  # Last Good Reply with Forgetting (LGRF-1)
    pool_k: int  # PoolRAVE pool size per player (0: off)
    pool_p: float  # PoolRAVE: probability of trying a pool move
    num_actions: int  # A
    num_players: int  # P
    length: bool  # the playout's length is used (QBR): stop when the game is decided
    nf_empty: int  # NoGo's nf and nf2: score moves once at most this many points are empty (0: all)
    edge_prior: float  # Go: the weight of the edge-distance prior (go_policies.prior; 0: off)


class PolicyStats(NamedTuple):
    """What the enhancements learn across simulations; each array is owned by one enhancement
    module (:mod:`mctslab.search.enhancements`) and has shape [0] while it is off.

    * ``replies`` int32[P*A] (LGRF): player p's last good reply to action a at ``p*A + a``, -1
      none;
    * ``pools`` int32[P*k], ``pool_sizes`` int32[P] (PoolRAVE): player p's pool at ``p*k``, best
      first, and its size;
    * ``pool_amaf`` float64[2*P*A] (PoolRAVE): the AMAF count of (p, a) at ``p*A + a`` and its mean
      win value at ``P*A + p*A + a``, at the root of the current search;
    * ``qbr`` float64[N_QSTATS*P] (Quality-Based Rewards).
    """

    replies: np.ndarray
    pools: np.ndarray
    pool_sizes: np.ndarray
    pool_amaf: np.ndarray
    qbr: np.ndarray


def playout_params(
    base: int = 0,
    decisive: bool = False,
    anti: bool = False,
    lgrf: bool = False,
    pool_k: int = 0,
    pool_p: float = 0.5,
    num_actions: int = 1,
    num_players: int = 2,
    length: bool = False,
    nf_empty: int = 0,
    edge_prior: float = 0.0,
) -> PlayoutParams:
    """A :class:`PlayoutParams` with every field of its fixed Python type (one Numba type)."""
    return PlayoutParams(
        int(base), bool(decisive), bool(anti), bool(lgrf), int(pool_k), float(pool_p),
        int(num_actions), int(num_players), bool(length), int(nf_empty),
        float(edge_prior),
    )  # fmt: skip


def policy_stats(
    num_players: int, num_actions: int, lgrf: bool = False, pool_k: int = 0, qbr: bool = False
) -> PolicyStats:
    """Fresh statistics, each array as large as its enhancement needs (shape [0] when off)."""
    pa = num_players * num_actions
    return PolicyStats(
        np.full(pa if lgrf else 0, -1, dtype=np.int32),
        np.full(num_players * pool_k, -1, dtype=np.int32),
        np.zeros(num_players if pool_k else 0, dtype=np.int32),
        np.zeros(2 * pa if pool_k else 0, dtype=np.float64),
        np.zeros(N_QSTATS * num_players if qbr else 0, dtype=np.float64),
    )


class ExactStack(NamedTuple):
    """The exact search's stack (:func:`mctslab.search.uct_template.exact_search`), one row per
    depth: ``states`` the positions, ``labels`` / ``probs`` the actions or outcomes with their
    probabilities, ``nlab`` their number, ``idx`` the next one, ``acc`` the best value for the
    player to move so far or the probability-weighted sum, ``kind`` the player to move or the
    chance player, ``hashes`` the position's hash."""

    states: np.ndarray
    labels: np.ndarray
    probs: np.ndarray
    nlab: np.ndarray
    idx: np.ndarray
    acc: np.ndarray
    kind: np.ndarray
    hashes: np.ndarray
