"""Go kernels: area (Tromp-Taylor) scoring with komi, suicide illegal, positional superko, pass.

Rules (Tromp and Taylor, "The Logical Rules of Go"). Black (player 0) moves first.
A move is a pass or a stone on an empty point; after the stone, opponent groups without a
liberty are removed, then the mover's own group must have a liberty (suicide is illegal). A stone
move may not recreate a board position that occurred before in the game (positional superko; the
player to move is not part of a position, and a pass never repeats a position). Two consecutive
passes end the game; so does reaching ``max_len = 3 * size * size`` moves (passes included), a
guard that real games never meet. Score = stones + empty points that reach only that colour
(area scoring); Black wins if ``black - white - komi > 0``, White if it is < 0, and an integer
komi can give a draw (returns 0, 0).

Board. A padded one-dimensional board with ``W = size + 1`` entries per row: board row ``r``
(0 = top) and column ``c`` sit at point ``(r + 1) * W + c + 1``; row 0, row ``size + 1`` and
entry 0 of every row (shared by the right edge of one row and the left edge of the next) are
border. The neighbours of ``p`` are ``p - 1, p + 1, p - W, p + W`` and the diagonals
``p +- W +- 1`` all stay inside ``P = (size + 2) * W + 1`` points, with no bounds test.

Groups. Each stone stores its group's representative (``grp``) and the next stone of its group
in a circular list (``nxt``); merging relabels the smaller group; a captured group is walked
through ``nxt``. Representatives store the group's size and three sums over its
pseudo-liberties (one per stone-empty adjacency): their number ``ln``, the sum of their points
``ls`` and of their squares ``lq``. A group has no liberty iff ``ln == 0`` and exactly one
distinct liberty iff ``ln * lq == ls * ls`` (Cauchy-Schwarz; the NoGo kernels use the same sums).
The empty points are kept in a list (``empty``) with each point's index in it (``epos``), so a
random playout draws uniformly among them.

Superko. The position hash is Zobrist's (Zobrist 1970): the xor of a random 64-bit key per
(colour, point) over the stones, starting from a non-zero constant for the empty board; keys are
fixed (seeded) per board size and live in ``consts``. **The set of previous positions lives in the
state array** as an open-addressing hash table of 64-bit hashes (two int32 words per slot, linear
probing, ``(0, 0)`` = empty slot), with ``T`` slots, the power of two >= ``2 * (max_len + 1)``
(load factor <= 1/2: about 1.5 probes per lookup). So cloning a state stays one array copy, a
superko test is O(1) (a playout tests every candidate move), and nothing needs replaying. The cost
is the array size: ``T = 512`` slots (4 KB) on 9x9. A hash collision (probability ~2^-64 per pair)
would forbid a legal move; that is accepted.

State (int32), ``HEADER = 12`` then eight arrays of ``P``, one of ``N`` and the table::

    [0] to_move (0 Black, 1 White)   [1] consecutive passes   [2] moves played (passes included)
    [3] result: -1 while the game goes on, 0 Black won, 1 White won, 2 draw
    [4] number of empty points        [5] hash low word         [6] hash high word
    [7] last action (-1 none)         [8] positions in the superko table
    [9] stones captured by Black     [10] stones captured by White     [11] unused
    board[P]  0 empty, 1 Black, 2 White, 3 border (colour = player + 1)
    grp[P] nxt[P] gsize[P] ln[P] ls[P] lq[P]    (gsize and liberty sums valid at representatives)
    epos[P]                                      index of an empty point in ``empty``
    empty[N]                                     the empty points (padded numbering)
    table[2 T]                                   hashes of every position of the game so far

Actions: ``row * size + col`` for a stone (coords.py), ``N = size * size`` for a pass.

Constants (int32): ``[size, W, N, P, state_size, T, max_len, 2 * komi]`` then
``pad_of_action[N]``, ``action_of_pad[P]`` (-1 off the board), the empty-board hash (2 words)
and the Zobrist keys ``[colour - 1][point][word]`` (``4 P`` words). Build with :func:`make_consts`.
"""

import numpy as np
from numba import njit

from mctslab.games.common_kernels import (  # noqa: F401  (contract kernels)
    apply_chance,
    chance_outcomes,
)
from mctslab.games.go_groups import add_stone
from mctslab.kernels.rng import below

