"""The agent Nim offers (its ``AGENTS`` hook, :mod:`mctslab.games.contract`): the Nim report's
greedy player, whose rule is the game's (:meth:`mctslab.games.nim.NimGame.greedy_action`)."""

from __future__ import annotations

import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, Agent
from mctslab.errors import SpecError
from mctslab.games.base import Game, State
from mctslab.search.budget import Budget
from mctslab.search.result import SearchResult


class GreedyParams(pydantic.BaseModel):
    model_config = STRICT
    seed: int | None = Field(None, ge=0, description="unused (the agent is deterministic)")


class GreedyNimAgent(Agent):
    """The Nim report's greedy player (§3.4): take ``n mod (K+1)`` counters, or 1 when that is 0.

    It leaves a multiple of K+1 whenever it can, which is perfect play in Nim without the coin.
    """

    NAME = "greedy"
    DESCRIPTION = "Nim only: take n mod (K+1) counters, or 1 when that is 0 (the Nim report)"
    Params = GreedyParams

    def __init__(self, spec_string: str, game: Game, params: GreedyParams, seed: int):
        super().__init__(spec_string, game)
        if f"{__name__}:{type(self).__qualname__}" not in getattr(game, "AGENTS", ()):
            raise SpecError(f"agent greedy plays Nim only, not {game.spec.spec_string}")

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return SearchResult(
            action=self.game.greedy_action(state.array), actions=state.legal_actions()
        )
