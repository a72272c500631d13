"""Fuego's playout rules beyond the MoGo-style ones: ``mcts(playout=go_fuego)``.

Enzenberger, Müller, Arneson and Segal, "Fuego — An Open-Source Framework for Board Games and Go
Engine Based on Monte Carlo Tree Search" (IEEE TCIAIG 2(4), 2010), the playout policy
(``GoUctDefaultPlayoutPolicy::GenerateMove``), in Fuego's order. Each move, for the player to
move, when the last move was a stone at ``L``:

1. **Capture or escape near the last move**, as in :mod:`mctslab.games.go_playouts` (step 1),
   plus the escape by capture (Fuego's ``GenerateAtariDefenseMove``): for each own group in
   atari next to ``L``, the liberty of every opponent group in atari next to it.
2. **Low liberties** (``GenerateLowLibMove``): if ``L``'s group has two liberties, each of them
   at which a stone of ``L``'s colour would gain liberties (``GainsLiberties``: the liberty the
   group needs, so taking it presses the group hardest); and for each own group next to ``L``
   with two liberties, each liberty at which it gains liberties. None may be a self-atari.
3. **Patterns** around ``L`` that are no self-atari (``go_sa``'s step 2).
4. **Captures anywhere** (Fuego's ``CaptureGenerator``): the liberty of every opponent group
   in atari among the groups the playout has put in atari so far (after each stone, the stone
   and its neighbours whose groups are in atari are noted; a note is dropped once its group is
   captured or out of atari).
5. **Random**, self-ataris of two stones or more rejected (``go_sa``'s step 3); with no
   playable point, a pass.

One candidate of the first non-empty step is drawn uniformly. Fuego corrects a self-atari move
to the group's other liberty instead of rejecting it (``DoSelfAtariCorrection``); here steps 1
to 3 drop them and step 5 rejects them, as ``go_sa`` does. Every candidate is *playable*
(legal, superko included, not an own eye). Measured against ``go_sa`` in docs/strength.md
("Go: Fuego's low-liberty and global capture rules").
"""

import numpy as np
from numba import njit

from mctslab.games.go_kernels import (
    A_GRP,
    A_LN,
    A_NXT,
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
    returns,
)
from mctslab.games.go_playouts import (
    _around,
    _liberty,
    _random_point,
    pattern_points,
    self_atari,
    urgent_points,
)
from mctslab.kernels.rng import below

#: candidates of one step at most (captures and escapes near the last move: 13; escapes by
#: capture and low-liberty moves: a few each)
MAX_CANDIDATES = 48
#: stones whose groups were put in atari during the playout, kept for step 4
MAX_NOTES = 64


@njit(inline="always")
def _liberties(state, g, w, pp, buf):
    """The distinct liberties of the group ``g``, up to three, written into ``buf[0:3]``;
    returns their number (3: three or more)."""
    x0 = HEADER + A_NXT * pp
    k = 0
    s = g
    while True:
        for d in (-1, 1, -w, w):
            q = s + d
            if (
                state[U(HEADER + q)] == EMPTY
                and not (k > 0 and buf[0] == q)
                and not (k > 1 and buf[1] == q)
            ):
                buf[k] = q
                k += 1
                if k == 3:
                    return 3
        s = state[U(x0 + s)]
        if s == g:
            return k


@njit(inline="always")
def _liberty_of(state, x, g, w, pp):
    """Whether the empty point ``x`` is a liberty of the group ``g``."""
    g0 = HEADER + A_GRP * pp
    for d in (-1, 1, -w, w):
        q = x + d
        v = state[U(HEADER + q)]
        if v != EMPTY and v != BORDER and state[U(g0 + q)] == g:
            return True
    return False


@njit(inline="always")
def gains_liberties(state, g, col, lib, w, pp, buf):
    """Fuego's ``GainsLiberties``: whether a ``col`` stone at ``lib`` (a liberty of ``col``'s
    group ``g``) would leave the group more liberties than it has: ``lib`` itself is lost, so
    it needs two new ones, from ``lib``'s empty neighbours or the liberties of the other own
    groups it joins, that are not already the group's. Captures are not counted (step 1 has
    them). As in Fuego, a point that is both an empty neighbour of ``lib`` and a liberty of a
    joined group counts twice; unlike Fuego, only the first three liberties found of each joined
    group are read, so a joined group with four or more can be undercounted."""
    g0 = HEADER + A_GRP * pp
    g = np.int64(g)
    gained = np.int64(-1)
    other1 = np.int64(-1)
    other2 = np.int64(-1)
    for d in (-1, 1, -w, w):
        q = lib + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            if not _liberty_of(state, q, g, w, pp):
                gained += 1
                if gained > 0:
                    return True
        elif v == col:
            g2 = np.int64(state[U(g0 + q)])
            if g2 in (g, other1, other2):
                continue
            if other1 < 0:
                other1 = g2
            else:
                other2 = g2
            n = _liberties(state, g2, w, pp, buf)
            for j in range(n):
                y = buf[j]
                if y != lib and not _liberty_of(state, y, g, w, pp):
                    gained += 1
                    if gained > 0:
                        return True
    return False


@njit(inline="always")
def _good_liberties(consts, state, g, col, mover, w, pp, cand, k, buf):
    """Step 2 for the group ``g`` of colour ``col`` with two liberties: append each liberty at
    which ``col`` would gain liberties, if ``mover`` may play it without self-atari. Two
    points have at most 4 adjacencies each, so a group with more than 8 pseudo-liberties has
    three or more: no walk for it (nor for one in atari)."""
    if state[U(HEADER + A_LN * pp + g)] > 8 or _one_liberty(state, g, pp):
        return k
    n = _liberties(state, g, w, pp, buf)
    if n != 2:
        return k
    a = buf[0]
    b = buf[1]
    for lib in (a, b):
        if (
            k < MAX_CANDIDATES
            and gains_liberties(state, g, col, lib, w, pp, buf)
            and self_atari(state, lib, mover, w, pp) == 0
            and playable(consts, state, lib, mover, w, pp)
        ):
            cand[k] = lib
            k += 1
    return k


