"""Hex playout policies, compiled against the Hex kernels.

With only Last Good Reply and PoolRAVE on, the playout is the kernels' random fill with those
moves put first: the empty cells are filled in an order drawn move by move (the stored reply to
the previous cell, else a pool cell, each if still empty, else a uniform one), with no
union-find work, and the winner is found once at the end by ``random_playout``'s flood fill
(called on the full board). Continuing a decided Hex game never changes its winner, as in the
kernels' fill. With decisive or anti-decisive moves, or when the playout's length is used (QBR),
it goes move by move and stops at the win, which the edge marks of :func:`_tracked_moves` show
(no union-find: a stone on a cell next to both of the mover's edges wins).

* ``decisive`` — the mover plays a cell that wins at once when there is one: an empty cell next
  to both of the mover's edges, each by being on it or by touching a stone connected to it.
  These cells are kept as the playout goes (:func:`_tracked_moves`): when a stone's group reaches
  an edge, the group is flooded and its empty neighbours are marked as next to that edge, so a
  whole playout does linear work and each move's test is a look at the top of a stack. When
  there are several, the one found last is played.
* ``antidecisive`` — otherwise, if the opponent has such a cell, the mover plays there (blocks;
  the one found last when there are several).
* ``bridge`` (a base policy) — then, when the previous move intruded into a bridge of the mover
  (two of the mover's stones, or a stone and the mover's edge, sharing two empty cells, one of
  which the opponent just took), the mover takes the other cell and saves the connection, as
  MoHex's playouts do (Arneson, Hayward, Henderson 2010, *Monte Carlo Tree Search in Hex*, IEEE
  TCIAIG 2(4), §IV-B); one of them at random when several bridges were intruded.
* then the Last Good Reply to the previous move, then a PoolRAVE pool move (each if the cell is
  empty), else a uniformly random empty cell.

With the swap rule, openings (fewer than two moves played) go to the generic contract policies.
``quality`` is constant (no qualitative bonus for Hex).
"""

import numpy as np
from numba import njit

from mctslab.games import hex_kernels
from mctslab.games.hex_kernels import (
    C_EDGE,
    C_N,
    C_SIZE,
    C_SWAP,
    EDGE_BOTTOM,
    EDGE_LEFT,
    EDGE_RIGHT,
    EDGE_TOP,
    EMPTY,
    S_COUNT,
    S_LAST,
    S_TO_MOVE,
    S_WINNER,
    B,
    _find,
    random_playout,
    returns,
)
from mctslab.kernels import codegen
from mctslab.kernels.rng import below, seed_state
from mctslab.search.playouts import policy_template as generic
from mctslab.search.playouts.common import (
    BASE_UNIFORM,
    lgr_reply,
    playout_params,
    policy_stats,
    pool_move,
)
from mctslab.search.records import PlayoutParams

_generic = codegen.specialize(generic, hex_kernels)
#: the base policies this module implements, name -> id (``PlayoutParams.base``)
BASE_BRIDGE = 1
BASES = {"uniform": BASE_UNIFORM, "bridge": BASE_BRIDGE}
#: the six neighbour directions in cyclic order around a cell, as indices into
#: :data:`hex_kernels.NEIGHBOURS` (consecutive ones are adjacent to each other), and their (dr, dc)
CYCLE = (0, 1, 3, 5, 4, 2)
CYCLE_DR = (-1, -1, 0, 1, 1, 0)
CYCLE_DC = (0, 1, 1, 0, -1, -1)


@njit(inline="always")
def _own(consts, state, x, k, col):
    """Whether the neighbour of cell ``x`` in cyclic direction ``k`` belongs to colour ``col``:
    a stone of that colour, or off the board beyond one of its two edges."""
    n = consts[C_N]
    q = consts[C_EDGE + n + 6 * x + CYCLE[k]]
    if q != n:
        return state[B + q] == col
    size = consts[C_SIZE]
    if col == 1:
        r = x // size + CYCLE_DR[k]
        return r < 0 or r >= size
    c = x % size + CYCLE_DC[k]
    return c < 0 or c >= size


