"""Hex kernels: a size x size rhombus, Black (player 0) joins top and bottom, White (1) left-right.

Cells are ``action = row * size + col`` with row 0 the top row (HTP ``a1`` is the top-left cell,
see :mod:`mctslab.games.coords`). The neighbours of ``(r, c)`` are ``(r, c±1)``, ``(r±1, c)``,
``(r-1, c+1)`` and ``(r+1, c-1)``: printed with every row indented half a cell further right, the
top-left ``a1`` and the bottom-right corners are the acute ones (two neighbours), the top-right and
bottom-left corners the obtuse ones (three neighbours).

Swap (pie) rule, with ``swap``: on the second move only, White may play the extra action
``size * size`` (HTP ``swap-pieces``): Black's single stone at ``(r, c)`` becomes a White stone at
``(c, r)`` and Black is to move again. Players keep their colours and directions, so returns stay
per colour; the position after a swap is the colour-and-transpose mirror image of the position
White declined, which is what makes the rule fair.

State (int16), ``N = size * size``::

    [0] to_move   [1] moves played (the swap counts)   [2] winner (-1 while the game goes on)
    [3] last action (-1 at the start)
    [B .. B+N-1]  board, B = 4: 0 empty, 1 Black, 2 White
    [B+N]         off-board sentinel (7): missing neighbours point here, so no bounds tests
    [U .. U+N+3]  union-find parents, U = B+N+1, over the N cells and four virtual edge nodes
                  TOP = N, BOTTOM = N+1, LEFT = N+2, RIGHT = N+3

``apply_action`` unions the new stone with its same-coloured neighbours and with its edge nodes and
declares a win as soon as TOP ~ BOTTOM (Black) or LEFT ~ RIGHT (White): ``current_player`` only
reads the winner field. A full board always has exactly one winner.

Constants (int32): ``[size, swap, N, edge flags (N), neighbours (6N)]``; the edge flags of a cell
are bits 1 top, 2 bottom, 4 left, 8 right; the six neighbours of cell ``c`` are at
``3 + N + 6c .. 3 + N + 6c + 5`` (``N``, the sentinel, where the board ends).

``random_playout`` is the standard Hex random fill: shuffle the empty cells, fill them alternately,
then find the winner once with a flood fill from Black's top-row stones. The ``n`` moves it
records are the whole fill (every empty cell), although the game was decided earlier: continuing a
decided Hex game never changes its winner, and a uniformly random game is a uniformly random
order of the empty cells, so the winner distribution is that of a uniformly random game played
only to the win (checked against ``contract_random_game`` in the tests). With the swap rule the
opening is played move by move, so the swap has its probability 1/N at the second move, and a
recorded swap is the pair ``(1, N)``. ``moves`` holds up to ``2 * max_game_length`` entries. The
final state is terminal (board full, winner set, ``moves played`` counting the whole fill); its
union-find block then holds the flood fill's scratch stack, which no kernel reads in a terminal
state.
"""

import numpy as np
from numba import njit

from mctslab.games.common_kernels import (  # noqa: F401  (contract kernels)
    apply_chance,
    chance_outcomes,
    two_player_win_returns,
)
from mctslab.kernels.rng import below

STATE_DTYPE = np.int16
S_TO_MOVE, S_COUNT, S_WINNER, S_LAST = 0, 1, 2, 3
B = 4  # board offset in the state
EMPTY, BLACK, WHITE, OFF_BOARD, MARK = 0, 1, 2, 7, 3
C_SIZE, C_SWAP, C_N, C_EDGE = 0, 1, 2, 3
EDGE_TOP, EDGE_BOTTOM, EDGE_LEFT, EDGE_RIGHT = 1, 2, 4, 8
#: (dr, dc) of the six neighbours, downward last (the playout's flood fill explores them first)
NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def state_size(size: int) -> int:
    return 2 * size * size + 9


def make_consts(size: int, swap: bool) -> np.ndarray:
    """The constants array (built once per game instance, in Python)."""
    n = size * size
    edge = np.zeros(n, dtype=np.int32)
    nb = np.full(6 * n, n, dtype=np.int32)
    for r in range(size):
        for c in range(size):
            cell = r * size + c
            edge[cell] = (
                (EDGE_TOP if r == 0 else 0)
                | (EDGE_BOTTOM if r == size - 1 else 0)
                | (EDGE_LEFT if c == 0 else 0)
                | (EDGE_RIGHT if c == size - 1 else 0)
            )
            for k, (dr, dc) in enumerate(NEIGHBOURS):
                rr, cc = r + dr, c + dc
                if 0 <= rr < size and 0 <= cc < size:
                    nb[6 * cell + k] = rr * size + cc
    head = np.array([size, int(swap), n], dtype=np.int32)
    return np.concatenate([head, edge, nb]).astype(np.int32)


@njit(inline="always")
def _find(state, u, x):
    """Root of node ``x`` in the union-find block at ``state[u:]`` (path halving)."""
    while state[u + x] != x:
        p = state[u + x]
        g = state[u + p]
        state[u + x] = g
        x = g
    return x


@njit(inline="always")
def _union(state, u, x, y):
    rx = _find(state, u, x)
    ry = _find(state, u, y)
    if rx != ry:
        state[u + rx] = ry


@njit(cache=True)
def init_state(consts, state):
    n = consts[C_N]
    state[S_TO_MOVE] = 0
    state[S_COUNT] = 0
    state[S_WINNER] = -1
    state[S_LAST] = -1
    for c in range(n):
        state[B + c] = EMPTY
    state[B + n] = OFF_BOARD
    u = B + n + 1
    for x in range(n + 4):
        state[u + x] = x


