"""NoGo's normal-form scores, from scratch and kept up to date as a playout places stones.

The normal-form heuristic of Chou, Teytaud and Yen (2011, *Revisiting Monte-Carlo Tree Search
on a Normal Form Game: NoGo*, §3.5): for a legal move ``m`` of the mover, ``a`` = legal moves it
removes from the opponent and ``b`` = legal moves it removes from the mover (``m`` itself
included for whoever could play it); ``a'``, ``b'`` the same when the opponent plays at ``m``
(``a'`` removed from the mover's opponent, ``b'`` from the mover; both 0 if ``m`` is illegal for
the opponent). ``nf`` plays uniformly among the moves maximising ``a - b``, ``nf2`` among those
maximising ``a - b - a' + b'``. Writing ``f_c(m)`` for ``a - b`` when colour ``c`` plays ``m``,
the two-sided score of the mover ``c`` is ``f_c(m) + f_o(m)`` (``o`` the opponent; the second term
only where ``m`` is legal for ``o``), so both scores come from the two ``f`` of each point.

**From scratch** (:func:`nf_scores`, :func:`_nf_score`). Placing a stone at ``m`` can only change
the legality of ``m``, its empty neighbours and the liberties of the groups adjacent to ``m``
whose atari status changes (legality depends on a point's neighbours and on whether their groups
are in atari), so only those points are tested, before ``m`` and as they would be after it: the
groups next to ``m`` get their liberty sums after the move computed from the kernels' sums,
nothing is copied or played.

**Kept up to date** (:func:`nf_fill`, :func:`nf_place`, :func:`nf_pick`; the ``nf`` and ``nf2``
playouts). Each empty point keeps its legality for both colours, whether a group of each colour
outside atari touches it (*safe*; both change only where legality is tested again, below), both
``f`` and its number of empty neighbours; each colour keeps its legal points in buckets by score,
so a move is a uniform draw from the top bucket. After a stone at ``p`` only the points whose score
may have changed are scored again (:func:`nf_place`):

* ``p`` and its empty neighbours (their neighbourhood changed);
* where legality changed or a point has at most one empty neighbour left (a point's legality
  changes only at ``p``, at its neighbours and at the last liberty of a group that ``p`` put in
  atari), that point's empty neighbours and the liberties of the groups next to it that have at
  most two: a move next to such a group can put it in atari and so change the legality of its
  other liberty, and a score reads the legality of its neighbours before and after;
* the liberties of the groups next to ``p`` that have at most two liberties, before the move
  (the mover's groups, which merge) or after it (the merged group and the opponent's groups,
  which lost ``p``): whether a move at such a liberty leaves the group in atari has changed.

A score is computed in O(1) when the move puts no group in atari (the usual case):
``f_c(m) = [m legal for o] - 1 + #{x}`` over the empty neighbours ``x`` of ``m`` whose only empty
neighbour is ``m``, that ``o`` may play now and where ``o`` is not safe (``o`` at ``x`` would be
suicide after ``m``), read from the kept flags; otherwise by :func:`_f`.
``tests/test_nf_incremental.py`` checks every kept score against :func:`nf_scores`, and the kept
legality and safe flags against :func:`legal_safe`, after every move of many random games.
"""

import numpy as np
from numba import njit

from mctslab.games.nogo_kernels import (
    A_GRP,
    A_LN,
    A_LQ,
    A_LS,
    A_NXT,
    BORDER,
    C_N,
    C_P,
    C_TABLES,
    C_W,
    EMPTY,
    HEADER,
    S_TO_MOVE,
    U,
    _is_legal,
    _offset,
    _place,
)
from mctslab.kernels.rng import below
from mctslab.kernels.views import borrow

#: |a - b| <= 9 (``a`` and ``b`` count points among ``m``, its four neighbours and the last
#: liberties of the four groups around it), so a two-sided score lies in [-18, 18]: bucket
#: ``score + OFFSET`` of :data:`N_BUCKETS`.
OFFSET = 20
N_BUCKETS = 2 * OFFSET + 1