@njit(inline="always")
def bridge_reply(consts, state, x, col, rng):
    """A cell that saves a bridge of colour ``col`` into which a stone at ``x`` intruded: an empty
    neighbour ``y`` of ``x`` whose two common neighbours with ``x`` are ``col``'s (stones or
    edge); uniform among them, -1 when none. Returns ``(cell, rng)``."""
    n = consts[C_N]
    found = np.int64(-1)
    seen = 0
    for k in range(6):
        y = consts[C_EDGE + n + 6 * x + CYCLE[k]]
        if y == n or state[B + y] != EMPTY:
            continue
        if _own(consts, state, x, (k + 5) % 6, col) and _own(consts, state, x, (k + 1) % 6, col):
            seen += 1
            rng, r = below(rng, seen)
            if r == 0:
                found = np.int64(y)
    return found, rng


@njit(inline="always")
def _edge_roots(consts, state, player):
    """The union-find roots of ``player``'s two edge nodes and their edge-flag bits."""
    n = consts[C_N]
    u = B + n + 1
    if player == 0:
        return _find(state, u, n), _find(state, u, n + 1), EDGE_TOP, EDGE_BOTTOM
    return _find(state, u, n + 2), _find(state, u, n + 3), EDGE_LEFT, EDGE_RIGHT


@njit(inline="always")
def _wins_at(consts, state, player, cell, r1, r2, f1, f2):
    """Whether ``player`` connects their two edges (roots ``r1``, ``r2``, flags ``f1``, ``f2``)
    by a stone at the empty ``cell``."""
    n = consts[C_N]
    u = B + n + 1
    e = consts[C_EDGE + cell]
    t1 = (e & f1) != 0
    t2 = (e & f2) != 0
    nb = C_EDGE + n + 6 * cell
    for k in range(6):
        d = consts[nb + k]
        if state[B + d] == player + 1:
            r = _find(state, u, d)
            t1 = t1 or r == r1
            t2 = t2 or r == r2
    return t1 and t2


@njit(cache=True)
def winning_cell(consts, state, player):
    """The first empty cell where ``player`` wins at once, or -1."""
    r1, r2, f1, f2 = _edge_roots(consts, state, player)
    for c in range(consts[C_N]):
        if state[B + c] == EMPTY and _wins_at(consts, state, player, c, r1, r2, f1, f2):
            return c
    return -1


@njit(inline="always")
def _empty_cells(consts, state):
    """The empty cells (``cells[:k]``), each one's index there (``pos``, -1 for a stone), and
    ``k``: a move removes its cell in constant time."""
    n_cells = consts[C_N]
    cells = np.empty(n_cells, dtype=np.int64)
    pos = np.full(n_cells, -1, dtype=np.int64)
    k = 0
    for c in range(n_cells):
        if state[B + c] == EMPTY:
            cells[k] = c
            pos[c] = k
            k += 1
    return cells, pos, k


#: Offsets into the tracking array of :func:`_tracker`, in units of ``M = N + 1`` (one slot per
#: cell and one for the off-board sentinel ``N``, which stays 0): player ``p``'s ``conn`` at
#: ``(T_CONN + p) M``, ``near`` at ``(T_NEAR + p) M`` and stack of winning cells at
#: ``(T_WINS + p) M``; the stacks' heights at ``T_NW M + p``; the flood's stack at ``T_NW M + 2``.
T_CONN, T_NEAR, T_WINS, T_NW = 0, 2, 4, 6


@njit(inline="always")
def _edge_cell(size, p, e, i):
    """The ``i``-th cell on edge ``e`` (0 first, 1 second) of player ``p``: Black's top and bottom
    rows, White's left and right columns."""
    if p == 0:
        return e * (size - 1) * size + i
    return i * size + e * (size - 1)


@njit(inline="always")
def _tracker(consts, state):
    """The tracking array of the move-by-move playout (:func:`_tracked_moves`) for ``state``,
    from scratch. Bit 1 stands for player ``p``'s first edge (Black top, White left), bit 2 for
    the second. ``conn[y]`` of a stone ``y`` of ``p`` is the set of ``p``'s edges its group
    touches (0 for any other cell): a flood over ``p``'s stones from those on each edge.
    ``near[d]`` of an empty cell ``d`` is the set of edges a stone of ``p`` at ``d`` would touch:
    ``d``'s own edge bits or'ed with the ``conn`` of its neighbours. An empty cell with ``near``
    3 wins for ``p`` at once and is on ``p``'s stack of winning cells."""
    n = consts[C_N]
    size = consts[C_SIZE]
    m = n + 1
    t = np.zeros((T_NW + 1) * m + 2, dtype=np.int32)
    sb = T_NW * m + 2
    for p in range(2):
        cb = (T_CONN + p) * m
        colour = p + 1
        for e in range(2):
            top = 0
            for i in range(size):
                c = _edge_cell(size, p, e, i)
                if state[B + c] == colour:
                    t[cb + c] |= 1 << e
                    t[sb + top] = c
                    top += 1
            while top > 0:
                top -= 1
                nb = C_EDGE + n + 6 * t[sb + top]
                for k in range(6):
                    d = consts[nb + k]
                    if state[B + d] == colour and t[cb + d] & (1 << e) == 0:
                        t[cb + d] |= 1 << e
                        t[sb + top] = d
                        top += 1
        for c in range(n):
            if state[B + c] == EMPTY:
                r = (consts[C_EDGE + c] >> (2 * p)) & 3  # Black's edges are bits 1, 2; White's 4, 8
                nb = C_EDGE + n + 6 * c
                for k in range(6):
                    r |= t[cb + consts[nb + k]]
                t[(T_NEAR + p) * m + c] = r
                if r == 3:
                    t[(T_WINS + p) * m + t[T_NW * m + p]] = c
                    t[T_NW * m + p] += 1
    return t