STATE_DTYPE = np.int32
#: index arrays with unsigned integers: no negative-index wraparound test (docs/architecture.md,
#: speed traps)
U = np.uint64

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
DRAW = 2
C_SIZE, C_W, C_N, C_P, C_STATE_SIZE, C_T, C_MAX_LEN, C_KOMI2 = 0, 1, 2, 3, 4, 5, 6, 7
C_TABLES = 8
S_TO_MOVE, S_PASSES, S_NMOVES, S_RESULT, S_NEMPTY, S_HLO, S_HHI, S_LAST = 0, 1, 2, 3, 4, 5, 6, 7
S_NHIST, S_CAPS = 8, 9
HEADER = 12
# array k of the eight padded arrays starts at HEADER + k * P
A_BOARD, A_GRP, A_NXT, A_SIZE, A_LN, A_LS, A_LQ, A_EPOS = 0, 1, 2, 3, 4, 5, 6, 7
N_PADDED_ARRAYS = 8
#: seed of the Zobrist keys (any fixed value; keys depend only on it and the board size)
ZOBRIST_SEED = 20110427


def padded_width(size: int) -> int:
    return size + 1


def padded_points(size: int) -> int:
    return (size + 2) * padded_width(size) + 1


def max_length(size: int) -> int:
    """The move-count guard: ``3 * size * size`` moves, passes included."""
    return 3 * size * size


def table_slots(size: int) -> int:
    """Slots of the superko hash table: the power of two >= 2 * (positions in a game)."""
    t = 1
    while t < 2 * (max_length(size) + 1):
        t *= 2
    return t


def state_size(size: int) -> int:
    return HEADER + N_PADDED_ARRAYS * padded_points(size) + size * size + 2 * table_slots(size)


def make_consts(size: int, komi: float) -> np.ndarray:
    """The int32 constants array (layout in the module doc); ``komi`` must be a multiple of 0.5."""
    w = padded_width(size)
    n = size * size
    p = padded_points(size)
    consts = np.zeros(C_TABLES + n + p + 2 + 4 * p, dtype=np.int32)
    consts[C_SIZE], consts[C_W], consts[C_N], consts[C_P] = size, w, n, p
    consts[C_STATE_SIZE] = state_size(size)
    consts[C_T] = table_slots(size)
    consts[C_MAX_LEN] = max_length(size)
    consts[C_KOMI2] = round(2 * komi)
    consts[C_TABLES + n : C_TABLES + n + p] = -1
    for a in range(n):
        r, c = divmod(a, size)
        q = (r + 1) * w + c + 1
        consts[C_TABLES + a] = q
        consts[C_TABLES + n + q] = a
    keys = np.random.default_rng([ZOBRIST_SEED, size]).integers(
        -(2**31), 2**31, size=2 + 4 * p, dtype=np.int64
    )
    keys[:2] |= 1  # the empty board's hash is never (0, 0), the table's empty-slot mark
    consts[C_TABLES + n + p :] = keys.astype(np.int32)
    return consts


# -- small inlined pieces -----------------------------------------------------------------------


@njit(inline="always")
def _zkey(consts, col, p):
    """Index in ``consts`` of the Zobrist key (2 words) of a ``col`` stone at padded point ``p``."""
    n = consts[C_N]
    pp = consts[C_P]
    return C_TABLES + n + pp + 2 + 2 * ((col - 1) * pp + p)


@njit(inline="always")
def _in_table(consts, state, lo, hi):
    """Whether the position hash ``(lo, hi)`` is in the state's superko table."""
    t = consts[C_T]
    t0 = consts[C_STATE_SIZE] - 2 * t
    i = lo & (t - 1)
    while True:
        a = state[U(t0 + 2 * i)]
        b = state[U(t0 + 2 * i + 1)]
        if a == lo and b == hi:
            return True
        if a == 0 and b == 0:
            return False
        i = (i + 1) & (t - 1)


@njit(inline="always")
def _add_to_table(consts, state, lo, hi):
    """Insert ``(lo, hi)`` (the probe loop of :func:`_in_table` again: one shared probe function
    returning the slot made 9x9 playouts ~7% slower, measured)."""
    t = consts[C_T]
    t0 = consts[C_STATE_SIZE] - 2 * t
    i = lo & (t - 1)
    while True:
        a = state[U(t0 + 2 * i)]
        b = state[U(t0 + 2 * i + 1)]
        if a == lo and b == hi:
            return
        if a == 0 and b == 0:
            state[U(t0 + 2 * i)] = lo
            state[U(t0 + 2 * i + 1)] = hi
            state[S_NHIST] += 1
            return
        i = (i + 1) & (t - 1)


