"""The UCT family and flat Monte Carlo as agents: ``mcts(...)`` and ``flat(...)``.

The keys of ``mcts(...)``, their checks, the presets and the canonical string all come from the
one declaration of the options in :mod:`mctslab.search.options`.
"""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, TIME, Agent, budget_of
from mctslab.agents.resign import resigner_for
from mctslab.errors import SpecError
from mctslab.games.base import Game, State
from mctslab.search import Flat, SearchResult, Uct, UctConfig, options
from mctslab.search.budget import Budget
from mctslab.search.options import PRESETS

__all__ = ["PRESETS", "FlatAgent", "FlatParams", "MctsAgent", "MctsParams", "apply_preset"]


class FlatParams(pydantic.BaseModel):
    model_config = STRICT
    sims: int | None = Field(None, ge=1, description="playouts per move (1000 without time)")
    time: float | None = TIME
    seed: int | None = Field(None, ge=0, description="random seed")


#: The keys of ``mcts(...)``: made from :data:`mctslab.search.options.OPTIONS`.
MctsParams = options.spec_model(
    "MctsParams", STRICT, "The keys of an ``mcts(...)`` spec string.", __name__
)


def apply_preset(params: pydantic.BaseModel, game: Game | None = None) -> pydantic.BaseModel:
    """``params`` with its preset's keys for ``game`` filled in where the spec did not give
    them."""
    name = game.spec.name if game is not None else None
    return params.model_copy(
        update=options.apply_preset(params.model_dump(), params.model_fields_set, name)
    )


class FlatAgent(Agent):
    NAME = "flat"
    DESCRIPTION = "flat Monte Carlo: round-robin uniform playouts per root move, best mean"
    Params = FlatParams
    DEFAULT_SIMS = 1000

    def __init__(self, spec_string: str, game: Game, params: FlatParams, seed: int):
        super().__init__(spec_string, game)
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        self.searcher = Flat(game, seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self.searcher.search(state, budget or self.budget)


class MctsAgent(Agent):
    NAME = "mcts"
    DESCRIPTION = "UCT family with slow node creation, MCTS-Solver and tree reuse"
    Params = MctsParams
    DEFAULT_SIMS = 10_000
    THREADS_KEY = "workers"

    def __init__(self, spec_string: str, game: Game, params: Any, seed: int):
        from mctslab.search.parallel import RootParallel

        super().__init__(spec_string, game)
        self.budget = budget_of(params, self.DEFAULT_SIMS)  # params come from prepare()
        self.config = UctConfig.from_keys(params)
        options.check_memory(self.config, game.spec, params.workers)
        try:
            if params.workers > 1:
                self.searcher = RootParallel(game, self.config, seed, params.workers)
            else:
                self.searcher = Uct(game, self.config, seed)
        except MemoryError:  # the check above reads MemAvailable; a limit (ulimit -v) is lower
            need = options.memory_needed(self.config, game.spec, params.workers)
            raise SpecError(
                f"max_nodes={self.config.max_nodes}: the {need / 1e6:,.0f} MB of the search "
                "tree could not be allocated (a memory limit of this process?); give a smaller "
                "max_nodes"
            ) from None
        self.live = bool(self.config.reuse)
        self.resigner = resigner_for(params.resign, game)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self.searcher.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self.searcher.reset()

    @classmethod
    def prepare(cls, params: pydantic.BaseModel, game: Game | None = None) -> pydantic.BaseModel:
        return apply_preset(params, game)

    @classmethod
    def canonical(cls, params: pydantic.BaseModel, game: Game | None = None) -> dict[str, Any]:
        name = game.spec.name if game is not None else None
        return options.canonical_keys(super().canonical(params, game), name)

    @classmethod
    def describe(cls) -> str:
        return f"{super().describe()}\n  presets:\n{options.describe_presets()}"
