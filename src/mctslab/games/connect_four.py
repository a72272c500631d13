"""Connect Four: drop discs into columns; the first line of ``connect`` discs wins.

Not in the source documents, but the standard AlphaZero test game: perfect solvers exist (the
``bitbully`` package on PyPI is the oracle of the tests and of the benchmark positions,
:mod:`mctslab.harness.connect_four_positions`). It is also the smallest built-in game, so it is the
worked example of adding a game (``docs/adding-a-game.md``): this file and
:mod:`mctslab.games.connect_four_kernels`.

>>> import mctslab
>>> mctslab.load_game("connect_four(rows=6,cols=7)").new_initial_state().legal_actions()
[0, 1, 2, 3, 4, 5, 6]
"""

from __future__ import annotations

import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import connect_four_kernels as k
from mctslab.games import connect_four_render
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, mirror_columns, stone_planes


class ConnectFourParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    rows: int = Field(6, ge=4, le=12, description="rows of the board")
    cols: int = Field(7, ge=4, le=12, description="columns of the board")
    connect: int = Field(4, ge=3, le=6, description="discs in a line that win")


@register
class ConnectFour(Game):
    NAME = "connect_four"
    DESCRIPTION = "drop discs into columns; the first line of `connect` wins"
    Params = ConnectFourParams
    kernels = k
    #: instances the conformance suite plays (tests/test_conformance.py)
    EXAMPLE_SPECS = ("connect_four", "connect_four(rows=4,cols=5,connect=3)")

    def _build(self, p: ConnectFourParams):
        consts = np.array([p.rows, p.cols, p.connect], dtype=np.int32)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=p.cols,
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=p.rows * p.cols,
            state_size=k.S_HEIGHT + p.cols + p.rows * p.cols,
        )
        return consts, spec

    def action_to_string(self, player: int, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, player: int, text: str) -> int:
        t = text.strip()
        if not t.isdigit() or not 1 <= int(t) <= self.params.cols:
            raise IllegalMoveError(f"a column is a number from 1 to {self.params.cols}, got {t!r}")
        return int(t) - 1

    def cells(self, state: np.ndarray) -> np.ndarray:
        """``rows`` x ``cols`` int array of a raw state: 0 empty, 1 first player (X), 2 second
        (O); row 0 is the bottom."""
        rows, cols = self.params.rows, self.params.cols
        return np.asarray(state[k.S_HEIGHT + cols :], dtype=np.int64).reshape(rows, cols)

    def observation(self, state: np.ndarray) -> np.ndarray:
        """Planes ``[3, rows, cols]``: the mover's discs, the opponent's, ones (row 0 the bottom;
        :func:`mctslab.games.symmetry.stone_planes`)."""
        return stone_planes(self.cells(state), int(state[k.S_TO_MOVE]))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The identity and the left-right mirror."""
        return mirror_columns(self.params.rows, self.params.cols)

    def picture(self, state: State) -> Picture:
        """The board as SVG (:func:`mctslab.games.connect_four_render.draw`)."""
        return connect_four_render.draw(state)

    def render(self, state: np.ndarray) -> str:
        lines = ["".join(".XO"[v] for v in row) for row in self.cells(state)[::-1]]
        lines.append("".join(str((c + 1) % 10) for c in range(self.params.cols)))
        w = int(state[k.S_WINNER])
        status = f"{'XO'[state[0]]} to move" if w < 0 else "draw" if w == 2 else f"{'XO'[w]} won"
        lines.append(status)
        return "\n".join(lines)
