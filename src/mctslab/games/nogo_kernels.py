"""NoGo kernels: Go board, Black (player 0) first, no passing; capturing and suicide are illegal.

The player to move with no legal move loses.

Board. A padded one-dimensional board with ``W = size + 1`` columns per row: board row ``r``
(0 = top) and column ``c`` sit at point ``(r + 1) * W + c``. Row 0 and row ``size + 1`` are
border, and column ``size`` is a border column shared by the right edge of one row and the left
edge of the next, so the four neighbours of a point are ``p - 1, p + 1, p - W, p + W`` with no
bounds test. ``P = (size + 2) * W`` points in all. Actions are ``row * size + col`` (coords.py);
``consts`` holds the tables between the two numberings.

Groups. Stones are never removed in NoGo, so groups only grow. Each stone stores its group's
representative (``grp``) and the next stone of its group in a circular list (``nxt``); merging
relabels the smaller group. Each representative stores its group's size and three sums over its
*pseudo-liberties* (one per stone-empty adjacency): their number ``ln``, the sum of their points
``ls`` and the sum of their squares ``lq``. A group has no liberty iff ``ln == 0`` and exactly
one distinct liberty iff ``ln * lq == ls * ls`` (Cauchy-Schwarz: equality iff all terms are the
same point). That is all legality needs: playing at ``p`` is illegal iff an adjacent opponent
group has ``p`` as its only liberty (a capture), or ``p`` has no empty neighbour and every adjacent
own group has ``p`` as its only liberty (suicide).

Candidates. Once a point is illegal for a player it stays illegal (stones only accumulate, groups
only lose liberties), so each player keeps a list of candidate points (every point that may still
be legal for them, in no particular order). Kernels drop a candidate when they find it illegal; the
list is always a superset of the player's legal moves. ``apply_action`` checks that the next player
still has a legal move (pruning their list until it finds one) and sets the winner otherwise, so
``current_player`` is two array reads.

State (int32), ``HEADER = 8`` then seven arrays of ``P`` and two of ``N = size * size``::

    [0] to_move (0 Black, 1 White)    [1] winner (-1 while the game goes on)
    [2] moves played                   [3] candidates of Black   [4] candidates of White
    [5..7] unused
    board[P]  0 empty, 1 Black, 2 White, 3 border (colour = player + 1)
    grp[P] nxt[P] size[P] ln[P] ls[P] lq[P]      (size and liberty sums valid at representatives)
    cand0[N] cand1[N]                            candidate points (padded numbering)

Constants (int32): ``[size, W, N, P, state_size, 0, 0, 0]`` then ``pad_of_action[N]`` then
``action_of_pad[P]`` (-1 off the board). Build them with :func:`make_consts`.

The sums fit int32 up to 19x19: at most 4N pseudo-liberties of points below P <= 420.
"""

import numpy as np
from numba import njit

from mctslab.games.common_kernels import (  # noqa: F401  (contract kernels)
    apply_chance,
    chance_outcomes,
    two_player_win_returns,
)
from mctslab.games.go_groups import add_stone
from mctslab.kernels.rng import below

STATE_DTYPE = np.int32
#: index arrays with unsigned integers: no negative-index wraparound test (docs/architecture.md,
#: speed traps)
U = np.uint64

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
C_SIZE, C_W, C_N, C_P, C_STATE_SIZE = 0, 1, 2, 3, 4
C_TABLES = 8
S_TO_MOVE, S_WINNER, S_NMOVES, S_NCAND = 0, 1, 2, 3
HEADER = 8
# array k of the seven padded arrays starts at HEADER + k * P
A_BOARD, A_GRP, A_NXT, A_SIZE, A_LN, A_LS, A_LQ = 0, 1, 2, 3, 4, 5, 6
N_PADDED_ARRAYS = 7


def padded_width(size: int) -> int:
    return size + 1


def state_size(size: int) -> int:
    w = padded_width(size)
    return HEADER + N_PADDED_ARRAYS * (size + 2) * w + 2 * size * size


def make_consts(size: int) -> np.ndarray:
    """The int32 constants array for a ``size`` x ``size`` board (layout in the module doc)."""
    w = padded_width(size)
    n = size * size
    p = (size + 2) * w
    consts = np.zeros(C_TABLES + n + p, dtype=np.int32)
    consts[C_SIZE], consts[C_W], consts[C_N], consts[C_P] = size, w, n, p
    consts[C_STATE_SIZE] = state_size(size)
    consts[C_TABLES + n :] = -1
    for a in range(n):
        r, c = divmod(a, size)
        q = (r + 1) * w + c
        consts[C_TABLES + a] = q
        consts[C_TABLES + n + q] = a
    return consts


@njit(inline="always")
def _offset(k, w):
    """The offset of the ``k``-th (0 to 3) neighbour of a padded point: -1, +1, -W, +W. Loops
    over the four neighbours run ``for k in range(4)`` with this, not over the tuple
    ``(-1, 1, -w, w)``: Numba indexes a tuple through a switch whose default raises IndexError,
    and a raising path keeps Numba's pruning pass from removing the atomic reference-count
    updates of the arrays the surrounding (inlined) code uses (see
    :func:`mctslab.kernels.views.borrow`)."""
    return (2 * (k & 1) - 1) * (np.int64(1) if k < 2 else np.int64(w))


