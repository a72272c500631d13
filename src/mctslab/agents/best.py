"""``best(time=T)``: the strongest agent measured for each game, at T seconds a move.

``best`` is not a search of its own: :func:`mctslab.agents.make_agent` makes the agent it stands
for, and that agent's canonical spec string is what shows (in matches, the database, GTP's
``name``/``version`` and the web page), so every key it sets is visible. The rule, each step
decided by matches at equal time per move (``docs/strength.md``, "The default agent"):

1. a game a shipped AlphaZero network plays (``mctslab models``: Connect Four, NoGo 7x7,
   Hex 7x7) gets ``az(time=T)`` with that network and its card's play keys, unless T is above
   the card's ``best_up_to_seconds`` (the longest move at which the network was measured
   stronger; NoGo 7x7: 1, the default time, where it scored 69 of 100);
2. every other game gets its ``BEST_AGENT`` hook with ``time=T`` added: ``mcts(preset=strong)``
   unless the game says otherwise (2048: ``mdp(d=2,c=200,leaf=network,sims=1000)``, the book's
   MDP MCTS with the n-tuple network's value at the leaves, at the 1,000 simulations it was
   measured with, about 1.5 ms a move, or T, whichever ends first).

Only a time budget is offered (2048's simulations are the measured agent's, capped by T): a
simulation of one of these agents costs tens of times another's, so equal simulations would not
be a fair share between them. Without PyTorch (the ``az`` extra) rule 1 falls back to rule 2.
"""

from __future__ import annotations

import importlib.util

import pydantic
from pydantic import Field

from mctslab import models, specstr
from mctslab.agents.base import STRICT, Agent
from mctslab.games.base import Game
from mctslab.search.budget import MAX_SECONDS

#: the time per move of ``best`` without ``time=``, in seconds
DEFAULT_SECONDS = 1.0


class BestParams(pydantic.BaseModel):
    model_config = STRICT
    time: float = Field(DEFAULT_SECONDS, gt=0, le=int(MAX_SECONDS), description="seconds per move")
    seed: int | None = Field(None, ge=0, description="random seed")


class BestAgent(Agent):
    """Stands for the strongest agent of the game (the module's rule); never made itself."""

    NAME = "best"
    DESCRIPTION = (
        "the strongest agent measured for the game, at time= seconds a move: az with the shipped "
        "network where one plays the game (mctslab models), mdp with the n-tuple network on "
        "2048, else mcts(preset=strong)"
    )
    Params = BestParams

    @classmethod
    def stands_for(cls, params: pydantic.BaseModel, game: Game | None = None) -> str | None:
        """The spec string of the agent ``best`` stands for in ``game``."""
        assert game is not None, "best is resolved for a game"
        keys = {"time": params.time, "seed": params.seed}
        base = "az()" if _az_plays(game, params.time) else game.BEST_AGENT
        name, given = specstr.parse(base)
        return specstr.format_spec(
            name, {**given, **{k: v for k, v in keys.items() if v is not None}}
        )


def _az_plays(game: Game, seconds: float) -> bool:
    """Whether a shipped network plays ``game`` at ``seconds`` a move (its card's
    ``best_up_to_seconds``, if any, not below them) and PyTorch is there to run it."""
    model = models.shipped(game.spec.spec_string)
    return (
        model is not None
        and seconds <= model.card.get("best_up_to_seconds", float("inf"))
        and importlib.util.find_spec("torch") is not None
    )
