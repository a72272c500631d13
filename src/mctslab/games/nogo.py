"""NoGo (Chou, Teytaud and Yen, *Revisiting Monte-Carlo Tree Search on a Normal Form Game: NoGo*,
section 2): Go without captures, suicide or passing.

Black (X, player 0) moves first. A move is illegal if it captures (leaves an adjacent opponent
group without liberties) or is suicide; the player to move with no legal move loses.

Solved facts (oracles for tests): on 3x3 the first player wins, on 4x4 the second player wins, on
5x5 the first player wins. Sizes 5..19 are the usual ones; 3 and 4 are allowed for the solved
oracles.
"""

from __future__ import annotations

import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import coords, go_board, nogo_kernels
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture, go_picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, dihedral, stone_planes

_K = nogo_kernels
_NAMES = ("Black (X)", "White (O)")


class NoGoParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    size: int = Field(9, ge=3, le=19, description="board size (5..19 to play; 3, 4 are solved)")


@register
class NoGoGame(Game):
    NAME = "nogo"
    DESCRIPTION = "Go where capturing and suicide are illegal and the player without a move loses"
    Params = NoGoParams
    kernels = nogo_kernels
    #: instances the conformance suite plays (tests/test_conformance.py)
    EXAMPLE_SPECS = ("nogo(size=3)", "nogo(size=5)", "nogo(size=9)")

    def _build(self, p: NoGoParams):
        consts = _K.make_consts(p.size)
        n = p.size * p.size
        spec = self._spec(
            num_players=2,
            num_distinct_actions=n,
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=n,
            state_size=_K.state_size(p.size),
        )
        return consts, spec

    @property
    def size(self) -> int:
        return self.params.size

    def action_to_string(self, player: int, action: int) -> str:
        return coords.go_to_string(action, self.size)

    def string_to_action(self, player: int, text: str) -> int:
        return coords.go_from_string(text, self.size)

    def board(self, state: np.ndarray) -> np.ndarray:
        """``size`` x ``size`` int array of a raw state: 0 empty, 1 Black, 2 White (row 0 = top)."""
        idx = self.consts[_K.C_TABLES : _K.C_TABLES + self.size * self.size]
        return np.asarray(state[_K.HEADER + idx], dtype=np.int64).reshape(self.size, self.size)

    def picture(self, state: State) -> Picture:
        """The board as SVG (:func:`mctslab.games.picture.go_picture` of :meth:`board`)."""
        return go_picture(state, self.board(state.array))

    def observation(self, state: np.ndarray) -> np.ndarray:
        """Planes ``[5, size, size]``: the mover's stones, the opponent's, ones
        (:func:`mctslab.games.symmetry.stone_planes`), then the points where the mover may play
        and where the opponent may. Legality is NoGo's whole game (a player without a legal move
        loses) and depends on every liberty of a group, which a few 3x3 convolutions cannot
        count; the points legal for one player only are the safe moves of the normal-form
        playout (Chou, Teytaud and Yen, *Revisiting Monte-Carlo Tree Search on a Normal Form
        Game: NoGo*, section 3.5)."""
        stones = stone_planes(self.board(state), int(state[_K.S_TO_MOVE]))
        legal = np.empty((2, self.size * self.size), dtype=np.float32)
        _K.legality_planes(self.consts, state, legal)
        return np.concatenate([stones, legal.reshape(2, self.size, self.size)])

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The eight rotations and reflections of the board."""
        return dihedral(self.size)

    def render(self, state: np.ndarray) -> str:
        lines = go_board.render_board(self.board(state))
        winner = int(state[_K.S_WINNER])
        if winner >= 0:
            won, lost = _NAMES[winner], _NAMES[1 - winner]
            lines.append(f"{won} won: {lost} has no legal move")
        else:
            lines.append(f"{_NAMES[int(state[_K.S_TO_MOVE])]} to move")
        return "\n".join(lines)

    def state_from_ascii(self, text: str, to_move: int | str = 0) -> State:
        """A state from an ASCII board, for tests and analysis.

        One line per row, top row first; ``X`` Black, ``O`` White, ``.`` or ``+`` empty. Spaces,
        row numbers, column-letter lines and lines with a parenthesis (the status line of
        :meth:`render`) are ignored, so ``state_from_ascii(str(state))`` rebuilds the board.
        ``to_move`` is 0/1 or ``"X"``/``"O"``/``"B"``/``"W"``. Raises ``ValueError`` for a board
        of the wrong shape or an unknown character, and :class:`IllegalMoveError` for a group
        without a liberty.
        """
        size = self.size
        colours = go_board.parse_board(text, size)
        to_move = go_board.parse_to_move(to_move)
        array = np.zeros(self.spec.state_size, dtype=_K.STATE_DTYPE)
        bad = _K.setup_position(self.consts, array, colours, int(to_move))
        if bad:
            where = coords.go_to_string(int(bad) - 1, size)
            raise IllegalMoveError(f"not a NoGo position: the group at {where} has no liberty")
        return State(self, array)
