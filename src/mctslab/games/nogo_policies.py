"""NoGo playout policies, compiled against the NoGo kernels' internals.

* ``uniform`` — the paper's anti-decisive playout (section 3.3): uniform over the *legal* moves,
  so a move that loses at once (a capture or a suicide) is never played; this is the kernels'
  ``random_playout``. On NoGo the ``antidecisive`` key therefore adds nothing.
* ``naive`` — the version the paper improves on: uniform over all *empty* points; a drawn point
  that is illegal for the mover (a capture or a suicide) loses the game at once.
* ``nf`` / ``nf2`` — the normal-form heuristic of Chou, Teytaud and Yen (2011, §3.5): uniform
  among the mover's legal moves of the best ``a - b`` (``nf``) or ``a - b - a' + b'`` (``nf2``),
  every score of a turn from bitboards on boards up to 10x10 (:mod:`mctslab.games.nogo_nf_bits`),
  kept up to date as stones are placed on larger ones (:mod:`mctslab.games.nogo_normal_form`).
  With ``nf_empty`` = E > 0 they draw ``contested`` moves while more than E points are empty
  and score from there on: early in a game most legal moves tie for the best score (on 9x9, in
  ``nf2`` games, 87% of the mover's legal moves in the first ten moves, 31 to 44% in moves 40
  to 59), so scoring them costs much and changes little.
* ``contested`` — the cheap form of the normal-form principle: a point legal for both players is
  played before a point only the mover can use (no opponent can take that one from the mover, so
  it is kept for later; in NoGo's endgame the player with more such points wins). Uniform among
  the mover's legal points that are legal for the opponent too, else uniform among the rest; one
  extra legality test per candidate drawn (:func:`_draw_contested`).
* ``go`` — the Go-style (MoGo) playout adapted to NoGo, :func:`go_playouts.nogo_go_style_playout`
  (the paper's "Go playouts" of section 3.3); it takes no other modifier.
* ``go_unadapted`` — MoGo's playout by Go's rules, :func:`go_playouts.nogo_go_unadapted_playout`:
  it captures, and a capture loses NoGo at once (the other reading of section 3.3's "Go
  playouts"); no other modifier either.
* ``decisive`` — play a move after which the opponent has no legal move (the opponent's
  candidates are tested as they would be after the move, until a legal one shows, usually at
  once). Looked for only while the opponent has few enough legal moves to lose them all to one
  move (:data:`MAX_TAKEN`: at most ten; each player's legal moves are counted as stones are
  placed, :func:`_legal_counts`), so it costs a few legality tests a move until the
  endgame.
* Last Good Reply and PoolRAVE moves are tried before the base policy when they are legal.

``quality`` (QBR's qualitative bonus) is the winner's number of legal moves left at the end.
"""

import numpy as np
from numba import njit

from mctslab.games.go_playouts import (
    _nogo_draw_legal,
    nogo_go_style_playout,
    nogo_go_unadapted_playout,
)
from mctslab.games.nogo_kernels import (
    A_GRP,
    BLACK,
    BORDER,
    C_N,
    C_P,
    C_SIZE,
    C_TABLES,
    C_W,
    EMPTY,
    HEADER,
    N_PADDED_ARRAYS,
    S_NCAND,
    S_NMOVES,
    S_TO_MOVE,
    S_WINNER,
    WHITE,
    U,
    _is_legal,
    _place,
    returns,
)
from mctslab.games.nogo_nf_bits import MAX_SIZE as NF_BITS_MAX_SIZE
from mctslab.games.nogo_nf_bits import nfb_alloc, nfb_fill, nfb_pick, nfb_place
from mctslab.games.nogo_normal_form import (
    _after,
    _legal_after,
    last_liberty,
    legal_both,
    nf_alloc,
    nf_fill,
    nf_pick,
    nf_place,
    short_libs,
)
from mctslab.kernels.rng import below
from mctslab.kernels.views import borrow
from mctslab.search.playouts.common import BASE_UNIFORM, PolicyStats, lgr_reply, pool_move

# Base policies (the module doc): ids of ``PlayoutParams.base``.
BASE_NAIVE = 1
BASE_NF = 2
BASE_NF2 = 3
BASE_GO = 4
BASE_CONTESTED = 5
BASE_GO_UNADAPTED = 6
#: the base policies this module implements, name -> id
BASES = {
    "uniform": BASE_UNIFORM,
    "naive": BASE_NAIVE,
    "nf": BASE_NF,
    "nf2": BASE_NF2,
    "go": BASE_GO,
    "contested": BASE_CONTESTED,
    "go_unadapted": BASE_GO_UNADAPTED,
}


