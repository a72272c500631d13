"""NoGo's normal-form playout moves from bitboards: every score of a turn in a few hundred word
operations, on boards up to 10x10.

The policy is that of :mod:`mctslab.games.nogo_normal_form` (Chou, Teytaud and Yen 2011, §3.5):
uniform among the mover's legal moves of the best ``a - b`` (``nf``) or ``a - b - a' + b'``
(``nf2``). Here nothing is kept but the position as bitboards; each turn computes the scores of
all points at once.

**Bitboards.** A board set is a pair of ``uint64`` words ``(lo, hi)``: point ``p`` of the kernels'
padded board (``W = size + 1`` columns a row) is bit ``p - W``, so the four neighbours are the
shifts by 1 and by ``W`` of the 128-bit number and the padding column keeps rows apart; sizes up to
10 fit (``size * W <= 110``). Kept: the empty points ``E``, each colour's stones ``S_c``, the stones
of its groups with one liberty ``A_c`` and with two ``T_c``, and each group's stones (at its
representative in the kernels' ``grp``); a group's liberties are ``N(stones) & E`` (``N`` the four
shifts), counted with ``popcount``.

**Legality** of colour ``c`` for every point at once, as in the kernels' ``_is_legal``::

    L_c = E & ~AL_o & (N(E) | SAFE_c)     AL_o = N(A_o) & E    SAFE_c = N(S_c & ~A_c)

(not the last liberty of an opponent group, and an empty neighbour or a neighbouring own group
with another liberty).

**Scores.** A stone only takes legal moves away (it adds no liberty an illegal point could have
lacked), so ``a - b = (|L_o| - |L_o'|) - (|L_c| - |L_c'|)`` over the legal sets before and after.
When the move puts no group in atari it has the closed form ``a - b = [m in L_o] - 1 + #{x}``
over the neighbours ``x`` of ``m`` in ``K_o = E1 & L_o & ~SAFE_o`` (``E1``: points with exactly one
empty neighbour, which is then ``m``; ``o`` at ``x`` becomes suicide), summed for every point at
once with bit-sliced adders; ``nf2`` adds the opponent's ``a - b`` at the same point, which for a
legal move of the mover is ``#{x in N(m) & K_c}``. A move next to exactly one stone of opponent
groups with two liberties and no self-atari puts that group in atari at its other liberty: the
closed form plus a correction of -1, 0 or +1 from that liberty alone (:func:`_atari_one`). Any
other move that may put a group in atari (next to two such stones, or with at most one empty
neighbour and no own group of three liberties or more beside it) is *complex*. Its score comes
from the legal sets after the move, derived from those before: only the groups next to ``m``
change, ``SAFE_c' = SAFE_c | N(m)`` on the empty points unless the merged group is in atari,
``AL_o'`` gains the last liberties of the opponent groups that had two (:func:`_exact`).

A complex move's exact ``a - b`` is cached per colour (five bit planes of ``a - b + 8``) with the
points it changes; :func:`nfb_place` forgets it once a stone lands on or next to one of those
points or changes the liberties of a group next to one (1.0 exact scores a move in ``nf``
playouts on 9x9, 1.8 in ``nf2``). The corrected moves are cached the same way, their affected
points the move, its empty neighbours and ``y``, so the pass over two-liberty groups meets only
the moves not cached. Every legal move's score is
then a bit-sliced choice between the cached planes and the simple slices (plus, for ``nf2``, the
opponent's side where it may play the point), the best are kept plane by plane from the highest,
and the move is a uniform draw among them. ``tests/test_nf_bits.py`` compares every score, fresh
and kept through whole games, with the from-scratch
:func:`mctslab.games.nogo_normal_form.nf_scores`, and every drawn move with its argmax.
"""

import numpy as np
from numba import njit

from mctslab.games.nogo_kernels import (
    A_GRP,
    C_N,
    C_P,
    C_TABLES,
    C_W,
    EMPTY,
    HEADER,
    U,
    _offset,
    _place,
)
from mctslab.kernels.bits import popcount, trailing_zeros
from mctslab.kernels.rng import below
from mctslab.kernels.views import borrow

#: The largest board the two-word bitboards hold (``size * (size + 1) <= 128``).
MAX_SIZE = 10

U0 = np.uint64(0)
U1 = np.uint64(1)
U64 = np.uint64(64)
U63 = np.uint64(63)
U2, U4, U8, U16, U32 = np.uint64(2), np.uint64(4), np.uint64(8), np.uint64(16), np.uint64(32)

