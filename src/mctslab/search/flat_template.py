"""Flat Monte Carlo's compiled loop, a codegen template specialised per game
(:mod:`mctslab.kernels.codegen`; it calls the game's ``random_playout``)."""

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels


@njit(cache=True)
def flat(consts, root, legal, n_legal, visits, value, start, n_sims, params, rng):
    """Flat Monte Carlo (Abramson 1990, *Expected-Outcome: A General Model of Static Evaluation*,
    IEEE TPAMI 12(2); the slides' "no construction of game subtree"): simulation ``s`` (counting
    from ``start``) plays root move ``legal[s mod n_legal]`` (round robin) and then a uniform
    random playout; ``value[i]`` is the incremental mean win value of move ``i`` for the player
    to move at the root. ``params`` is a :class:`mctslab.search.records.UctParams` (``lo``,
    ``span``, ``num_players``, ``max_length`` are read). Returns ``rng``."""
    lo = params.lo
    span = params.span
    moves = np.empty(2 * params.max_length + 2, dtype=np.int32)
    out = np.empty(params.num_players, dtype=np.float64)
    me = game.current_player(consts, root)
    state = root.copy()
    for s in range(start, start + n_sims):
        i = s % n_legal
        state[:] = root
        game.apply_action(consts, state, np.int64(legal[i]))
        _, rng = game.random_playout(consts, state, rng, moves, out)
        n = visits[i] + 1
        visits[i] = n
        value[i] += ((out[me] - lo) / span - value[i]) / n
    return rng
