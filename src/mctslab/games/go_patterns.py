"""MoGo's 3x3 patterns as a 65,536-entry table, for Go-style playouts in Go and NoGo.

Gelly, Wang, Munos and Teytaud, "Modification of UCT with Patterns in Monte-Carlo Go" (INRIA
RR-6062, 2006), section 3.2 and figure 2: hane, cut and edge patterns around an empty point, in
the transcription of Pachi's ``playout/moggy.c``. ``X`` and ``O`` are the two colours (every
pattern is matched with the colours either way round and under the 8 symmetries of the square),
``.`` empty, ``?`` anything, ``x`` not ``X``, ``o`` not ``O``, ``#`` off the board. The centre is
the candidate point (always empty).

A neighbourhood is coded ``sum(v_i * 4**i)`` over the 8 neighbours in the order NW, N, NE, W, E,
SW, S, SE, with ``v`` = 0 empty, 1 Black, 2 White, 3 off the board (the Go kernels' board values).
``TABLE[code]`` is 1 when some pattern matches.
"""

from __future__ import annotations

import numpy as np

PATTERNS = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    ("XOO", "...", "?.?"),  # hane: thin hane
    ("XO?", "O.o", "?o?"),  # cut1: unprotected cut
    ("XO?", "O.X", "???"),  # cut1: peeped cut
    ("?X?", "O.O", "ooo"),  # cut2
    ("X.?", "O.?", "###"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)
#: the board values each pattern character allows (X = Black, O = White before colour swap)
_ALLOWED = {
    "X": (1,),
    "O": (2,),
    ".": (0,),
    "?": (0, 1, 2, 3),
    "x": (0, 2, 3),
    "o": (0, 1, 3),
    "#": (3,),
}
#: (row, col) of the 8 neighbours in code order, around the centre (1, 1)
_CELLS = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2))


def _symmetries(rows: tuple[str, str, str]):
    grid = np.array([list(r) for r in rows])
    for k in range(4):
        g = np.rot90(grid, k)
        yield g
        yield g[:, ::-1]


def build_table() -> np.ndarray:
    """The uint8 match table (see the module doc), computed over all 4**8 neighbourhoods."""
    codes = np.arange(4**8)
    cells = np.stack([(codes >> (2 * i)) & 3 for i in range(8)])  # (8, 65536) board values
    table = np.zeros(4**8, dtype=bool)
    swap = np.array([0, 2, 1, 3])
    allowed = {ch: np.isin(np.arange(4), values) for ch, values in _ALLOWED.items()}
    for pattern in PATTERNS:
        for grid in _symmetries(pattern):
            for colours in (cells, swap[cells]):
                match = np.ones(4**8, dtype=bool)
                for i, (r, c) in enumerate(_CELLS):
                    match &= allowed[grid[r, c]][colours[i]]
                table |= match
    return table.astype(np.uint8)


TABLE = build_table()