@njit(inline="always")
def _affected(state, m, w, pp, aff, seen, stamp, gbuf, k, two_sided):
    """Collect into ``aff`` the points whose legality a stone at ``m`` may change: ``m``, its
    empty neighbours, and the liberties of the neighbouring groups whose atari status the move
    changes (``gbuf`` from :func:`_after` for the mover at offset 0 and, with ``two_sided``, for
    the opponent at offset 8). A point's legality depends only on its neighbours' colours and
    on whether their groups are in atari, so no other point can change. Returns their number."""
    w = np.int64(w)
    x0 = HEADER + A_NXT * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    aff[0] = m
    seen[m] = stamp
    n = 1
    for kd in range(4):
        d = _offset(kd, w)
        q = m + d
        if state[U(HEADER + q)] == EMPTY and seen[q] != stamp:
            seen[q] = stamp
            aff[n] = q
            n += 1
    for j in range(k):
        g = gbuf[j]
        before = np.int64(_atari(state, g, ln0, ls0, lq0, 0, 0, 0))
        if before == gbuf[4 + j] and not (two_sided and before != gbuf[12 + j]):
            continue
        s = g
        while True:
            for ke in range(4):
                e = _offset(ke, w)
                r = s + e
                if state[U(HEADER + r)] == EMPTY and seen[r] != stamp:
                    seen[r] = stamp
                    aff[n] = r
                    n += 1
            s = state[U(x0 + s)]
            if s == g:
                break
    return n


@njit(inline="always")
def _atari(state, g, ln0, ls0, lq0, dn, ds, dq):
    """Whether the group with representative ``g``, its pseudo-liberty sums changed by
    ``(dn, ds, dq)``, has at most one distinct liberty (``ln lq == ls^2``, see the kernels)."""
    n = np.int64(state[U(ln0 + g)]) + dn
    s = np.int64(state[U(ls0 + g)]) + ds
    q = np.int64(state[U(lq0 + g)]) + dq
    return n * q == s * s


@njit(inline="always")
def _after(state, m, col, w, pp, gbuf, off):
    """Describe the position after colour ``col`` plays the legal point ``m`` without playing it:
    ``gbuf[0:4]`` the distinct groups adjacent to ``m``, ``gbuf[4:8]`` whether each is in atari
    afterwards (an opponent group loses the liberty ``m`` once per adjacency; the mover's groups
    merge with ``m`` into one group whose sums are theirs, less ``m``, plus ``m``'s empty
    neighbours). Written at ``gbuf[off:off + 8]``. Returns ``(groups, merged group in atari)``."""
    w = np.int64(w)
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    k = 0
    mn = np.int64(0)
    ms = np.int64(0)
    mq = np.int64(0)
    m2 = np.int64(m) * np.int64(m)
    for kd in range(4):
        d = _offset(kd, w)
        q = m + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            mn += 1
            ms += q
            mq += np.int64(q) * np.int64(q)
        elif v != BORDER:
            g = state[U(g0 + q)]
            seen = False
            for j in range(k):
                if gbuf[off + j] == g:
                    seen = True
            if not seen:
                gbuf[off + k] = g
                gbuf[off + 4 + k] = v
                k += 1
    merged_atari = False
    for j in range(k):
        g = gbuf[off + j]
        adj = np.int64(0)
        for kd in range(4):
            d = _offset(kd, w)
            adj += state[U(g0 + m + d)] == g and state[U(HEADER + m + d)] != EMPTY
        if gbuf[off + 4 + j] != col:
            gbuf[off + 4 + j] = _atari(state, g, ln0, ls0, lq0, -adj, -adj * m, -adj * m2)
        else:
            mn += np.int64(state[U(ln0 + g)]) - adj
            ms += np.int64(state[U(ls0 + g)]) - adj * m
            mq += np.int64(state[U(lq0 + g)]) - adj * m2
            gbuf[off + 4 + j] = -1  # the mover's group: merged
    merged_atari = mn * mq == ms * ms
    for j in range(k):
        if gbuf[off + 4 + j] == -1:
            gbuf[off + 4 + j] = merged_atari
    return k, merged_atari


