"""The moves of one simulation, as the enhancements that learn from it read them."""

import numpy as np
from numba import njit


@njit(cache=True)
def sim_move(t, d, path, path_player, action, moves):
    """The ``t``-th move of a simulation as ``(player, action)``: first the ``d`` tree moves (the
    actions into ``path[1..d]``, by ``path_player[0..d-1]``), then the playout's ``(player,
    action)`` pairs in ``moves``."""
    if t < d:
        return np.int64(path_player[t]), np.int64(action[path[t + 1]])
    return np.int64(moves[2 * (t - d)]), np.int64(moves[2 * (t - d) + 1])
