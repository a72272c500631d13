"""Go-style (MoGo) playouts: captures and atari escapes near the last move, 3x3 patterns around
it, then a random move.

Gelly, Wang, Munos and Teytaud, "Modification of UCT with Patterns in Monte-Carlo Go" (INRIA
RR-6062, 2006), section 3.2; the NoGo paper (Chou, Teytaud and Yen 2011, section 3.3) compares them
with naive playouts. Each
move of :func:`go_style_playout`, for the player to move, when the last move was a stone at ``L``:

1. **Capture or escape near the last move.** Candidates: the single liberty of every opponent
   group in atari at ``L`` or among its 8 neighbours (a capture), and the single liberty of every
   own group in atari next to ``L`` if playing there leaves it at least two liberties or
   captures (an escape: :func:`self_atari` says no).
   One is drawn uniformly.
2. **Patterns.** Otherwise the empty 8 neighbours of ``L`` that match a MoGo 3x3 pattern
   (:mod:`mctslab.games.go_patterns`); one is drawn uniformly.
3. **Random.** Otherwise a uniform playable point, as in the random playout; with none, a pass.
4. **Self-atari avoidance** (:func:`safe_go_playout`, ``mcts(playout=go_sa)``): step 2 drops
   pattern points that are a self-atari (:func:`self_atari`) and step 3 rejects self-ataris of two
   stones or more (a lone stone may still be thrown in: nakade and ko need it), as the playout
   policies of Fuego (Enzenberger et al. 2010) and MoGo do; with no other point, a pass.

:func:`nogo_go_style_playout` is the NoGo version (the NoGo paper's "Go playouts against naive
ones in NoGo"): capturing is illegal there, so step 1 does not exist; step 2 takes a legal
pattern point around the last move; step 3 is NoGo's uniform legal draw; a player with no legal
move loses.

Every candidate must be *playable* (legal, superko included, and not an own eye), so the playout
is a legal game that ends, like the random one, in a position area scoring counts exactly.

Wiring. The three playouts have ``random_playout``'s signature (the NoGo one takes ``last`` too).
``mcts(playout=go)`` and ``mcts(playout=go_sa)`` select the Go ones through the playout-policy
mechanism (:mod:`mctslab.search.playouts`, :mod:`mctslab.games.go_policies`); for NoGo,
``nogo_policies`` calls :func:`nogo_go_style_playout` for ``playout=go``. The pattern table is
built when this module is first imported (~0.1 s), so plain Go and NoGo never pay for it.
"""

import numpy as np
from numba import njit

from mctslab.games import nogo_kernels as nk
from mctslab.games.go_kernels import (
    A_EPOS,
    A_GRP,
    A_LN,
    A_LQ,
    A_LS,
    A_SIZE,
    BORDER,
    C_N,
    C_P,
    C_TABLES,
    C_W,
    EMPTY,
    HEADER,
    N_PADDED_ARRAYS,
    S_LAST,
    S_NEMPTY,
    S_RESULT,
    S_TO_MOVE,
    U,
    _one_liberty,
    play_point,
    playable,
    returns,
)
from mctslab.games.go_patterns import TABLE
from mctslab.games.nogo_normal_form import last_liberty
from mctslab.kernels.rng import below

#: candidates of one priority class at most: 9 capture + 4 escape points
MAX_CANDIDATES = 16


@njit(inline="always")
def _liberty(state, g, pp):
    """The single liberty of a group in atari (all its pseudo-liberties are that point)."""
    return state[U(HEADER + A_LS * pp + g)] // state[U(HEADER + A_LN * pp + g)]


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
def _other_liberty(state, g, p, col, w, pp):
    """The liberties the own group ``g`` next to the empty point ``p`` has besides ``p``: -1
    none, -2 two or more, else the one. Its pseudo-liberty sums less the ``k`` adjacencies it has
    with ``p`` (``ln - k``, ``ls - k p``, ``lq - k p²``) hold one distinct point iff
    ``n · lq = ls²`` (Cauchy-Schwarz, as in the kernels)."""
    g0 = HEADER + A_GRP * pp
    k = np.int64(0)
    for d in (-1, 1, -w, w):
        if state[U(HEADER + p + d)] == col and state[U(g0 + p + d)] == g:
            k += 1
    n = np.int64(state[U(HEADER + A_LN * pp + g)]) - k
    if n == 0:
        return np.int64(-1)
    s = np.int64(state[U(HEADER + A_LS * pp + g)]) - k * p
    sq = np.int64(state[U(HEADER + A_LQ * pp + g)]) - k * np.int64(p) * np.int64(p)
    if n * sq != s * s:
        return np.int64(-2)
    return s // n