@njit(inline="always")
def _legal_after(state, x, colour, m, col, k, merged_atari, gbuf, off, w, pp):
    """``_is_legal`` for ``colour`` at ``x`` in the position after ``col`` plays ``m`` (described
    by :func:`_after`): the same test, reading the changed board point and atari statuses."""
    if x == m or state[U(HEADER + x)] != EMPTY:
        return False
    w = np.int64(w)
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    ok = False
    for kd in range(4):
        d = _offset(kd, w)
        q = x + d
        if q == m:
            v = col
            atari = merged_atari
        else:
            v = state[U(HEADER + q)]
            atari = False
            if v != EMPTY and v != BORDER:
                g = state[U(g0 + q)]
                found = False
                for j in range(k):
                    if gbuf[off + j] == g:
                        atari = gbuf[off + 4 + j] != 0
                        found = True
                if not found:
                    atari = _atari(state, g, ln0, ls0, lq0, 0, 0, 0)
        if v == EMPTY:
            ok = True
        elif v != BORDER:
            if v != colour:
                if atari:
                    return False
            elif not atari:
                ok = True
    return ok


@njit(inline="always")
def _removed(state, m, col, aff, k_aff, k, merged_atari, gbuf, off, w, pp):
    """Legal moves removed for colour ``col`` and for the other colour when ``col`` plays at
    ``m`` (described by :func:`_after` at ``off``), counted over ``aff[:k_aff]``, the only
    points that can change."""
    other = 3 - col
    lost_me = 0
    lost_other = 0
    for j in range(k_aff):
        x = aff[j]
        lost_me += _is_legal(state, x, col, w, pp) and not _legal_after(
            state, x, col, m, col, k, merged_atari, gbuf, off, w, pp
        )
        lost_other += _is_legal(state, x, other, w, pp) and not _legal_after(
            state, x, other, m, col, k, merged_atari, gbuf, off, w, pp
        )
    return lost_me, lost_other


@njit(inline="always")
def _nf_score(state, gbuf, m, col, two_sided, aff, seen, stamp, w, pp):
    """The score of colour ``col``'s legal move ``m`` from scratch (module doc); ``aff`` and
    ``seen`` are scratch of P points, ``stamp`` new for each call."""
    k, merged = _after(state, m, col, w, pp, gbuf, 0)
    theirs = two_sided and _is_legal(state, m, 3 - col, w, pp)
    merged2 = False
    if theirs:
        _, merged2 = _after(state, m, 3 - col, w, pp, gbuf, 8)
    n_aff = _affected(state, m, w, pp, aff, seen, stamp, gbuf, k, theirs)
    b, a = _removed(state, m, col, aff, n_aff, k, merged, gbuf, 0, w, pp)
    score = a - b
    if theirs:
        a2, b2 = _removed(state, m, 3 - col, aff, n_aff, k, merged2, gbuf, 8, w, pp)
        score += b2 - a2  # a2 = a' (removed from the opponent), b2 = b' (from the mover)
    return score


@njit(cache=True)
def nf_scores(consts, state, c, two_sided, points, scores):
    """The normal-form score of every legal move of player ``c`` (``a - b``, or with
    ``two_sided`` ``a - b - a' + b'``) from scratch, for tests and tools: writes padded points
    and scores, returns their number."""
    w = consts[C_W]
    pp = consts[C_P]
    gbuf = np.zeros(16, dtype=np.int64)
    aff = np.empty(pp, dtype=np.int64)
    seen = np.zeros(pp, dtype=np.int64)
    col = c + 1
    k = 0
    for a in range(consts[C_N]):
        m = consts[C_TABLES + a]
        if not _is_legal(state, m, col, w, pp):
            continue
        scores[k] = _nf_score(state, gbuf, m, col, two_sided, aff, seen, k + 1, w, pp)
        points[k] = a
        k += 1
    return k


#: The kept scores live in one int64 array (views or a record of arrays cost reference counting
#: on every access in compiled code, measured 2 to 3 times slower). Arrays of P points, colour
#: ``c`` (0 Black, 1 White) of point ``x`` at ``c * P + x``; each starts at ``T_... * P``:
T_EMPTIES = 0  # [P] empty neighbours of each empty point
T_LEGAL = 1  # [2P] 1 where the colour may play
T_F = 3  # [2P] a - b where the colour may play
T_SLOT = 5  # [2P] the colour's bucket holding the point (score + OFFSET), -1 none
T_POS = 7  # [2P] the point's index in that bucket
T_MARK = 9  # [P] the stamp of the points to score again
T_DIRTY = 10  # [P] those points
T_WALKED = 11  # [P] at a group's representative: the mark stamp when its liberties were marked
T_SAFE = 12  # [2P] 1 where a group of the colour outside atari is next to the empty point
T_TAIL = 14
#: then, from ``T_TAIL * P``: the groups around a point ``[0:4]``, their colours ``[4:8]``,
#: adjacencies ``[8:12]``, whether a stone at the point leaves them one liberty ``[12:16]``, the
#: points whose legality a move there may change ``[16:25]``; the mark stamp and the number of
#: points marked; the top occupied bucket of each colour (at most); the number of points in each
#: bucket; the buckets' points (``N`` each).
NB, STAMP, MARKED, TOP, COUNT = 0, 25, 26, 27, 29
ITEMS = COUNT + 2 * N_BUCKETS