@njit(cache=True)
def _tracked_moves(consts, state, rng, moves, last, params, stats, script, record):
    """Play to the win move by move with the configured policy (the module doc), keeping the
    tracking array of :func:`_tracker`; the number of moves and ``rng``. For tests, the moves of
    ``script`` instead when it is not empty, and, when ``record`` is not empty, the cell where
    Black, then White, wins at once (-1 none) before each move and after the last at
    ``record[2 i]``, ``record[2 i + 1]``.

    After player ``p``'s stone at ``a``, the set ``r`` of ``p``'s edges its group touches is
    ``near[a]``: 3 wins. Otherwise the stone and the stones of its group whose ``conn`` is not
    ``r`` yet are flooded, writing ``r`` into their ``conn`` and or'ing it into their empty
    neighbours' ``near``; a cell whose ``near`` becomes 3 goes on ``p``'s stack. A stone's
    ``conn`` changes at most once (from 0 to 1 or 2: 3 is the win), so each stone is flooded at
    most once and a playout does linear work. The flood has no branch on the board (a branch per
    neighbour mispredicts about half the time): every neighbour is written, and the stacks grow
    by the conditions. A stack keeps cells taken since they were pushed until they reach its top.
    All of it is written out in this one loop: an inlined helper taking arrays costs atomic
    reference-count updates on each call (the tracking ran at half speed with them)."""
    n_cells = consts[C_N]
    m = n_cells + 1
    cells, pos, k = _empty_cells(consts, state)
    t = _tracker(consts, state)
    sb = T_NW * m + 2
    decisive = params.decisive
    anti = params.anti
    bridge = params.base == BASE_BRIDGE
    p = np.int64(state[S_TO_MOVE])
    n = 0
    while True:
        for q in range(2):  # drop the cells taken from the top of the stacks
            wb = (T_WINS + q) * m
            w = t[T_NW * m + q]
            while w > 0 and state[B + t[wb + w - 1]] != EMPTY:
                w -= 1
            t[T_NW * m + q] = w
        win0 = t[T_WINS * m + t[T_NW * m] - 1] if t[T_NW * m] > 0 else -1
        win1 = t[(T_WINS + 1) * m + t[T_NW * m + 1] - 1] if t[T_NW * m + 1] > 0 else -1
        if len(record) > 0:
            record[2 * n] = win0
            record[2 * n + 1] = win1
        if state[S_WINNER] >= 0 or (len(script) > 0 and n == len(script)):
            break
        a = np.int64(-1)
        if len(script) > 0:
            a = np.int64(script[n])
        elif decisive and (win1 if p else win0) >= 0:
            a = np.int64(win1 if p else win0)
        elif anti and (win0 if p else win1) >= 0:
            a = np.int64(win0 if p else win1)
        if a < 0 and bridge and last >= 0 and last < n_cells:
            a, rng = bridge_reply(consts, state, last, p + 1, rng)
        if a < 0:
            r = lgr_reply(stats, params, p, last)
            if r >= 0 and state[B + r] == EMPTY:
                a = r
        if a < 0:
            rng, r = pool_move(stats, params, p, rng)
            if r >= 0 and r < n_cells and state[B + r] == EMPTY:
                a = r
        if a < 0:
            rng, j = below(rng, k)
            a = cells[j]
        j = pos[a]  # remove a from the empty cells
        k -= 1
        cells[j] = cells[k]
        pos[cells[j]] = j
        state[B + a] = p + 1
        moves[2 * n] = p
        moves[2 * n + 1] = a
        n += 1
        last = a
        cb = (T_CONN + p) * m
        nb_ = (T_NEAR + p) * m
        wb = (T_WINS + p) * m
        colour = p + 1
        r = t[nb_ + a]
        if r == 3:
            state[S_WINNER] = p
        elif r != 0:
            t[cb + a] = r
            t[sb] = a
            top = 1
            w = t[T_NW * m + p]
            while top > 0:
                top -= 1
                nb = C_EDGE + n_cells + 6 * t[sb + top]
                for i in range(6):
                    d = consts[nb + i]
                    v = state[B + d]
                    old = t[nb_ + d]
                    new = old | (r * (v == EMPTY))
                    t[nb_ + d] = new
                    t[wb + w] = d
                    w += (new == 3) & (old != 3)
                    own = v == colour
                    c = t[cb + d]
                    t[cb + d] = c | (r * own)
                    t[sb + top] = d
                    top += own & (c != r)
            t[T_NW * m + p] = w
        p = 1 - p
    state[S_TO_MOVE] = p
    state[S_COUNT] += n
    if n > 0:
        state[S_LAST] = last
    return n, rng


