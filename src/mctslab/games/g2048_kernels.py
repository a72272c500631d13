"""2048 kernels (Kochenderfer, Wheeler and Wray, *Algorithms for Decision Making*, appendix F.2 and
the MCTS example of section 9.6).

Rules: a 4x4 board of tiles 2, 4, 8, ...; a move (left, down, right, up) slides every tile as far
as it goes that way and merges two equal tiles that meet into their sum, each tile at most once
per move, the merge nearest the wall first (``2 2 2 2`` left gives ``4 4 . .``, ``2 2 2 .`` gives
``4 2 . .``). A move is legal iff it changes the board. The reward of a move is the sum of the
tiles it creates by merging. After every move a tile appears on a uniformly chosen empty cell: a 2
with probability 0.9, a 4 with probability 0.1; the game starts with two such tiles on an empty
board. It ends when no move changes the board.

State (int32, ``STATE_SIZE`` = 19): ``[e_0 .. e_15, score, spawns, over]`` where ``e_i`` is the
exponent of cell ``i`` (row-major, row 0 at the top; 0 empty, ``k`` the tile ``2**k``),
``score`` the rewards so far (= the single player's return), ``spawns`` the tiles still to appear
before the next move (2 at the start, 1 after a move: a chance node while positive), and ``over``
1 once no move changes the board.

Actions: 0 left, 1 down, 2 right, 3 up (the book's order). Chance outcomes: ``2 * cell + t``,
``t`` = 0 for a 2 (probability ``0.9 / empty``) and 1 for a 4 (``0.1 / empty``).

Speed: a line of four cells packed as four 4-bit exponents (``e_0 | e_1 << 4 | ...``, ``e_0`` on
the side the tiles move to) indexes two 65,536-entry tables built once at load into ``consts``:
the line after a move towards ``e_0`` and the merge reward. Every direction reads its lines in
that order, so one table serves all four. A line that holds a tile above 32768, or whose move
would make a 65536, is not in the table (entry -1) and goes through :func:`slide_line`, the
plain rule that also builds the tables, so the rules stay exact for every tile up to 2**17.
"""

import numpy as np
from numba import njit

from mctslab.kernels.rng import below, uniform

STATE_DTYPE = np.int32
STATE_SIZE = 19
#: cells 0..15 of the state hold the tiles' exponents (0 empty), row-major
NUM_CELLS = 16
S_SCORE, S_SPAWNS, S_OVER = 16, 17, 18
NUM_ACTIONS = 4
NUM_CHANCE = 32
#: probability that a new tile is a 4 (else a 2)
P_FOUR = 0.1
#: ``consts`` layout: the line-move table, the line-reward table, then :func:`line_heuristic` of
#: every packed line rounded to an integer (for the ``heuristic`` rollout policy)
C_MOVE = 0
C_REWARD = 65536
C_HEURISTIC = 2 * 65536
CONSTS_SIZE = 3 * 65536
#: cell order of line ``i`` position ``j`` (``j`` = 0 at the wall the tiles move to), per action
LINE_CELLS = np.array(
    [
        [[4 * i + j for j in range(4)] for i in range(4)],  # left
        [[4 * (3 - j) + i for j in range(4)] for i in range(4)],  # down
        [[4 * i + 3 - j for j in range(4)] for i in range(4)],  # right
        [[4 * j + i for j in range(4)] for i in range(4)],  # up
    ],
    dtype=np.int64,
)
ACTION_NAMES = ("left", "down", "right", "up")


@njit(cache=True)
def slide_line(line):
    """Move the 4 exponents of ``line`` towards index 0, in place; return the merge reward.

    Tiles are compacted in order; two equal neighbours (after compaction) merge into one tile of
    the next exponent, scanning from index 0, and a merged tile does not merge again.
    """
    out = np.zeros(4, dtype=np.int64)
    n = 0
    reward = 0
    last = 0  # the exponent of out[n-1] if it may still merge, else 0
    for j in range(4):
        e = line[j]
        if e == 0:
            continue
        if last == e:
            out[n - 1] = e + 1
            reward += 1 << (e + 1)
            last = 0
        else:
            out[n] = e
            n += 1
            last = e
    for j in range(4):
        line[j] = out[j]
    return reward


