"""Hex on a size x size rhombus, with the optional swap (pie) rule (the Hex article: Decisive Move,
Last Good Reply and PoolRAVE for Hex).

Black (player 0, ``X``) moves first and joins the top and bottom edges; White (player 1, ``O``)
joins left and right. Moves are HTP cells (``a1`` top-left, see :mod:`mctslab.games.coords`) and,
with ``swap=true``, the word ``swap`` on the second move (HTP ``swap-pieces``).

Theory (oracles for the tests): a full board has exactly one winner; the first player wins from
the centre, and ``a1`` loses on boards 2x2 and larger; with the swap rule the second player wins.
"""

from __future__ import annotations

import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import coords, hex_kernels, hex_render
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, rotation_180, stone_planes

SWAP_WORDS = ("swap", "swap-pieces")


class HexParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    size: int = Field(11, ge=3, le=19, description="board side (cells)")
    swap: bool = Field(False, description="pie rule: White may swap on the second move")


@register
class HexGame(Game):
    NAME = "hex"
    DESCRIPTION = "Hex: Black joins top-bottom, White left-right; swap=true adds the pie rule"
    Params = HexParams
    kernels = hex_kernels
    EXAMPLE_SPECS = ("hex(size=5,swap=false)", "hex(size=5,swap=true)", "hex")

    def _build(self, p: HexParams):
        n = p.size * p.size
        consts = hex_kernels.make_consts(p.size, p.swap)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=n + 1 if p.swap else n,
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=n + 1 if p.swap else n,
            state_size=hex_kernels.state_size(p.size),
        )
        return consts, spec

    @property
    def swap_action(self) -> int | None:
        """The action number of the swap, or None without the swap rule."""
        return self.params.size**2 if self.params.swap else None

    def action_to_string(self, player: int, action: int) -> str:
        if action == self.swap_action:
            return "swap"
        return coords.hex_to_string(action, self.params.size)

    def string_to_action(self, player: int, text: str) -> int:
        if text.strip().lower() in SWAP_WORDS:
            if self.swap_action is None:
                raise IllegalMoveError("this game has no swap rule (load it with swap=true)")
            return self.swap_action
        return coords.hex_from_string(text, self.params.size)

    def picture(self, state: State) -> Picture:
        """The board as SVG (:func:`mctslab.games.hex_render.draw`)."""
        return hex_render.draw(state)

    def observation(self, state: np.ndarray) -> np.ndarray:
        """Planes ``[5, size, size]``: the mover's stones, the opponent's, ones, ones when Black
        (top-bottom) is to move, and ones when the swap is legal now
        (:func:`mctslab.games.symmetry.stone_planes`)."""
        k, size = hex_kernels, self.params.size
        board = np.asarray(state[k.B : k.B + size * size], dtype=np.int64).reshape(size, size)
        mover = int(state[k.S_TO_MOVE])
        can_swap = self.params.swap and int(state[k.S_COUNT]) == 1
        return stone_planes(board, mover, float(mover == 0), float(can_swap))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The identity and the half turn (:func:`mctslab.games.symmetry.rotation_180`); the
        swap maps to itself."""
        return rotation_180(self.params.size, extra=int(self.params.swap))

    def render(self, state: np.ndarray) -> str:
        """The slanted board, each row one more space to the right, and a status line.

        For example, on 3x3 after ``a1 b2``::

               a b c
             1 X . . 1
              2 . O . 2
               3 . . . 3
                 a b c
            Black (X, top-bottom) to move
        """
        size = self.params.size
        k = hex_kernels
        letters = " ".join(coords.HEX_LETTERS[:size])
        symbols = {k.EMPTY: ".", k.BLACK: "X", k.WHITE: "O"}
        lines = ["   " + letters]
        for r in range(size):
            cells = " ".join(symbols[int(state[k.B + r * size + c])] for c in range(size))
            lines.append(" " * r + f"{r + 1:>2} {cells} {r + 1}")
        lines.append(" " * (size + 2) + letters)
        names = ("Black (X, top-bottom)", "White (O, left-right)")
        winner = int(state[k.S_WINNER])
        if winner >= 0:
            status = f"{names[winner]} won after {int(state[k.S_COUNT])} moves"
        else:
            status = f"{names[int(state[k.S_TO_MOVE])]} to move"
            if self.params.swap and int(state[k.S_COUNT]) == 1:
                status += " (or swap)"
        lines.append(status)
        return "\n".join(lines)
