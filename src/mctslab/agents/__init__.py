"""Agents, made from spec strings such as ``mcts(sims=10000,formula=paper,c=0.4)``.

Every agent has ``spec_string`` (canonical), ``budget`` (the :class:`~mctslab.search.budget.Budget`
its spec gives, or None for agents that do not search), ``search(state, budget=None) ->
SearchResult`` (the game state is not changed; a budget given here replaces the agent's own for
this search), ``step(state, budget=None) -> action`` (search, remember the result in
``last_result``, return the chosen action), and ``reset()`` (forget everything learnt in a game).
"""

from __future__ import annotations

import importlib
import secrets
from collections.abc import Iterator, Mapping
from typing import Any

from mctslab import specstr
from mctslab.agents.az import AzAgent
from mctslab.agents.base import Agent, RandomAgent
from mctslab.agents.best import BestAgent
from mctslab.agents.external import GtpAgent
from mctslab.agents.mcts import PRESETS, FlatAgent, MctsAgent
from mctslab.agents.mdp import MdpAgent
from mctslab.errors import SpecError
from mctslab.games.base import Game
from mctslab.games.registry import registered_games

__all__ = ["PRESETS", "Agent", "describe_agents", "make_agent"]

#: the agents every game can use
_GENERIC: dict[str, type[Agent]] = {
    cls.NAME: cls
    for cls in (RandomAgent, FlatAgent, MctsAgent, MdpAgent, GtpAgent, AzAgent, BestAgent)
}


class _Agents(Mapping[str, type[Agent]]):
    """Name -> agent class: the generic agents, then those the registered games offer (their
    ``AGENTS`` hook, ``"module:Class"`` paths imported here, so that the games layer never
    imports agents), read at each lookup so that a game registered later brings its own."""

    def _all(self) -> dict[str, type[Agent]]:
        out = dict(_GENERIC)
        for game in registered_games().values():
            for path in game.AGENTS:
                module, _, name = path.partition(":")
                cls = getattr(importlib.import_module(module), name)
                if out.setdefault(cls.NAME, cls) is not cls:
                    raise TypeError(f"game {game.NAME!r}: agent {path} reuses the name {cls.NAME}")
        return out

    def __getitem__(self, name: str) -> type[Agent]:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


_AGENTS = _Agents()


def describe_agents() -> str:
    """One paragraph per agent: its name, what it does, and every key with type, range and
    default."""
    return "\n".join(cls.describe() for cls in _AGENTS.values())


def resolve_agent(spec: str, game: Game) -> tuple[type[Agent], Any, str]:
    """The agent class, validated keys and canonical spec string that ``spec`` names for
    ``game``, without building the agent (nothing is compiled or loaded); an agent that stands
    for another (``best``) resolves to that one. Raises :class:`SpecError` naming the allowed
    agents, keys and ranges."""
    name, raw = specstr.parse(spec)
    cls = _AGENTS.get(name.lower())
    if cls is None:
        raise SpecError(f"unknown agent {name!r}; known agents: {', '.join(_AGENTS)}")
    params = cls.prepare(specstr.validate(cls.Params, f"agent {cls.NAME}", raw), game)
    alias = cls.stands_for(params, game)
    if alias is not None:
        return resolve_agent(alias, game)
    canonical = cls.canonical(params, game)
    spec_string = specstr.format_spec(
        cls.NAME, {k: v for k, v in canonical.items() if v is not None}
    )
    return cls, params, spec_string


def make_agent(spec: str, game: Game, seed: int | None = None, threads: int | None = None) -> Agent:
    """Build an agent for ``game`` from a spec string (:func:`resolve_for`, then
    :func:`build`)."""
    return build(*resolve_for(spec, game, threads), game, seed)


def resolve_for(spec: str, game: Game, threads: int | None = None) -> tuple[type[Agent], Any, str]:
    """:func:`resolve_agent` with ``threads``, if given, set as the agent's ``THREADS_KEY``
    (``mcts``: ``workers``, root parallelism) unless the spec gives that key; agents without one
    run on one thread. An agent that stands for another (``best``) resolves to that one, whose
    spec string shows."""
    cls, params, spec_string = resolve_agent(spec, game)
    key = cls.THREADS_KEY
    if threads is not None and key is not None and key not in params.model_fields_set:
        name, given = specstr.parse(spec_string)
        cls, params, spec_string = resolve_agent(
            specstr.format_spec(name, {**given, key: threads}), game
        )
    return cls, params, spec_string


def build(
    cls: type[Agent], params: Any, spec_string: str, game: Game, seed: int | None = None
) -> Agent:
    """The agent :func:`resolve_for` described (this is where its search is compiled or loaded).
    The random seed is the spec's ``seed`` if it has one, else ``seed``, else fresh entropy."""
    if getattr(params, "seed", None) is not None:  # agents without a seed key: gtp
        seed = params.seed
    elif seed is None:
        seed = secrets.randbits(63)
    return cls(spec_string, game, params, seed)