#: Layout of the kept array (``uint64``): each set is two words, colour ``c``'s at ``+ 2 c``;
#: ``B_VALID`` the points whose exact ``a - b`` each colour has cached, ``B_CACHE`` those scores
#: plus :data:`BIAS` as five bit planes a colour. From ``B_GROUPS``, arrays indexed by padded point
#: (``P`` of them): each group's stones and liberties at its representative (two words each), and
#: each colour's cached scores' affected points (two words).
B_E, B_S, B_A, B_T, B_MASK, B_VALID, B_CACHE, B_GROUPS = 0, 2, 6, 10, 14, 16, 20, 40
G_LIBS, G_AFFECTED, G_END = 2, 4, 8
#: ``a - b`` lies in [-8, 8] (``b >= 1`` counts ``m``; at most nine points change): planes hold
#: ``a - b + BIAS`` in five bits
BIAS = 8
PLANES = 5


def fits(size: int) -> bool:
    """Whether a ``size`` x ``size`` board fits the two-word bitboards."""
    return size <= MAX_SIZE


@njit(inline="always")
def _get(t, i):
    return t[U(i)], t[U(i + 1)]


@njit(inline="always")
def _put(t, i, x):
    t[U(i)] = x[0]
    t[U(i + 1)] = x[1]


@njit(inline="always")
def _or(a, b):
    return a[0] | b[0], a[1] | b[1]


@njit(inline="always")
def _and(a, b):
    return a[0] & b[0], a[1] & b[1]


@njit(inline="always")
def _andn(a, b):
    """``a & ~b``."""
    return a[0] & ~b[0], a[1] & ~b[1]


@njit(inline="always")
def _xor(a, b):
    return a[0] ^ b[0], a[1] ^ b[1]


@njit(inline="always")
def _any(a):
    return (a[0] | a[1]) != U0


@njit(inline="always")
def _count(a):
    return np.int64(popcount(a[0]) + popcount(a[1]))


@njit(inline="always")
def _shl(a, k):
    """The 128-bit ``a`` shifted up by ``0 < k < 64`` bits."""
    return a[0] << k, (a[1] << k) | (a[0] >> (U64 - k))


@njit(inline="always")
def _shr(a, k):
    return (a[0] >> k) | (a[1] << (U64 - k)), a[1] >> k


@njit(inline="always")
def _nbr(a, wu, mask):
    """The points next to a point of ``a`` (``wu`` the row width as ``uint64``)."""
    return _and(_or(_or(_shl(a, U1), _shr(a, U1)), _or(_shl(a, wu), _shr(a, wu))), mask)


@njit(inline="always")
def _bit(p, w):
    b = np.uint64(p - w)
    x = U1 << (b & U63)
    low = b < U64
    return (x if low else U0), (U0 if low else x)


@njit(inline="always")
def _has(a, p, w):
    b = np.uint64(p - w)
    x = a[0] if b < U64 else a[1]
    return (x >> (b & U63)) & U1 != U0


@njit(inline="always")
def _group(t, g):
    return _get(t, B_GROUPS + 2 * g)


@njit(inline="always")
def _libs(t, g, pp):
    return _get(t, B_GROUPS + G_LIBS * pp + 2 * g)


@njit(inline="always")
def _step(x, r, pos, width):
    """One step of :func:`_nth`'s search: skip the low ``width`` bits of ``x`` if they hold at
    most ``r`` set bits (no branch)."""
    low = popcount(x & ((U1 << width) - U1))
    skip = np.uint64(r >= low)
    r -= low * skip
    x >>= width * skip
    return x, r, pos + width * skip


@njit(inline="always")
def _nth(a, r):
    """The bit index of the ``r``-th (from 0) set bit of ``a``."""
    r = np.uint64(r)
    n0 = popcount(a[0])
    high = r >= n0
    x = a[1] if high else a[0]
    r = r - n0 if high else r
    pos = U64 if high else U0
    x, r, pos = _step(x, r, pos, U32)
    x, r, pos = _step(x, r, pos, U16)
    x, r, pos = _step(x, r, pos, U8)
    x, r, pos = _step(x, r, pos, U4)
    x, r, pos = _step(x, r, pos, U2)
    x, r, pos = _step(x, r, pos, U1)
    return np.int64(pos)


