"""Agents for 2048 only: depth-limited expectimax and the greedy n-tuple network player."""

from __future__ import annotations

import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, Agent
from mctslab.games.base import Game, State
from mctslab.search.budget import Budget
from mctslab.search.result import SearchResult


class ExpectimaxParams(pydantic.BaseModel):
    model_config = STRICT
    depth: int = Field(0, ge=0, le=6, description="chance layers searched (0: by tile count)")
    seed: int | None = Field(None, ge=0, description="unused (the search is deterministic)")


class ExpectimaxAgent(Agent):
    NAME = "expectimax"
    DESCRIPTION = "2048 only: depth-limited expectimax with the usual heuristics (baseline)"
    Params = ExpectimaxParams

    def __init__(self, spec_string: str, game: Game, params: ExpectimaxParams, seed: int):
        from mctslab.search.expectimax import Expectimax

        super().__init__(spec_string, game)
        self._search = Expectimax(game, params.depth)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self._search.search(state)


class NetworkParams(pydantic.BaseModel):
    model_config = STRICT
    network: str | None = Field(
        None, description="the network file (default: the one `mctslab train 2048` writes)"
    )
    seed: int | None = Field(None, ge=0, description="unused (the agent is deterministic)")


class NetworkAgent(Agent):
    """The greedy player of a trained 2048 n-tuple network: the move maximising
    ``r(s, a) + V(after(s, a))`` (Szubert and Jaśkowski 2014; :mod:`mctslab.games.g2048_ntuple`)."""

    NAME = "network"
    DESCRIPTION = "2048 only: the greedy player of a trained n-tuple network, max r + V(after)"
    Params = NetworkParams

    def __init__(self, spec_string: str, game: Game, params: NetworkParams, seed: int):
        from mctslab.search.network import NetworkPlayer

        super().__init__(spec_string, game)
        self._search = NetworkPlayer(game, params.network)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self._search.search(state)