@njit(inline="always")
def _one_liberty(state, g, pp):
    """Whether the group with representative ``g`` has exactly one distinct liberty (or none)."""
    s = np.int64(state[U(HEADER + A_LS * pp + g)])
    n = np.int64(state[U(HEADER + A_LN * pp + g)])
    return n * np.int64(state[U(HEADER + A_LQ * pp + g)]) == s * s


@njit(inline="always")
def _move_hash(consts, state, p, col):
    """Legality of a ``col`` stone at the empty padded point ``p``, without playing it.

    Returns ``(legal, lo, hi)``: suicide is illegal; the hash of the position after the move
    (captures included) must not be in the superko table.
    """
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    b0 = HEADER
    g0 = HEADER + A_GRP * pp
    x0 = HEADER + A_NXT * pp
    k = _zkey(consts, col, p)
    lo = state[S_HLO] ^ consts[k]
    hi = state[S_HHI] ^ consts[k + 1]
    libs = False
    opp = 3 - col
    c1 = -1
    c2 = -1
    c3 = -1
    for d in (-1, 1, -w, w):
        q = p + d
        v = state[U(b0 + q)]
        if v == EMPTY:
            libs = True
        elif v == col:
            if not _one_liberty(state, state[U(g0 + q)], pp):
                libs = True
        elif v == opp:
            g = state[U(g0 + q)]
            if _one_liberty(state, g, pp) and g != c1 and g != c2 and g != c3:
                libs = True  # a capture: its stones leave the board
                if c1 < 0:
                    c1 = g
                elif c2 < 0:
                    c2 = g
                else:
                    c3 = g
                x = g
                while True:
                    kk = _zkey(consts, opp, x)
                    lo ^= consts[kk]
                    hi ^= consts[kk + 1]
                    x = state[U(x0 + x)]
                    if x == g:
                        break
    if not libs:
        return False, lo, hi
    return not _in_table(consts, state, lo, hi), lo, hi


@njit(inline="always")
def _remove_empty(state, p, pp):
    """Take ``p`` out of the empty list (the last entry fills its slot)."""
    e0 = HEADER + A_EPOS * pp
    l0 = HEADER + N_PADDED_ARRAYS * pp
    i = state[U(e0 + p)]
    last = state[S_NEMPTY] - 1
    q = state[U(l0 + last)]
    state[U(l0 + i)] = q
    state[U(e0 + q)] = i
    state[S_NEMPTY] = last


@njit(inline="always")
def _add_empty(state, p, pp):
    e0 = HEADER + A_EPOS * pp
    l0 = HEADER + N_PADDED_ARRAYS * pp
    n = state[S_NEMPTY]
    state[U(l0 + n)] = p
    state[U(e0 + p)] = n
    state[S_NEMPTY] = n + 1


