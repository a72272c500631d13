"""Game-generic compiled loops over the kernel contract (specialised per game by codegen).

* :func:`contract_random_game` plays a uniformly random game through ``legal_actions`` /
  ``apply_action`` / ``chance_outcomes`` only — the reference that each game's fast
  ``random_playout`` is checked against in the conformance suite.
* :func:`run_playouts` runs ``count`` fast random playouts from one state, for the benchmark.
"""

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.kernels.rng import below, weighted


@njit(cache=True)
def contract_random_game(consts, state, rng, actions, chance, moves, out):
    """Play to the end with uniform moves and chance by its probabilities, through the contract.

    ``actions``/``chance`` are scratch buffers (num_distinct_actions / num_chance_outcomes + 1).
    Records every step as a (player, action) pair in ``moves``, chance events as
    (-1, outcome) — unlike ``random_playout``, which records decisions only — and returns
    ``(n_steps, rng)``.
    """
    probs = np.empty(chance.shape[0], dtype=np.float64)
    n = 0
    while True:
        p = game.current_player(consts, state)
        if p == -4:
            break
        if p == -1:
            k = game.chance_outcomes(consts, state, chance, probs)
            rng, i = weighted(rng, probs, k)
            moves[2 * n] = -1
            moves[2 * n + 1] = chance[i]
            n += 1
            game.apply_chance(consts, state, chance[i])
            continue
        k = game.legal_actions(consts, state, actions)
        rng, i = below(rng, k)
        moves[2 * n] = p
        moves[2 * n + 1] = actions[i]
        n += 1
        game.apply_action(consts, state, actions[i])
    game.returns(consts, state, out)
    return n, rng


@njit(cache=True)
def run_playouts(consts, root, count, rng, moves, out, totals):
    """``count`` fast random playouts from copies of ``root``; returns ``(total_moves, rng)``.

    ``totals`` accumulates the per-player returns.
    """
    state = root.copy()
    total = 0
    for _ in range(count):
        state[:] = root
        n, rng = game.random_playout(consts, state, rng, moves, out)
        total += n
        for p in range(out.shape[0]):
            totals[p] += out[p]
    return total, rng
