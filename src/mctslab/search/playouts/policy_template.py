"""Generic playout policies through the game contract only, for any game (a codegen template).

:func:`mctslab.search.playouts.policies_for` specialises this module for a game without a policies
module of its own, and game modules delegate to it (specialised for their game) what they have no
faster version of. See :mod:`mctslab.search.playouts` for the mechanism.
"""

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.kernels.rng import below, uniform
from mctslab.search.playouts.common import BASE_UNIFORM, lgr_reply, pool_move

#: the base policies this module implements, name -> id (``PlayoutParams.base``)
BASES = {"uniform": BASE_UNIFORM}

_CHANCE = -1
_TERMINAL = -4
_MAX_CHANCE = 64


@njit(cache=True)
def wins_at_once(consts, state, scratch, action, player, out):
    """Whether ``player`` (to move) wins at once by ``action``: the game is over after it and
    ``player`` has the best return (checked on ``scratch``, a copy)."""
    scratch[:] = state
    game.apply_action(consts, scratch, np.int64(action))
    if game.current_player(consts, scratch) != _TERMINAL:
        return False
    game.returns(consts, scratch, out)
    for q in range(out.shape[0]):  # noqa: SIM110  (compiled: no generators)
        if q != player and out[q] >= out[player]:
            return False
    return True


@njit(cache=True)
def decisive_move(consts, state, scratch, legal, k, player, out):
    """The first legal move that wins at once (Teytaud and Teytaud 2010), or -1."""
    for j in range(k):
        if wins_at_once(consts, state, scratch, legal[j], player, out):
            return np.int64(legal[j])
    return np.int64(-1)


@njit(cache=True)
def anti_decisive_filter(consts, state, scratch, scratch2, legal, k, player, legal2, out):
    """Anti-decisive moves (Teytaud and Teytaud 2010), in the form the contract allows: keep the
    moves after which the opponent has no move that wins at once; returns how many are kept at
    the front of ``legal`` (all ``k`` if every move leaves the opponent a win). O(k^2) applies."""
    kept = 0
    for j in range(k):
        scratch2[:] = state
        game.apply_action(consts, scratch2, np.int64(legal[j]))
        opp = game.current_player(consts, scratch2)
        safe = True
        if opp >= 0 and opp != player:
            k2 = game.legal_actions(consts, scratch2, legal2)
            for i in range(k2):
                if wins_at_once(consts, scratch2, scratch, legal2[i], opp, out):
                    safe = False
                    break
        if safe:
            t = legal[kept]
            legal[kept] = legal[j]
            legal[j] = t
            kept += 1
    return kept if kept > 0 else k


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """Play to the end move by move with the configured policy; same contract as
    ``random_playout`` (records ``(player, action)`` pairs, writes the returns), plus ``last``,
    the action played just before the playout (-1: none), for Last Good Reply, and the records
    ``params`` (:class:`PlayoutParams`) and ``stats`` (:class:`PolicyStats`).

    Each move, in order: a decisive move (if on), else the anti-decisive filter (if on) narrows
    the candidates, then the LGRF reply to the previous move if it is a candidate, then a PoolRAVE
    pool move with probability p if it is a candidate, else uniform among the candidates.
    Chance events follow their probabilities. Base policies other than ``uniform`` are not
    defined through the contract (the normal-form heuristic needs the legal moves of the player
    not to move); the Python layer rejects them for games that lack a module implementing them.
    """
    na = params.num_actions
    legal = np.empty(max(1, na), dtype=np.int32)
    legal2 = np.empty(max(1, na), dtype=np.int32)
    scratch = state.copy()
    scratch2 = state.copy()
    outcomes = np.empty(_MAX_CHANCE, dtype=np.int64)
    probs = np.empty(_MAX_CHANCE, dtype=np.float64)
    decisive = params.decisive
    anti = params.anti
    n = 0
    while True:
        p = game.current_player(consts, state)
        if p == _CHANCE:
            m = game.chance_outcomes(consts, state, outcomes, probs)
            rng, u = uniform(rng)
            j = 0
            acc = probs[0]
            while u >= acc and j < m - 1:
                j += 1
                acc += probs[j]
            game.apply_chance(consts, state, np.int64(outcomes[j]))
            continue
        if p < 0:
            break
        k = game.legal_actions(consts, state, legal)
        a = np.int64(-1)
        if decisive:
            a = decisive_move(consts, state, scratch, legal, k, p, out)
        if a < 0 and anti:
            k = anti_decisive_filter(consts, state, scratch, scratch2, legal, k, p, legal2, out)
        if a < 0:
            r = lgr_reply(stats, params, p, last)
            rng, pm = pool_move(stats, params, p, rng)
            for j in range(k):
                if legal[j] == r:
                    a = r
                    break
            if a < 0 and pm >= 0:
                for j in range(k):
                    if legal[j] == pm:
                        a = pm
                        break
        if a < 0:
            if params.base != BASE_UNIFORM:
                raise ValueError("base policy not implemented by the generic policies")
            rng, j = below(rng, k)
            a = np.int64(legal[j])
        moves[2 * n] = p
        moves[2 * n + 1] = a
        n += 1
        game.apply_action(consts, state, a)
        last = a
    game.returns(consts, state, out)
    return n, rng


@njit(cache=True)
def quality(consts, state, winner):
    """Qualitative-bonus measure of a terminal state for the winner (QBR); the contract has none,
    so it is constant here (the bonus is then never applied)."""
    return 0.0


@njit(cache=True)
def prior(consts, state, legal, k, counts, values, params):
    """Prior knowledge of the ``k`` legal actions ``legal`` (``counts[j]`` simulations of win
    value ``values[j]`` for the player to move; ``mcts(prior=...)``; ``params`` the playout
    parameters, :class:`~mctslab.search.records.PlayoutParams`); the contract has none, so every
    count is 0 here."""
    for j in range(k):
        counts[j] = 0.0
        values[j] = 0.5