@njit(cache=True)
def build_tables(consts):
    """Fill the move and reward tables of ``consts`` from :func:`slide_line` and the heuristic
    table from :func:`line_heuristic` (all 65,536 lines each)."""
    line = np.zeros(4, dtype=np.int64)
    for packed in range(65536):
        for j in range(4):
            line[j] = (packed >> (4 * j)) & 15
        reward = slide_line(line)
        if line.max() > 15:
            consts[C_MOVE + packed] = -1
            consts[C_REWARD + packed] = 0
            continue
        res = 0
        for j in range(4):
            res |= line[j] << (4 * j)
        consts[C_MOVE + packed] = res
        consts[C_REWARD + packed] = reward
    for packed in range(65536):
        h = line_heuristic(packed & 15, (packed >> 4) & 15, (packed >> 8) & 15, packed >> 12)
        consts[C_HEURISTIC + packed] = np.int32(round(h))


def make_consts() -> np.ndarray:
    consts = np.zeros(CONSTS_SIZE, dtype=np.int32)
    build_tables(consts)
    return consts


@njit(cache=True)
def move_cells(consts, cells, action, apply):
    """Move the 16 exponents ``cells`` (any integer array, indices 0..15) by ``action``.

    Returns ``(changed, reward)``; writes the new board only when ``apply`` is true.
    """
    changed = False
    reward = 0
    for i in range(4):
        c0 = LINE_CELLS[action, i, 0]
        c1 = LINE_CELLS[action, i, 1]
        c2 = LINE_CELLS[action, i, 2]
        c3 = LINE_CELLS[action, i, 3]
        e0 = np.int64(cells[c0])
        e1 = np.int64(cells[c1])
        e2 = np.int64(cells[c2])
        e3 = np.int64(cells[c3])
        res = -1
        if e0 < 16 and e1 < 16 and e2 < 16 and e3 < 16:
            packed = e0 | (e1 << 4) | (e2 << 8) | (e3 << 12)
            res = np.int64(consts[C_MOVE + packed])
            if res >= 0:
                if res != packed:
                    changed = True
                    reward += consts[C_REWARD + packed]
                    if apply:
                        cells[c0] = res & 15
                        cells[c1] = (res >> 4) & 15
                        cells[c2] = (res >> 8) & 15
                        cells[c3] = res >> 12
                continue
        line = np.empty(4, dtype=np.int64)  # the rare exact path (a tile of 65536 or more)
        line[0] = e0
        line[1] = e1
        line[2] = e2
        line[3] = e3
        r = slide_line(line)
        if line[0] != e0 or line[1] != e1 or line[2] != e2 or line[3] != e3:
            changed = True
            reward += r
            if apply:
                cells[c0] = line[0]
                cells[c1] = line[1]
                cells[c2] = line[2]
                cells[c3] = line[3]
    return changed, reward


@njit(cache=True)
def any_move(consts, cells):
    """True if some action changes the board."""
    for a in range(NUM_ACTIONS):
        changed, _ = move_cells(consts, cells, a, False)
        if changed:
            return True
    return False


@njit(cache=True)
def init_state(consts, state):
    for i in range(STATE_SIZE):
        state[i] = 0
    state[S_SPAWNS] = 2


@njit(cache=True)
def current_player(consts, state):
    if state[S_OVER] != 0:
        return -4
    if state[S_SPAWNS] > 0:
        return -1
    return 0


@njit(cache=True)
def legal_actions(consts, state, out):
    if state[S_OVER] != 0 or state[S_SPAWNS] > 0:
        return 0
    n = 0
    for a in range(NUM_ACTIONS):
        changed, _ = move_cells(consts, state, a, False)
        if changed:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def apply_action(consts, state, action):
    _, reward = move_cells(consts, state, action, True)
    state[S_SCORE] += reward
    state[S_SPAWNS] = 1


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    if state[S_OVER] != 0 or state[S_SPAWNS] == 0:
        return 0
    empty = 0
    for i in range(16):
        if state[i] == 0:
            empty += 1
    n = 0
    for i in range(16):
        if state[i] == 0:
            outcomes[n] = 2 * i
            probs[n] = (1.0 - P_FOUR) / empty
            outcomes[n + 1] = 2 * i + 1
            probs[n + 1] = P_FOUR / empty
            n += 2
    return n


