"""Positions from set-up stones on a Go board (Go and NoGo): SGF's ``AB``/``AW``/``AE`` and GTP's
handicap commands.

- :func:`setup_state`: a state with the given stones and player to move, through the game's
  own kernel ``setup_position`` (Go: the superko history holds only this position; NoGo: the
  winner is set if the player to move has no legal move).
- :func:`handicap_points`: the fixed handicap placement of Farnebäck, "GTP — Go Text Protocol,
  version 2.0" (draft 2, 2002), section 4.1.1: stones on the third line (boards up to 12x12) or
  the fourth (13x13 and larger), in the order 2: lower left, upper right; 3: + upper left;
  4: + lower right; 5: + centre; 6: the four corners and the left and right sides; 7: + centre;
  8: the corners and all four sides; 9: + centre. At most 9 stones on odd boards of 9x9 and
  larger, 4 on 7x7 and on even boards, none below 7x7.
"""

from __future__ import annotations

import numpy as np

from mctslab.errors import IllegalMoveError
from mctslab.games import coords
from mctslab.games.base import Game, State

#: the games whose positions are stones on a Go board
BOARD_GAMES = ("go", "nogo")

#: handicap stones as (row, column) codes from the bottom-left: 0 the low line, 1 the middle,
#: 2 the high line (section 4.1.1 of the GTP specification)
_LAYOUT = {
    2: ("00", "22"),
    3: ("00", "22", "20"),
    4: ("00", "22", "20", "02"),
    5: ("00", "22", "20", "02", "11"),
    6: ("00", "22", "20", "02", "10", "12"),
    7: ("00", "22", "20", "02", "10", "12", "11"),
    8: ("00", "22", "20", "02", "10", "12", "01", "21"),
    9: ("00", "22", "20", "02", "10", "12", "01", "21", "11"),
}


def setup_state(game: Game, colours: np.ndarray, to_move: int) -> State:
    """A state of ``game`` (Go or NoGo) with ``colours[action]`` (0 empty, 1 Black, 2 White) on
    the board and ``to_move`` to play; :class:`IllegalMoveError` names a group without a
    liberty."""
    if game.NAME not in BOARD_GAMES:
        raise IllegalMoveError(f"set-up stones are for Go and NoGo, not {game.NAME}")
    array = np.zeros(game.spec.state_size, dtype=game.kernels.STATE_DTYPE)
    cols = np.asarray(colours, dtype=np.int32).reshape(-1)
    bad = game.kernels.setup_position(game.consts, array, cols, int(to_move))
    if bad:
        where = coords.go_to_string(int(bad) - 1, game.params.size)
        raise IllegalMoveError(f"not a {game.NAME} position: the group at {where} has no liberty")
    return State(game, array)


def max_fixed_handicap(size: int) -> int:
    """The most stones ``fixed_handicap`` places on a ``size`` board (module doc)."""
    if size < 7:
        return 0
    if size == 7 or size % 2 == 0:
        return 4
    return 9


def handicap_points(size: int, stones: int) -> list[int]:
    """The actions of the fixed handicap placement of ``stones`` stones (module doc); raises
    :class:`IllegalMoveError` naming the allowed range."""
    most = max_fixed_handicap(size)
    if not 2 <= stones <= most:
        allowed = f"2..{most}" if most else "none"
        raise IllegalMoveError(
            f"invalid number of handicap stones {stones}: on {size}x{size} {allowed}"
        )
    low = 2 if size <= 12 else 3
    line = (low, (size - 1) // 2, size - 1 - low)  # lines from the bottom / left, 0-based
    out = []
    for code in _LAYOUT[stones]:
        up, right = line[int(code[0])], line[int(code[1])]
        out.append((size - 1 - up) * size + right)
    return out
