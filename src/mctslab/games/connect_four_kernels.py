"""Connect Four kernels: the worked example of adding a game (``docs/adding-a-game.md``).

State (int8): ``[to_move, winner, moves, height[0..cols-1], board[rows*cols]]``; ``winner`` is
-1 while the game goes on, 0 or 1 for a win, 2 for a draw. Board row 0 is the bottom.
Constants (int32): ``[rows, cols, connect]``. Action = column.
"""

import numpy as np
from numba import njit

from mctslab.games.common_kernels import apply_chance, chance_outcomes  # noqa: F401 (no chance)
from mctslab.kernels.rng import below

STATE_DTYPE = np.int8
S_TO_MOVE, S_WINNER, S_MOVES, S_HEIGHT = 0, 1, 2, 3


@njit(cache=True)
def init_state(consts, state):
    state[:] = 0
    state[S_WINNER] = -1


@njit(cache=True)
def current_player(consts, state):
    return np.int64(state[S_TO_MOVE]) if state[S_WINNER] < 0 else -4


@njit(cache=True)
def legal_actions(consts, state, out):
    n = 0
    if state[S_WINNER] < 0:
        for c in range(consts[1]):
            if state[S_HEIGHT + c] < consts[0]:
                out[n] = c
                n += 1
    return n


@njit(cache=True)
def _line(consts, state, row, col, dr, dc, stone):
    """Stones of ``stone`` in a row through (row, col) along (dr, dc), both ways."""
    rows, cols = consts[0], consts[1]
    board = S_HEIGHT + cols
    count = 1
    for sign in (1, -1):
        r, c = row + sign * dr, col + sign * dc
        while 0 <= r < rows and 0 <= c < cols and state[board + r * cols + c] == stone:
            count += 1
            r += sign * dr
            c += sign * dc
    return count


@njit(cache=True)
def apply_action(consts, state, action):
    rows, cols = consts[0], consts[1]
    mover = state[S_TO_MOVE]
    row = state[S_HEIGHT + action]
    state[S_HEIGHT + action] = row + 1
    state[S_HEIGHT + cols + row * cols + action] = mover + 1
    state[S_MOVES] += 1
    state[S_TO_MOVE] = 1 - mover
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        if _line(consts, state, row, action, dr, dc, mover + 1) >= consts[2]:
            state[S_WINNER] = mover
            return
    if state[S_MOVES] == rows * cols:
        state[S_WINNER] = 2


@njit(cache=True)
def returns(consts, state, out):
    w = state[S_WINNER]
    out[0] = 0.0
    out[1] = 0.0
    if w == 0 or w == 1:
        out[w] = 1.0
        out[1 - w] = -1.0


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    cols = consts[1]
    actions = np.empty(cols, dtype=np.int32)
    n = 0
    while state[S_WINNER] < 0:
        k = legal_actions(consts, state, actions)
        rng, i = below(rng, k)
        moves[2 * n] = state[S_TO_MOVE]
        moves[2 * n + 1] = actions[i]
        n += 1
        apply_action(consts, state, actions[i])
    returns(consts, state, out)
    return n, rng