@njit(cache=True)
def apply_chance(consts, state, outcome):
    state[outcome >> 1] = 1 + (outcome & 1)
    state[S_SPAWNS] -= 1
    if state[S_SPAWNS] == 0 and not any_move(consts, state):
        state[S_OVER] = 1


@njit(cache=True)
def returns(consts, state, out):
    out[0] = state[S_SCORE]


@njit(cache=True)
def spawn_random(consts, state, rng):
    """Apply a chance outcome drawn by its probabilities; return the generator state."""
    empty = 0
    for i in range(16):
        if state[i] == 0:
            empty += 1
    rng, k = below(rng, empty)
    rng, u = uniform(rng)
    cell = 0
    for i in range(16):
        if state[i] == 0:
            if k == 0:
                cell = i
                break
            k -= 1
    apply_chance(consts, state, 2 * cell + (1 if u < P_FOUR else 0))
    return rng


# -- bitboards: the board as one uint64, cell i in bits 4i..4i+3 (exponents up to 15) ----------
_M4 = np.uint64(15)
_M16 = np.uint64(0xFFFF)


@njit(cache=True)
def pack(state):
    """``(board, ok)``: the 16 exponents as a uint64; ``ok`` false if a tile exceeds 32768."""
    b = np.uint64(0)
    for i in range(16):
        e = state[i]
        if e > 15:
            return np.uint64(0), False
        b |= np.uint64(e) << np.uint64(4 * i)
    return b, True


@njit(cache=True)
def unpack(board, state):
    """Write the 16 exponents of ``board`` into ``state[0:16]``."""
    for i in range(16):
        state[i] = np.int64((board >> np.uint64(4 * i)) & _M4)


@njit(cache=True)
def transpose(x):
    """The board mirrored on its main diagonal (cell (r, c) to (c, r)), with masks and shifts."""
    a1 = x & np.uint64(0xF0F00F0FF0F00F0F)
    a2 = x & np.uint64(0x0000F0F00000F0F0)
    a3 = x & np.uint64(0x0F0F00000F0F0000)
    a = a1 | (a2 << np.uint64(12)) | (a3 >> np.uint64(12))
    b1 = a & np.uint64(0xFF00FF0000FF00FF)
    b2 = a & np.uint64(0x00FF00FF00000000)
    b3 = a & np.uint64(0x00000000FF00FF00)
    return b1 | (b2 >> np.uint64(24)) | (b3 << np.uint64(24))


@njit(cache=True)
def reverse_line(r):
    """A packed line read from the other end."""
    return ((r & 0xF) << 12) | ((r & 0xF0) << 4) | ((r >> 4) & 0xF0) | (r >> 12)


@njit(cache=True)
def _rows_move(consts, b, towards_low):
    """Move every row of ``b`` towards nibble 0 (``towards_low``) or nibble 3, by the tables.

    Returns ``(board, reward)``; reward -1 when a row is not in the table (a 65536 would form).
    """
    out = np.uint64(0)
    reward = 0
    for r in range(4):
        row = np.int64((b >> np.uint64(16 * r)) & _M16)
        line = row if towards_low else reverse_line(row)
        res = np.int64(consts[C_MOVE + line])
        if res < 0:
            return b, -1
        reward += consts[C_REWARD + line]
        if not towards_low:
            res = reverse_line(res)
        out |= np.uint64(res) << np.uint64(16 * r)
    return out, reward


@njit(cache=True)
def board_move(consts, b, action):
    """Action ``action`` on bitboard ``b``: ``(board, reward)``, the board unchanged when the move
    is illegal, reward -1 when the move would make a 65536 (use the array kernels then)."""
    b = np.uint64(b)
    if action == 0:
        return _rows_move(consts, b, True)
    if action == 2:
        return _rows_move(consts, b, False)
    t, reward = _rows_move(consts, transpose(b), action == 3)
    return transpose(t), reward