@njit(inline="always")
def _empty_points(consts, state, nn):
    """The number of empty points on the board."""
    k = 0
    for a in range(nn):
        k += state[U(HEADER + consts[C_TABLES + a])] == EMPTY
    return k


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


#: more legal moves than one move can take from a player: a stone at ``m`` can make a legal point
#: ``x`` of the other player illegal only if ``x`` is ``m``; or a neighbour of ``m`` (its last
#: empty neighbour was ``m``); or the one liberty left to the mover's group through ``m``
#: (playing ``x`` would capture it); or the one liberty left to a group of the other player next
#: to ``m`` (``x`` would be suicide): 1 + 4 + 1 + 4 points at most. With more legal moves than
#: that a player cannot lose at once, and no decisive move needs looking for.
MAX_TAKEN = 10


@njit(inline="always")
def _neighbour(p, k, w):
    """The ``k``-th (0 to 3) of the four neighbours of the padded point ``p``: ``p - 1``,
    ``p + 1``, ``p - W``, ``p + W``. :func:`_recount_around` loops over ``k`` and tests legality
    at one place: written as a loop over the tuple ``(-1, 1, -w, w)`` with two inlined calls of a
    helper taking arrays, Numba kept atomic reference-count updates of the arrays on every move
    (the decisive playout spent about 45% of its time in them; measured)."""
    return p + (2 * (k & 1) - 1) * (1 if k < 2 else w)


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _legal_counts(consts, state, on):
    """Each point's legality for both players (``legal[c * P + x]``) and each player's number of
    legal moves (``legal[2P + c]``) in the position ``state``, kept up to date by
    :func:`_recount_around`; size 0 when not ``on``."""
    pp = consts[C_P]
    w = np.int64(consts[C_W])
    legal = np.zeros(2 * pp + 2 if on else 0, dtype=np.int64)
    if on:
        for a in range(consts[C_N]):
            x = consts[C_TABLES + a]
            if state[U(HEADER + x)] == EMPTY:
                lb, lw = legal_both(state, x, w, pp)
                legal[x] = lb
                legal[pp + x] = lw
                legal[2 * pp] += lb
                legal[2 * pp + 1] += lw
    return legal


