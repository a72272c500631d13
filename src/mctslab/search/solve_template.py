"""Exhaustive solver for deterministic two-player zero-sum games, over the kernel contract.

A codegen template (see :mod:`mctslab.kernels.codegen`): ``codegen.specialize(solve_template,
kernels)``
returns this module compiled against one game's kernels. It computes game-theoretic values, the
oracle for rule tests (NoGo 3x3 / 4x4, small Hex boards) and for MCTS-Solver tests.

Algorithm: negamax by depth-first search with an explicit stack (no recursion), every node's value
taken from the point of view of its mover; a node stops searching its moves as soon as one reaches
``max_value`` (the best utility: for win/loss games this is alpha-beta with the full window, the
"stop at the first winning move" rule). Every value computed is therefore exact, and is stored in a
transposition table (open addressing, 64-bit keys checked in full, linear probing over 8 slots,
overwriting when they are all taken: a lost entry costs time, never correctness). Terminal values
come from ``returns``; a mover that moves twice in a row keeps the sign (no sign tricks elsewhere).

Keys (``mode``):

* ``KEY_NONE``: no transposition table (a pure tree search).
* ``KEY_MOVES``: Zobrist XOR of the ``(player, action)`` pairs played from the root. Exact for
  *placement* games, where a position is determined by which player played which actions and each
  action is played at most once (NoGo, Hex, Gomoku, tic-tac-toe) — not for Nim or Go with captures.
* ``KEY_STATE``: a 64-bit hash of the whole state array. Exact for games whose equal positions have
  equal state arrays (Nim). NoGo's state carries history-dependent bookkeeping (candidate lists,
  group representatives): use ``KEY_MOVES`` there.

Chance nodes are not supported: :func:`solve` returns ``STATUS_CHANCE`` when it meets one.
"""

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.kernels.rng import next_u64, seed_state

KEY_NONE, KEY_MOVES, KEY_STATE = 0, 1, 2
STATUS_OK, STATUS_BUDGET, STATUS_CHANCE = 0, 1, 2
_PROBES = 8
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True)
def state_hash(state):
    """FNV-1a over the state's entries (each as a 64-bit integer); never 0."""
    h = _FNV_OFFSET
    for i in range(state.shape[0]):
        h = (h ^ np.uint64(np.int64(state[i]))) * _FNV_PRIME
    return h | _ONE


@njit(cache=True)
def zobrist_table(n, seed_rng):
    """``n`` random 64-bit keys from the project RNG."""
    z = np.empty(n, dtype=np.uint64)
    x = seed_rng
    for i in range(n):
        x = next_u64(x)
        z[i] = x
    return z


