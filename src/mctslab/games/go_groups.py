"""Go-board groups shared by the Go and NoGo kernels: placing a stone with pseudo-liberty sums.

Both games keep seven padded arrays one after the other from ``header`` (each ``P`` long): the
board (0 empty, 1 Black, 2 White, 3 border), each stone's group representative ``grp``, the next
stone of its group in a circular list ``nxt``, and at representatives the group's size and three
sums over its pseudo-liberties (one per stone-empty adjacency): their number ``ln``, the sum of
their points ``ls`` and of their squares ``lq``. A group has exactly one distinct liberty iff
``ln * lq == ls * ls`` (Cauchy-Schwarz), none iff ``ln == 0``. Merging relabels the smaller group.
"""

import numpy as np
from numba import njit

U = np.uint64
EMPTY, BORDER = 0, 3
A_BOARD, A_GRP, A_NXT, A_SIZE, A_LN, A_LS, A_LQ = 0, 1, 2, 3, 4, 5, 6


@njit(inline="always")
def add_stone(state, p, col, w, pp, header):
    """Put a stone of colour ``col`` at the empty padded point ``p``: its neighbours' groups lose
    the pseudo-liberty ``p``, it becomes a group of its own with its empty neighbours as
    pseudo-liberties, and it merges with the adjacent groups of its colour. Removes nothing."""
    b0 = header
    g0 = header + A_GRP * pp
    x0 = header + A_NXT * pp
    z0 = header + A_SIZE * pp
    ln0 = header + A_LN * pp
    ls0 = header + A_LS * pp
    lq0 = header + A_LQ * pp
    state[U(b0 + p)] = col
    n = 0
    s = 0
    sq = 0
    p2 = p * p
    w = np.int64(w)
    for d in (-1, 1, -w, w):
        q = p + d
        v = state[U(b0 + q)]
        if v == EMPTY:
            n += 1
            s += q
            sq += q * q
        elif v != BORDER:
            g = state[U(g0 + q)]
            state[U(ln0 + g)] -= 1
            state[U(ls0 + g)] -= p
            state[U(lq0 + g)] -= p2
    state[U(g0 + p)] = p
    state[U(x0 + p)] = p
    state[U(z0 + p)] = 1
    state[U(ln0 + p)] = n
    state[U(ls0 + p)] = s
    state[U(lq0 + p)] = sq
    for d in (-1, 1, -w, w):
        q = p + d
        if state[U(b0 + q)] == col:
            g1 = state[U(g0 + p)]
            g2 = state[U(g0 + q)]
            if g1 != g2:
                if state[U(z0 + g1)] < state[U(z0 + g2)]:
                    g1, g2 = g2, g1
                state[U(z0 + g1)] += state[U(z0 + g2)]
                state[U(ln0 + g1)] += state[U(ln0 + g2)]
                state[U(ls0 + g1)] += state[U(ls0 + g2)]
                state[U(lq0 + g1)] += state[U(lq0 + g2)]
                x = g2
                while True:
                    state[U(g0 + x)] = g1
                    x = state[U(x0 + x)]
                    if x == g2:
                        break
                t = state[U(x0 + g1)]
                state[U(x0 + g1)] = state[U(x0 + g2)]
                state[U(x0 + g2)] = t