@njit(inline="always")
def _recount_around(state, legal, p, w, pp):
    """Keep the counts of :func:`_legal_counts` after a stone at ``p``: it changes legality only
    at ``p``, at its empty neighbours and at the last liberty of a group next to it in atari
    (legality depends on a point's neighbours and on whether their groups are in atari; see
    :mod:`mctslab.games.nogo_normal_form`), so only those are tested again."""
    for c in range(2):  # p itself: taken
        legal[2 * pp + c] -= legal[c * pp + p]
        legal[c * pp + p] = 0
    for k in range(4):
        y = _neighbour(p, k, w)
        v = state[U(HEADER + y)]
        if v == BORDER:
            y = -1
        elif v != EMPTY:  # the group's last liberty, if in atari
            y = last_liberty(state, state[U(HEADER + A_GRP * pp + y)], pp)
        if y >= 0:  # test it again for both players, keeping the counts
            lb, lw = legal_both(state, y, w, pp)
            legal[2 * pp] += lb - legal[y]
            legal[y] = lb
            legal[2 * pp + 1] += lw - legal[pp + y]
            legal[pp + y] = lw


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def _decisive(consts, state, gbuf, c):
    """A legal move of player ``c`` after which the opponent has no legal move, or -1.

    Such a move must take away the opponent's first legal point ``x0`` (any legal move wins when
    the opponent has none), and a move changes the
    legality of ``x0`` only if it is ``x0``, a neighbour of ``x0``, or the other liberty of a
    group next to ``x0`` that has two (the move leaves that group, or the mover's group through
    it, in atari with ``x0`` its last liberty; see :mod:`mctslab.games.nogo_normal_form`). So
    only those, at most nine, are tried; of them, only those that can take the opponent's second
    legal point too (found the same way), each against the opponent's candidates in the
    position after it, without playing it (a legal one usually shows at once)."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    nn = consts[C_N]
    base = HEADER + N_PADDED_ARRAYS * pp + (1 - c) * nn
    col = c + 1
    x0 = -1
    x1 = -1
    cnt = state[S_NCAND + 1 - c]
    j = 0
    while j < cnt:  # the illegal candidates met leave the list for good
        x = state[U(base + j)]
        if _is_legal(state, x, 2 - c, w, pp):
            if x0 >= 0:
                x1 = x
                break
            x0 = x
            j += 1
        else:
            cnt -= 1
            state[U(base + j)] = state[U(base + cnt)]
    state[S_NCAND + 1 - c] = cnt
    n1 = 0  # the other liberties of the groups next to x1 that have two, at gbuf[8:12]
    if x1 >= 0:
        for k in range(4):
            q = _neighbour(x1, k, w)
            v = state[U(HEADER + q)]
            if v in (BLACK, WHITE):
                l1, l2 = short_libs(state, state[U(HEADER + A_GRP * pp + q)], w, pp)
                if l2 >= 0:
                    gbuf[8 + n1] = l2 if l1 == x1 else l1
                    n1 += 1
    if x0 < 0:  # the opponent has no legal move already: any legal move wins
        own = HEADER + N_PADDED_ARRAYS * pp + c * nn
        for j in range(state[S_NCAND + c]):
            m = state[U(own + j)]
            if _is_legal(state, m, col, w, pp):
                return m
        return -1
    for i in range(13):
        if i == 0:
            m = np.int64(x0)
        elif i < 5:
            m = _neighbour(x0, i - 1, w)
        else:  # the other liberty of a group next to x0 with two
            q = _neighbour(x0, (i - 5) // 2, w)
            v = state[U(HEADER + q)]
            if v != BLACK and v != WHITE:
                continue
            l1, l2 = short_libs(state, state[U(HEADER + A_GRP * pp + q)], w, pp)
            m = l1 if (i - 5) % 2 == 0 else l2
            if m == x0:
                continue
        if m < 0:
            continue
        if x1 >= 0:  # it must take the second legal point x1 too
            takes = m == x1 or abs(m - x1) == 1 or abs(m - x1) == w
            for j in range(n1):
                takes = takes or gbuf[8 + j] == m
            if not takes:
                continue
        if not _is_legal(state, m, col, w, pp):
            continue
        k, merged_atari = _after(state, m, col, w, pp, gbuf, 0)
        wins = True
        for j in range(state[S_NCAND + 1 - c]):
            x = state[U(base + j)]
            if _legal_after(state, x, 2 - c, m, col, k, merged_atari, gbuf, 0, w, pp):
                wins = False
                break
        if wins:
            return m
    return -1


@njit(cache=True)
def may_lose_all(consts, state, c):
    """For tests: whether the playout looks for a decisive move against player ``c`` (at most
    :data:`MAX_TAKEN` legal moves)."""
    return _legal_counts(consts, state, True)[2 * consts[C_P] + c] <= MAX_TAKEN


@njit(cache=True)
def tracked_legal_counts(consts, state, actions, out):
    """For tests: play ``actions`` from ``state`` keeping the counts of :func:`_legal_counts`,
    writing Black's and White's before each move (and after the last) at ``out[i]``."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    legal = _legal_counts(consts, state, True)
    for i in range(len(actions) + 1):
        out[i, 0] = legal[2 * pp]
        out[i, 1] = legal[2 * pp + 1]
        if i < len(actions):
            p = consts[C_TABLES + actions[i]]
            _place(state, p, state[S_TO_MOVE] + 1, w, pp)
            _recount_around(state, legal, p, w, pp)
            state[S_TO_MOVE] = 1 - state[S_TO_MOVE]


@njit(cache=True)
def decisive_point(consts, state, c):
    """:func:`_decisive` for tests: a padded point where ``c`` wins at once, or -1."""
    return _decisive(consts, state, np.zeros(16, dtype=np.int64), c)


