"""The agent interface every agent implements, and the uniformly random agent."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pydantic
from pydantic import Field

from mctslab import specstr
from mctslab.agents.resign import Resigner
from mctslab.errors import MctslabError
from mctslab.games.base import Game, State
from mctslab.search.budget import MAX_SECONDS, Budget
from mctslab.search.result import SearchResult

#: every agent's key model forbids unknown keys and non-finite floats (``inf``, ``nan``), and is
#: immutable
STRICT = pydantic.ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

#: the ``time`` key of every searching agent: seconds per move, in (0, MAX_SECONDS] as
#: :class:`~mctslab.search.budget.Budget` takes them
TIME = Field(None, gt=0, le=int(MAX_SECONDS), description="seconds per move")


class Forfeit(MctslabError):
    """Raised by ``Agent.step`` when the agent gives up the game: it resigned, or it lost by fault
    (an external engine crashed, hung, answered garbage or an illegal move). ``reason`` says which;
    the arena (:func:`mctslab.harness.game.play_game`) scores the game as a loss for that seat and
    keeps the reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RandomParams(pydantic.BaseModel):
    model_config = STRICT
    seed: int | None = Field(None, ge=0, description="random seed")


class Agent:
    """Base of every agent: ``step`` is ``search`` plus bookkeeping."""

    NAME: ClassVar[str]
    DESCRIPTION: ClassVar[str]
    Params: ClassVar[type[pydantic.BaseModel]]
    #: the simulations per move when the spec gives neither ``sims`` nor ``time``
    DEFAULT_SIMS: ClassVar[int] = 0
    #: the key that sets how many threads a search uses (None: the agent runs on one)
    THREADS_KEY: ClassVar[str | None] = None
    #: whether making the agent compiles a search of its own (:mod:`mctslab.agents.warmup`)
    COMPILED: ClassVar[bool] = True

    def __init__(self, spec_string: str, game: Game):
        self.spec_string = spec_string
        self.game = game
        self.last_result: SearchResult | None = None
        #: the budget of a search called without one (from the spec's ``sims``/``time``)
        self.budget: Budget | None = None
        #: the search object behind the agent (``Uct``, ``RootParallel``, ``Flat``, ``Mdp``), whose
        #: tree viewers may read; None for an agent that keeps none
        self.searcher: Any = None
        #: whether searches of one position go on growing one tree, so that a search can run in
        #: slices and be shown between them (the web page's live view)
        self.live = False
        #: when ``step`` gives up a lost game (the ``resign`` key of ``mcts`` and ``az``)
        self.resigner = Resigner(0.0)

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        raise NotImplementedError

    def step(self, state: State, budget: Budget | None = None) -> int:
        """Search from ``state`` and return the chosen action (``last_result`` keeps the rest).
        Raises :class:`Forfeit` when the agent resigns (:mod:`mctslab.agents.resign`)."""
        self.last_result = self.search(state, budget)
        if self.resigner.gives_up(self.last_result, getattr(self.game, "pass_action", None)):
            raise Forfeit(self.resigner.reason())
        return self.last_result.action

    def reset(self) -> None:
        """Forget everything from the current game."""
        self.last_result = None
        self.resigner.reset()

    def close(self) -> None:
        """Release what the agent holds outside Python (an engine process); nothing for most
        agents. A later ``step`` starts afresh."""

    @classmethod
    def prepare(cls, params: pydantic.BaseModel, game: Game | None = None) -> pydantic.BaseModel:
        """The validated keys as the agent uses them in ``game`` (e.g. a preset's keys filled
        in)."""
        return params

    @classmethod
    def stands_for(cls, params: pydantic.BaseModel, game: Game | None = None) -> str | None:
        """The spec string of another agent this one stands for in ``game`` (``best``), which
        :func:`~mctslab.agents.make_agent` makes instead; None for an agent that is itself."""
        return None

    @classmethod
    def canonical(cls, params: pydantic.BaseModel, game: Game | None = None) -> dict[str, Any]:
        """The keys of the canonical spec string in ``game`` (None values are left out)."""
        keys = params.model_dump()
        if "sims" in type(params).model_fields:
            budget = budget_of(params, cls.DEFAULT_SIMS)
            keys["sims"], keys["time"] = budget.sims, budget.seconds
        return keys

    @classmethod
    def describe(cls) -> str:
        """``name: description`` and every key with its type, range and default."""
        return f"{cls.NAME}: {cls.DESCRIPTION}\n    {specstr.describe_fields(cls.Params)}"

    def __repr__(self) -> str:
        return f"make_agent({self.spec_string!r}, {self.game.spec.spec_string!r})"


class RandomAgent(Agent):
    COMPILED = False
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


def budget_of(params: Any, default_sims: int) -> Budget:
    """The budget the keys ``sims`` and ``time`` give, ``default_sims`` when neither is set."""
    if params.sims is None and params.time is None:
        return Budget(sims=default_sims)
    return Budget(sims=params.sims, seconds=params.time)