@njit(cache=True)
def current_player(consts, state):
    if state[S_WINNER] >= 0:
        return -4
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def legal_actions(consts, state, out):
    if state[S_WINNER] >= 0:
        return 0
    n = consts[C_N]
    k = 0
    for c in range(n):
        if state[B + c] == EMPTY:
            out[k] = c
            k += 1
    if consts[C_SWAP] != 0 and state[S_COUNT] == 1:
        out[k] = n
        k += 1
    return k


@njit(cache=True)
def apply_action(consts, state, action):
    n = consts[C_N]
    u = B + n + 1
    player = state[S_TO_MOVE]
    cell = action
    if action == n:  # swap: Black's stone at (r, c) becomes White's at (c, r), Black moves again
        size = consts[C_SIZE]
        black = state[S_LAST]
        r = black // size
        c = black - r * size
        state[B + black] = EMPTY
        state[u + black] = black
        for x in range(n, n + 4):
            state[u + x] = x
        cell = c * size + r
        player = 1  # the swap places a White stone
    colour = player + 1
    state[B + cell] = colour
    state[u + cell] = cell
    nb = C_EDGE + n + 6 * cell
    for k in range(6):
        d = consts[nb + k]
        if state[B + d] == colour:
            _union(state, u, cell, d)
    e = consts[C_EDGE + cell]
    if player == 0:
        if e & EDGE_TOP:
            _union(state, u, cell, n)
        if e & EDGE_BOTTOM:
            _union(state, u, cell, n + 1)
        if _find(state, u, n) == _find(state, u, n + 1):
            state[S_WINNER] = 0
    else:
        if e & EDGE_LEFT:
            _union(state, u, cell, n + 2)
        if e & EDGE_RIGHT:
            _union(state, u, cell, n + 3)
        if _find(state, u, n + 2) == _find(state, u, n + 3):
            state[S_WINNER] = 1
    state[S_TO_MOVE] = 1 - state[S_TO_MOVE]
    state[S_COUNT] += 1
    state[S_LAST] = action


@njit(cache=True)
def returns(consts, state, out):
    two_player_win_returns(state[S_WINNER], out)


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    # Indices are unsigned (np.uint64) on purpose: Numba then drops its negative-index wraparound
    # test on every access (measured: ~15% of the playout). Mixed signed/unsigned arithmetic
    # would promote to float64 in Numba, hence the explicit casts.
    if state[S_WINNER] >= 0:
        returns(consts, state, out)
        return 0, rng
    n_cells = consts[C_N]
    m = 0  # moves recorded before the fill
    if consts[C_SWAP] != 0 and state[S_COUNT] <= 1:
        # The opening under the swap rule, move by move, so that the swap is offered with its
        # uniform probability 1 / (legal count) = 1 / N at the second move.
        if state[S_COUNT] == 0:
            rng, a = below(rng, n_cells)
            moves[0] = 0
            moves[1] = a
            m = 1
            apply_action(consts, state, a)
        rng, a = below(rng, n_cells)  # N - 1 empty cells and the swap
        if a == n_cells - 1:
            moves[2 * m] = 1
            moves[2 * m + 1] = n_cells
            m += 1
            apply_action(consts, state, n_cells)
        # else: the next move is uniform over the empty cells, which the shuffle below provides

    one = np.uint64(1)
    two = np.uint64(2)
    b = np.uint64(B)
    n = np.uint64(n_cells)
    # Collect the empty cells into the action slots of ``moves``.
    base = np.uint64(2 * m + 1)
    k = np.uint64(0)
    for c in range(n):
        if state[b + c] == EMPTY:
            moves[base + two * k] = c
            k += one
    # Fisher-Yates shuffle and alternate fill, in one pass.
    p = np.int32(state[S_TO_MOVE])
    cell = np.int32(state[S_LAST])
    for i in range(k):
        ii = base + two * i
        rng, j = below(rng, k - i)
        jj = ii + two * np.uint64(j)
        cell = np.int32(moves[jj])
        moves[jj] = moves[ii]
        moves[ii] = cell
        moves[ii - one] = p
        state[b + np.uint64(cell)] = p + 1
        p = 1 - p

    # Winner: depth-first flood fill from Black's top-row stones, branch-free pushes (a data-
    # dependent branch per neighbour mispredicts half the time). The stack lives in the
    # union-find block; visited stones are marked on the board and unmarked by one pass after.
    size = np.uint64(consts[C_SIZE])
    stack = b + n + one
    nb0 = np.uint64(C_EDGE) + n
    top = np.uint64(0)
    for c in range(size):
        black = np.uint64(state[b + c] == BLACK)
        state[stack + top] = c
        state[b + c] += np.int16(black + black)  # BLACK -> MARK
        top += black
    bottom = n - size
    winner = 1
    while top > 0:
        top -= one
        c = np.uint64(state[stack + top])
        if c >= bottom:
            winner = 0
            break
        nb = nb0 + np.uint64(6) * c
        for t in range(6):  # the downward neighbours come last, so they are explored first
            d = np.uint64(consts[nb + np.uint64(t)])
            black = np.uint64(state[b + d] == BLACK)
            state[stack + top] = d
            state[b + d] += np.int16(black + black)
            top += black
    for c in range(n):
        v = state[b + c]
        state[b + c] = v - np.int16(2) * np.int16(v == MARK)

    state[S_TO_MOVE] = p
    state[S_COUNT] += np.int64(k)
    state[S_WINNER] = winner
    state[S_LAST] = cell
    out[winner] = 1.0
    out[1 - winner] = -1.0
    return m + np.int64(k), rng