@njit(inline="always")
def _place(consts, state, p, col, capture):
    """Put a ``col`` stone at the empty padded point ``p``: update groups, pseudo-liberties, the
    empty list and the hash, and (if ``capture``) remove opponent groups left without a liberty.
    Returns the number of stones captured. Does not touch the superko table."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    b0 = HEADER
    g0 = HEADER + A_GRP * pp
    x0 = HEADER + A_NXT * pp
    ln0 = HEADER + A_LN * pp
    ls0 = HEADER + A_LS * pp
    lq0 = HEADER + A_LQ * pp
    _remove_empty(state, p, pp)
    k = _zkey(consts, col, p)
    state[S_HLO] ^= consts[k]
    state[S_HHI] ^= consts[k + 1]
    add_stone(state, p, col, w, pp, HEADER)
    captured = 0
    if not capture:
        return 0
    opp = 3 - col
    for d in (-1, 1, -w, w):
        q = p + d
        if state[U(b0 + q)] == opp:
            g = state[U(g0 + q)]
            if state[U(ln0 + g)] == 0:
                # first empty the points, then give each removed stone's stone neighbours (all
                # of the capturer's colour) their new pseudo-liberty
                x = g
                while True:
                    state[U(b0 + x)] = EMPTY
                    _add_empty(state, x, pp)
                    kk = _zkey(consts, opp, x)
                    state[S_HLO] ^= consts[kk]
                    state[S_HHI] ^= consts[kk + 1]
                    captured += 1
                    x = state[U(x0 + x)]
                    if x == g:
                        break
                x = g
                while True:
                    x2 = np.int64(x) * np.int64(x)
                    for d2 in (-1, 1, -w, w):
                        y = x + d2
                        if state[U(b0 + y)] == col:
                            h = state[U(g0 + y)]
                            state[U(ln0 + h)] += 1
                            state[U(ls0 + h)] += x
                            state[U(lq0 + h)] += x2
                    x = state[U(x0 + x)]
                    if x == g:
                        break
    return captured


@njit(inline="always")
def _is_own_eye(state, p, col, w, pp):
    """The playout's eye test: every neighbour is ``col`` or border, and the diagonals hold at
    most one opponent stone in the middle of the board, none on the edge (Bruegmann 1993; the
    rule of MoGo and most random-playout engines)."""
    b0 = HEADER
    for d in (-1, 1, -w, w):
        v = state[U(b0 + p + d)]
        if v != col and v != BORDER:
            return False
    opp = 3 - col
    bad = 0
    edge = 0
    for d in (-w - 1, -w + 1, w - 1, w + 1):
        v = state[U(b0 + p + d)]
        if v == opp:
            bad += 1
        elif v == BORDER:
            edge = 1
    return bad + edge < 2


# -- scoring ------------------------------------------------------------------------------------


@njit(cache=True)
def area_score(consts, state):
    """Black's area minus White's (Tromp-Taylor): stones, plus empty regions that reach only one
    colour (found by flood fill)."""
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    n = consts[C_N]
    seen = np.zeros(pp, dtype=np.uint8)
    stack = np.empty(n, dtype=np.int64)
    score = 0
    for a in range(n):
        p = consts[C_TABLES + a]
        v = state[HEADER + p]
        if v == BLACK:
            score += 1
        elif v == WHITE:
            score -= 1
        elif seen[p] == 0:
            seen[p] = 1
            stack[0] = p
            top = 1
            size = 0
            reach = 0  # bit 0: reaches Black, bit 1: reaches White
            while top > 0:
                top -= 1
                q = stack[top]
                size += 1
                for d in (-1, 1, -w, w):
                    y = q + d
                    u = state[HEADER + y]
                    if u == EMPTY:
                        if seen[y] == 0:
                            seen[y] = 1
                            stack[top] = y
                            top += 1
                    elif u != BORDER:
                        reach |= u
            if reach == 1:
                score += size
            elif reach == 2:
                score -= size
    return score


@njit(cache=True)
def _finish(consts, state):
    """Score the final position and record the result."""
    twice = 2 * area_score(consts, state) - consts[C_KOMI2]
    if twice > 0:
        state[S_RESULT] = 0
    elif twice < 0:
        state[S_RESULT] = 1
    else:
        state[S_RESULT] = DRAW


# -- the contract kernels -----------------------------------------------------------------------


@njit(cache=True)
def init_state(consts, state):
    n = consts[C_N]
    pp = consts[C_P]
    state[:] = 0
    state[S_RESULT] = -1
    state[S_LAST] = -1
    for q in range(pp):
        state[HEADER + q] = BORDER
    for a in range(n):
        q = consts[C_TABLES + a]
        state[HEADER + q] = EMPTY
        _add_empty(state, q, pp)
    h = C_TABLES + n + pp
    state[S_HLO] = consts[h]
    state[S_HHI] = consts[h + 1]
    _add_to_table(consts, state, state[S_HLO], state[S_HHI])


@njit(cache=True)
def current_player(consts, state):
    if state[S_RESULT] >= 0:
        return -4
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def legal_actions(consts, state, out):
    """Every legal stone move (ascending), then the pass (always legal)."""
    if state[S_RESULT] >= 0:
        return 0
    n = consts[C_N]
    col = state[S_TO_MOVE] + 1
    k = 0
    for a in range(n):
        p = consts[C_TABLES + a]
        if state[U(HEADER + p)] == EMPTY:
            ok, _, _ = _move_hash(consts, state, p, col)
            if ok:
                out[k] = a
                k += 1
    out[k] = n
    return k + 1


@njit(inline="always")
def _after_move(consts, state, action, passed):
    state[S_LAST] = action
    state[S_NMOVES] += 1
    state[S_TO_MOVE] = 1 - state[S_TO_MOVE]
    if passed:
        state[S_PASSES] += 1
    else:
        state[S_PASSES] = 0
        _add_to_table(consts, state, state[S_HLO], state[S_HHI])
    if state[S_PASSES] >= 2 or state[S_NMOVES] >= consts[C_MAX_LEN]:
        _finish(consts, state)


@njit(cache=True)
def apply_action(consts, state, action):
    """Play ``action`` (assumed legal): a stone with its captures, or a pass (``N``)."""
    if action == consts[C_N]:
        _after_move(consts, state, action, True)
        return
    mover = state[S_TO_MOVE]
    state[S_CAPS + mover] += _place(consts, state, consts[C_TABLES + action], mover + 1, True)
    _after_move(consts, state, action, False)


@njit(cache=True)
def returns(consts, state, out):
    r = state[S_RESULT]
    if r < 0 or r == DRAW:
        out[0] = 0.0
        out[1] = 0.0
    else:
        out[r] = 1.0
        out[1 - r] = -1.0


@njit  # compiled once, not inlined: docs/architecture.md, "Speed traps"
def playable(consts, state, p, col, w, pp):
    """Whether a playout may play ``col`` at the empty padded point ``p``: legal and not an own
    eye."""
    if _is_own_eye(state, p, col, w, pp):
        return False
    ok, _, _ = _move_hash(consts, state, p, col)
    return ok


@njit(inline="always")
def play_point(consts, state, point, moves, n):
    """Play a playout move for the player to move: the padded ``point``, or a pass if it is -1;
    record it as move ``n`` in ``moves``."""
    nn = consts[C_N]
    c = state[S_TO_MOVE]
    moves[2 * n] = c
    if point < 0:
        moves[2 * n + 1] = nn
        _after_move(consts, state, nn, True)
    else:
        action = consts[C_TABLES + nn + point]
        moves[2 * n + 1] = action
        state[S_CAPS + c] += _place(consts, state, point, c + 1, True)
        _after_move(consts, state, action, False)


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    """Random legal moves that never fill the mover's own eyes (:func:`_is_own_eye`), to the end.

    Each move is uniform over the mover's playable points (:func:`playable`; a rejected point is
    swapped to the end of the empty list and the draw repeated among the others); with none, the
    mover passes. Two passes in a row end the game in a position where every empty point is an
    eye or unplayable, which area scoring counts exactly; the ``max_len`` guard ends it otherwise.
    """
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    nn = consts[C_N]
    l0 = HEADER + N_PADDED_ARRAYS * pp
    e0 = HEADER + A_EPOS * pp
    n = 0
    while state[S_RESULT] < 0:
        c = state[S_TO_MOVE]
        col = c + 1
        # the draw (go_playouts._random_point) and play_point written out: calling them
        # (inlined, but they take arrays) made 9x9 playouts ~30% slower, measured
        # (docs/architecture.md, speed traps: array-taking helpers)
        k = state[S_NEMPTY]
        point = -1
        while k > 0:
            rng, i = below(rng, k)
            p = state[U(l0 + i)]
            if not _is_own_eye(state, p, col, w, pp):
                ok, _, _ = _move_hash(consts, state, p, col)
                if ok:
                    point = p
                    break
            k -= 1
            q = state[U(l0 + k)]
            state[U(l0 + i)] = q
            state[U(e0 + q)] = i
            state[U(l0 + k)] = p
            state[U(e0 + p)] = k
        moves[2 * n] = c
        if point < 0:
            moves[2 * n + 1] = nn
            _after_move(consts, state, nn, True)
        else:
            action = consts[C_TABLES + nn + point]
            moves[2 * n + 1] = action
            state[S_CAPS + c] += _place(consts, state, point, col, True)
            _after_move(consts, state, action, False)
        n += 1
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def setup_position(consts, state, colours, to_move):
    """Set up any position: ``colours[action]`` is 0 empty, 1 Black, 2 White.

    Returns 0, or ``1 + action`` of a stone whose group has no liberty (not a Go position). The
    superko table holds only this position; the move count starts at 0.
    """
    init_state(consts, state)
    pp = consts[C_P]
    nn = consts[C_N]
    for a in range(nn):
        if colours[a] != 0:
            _place(consts, state, consts[C_TABLES + a], colours[a], False)
    for a in range(nn):
        q = consts[C_TABLES + a]
        if colours[a] != 0 and state[HEADER + A_LN * pp + state[HEADER + A_GRP * pp + q]] == 0:
            return 1 + a
    t = consts[C_T]
    t0 = consts[C_STATE_SIZE] - 2 * t
    state[t0:] = 0
    state[S_NHIST] = 0
    _add_to_table(consts, state, state[S_HLO], state[S_HHI])
    state[S_TO_MOVE] = to_move
    return 0
