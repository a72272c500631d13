"""The agents 2048 offers (its ``AGENTS`` hook, :mod:`mctslab.games.contract`): depth-limited
expectimax (:mod:`mctslab.games.g2048_expectimax`) and the greedy n-tuple network player
(:mod:`mctslab.games.g2048_ntuple`). The search code lives beside the game; these classes only
make agents of it."""

from __future__ import annotations

import time

import numpy as np
import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, Agent
from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.search.budget import Budget
from mctslab.search.result import SearchResult


def _require_2048(agent: type[Agent], game: Game) -> None:
    """Refuse a game that does not offer the agent (only 2048 does)."""
    if f"{agent.__module__}:{agent.__qualname__}" not in getattr(game, "AGENTS", ()):
        raise SpecError(f"agent {agent.NAME} plays 2048 only, not {game.spec.spec_string}")


class ExpectimaxParams(pydantic.BaseModel):
    model_config = STRICT
    depth: int = Field(0, ge=0, le=6, description="chance layers searched (0: by tile count)")
    seed: int | None = Field(None, ge=0, description="unused (the search is deterministic)")


class ExpectimaxAgent(Agent):
    NAME = "expectimax"
    DESCRIPTION = "2048 only: depth-limited expectimax with the usual heuristics (baseline)"
    Params = ExpectimaxParams

    def __init__(self, spec_string: str, game: Game, params: ExpectimaxParams, seed: int):
        from mctslab.games.g2048_expectimax import Expectimax

        super().__init__(spec_string, game)
        _require_2048(type(self), game)
        self._search = Expectimax(game, params.depth)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        start = time.perf_counter()
        found = self._search.search(state)
        elapsed = time.perf_counter() - start
        return SearchResult(
            action=found.best,
            actions=found.moves,
            values=found.values,
            visits=[0 for _ in found.moves],
            pv=[found.best],
            simulations=found.evaluations,
            elapsed=elapsed,
            sims_per_second=found.evaluations / elapsed if elapsed > 0 else 0.0,
            depth_max=found.depth,
            depth_mean=float(found.depth),
            depth_median=float(found.depth),
        )


class NetworkParams(pydantic.BaseModel):
    model_config = STRICT
    network: str | None = Field(
        None,
        description="the network file (default: the one `mctslab train 2048` writes, else the "
        "shipped one)",
    )
    seed: int | None = Field(None, ge=0, description="unused (the agent is deterministic)")


class NetworkAgent(Agent):
    """The greedy player of a trained 2048 n-tuple network: the move maximising
    ``r(s, a) + V(after(s, a))`` (Szubert and Jaśkowski 2014; :mod:`mctslab.games.g2048_ntuple`).
    No search: the baseline that shows what the network alone is worth, next to MDP MCTS with
    ``leaf=network``."""

    NAME = "network"
    DESCRIPTION = "2048 only: the greedy player of a trained n-tuple network, max r + V(after)"
    Params = NetworkParams

    def __init__(self, spec_string: str, game: Game, params: NetworkParams, seed: int):
        super().__init__(spec_string, game)
        _require_2048(type(self), game)
        self.w, self.fs = game.load_network(params.network)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        from mctslab.games.g2048_ntuple import move_values

        start = time.perf_counter()
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        values = move_values(self.game.consts, self.w, self.fs, state, moves)
        best = int(np.argmax(values))
        return SearchResult(
            action=moves[best],
            actions=moves,
            values=values,
            visits=[0 for _ in moves],
            pv=[moves[best]],
            simulations=len(moves),
            elapsed=time.perf_counter() - start,
        )
