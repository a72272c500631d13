"""NoGo playout policies, compiled against the NoGo kernels' internals.

* ``uniform`` — the paper's anti-decisive playout (section 3.3): uniform over the *legal* moves,
  so a move that loses at once (a capture or a suicide) is never played; this is the kernels'
  ``random_playout``. On NoGo the ``antidecisive`` key therefore adds nothing.
* ``naive`` — the version the paper improves on: uniform over all *empty* points; a drawn point
  that is illegal for the mover (a capture or a suicide) loses the game at once.
* ``nf`` / ``nf2`` — the normal-form heuristic (section 3.5): for each legal move ``m`` of the
  mover, ``a`` = legal moves it removes from the opponent and ``b`` = legal moves it removes from
  the mover (``m`` itself included for whoever could play it); ``a'``, ``b'`` the same when the
  opponent plays at ``m`` (``a'`` removed from the mover's opponent, ``b'`` from the mover; both 0
  if ``m`` is illegal for the opponent). ``nf`` plays uniformly among the moves maximising
  ``a - b``, ``nf2`` among those maximising ``a - b - a' + b'``. Incremental: placing a stone at
  ``m`` can only change the legality of ``m``, its empty neighbours and the liberties of the groups
  adjacent to ``m`` (legality depends on a point's neighbours and on whether their groups are in
  atari), so only those points are tested, before ``m`` and as they would be after it: the
  groups next to ``m`` get their liberty sums after the move computed from the kernels' sums,
  nothing is copied or played.
* ``contested`` — the cheap form of the normal-form principle: a point legal for both players is
  played before a point only the mover can use (no opponent can take that one from the mover, so
  it is kept for later; in NoGo's endgame the player with more such points wins). Uniform among
  the mover's legal points that are legal for the opponent too, else uniform among the rest; one
  extra legality test per candidate drawn (:func:`_draw_contested`).
* ``go`` — the Go-style (MoGo) playout adapted to NoGo, :func:`go_playouts.nogo_go_style_playout`
  (the paper's "Go playouts" of section 3.3); it takes no other modifier.
* ``decisive`` — play a move after which the opponent has no legal move (the opponent's
  candidates are tested as they would be after the move, until a legal one shows, usually at
  once). Looked for only while the opponent has few enough legal moves to lose them all to one
  move (:func:`_may_lose_all`: at most ten), so it costs a few legality tests a move until the
  endgame.
* Last Good Reply and PoolRAVE moves are tried before the base policy when they are legal.

``quality`` (QBR's qualitative bonus) is the winner's number of legal moves left at the end.
"""

import numpy as np
from numba import njit

from mctslab.games.go_playouts import _nogo_draw_legal, nogo_go_style_playout
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
    N_PADDED_ARRAYS,
    S_NCAND,
    S_NMOVES,
    S_TO_MOVE,
    S_WINNER,
    U,
    _is_legal,
    _place,
    returns,
)
from mctslab.kernels.rng import below
from mctslab.search.playouts.common import BASE_UNIFORM, lgr_reply, pool_move

# Base policies (the module doc): ids of ``PlayoutParams.base``.
BASE_NAIVE = 1
BASE_NF = 2
BASE_NF2 = 3
BASE_GO = 4
BASE_CONTESTED = 5
#: the base policies this module implements, name -> id
BASES = {
    "uniform": BASE_UNIFORM,
    "naive": BASE_NAIVE,
    "nf": BASE_NF,
    "nf2": BASE_NF2,
    "go": BASE_GO,
    "contested": BASE_CONTESTED,
}


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
    for d in (-1, 1, -w, w):
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
            for e in (-1, 1, -w, w):
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
    for d in (-1, 1, -w, w):
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
        for d in (-1, 1, -w, w):
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
    for d in (-1, 1, -w, w):
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


@njit(cache=True)
def nf_scores(consts, state, c, two_sided, points, scores):
    """The normal-form score of every legal move of player ``c`` (``a - b``, or with
    ``two_sided`` ``a - b - a' + b'``), for tests and tools: writes padded points and scores,
    returns their number."""
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


@njit(inline="always")
def _nf_score(state, gbuf, m, col, two_sided, aff, seen, stamp, w, pp):
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