@njit(inline="always")
def _is_legal(state, p, col, w, pp):
    """Whether colour ``col`` (1 or 2) may play at padded point ``p``."""
    if state[U(HEADER + p)] != EMPTY:
        return False
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    ok = False
    w = np.int64(w)
    for kd in range(4):
        d = _offset(kd, w)
        q = p + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            ok = True
        elif v != BORDER:
            g = state[U(g0 + q)]
            s = np.int64(state[U(ls0 + g)])
            atari = np.int64(state[U(ln0 + g)]) * np.int64(state[U(lq0 + g)]) == s * s
            if v != col:
                if atari:
                    return False  # would capture
            elif not atari:
                ok = True
    return ok


@njit(inline="always")
def _place(state, p, col, w, pp):
    """Put a stone of colour ``col`` at padded point ``p`` and update groups and liberties."""
    add_stone(state, p, col, w, pp, HEADER)


@njit(inline="always")
def _prune_until_legal(consts, state, player):
    """Drop the player's illegal candidates from the end of the list until a legal one is on top;
    return the number left (0: the player has no legal move)."""
    w = consts[C_W]
    pp = consts[C_P]
    n = consts[C_N]
    base = HEADER + N_PADDED_ARRAYS * pp + player * n
    cnt = state[S_NCAND + player]
    while cnt > 0:
        if _is_legal(state, state[base + cnt - 1], player + 1, w, pp):
            break
        cnt -= 1
    state[S_NCAND + player] = cnt
    return cnt


@njit(cache=True)
def init_state(consts, state):
    n = consts[C_N]
    pp = consts[C_P]
    state[:] = 0
    state[S_WINNER] = -1
    state[S_NCAND] = n
    state[S_NCAND + 1] = n
    for q in range(pp):
        state[HEADER + q] = BORDER
    c0 = HEADER + N_PADDED_ARRAYS * pp
    for a in range(n):
        q = consts[C_TABLES + a]
        state[HEADER + q] = EMPTY
        state[c0 + a] = q
        state[c0 + n + a] = q


@njit(cache=True)
def current_player(consts, state):
    if state[S_WINNER] >= 0:
        return -4
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def legal_actions(consts, state, out):
    if state[S_WINNER] >= 0:
        return 0
    w = consts[C_W]
    pp = consts[C_P]
    col = state[S_TO_MOVE] + 1
    k = 0
    for a in range(consts[C_N]):
        if _is_legal(state, consts[C_TABLES + a], col, w, pp):
            out[k] = a
            k += 1
    return k


@njit(cache=True)
def legality_planes(consts, state, out):
    """``out[k, action]`` = 1 where the player to move (``k = 0``) or the opponent (``k = 1``)
    may play, 0 elsewhere (float32 ``[2, N]``; terminal positions too): the observation's
    legality planes."""
    w = consts[C_W]
    pp = consts[C_P]
    mover = state[S_TO_MOVE]
    for k in range(2):
        col = (mover + k) % 2 + 1
        for a in range(consts[C_N]):
            out[k, a] = 1.0 if _is_legal(state, consts[C_TABLES + a], col, w, pp) else 0.0


@njit(cache=True)
def apply_action(consts, state, action):
    mover = state[S_TO_MOVE]
    _place(state, consts[C_TABLES + action], mover + 1, consts[C_W], consts[C_P])
    state[S_NMOVES] += 1
    state[S_TO_MOVE] = 1 - mover
    if _prune_until_legal(consts, state, 1 - mover) == 0:
        state[S_WINNER] = mover


@njit(cache=True)
def returns(consts, state, out):
    two_player_win_returns(state[S_WINNER], out)


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    """Uniform random legal moves to the end.

    The mover draws a uniform candidate; an illegal one is dropped from their list for good and
    the draw repeated, so the move played is uniform over the legal moves (rejection sampling
    from a superset). The move played leaves the mover's list at once; the opponent drops it
    when they draw it.
    """
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    a0 = C_TABLES + nn
    c0 = HEADER + N_PADDED_ARRAYS * pp
    n = 0
    if state[S_WINNER] < 0:
        c = state[S_TO_MOVE]
        while True:
            base = c0 + c * nn
            cnt = state[S_NCAND + c]
            col = c + 1
            found = -1
            while cnt > 0:
                rng, i = below(rng, cnt)
                p = state[U(base + i)]
                cnt -= 1
                state[U(base + i)] = state[U(base + cnt)]
                if _is_legal(state, p, col, w, pp):
                    found = p
                    break
            state[S_NCAND + c] = cnt
            if found < 0:
                state[S_WINNER] = 1 - c
                break
            _place(state, found, col, w, pp)
            moves[2 * n] = c
            moves[2 * n + 1] = consts[U(a0 + found)]
            n += 1
            c = 1 - c
            state[S_TO_MOVE] = c
        state[S_NMOVES] += n
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def setup_position(consts, state, colours, to_move):
    """Set up any position: ``colours[action]`` is 0 empty, 1 Black, 2 White.

    Returns 0, or ``1 + action`` of a stone whose group has no liberty (not a NoGo position).
    Sets the winner if ``to_move`` has no legal move. Candidates start as every point.
    """
    init_state(consts, state)
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    for a in range(nn):
        if colours[a] != 0:
            _place(state, consts[C_TABLES + a], colours[a], w, pp)
            state[S_NMOVES] += 1
    for a in range(nn):
        q = consts[C_TABLES + a]
        if colours[a] != 0 and state[HEADER + A_LN * pp + state[HEADER + A_GRP * pp + q]] == 0:
            return 1 + a
    state[S_TO_MOVE] = to_move
    if _prune_until_legal(consts, state, to_move) == 0:
        state[S_WINNER] = 1 - to_move
    return 0