@njit(inline="always")
def _count4(a, b, c, d):
    """Bit-sliced sum of four sets: ``(bit0, bit1, bit2)``."""
    x1 = _xor(a, b)
    y1 = _and(a, b)
    x2 = _xor(c, d)
    y2 = _and(c, d)
    carry = _and(x1, x2)
    h = _xor(y1, y2)
    return _xor(x1, x2), _xor(h, carry), _or(_and(y1, y2), _and(h, carry))


@njit(inline="always")
def _neighbours_in(k, wu):
    """Bit-sliced count of each point's neighbours in ``k`` (unmasked: off-board bits are junk)."""
    return _count4(_shr(k, U1), _shl(k, U1), _shr(k, wu), _shl(k, wu))


@njit(inline="always")
def _safe_again(state, y, col, w, pp, atari):
    """Whether the empty point ``y`` is next to a group of colour ``col`` outside atari, the
    groups ``atari`` counted in atari."""
    g0 = HEADER + A_GRP * pp
    for kd in range(4):
        q = y + _offset(kd, w)
        if state[U(HEADER + q)] == col and not _has(atari, state[U(g0 + q)], w):
            return True
    return False


@njit(inline="always")
def _exact(state, t, m, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao, sfc, sfo, alc, alo,
           nlc, nlo):  # fmt: skip
    """``a - b`` of colour ``col``'s legal move ``m`` from the legal sets after it (module doc):
    ``sc, ac`` the mover's stones and stones in atari, ``to`` the opponent's stones of groups
    with two liberties, ``sfc``/``alc`` (``sfo``/``alo``) the mover's (opponent's) safe points and
    last liberties, ``nlc``/``nlo`` the numbers of legal moves before."""
    g0 = HEADER + A_GRP * pp
    bm = _bit(m, w)
    e2 = _andn(e, bm)
    nm = _nbr(bm, wu, mask)
    ne2 = _andn(ne, _and(nm, one))
    libs = _and(nm, e)
    grp = bm
    atari_o = (U0, U0)
    last_o = (U0, U0)
    for kd in range(4):
        q = m + _offset(kd, w)
        v = state[U(HEADER + q)]
        if v == col:
            g = state[U(g0 + q)]
            grp = _or(grp, _group(t, g))
            libs = _or(libs, _libs(t, g, pp))
        elif v == 3 - col:
            h = state[U(g0 + q)]
            if _has(to, h, w) and not _has(atari_o, h, w):
                atari_o = _or(atari_o, _group(t, h))
                last_o = _or(last_o, _libs(t, h, pp))
    libs = _andn(libs, bm)
    if _count(libs) == 1:  # the merged group is in atari
        alc2 = _or(_andn(alc, bm), libs)
        sfc2 = _nbr(_andn(_or(sc, bm), _or(ac, grp)), wu, mask)
    else:
        libs = (U0, U0)
        alc2 = _andn(alc, bm)
        sfc2 = _or(sfc, nm)
    alo2 = alo
    sfo2 = sfo
    if _any(atari_o):
        last_o = _andn(last_o, bm)
        alo2 = _or(alo, last_o)
        sfo2 = _andn(sfo, last_o)
        atari_o = _or(ao, atari_o)
        for word in range(2):
            x = last_o[word]
            while x != U0:
                y = np.int64(trailing_zeros(x)) + 64 * word + w
                x &= x - U1
                if _safe_again(state, y, 3 - col, w, pp, atari_o):
                    sfo2 = _or(sfo2, _bit(y, w))
    lc2 = _and(_andn(e2, alo2), _or(ne2, sfc2))
    lo2 = _and(_andn(e2, alc2), _or(ne2, sfo2))
    affected = _or(_or(bm, _and(nm, e)), _or(last_o, libs))
    return (nlo - _count(lo2)) - (nlc - _count(lc2)), affected


@njit(inline="always")
def _lowest(a):
    """The lowest set bit of ``a`` (``a`` not empty)."""
    low = a[0] != U0
    return (a[0] & (U0 - a[0]) if low else U0), (U0 if low else a[1] & (U0 - a[1]))


@njit(inline="always")
def _point(a, w):
    """The padded point of the one-point set ``a``."""
    word = np.int64(a[0] == U0)
    return np.int64(trailing_zeros(a[word])) + 64 * word + w


