"""Nim kernels: N counters, the mover takes 1..K, taking the last counter wins.

With ``coin`` (the report's *Nim with a coin*): after a move that leaves counters, the mover flips
a fair coin; on heads one more counter goes, and if that was the last one the mover wins.

State (int16): ``[counters, to_move, phase, last_mover, winner]`` with ``phase`` 0 = decision,
1 = coin pending, ``winner`` -1 while the game goes on. Constants: ``[N, K, coin]``.
Action ``a`` takes ``a+1`` counters. Chance outcomes: 0 = tails, 1 = heads (p = 1/2 each).
"""

import numpy as np
from numba import njit

from mctslab.games.common_kernels import two_player_win_returns
from mctslab.kernels.rng import below

STATE_DTYPE = np.int16
STATE_SIZE = 5
C_N, C_K, C_COIN = 0, 1, 2
S_COUNTERS, S_TO_MOVE, S_PHASE, S_LAST, S_WINNER = 0, 1, 2, 3, 4


@njit(cache=True)
def init_state(consts, state):
    state[S_COUNTERS] = consts[C_N]
    state[S_TO_MOVE] = 0
    state[S_PHASE] = 0
    state[S_LAST] = -1
    state[S_WINNER] = -1


@njit(cache=True)
def current_player(consts, state):
    if state[S_WINNER] >= 0:
        return -4
    if state[S_PHASE] == 1:
        return -1
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def legal_actions(consts, state, out):
    if state[S_WINNER] >= 0 or state[S_PHASE] == 1:
        return 0
    n = min(consts[C_K], state[S_COUNTERS])
    for a in range(n):
        out[a] = a
    return n


@njit(cache=True)
def apply_action(consts, state, action):
    mover = state[S_TO_MOVE]
    state[S_COUNTERS] -= action + 1
    state[S_LAST] = mover
    state[S_TO_MOVE] = 1 - mover
    if state[S_COUNTERS] == 0:
        state[S_WINNER] = mover
    elif consts[C_COIN] != 0:
        state[S_PHASE] = 1


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    if state[S_PHASE] != 1 or state[S_WINNER] >= 0:
        return 0
    outcomes[0] = 0
    probs[0] = 0.5
    outcomes[1] = 1
    probs[1] = 0.5
    return 2


@njit(cache=True)
def apply_chance(consts, state, outcome):
    state[S_PHASE] = 0
    if outcome == 1:
        state[S_COUNTERS] -= 1
        if state[S_COUNTERS] == 0:
            state[S_WINNER] = state[S_LAST]


@njit(cache=True)
def returns(consts, state, out):
    two_player_win_returns(state[S_WINNER], out)


@njit(cache=True)
def playout(consts, state, rng, moves, out, strategic):
    """Play to the end: uniform moves, or with ``strategic`` the Nim report's strategic player
    (take ``n mod (K+1)``, leaving a multiple of ``K+1``; uniform when ``n`` already is one).
    Coin flips follow their probabilities. Returns ``(n_moves, rng)``."""
    n = 0
    k = consts[C_K]
    while state[S_WINNER] < 0:
        if state[S_PHASE] == 1:
            rng, coin = below(rng, 2)
            apply_chance(consts, state, coin)
            continue
        left = np.int64(state[S_COUNTERS])
        take = left % (k + 1) if strategic else 0
        if take == 0:
            rng, a = below(rng, min(k, left))
        else:
            a = take - 1
        moves[2 * n] = state[S_TO_MOVE]
        moves[2 * n + 1] = a
        n += 1
        apply_action(consts, state, a)
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    return playout(consts, state, rng, moves, out, False)