@njit(inline="always")
def _nf_move(consts, state, gbuf, aff, seen, stamp, c, two_sided, rng):
    """A uniformly random move among player ``c``'s legal moves with the best normal-form score,
    or -1 (illegal candidates are dropped from the list on the way)."""
    w = consts[C_W]
    pp = consts[C_P]
    base = HEADER + N_PADDED_ARRAYS * pp + c * consts[C_N]
    col = c + 1
    cnt = state[S_NCAND + c]
    best = -(1 << 30)
    chosen = -1
    ties = 0
    i = 0
    while i < cnt:
        m = state[U(base + i)]
        if not _is_legal(state, m, col, w, pp):
            cnt -= 1
            state[U(base + i)] = state[U(base + cnt)]
            continue
        stamp += 1
        score = _nf_score(state, gbuf, m, col, two_sided, aff, seen, stamp, w, pp)
        if score > best:
            best = score
            chosen = m
            ties = 1
        elif score == best:
            ties += 1
            rng, r = below(rng, ties)
            if r == 0:
                chosen = m
        i += 1
    state[S_NCAND + c] = cnt
    return rng, chosen, stamp


@njit(inline="always")
def _draw_contested(state, rng, c, w, pp, base):
    """A uniform legal point of player ``c`` that the opponent may play too, else a uniform point
    only ``c`` may play, else -1 (``c`` has no legal move). Returns ``(point, rng)``.

    The candidate list at ``base`` (``cnt`` entries) is split as it is drawn from: ``[0, m)`` not
    yet drawn, ``[m, cnt)`` drawn and found legal for ``c`` only (kept: they stay candidates). A
    drawn point illegal for ``c`` leaves the list for good, as in ``random_playout``; the point
    played leaves it too (the opponent drops it when they draw it)."""
    cnt = state[S_NCAND + c]
    col = c + 1
    m = cnt
    found = -1
    while m > 0:
        rng, i = below(rng, m)
        p = state[U(base + i)]
        m -= 1
        state[U(base + i)] = state[U(base + m)]
        if not _is_legal(state, p, col, w, pp):
            cnt -= 1
            state[U(base + m)] = state[U(base + cnt)]
        elif _is_legal(state, p, 3 - col, w, pp):
            cnt -= 1
            state[U(base + m)] = state[U(base + cnt)]
            found = p
            break
        else:
            state[U(base + m)] = p
    if found < 0 and cnt > 0:  # every candidate left is the mover's own
        rng, i = below(rng, cnt)
        found = state[U(base + i)]
        cnt -= 1
        state[U(base + i)] = state[U(base + cnt)]
    state[S_NCAND + c] = cnt
    return found, rng


#: more legal moves than one move can take from a player (see :func:`_may_lose_all`)
MAX_TAKEN = 10


@njit(inline="always")
def _may_lose_all(consts, state, c):
    """Whether player ``c`` has at most :data:`MAX_TAKEN` legal moves, so that one opponent move
    might leave them none; their illegal candidates met on the way leave the list for good.

    A stone at ``m`` can make a legal point ``x`` of the other player illegal only if ``x`` is
    ``m``; or a neighbour of ``m`` (its last empty neighbour was ``m``); or the one liberty left
    to the mover's group through ``m`` (playing ``x`` would capture it); or the one liberty left
    to a group of ``c`` next to ``m`` (``x`` would be suicide): 1 + 4 + 1 + 4 points at most. With
    more legal moves than that ``c`` cannot lose at once, and no decisive move needs looking for.
    """
    w = consts[C_W]
    pp = consts[C_P]
    base = HEADER + N_PADDED_ARRAYS * pp + c * consts[C_N]
    cnt = state[S_NCAND + c]
    col = c + 1
    legal = 0
    i = 0
    while i < cnt:
        if _is_legal(state, state[U(base + i)], col, w, pp):
            legal += 1
            if legal > MAX_TAKEN:
                break
            i += 1
        else:
            cnt -= 1
            state[U(base + i)] = state[U(base + cnt)]
    state[S_NCAND + c] = cnt
    return legal <= MAX_TAKEN


@njit(inline="always")
def _decisive(consts, state, gbuf, c):
    """A legal move of player ``c`` after which the opponent has no legal move, or -1 (the
    opponent's candidates are tested in the position after the move, without playing it; a
    legal one usually shows at once)."""
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    base = HEADER + N_PADDED_ARRAYS * pp + c * nn
    obase = HEADER + N_PADDED_ARRAYS * pp + (1 - c) * nn
    col = c + 1
    for i in range(state[S_NCAND + c]):
        m = state[U(base + i)]
        if _is_legal(state, m, col, w, pp):
            k, merged_atari = _after(state, m, col, w, pp, gbuf, 0)
            wins = True
            for j in range(state[S_NCAND + 1 - c]):
                x = state[U(obase + j)]
                if _legal_after(state, x, 2 - c, m, col, k, merged_atari, gbuf, 0, w, pp):
                    wins = False
                    break
            if wins:
                return m
    return -1