@njit(inline="always")
def _atari_one(state, t, single, victim, e, lv, lm, c, w, pp, wu, mask):
    """The corrections ``(plus, minus)`` to the closed-form ``a - b`` of colour ``c``'s moves at
    ``single``: each is a liberty of exactly one group of the opponent (``victim = (S, A, T)``,
    legal set ``lv``) with two liberties, next to one of its stones, and no self-atari. Playing
    ``m`` puts that group ``P`` in atari at its other liberty ``y``: the mover (legal set ``lm``)
    loses ``y`` (it would capture), the opponent loses ``y`` unless ``y`` keeps an empty neighbour
    other than ``m`` or touches another of its groups outside atari; nothing else changes but
    what the closed form counts (``y`` was safe for the opponent, next to ``P``, so it is not
    counted). Each move's score then depends on ``m``, its empty neighbours and ``y`` alone,
    recorded as its affected points for the cache (:func:`_keep`, :func:`_forget`)."""
    sv, av, tv = victim
    g0 = HEADER + A_GRP * pp
    a0 = B_GROUPS + G_AFFECTED * pp + 2 * c * pp
    plus = (U0, U0)
    minus = (U0, U0)
    todo = _and(tv, _nbr(single, wu, mask))
    while _any(todo):
        g = state[U(g0 + _point(_lowest(todo), w))]
        stones = _group(t, g)
        todo = _andn(todo, stones)
        libs = _libs(t, g, pp)
        first = _lowest(libs)
        others = _andn(sv, _or(av, stones))
        for k in range(2):
            m = first if k == 0 else _xor(libs, first)
            if not _any(_and(m, single)):
                continue
            y = _xor(libs, m)
            _put(t, a0 + 2 * _point(m, w), _or(_or(m, y), _and(_nbr(m, wu, mask), e)))
            ny = _nbr(y, wu, mask)
            kept = _any(_and(ny, _or(_andn(e, m), others)))
            lost = _any(_and(y, lv)) and not kept
            if lost and not _any(_and(y, lm)):
                plus = _or(plus, m)
            elif _any(_and(y, lm)) and not lost:
                minus = _or(minus, m)
    return plus, minus


@njit(inline="always")
def _turn(t, c, w, two_sided):
    """The sets of a turn of colour ``c``: ``(e, one, ne, mask, sets of c, sets of the opponent,
    own, opp, complex for c, complex for the opponent, single for c, single for the opponent)``;
    each colour's sets are ``(S, A, T, SAFE, AL, L)``; ``own`` bit slices (lowest first) of
    ``a - b + 1`` of each simple move of ``c``, ``opp`` of the opponent's ``a - b`` at the same
    point (``nf2``); the single moves are those :func:`_atari_one` corrects."""
    o = 1 - c
    wu = np.uint64(w)
    mask = _get(t, B_MASK)
    e = _get(t, B_E)
    sc = _get(t, B_S + 2 * c)
    so = _get(t, B_S + 2 * o)
    ac = _get(t, B_A + 2 * c)
    ao = _get(t, B_A + 2 * o)
    tc = _get(t, B_T + 2 * c)
    to = _get(t, B_T + 2 * o)
    b0, b1, b2 = _neighbours_in(e, wu)
    ne = _and(_or(b0, _or(b1, b2)), mask)
    one = _and(_andn(b0, _or(b1, b2)), mask)
    sfc = _nbr(_andn(sc, ac), wu, mask)
    sfo = _nbr(_andn(so, ao), wu, mask)
    alc = _and(_nbr(ac, wu, mask), e)
    alo = _and(_nbr(ao, wu, mask), e)
    lc = _and(_andn(e, alo), _or(ne, sfc))
    lo = _and(_andn(e, alc), _or(ne, sfo))
    # a - b + 1 = [m in L_o] + #(N(m) & K_o)
    b0, b1, b2 = _neighbours_in(_andn(_and(one, lo), sfo), wu)
    k0 = _and(b0, lo)
    own = (_xor(b0, lo), _xor(b1, k0), _or(b2, _and(b1, k0)))
    few = _andn(mask, _andn(ne, one))  # at most one empty neighbour
    shaky = _andn(few, _nbr(_andn(sc, _or(ac, tc)), wu, mask))  # may be a self-atari
    b0, b1, b2 = _neighbours_in(to, wu)  # next to one stone of T_o, or more
    sgc = _andn(_and(lc, b0), _or(_or(b1, b2), shaky))
    cxc = _andn(_and(lc, _or(_and(_or(b0, _or(b1, b2)), mask), shaky)), sgc)
    opp = own
    cxo = cxc
    sgo = sgc
    if two_sided:
        opp = _neighbours_in(_andn(_and(one, lc), sfc), wu)
        shaky = _andn(few, _nbr(_andn(so, _or(ao, to)), wu, mask))
        b0, b1, b2 = _neighbours_in(tc, wu)
        both = _and(lc, lo)
        sgo = _andn(_and(both, b0), _or(_or(b1, b2), shaky))
        cxo = _andn(_and(both, _or(_and(_or(b0, _or(b1, b2)), mask), shaky)), sgo)
    mine = (sc, ac, tc, sfc, alc, lc)
    theirs = (so, ao, to, sfo, alo, lo)
    return e, one, ne, mask, mine, theirs, own, opp, cxc, cxo, sgc, sgo