def tracked_winning_cells(consts, state, actions, out):
    """For tests: play ``actions`` from ``state`` with the tracking of the move-by-move playout
    (:func:`_tracked_moves`), writing before each move (and after the last) the cell where
    Black, then White, wins at once (-1 none) into ``out[2 i]``, ``out[2 i + 1]``."""
    na = consts[C_N]
    _tracked_moves(
        consts, state, seed_state(0), np.empty(2 * len(actions), dtype=np.int32), -1,
        playout_params(num_actions=na, num_players=2), policy_stats(2, na), actions, out,
    )  # fmt: skip


@njit(cache=True)
def _fill_playout(consts, state, rng, moves, out, last, params, stats):
    """The random fill with LGRF and PoolRAVE moves first (module doc)."""
    n_cells = consts[C_N]
    cells, pos, k = _empty_cells(consts, state)
    p = np.int64(state[S_TO_MOVE])
    bridge = params.base == BASE_BRIDGE
    for i in range(k):
        j = -1
        if bridge and last >= 0 and last < n_cells:
            r, rng = bridge_reply(consts, state, last, p + 1, rng)
            if r >= 0:
                j = pos[r]
        if j < 0:
            r = lgr_reply(stats, params, p, last)
            if r >= 0 and r < n_cells and pos[r] >= i:
                j = pos[r]
        if j < 0:
            rng, r = pool_move(stats, params, p, rng)
            if r >= 0 and r < n_cells and pos[r] >= i:
                j = pos[r]
        if j < 0:
            rng, t = below(rng, k - i)
            j = i + t
        a = cells[j]
        cells[j] = cells[i]
        pos[cells[j]] = j
        cells[i] = a
        pos[a] = -1
        state[B + a] = p + 1
        moves[2 * i] = p
        moves[2 * i + 1] = a
        last = a
        p = 1 - p
    state[S_TO_MOVE] = p
    state[S_LAST] = last
    state[S_COUNT] += k
    random_playout(consts, state, rng, moves[2 * k :], out)  # no empty cell: the flood fill
    return k, rng


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """Play to the win with the configured policy (see the module doc); ``random_playout``'s
    contract plus ``last`` and the policy records (:mod:`mctslab.search.playouts.common`)."""
    if consts[C_SWAP] != 0 and state[S_COUNT] <= 1:
        if params.base == BASE_BRIDGE:  # the generic policies know no bridges: uniform moves
            params = PlayoutParams(
                BASE_UNIFORM, params.decisive, params.anti, params.lgrf, params.pool_k,
                params.pool_p, params.num_actions, params.num_players, params.length,
                params.nf_empty, params.edge_prior,
            )  # fmt: skip
        return _generic.policy_playout(consts, state, rng, moves, out, last, params, stats)
    if state[S_WINNER] >= 0:
        returns(consts, state, out)
        return 0, rng
    if not params.decisive and not params.anti and not params.length:
        return _fill_playout(consts, state, rng, moves, out, last, params, stats)
    n, rng = _tracked_moves(consts, state, rng, moves, last, params, stats, moves[:0], moves[:0])
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def quality(consts, state, winner):
    """No qualitative measure for Hex (the qualitative bonus stays off)."""
    return 0.0


#: no prior knowledge for Hex yet (``mcts(prior=...)``): the generic one, every count 0
prior = _generic.prior