@njit(cache=True)
def board_empty(b):
    """Number of empty cells of bitboard ``b``."""
    n = 0
    for i in range(16):
        if (b >> np.uint64(4 * i)) & _M4 == 0:
            n += 1
    return n


@njit(cache=True)
def board_spawn(b, rng):
    """Put a 2 (p = 0.9) or a 4 on a uniformly chosen empty cell of ``b`` (which has one)."""
    rng, k = below(rng, board_empty(b))
    rng, u = uniform(rng)
    tile = np.uint64(2 if u < P_FOUR else 1)
    for i in range(16):
        if (b >> np.uint64(4 * i)) & _M4 == 0:
            if k == 0:
                return b | (tile << np.uint64(4 * i)), rng
            k -= 1
    return b, rng


@njit(cache=True)
def array_random_move(consts, state, rng):
    """Apply a uniformly random legal move with the array kernels (exact for every tile); return
    ``(action, rng)``. The state must have a legal move."""
    legal = 0
    pick = -1
    for a in range(NUM_ACTIONS):
        changed, _ = move_cells(consts, state, a, False)
        if changed:
            legal += 1
    rng, i = below(rng, legal)
    for a in range(NUM_ACTIONS):
        changed, _ = move_cells(consts, state, a, False)
        if changed:
            if i == 0:
                pick = a
                break
            i -= 1
    apply_action(consts, state, pick)
    return pick, rng


#: rollout policies of :func:`policy_playout`
ROLLOUT_RANDOM, ROLLOUT_GREEDY, ROLLOUT_CORNER, ROLLOUT_GREEDY_CORNER = 0, 1, 2, 3
ROLLOUT_HEURISTIC = 4


@njit(cache=True)
def line_table_sum(b, table, base):
    """``Σ table[base + line]`` over the 8 packed lines of bitboard ``b``: its rows and the rows
    of its transpose (its columns). A board's heuristic from a table of line values."""
    t = transpose(b)
    v = 0.0
    for r in range(4):
        sh = np.uint64(16 * r)
        v += table[base + np.int64((b >> sh) & _M16)] + table[base + np.int64((t >> sh) & _M16)]
    return v


@njit(cache=True)
def board_heuristic_packed(consts, b):
    """:func:`board_heuristic` of a bitboard from the table in ``consts``, each line's value
    rounded to an integer."""
    return line_table_sum(b, consts, C_HEURISTIC)


@njit(cache=True)
def heuristic_pick(consts, rng, nbs, rws, k):
    """The index in ``0..k-1`` of the move of the largest merge reward plus
    :func:`board_heuristic_packed` of the board it leaves (before the new tile), ties uniformly:
    the 1-ply heuristic player. Returns ``(rng, index)``."""
    best = -np.inf
    ties = 0
    pick = 0
    for j in range(k):
        v = rws[j] + board_heuristic_packed(consts, nbs[j])
        if v > best:
            best, ties, pick = v, 1, j
        elif v == best:
            ties += 1
            rng, t = below(rng, ties)
            if t == 0:
                pick = j
    return rng, np.int64(pick)