@njit(inline="always")
def _mark(t, z, pp):
    """Put ``z`` among the points to score again (once per move)."""
    tail = T_TAIL * pp
    st = t[U(tail + STAMP)]
    if t[U(T_MARK * pp + z)] != st:
        t[U(T_MARK * pp + z)] = st
        t[U(T_DIRTY * pp + t[U(tail + MARKED)])] = z
        t[U(tail + MARKED)] += 1


@njit(inline="always")
def last_liberty(state, g, pp):
    """The one liberty of the group ``g`` if it is in atari (``ln lq == ls^2``), else -1."""
    n = np.int64(state[U(HEADER + A_LN * pp + g)])
    s = np.int64(state[U(HEADER + A_LS * pp + g)])
    if n * np.int64(state[U(HEADER + A_LQ * pp + g)]) == s * s:
        return s // n
    return np.int64(-1)


@njit(inline="always")
def _other_liberty(state, g, p, w, pp):
    """The liberty other than ``p`` of the group ``g`` next to the empty point ``p`` if the group
    has two, else -1: its pseudo-liberty sums less the ``a`` adjacencies of its stones to ``p``
    describe its liberties other than ``p`` (none when the count is 0, one when
    ``ln lq == ls^2``)."""
    a = np.int64(0)
    for kd in range(4):
        d = _offset(kd, w)
        q = p + d
        a += state[U(HEADER + q)] != EMPTY and state[U(HEADER + A_GRP * pp + q)] == g
    n = np.int64(state[U(HEADER + A_LN * pp + g)]) - a
    s = np.int64(state[U(HEADER + A_LS * pp + g)]) - a * p
    q2 = np.int64(state[U(HEADER + A_LQ * pp + g)]) - a * p * p
    if n > 0 and n * q2 == s * s:
        return s // n
    return np.int64(-1)


@njit(inline="always")
def short_libs(state, g, w, pp):
    """The liberties of the group ``g`` if it has at most two, as ``(l1, l2)`` (-1 for none);
    ``(-1, -1)`` when it has more. A group with more than eight pseudo-liberties has more than
    two (a point has at most four stones around it); one in atari has its liberty in its sums;
    otherwise its stones are walked only to the first liberty ``l1``, and the sums less ``l1``
    tell whether one other is left (:func:`_other_liberty`): the pair a walk to a third
    liberty would find, in its order."""
    n = np.int64(state[U(HEADER + A_LN * pp + g)])
    if n > 8:
        return np.int64(-1), np.int64(-1)
    ls = np.int64(state[U(HEADER + A_LS * pp + g)])
    if n * np.int64(state[U(HEADER + A_LQ * pp + g)]) == ls * ls:
        return ls // n, np.int64(-1)
    x0 = HEADER + A_NXT * pp
    s = g
    l1 = np.int64(-1)
    while l1 < 0:
        for ke in range(4):
            r = np.int64(s + _offset(ke, w))
            if l1 < 0 and state[U(HEADER + r)] == EMPTY:
                l1 = r
        s = state[U(x0 + s)]
    l2 = _other_liberty(state, g, l1, w, pp)
    if l2 < 0:
        return np.int64(-1), np.int64(-1)
    return l1, l2


@njit(inline="always")
def _mark_short_libs(state, t, g, w, pp):
    """Mark the liberties of the group ``g`` if it has at most two (:func:`short_libs`), unless
    this move marked them already (the group is walked once a move, after the stone)."""
    i = T_WALKED * pp + g
    st = t[U(T_TAIL * pp + STAMP)]
    if t[U(i)] == st:
        return
    t[U(i)] = st
    y = last_liberty(state, g, pp)
    if y >= 0:
        _mark(t, y, pp)
        return
    l1, l2 = short_libs(state, g, w, pp)
    if l1 >= 0:
        _mark(t, l1, pp)
    if l2 >= 0:
        _mark(t, l2, pp)