@njit(inline="always")
def self_atari(state, p, col, w, pp):
    """The stones of the group a ``col`` stone at the empty padded point ``p`` would form, if
    that group would have exactly one liberty and the stone captures nothing; else 0 (not a
    self-atari). O(1) (:func:`_other_liberty`), no allocation.

    The test of Fuego's ``GoBoardUtil::SelfAtari`` (Enzenberger, Müller, Arneson and Segal,
    "Fuego — An Open-Source Framework for Board Games and Go Engine Based on Monte Carlo Tree
    Search", IEEE TCIAIG 2(4), 2010, the playout policy)."""
    g0 = HEADER + A_GRP * pp
    opp = 3 - col
    lib = np.int64(-1)  # the one liberty found so far (p excluded)
    size = np.int64(1)
    seen1 = np.int64(-1)  # the adjacent own groups already counted (three at most matter)
    seen2 = np.int64(-1)
    seen3 = np.int64(-1)
    for d in (-1, 1, -w, w):
        q = p + d
        v = state[U(HEADER + q)]
        x = np.int64(-1)
        if v == EMPTY:
            x = q
        elif v == opp:
            if _one_liberty(state, state[U(g0 + q)], pp):
                return 0  # a capture
        elif v == col:
            g = np.int64(state[U(g0 + q)])
            if g in (seen1, seen2, seen3):
                continue
            if seen1 < 0:
                seen1 = g
            elif seen2 < 0:
                seen2 = g
            else:
                seen3 = g
            size += state[U(HEADER + A_SIZE * pp + g)]
            x = _other_liberty(state, g, p, col, w, pp)
            if x == -2:
                return 0
        if x >= 0:
            if lib < 0:
                lib = x
            elif x != lib:
                return 0
    return size


@njit(inline="always")
def urgent_points(consts, state, cand, w, pp):
    """Step 1 of the Go-style move (module doc): the captures and atari escapes around the last
    move, written into ``cand`` (a scratch buffer of :data:`MAX_CANDIDATES`); returns their
    number (a point may appear twice)."""
    col = state[S_TO_MOVE] + 1
    opp = 3 - col
    last = state[S_LAST]
    k = 0
    if last < 0 or last >= consts[C_N]:
        return 0
    lp = consts[C_TABLES + last]
    g0 = HEADER + A_GRP * pp
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
                if self_atari(state, lib, col, w, pp) == 0 and playable(
                    consts, state, lib, col, w, pp
                ):
                    cand[k] = lib
                    k += 1
    return k


@njit(inline="always")
def pattern_point(state, q, w):
    """Whether the empty padded point ``q`` matches a MoGo 3x3 pattern (go_patterns)."""
    return TABLE[_code(state, q, w, HEADER)] != 0


@njit(inline="always")
def _random_point(consts, state, rng, col, w, pp, safe):
    """A uniformly random playable point for ``col`` (padded numbering), or -1 (a pass); returns
    ``(point, rng)``. Rejected points are swapped to the end of the empty list and the draw is
    repeated among the others (rejection sampling without replacement). ``safe`` also rejects a
    self-atari of two stones or more (:func:`self_atari`; a lone stone may still be thrown in,
    which nakade and ko fights need)."""
    l0 = HEADER + N_PADDED_ARRAYS * pp
    e0 = HEADER + A_EPOS * pp
    k = state[S_NEMPTY]
    found = -1
    while k > 0:
        rng, i = below(rng, k)
        p = state[U(l0 + i)]
        if (not safe or self_atari(state, p, col, w, pp) < 2) and playable(
            consts, state, p, col, w, pp
        ):
            found = p
            break
        k -= 1
        q = state[U(l0 + k)]  # swap the rejected point to the end of the candidates
        state[U(l0 + i)] = q
        state[U(e0 + q)] = i
        state[U(l0 + k)] = p
        state[U(e0 + p)] = k
    return found, rng


@njit(inline="always")
def pattern_points(consts, state, lp, col, cand, k, w, pp, safe):
    """Step 2 of the Go-style move (module doc): append to ``cand[k:]`` the empty 8 neighbours
    of the padded point ``lp`` that match a pattern and that ``col`` may play (with ``safe``,
    no self-atari); returns the new number of candidates."""
    for d in (-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1):
        q = lp + d
        if (
            state[U(HEADER + q)] == EMPTY
            and pattern_point(state, q, w)
            and playable(consts, state, q, col, w, pp)
            and not (safe and self_atari(state, q, col, w, pp) > 0)
        ):
            cand[k] = q
            k += 1
    return k