@njit(cache=True)
def pick_move(consts, rng, policy, eps, acts, nbs, rws, k):
    """The index in ``0..k-1`` of the move a rollout policy plays, given the legal moves
    ``acts[:k]`` (ascending), the boards they leave ``nbs[:k]`` and their merge rewards
    ``rws[:k]``; returns ``(rng, index)``.

    With probability ``eps`` (and always for ``ROLLOUT_RANDOM``) a uniformly random legal move.
    Otherwise ``ROLLOUT_GREEDY`` plays a move of the largest merge reward (ties uniformly), and
    ``ROLLOUT_CORNER`` a uniformly random one of left/down if either is legal, else right, else
    up (the corner strategy that keeps the big tiles in the bottom-left corner),
    ``ROLLOUT_GREEDY_CORNER`` a move of the largest merge reward, ties broken as ``corner`` does,
    and ``ROLLOUT_HEURISTIC`` the 1-ply heuristic player's move (:func:`heuristic_pick`).
    """
    if policy == ROLLOUT_RANDOM:
        return below(rng, k)
    if eps > 0.0:
        rng, u = uniform(rng)
        if u < eps:
            return below(rng, k)
    if policy == ROLLOUT_HEURISTIC:
        return heuristic_pick(consts, rng, nbs, rws, k)
    best = -1  # the merge reward a move needs (-1: any, the corner policy)
    if policy != ROLLOUT_CORNER:
        for j in range(k):
            best = max(best, rws[j])
    ties = 0
    first = -1
    for j in range(k):
        if rws[j] >= best:
            if first < 0:
                first = j
            if policy == ROLLOUT_GREEDY or acts[j] <= 1:
                ties += 1
    if ties == 0:  # corner: neither left nor down among the candidates; right comes before up
        return rng, np.int64(first)
    rng, t = below(rng, ties)
    for j in range(k):
        if rws[j] >= best and (policy == ROLLOUT_GREEDY or acts[j] <= 1):
            if t == 0:
                return rng, np.int64(j)
            t -= 1
    return rng, np.int64(first)


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    """Uniformly random legal moves to the end, on a bitboard while every tile fits in 4 bits.
    Writes the return into ``out`` and the moves into ``moves`` (pairs ``0, action``); returns
    ``(moves played, rng)``."""
    return playout(consts, state, rng, ROLLOUT_RANDOM, 0.0, moves, True, out)


@njit(cache=True)
def policy_playout(consts, state, rng, policy, eps, out):
    """Play to the end with a rollout policy (:func:`pick_move`), moves not recorded."""
    return playout(consts, state, rng, policy, eps, np.empty(0, dtype=np.int32), False, out)


@njit(cache=True)
def playout(consts, state, rng, policy, eps, moves, record, out):
    """Play ``state`` to the end by a rollout policy (:func:`pick_move`) on a bitboard while every
    tile fits in 4 bits; a position beyond the tables takes a uniformly random move with the array
    kernels. With ``record`` the moves go into ``moves`` as pairs ``0, action``. Writes the
    return into ``out``; returns ``(moves played, rng)``."""
    n = 0
    nbs = np.zeros(4, dtype=np.uint64)
    rws = np.zeros(4, dtype=np.int64)
    acts = np.zeros(4, dtype=np.int64)
    while state[S_OVER] == 0:
        if state[S_SPAWNS] > 0:
            rng = spawn_random(consts, state, rng)
            continue
        b, ok = pack(state)
        if ok:
            score = np.int64(state[S_SCORE])
            while True:
                k = 0
                overflow = False
                for a in range(NUM_ACTIONS):
                    nb, rw = board_move(consts, b, a)
                    if rw < 0:
                        overflow = True
                    elif nb != b:
                        nbs[k] = nb
                        rws[k] = rw
                        acts[k] = a
                        k += 1
                if overflow or k == 0:
                    break
                rng, i = pick_move(consts, rng, policy, eps, acts, nbs, rws, k)
                if record:
                    moves[2 * n] = 0
                    moves[2 * n + 1] = acts[i]
                n += 1
                score += rws[i]
                b, rng = board_spawn(nbs[i], rng)
            unpack(b, state)
            state[S_SCORE] = score
            if k == 0 and not overflow:
                state[S_OVER] = 1
                break
        # the exact array path: a tile above 32768, or a move that makes one
        pick, rng = array_random_move(consts, state, rng)
        if record:
            moves[2 * n] = 0
            moves[2 * n + 1] = pick
        n += 1
    returns(consts, state, out)
    return n, rng


# -- a learned evaluation: an n-tuple network (trained by mctslab.games.g2048_ntuple) ----------


@njit(cache=True, inline="always")
def feature_index(b, fs, f):
    """Feature ``f``'s table index in bitboard ``b``: ``Σ_j e_{cell_j} · 16^j`` over the cells
    whose bit offsets are ``fs[f]``."""
    idx = np.uint64(0)
    for j in range(fs.shape[1]):
        idx |= ((b >> fs[f, j]) & _M4) << np.uint64(4 * j)
    return np.int64(idx)