@njit(inline="always")
def _spread(m, v):
    """The five bit planes (lowest first) of the number ``v`` at the points ``m``."""
    return (
        (m[0] * (v & U1), m[1] * (v & U1)),
        (m[0] * ((v >> U1) & U1), m[1] * ((v >> U1) & U1)),
        (m[0] * ((v >> U2) & U1), m[1] * ((v >> U2) & U1)),
        (m[0] * ((v >> np.uint64(3)) & U1), m[1] * ((v >> np.uint64(3)) & U1)),
        (m[0] * ((v >> U4) & U1), m[1] * ((v >> U4) & U1)),
    )


@njit(inline="always")
def _keep(t, c, m, planes):
    """Cache ``planes`` (five or more, lowest first; the first five kept) as colour ``c``'s scores
    plus ``BIAS`` at the points ``m``."""
    p0 = B_CACHE + 2 * PLANES * c
    for j in range(PLANES):
        i = p0 + 2 * j
        _put(t, i, _or(_andn(_get(t, i), m), _and(planes[j], m)))
    _put(t, B_VALID + 2 * c, _or(_get(t, B_VALID + 2 * c), m))


@njit(inline="always")
def _cache_word(state, t, x, base, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao, sfc,
                sfo, alc, alo, nlc, nlo):  # fmt: skip
    """Score exactly (:func:`_exact`) colour ``col``'s moves at the points of the word ``x``
    (point ``base + bit``) and cache them: the score in the colour's planes, the affected points
    for :func:`_forget`."""
    c = col - 1
    while x != U0:
        m = np.int64(trailing_zeros(x)) + base
        x &= x - U1
        f, affected = _exact(state, t, m, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao,
                             sfc, sfo, alc, alo, nlc, nlo)  # fmt: skip
        _put(t, B_GROUPS + G_AFFECTED * pp + 2 * (c * pp + m), affected)
        bm = _bit(m, w)
        _keep(t, c, bm, _spread(bm, np.uint64(f + BIAS)))


@njit(inline="always")
def _cache(state, t, need, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao, sfc, sfo, alc,
           alo, nlc, nlo):  # fmt: skip
    """:func:`_cache_word` for both words of the set ``need``."""
    _cache_word(state, t, need[0], w, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao, sfc,
                sfo, alc, alo, nlc, nlo)  # fmt: skip
    _cache_word(state, t, need[1], w + 64, col, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao,
                sfc, sfo, alc, alo, nlc, nlo)  # fmt: skip


@njit(inline="always")
def _cached(t, c):
    """Colour ``c``'s cached planes."""
    p0 = B_CACHE + 2 * PLANES * c
    return (
        _get(t, p0), _get(t, p0 + 2), _get(t, p0 + 4), _get(t, p0 + 6), _get(t, p0 + 8),
    )  # fmt: skip


@njit(inline="always")
def _full_add(a, b, carry):
    """A bit-sliced full adder: ``(sum, carry)``."""
    h = _xor(a, b)
    return _xor(h, carry), _or(_and(a, b), _and(h, carry))


@njit(inline="always")
def _add(a, b):
    """The bit-sliced sum of two five-plane numbers: six planes."""
    s0, k = _full_add(a[0], b[0], (U0, U0))
    s1, k = _full_add(a[1], b[1], k)
    s2, k = _full_add(a[2], b[2], k)
    s3, k = _full_add(a[3], b[3], k)
    s4, k = _full_add(a[4], b[4], k)
    return s0, s1, s2, s3, s4, k


