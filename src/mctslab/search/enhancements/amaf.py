"""AMAF statistics for RAVE (all moves as first; Gelly and Silver 2007). The statistics are the
tree's ``amaf_n`` and ``amaf_v`` arrays (:mod:`mctslab.search.tree`); RAVE's selection reads them
(:func:`mctslab.search.enhancements.selection.select_rave`)."""

import numpy as np
from numba import njit

from mctslab.search.tree import NO_CHILD


@njit(cache=True)
def amaf_update(
    first_child, num_children, action, amaf_n, amaf_v, path, path_player, d, moves, n_po, w,
    mark, stamp, na,
):  # fmt: skip
    """AMAF after one simulation.

    For every expanded node ``x = path[j]`` of the simulation (the leaf too, if it is expanded),
    with ``p`` the player to move at ``x``: every child of ``x`` whose action ``p`` played at
    step ``j`` or later of this simulation (in the tree or in the playout) gets
    ``amaf_n += 1`` and ``amaf_v += (w[p] - amaf_v) / amaf_n``, the win value from ``p``'s
    perspective (the perspective of every value in ``x``'s children block). A move played twice
    counts once. ``mark[p * na + a] == stamp`` records "``p`` played ``a`` at a step >= j";
    the playout's moves are marked first, then the tree's moves walking up the path.
    """
    for t in range(n_po):
        mark[moves[2 * t] * na + moves[2 * t + 1]] = stamp
    for j in range(d, -1, -1):
        pj = path_player[j]
        if j < d:
            mark[pj * na + action[path[j + 1]]] = stamp
        x = path[j]
        fx = first_child[x]
        if pj < 0 or fx == NO_CHILD:
            continue
        wv = w[pj]
        base = pj * na
        for i in range(fx, fx + num_children[x]):
            if mark[base + action[i]] == stamp:
                n = amaf_n[i] + 1
                amaf_n[i] = n
                q = np.float64(amaf_v[i])
                amaf_v[i] = q + (wv - q) / n