@njit(inline="always")
def _around(state, t, x, w, pp):
    """Mark the empty neighbours of the empty point ``x`` and the liberties of the groups next
    to it that have at most two: ``x`` is one of them (marked by the caller), the other comes
    from the group's sums (:func:`_other_liberty`, no walk)."""
    g0 = HEADER + A_GRP * pp
    for kd in range(4):
        d = _offset(kd, w)
        q = x + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            _mark(t, q, pp)
        elif v != BORDER:
            y = _other_liberty(state, state[U(g0 + q)], x, w, pp)
            if y >= 0:
                _mark(t, y, pp)


@njit(inline="always")
def legal_safe(state, z, w, pp):
    """The kernels' ``_is_legal`` at the empty point ``z`` for Black and for White, reading its
    neighbours once: a colour may play there unless it would capture (an adjacent group of the
    other colour in atari), and if it has an empty neighbour or a group of its own outside
    atari next to it. Returns ``(Black legal, White legal, Black safe, White safe)`` as 0 or 1,
    *safe* meaning a group of that colour outside atari next to ``z``."""
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    e = False
    ok_b = False
    ok_w = False
    cap_b = False  # Black at z would capture
    cap_w = False
    for kd in range(4):
        d = _offset(kd, w)
        q = z + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            e = True
        elif v != BORDER:
            g = state[U(g0 + q)]
            s = np.int64(state[U(ls0 + g)])
            atari = np.int64(state[U(ln0 + g)]) * np.int64(state[U(lq0 + g)]) == s * s
            if v == 1:
                cap_w = cap_w or atari
                ok_b = ok_b or not atari
            else:
                cap_b = cap_b or atari
                ok_w = ok_w or not atari
    lb = np.int64((e or ok_b) and not cap_b)
    lw = np.int64((e or ok_w) and not cap_w)
    return lb, lw, np.int64(ok_b), np.int64(ok_w)


@njit(inline="always")
def legal_both(state, z, w, pp):
    """:func:`legal_safe`'s legality alone: ``(Black, White)`` as 0 or 1."""
    lb, lw, _, _ = legal_safe(state, z, w, pp)
    return lb, lw


@njit(inline="always")
def _keep_legal(state, t, z, w, pp):
    """Keep the legality and safe flags of the empty point ``z`` (:func:`legal_safe`); returns
    whether its legality changed."""
    lb, lw, sb, sw = legal_safe(state, z, w, pp)
    lg = T_LEGAL * pp + z
    changed = lb != t[U(lg)] or lw != t[U(lg + pp)]
    t[U(lg)] = lb
    t[U(lg + pp)] = lw
    t[U(T_SAFE * pp + z)] = sb
    t[U(T_SAFE * pp + pp + z)] = sw
    return changed


