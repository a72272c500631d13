"""Constants and game-independent compiled helpers shared by every playout-policy module.

The layout of the three policy arrays that the UCT template hands to a policies module's
``policy_playout`` (see :mod:`mctslab.search.playouts` for the mechanism):

``pol`` (int64)::

    [PL_BASE]      base policy id (BASE_* below)
    [PL_DECISIVE]  1: play a move that wins at once when there is one
    [PL_ANTI]      1: anti-decisive: never leave the opponent a move that wins at once
    [PL_LGRF]      1: Last Good Reply with Forgetting (LGRF-1)
    [PL_POOL_K]    PoolRAVE pool size per player (0: off)
    [PL_NA]        number of distinct actions A of the game
    [PL_NP]        number of players P
    [PL_LENGTH]    1: the playout's length is used (QBR), so it must stop when the game is decided
                   (a game whose fast playout plays on past the decision must not use it)

``ptab`` (int32): ``[0, P*A)`` the LGRF replies, ``reply[p*A + a]`` = player p's last good reply
to action ``a`` (-1: none); ``[P*A, P*A + P*k)`` the PoolRAVE pools, player p's at
``P*A + p*k``; ``[P*A + P*k, P*A + P*k + P)`` the number of moves in each pool.
Allocated only as large as the enabled strategies need (shape [0] when none is on).

``pf`` (float64): ``[PF_POOL_P]`` the probability of trying a pool move.
"""

import math

import numpy as np
from numba import njit

from mctslab.kernels.rng import below

PL_BASE, PL_DECISIVE, PL_ANTI, PL_LGRF, PL_POOL_K, PL_NA, PL_NP, PL_LENGTH = 0, 1, 2, 3, 4, 5, 6, 7
N_PL = 8
PF_POOL_P = 0
N_PF = 2

#: Base policies (how a move is drawn when no modifier chose one). Ids are global; each policies
#: module states which it implements in ``BASES``.
BASE_UNIFORM = 0  # uniform over the legal moves
BASE_NAIVE = 1  # NoGo: uniform over the empty points; an illegal draw loses at once
BASE_NF = 2  # normal-form heuristic a - b (NoGo paper, section 3.5)
BASE_NF2 = 3  # normal-form heuristic a - b - a' + b'
BASE_STRATEGIC = 4  # Nim: leave a multiple of K + 1
BASE_GO = 5  # reserved for Go's MoGo-style playouts (issue 6)
BASE_NAMES = {
    "uniform": BASE_UNIFORM,
    "naive": BASE_NAIVE,
    "nf": BASE_NF,
    "nf2": BASE_NF2,
    "strategic": BASE_STRATEGIC,
    "go": BASE_GO,
}


def ptab_size(num_players: int, num_actions: int, lgrf: bool, pool_k: int) -> int:
    """Length of ``ptab`` for the enabled strategies (the layout in the module doc)."""
    if not lgrf and pool_k == 0:
        return 0
    return num_players * num_actions + num_players * pool_k + num_players


@njit(inline="always")
def lgr_reply(ptab, pol, player, last):
    """Player ``player``'s stored reply to ``last`` (-1: none, or LGRF off, or no last move)."""
    if pol[PL_LGRF] == 0 or last < 0:
        return -1
    return np.int64(ptab[player * pol[PL_NA] + last])


@njit(inline="always")
def pool_move(ptab, pol, pf, player, rng):
    """PoolRAVE (Hoock et al. 2010): with probability ``pf[PF_POOL_P]`` a uniformly drawn move of
    ``player``'s pool, else -1. Returns ``(rng, move)``; the caller checks legality."""
    k = pol[PL_POOL_K]
    if k == 0:
        return rng, np.int64(-1)
    base = pol[PL_NP] * pol[PL_NA]
    size = ptab[base + pol[PL_NP] * k + player]
    if size == 0:
        return rng, np.int64(-1)
    rng, r = below(rng, 1 << 30)
    if r >= pf[PF_POOL_P] * (1 << 30):
        return rng, np.int64(-1)
    rng, i = below(rng, size)
    return rng, np.int64(ptab[base + player * k + i])


@njit(inline="always")
def sigmoid_bonus(lam, k):
    """The Quality-Based Rewards squashing ``b(λ) = -1 + 2 / (1 + exp(-k λ))`` (Pepels, Tak,
    Lanctot, Winands 2014), in (-1, 1)."""
    return -1.0 + 2.0 / (1.0 + math.exp(-k * lam))
