"""Go-style (MoGo) playouts: captures and atari escapes near the last move, 3x3 patterns around
it, then a random move.

Gelly, Wang, Munos and Teytaud, "Modification of UCT with Patterns in Monte-Carlo Go" (INRIA
RR-6062, 2006), section 3.2; the NoGo paper (Chou, Teytaud and Yen 2011, section 3.3) compares them
with naive playouts. Each
move of :func:`go_style_playout`, for the player to move, when the last move was a stone at ``L``:

1. **Capture or escape near the last move.** Candidates: the single liberty of every opponent
   group in atari at ``L`` or among its 8 neighbours (a capture), and the single liberty of every
   own group in atari next to ``L`` if playing there leaves it at least two liberties (an escape:
   the point has two empty neighbours, or joins an own group with two liberties, or captures).
   One is drawn uniformly.
2. **Patterns.** Otherwise the empty 8 neighbours of ``L`` that match a MoGo 3x3 pattern
   (:mod:`mctslab.games.go_patterns`); one is drawn uniformly.
3. **Random.** Otherwise a uniform playable point, as in the random playout; with none, a pass.

:func:`nogo_go_style_playout` is the NoGo version (the NoGo paper's "Go playouts against naive
ones in NoGo"): capturing is illegal there, so step 1 does not exist; step 2 takes a legal
pattern point around the last move; step 3 is NoGo's uniform legal draw; a player with no legal
move loses.

Every candidate must be *playable* (legal, superko included, and not an own eye), so the playout
is a legal game that ends, like the random one, in a position area scoring counts exactly.

Wiring. Both functions have ``random_playout``'s signature (the NoGo one takes ``last`` too).
``mcts(playout=go)`` selects the Go one through the playout-policy mechanism
(:mod:`mctslab.search.playouts`, :mod:`mctslab.games.go_policies`); for NoGo, ``nogo_policies`` is
to
call :func:`nogo_go_style_playout` for ``playout=go`` (not wired yet). The pattern table is
built when this module is first imported (~0.1 s), so plain Go and NoGo never pay for it.
"""

import numpy as np
from numba import njit

from mctslab.games import nogo_kernels as nk
from mctslab.games.go_kernels import (
    A_GRP,
    A_LN,
    A_LS,
    BORDER,
    C_N,
    C_P,
    C_TABLES,
    C_W,
    EMPTY,
    HEADER,
    S_LAST,
    S_RESULT,
    S_TO_MOVE,
    U,
    _one_liberty,
    play_point,
    playable,
    random_point,
    returns,
)
from mctslab.games.go_patterns import TABLE
from mctslab.kernels.rng import below

#: candidates of one priority class at most: 9 capture + 4 escape points
_MAX_CANDIDATES = 16


@njit(inline="always")
def _liberty(state, g, pp):
    """The single liberty of a group in atari (all its pseudo-liberties are that point)."""
    return state[U(HEADER + A_LS * pp + g)] // state[U(HEADER + A_LN * pp + g)]


@njit(inline="always")
def _escapes(state, q, col, g, w, pp):
    """Whether ``col`` playing at ``q``, the last liberty of its group ``g``, leaves the group
    with two liberties or more (a lower bound: two empty neighbours, a join with another own
    group that has two, or a capture)."""
    empties = 0
    for d in (-1, 1, -w, w):
        y = q + d
        v = state[U(HEADER + y)]
        if v == EMPTY:
            empties += 1
        elif v != BORDER:
            h = state[U(HEADER + A_GRP * pp + y)]
            one = _one_liberty(state, h, pp)
            if v == col and h != g and not one:
                return True
            if v != col and one:
                return True
    return empties >= 2


@njit(inline="always")
def _code(state, q, w, header):
    """The 3x3 neighbourhood code of padded point ``q`` of a board at ``header`` (go_patterns:
    NW, N, NE, W, E, SW, S, SE, two bits each); a point before the board (NoGo's layout has no
    row before the top-left corner's NW diagonal) is off the board."""
    code = 0
    shift = 0
    for d in (-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1):
        y = q + d
        v = np.int64(BORDER) if y < 0 else np.int64(state[U(header + y)])
        code |= v << shift
        shift += 2
    return code


