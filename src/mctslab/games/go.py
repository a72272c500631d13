"""Go (Tromp and Taylor, *The Logical Rules of Go*): area scoring with komi, suicide illegal,
positional superko, pass.

The exact rules, the board layout and the superko design are in :mod:`mctslab.games.go_kernels`.
Sizes 5..19 are the game; 3 and 4 are allowed for fast tests. The default komi is 7.5 (9 on 7x7,
the usual 9x9 and 7x7 values); a komi that is a whole number allows draws (returns 0, 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import coords, go_board, go_kernels
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture, go_picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, dihedral, stone_planes

_K = go_kernels
_NAMES = ("Black (X)", "White (O)")
PASS_WORDS = ("pass",)


class GoParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    size: int = Field(9, ge=3, le=19, description="board size (5..19 to play; 3, 4 for tests)")
    komi: float = Field(
        7.5,
        ge=-361,
        le=361,
        multiple_of=0.5,
        allow_inf_nan=False,
        description="points for White (9 on 7x7)",
    )

    @pydantic.model_validator(mode="before")
    @classmethod
    def _default_komi(cls, data: Any) -> Any:
        if isinstance(data, dict) and "komi" not in data and str(data.get("size")) == "7":
            return {**data, "komi": 9.0}
        return data


@register
class GoGame(Game):
    NAME = "go"
    DESCRIPTION = "Go: area scoring with komi, positional superko, suicide illegal, two passes end"
    Params = GoParams
    kernels = go_kernels
    #: instances the conformance suite plays (tests/test_conformance.py)
    EXAMPLE_SPECS = ("go(size=3,komi=0.5)", "go(size=5)", "go(size=9)")

    def _build(self, p: GoParams):
        consts = _K.make_consts(p.size, p.komi)
        n = p.size * p.size
        spec = self._spec(
            num_players=2,
            num_distinct_actions=n + 1,
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_K.max_length(p.size),
            state_size=_K.state_size(p.size),
        )
        return consts, spec

    @property
    def size(self) -> int:
        return self.params.size

    @property
    def komi(self) -> float:
        return self.params.komi

    @property
    def pass_action(self) -> int:
        return self.size * self.size

    def action_to_string(self, player: int, action: int) -> str:
        if action == self.pass_action:
            return "pass"
        return coords.go_to_string(action, self.size)

    def string_to_action(self, player: int, text: str) -> int:
        if text.strip().lower() in PASS_WORDS:
            return self.pass_action
        return coords.go_from_string(text, self.size)

    def board(self, state: np.ndarray) -> np.ndarray:
        """``size`` x ``size`` int array of a raw state: 0 empty, 1 Black, 2 White (row 0 = top)."""
        idx = self.consts[_K.C_TABLES : _K.C_TABLES + self.size * self.size]
        return np.asarray(state[_K.HEADER + idx], dtype=np.int64).reshape(self.size, self.size)

    def picture(self, state: State) -> Picture:
        """The board as SVG (:func:`mctslab.games.picture.go_picture` of :meth:`board`)."""
        return go_picture(state, self.board(state.array))

    def observation(self, state: np.ndarray) -> np.ndarray:
        """Planes ``[4, size, size]``: the mover's stones, the opponent's, ones, and ones when
        Black is to move (komi makes the colours unequal, as AlphaGo Zero's colour plane;
        :func:`mctslab.games.symmetry.stone_planes`). Superko history is not shown."""
        mover = int(state[_K.S_TO_MOVE])
        return stone_planes(self.board(state), mover, float(mover == 0))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The eight rotations and reflections of the board; the pass maps to itself."""
        return dihedral(self.size, extra=1)

    def score(self, state: np.ndarray) -> float:
        """Black's area minus White's minus komi, of the position as it stands (Tromp-Taylor)."""
        return float(_K.area_score(self.consts, state)) - self.komi

    def captures(self, state: np.ndarray) -> tuple[int, int]:
        """Stones captured so far by Black and by White."""
        return int(state[_K.S_CAPS]), int(state[_K.S_CAPS + 1])

    def render(self, state: np.ndarray) -> str:
        lines = go_board.render_board(self.board(state))
        result = int(state[_K.S_RESULT])
        score = self.score(state)
        if result >= 0:
            text = "draw" if result == _K.DRAW else f"{_NAMES[result]} won"
            lines.append(f"game over: {text}, B-W-komi = {score:+g}")
        else:
            lines.append(f"{_NAMES[int(state[_K.S_TO_MOVE])]} to move (komi {self.komi:g})")
        return "\n".join(lines)

    def force_to_move(self, state: State, player: int) -> None:
        """Make ``player`` the one to move (GTP lets either colour play at any time)."""
        if not state.is_terminal():
            state.array[_K.S_TO_MOVE] = player

    def state_from_ascii(self, text: str, to_move: int | str = 0) -> State:
        """A state from an ASCII board (:func:`mctslab.games.go_board.parse_board`), for tests and
        analysis; the superko history holds only this position. Raises ``ValueError`` for a bad
        board and :class:`IllegalMoveError` for a group without a liberty."""
        colours = go_board.parse_board(text, self.size)
        array = np.zeros(self.spec.state_size, dtype=_K.STATE_DTYPE)
        bad = _K.setup_position(self.consts, array, colours, go_board.parse_to_move(to_move))
        if bad:
            where = coords.go_to_string(int(bad) - 1, self.size)
            raise IllegalMoveError(f"not a Go position: the group at {where} has no liberty")
        return State(self, array)