@njit(inline="always")
def _pick(m, a, b):
    """Per plane: ``a`` where ``m`` is set, else ``b``."""
    return (
        _or(_and(m, a[0]), _andn(b[0], m)), _or(_and(m, a[1]), _andn(b[1], m)),
        _or(_and(m, a[2]), _andn(b[2], m)), _or(_and(m, a[3]), _andn(b[3], m)),
        _or(_and(m, a[4]), _andn(b[4], m)),
    )  # fmt: skip


@njit(inline="always")
def _planes(state, t, c, w, pp, two_sided):
    """Colour ``c``'s legal points and the bit planes (lowest first) of every legal move's score
    plus ``BIAS`` (``nf``) or ``2 BIAS`` (``nf2``): a side's simple moves from the bit slices,
    its complex moves and those :func:`_atari_one` corrects from the cache (scored now and cached
    where missing: exactly, or the slices plus the correction)."""
    e, one, ne, mask, mine, theirs, own, opp, cxc, cxo, sgc, sgo = _turn(t, c, w, two_sided)
    sc, ac, tc, sfc, alc, lc = mine
    so, ao, to, sfo, alo, lo = theirs
    wu = np.uint64(w)
    nlc = _count(lc)
    nlo = _count(lo)
    z = (U0, U0)
    valid = _get(t, B_VALID + 2 * c)
    need = _andn(cxc, valid)
    if _any(need):
        _cache(state, t, need, c + 1, w, pp, wu, mask, e, one, ne, sc, ac, to, so, ao, sfc, sfo,
               alc, alo, nlc, nlo)  # fmt: skip
    # a - b + BIAS of a simple move: own + BIAS - 1 + correction, the addend 6, 7 or 8; the
    # corrected ones cached like the complex moves
    fresh = _andn(sgc, valid)
    up, down = _atari_one(state, t, fresh, (so, ao, to), e, lo, lc, c, w, pp, wu, mask)
    seven = _andn(mask, up)
    simple = _add((own[0], own[1], own[2], z, z), (_andn(seven, down), seven, seven, up, z))
    if _any(fresh):
        _keep(t, c, fresh, simple)
    fc = _pick(_or(cxc, sgc), _cached(t, c), simple)
    if not two_sided:
        return lc, (fc[0], fc[1], fc[2], fc[3], fc[4], z)
    valid = _get(t, B_VALID + 2 * (1 - c))
    need = _andn(cxo, valid)
    if _any(need):
        _cache(state, t, need, 2 - c, w, pp, wu, mask, e, one, ne, so, ao, tc, sc, ac, sfo, sfc,
               alo, alc, nlo, nlc)  # fmt: skip
    # the opponent's side + BIAS: opp + 8 + correction, the addend 7, 8 or 9 (opp < 5), its
    # a - b + BIAS at a point both may play
    fresh = _andn(sgo, valid)
    up, down = _atari_one(state, t, fresh, (sc, ac, tc), e, lc, lo, 1 - c, w, pp, wu, mask)
    side = _add((opp[0], opp[1], opp[2], z, z), (_or(up, down), down, down, _andn(mask, down), z))
    if _any(fresh):
        _keep(t, 1 - c, fresh, side)
    fo = _pick(_or(cxo, sgo), _cached(t, 1 - c), side)
    fo = _pick(lo, fo, (z, z, z, mask, z))  # the opponent's side only where it may play m
    return lc, _add(fc, fo)


@njit(inline="always")
def _forget_word(t, c, x, base, keep, touched, w, pp):
    a0 = B_GROUPS + G_AFFECTED * pp + 2 * c * pp
    while x != U0:
        m = np.int64(trailing_zeros(x)) + base
        x &= x - U1
        hit = np.uint64(_any(_and(_get(t, a0 + 2 * m), touched)))
        bm = _bit(m, w)
        keep = _andn(keep, (bm[0] * hit, bm[1] * hit))
    return keep


@njit(inline="always")
def _forget(t, c, touched, w, pp):
    """Clear colour ``c``'s cached scores whose affected points meet ``touched``: a score stays
    valid until a stone is placed on or next to the points whose legality the move changes or
    changes the liberties of a group next to one of them (:func:`nfb_place`)."""
    v = B_VALID + 2 * c
    valid = _get(t, v)
    keep = _forget_word(t, c, valid[0], w, valid, touched, w, pp)
    keep = _forget_word(t, c, valid[1], w + 64, keep, touched, w, pp)
    _put(t, v, keep)