@njit(inline="always")
def go_style_point(consts, state, rng, cand, w, pp):
    """The point of the next Go-style move (padded numbering) or -1 for a pass; ``(point, rng)``.
    ``cand`` is a scratch buffer of :data:`_MAX_CANDIDATES` int64."""
    col = state[S_TO_MOVE] + 1
    opp = 3 - col
    last = state[S_LAST]
    if last >= 0 and last < consts[C_N]:
        lp = consts[C_TABLES + last]
        g0 = HEADER + A_GRP * pp
        k = 0
        for d in (0, -1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1):
            q = lp + d
            v = state[U(HEADER + q)]
            if v == opp:
                g = state[U(g0 + q)]
                if _one_liberty(state, g, pp):
                    lib = _liberty(state, g, pp)
                    if playable(consts, state, lib, col, w, pp):
                        cand[k] = lib
                        k += 1
            elif v == col and d != 0 and (d == -1 or d == 1 or d == -w or d == w):
                g = state[U(g0 + q)]
                if _one_liberty(state, g, pp):
                    lib = _liberty(state, g, pp)
                    if _escapes(state, lib, col, g, w, pp) and playable(
                        consts, state, lib, col, w, pp
                    ):
                        cand[k] = lib
                        k += 1
        if k == 0:
            for d in (-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1):
                q = lp + d
                if (
                    state[U(HEADER + q)] == EMPTY
                    and TABLE[_code(state, q, w, HEADER)] != 0
                    and playable(consts, state, q, col, w, pp)
                ):
                    cand[k] = q
                    k += 1
        if k > 0:
            rng, i = below(rng, k)
            return cand[i], rng
    return random_point(consts, state, rng, col, w, pp)


@njit(cache=True)
def go_style_playout(consts, state, rng, moves, out):
    """Go-style playout to the end (module doc); the contract of ``random_playout``."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    cand = np.empty(_MAX_CANDIDATES, dtype=np.int64)
    n = 0
    while state[S_RESULT] < 0:
        point, rng = go_style_point(consts, state, rng, cand, w, pp)
        play_point(consts, state, point, moves, n)
        n += 1
    returns(consts, state, out)
    return n, rng


@njit(inline="always")
def _nogo_draw_legal(state, rng, c, w, pp, base):
    """NoGo's random_playout draw (written out there: as a helper it cost NoGo ~4%, measured):
    draw a uniform legal point for player ``c`` from their candidate list (at ``base``):
    an illegal draw is dropped from the list for good and the draw repeated, so the point is
    uniform over the legal moves (rejection sampling from a superset). The point drawn leaves
    the list too. Returns ``(point, rng)``, point -1 when the player has no legal move."""
    cnt = state[nk.S_NCAND + c]
    col = c + 1
    found = -1
    while cnt > 0:
        rng, i = below(rng, cnt)
        p = state[U(base + i)]
        cnt -= 1
        state[U(base + i)] = state[U(base + cnt)]
        if nk._is_legal(state, p, col, w, pp):
            found = p
            break
    state[nk.S_NCAND + c] = cnt
    return found, rng


@njit(cache=True)
def nogo_go_style_playout(consts, state, rng, moves, out, last):
    """NoGo with Go-style moves (module doc): a legal 3x3-pattern point around the last move
    (``last``: the action played just before the playout, -1 if unknown), else NoGo's uniform
    legal draw; the contract of ``random_playout`` plus ``last``."""
    w = np.int64(consts[nk.C_W])
    pp = consts[nk.C_P]
    nn = consts[nk.C_N]
    c0 = nk.HEADER + nk.N_PADDED_ARRAYS * pp
    cand = np.empty(8, dtype=np.int64)
    n = 0
    while state[nk.S_WINNER] < 0:
        c = state[nk.S_TO_MOVE]
        col = c + 1
        found = -1
        if last >= 0:
            lp = consts[nk.C_TABLES + last]
            k = 0
            for d in (-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1):
                q = lp + d
                if (
                    state[U(nk.HEADER + q)] == nk.EMPTY
                    and TABLE[_code(state, q, w, nk.HEADER)] != 0
                    and nk._is_legal(state, q, col, w, pp)
                ):
                    cand[k] = q
                    k += 1
            if k > 0:
                rng, i = below(rng, k)
                found = cand[i]
        if found < 0:
            found, rng = _nogo_draw_legal(state, rng, c, w, pp, c0 + c * nn)
        if found < 0:
            state[nk.S_WINNER] = 1 - c
            break
        nk._place(state, found, col, w, pp)
        last = consts[nk.C_TABLES + nn + found]
        moves[2 * n] = c
        moves[2 * n + 1] = last
        n += 1
        state[nk.S_NMOVES] += 1
        state[nk.S_TO_MOVE] = 1 - c
    nk.returns(consts, state, out)
    return n, rng