@njit(inline="always")
def _seed(state, t, z, w, pp):
    """The neighbourhood of the empty point ``z`` changed: mark it, keep its legality, and mark
    around it where its legality changed or it has at most one empty neighbour left (module
    doc)."""
    _mark(t, z, pp)
    if _keep_legal(state, t, z, w, pp) or t[U(T_EMPTIES * pp + z)] <= 1:
        _around(state, t, z, w, pp)


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _f(state, t, m, col, k, merged, mn, ms, w, pp):
    """``a - b`` of colour ``col``'s legal move ``m``, given the groups around ``m`` in the
    tracker's ``NB`` block (``k`` of them), whether ``col``'s group through ``m`` would be in
    atari (``merged``) and its liberty sums ``mn``, ``ms``. The points whose legality the move
    may change besides ``m`` (which both colours lose where legal): the last liberty of each
    group it leaves in atari, and the empty neighbours of ``m`` with no other empty neighbour
    (any other keeps an empty neighbour and is no such liberty, so keeps its legality). Each is
    tested in the position after the move from the neighbours' colours and the groups' atari
    status then (:func:`_atari` with the sums less ``m``), its legality now read from the
    tracker."""
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    nb = T_TAIL * pp + NB
    ci = T_LEGAL * pp + (col - 1) * pp
    oi = T_LEGAL * pp + (2 - col) * pp
    f = t[U(oi + m)] - 1
    n = 0
    for kd in range(4):
        d = _offset(kd, w)
        x = m + d
        if state[U(HEADER + x)] == EMPTY and t[U(T_EMPTIES * pp + x)] == 1:
            t[U(nb + 16 + n)] = x
            n += 1
    for j in range(k):
        if t[U(nb + 4 + j)] != col and t[U(nb + 12 + j)]:
            a = t[U(nb + 8 + j)]
            g = t[U(nb + j)]
            y = (np.int64(state[U(ls0 + g)]) - a * m) // (np.int64(state[U(ln0 + g)]) - a)
            t[U(nb + 16 + n)] = y
            n += 1
    if merged:
        t[U(nb + 16 + n)] = ms // mn
        n += 1
    for i in range(n):
        x = t[U(nb + 16 + i)]
        dup = False
        for j in range(i):
            dup = dup or t[U(nb + 16 + j)] == x
        lc = t[U(ci + x)] != 0
        lo = t[U(oi + x)] != 0
        if dup or not (lc or lo):
            continue
        e = False
        atari_c = False  # a group of col in atari next to x, after the move
        atari_o = False
        safe_c = False  # a group of col outside atari next to x, after the move
        safe_o = False
        for kd in range(4):
            d = _offset(kd, w)
            r = x + d
            if r == m:
                v = col
                st = merged
            else:
                v = state[U(HEADER + r)]
                if v == EMPTY:
                    e = True
                    continue
                if v == BORDER:
                    continue
                g = state[U(g0 + r)]
                j = 0
                while j < k and t[U(nb + j)] != g:
                    j += 1
                if j < k:
                    st = merged if v == col else t[U(nb + 12 + j)] != 0
                else:
                    gs = np.int64(state[U(ls0 + g)])
                    st = np.int64(state[U(ln0 + g)]) * np.int64(state[U(lq0 + g)]) == gs * gs
            if v == col:
                atari_c = atari_c or st
                safe_c = safe_c or not st
            else:
                atari_o = atari_o or st
                safe_o = safe_o or not st
        lost_o = lo and (atari_c or not (e or safe_o))
        lost_c = lc and (atari_o or not (e or safe_c))
        f += np.int64(lost_o) - np.int64(lost_c)
    return f


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _score_point(state, t, m, w, pp):
    """Legality and ``a - b`` of the empty point ``m`` for both colours: :func:`_f`, or in the
    usual case (the move leaves no group in atari) its short form, shared by both colours."""
    g0 = HEADER + A_GRP * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    nb = T_TAIL * pp + NB
    m = np.int64(m)
    m2 = m * m
    ne = np.int64(0)
    es = np.int64(0)
    eq = np.int64(0)
    k = 0
    for kd in range(4):
        d = _offset(kd, w)
        q = m + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            ne += 1
            es += q
            eq += q * q
        elif v != BORDER:
            g = state[U(g0 + q)]
            j = 0
            while j < k and t[U(nb + j)] != g:
                j += 1
            if j == k:
                t[U(nb + k)] = g
                t[U(nb + 4 + k)] = v
                t[U(nb + 8 + k)] = 1
                k += 1
            else:
                t[U(nb + 8 + j)] += 1
    ok_b = ne > 0
    ok_w = ne > 0
    cap_b = False  # Black at m would capture
    cap_w = False
    hurt_b = False  # Black at m would leave a White group in atari
    hurt_w = False
    bn, bs, bq = ne, es, eq  # Black's group through m, were Black to play it
    wn, ws, wq = ne, es, eq
    for j in range(k):
        g = t[U(nb + j)]
        a = t[U(nb + 8 + j)]
        n = np.int64(state[U(ln0 + g)])
        s = np.int64(state[U(ls0 + g)])
        q = np.int64(state[U(lq0 + g)])
        now = n * q == s * s
        n -= a
        s -= a * m
        q -= a * m2
        minus = n * q == s * s
        t[U(nb + 12 + j)] = minus
        if t[U(nb + 4 + j)] == 1:
            hurt_w = hurt_w or minus
            if now:
                cap_w = True
            else:
                ok_b = True
            bn += n
            bs += s
            bq += q
        else:
            hurt_b = hurt_b or minus
            if now:
                cap_b = True
            else:
                ok_w = True
            wn += n
            ws += s
            wq += q
    lb = ok_b and not cap_b
    lw = ok_w and not cap_w
    lg = T_LEGAL * pp + m
    t[U(lg)] = lb
    t[U(lg + pp)] = lw
    merged_b = bn * bq == bs * bs
    merged_w = wn * wq == ws * ws
    fast_b = lb and not (merged_b or hurt_b)
    fast_w = lw and not (merged_w or hurt_w)
    if fast_b or fast_w:
        # No group changes atari status: the move changes the legality only of m and of the
        # empty neighbours x whose only empty neighbour is m, and only for the opponent, who
        # may play x now and after the move only beside a group of theirs outside atari.
        xb = 0
        xw = 0
        for kd in range(4):
            d = _offset(kd, w)
            x = m + d
            if state[U(HEADER + x)] == EMPTY and t[U(T_EMPTIES * pp + x)] == 1:
                xb += t[U(lg + pp + d)] != 0 and t[U(T_SAFE * pp + pp + x)] == 0
                xw += t[U(lg + d)] != 0 and t[U(T_SAFE * pp + x)] == 0
        if fast_b:
            t[U(T_F * pp + m)] = lw - 1 + xb
        if fast_w:
            t[U(T_F * pp + pp + m)] = lb - 1 + xw
    if lb and not fast_b:
        t[U(T_F * pp + m)] = _f(state, t, m, np.int64(1), k, merged_b, bn, bs, w, pp)
    if lw and not fast_w:
        t[U(T_F * pp + pp + m)] = _f(state, t, m, np.int64(2), k, merged_w, wn, ws, w, pp)


