"""A transposition table of solved positions, which makes MCTS-Solver DAG-aware.

The search tree stores no states, so a position reached by two move orders is two tree nodes, and
without this table the solver has to prove it twice (in Nim the proof tree then grows like
``k^(n/(k+1))``). The table maps a position to its exact win value *for player 0* (1 a proven
win, 0 a proven loss, anything between a draw or an expectation over chance events; player 1's is
``1 - v`` in the two-player constant-sum games the solver works in), a fact about the position
wherever it recurs and whoever is to move (chance positions included);
:func:`mctslab.search.uct_template.uct` inserts every position it solves and looks up every unsolved
position its descent reaches.

**Key.** A 64-bit multilinear hash of the whole state array (Lemire and Kaser 2018, "Strongly
universal string hashing is fast", section 3; Carter and Wegman 1979)::

    h = sum_i a_i * u_i  mod 2**64,     u_i = state[i] mod 2**32 (two's complement)

with random 64-bit multipliers ``a_i`` drawn once per table. Equal arrays are equal positions, so
a hit is sound up to a hash collision: for two given distinct arrays, ``Pr[h = h'] = 2^(v-64)``
over the multipliers, where ``2^v`` is the largest power of two dividing every ``u_i - u'_i``
(``v = 0`` as soon as one entry differs by an odd amount, e.g. the player to move). The full hash
is stored and compared and that risk is accepted. Games whose arrays carry history-dependent
bookkeeping (NoGo's candidate lists) only get fewer hits. The sum is computed on 32-bit halves so
that no step overflows 64 bits: the same bits compiled and under ``NUMBA_DISABLE_JIT`` (no NumPy
overflow warnings), and a loop that LLVM vectorises (~35 ns for Hex 11x11's 251 entries, ~80 ns
for NoGo 9x9's 940, where FNV-1a takes 230 and 960 ns).

**Table.** Open addressing over a power-of-two number of slots, indexed by bits 32 and up of the
hash (the well-mixed ones of a multilinear hash), linear probing over at most :data:`PROBES`
slots. An entry is never removed or changed (an exact value stays true). When a position finds no
free slot within its probes it is not stored: a full table costs proofs, never correctness.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.kernels.rng import seed_state
from mctslab.search.records import TableArrays
from mctslab.search.solve_template import zobrist_table

#: Slots examined by a lookup or an insertion.
PROBES = 8
#: ``vals`` of an empty slot, and what :func:`lookup` returns for an unknown position.
EMPTY = -1.0
#: Seed of the multipliers (fixed: a search's result does not depend on anything else).
SEED = 0x5EED

_MASK32_I = np.int64(0xFFFFFFFF)
_MASK32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_ONE = np.uint64(1)


class ProvenTable:
    """``slots`` entries (a power of two, or 0 for no table) for states of ``state_size`` entries.

    Arrays: ``keys`` (uint64, the full hash), ``vals`` (float64: the exact win value for player 0,
    :data:`EMPTY` in an empty slot), ``mult`` (uint64[2, state_size]: the low and high 32-bit
    halves of the multipliers). ``used`` slots are taken. 16 bytes per slot.
    """

    __slots__ = ("keys", "mult", "used", "vals")

    def __init__(self, slots: int, state_size: int):
        # np.zeros maps pages lazily: unused slots cost no memory.
        self.keys = np.zeros(slots, dtype=np.uint64)
        self.vals = np.full(slots, EMPTY, dtype=np.float64)
        a = zobrist_table(state_size, seed_state(SEED))
        self.mult = np.stack([a & _MASK32, a >> _U32])
        self.used = 0

    def clear(self) -> None:
        """Forget every position."""
        self.vals[:] = EMPTY
        self.used = 0

    def arrays(self) -> TableArrays:
        """The arrays, as the search kernels' record."""
        return TableArrays(self.keys, self.vals, self.mult)


@njit(cache=True)
def state_hash(state, mult):
    """The multilinear hash ``sum_i a_i u_i mod 2**64`` (see the module docstring), accumulated
    as the low halves (``lo``) and the carries into the high half (``hi``) of the products
    ``a_i u_i = alo_i u_i + ahi_i u_i 2^32``; each accumulator adds less than ``2^33`` per entry."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    for i in range(state.shape[0]):
        u = np.uint64(np.int64(state[i]) & _MASK32_I)
        p = mult[0, i] * u
        lo += p & _MASK32
        hi += (p >> _U32) + ((mult[1, i] * u) & _MASK32)
    hi += lo >> _U32
    return ((hi & _MASK32) << _U32) | (lo & _MASK32)


@njit(cache=True)
def lookup(keys, vals, h):
    """The value stored for hash ``h`` (for player 0), :data:`EMPTY` if there is none."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = (h >> _U32) & mask
    for _ in range(PROBES):
        v = vals[slot]
        if v < 0.0:
            return EMPTY
        if keys[slot] == h:
            return v
        slot = (slot + _ONE) & mask
    return EMPTY


@njit(cache=True)
def insert(keys, vals, h, v):
    """Store the value ``v`` (in [0, 1], for player 0) for hash ``h``; return 1 if a slot was
    taken, else 0 (already stored, or no free slot within :data:`PROBES`)."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = (h >> _U32) & mask
    for _ in range(PROBES):
        if vals[slot] < 0.0:
            keys[slot] = h
            vals[slot] = v
            return 1
        if keys[slot] == h:
            return 0
        slot = (slot + _ONE) & mask
    return 0