@njit(inline="always")
def _nf_start(consts, state, scores, boards, two_sided, bits):
    """Score the position for the normal-form playouts: bitboards on boards that fit them
    (:mod:`mctslab.games.nogo_nf_bits`), else the kept scores."""
    if bits:
        nfb_fill(consts, state, boards)
    else:
        nf_fill(consts, state, scores, two_sided)


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """Play to the end with the configured policy (see the module doc); ``random_playout``'s
    contract plus ``last`` and the policy records (:mod:`mctslab.search.playouts.common`)."""
    if params.base == BASE_GO or params.base == BASE_GO_UNADAPTED:
        if params.decisive or params.lgrf or params.pool_k:
            raise ValueError("playout=go and go_unadapted take no decisive, lgrf or pool modifier")
        if params.base == BASE_GO:
            return nogo_go_style_playout(consts, state, rng, moves, out, last)
        return nogo_go_unadapted_playout(consts, state, rng, moves, out, last)
    w = consts[C_W]
    pp = consts[C_P]
    nn = consts[C_N]
    a0 = C_TABLES + nn
    base_policy = params.base
    decisive = params.decisive
    gbuf_mem = np.zeros(16, dtype=np.int64)
    nf = base_policy in (BASE_NF, BASE_NF2) and state[S_WINNER] < 0
    two_sided = base_policy == BASE_NF2
    # with nf_empty > 0, contested moves until at most that many points are empty
    n_empty = nn
    if nf and params.nf_empty > 0:
        n_empty = _empty_points(consts, state, nn)
    nf_empty = params.nf_empty if params.nf_empty > 0 else nn
    bits = consts[C_SIZE] <= NF_BITS_MAX_SIZE
    scores_mem = nf_alloc(consts, nf and not bits)
    boards_mem = nfb_alloc(consts, nf and bits)
    scoring = nf and n_empty <= nf_empty
    if scoring:
        _nf_start(consts, state, scores_mem, boards_mem, two_sided, bits)
    legal_mem = _legal_counts(consts, state, decisive and state[S_WINNER] < 0)
    # the loop works on views without reference counts (mctslab.kernels.views.borrow); the
    # local arrays are used again after it, so they live until then
    consts = borrow(consts)
    state = borrow(state)
    moves = borrow(moves)
    gbuf = borrow(gbuf_mem)
    scores = borrow(scores_mem)
    boards = borrow(boards_mem)
    legal = borrow(legal_mem)
    stats = PolicyStats(
        borrow(stats.replies), borrow(stats.pools), borrow(stats.pool_sizes),
        borrow(stats.pool_amaf), borrow(stats.qbr),
    )  # fmt: skip
    n = 0
    if state[S_WINNER] < 0:
        c = np.int64(state[S_TO_MOVE])
        while True:
            col = c + 1
            found = -1
            if decisive and legal[2 * pp + 1 - c] <= MAX_TAKEN:
                found = _decisive(consts, state, gbuf, c)
            if found < 0:
                r = lgr_reply(stats, params, c, last)
                if r >= 0 and _is_legal(state, consts[C_TABLES + r], col, w, pp):
                    found = consts[C_TABLES + r]
            if found < 0:
                rng, r = pool_move(stats, params, c, rng)
                if r >= 0 and _is_legal(state, consts[C_TABLES + r], col, w, pp):
                    found = consts[C_TABLES + r]
            if nf and not scoring and n_empty - n <= nf_empty:
                _nf_start(consts, state, scores, boards, two_sided, bits)
                scoring = True
            if found < 0:
                if base_policy == BASE_NAIVE:
                    if _empty_points(consts, state, nn) > 0:
                        while True:
                            rng, a = below(rng, nn)
                            p = consts[C_TABLES + a]
                            if state[U(HEADER + p)] == EMPTY:
                                break
                        if _is_legal(state, p, col, w, pp):
                            found = p
                elif scoring and bits:
                    rng, found = nfb_pick(consts, state, boards, c, rng, two_sided)
                elif scoring:
                    rng, found = nf_pick(scores, c, rng, pp, nn)
                else:
                    base = HEADER + N_PADDED_ARRAYS * pp + c * nn
                    if base_policy == BASE_CONTESTED or nf:
                        found, rng = _draw_contested(state, rng, c, np.int64(w), pp, base)
                    else:
                        found, rng = _nogo_draw_legal(state, rng, c, np.int64(w), pp, base)
            if found < 0:
                state[S_WINNER] = 1 - c
                break
            if scoring and bits:
                nfb_place(consts, state, boards, found, col)
            elif scoring:
                nf_place(consts, state, scores, found, col, two_sided)
            else:
                _place(state, found, col, w, pp)
            if decisive:
                _recount_around(state, legal, found, np.int64(w), pp)
            last = np.int64(consts[U(a0 + found)])
            moves[2 * n] = c
            moves[2 * n + 1] = last
            n += 1
            c = 1 - c
            state[S_TO_MOVE] = c
        state[S_NMOVES] += n
    # the last use of the local arrays
    gbuf_mem[0] = scores_mem.size + boards_mem.size + legal_mem.size
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
def prior(consts, state, legal, k, counts, values, params):
    """Prior knowledge of the ``k`` legal actions ``legal`` (``mcts(prior=...)``): the
    ``contested`` principle (module doc) as a prior, in the way Gelly and Silver (2007,
    *Combining online and offline knowledge in UCT*, ICML) initialise a new node's values: a point
    the opponent could play too 0.6, a point only the mover can use (safe for later) 0.4, each
    worth 3 simulations (``params``, the playout parameters, changes nothing here)."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    opp = 2 - state[S_TO_MOVE]
    for j in range(k):
        counts[j] = 3.0
        values[j] = 0.6 if _is_legal(state, consts[C_TABLES + legal[j]], opp, w, pp) else 0.4
