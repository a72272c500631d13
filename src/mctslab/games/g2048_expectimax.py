"""Depth-limited expectimax for 2048, the strong baseline (compiled), behind the ``expectimax``
agent that 2048 offers (:mod:`mctslab.agents.g2048`).

The tree alternates max nodes (the player's moves that change the board) and chance nodes (each
empty cell, a 2 with probability 0.9 and a 4 with 0.1, uniformly over the empty cells)::

    V_max(b, d, p)    = max_a V_chance(move(b, a), d, p)          (0 if no move changes b)
    V_chance(b, d, p) = H(b)                                      if d = 0 or p < p_min
                      = 1/E Σ_cells [0.9 V_max(b+2, d-1, 0.9 p/E) + 0.1 V_max(b+4, d-1, 0.1 p/E)]

with ``E`` empty cells, ``p`` the probability of reaching the node and ``H`` the usual heuristic
(:func:`mctslab.games.g2048_kernels.line_heuristic` over the 4 rows and 4 columns, looked up in a
65,536-entry table). Rewards are left to the heuristic, as in nneonneo's 2048-ai (the source of
the heuristic, the probability cut-off ``p_min = 1e-4`` and the transposition table): a chance
node's value is cached per board with the depth it was searched to, and reused at that depth or
less. ``depth`` counts chance layers (one move and one tile each); ``depth = 0`` picks it per
move as nneonneo does, ``max(2, distinct tiles - 2)``, capped at 6.

Boards are the kernels' 64-bit bitboards (exponents up to 15, the tile 32768). A move that would
make a 65536 is not searched; on a board with a larger tile the agent falls back to the
heuristic of the position after each legal move (the array kernels, exact).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from mctslab.errors import MctslabError
from mctslab.games import g2048_kernels as k
from mctslab.games.base import Game, State

#: probability below which a chance node is valued by the heuristic
P_MIN = 1e-4
#: transposition-table slots (a power of two), cleared before every search
TT_SLOTS = 1 << 18
_M4 = np.uint64(15)


@njit(cache=True)
def heuristic_table():
    """``H`` of every packed line (65,536 entries; summed over a board by
    :func:`mctslab.games.g2048_kernels.line_table_sum`)."""
    t = np.empty(65536, dtype=np.float64)
    for line in range(65536):
        t[line] = k.line_heuristic(line & 15, (line >> 4) & 15, (line >> 8) & 15, line >> 12)
    return t


_MAX, _CHANCE = 0, 1


@njit(inline="always")
def _slot(b, mask):
    """The transposition-table slot of board ``b`` (a Fibonacci hash of ``b`` mixed with
    ``b >> 29``; ``mask`` = slots - 1)."""
    return np.int64(
        (((b ^ (b >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    )


@njit(cache=True)
def _chance_value(consts, htab, root, depth, tt_keys, tt_vals, tt_depth, stats):
    """``V_chance(root, depth, 1)`` by a depth-first search with an explicit stack of frames
    (no recursion: Numba's on-disk cache loads recursive functions into a crash, numba issue
    #6061). A max frame tries the moves ``a = 0..3``; a chance frame walks ``i = 0..31``, cell
    ``i // 2`` with a 2 (even ``i``) or a 4 (odd ``i``), skipping occupied cells; ``stats[0]``
    counts heuristic evaluations, ``stats[1]`` table hits."""
    rows = 2 * depth + 2
    fb = np.zeros(rows, dtype=np.uint64)  # the frame's board
    fd = np.zeros(rows, dtype=np.int64)  # its depth
    fp = np.zeros(rows, dtype=np.float64)  # its probability
    fk = np.zeros(rows, dtype=np.int64)  # _MAX or _CHANCE
    fi = np.zeros(rows, dtype=np.int64)  # the next move or (cell, tile)
    acc = np.zeros(rows, dtype=np.float64)  # the best value, or the weighted sum
    v2 = np.zeros(rows, dtype=np.float64)  # a chance frame: the current cell's value with a 2
    fe = np.zeros(rows, dtype=np.int64)  # a chance frame: its board's empty cells
    mask = np.uint64(tt_keys.shape[0] - 1)
    top = 0
    fb[0] = root
    fd[0] = depth
    fp[0] = 1.0
    fk[0] = _CHANCE
    entering = True
    ret = 0.0
    while True:
        done = False
        b = fb[top]
        if entering:
            entering = False
            fi[top] = 0
            acc[top] = 0.0
            if fk[top] == _CHANCE:
                if fd[top] <= 0 or fp[top] < P_MIN:
                    stats[0] += 1
                    ret = k.line_table_sum(b, htab, 0)  # H(b)
                    done = True
                else:
                    slot = _slot(b, mask)
                    if tt_keys[slot] == b and tt_depth[slot] >= fd[top]:
                        stats[1] += 1
                        ret = tt_vals[slot]
                        done = True
                    else:
                        fe[top] = k.board_empty(b)
        elif fk[top] == _MAX:
            acc[top] = max(acc[top], ret)
        elif fi[top] % 2 == 1:
            v2[top] = ret
        else:
            acc[top] += 0.9 * v2[top] + 0.1 * ret
        if not done:
            pushed = False
            if fk[top] == _MAX:
                while fi[top] < 4 and not pushed:
                    nb, reward = k.board_move(consts, b, fi[top])
                    fi[top] += 1
                    if reward >= 0 and nb != b:
                        fb[top + 1] = nb
                        fd[top + 1] = fd[top]
                        fp[top + 1] = fp[top]
                        fk[top + 1] = _CHANCE
                        pushed = True
            else:
                while fi[top] < 32 and not pushed:
                    sh = np.uint64(4 * (fi[top] // 2))
                    if (b >> sh) & _M4 != 0:
                        fi[top] += 2
                        continue
                    four = fi[top] % 2
                    fb[top + 1] = b | (np.uint64(1 + four) << sh)
                    fd[top + 1] = fd[top] - 1
                    fp[top + 1] = fp[top] * (0.1 if four else 0.9) / fe[top]
                    fk[top + 1] = _MAX
                    fi[top] += 1
                    pushed = True
            if pushed:
                top += 1
                entering = True
                continue
            ret = acc[top]
            if fk[top] == _CHANCE:
                ret = acc[top] / fe[top]
                slot = _slot(b, mask)
                tt_keys[slot] = b
                tt_vals[slot] = ret
                tt_depth[slot] = fd[top]
        if top == 0:
            return ret
        top -= 1


@njit(cache=True)
def root_values(consts, htab, b, depth, values, tt_keys, tt_vals, tt_depth, stats):
    """``values[a] = V_chance(move(b, a), depth, 1)`` for the moves that change ``b``, else -1."""
    for a in range(4):
        nb, reward = k.board_move(consts, b, a)
        if reward < 0 or nb == b:
            values[a] = -1.0
        else:
            values[a] = _chance_value(consts, htab, nb, depth, tt_keys, tt_vals, tt_depth, stats)


def auto_depth(b: int) -> int:
    """nneonneo's depth rule: ``max(2, distinct tiles - 2)``, here capped at 6."""
    tiles = {(b >> (4 * i)) & 15 for i in range(16)} - {0}
    return min(6, max(2, len(tiles) - 2))


@dataclass
class MoveValues:
    """What one expectimax search found: the value of each legal move (``moves[i]`` is worth
    ``values[i]``), the best move, the heuristic evaluations made and the depth searched."""

    moves: list[int]
    values: list[float]
    best: int
    evaluations: int
    depth: int


class Expectimax:
    """Expectimax search for 2048 (see the module docstring)."""

    def __init__(self, game: Game, depth: int):
        if game.spec.name != "2048":
            raise MctslabError(f"expectimax plays 2048 only, not {game.spec.spec_string}")
        self.game = game
        self.depth = depth
        self.htab = heuristic_table()
        self.tt_keys = np.zeros(TT_SLOTS, dtype=np.uint64)
        self.tt_vals = np.zeros(TT_SLOTS, dtype=np.float64)
        self.tt_depth = np.zeros(TT_SLOTS, dtype=np.int32)
        # load (or compile) the kernel now, not in the first timed search
        root_values(
            game.consts, self.htab, np.uint64(0x1001), 1, np.zeros(4), self.tt_keys, self.tt_vals,
            self.tt_depth, np.zeros(2, dtype=np.int64),
        )  # fmt: skip

    def search(self, state: State) -> MoveValues:
        """The value of every legal move of ``state`` (a decision state)."""
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        consts = self.game.consts
        b, ok = k.pack(state.array)
        values = np.full(4, -1.0)
        stats = np.zeros(2, dtype=np.int64)
        depth = 0
        if ok:
            depth = self.depth or auto_depth(int(b))
            self.tt_keys[:] = 0
            root_values(
                consts, self.htab, np.uint64(b), depth, values, self.tt_keys, self.tt_vals,
                self.tt_depth, stats,
            )  # fmt: skip
        if not ok or max(values[a] for a in moves) < 0:  # a tile above 32768: one exact ply
            for a in moves:
                after = state.clone()
                after.apply_action(a)
                values[a] = k.board_heuristic(after.array)
        best = max(moves, key=lambda a: values[a])
        return MoveValues(
            moves=moves,
            values=[float(values[a]) for a in moves],
            best=best,
            evaluations=int(stats[0]),
            depth=depth,
        )
