"""The UCT family and flat Monte Carlo as agents: ``mcts(...)`` and ``flat(...)``."""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, Agent, budget_of
from mctslab.games.base import Game, State
from mctslab.search import DEFAULT_C, Flat, SearchResult, Uct, UctConfig
from mctslab.search.budget import Budget


class FlatParams(pydantic.BaseModel):
    model_config = STRICT
    sims: int | None = Field(None, ge=1, description="playouts per move (1000 without time)")
    time: float | None = Field(None, gt=0, description="seconds per move")
    seed: int | None = Field(None, ge=0, description="random seed")


class MctsParams(pydantic.BaseModel):
    model_config = STRICT
    sims: int | None = Field(None, ge=1, description="simulations per move (10000 without time)")
    time: float | None = Field(None, gt=0, description="seconds per move")
    formula: Literal["slides", "paper", "book", "ucb1tuned"] = Field(
        "slides", description="selection formula"
    )
    c: float | None = Field(None, ge=0, description="exploration constant (formula's default)")
    expand: int = Field(1, ge=1, le=1_000_000, description="visits before a node is expanded")
    expand_all: bool = Field(True, description="all children at once, else one per simulation")
    final: Literal["robust", "mean", "ratio"] = Field("robust", description="final move rule")
    reuse: bool = Field(True, description="keep the subtree of the moves played")
    solver: bool = Field(True, description="MCTS-Solver (two-player games)")
    max_nodes: int = Field(2_000_000, ge=2, le=2**31 - 1, description="node pool size")
    leaf: Literal["playout", "coin"] = Field("playout", description="leaf evaluation")
    preset: Literal["uct", "rave", "pool_rave", "lgrf", "decisive", "nf", "qbr"] = Field(
        "uct", description="a named bundle of the keys below (keys given explicitly win)"
    )
    rave: Literal["off", "paper", "gelly_silver", "article"] = Field(
        "off", description="RAVE/AMAF schedule"
    )
    rave_k: float = Field(300.0, gt=0, description="RAVE K (paper, article schedules)")
    rave_b: float = Field(0.1, ge=0, description="RAVE bias b (gelly_silver schedule)")
    playout: Literal["uniform", "naive", "nf", "nf2", "strategic", "go"] = Field(
        "uniform", description="base playout policy (per game)"
    )
    decisive: bool = Field(False, description="playouts take a move that wins at once")
    antidecisive: bool = Field(False, description="playouts never leave an immediate win")
    lgrf: bool = Field(False, description="Last Good Reply with Forgetting in playouts")
    pool: int = Field(0, ge=0, le=1000, description="PoolRAVE pool size (0 off)")
    pool_p: float = Field(0.5, ge=0, le=1, description="PoolRAVE probability of a pool move")
    qbr: bool = Field(False, description="Quality-Based Rewards")
    qbr_a: float = Field(0.25, ge=0, description="QBR bonus weight a")
    qbr_k: float = Field(1.4, gt=0, description="QBR sigmoid constant k")
    workers: int = Field(1, ge=1, le=64, description="root-parallel searches (threads)")
    chance: Literal["sampled", "expanded", "playout"] = Field(
        "sampled",
        description="chance events: nodes in the tree (outcomes sampled, or expanded: visited "
        "in proportion and probability-weighted), or left to playouts",
    )
    exact: int = Field(
        0, ge=0, le=10**9,
        description="node budget of an exact (expectimax) search where the tree grows; 0 off",
    )  # fmt: skip
    seed: int | None = Field(None, ge=0, description="random seed")


#: ``mcts(preset=...)``: the keys each preset sets (any key given explicitly overrides it).
#: Sources: RAVE, NoGo paper section 3.1; PoolRAVE (Hoock et al. 2010), LGRF (Baier and Drake
#: 2010), decisive and anti-decisive moves (Teytaud and Teytaud 2010), all in the Hex article;
#: the normal-form heuristic a - b, NoGo paper section 3.5; QBR, Pepels et al. 2014.
PRESETS: dict[str, dict[str, object]] = {
    "uct": {},
    "rave": {"rave": "paper"},
    "pool_rave": {"rave": "paper", "pool": 10},
    "lgrf": {"lgrf": True},
    "decisive": {"decisive": True, "antidecisive": True},
    "nf": {"playout": "nf"},
    "qbr": {"qbr": True},
}


def apply_preset(params: MctsParams) -> MctsParams:
    """``params`` with its preset's keys filled in where the spec did not give them."""
    given = params.model_fields_set
    update = {k: v for k, v in PRESETS[params.preset].items() if k not in given}
    return params.model_copy(update=update)


class FlatAgent(Agent):
    NAME = "flat"
    DESCRIPTION = "flat Monte Carlo: round-robin uniform playouts per root move, best mean"
    Params = FlatParams
    DEFAULT_SIMS = 1000

    def __init__(self, spec_string: str, game: Game, params: FlatParams, seed: int):
        super().__init__(spec_string, game)
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        self._flat = Flat(game, seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self._flat.search(state, budget or self.budget)


class MctsAgent(Agent):
    NAME = "mcts"
    DESCRIPTION = "UCT family with slow node creation, MCTS-Solver and tree reuse"
    Params = MctsParams
    DEFAULT_SIMS = 10_000

    def __init__(self, spec_string: str, game: Game, params: MctsParams, seed: int):
        from mctslab.search.parallel import RootParallel

        super().__init__(spec_string, game)
        params = apply_preset(params)
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        self.config = UctConfig(
            c=_c(params),
            formula=params.formula,
            z=params.expand,
            expand_all=params.expand_all,
            solver=params.solver,
            leaf=params.leaf,
            final=params.final,
            reuse=params.reuse,
            max_nodes=params.max_nodes,
            **{k: getattr(params, k) for k in _ENHANCEMENT_KEYS},
        )
        if params.workers > 1:
            self._uct = RootParallel(game, self.config, seed, params.workers)
        else:
            self._uct = Uct(game, self.config, seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self._uct.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self._uct.reset()

    @classmethod
    def prepare(cls, params: pydantic.BaseModel) -> pydantic.BaseModel:
        return apply_preset(params)

    @classmethod
    def canonical(cls, params: pydantic.BaseModel) -> dict[str, Any]:
        keys = super().canonical(params)
        keys["c"] = _c(params)
        # the enhancement keys appear only when they differ from plain UCT (older strings stay)
        for key in ("preset", "workers", *_ENHANCEMENT_KEYS):
            if keys[key] == MctsParams.model_fields[key].default:
                del keys[key]
        return keys


def _c(params: MctsParams) -> float:
    return DEFAULT_C[params.formula] if params.c is None else params.c


_ENHANCEMENT_KEYS = (
    "rave", "rave_k", "rave_b", "playout", "decisive", "antidecisive", "lgrf", "pool", "pool_p",
    "qbr", "qbr_a", "qbr_k", "chance", "exact",
)  # fmt: skip