@njit(cache=True)
def may_lose_all(consts, state, c):
    """:func:`_may_lose_all` for tests."""
    return _may_lose_all(consts, state, c)


@njit(cache=True)
def decisive_point(consts, state, c):
    """:func:`_decisive` for tests: a padded point where ``c`` wins at once, or -1."""
    return _decisive(consts, state, np.zeros(16, dtype=np.int64), c)


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """Play to the end with the configured policy (see the module doc); ``random_playout``'s
    contract plus ``last`` and the policy records (:mod:`mctslab.search.playouts.common`)."""
    if params.base == BASE_GO:
        if params.decisive or params.lgrf or params.pool_k:
            raise ValueError("playout=go takes no decisive, lgrf or pool modifier")
        return nogo_go_style_playout(consts, state, rng, moves, out, last)
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    a0 = C_TABLES + nn
    base_policy = params.base
    decisive = params.decisive
    gbuf = np.zeros(16, dtype=np.int64)
    aff = np.empty(pp, dtype=np.int64)
    seen = np.zeros(pp, dtype=np.int64)
    stamp = 0
    n = 0
    if state[S_WINNER] < 0:
        c = np.int64(state[S_TO_MOVE])
        while True:
            col = c + 1
            found = -1
            if decisive and _may_lose_all(consts, state, 1 - c):
                found = _decisive(consts, state, gbuf, c)
            if found < 0:
                r = lgr_reply(stats, params, c, last)
                if r >= 0 and _is_legal(state, consts[C_TABLES + r], col, w, pp):
                    found = consts[C_TABLES + r]
            if found < 0:
                rng, r = pool_move(stats, params, c, rng)
                if r >= 0 and _is_legal(state, consts[C_TABLES + r], col, w, pp):
                    found = consts[C_TABLES + r]
            if found < 0:
                if base_policy == BASE_NAIVE:
                    empty = 0
                    for a in range(nn):
                        empty += state[U(HEADER + consts[C_TABLES + a])] == EMPTY
                    if empty > 0:
                        while True:
                            rng, a = below(rng, nn)
                            p = consts[C_TABLES + a]
                            if state[U(HEADER + p)] == EMPTY:
                                break
                        if _is_legal(state, p, col, w, pp):
                            found = p
                elif base_policy in (BASE_NF, BASE_NF2):
                    rng, found, stamp = _nf_move(
                        consts, state, gbuf, aff, seen, stamp, c, base_policy == BASE_NF2, rng
                    )
                else:
                    base = HEADER + N_PADDED_ARRAYS * pp + c * nn
                    if base_policy == BASE_CONTESTED:
                        found, rng = _draw_contested(state, rng, c, np.int64(w), pp, base)
                    else:
                        found, rng = _nogo_draw_legal(state, rng, c, np.int64(w), pp, base)
            if found < 0:
                state[S_WINNER] = 1 - c
                break
            _place(state, found, col, w, pp)
            last = np.int64(consts[U(a0 + found)])
            moves[2 * n] = c
            moves[2 * n + 1] = last
            n += 1
            c = 1 - c
            state[S_TO_MOVE] = c
        state[S_NMOVES] += n
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def quality(consts, state, winner):
    """QBR's qualitative measure: the winner's legal moves left in the final position."""
    w = consts[C_W]
    pp = consts[C_P]
    k = 0
    for a in range(consts[C_N]):
        k += _is_legal(state, consts[C_TABLES + a], winner + 1, w, pp)
    return np.float64(k)


@njit(cache=True)
def prior(consts, state, legal, k, counts, values):
    """Prior knowledge of the ``k`` legal actions ``legal`` (``mcts(prior=...)``): the
    ``contested`` principle (module doc) as a prior, in the way Gelly and Silver (2007,
    *Combining online and offline knowledge in UCT*, ICML) initialise a new node's values: a point
    the opponent could play too 0.6, a point only the mover can use (safe for later) 0.4, each
    worth 3 simulations."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    opp = 2 - state[S_TO_MOVE]
    for j in range(k):
        counts[j] = 3.0
        values[j] = 0.6 if _is_legal(state, consts[C_TABLES + legal[j]], opp, w, pp) else 0.4
