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
  atari), so only those points are tested, before and after ``m`` on a scratch copy.
* ``decisive`` — play a move after which the opponent has no legal move (the opponent's candidate
  list is pruned on a scratch copy until a legal move shows, usually at once).
* Last Good Reply and PoolRAVE moves are tried before the base policy when they are legal.

``quality`` (QBR's qualitative bonus) is the winner's number of legal moves left at the end.
"""

import numpy as np
from numba import njit

from mctslab.games.nogo_kernels import (  # noqa: F401  (the contract, re-exported)
    A_GRP,
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
    STATE_DTYPE,
    U,
    _is_legal,
    _place,
    _prune_until_legal,
    apply_action,
    apply_chance,
    chance_outcomes,
    current_player,
    init_state,
    legal_actions,
    random_playout,
    returns,
)
from mctslab.playouts.common import (
    BASE_NAIVE,
    BASE_NF,
    BASE_NF2,
    PL_BASE,
    PL_DECISIVE,
    lgr_reply,
    pool_move,
)
from mctslab.rng import below

BASES = frozenset({"uniform", "naive", "nf", "nf2"})


@njit(inline="always")
def _draw_candidate(consts, state, c, rng):
    """A uniform legal move of player ``c`` from their candidate list (illegal candidates are
    dropped for good, the drawn one leaves the list), or -1; returns ``(rng, point)``."""
    w = consts[C_W]
    pp = consts[C_P]
    base = HEADER + N_PADDED_ARRAYS * pp + c * consts[C_N]
    cnt = state[S_NCAND + c]
    found = -1
    while cnt > 0:
        rng, i = below(rng, cnt)
        p = state[U(base + i)]
        cnt -= 1
        state[U(base + i)] = state[U(base + cnt)]
        if _is_legal(state, p, c + 1, w, pp):
            found = p
            break
    state[S_NCAND + c] = cnt
    return rng, found


@njit(inline="always")
def _affected(state, m, w, pp, aff, seen, stamp):
    """Collect into ``aff`` the points whose legality a stone at ``m`` may change: ``m``, its
    empty neighbours and the liberties of its neighbouring groups. Returns their number."""
    w = np.int64(w)
    g0 = HEADER + A_GRP * pp
    x0 = HEADER + A_NXT * pp
    aff[0] = m
    seen[m] = stamp
    k = 1
    for d in (-1, 1, -w, w):
        q = m + d
        v = state[U(HEADER + q)]
        if v == EMPTY:
            if seen[q] != stamp:
                seen[q] = stamp
                aff[k] = q
                k += 1
        elif v != BORDER:
            g = state[U(g0 + q)]
            s = g
            while True:
                for e in (-1, 1, -w, w):
                    r = s + e
                    if state[U(HEADER + r)] == EMPTY and seen[r] != stamp:
                        seen[r] = stamp
                        aff[k] = r
                        k += 1
                s = state[U(x0 + s)]
                if s == g:
                    break
    return k


@njit(inline="always")
def _removed(state, scratch, m, col, aff, k, w, pp):
    """Legal moves removed for colour ``col`` and for the other colour when ``col`` plays at
    ``m`` (tested on the points in ``aff[:k]``, after ``m`` on ``scratch``)."""
    other = 3 - col
    before_me = 0
    before_other = 0
    for j in range(k):
        x = aff[j]
        before_me += _is_legal(state, x, col, w, pp)
        before_other += _is_legal(state, x, other, w, pp)
    scratch[:] = state
    _place(scratch, m, col, w, pp)
    after_me = 0
    after_other = 0
    for j in range(k):
        x = aff[j]
        after_me += _is_legal(scratch, x, col, w, pp)
        after_other += _is_legal(scratch, x, other, w, pp)
    return before_me - after_me, before_other - after_other


@njit(cache=True)
def nf_scores(consts, state, c, two_sided, points, scores):
    """The normal-form score of every legal move of player ``c`` (``a - b``, or with
    ``two_sided`` ``a - b - a' + b'``), for tests and tools: writes padded points and scores,
    returns their number."""
    w = consts[C_W]
    pp = consts[C_P]
    scratch = state.copy()
    aff = np.empty(pp, dtype=np.int64)
    seen = np.zeros(pp, dtype=np.int64)
    col = c + 1
    k = 0
    for a in range(consts[C_N]):
        m = consts[C_TABLES + a]
        if not _is_legal(state, m, col, w, pp):
            continue
        scores[k] = _nf_score(state, scratch, m, col, two_sided, aff, seen, k + 1, w, pp)
        points[k] = a
        k += 1
    return k


@njit(inline="always")
def _nf_score(state, scratch, m, col, two_sided, aff, seen, stamp, w, pp):
    n_aff = _affected(state, m, w, pp, aff, seen, stamp)
    b, a = _removed(state, scratch, m, col, aff, n_aff, w, pp)
    score = a - b
    if two_sided and _is_legal(state, m, 3 - col, w, pp):
        a2, b2 = _removed(state, scratch, m, 3 - col, aff, n_aff, w, pp)
        score += b2 - a2  # a2 = a' (removed from the opponent), b2 = b' (from the mover)
    return score


@njit(inline="always")
def _nf_move(consts, state, scratch, aff, seen, stamp, c, two_sided, rng):
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
        score = _nf_score(state, scratch, m, col, two_sided, aff, seen, stamp, w, pp)
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
def _decisive(consts, state, scratch, c):
    """A legal move of player ``c`` after which the opponent has no legal move, or -1."""
    w = consts[C_W]
    pp = consts[C_P]
    base = HEADER + N_PADDED_ARRAYS * pp + c * consts[C_N]
    col = c + 1
    for i in range(state[S_NCAND + c]):
        m = state[U(base + i)]
        if _is_legal(state, m, col, w, pp):
            scratch[:] = state
            _place(scratch, m, col, w, pp)
            if _prune_until_legal(consts, scratch, 1 - c) == 0:
                return m
    return -1


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, pol, ptab, pf):
    """Play to the end with the configured policy (see the module doc); ``random_playout``'s
    contract plus ``last`` and the policy arrays (:mod:`mctslab.playouts.common`)."""
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    a0 = C_TABLES + nn
    base_policy = pol[PL_BASE]
    decisive = pol[PL_DECISIVE] != 0
    scratch = state.copy()
    aff = np.empty(pp, dtype=np.int64)
    seen = np.zeros(pp, dtype=np.int64)
    stamp = 0
    n = 0
    if state[S_WINNER] < 0:
        c = np.int64(state[S_TO_MOVE])
        while True:
            col = c + 1
            found = -1
            if decisive:
                found = _decisive(consts, state, scratch, c)
            if found < 0:
                r = lgr_reply(ptab, pol, c, last)
                if r >= 0 and _is_legal(state, consts[C_TABLES + r], col, w, pp):
                    found = consts[C_TABLES + r]
            if found < 0:
                rng, r = pool_move(ptab, pol, pf, c, rng)
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
                        consts, state, scratch, aff, seen, stamp, c, base_policy == BASE_NF2, rng
                    )
                else:
                    rng, found = _draw_candidate(consts, state, c, rng)
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