@njit(cache=True)
def network_afterstate_value(w, fs, b):
    """``V(b) = Σ_f w[f // 8, index_f(b)]``: an n-tuple network's estimate of the score still
    to come after afterstate ``b`` (features ``fs``, 8 symmetric copies per table)."""
    v = 0.0
    for f in range(fs.shape[0]):
        v += w[f >> 3, feature_index(b, fs, f)]
    return v


@njit(cache=True)
def network_best_move(consts, w, fs, b):
    """The move from board ``b`` maximising ``r + V(after)``: ``(action, after, r, r + V)``;
    action -1 when no move changes ``b`` (a move that would make a 65536 is not considered)."""
    best_a = -1
    best_after = b
    best_r = 0
    best_v = -np.inf
    for a in range(NUM_ACTIONS):
        nb, r = board_move(consts, b, a)
        if r < 0 or nb == b:
            continue
        v = r + network_afterstate_value(w, fs, nb)
        if v > best_v:
            best_a, best_after, best_r, best_v = a, nb, r, v
    return best_a, best_after, best_r, best_v


@njit(cache=True)
def network_value(consts, w, fs, state):
    """A leaf value for MDP MCTS from a network: ``max_a r(s, a) + V(after(s, a))``, the score
    still to come from decision state ``s`` by the network's estimate; 0 when the game is over
    or a tile exceeds 32768 (off the bitboard; no network player gets there)."""
    if state[S_OVER] != 0:
        return 0.0
    b, ok = pack(state)
    if not ok:
        return 0.0
    a, _, _, v = network_best_move(consts, w, fs, b)
    return v if a >= 0 else 0.0


@njit(cache=True)
def line_heuristic(e0, e1, e2, e3):
    """The usual 2048 line evaluation (nneonneo's 2048-ai, ``heur_score_table``), for one row or
    column of exponents ``e`` (0 = empty, clipped at 15)::

        h = 200000 + 270·empty + 700·merges − 47·min(L, R) − 11·Σ e^3.5

    where ``merges`` counts tiles in runs of equal neighbours (a run of k > 1 tiles adds k),
    ``L = Σ (e_j^4 − e_{j+1}^4)`` over the steps that go down left to right and ``R`` the same over
    the steps that go up (a monotone line has min(L, R) = 0). It rewards empty cells, pending
    merges and monotone lines, and penalises many big tiles. Weights from the source above.
    """
    empty = 0
    merges = 0
    prev = 0
    counter = 0
    sum_pow = 0.0
    mono_l = 0.0
    mono_r = 0.0
    last = 0
    for j in range(4):
        e = e0 if j == 0 else (e1 if j == 1 else (e2 if j == 2 else e3))
        e = min(e, 15)
        sum_pow += float(e) ** 3.5
        if e == 0:
            empty += 1
        else:
            if prev == e:
                counter += 1
            elif counter > 0:
                merges += 1 + counter
                counter = 0
            prev = e
        if j > 0:
            if last > e:
                mono_l += float(last) ** 4 - float(e) ** 4
            else:
                mono_r += float(e) ** 4 - float(last) ** 4
        last = e
    if counter > 0:
        merges += 1 + counter
    return 200000.0 + 270.0 * empty + 700.0 * merges - 47.0 * min(mono_l, mono_r) - 11.0 * sum_pow


@njit(cache=True)
def board_heuristic(cells):
    """:func:`line_heuristic` summed over the 4 rows and the 4 columns of ``cells``."""
    h = 0.0
    for i in range(4):
        h += line_heuristic(
            np.int64(cells[4 * i]),
            np.int64(cells[4 * i + 1]),
            np.int64(cells[4 * i + 2]),
            np.int64(cells[4 * i + 3]),
        )
        h += line_heuristic(
            np.int64(cells[i]),
            np.int64(cells[4 + i]),
            np.int64(cells[8 + i]),
            np.int64(cells[12 + i]),
        )
    return h


@njit(cache=True)
def heuristic_value(consts, state):
    """A leaf value estimate for MDP MCTS: :func:`board_heuristic` of the board, or 0 when the
    game is over. Not in score units: a search that adds it to rewards should weight it."""
    if state[S_OVER] != 0:
        return 0.0
    return board_heuristic(state)
