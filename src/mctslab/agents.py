"""Agents, made from spec strings such as ``mcts(sims=10000,formula=paper,c=0.4)``.

Every agent has ``spec_string`` (canonical), ``budget`` (the :class:`~mctslab.search.budget.Budget`
its spec gives, or None for agents that do not search), ``search(state, budget=None) ->
SearchResult`` (the game state is not changed; a budget given here replaces the agent's own for
this search), ``step(state, budget=None) -> action`` (search, remember the result in
``last_result``, return the chosen action), and ``reset()`` (forget everything learnt in a game).
"""

from __future__ import annotations

import secrets
from typing import ClassVar, Literal

import numpy as np
import pydantic
from pydantic import Field

from mctslab import specstr
from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.search import DEFAULT_C, Flat, SearchResult, Uct, UctConfig
from mctslab.search.budget import Budget

_STRICT = pydantic.ConfigDict(extra="forbid", frozen=True)


class RandomParams(pydantic.BaseModel):
    model_config = _STRICT
    seed: int | None = Field(None, ge=0, description="random seed")


class FlatParams(pydantic.BaseModel):
    model_config = _STRICT
    sims: int | None = Field(None, ge=1, description="playouts per move (1000 without time)")
    time: float | None = Field(None, gt=0, description="seconds per move")
    seed: int | None = Field(None, ge=0, description="random seed")


class MctsParams(pydantic.BaseModel):
    model_config = _STRICT
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


class Agent:
    """Base of every agent: ``step`` is ``search`` plus bookkeeping."""

    NAME: ClassVar[str]
    DESCRIPTION: ClassVar[str]
    Params: ClassVar[type[pydantic.BaseModel]]
    #: the simulations per move when the spec gives neither ``sims`` nor ``time``
    DEFAULT_SIMS: ClassVar[int] = 0

    def __init__(self, spec_string: str, game: Game):
        self.spec_string = spec_string
        self.game = game
        self.last_result: SearchResult | None = None
        #: the budget of a search called without one (from the spec's ``sims``/``time``)
        self.budget: Budget | None = None

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        raise NotImplementedError

    def step(self, state: State, budget: Budget | None = None) -> int:
        """Search from ``state`` and return the chosen action (``last_result`` keeps the rest)."""
        self.last_result = self.search(state, budget)
        return self.last_result.action

    def reset(self) -> None:
        """Forget everything from the current game."""
        self.last_result = None

    def __repr__(self) -> str:
        return f"make_agent({self.spec_string!r}, {self.game.spec.spec_string!r})"


class RandomAgent(Agent):
    NAME = "random"
    DESCRIPTION = "a uniformly random legal move"
    Params = RandomParams

    def __init__(self, spec_string: str, game: Game, params: RandomParams, seed: int):
        super().__init__(spec_string, game)
        self._rng = np.random.default_rng(seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        return SearchResult(action=moves[int(self._rng.integers(len(moves)))], actions=moves)


class FlatAgent(Agent):
    NAME = "flat"
    DESCRIPTION = "flat Monte Carlo: round-robin uniform playouts per root move, best mean"
    Params = FlatParams
    DEFAULT_SIMS = 1000

    def __init__(self, spec_string: str, game: Game, params: FlatParams, seed: int):
        super().__init__(spec_string, game)
        self.budget = _budget(params, self.DEFAULT_SIMS)
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
        self.budget = _budget(params, self.DEFAULT_SIMS)
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


class MdpParams(pydantic.BaseModel):
    model_config = _STRICT
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
        None, description="leaf=network: the network file (default: `mctslab train 2048`'s)"
    )
    sims: int | None = Field(None, ge=1, description="simulations per move (1000 without time)")
    time: float | None = Field(None, gt=0, description="seconds per move")
    seed: int | None = Field(None, ge=0, description="random seed")


