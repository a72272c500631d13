"""Nim, and Nim with a coin (the Nim report, *MCTS for Nim*, sections 2 and 5).

Theory (oracle for tests): without the coin, the player to move loses iff N mod (K+1) == 0.
"""

from __future__ import annotations

import numpy as np
import pydantic
from pydantic import Field

from mctslab.errors import IllegalMoveError
from mctslab.games import nim_kernels, nim_render
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, identity


class NimParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    n: int = Field(30, ge=1, le=10000, description="counters at the start")
    k: int = Field(3, ge=1, le=100, description="most counters one move may take")
    coin: bool = Field(False, description="after each move a fair coin may take one more")


@register
class NimGame(Game):
    NAME = "nim"
    DESCRIPTION = "N counters, take 1..K, taking the last wins; coin=true adds a coin flip"
    Params = NimParams
    kernels = nim_kernels
    #: the Nim report's greedy player (:meth:`greedy_action`)
    AGENTS = ("mctslab.agents.nim:GreedyNimAgent",)

    def _build(self, p: NimParams):
        consts = np.array([p.n, p.k, int(p.coin)], dtype=np.int32)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=p.k,
            num_chance_outcomes=2 if p.coin else 0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=2 * p.n if p.coin else p.n,
            state_size=nim_kernels.STATE_SIZE,
        )
        return consts, spec

    def action_to_string(self, player: int, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, player: int, text: str) -> int:
        t = text.strip()
        k = self.params.k
        if not t.isdigit() or not 1 <= int(t) <= k:
            raise IllegalMoveError(f"a Nim move is a number of counters from 1 to {k}, got {t!r}")
        return int(t) - 1

    def chance_outcome_to_string(self, outcome: int) -> str:
        return "heads" if outcome == 1 else "tails"

    def counters(self, state: np.ndarray) -> int:
        """The counters left in a raw state."""
        return int(state[nim_kernels.S_COUNTERS])

    def status(self, state: np.ndarray) -> str:
        """Who won, a coin flip pending, or who is to move (the last line of :meth:`render`)."""
        k = nim_kernels
        winner, phase = int(state[k.S_WINNER]), int(state[k.S_PHASE])
        if winner >= 0:
            return f"player {winner} won"
        if phase == 1:
            return "coin flip pending"
        return f"player {int(state[k.S_TO_MOVE])} to move (take 1..{self.params.k})"

    def greedy_action(self, state: np.ndarray) -> int:
        """The Nim report's greedy move (section 3.4): take ``n mod (K+1)`` counters, or 1 when
        that is 0; it leaves a multiple of K+1 whenever it can, perfect play without the coin."""
        return (self.counters(state) % (self.params.k + 1) or 1) - 1

    def picture(self, state: State) -> Picture:
        """The heap as SVG (:func:`mctslab.games.nim_render.draw`)."""
        return nim_render.draw(state)

    def observation(self, state: np.ndarray) -> np.ndarray:
        """One plane ``[1, 1, n + 1]``: a one at the number of counters left (Nim is impartial:
        the mover needs nothing else)."""
        obs = np.zeros((1, 1, self.params.n + 1), dtype=np.float32)
        obs[0, 0, self.counters(state)] = 1.0
        return obs

    def symmetries(self) -> tuple[Symmetry, ...]:
        """None but the identity."""
        return identity(self.params.n + 1, self.params.k)

    def render(self, state: np.ndarray) -> str:
        counters = self.counters(state)
        row = "|" * counters if counters <= 60 else f"{counters} counters"
        return f"{row} ({counters})\n{self.status(state)}"