@njit(cache=True)
def nfb_alloc(consts, on):
    """An array for :func:`nfb_fill` (size 0 when not ``on``)."""
    return np.zeros(B_GROUPS + G_END * consts[C_P] if on else 0, dtype=np.uint64)


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def nfb_fill(consts, state, t):
    """Write into ``t`` (from :func:`nfb_alloc`) the bitboards of the position ``state``."""
    consts = borrow(consts)
    state = borrow(state)
    t = borrow(t)
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    wu = np.uint64(w)
    g0 = HEADER + A_GRP * pp
    t[:] = U0
    mask = (U0, U0)
    for a in range(consts[C_N]):
        p = consts[C_TABLES + a]
        b = _bit(p, w)
        mask = _or(mask, b)
        v = state[U(HEADER + p)]
        if v == EMPTY:
            _put(t, B_E, _or(_get(t, B_E), b))
        else:
            i = B_S + 2 * (v - 1)
            _put(t, i, _or(_get(t, i), b))
            g = B_GROUPS + 2 * state[U(g0 + p)]
            _put(t, g, _or(_get(t, g), b))
    _put(t, B_MASK, mask)
    e = _get(t, B_E)
    for a in range(consts[C_N]):
        p = consts[C_TABLES + a]
        v = state[U(HEADER + p)]
        if v != EMPTY and state[U(g0 + p)] == p:
            stones = _group(t, p)
            libs = _and(_nbr(stones, wu, mask), e)
            _put(t, B_GROUPS + G_LIBS * pp + 2 * p, libs)
            n = _count(libs)
            if n <= 2:
                i = (B_A if n == 1 else B_T) + 2 * (v - 1)
                _put(t, i, _or(_get(t, i), stones))


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def nfb_pick(consts, state, t, c, rng, two_sided):
    """A uniform point among colour ``c``'s legal points of the best score, or -1 when ``c``
    has no legal move. Returns ``(rng, point)``."""
    consts = borrow(consts)
    state = borrow(state)
    t = borrow(t)
    w = np.int64(consts[C_W])
    top, planes = _planes(state, t, c, w, consts[C_P], two_sided)
    if not _any(top):
        return rng, np.int64(-1)
    for j in range(PLANES, -1, -1):  # the best score: keep the points with bit j if any
        s = _and(top, planes[j])
        keep = np.uint64(_any(s))
        top = (s[0] * keep | top[0] * (U1 - keep), s[1] * keep | top[1] * (U1 - keep))
    rng, r = below(rng, _count(top))
    return rng, _nth(top, r) + w


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def nfb_place(consts, state, t, p, col):
    """Put a stone of colour ``col`` at the legal point ``p`` (the kernels' ``_place``) and keep
    the bitboards."""
    consts = borrow(consts)
    state = borrow(state)
    t = borrow(t)
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    wu = np.uint64(w)
    mask = _get(t, B_MASK)
    g0 = HEADER + A_GRP * pp
    c = col - 1
    o = 1 - c
    bp = _bit(p, w)
    e = _andn(_get(t, B_E), bp)
    grp = bp
    libs = _and(_nbr(bp, wu, mask), e)
    for kd in range(4):
        q = p + _offset(kd, w)
        if state[U(HEADER + q)] == col:
            g = state[U(g0 + q)]
            grp = _or(grp, _group(t, g))
            libs = _or(libs, _libs(t, g, pp))
    libs = _andn(libs, bp)
    _place(state, p, col, w, pp)
    r = state[U(g0 + p)]
    _put(t, B_GROUPS + 2 * r, grp)
    _put(t, B_GROUPS + G_LIBS * pp + 2 * r, libs)
    _put(t, B_E, e)
    _put(t, B_S + 2 * c, _or(_get(t, B_S + 2 * c), bp))
    ac = _andn(_get(t, B_A + 2 * c), grp)
    tc = _andn(_get(t, B_T + 2 * c), grp)
    n = _count(libs)
    if n == 1:
        ac = _or(ac, grp)
    elif n == 2:
        tc = _or(tc, grp)
    _put(t, B_A + 2 * c, ac)
    _put(t, B_T + 2 * c, tc)
    ao = _get(t, B_A + 2 * o)
    to = _get(t, B_T + 2 * o)
    changed = grp
    for kd in range(4):
        q = p + _offset(kd, w)
        if state[U(HEADER + q)] == 2 - c:
            h = state[U(g0 + q)]
            i = B_GROUPS + G_LIBS * pp + 2 * h
            before = _get(t, i)
            if not _any(_and(before, bp)):
                continue  # this group was met at another side of p
            after = _andn(before, bp)
            _put(t, i, after)
            changed = _or(changed, _group(t, h))
            n = _count(after)
            if n == 1:
                stones = _group(t, h)
                ao = _or(ao, stones)
                to = _andn(to, stones)
            elif n == 2:
                to = _or(to, _group(t, h))
    _put(t, B_A + 2 * o, ao)
    _put(t, B_T + 2 * o, to)
    touched = _or(_nbr(changed, wu, mask), bp)
    _forget(t, 0, touched, w, pp)
    _forget(t, 1, touched, w, pp)