class MdpAgent(Agent):
    NAME = "mdp"
    DESCRIPTION = "the book's MDP MCTS (Algorithms 9.6/9.7): depth d, c, gamma, leaf value"
    Params = MdpParams
    DEFAULT_SIMS = 1000

    def __init__(self, spec_string: str, game: Game, params: MdpParams, seed: int):
        from mctslab.search.mdp import Mdp, MdpConfig

        super().__init__(spec_string, game)
        self.budget = _budget(params, self.DEFAULT_SIMS)
        keys = ("d", "c", "gamma", "leaf", "rollout_depth", "h_weight", "open_loop", "reuse")
        keys += ("rollout", "eps", "c_scale", "network")
        config = MdpConfig(max_states=params.max_states, **{k: getattr(params, k) for k in keys})
        self._mdp = Mdp(game, config, seed)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self._mdp.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self._mdp.reset()


class ExpectimaxParams(pydantic.BaseModel):
    model_config = _STRICT
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
    model_config = _STRICT
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


class GreedyParams(pydantic.BaseModel):
    model_config = _STRICT
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
        if game.spec.name != "nim":
            raise SpecError(f"agent greedy plays Nim only, not {game.spec.spec_string}")
        self._k = int(game.params.k)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        from mctslab.games.nim_kernels import S_COUNTERS

        counters = int(state.array[S_COUNTERS])
        take = counters % (self._k + 1) or 1
        return SearchResult(action=take - 1, actions=state.legal_actions())


def _budget(params: FlatParams | MctsParams | MdpParams, default_sims: int) -> Budget:
    if params.sims is None and params.time is None:
        return Budget(sims=default_sims)
    return Budget(sims=params.sims, seconds=params.time)


def _c(params: MctsParams) -> float:
    return DEFAULT_C[params.formula] if params.c is None else params.c


_ENHANCEMENT_KEYS = (
    "rave", "rave_k", "rave_b", "playout", "decisive", "antidecisive", "lgrf", "pool", "pool_p",
    "qbr", "qbr_a", "qbr_k", "chance", "exact",
)  # fmt: skip

_AGENTS: dict[str, type[Agent]] = {
    cls.NAME: cls
    for cls in (
        RandomAgent, FlatAgent, MctsAgent, MdpAgent, ExpectimaxAgent, NetworkAgent, GreedyNimAgent
    )
}  # fmt: skip


def describe_agents() -> str:
    """One paragraph per agent: its name, what it does, and every key with type, range and
    default."""
    text = "\n".join(
        f"{name}: {cls.DESCRIPTION}\n    {specstr.describe_fields(cls.Params)}"
        for name, cls in _AGENTS.items()
    )
    presets = "; ".join(
        f"{name} = {', '.join(f'{k}={v}' for k, v in keys.items()) or 'plain UCT'}"
        for name, keys in PRESETS.items()
    )
    return f"{text}\nmcts presets: {presets}"


def make_agent(spec: str, game: Game, seed: int | None = None) -> Agent:
    """Build an agent for ``game`` from a spec string.

    The random seed is the spec's ``seed`` if it has one, else ``seed``, else fresh entropy.
    Raises :class:`SpecError` naming the allowed agents, keys and ranges.
    """
    name, raw = specstr.parse(spec)
    cls = _AGENTS.get(name.lower())
    if cls is None:
        raise SpecError(f"unknown agent {name!r}; known agents: {', '.join(_AGENTS)}")
    params = specstr.validate(cls.Params, f"agent {cls.NAME}", raw)
    if cls is MctsAgent:
        params = apply_preset(params)
    canonical = params.model_dump()
    if "sims" in cls.Params.model_fields:
        budget = _budget(params, cls.DEFAULT_SIMS)
        canonical["sims"], canonical["time"] = budget.sims, budget.seconds
    if cls is MctsAgent:
        canonical["c"] = _c(params)
        # the enhancement keys appear only when they differ from plain UCT (older strings stay)
        for key in ("preset", "workers", *_ENHANCEMENT_KEYS):
            if canonical[key] == MctsParams.model_fields[key].default:
                del canonical[key]
    spec_string = specstr.format_spec(
        cls.NAME, {k: v for k, v in canonical.items() if v is not None}
    )
    if params.seed is not None:
        seed = params.seed
    elif seed is None:
        seed = secrets.randbits(63)
    return cls(spec_string, game, params, seed)
