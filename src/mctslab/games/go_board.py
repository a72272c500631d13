"""The ASCII Go board shared by Go and NoGo: rendering and parsing (the minigo-style rule tests).

Rows are printed top first with GTP row numbers on both sides and column letters (no ``I``) above
and below; ``X`` is Black, ``O`` White, ``.`` empty.
"""

from __future__ import annotations

import numpy as np

from mctslab.games import coords

#: board characters accepted by :func:`parse_board`
CHAR_COLOUR = {".": 0, "+": 0, "X": 1, "x": 1, "O": 2, "o": 2}


def render_board(board: np.ndarray, marks: str = ".XO") -> list[str]:
    """The lines of a ``size`` x ``size`` board (0 empty, 1 Black, 2 White; row 0 = top)."""
    size = board.shape[0]
    letters = " ".join(coords.GO_LETTERS[:size])
    lines = [f"   {letters}"]
    for r in range(size):
        row = " ".join(marks[int(v)] for v in board[r])
        lines.append(f"{size - r:2d} {row} {size - r:<2d}".rstrip())
    lines.append(f"   {letters}")
    return lines


def parse_board(text: str, size: int) -> np.ndarray:
    """The flat colours (``row * size + col``; 0 empty, 1 Black, 2 White) of an ASCII board.

    One line per row, top row first; ``X`` Black, ``O`` White, ``.`` or ``+`` empty. Spaces,
    row numbers, column-letter lines and lines with a parenthesis or a colon (status lines) are
    ignored, so the output of :func:`render_board` parses back. Raises ``ValueError`` for a board
    of the wrong shape or an unknown character.
    """
    rows = []
    for line in text.strip("\n").splitlines():
        marks = "".join(ch for ch in line if not ch.isspace() and not ch.isdigit())
        if not marks or marks.upper() == coords.GO_LETTERS[:size] or "(" in line or ":" in line:
            continue
        bad = sorted(set(marks) - set(CHAR_COLOUR))
        if bad:
            raise ValueError(f"unknown board characters {bad}: use X, O and . (or +)")
        rows.append([CHAR_COLOUR[ch] for ch in marks])
    if len(rows) != size or any(len(r) != size for r in rows):
        raise ValueError(f"expected {size} rows of {size} points, got {[len(r) for r in rows]}")
    return np.array(rows, dtype=np.int32).reshape(-1)


def parse_to_move(to_move: int | str) -> int:
    """0/1 or ``"X"``/``"O"``/``"B"``/``"W"`` -> 0 (Black) or 1 (White)."""
    if isinstance(to_move, str):
        to_move = {"X": 0, "B": 0, "O": 1, "W": 1}.get(to_move.upper(), to_move)
    if to_move not in (0, 1):
        raise ValueError(f"to_move must be 0 (Black) or 1 (White), got {to_move!r}")
    return int(to_move)