@njit(inline="always")
def policy_points(consts, state, cand, w, pp, safe):
    """Steps 1 and 2 of the Go-style move (module doc): the captures and atari escapes around the
    last move, else its pattern points (with ``safe``, those that are no self-atari), written
    into ``cand`` (a scratch buffer of :data:`MAX_CANDIDATES`); returns their number (a point may
    appear twice)."""
    k = urgent_points(consts, state, cand, w, pp)
    if k > 0:
        return k
    last = state[S_LAST]
    if last >= 0 and last < consts[C_N]:
        k = pattern_points(
            consts, state, consts[C_TABLES + last], state[S_TO_MOVE] + 1, cand, 0, w, pp, safe
        )
    return k


@njit(inline="always")
def go_style_point(consts, state, rng, cand, w, pp, safe):
    """The point of the next Go-style move (padded numbering) or -1 for a pass; ``(point, rng)``.
    ``cand`` is a scratch buffer of :data:`MAX_CANDIDATES` int64. ``safe``: pattern moves that
    are self-atari and random self-ataris of two stones or more are rejected."""
    k = policy_points(consts, state, cand, w, pp, safe)
    if k > 0:
        rng, i = below(rng, k)
        return cand[i], rng
    return _random_point(consts, state, rng, state[S_TO_MOVE] + 1, w, pp, safe)


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _go_playout(consts, state, rng, moves, out, safe):
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    n = 0
    while state[S_RESULT] < 0:
        point, rng = go_style_point(consts, state, rng, cand, w, pp, safe)
        play_point(consts, state, point, moves, n)
        n += 1
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def go_style_playout(consts, state, rng, moves, out):
    """Go-style playout to the end (module doc); the contract of ``random_playout``."""
    return _go_playout(consts, state, rng, moves, out, np.bool_(False))


@njit(cache=True)
def safe_go_playout(consts, state, rng, moves, out):
    """:func:`go_style_playout` with self-atari avoidance (module doc, step 4)."""
    return _go_playout(consts, state, rng, moves, out, np.bool_(True))


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


@njit(inline="always")
def _around(j, w):
    """The offset of the ``j``-th point of a 3x3 block around a padded point: 0 the point itself,
    1 to 4 its neighbours (``nogo_kernels._offset``), 5 to 8 its diagonals (``-W - 1``,
    ``-W + 1``, ``W - 1``, ``W + 1``)."""
    if j == 0:
        return np.int64(0)
    if j < 5:
        return nk._offset(j - 1, w)
    return (2 * ((j + 1) & 1) - 1) + (w if j >= 7 else -w)


@njit(inline="always")
def _stone_last_liberty(state, q, pp):
    """:func:`nogo_normal_form.last_liberty` of the group of the stone at ``q``."""
    return last_liberty(state, state[U(nk.HEADER + nk.A_GRP * pp + q)], pp)


@njit(inline="always")
def _go_legal_non_eye(state, p, col, w, pp):
    """Whether MoGo's random step may play ``p`` for colour ``col`` by Go's rules: an empty point
    that is not the mover's own eye (every neighbour a stone of the mover or the border) and not
    a suicide (it has an empty neighbour, an own neighbour group with another liberty, or an
    opponent neighbour group in atari, which it captures)."""
    if state[U(nk.HEADER + p)] != nk.EMPTY:
        return False
    eye = True
    ok = False
    for k in range(4):
        q = p + nk._offset(k, w)
        v = state[U(nk.HEADER + q)]
        if v == nk.EMPTY:
            eye = False
            ok = True
        elif v != nk.BORDER:
            atari = _stone_last_liberty(state, q, pp) >= 0
            if v != col:
                eye = False
                ok = ok or atari
            else:
                ok = ok or not atari
    return ok and not eye


@njit(inline="always")
def _nogo_pattern_points(state, lp, col, w, pp, cand, k, go_rules):
    """Append to ``cand`` (from index ``k``) the empty 8 neighbours of padded point ``lp`` that
    match a 3x3 pattern and that colour ``col`` may play: by NoGo's rules, or with ``go_rules``
    by Go's (:func:`_go_legal_non_eye`); returns the new count."""
    for j in range(1, 9):
        q = lp + _around(j, w)
        if (
            state[U(nk.HEADER + q)] == nk.EMPTY
            and TABLE[_code(state, q, w, nk.HEADER)] != 0
            and (
                _go_legal_non_eye(state, q, col, w, pp)
                if go_rules
                else nk._is_legal(state, q, col, w, pp)
            )
        ):
            cand[k] = q
            k += 1
    return k