@njit(inline="always")
def _rescore(t, m, pp, nn, two_sided):
    """Move ``m`` to the bucket of its score for each colour (out of the buckets where the
    colour may not play it)."""
    tail = T_TAIL * pp
    for c in range(2):
        i = c * pp + m
        b = -1
        if t[U(T_LEGAL * pp + i)]:
            s = t[U(T_F * pp + i)]
            o = (1 - c) * pp + m
            if two_sided and t[U(T_LEGAL * pp + o)]:
                s += t[U(T_F * pp + o)]
            b = s + OFFSET
        old = t[U(T_SLOT * pp + i)]
        if old == b:
            continue
        cb = tail + COUNT + c * N_BUCKETS
        ib = tail + ITEMS + c * N_BUCKETS * nn
        if old >= 0:
            n = t[U(cb + old)] - 1
            last = t[U(ib + old * nn + n)]
            at = t[U(T_POS * pp + i)]
            t[U(ib + old * nn + at)] = last
            t[U(T_POS * pp + c * pp + last)] = at
            t[U(cb + old)] = n
        if b >= 0:
            n = t[U(cb + b)]
            t[U(ib + b * nn + n)] = m
            t[U(T_POS * pp + i)] = n
            t[U(cb + b)] = n + 1
            if b > t[U(tail + TOP + c)]:
                t[U(tail + TOP + c)] = b
        t[U(T_SLOT * pp + i)] = b


@njit(cache=True)
def nf_alloc(consts, on):
    """An array for :func:`nf_fill` (size 0 when not ``on``)."""
    pp = consts[C_P]
    nn = consts[C_N]
    return np.empty(T_TAIL * pp + ITEMS + 2 * N_BUCKETS * nn if on else 0, dtype=np.int64)


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def nf_fill(consts, state, t, two_sided):
    """Write into ``t`` (from :func:`nf_alloc`) the kept scores of the position ``state``: every
    empty point scored once."""
    consts = borrow(consts)
    state = borrow(state)
    t = borrow(t)
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    nn = consts[C_N]
    tail = T_TAIL * pp
    t[: tail + ITEMS] = 0  # the buckets' points are written before they are read
    t[T_SLOT * pp : T_POS * pp] = -1
    t[tail + TOP : tail + TOP + 2] = -1
    for a in range(nn):
        m = consts[C_TABLES + a]
        if state[U(HEADER + m)] == EMPTY:
            e = 0
            for kd in range(4):
                d = _offset(kd, w)
                e += state[U(HEADER + m + d)] == EMPTY
            t[U(T_EMPTIES * pp + m)] = e
            _keep_legal(state, t, m, w, pp)
    for a in range(nn):
        m = consts[C_TABLES + a]
        if state[U(HEADER + m)] == EMPTY:
            _score_point(state, t, np.int64(m), w, pp)
            _rescore(t, m, pp, nn, two_sided)


