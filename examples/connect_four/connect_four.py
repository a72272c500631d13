"""Connect Four as a user-defined mctslab game: import this module and it is registered.

>>> import connect_four, mctslab
>>> mctslab.load_game("connect_four(rows=6,cols=7)").new_initial_state().legal_actions()
[0, 1, 2, 3, 4, 5, 6]
"""

import connect_four_kernels
import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import Game, register


class ConnectFourParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    rows: int = Field(6, ge=4, le=12)
    cols: int = Field(7, ge=4, le=12)
    connect: int = Field(4, ge=3, le=6)


@register
class ConnectFour(Game):
    NAME = "connect_four"
    DESCRIPTION = "drop discs into columns; the first line of `connect` wins"
    Params = ConnectFourParams
    kernels = connect_four_kernels
    EXAMPLE_SPECS = ("connect_four", "connect_four(rows=4,cols=5,connect=3)")

    def _build(self, p):
        consts = np.array([p.rows, p.cols, p.connect], dtype=np.int32)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=p.cols,
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=p.rows * p.cols,
            state_size=connect_four_kernels.S_HEIGHT + p.cols + p.rows * p.cols,
        )
        return consts, spec

    def action_to_string(self, player, action):
        return str(action + 1)

    def string_to_action(self, player, text):
        t = text.strip()
        if not t.isdigit() or not 1 <= int(t) <= self.params.cols:
            raise IllegalMoveError(f"a column is a number from 1 to {self.params.cols}, got {t!r}")
        return int(t) - 1

    def render(self, state):
        rows, cols = self.params.rows, self.params.cols
        cells = state[connect_four_kernels.S_HEIGHT + cols :].reshape(rows, cols)
        lines = ["".join(".XO"[v] for v in row) for row in cells[::-1]]
        lines.append("".join(str((c + 1) % 10) for c in range(cols)))
        w = int(state[connect_four_kernels.S_WINNER])
        status = f"{'XO'[state[0]]} to move" if w < 0 else "draw" if w == 2 else f"{'XO'[w]} won"
        lines.append(status)
        return "\n".join(lines)
