"""All board-coordinate conversion in one place (the minigo lesson).

Internally a point is ``action = row * size + col`` with row 0 the *top* row as printed and col 0
the leftmost column.

* Go and NoGo use GTP vertices: a column letter from ``ABCDEFGHJKLMNOPQRST`` (no ``I``) and a row
  number counted from the *bottom* (``A1`` is the bottom-left corner).
* Hex uses HTP / HexGui cells: a column letter from ``abcdefghijklmnopqrs`` (``i`` included) and a
  row number counted from the *top* (``a1`` is the top-left corner, ``a1``–``k1`` the top edge).
"""

from __future__ import annotations

from mctslab.errors import IllegalMoveError

GO_LETTERS = "ABCDEFGHJKLMNOPQRST"
HEX_LETTERS = "abcdefghijklmnopqrs"


def go_to_string(action: int, size: int) -> str:
    row, col = divmod(action, size)
    return f"{GO_LETTERS[col]}{size - row}"


def go_from_string(text: str, size: int) -> int:
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in GO_LETTERS[:size] or not t[1:].isdigit():
        raise IllegalMoveError(
            f"bad vertex {text!r}: expected a column {GO_LETTERS[0]}..{GO_LETTERS[size - 1]} "
            f"(no I) and a row 1..{size}, like {GO_LETTERS[size // 2]}{size // 2 + 1}"
        )
    number = int(t[1:])
    if not 1 <= number <= size:
        raise IllegalMoveError(f"bad vertex {text!r}: row must be 1..{size}")
    return (size - number) * size + GO_LETTERS.index(t[0])


def hex_to_string(action: int, size: int) -> str:
    row, col = divmod(action, size)
    return f"{HEX_LETTERS[col]}{row + 1}"


def hex_from_string(text: str, size: int) -> int:
    t = text.strip().lower()
    if len(t) < 2 or t[0] not in HEX_LETTERS[:size] or not t[1:].isdigit():
        raise IllegalMoveError(
            f"bad cell {text!r}: expected a column a..{HEX_LETTERS[size - 1]} and a row "
            f"1..{size}, like {HEX_LETTERS[size // 2]}{size // 2 + 1}"
        )
    number = int(t[1:])
    if not 1 <= number <= size:
        raise IllegalMoveError(f"bad cell {text!r}: row must be 1..{size}")
    return (number - 1) * size + HEX_LETTERS.index(t[0])