@njit(inline="always")
def nf_pick(t, c, rng, pp, nn):
    """A uniform point among colour ``c``'s legal points of the best score, or -1 when ``c``
    has no legal move. Returns ``(rng, point)``."""
    tail = T_TAIL * pp
    cb = tail + COUNT + c * N_BUCKETS
    b = t[U(tail + TOP + c)]
    while b >= 0 and t[U(cb + b)] == 0:
        b -= 1
    t[U(tail + TOP + c)] = b
    if b < 0:
        return rng, np.int64(-1)
    rng, i = below(rng, t[U(cb + b)])
    return rng, np.int64(t[U(tail + ITEMS + (c * N_BUCKETS + b) * nn + i)])


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def nf_place(consts, state, t, p, col, two_sided):
    """Put a stone of colour ``col`` at the legal point ``p`` (the kernels' ``_place``) and score
    again the points whose score may have changed (module doc)."""
    consts = borrow(consts)
    state = borrow(state)
    t = borrow(t)
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    nn = consts[C_N]
    g0 = HEADER + A_GRP * pp
    tail = T_TAIL * pp
    t[U(tail + STAMP)] += 1
    t[U(tail + MARKED)] = 0
    _mark(t, p, pp)
    for kd in range(4):  # the mover's groups next to p, before they merge
        d = _offset(kd, w)
        q = p + d
        if state[U(HEADER + q)] == col:
            y = _other_liberty(state, state[U(g0 + q)], p, w, pp)
            if y >= 0:
                _mark(t, y, pp)
    _place(state, p, col, w, pp)
    t[U(T_LEGAL * pp + p)] = 0
    t[U(T_LEGAL * pp + pp + p)] = 0
    for kd in range(4):
        d = _offset(kd, w)
        q = p + d
        if state[U(HEADER + q)] == EMPTY:
            t[U(T_EMPTIES * pp + q)] -= 1
    for kd in range(4):
        d = _offset(kd, w)
        q = p + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            _seed(state, t, q, w, pp)
        elif v != BORDER:
            g = state[U(g0 + q)]
            _mark_short_libs(state, t, g, w, pp)
            y = last_liberty(state, g, pp)
            if y >= 0:
                _seed(state, t, y, w, pp)
    for i in range(t[U(tail + MARKED)]):
        z = t[U(T_DIRTY * pp + i)]
        if state[U(HEADER + z)] == EMPTY:
            _score_point(state, t, z, w, pp)
        _rescore(t, z, pp, nn, two_sided)


@njit(cache=True)
def tracked_nf_scores(consts, state, actions, two_sided, out):
    """For tests: play ``actions`` from ``state`` through :func:`nf_place`, writing before each
    move (and after the last) the kept score of every action for Black, then White, at
    ``out[i, c, action]`` (``-99`` where the colour may not play). Returns the number of times
    an empty point's kept legality or safe flags differed from :func:`legal_safe`'s."""
    nn = consts[C_N]
    pp = consts[C_P]
    w = np.int64(consts[C_W])
    t = nf_alloc(consts, True)
    nf_fill(consts, state, t, two_sided)
    wrong = 0
    for i in range(len(actions) + 1):
        for a in range(nn):
            m = consts[C_TABLES + a]
            for c in range(2):
                b = t[T_SLOT * pp + c * pp + m]
                out[i, c, a] = b - OFFSET if b >= 0 else -99
            if state[HEADER + m] == EMPTY:
                lb, lw, sb, sw = legal_safe(state, m, w, pp)
                kept = (t[T_LEGAL * pp + m], t[T_LEGAL * pp + pp + m])
                safe = (t[T_SAFE * pp + m], t[T_SAFE * pp + pp + m])
                wrong += kept != (lb, lw) or safe != (sb, sw)
        if i < len(actions):
            mover = state[S_TO_MOVE]
            nf_place(consts, state, t, consts[C_TABLES + actions[i]], mover + 1, two_sided)
            state[S_TO_MOVE] = 1 - mover
    return wrong
