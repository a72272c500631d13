"""Last Good Reply with Forgetting, LGRF-1 (Baier and Drake 2010, *The Power of Forgetting:
Improving the Last-Good-Reply Policy in Monte Carlo Go*, IEEE TCIAIG 2(4)). Its statistics are
``PolicyStats.replies`` (:mod:`mctslab.search.records`): player p's last good reply to action a
at ``p * A + a``, -1 for none. The search learns them (:func:`lgrf_update`), playouts read them
(:func:`lgr_reply`)."""

import numpy as np
from numba import njit

from mctslab.search.enhancements.moves import sim_move


@njit(cache=True)
def lgrf_update(replies, na, path, path_player, action, d, moves, n_po, w):
    """After one simulation: for every move ``b`` of player ``p`` that replies to the opponent's
    move ``a`` just before it (tree and playout moves alike), ``reply[p, a] = b`` if ``p`` won
    (win value > 1/2), and ``reply[p, a] = -1`` if ``p`` lost (< 1/2) and ``b`` was the stored
    reply."""
    for t in range(1, d + n_po):
        q, a = sim_move(t - 1, d, path, path_player, action, moves)
        p, b = sim_move(t, d, path, path_player, action, moves)
        if p == q:
            continue
        slot = p * na + a
        if w[p] > 0.5:
            replies[slot] = b
        elif w[p] < 0.5 and replies[slot] == b:
            replies[slot] = -1


@njit(inline="always")
def lgr_reply(stats, params, player, last):
    """Player ``player``'s stored reply to ``last`` (-1: none, or LGRF off, or no last move);
    ``stats`` a :class:`PolicyStats`, ``params`` a :class:`PlayoutParams`."""
    if not params.lgrf or last < 0:
        return np.int64(-1)
    return np.int64(stats.replies[player * params.num_actions + last])
