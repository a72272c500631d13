"""The book's MDP MCTS as an agent: ``mdp(...)``."""

from __future__ import annotations

from typing import Literal

import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, TIME, Agent, budget_of
from mctslab.games.base import Game, State
from mctslab.search.budget import Budget
from mctslab.search.result import SearchResult


class MdpParams(pydantic.BaseModel):
    model_config = STRICT
    d: int = Field(10, ge=1, le=10_000, description="depth limit (the book's d)")
    c: float = Field(100.0, ge=0, description="exploration constant, in reward units")
    gamma: float = Field(1.0, ge=0, le=1, description="discount")
    leaf: Literal["rollout", "zero", "heuristic", "network"] = Field(
        "rollout", description="leaf value U (network: a trained network, 2048)"
    )
    rollout_depth: int = Field(
        10, ge=0, le=1_000_000, description="steps of a rollout leaf (0: to the end)"
    )
    h_weight: float = Field(1.0, gt=0, description="weight of the heuristic leaf")
    open_loop: bool = Field(False, description="key statistics by action sequence, not state")
    reuse: bool = Field(True, description="keep N and Q between the moves of a game")
    max_states: int = Field(1 << 19, ge=16, le=1 << 26, description="hash-table slots")
    rollout: Literal["random", "greedy", "corner", "greedy_corner", "heuristic"] = Field(
        "random",
        description="rollout policy to the end (2048: greedy, corner, greedy_corner, heuristic)",
    )
    eps: float = Field(0.0, ge=0, le=1, description="share of random moves in a policy rollout")
    c_scale: Literal["absolute", "best"] = Field(
        "absolute", description="c in reward units, or times the node's best |Q|"
    )
    network: str | None = Field(
        None,
        description="leaf=network: the network file (default: `mctslab train 2048`'s, else the "
        "shipped one)",
    )
    sims: int | None = Field(None, ge=1, description="simulations per move (1000 without time)")
    time: float | None = TIME
    seed: int | None = Field(None, ge=0, description="random seed")


class MdpAgent(Agent):
    NAME = "mdp"
    DESCRIPTION = "the book's MDP MCTS (Algorithms 9.6/9.7): depth d, c, gamma, leaf value"
    Params = MdpParams
    DEFAULT_SIMS = 1000

    def __init__(self, spec_string: str, game: Game, params: MdpParams, seed: int):
        from mctslab.search.mdp import Mdp, MdpConfig

        super().__init__(spec_string, game)
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        keys = ("d", "c", "gamma", "leaf", "rollout_depth", "h_weight", "open_loop", "reuse")
        keys += ("rollout", "eps", "c_scale", "network")
        config = MdpConfig(max_states=params.max_states, **{k: getattr(params, k) for k in keys})
        self.searcher = Mdp(game, config, seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self.searcher.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self.searcher.reset()
