"""Hex playout policies, compiled against the Hex kernels.

With only Last Good Reply and PoolRAVE on, the playout is the kernels' random fill with those
moves put first: the empty cells are filled in an order drawn move by move (the stored reply to
the previous cell, else a pool cell, each if still empty, else a uniform one), with no
union-find work, and the winner is found once at the end by ``random_playout``'s flood fill
(called on the full board). Continuing a decided Hex game never changes its winner, as in the
kernels' fill. With decisive or anti-decisive moves, or when the playout's length is used (QBR),
it goes move by move and stops at the win, which the edge marks of :func:`_touch` show (no
union-find: a stone joining marks of both of the mover's edges wins).

* ``decisive`` — the mover plays a cell that wins at once when there is one: an empty cell next
  to both of the mover's edges, each by being on it or by touching a stone connected to it.
  These cells are kept as the playout goes (:func:`_touch`): when a stone's group first reaches an
  edge, the group is flooded once and its empty neighbours are marked as next to that edge, so a
  whole playout does linear work and each move's test is a look at the top of a stack.
* ``antidecisive`` — otherwise, if the opponent has such a cell, the mover plays there (blocks).
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
from mctslab.kernels.rng import below
from mctslab.search.playouts import policy_template as generic
from mctslab.search.playouts.common import BASE_UNIFORM, lgr_reply, pool_move
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
def _edge_bits(p):
    """The edge-flag bits of player ``p``'s two edges (Black top and bottom, White left and
    right); the union-find node of edge ``e`` of ``p`` is ``N + 2p + e``."""
    if p == 0:
        return EDGE_TOP, EDGE_BOTTOM
    return EDGE_LEFT, EDGE_RIGHT


@njit(inline="always")
def _touch(consts, state, p, e, x, conn, near, wins, nw, stack):
    """Player ``p``'s stone ``x`` is now connected to their edge ``e``: mark it and the stones of
    its group not yet marked (a flood over same-coloured neighbours), and mark every empty
    neighbour of them as next to edge ``e``; an empty cell next to both edges of ``p`` goes on
    ``p``'s stack of winning cells. Each stone is flooded once per edge in a playout, so the work
    of a whole playout is linear in the board. ``stack`` is scratch space of N cells."""
    n = consts[C_N]
    base = (2 * p + e) * n
    other = (2 * p + 1 - e) * n
    colour = p + 1
    conn[base + x] = True
    stack[0] = x
    top = 1
    while top > 0:
        top -= 1
        y = stack[top]
        nb = C_EDGE + n + 6 * y
        for k in range(6):
            d = consts[nb + k]
            v = state[B + d]
            if v == EMPTY:
                if not near[base + d]:
                    near[base + d] = True
                    if near[other + d]:
                        wins[p * n + nw[p]] = d
                        nw[p] += 1
            elif v == colour and not conn[base + d]:
                conn[base + d] = True
                stack[top] = d
                top += 1


@njit(inline="always")
def _track_stone(consts, state, p, x, conn, near, wins, nw, stack):
    """After player ``p`` put a stone at ``x``: flood the edge marks of :func:`_touch` into its
    group for each edge of ``p`` that the stone reaches (it is on that edge or touches a stone
    connected to it). No union-find: the marks say which stones reach which edge. Returns
    whether the stone connects both edges of ``p`` (``p`` has won)."""
    n = consts[C_N]
    colour = p + 1
    b0 = 2 * p * n
    b1 = b0 + n
    f0, f1 = _edge_bits(p)
    on_edge = consts[C_EDGE + x]
    reach0 = (on_edge & f0) != 0
    reach1 = (on_edge & f1) != 0
    nb = C_EDGE + n + 6 * x
    for k in range(6):
        d = consts[nb + k]
        if state[B + d] == colour:
            reach0 = reach0 or conn[b0 + d]
            reach1 = reach1 or conn[b1 + d]
    if reach0 and not conn[b0 + x]:
        _touch(consts, state, p, 0, x, conn, near, wins, nw, stack)
    if reach1 and not conn[b1 + x]:
        _touch(consts, state, p, 1, x, conn, near, wins, nw, stack)
    return conn[2 * p * n + x] and conn[(2 * p + 1) * n + x]


@njit(inline="always")
def _track_start(consts, state, conn, near, wins, nw, stack):
    """The marks of :func:`_touch` for the position at the start of a playout: the cells on an
    edge are next to it, and the stones on an edge flood their groups."""
    n = consts[C_N]
    for c in range(n):
        if state[B + c] == EMPTY:
            for p in range(2):
                b0, b1 = _edge_bits(p)
                e = consts[C_EDGE + c]
                near[2 * p * n + c] = (e & b0) != 0
                near[(2 * p + 1) * n + c] = (e & b1) != 0
                if near[2 * p * n + c] and near[(2 * p + 1) * n + c]:
                    wins[p * n + nw[p]] = c
                    nw[p] += 1
    for c in range(n):
        v = state[B + c]
        if v != EMPTY:
            _track_stone(consts, state, np.int64(v - 1), c, conn, near, wins, nw, stack)


@njit(inline="always")
def _play(consts, state, p, a, conn, near, wins, nw, stack):
    """Player ``p`` plays the empty cell ``a`` in a playout: the stone, the edge marks
    (:func:`_track_stone`) and the winner from them, instead of ``apply_action``'s union-find
    (which the terminal state of a playout no longer needs)."""
    state[B + a] = p + 1
    if _track_stone(consts, state, p, a, conn, near, wins, nw, stack):
        state[S_WINNER] = p
    state[S_TO_MOVE] = 1 - p
    state[S_COUNT] += 1
    state[S_LAST] = a


@njit(inline="always")
def _tracker(consts, state):
    """The arrays of the winning-cell tracking (``conn``, ``near``, ``wins``, ``nw``,
    ``stack``; :func:`_touch`) for the position ``state``, filled by :func:`_track_start`."""
    n = consts[C_N]
    conn = np.zeros(4 * n, dtype=np.bool_)
    near = np.zeros(4 * n, dtype=np.bool_)
    wins = np.empty(2 * n, dtype=np.int64)
    nw = np.zeros(2, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    _track_start(consts, state, conn, near, wins, nw, stack)
    return conn, near, wins, nw, stack


@njit(inline="always")
def _winning(state, p, n, wins, nw):
    """A cell where ``p`` wins at once, or -1: the top of ``p``'s stack once the cells taken
    since they were pushed are dropped (an empty cell next to both edges stays so)."""
    while nw[p] > 0 and state[B + wins[p * n + nw[p] - 1]] != EMPTY:
        nw[p] -= 1
    return np.int64(wins[p * n + nw[p] - 1]) if nw[p] > 0 else np.int64(-1)


@njit(cache=True)
def tracked_winning_cells(consts, state, actions, out):
    """For tests: play ``actions`` from ``state`` with the tracking of :func:`_touch`, writing
    before each move (and after the last) the cell where Black, then White, wins at once (-1
    none) into ``out[2 i]``, ``out[2 i + 1]``."""
    n = consts[C_N]
    conn, near, wins, nw, stack = _tracker(consts, state)
    for i in range(len(actions) + 1):
        out[2 * i] = _winning(state, 0, n, wins, nw)
        out[2 * i + 1] = _winning(state, 1, n, wins, nw)
        if i < len(actions):
            _play(
                consts, state, np.int64(state[S_TO_MOVE]), actions[i], conn, near, wins, nw, stack
            )


@njit(cache=True)
def _fill_playout(consts, state, rng, moves, out, last, params, stats):
    """The random fill with LGRF and PoolRAVE moves first (module doc)."""
    n_cells = consts[C_N]
    cells = np.empty(n_cells, dtype=np.int64)
    pos = np.full(n_cells, -1, dtype=np.int64)
    k = 0
    for c in range(n_cells):
        if state[B + c] == EMPTY:
            cells[k] = c
            pos[c] = k
            k += 1
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
            )  # fmt: skip
        return _generic.policy_playout(consts, state, rng, moves, out, last, params, stats)
    if state[S_WINNER] >= 0:
        returns(consts, state, out)
        return 0, rng
    if not params.decisive and not params.anti and not params.length:
        return _fill_playout(consts, state, rng, moves, out, last, params, stats)
    n_cells = consts[C_N]
    cells = np.empty(n_cells, dtype=np.int64)
    pos = np.full(n_cells, -1, dtype=np.int64)
    k = 0
    for c in range(n_cells):
        if state[B + c] == EMPTY:
            cells[k] = c
            pos[c] = k
            k += 1
    decisive = params.decisive
    anti = params.anti
    bridge = params.base == BASE_BRIDGE
    conn, near, wins, nw, stack = _tracker(consts, state)  # winning cells (_touch)
    n = 0
    while state[S_WINNER] < 0:
        p = np.int64(state[S_TO_MOVE])
        a = np.int64(-1)
        if decisive:
            a = _winning(state, p, n_cells, wins, nw)
        if a < 0 and anti:
            a = _winning(state, 1 - p, n_cells, wins, nw)
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
        _play(consts, state, p, a, conn, near, wins, nw, stack)
        moves[2 * n] = p
        moves[2 * n + 1] = a
        n += 1
        last = a
    returns(consts, state, out)
    return n, rng


@njit(cache=True)
def quality(consts, state, winner):
    """No qualitative measure for Hex (the qualitative bonus stays off)."""
    return 0.0


#: no prior knowledge for Hex yet (``mcts(prior=...)``): the generic one, every count 0
prior = _generic.prior