@njit(inline="always")
def _capture_or_escape(state, lp, col, w, pp, cand):
    """MoGo's step 1 by Go's rules, into ``cand``: the single liberty of every opponent group in
    atari at padded point ``lp`` or among its 8 neighbours (a capture), and of every own group in
    atari next to ``lp`` when that point has two empty neighbours (an escape); returns the
    count."""
    k = 0
    for j in range(9):
        q = lp + _around(j, w)
        v = state[U(nk.HEADER + q)]
        if v == nk.EMPTY or v == nk.BORDER:
            continue
        lib = _stone_last_liberty(state, q, pp)
        if lib < 0:
            continue
        if v != col:
            cand[k] = lib  # capture
            k += 1
        elif j < 5:  # an own group next to the last move
            free = 0
            for kk in range(4):
                free += state[U(nk.HEADER + lib + nk._offset(kk, w))] == nk.EMPTY
            if free >= 2:
                cand[k] = lib  # escape
                k += 1
        if k == MAX_CANDIDATES:
            break
    return k


@njit(inline="always")
def _go_random_point(consts, state, rng, col, w, pp, pts):
    """MoGo's random step by Go's rules: a uniform point :func:`_go_legal_non_eye` allows, -1
    when there is none. Returns ``(point, rng)``."""
    m = 0
    for a in range(consts[nk.C_N]):
        p = np.int64(consts[nk.C_TABLES + a])
        if _go_legal_non_eye(state, p, col, w, pp):
            pts[m] = p
            m += 1
    if m == 0:
        return -1, rng
    rng, i = below(rng, m)
    return pts[i], rng


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _nogo_go_playout(consts, state, rng, moves, out, last, go_rules):
    """The two NoGo playouts with Go's moves (:func:`nogo_go_style_playout`, and with
    ``go_rules`` :func:`nogo_go_unadapted_playout`)."""
    w = np.int64(consts[nk.C_W])
    pp = consts[nk.C_P]
    nn = consts[nk.C_N]
    c0 = nk.HEADER + nk.N_PADDED_ARRAYS * pp
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    pts = np.empty(nn, dtype=np.int64)
    n = 0
    while state[nk.S_WINNER] < 0:
        c = state[nk.S_TO_MOVE]
        col = c + 1
        found = -1
        if last >= 0:
            lp = np.int64(consts[nk.C_TABLES + last])
            k = _capture_or_escape(state, lp, col, w, pp, cand) if go_rules else 0
            if k == 0:
                k = _nogo_pattern_points(state, lp, col, w, pp, cand, 0, go_rules)
            if k > 0:
                rng, i = below(rng, k)
                found = cand[i]
        if found < 0 and go_rules:
            found, rng = _go_random_point(consts, state, rng, col, w, pp, pts)
        if found < 0:
            found, rng = _nogo_draw_legal(state, rng, c, w, pp, c0 + c * nn)
        if found < 0 or (go_rules and not nk._is_legal(state, found, col, w, pp)):
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


@njit(cache=True)
def nogo_go_style_playout(consts, state, rng, moves, out, last):
    """NoGo with Go-style moves (module doc): a legal 3x3-pattern point around the last move
    (``last``: the action played just before the playout, -1 if unknown), else NoGo's uniform
    legal draw; the contract of ``random_playout`` plus ``last``."""
    return _nogo_go_playout(consts, state, rng, moves, out, last, np.bool_(False))


@njit(cache=True)
def nogo_go_unadapted_playout(consts, state, rng, moves, out, last):
    """MoGo's Go playout moved to NoGo unchanged (``playout=go_unadapted``), NoGo's rules judging
    its moves: the reading of the NoGo paper's "standard Go playouts" (§3.3) tested in
    ``experiments/nogo_go_playouts_unadapted.toml``. Each move, for the mover, after the last
    move at ``L`` (``last``, -1 if unknown), as :func:`go_style_playout`'s steps 1 to 3 by Go's
    rules: (1) a capture or an escape near ``L`` (:func:`_capture_or_escape`); (2) an empty
    3x3-pattern point around ``L`` that Go allows; (3) a uniform point Go allows that is not the
    mover's own eye, else NoGo's uniform legal draw. A move NoGo forbids (a capture) loses at
    once, as in the naive playout; a player with no move loses. The contract of
    ``random_playout`` plus ``last``."""
    return _nogo_go_playout(consts, state, rng, moves, out, last, np.bool_(True))