@njit(cache=True)
def solve(
    consts,
    root,
    player,
    num_actions,
    max_depth,
    mode,
    root_key,
    zobrist,
    tt_keys,
    tt_vals,
    max_value,
    max_nodes,
):
    """Game-theoretic value of ``root`` for ``player``: returns ``(value, nodes, status)``.

    ``num_actions`` is the game's number of distinct actions and ``max_depth`` a bound on the
    number of moves left (``max_game_length``). ``zobrist`` holds ``2 * num_actions`` keys
    (``KEY_MOVES``; any array otherwise);
    ``root_key`` is the root's key in that mode (``0`` for a fresh root). ``tt_keys`` (uint64,
    zeros when empty) and ``tt_vals`` (float64) have the same power-of-two length and may be shared
    between calls with the same ``mode``. ``max_value`` is the game's best utility. Stops with
    ``STATUS_BUDGET`` (value NaN) after ``max_nodes`` nodes.
    """
    out = np.zeros(2, dtype=np.float64)
    p0 = game.current_player(consts, root)
    if p0 == -4:
        game.returns(consts, root, out)
        return out[player], 1, STATUS_OK
    if p0 == -1:
        return np.nan, 0, STATUS_CHANCE
    depth_cap = max_depth + 2
    states = np.empty((depth_cap, root.shape[0]), dtype=root.dtype)
    acts = np.empty((depth_cap, max(1, num_actions)), dtype=np.int32)
    nact = np.zeros(depth_cap, dtype=np.int64)
    idx = np.zeros(depth_cap, dtype=np.int64)
    best = np.zeros(depth_cap, dtype=np.float64)
    mover = np.zeros(depth_cap, dtype=np.int64)
    keys = np.zeros(depth_cap, dtype=np.uint64)
    mask = np.uint64(tt_keys.shape[0] - 1)
    states[0, :] = root
    keys[0] = root_key
    if mode == KEY_STATE:
        keys[0] = state_hash(root)
    d = 0
    nodes = 0
    entering = True
    ret = 0.0
    while True:
        finished = False
        v = 0.0
        if entering:
            entering = False
            nodes += 1
            if nodes > max_nodes:
                return np.nan, nodes, STATUS_BUDGET
            mover[d] = game.current_player(consts, states[d])
            if mode != KEY_NONE:
                k = keys[d] | _ONE
                slot = k & mask
                for _ in range(_PROBES):
                    tk = tt_keys[slot]
                    if tk == k:
                        v = tt_vals[slot]
                        finished = True
                        break
                    if tk == _ZERO:
                        break
                    slot = (slot + _ONE) & mask
            if not finished:
                nact[d] = game.legal_actions(consts, states[d], acts[d])
                idx[d] = 0
                best[d] = -np.inf
        else:
            if ret > best[d]:
                best[d] = ret
            if best[d] >= max_value:
                idx[d] = nact[d]  # cut: nothing beats the best utility
        if not finished:
            if idx[d] < nact[d]:
                a = acts[d, idx[d]]
                idx[d] += 1
                child = states[d + 1]
                child[:] = states[d]
                game.apply_action(consts, child, a)
                cp = game.current_player(consts, child)
                if cp == -4:
                    nodes += 1
                    game.returns(consts, child, out)
                    ret = out[mover[d]]
                    continue
                if cp == -1:
                    return np.nan, nodes, STATUS_CHANCE
                if mode == KEY_MOVES:
                    keys[d + 1] = keys[d] ^ zobrist[mover[d] * num_actions + a]
                elif mode == KEY_STATE:
                    keys[d + 1] = state_hash(child)
                d += 1
                entering = True
                continue
            v = best[d]
            if mode != KEY_NONE:
                k = keys[d] | _ONE
                slot = k & mask
                first = slot
                for _ in range(_PROBES):
                    tk = tt_keys[slot]
                    if tk in (k, _ZERO):
                        first = slot
                        break
                    slot = (slot + _ONE) & mask
                tt_keys[first] = k
                tt_vals[first] = v
        if d == 0:
            return (v if mover[0] == player else -v), nodes, STATUS_OK
        ret = v if mover[d] == mover[d - 1] else -v
        d -= 1


def new_table(bits):
    """An empty transposition table of ``2**bits`` entries: ``(keys, values)``."""
    return np.zeros(1 << bits, dtype=np.uint64), np.zeros(1 << bits, dtype=np.float64)


def solve_value(
    consts,
    root,
    player,
    num_actions,
    max_game_length,
    mode=KEY_MOVES,
    max_value=1.0,
    table=None,
    tt_bits=20,
    max_nodes=10**12,
    seed=0,
):
    """:func:`solve` with its tables made here: returns ``(value, nodes)``; raises on a chance
    node or an exhausted budget. ``table`` (from :func:`new_table`) may be shared between calls
    that use the same ``mode``, ``seed`` and root numbering."""
    if table is None:
        table = new_table(tt_bits)
    zobrist = zobrist_table(2 * num_actions, seed_state(seed))
    value, nodes, status = solve(
        consts,
        root,
        player,
        num_actions,
        max_game_length,
        mode,
        np.uint64(0),
        zobrist,
        table[0],
        table[1],
        max_value,
        max_nodes,
    )
    if status == STATUS_CHANCE:
        raise ValueError("the solver does not handle chance nodes")
    if status == STATUS_BUDGET:
        raise RuntimeError(f"no value after {max_nodes} nodes")
    return float(value), int(nodes)


def solve_moves(
    consts,
    root,
    num_actions,
    max_game_length,
    mode=KEY_MOVES,
    max_value=1.0,
    tt_bits=20,
    max_nodes=10**12,
    seed=0,
):
    """``{action: value for the root's mover}`` over the root's legal actions, one shared table."""
    player = int(game.current_player(consts, root))
    if player < 0:
        raise ValueError("the root has no player to move")
    buf = np.empty(max(1, num_actions), dtype=np.int32)
    n = int(game.legal_actions(consts, root, buf))
    table = new_table(tt_bits)
    zobrist = zobrist_table(2 * num_actions, seed_state(seed))
    result = {}
    for a in (int(x) for x in buf[:n]):
        child = root.copy()
        game.apply_action(consts, child, a)
        key = zobrist[player * num_actions + a] if mode == KEY_MOVES else np.uint64(0)
        value, _nodes, status = solve(
            consts,
            child,
            player,
            num_actions,
            max_game_length,
            mode,
            key,
            zobrist,
            table[0],
            table[1],
            max_value,
            max_nodes,
        )
        if status != STATUS_OK:
            raise RuntimeError(f"move {a}: solver status {status}")
        result[a] = float(value)
    return result