@njit(inline="always")
def _values(top, planes, m, w, bias):
    """The score at point ``m`` read from the planes, or -99 where ``m`` is not in ``top``."""
    if not _has(top, m, w):
        return np.int64(-99)
    f = -bias
    for j in range(PLANES + 1):
        f += np.int64(_has(planes[j], m, w)) << j
    return f


@njit  # compiled once for the test entry points below, not inlined into each
def nfb_score_row(consts, state, t, c, two_sided, row):
    """For tests: colour ``c``'s score of every action from the kept bitboards ``t`` at
    ``row[action]`` (``-99`` where it may not play)."""
    w = np.int64(consts[C_W])
    top, planes = _planes(state, t, c, w, consts[C_P], two_sided)
    bias = BIAS * (1 + two_sided)
    for a in range(consts[C_N]):
        row[a] = _values(top, planes, np.int64(consts[C_TABLES + a]), w, bias)


@njit(cache=True)
def nfb_scores(consts, state, c, two_sided, points, scores):
    """The score of every legal move of player ``c`` from fresh bitboards, for tests: writes
    padded points and scores, returns their number."""
    t = nfb_alloc(consts, True)
    nfb_fill(consts, state, t)
    row = np.empty(consts[C_N], dtype=np.int64)
    nfb_score_row(consts, state, t, np.int64(c), two_sided, row)
    k = 0
    for a in range(consts[C_N]):
        if row[a] != -99:
            points[k] = a
            scores[k] = row[a]
            k += 1
    return k


@njit(cache=True)
def nfb_tracked_scores(consts, state, actions, two_sided, out):
    """For tests: play ``actions`` from ``state`` through :func:`nfb_place`, writing before each
    move (and after the last) the score of every action for the player to move, then the other,
    from the kept bitboards and cached scores at ``out[i, c, action]`` (``-99`` where the colour
    may not play)."""
    t = nfb_alloc(consts, True)
    nfb_fill(consts, state, t)
    for i in range(len(actions) + 1):
        for k in range(2):
            c = np.int64(state[0] ^ k)
            nfb_score_row(consts, state, t, c, two_sided, out[i, c])
        if i < len(actions):
            mover = state[0]
            nfb_place(consts, state, t, consts[C_TABLES + actions[i]], mover + 1)
            state[0] = 1 - mover


@njit(cache=True)
def nfb_kept_errors(consts, state, actions):
    """For tests: play ``actions`` from ``state`` through :func:`nfb_place`; the number of moves
    after which the kept bitboards differ from :func:`nfb_fill`'s of the same position (the sets,
    and each group's stones and liberties at its representative)."""
    pp = consts[C_P]
    g0 = HEADER + A_GRP * pp
    t = nfb_alloc(consts, True)
    fresh = nfb_alloc(consts, True)
    nfb_fill(consts, state, t)
    wrong = 0
    for i in range(len(actions)):
        mover = state[0]
        nfb_place(consts, state, t, consts[C_TABLES + actions[i]], mover + 1)
        state[0] = 1 - mover
        nfb_fill(consts, state, fresh)
        bad = False
        for j in range(B_VALID):
            bad |= t[j] != fresh[j]
        for a in range(consts[C_N]):
            p = consts[C_TABLES + a]
            if state[HEADER + p] != EMPTY and state[g0 + p] == p:
                for j in (B_GROUPS + 2 * p, B_GROUPS + G_LIBS * pp + 2 * p):
                    bad |= t[j] != fresh[j] or t[j + 1] != fresh[j + 1]
        wrong += bad
    return wrong


@njit(cache=True)
def nfb_first(consts, state, c, two_sided, rng):
    """For tests: :func:`nfb_pick` in the position ``state``. Returns ``(rng, point)``."""
    t = nfb_alloc(consts, True)
    nfb_fill(consts, state, t)
    return nfb_pick(consts, state, t, c, rng, two_sided)