@njit(inline="always")
def _escape_by_capture(consts, state, lp, col, w, pp, cand, k):
    """Step 1's escape by capture: for each own group in atari next to ``lp``, the liberty of
    every opponent group in atari next to it."""
    g0 = HEADER + A_GRP * pp
    x0 = HEADER + A_NXT * pp
    opp = 3 - col
    for d in (-1, 1, -w, w):
        q = lp + d
        if state[U(HEADER + q)] != col:
            continue
        g = state[U(g0 + q)]
        if not _one_liberty(state, g, pp):
            continue
        s = g
        while True:
            for e in (-1, 1, -w, w):
                r = s + e
                if state[U(HEADER + r)] == opp and k < MAX_CANDIDATES:
                    h = state[U(g0 + r)]
                    if _one_liberty(state, h, pp):
                        lib = _liberty(state, h, pp)
                        if playable(consts, state, lib, col, w, pp):
                            cand[k] = lib
                            k += 1
            s = state[U(x0 + s)]
            if s == g:
                break
    return k


@njit(inline="always")
def _low_liberty_points(consts, state, lp, col, w, pp, cand, k, buf):
    """Step 2 (module doc) around the last move's point ``lp``."""
    g0 = HEADER + A_GRP * pp
    opp = 3 - col
    k = _good_liberties(consts, state, state[U(g0 + lp)], opp, col, w, pp, cand, k, buf)
    seen1 = np.int64(-1)
    seen2 = np.int64(-1)
    seen3 = np.int64(-1)
    for d in (-1, 1, -w, w):
        q = lp + d
        if state[U(HEADER + q)] != col:
            continue
        g = np.int64(state[U(g0 + q)])
        if g in (seen1, seen2, seen3):
            continue
        if seen1 < 0:
            seen1 = g
        elif seen2 < 0:
            seen2 = g
        else:
            seen3 = g
        k = _good_liberties(consts, state, g, col, col, w, pp, cand, k, buf)
    return k


@njit(inline="always")
def _global_captures(consts, state, col, w, pp, notes, n_notes, cand):
    """Step 4: the liberties of the opponent groups in atari among the ``notes``; drops the
    notes whose stone is gone or whose group is out of atari. Returns ``(candidates, notes)``."""
    g0 = HEADER + A_GRP * pp
    opp = 3 - col
    k = 0
    i = 0
    while i < n_notes:
        q = notes[i]
        v = state[U(HEADER + q)]
        if v == EMPTY or not _one_liberty(state, state[U(g0 + q)], pp):
            n_notes -= 1
            notes[i] = notes[n_notes]
            continue
        if v == opp and k < MAX_CANDIDATES:
            lib = _liberty(state, state[U(g0 + q)], pp)
            if playable(consts, state, lib, col, w, pp):
                cand[k] = lib
                k += 1
        i += 1
    return k, n_notes


@njit(inline="always")
def note_ataris(state, p, w, pp, notes, n_notes):
    """After a stone at ``p``: note it and its stone neighbours whose groups are in atari
    (step 4's candidates). Returns the new number of notes."""
    g0 = HEADER + A_GRP * pp
    for j in range(5):
        q = p + _around(j, w)
        v = state[U(HEADER + q)]
        if (
            v != EMPTY
            and v != BORDER
            and n_notes < MAX_NOTES
            and _one_liberty(state, state[U(g0 + q)], pp)
        ):
            notes[n_notes] = q
            n_notes += 1
    return n_notes


@njit(inline="always")
def fuego_points(consts, state, cand, w, pp, notes, n_notes, buf):
    """Steps 1 to 4 (module doc): the candidates of the first step that has any, written into
    ``cand`` (:data:`MAX_CANDIDATES`); returns ``(their number, the notes kept)``. ``buf`` is a
    scratch of three points."""
    col = state[S_TO_MOVE] + 1
    last = state[S_LAST]
    if last >= 0 and last < consts[C_N]:
        lp = consts[C_TABLES + last]
        k = urgent_points(consts, state, cand, w, pp)
        k = _escape_by_capture(consts, state, lp, col, w, pp, cand, k)
        if k > 0:
            return k, n_notes
        if state[U(HEADER + lp)] != EMPTY:
            k = _low_liberty_points(consts, state, lp, col, w, pp, cand, k, buf)
            if k > 0:
                return k, n_notes
        k = pattern_points(consts, state, lp, col, cand, 0, w, pp, True)
        if k > 0:
            return k, n_notes
    return _global_captures(consts, state, col, w, pp, notes, n_notes, cand)


@njit(cache=True)
def fuego_playout(consts, state, rng, moves, out):
    """The ``go_fuego`` playout to the end (module doc); the contract of ``random_playout``."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    notes = np.empty(MAX_NOTES, dtype=np.int64)
    buf = np.empty(3, dtype=np.int64)
    n_notes = 0
    n = 0
    while state[S_RESULT] < 0:
        k, n_notes = fuego_points(consts, state, cand, w, pp, notes, n_notes, buf)
        if k > 0:
            rng, i = below(rng, k)
            point = cand[i]
        else:
            point, rng = _random_point(consts, state, rng, state[S_TO_MOVE] + 1, w, pp, True)
        play_point(consts, state, point, moves, n)
        n += 1
        if point >= 0:
            n_notes = note_ataris(state, point, w, pp, notes, n_notes)
    returns(consts, state, out)
    return n, rng
