"""PoolRAVE (Hoock, Lee, Rimmel, Teytaud, Wang, Wang 2010, *Intelligent Agents for the Game of
Go*, IEEE Computational Intelligence Magazine 5(4); the Hex article series' PoolRAVE agent).

Its statistics (:class:`mctslab.search.records.PolicyStats`): ``pool_amaf``, the AMAF values at
the root for every player (count of (p, a) at ``p*A + a``, mean win value at ``P*A + p*A + a``),
kept for one search; ``pools`` / ``pool_sizes``, each player's pool of ``k`` moves, rebuilt from
them every :data:`POOL_REFRESH` simulations. Playouts read the pools (:func:`pool_move`).
"""

import numpy as np
from numba import njit

from mctslab.kernels.rng import below
from mctslab.search.enhancements.moves import sim_move

#: PoolRAVE rebuilds its pools every this many simulations (and at the start of every call).
POOL_REFRESH = 16


@njit(cache=True)
def pool_update(pool_amaf, path, path_player, action, d, moves, n_po, w, mark, stamp, na, np_):
    """Every move ``a`` that player ``p`` played in the simulation (once, however often) updates
    the mean win value for ``p`` at the root: ``pool_amaf[p * na + a]`` (count) and
    ``pool_amaf[np_ * na + p * na + a]`` (mean). ``mark[np_ * na + p * na + a] == stamp`` records
    "already counted in this simulation" (the first half of ``mark`` is AMAF's)."""
    off = np_ * na
    for t in range(d + n_po):
        p, a = sim_move(t, d, path, path_player, action, moves)
        slot = p * na + a
        if mark[off + slot] == stamp:
            continue
        mark[off + slot] = stamp
        n = pool_amaf[slot] + 1.0
        pool_amaf[slot] = n
        pool_amaf[off + slot] += (w[p] - pool_amaf[off + slot]) / n


@njit(cache=True)
def pool_rebuild(pool_amaf, pools, pool_sizes, na, k, np_):
    """Each player's pool is the ``k`` moves with the best AMAF mean at the root among those
    played at least once (fewer if fewer were played), best first; ties go to the lower
    action."""
    off = np_ * na
    for p in range(np_):
        size = 0
        while size < k:
            best = -1
            for a in range(na):
                if pool_amaf[p * na + a] == 0.0:
                    continue
                taken = False
                for j in range(size):
                    if pools[p * k + j] == a:
                        taken = True
                        break
                if taken:
                    continue
                if best < 0 or pool_amaf[off + p * na + a] > pool_amaf[off + p * na + best]:
                    best = a
            if best < 0:
                break
            pools[p * k + size] = best
            size += 1
        pool_sizes[p] = size


@njit(inline="always")
def pool_move(stats, params, player, rng):
    """With probability ``params.pool_p`` a uniformly drawn move of ``player``'s pool, else -1
    (and -1 when the pool is empty or PoolRAVE is off). Returns ``(rng, move)``; the caller checks
    legality."""
    k = params.pool_k
    if k == 0:
        return rng, np.int64(-1)
    size = stats.pool_sizes[player]
    if size == 0:
        return rng, np.int64(-1)
    rng, r = below(rng, 1 << 30)
    if r >= params.pool_p * (1 << 30):
        return rng, np.int64(-1)
    rng, i = below(rng, size)
    return rng, np.int64(stats.pools[player * k + i])
