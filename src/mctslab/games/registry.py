"""The registry of games, loaded by spec string: ``load_game("nogo(size=9)")``."""

from __future__ import annotations

import difflib

from numba.core import config as numba_config

from mctslab import specstr
from mctslab.errors import SpecError
from mctslab.games.base import Game
from mctslab.games.contract import (
    GAME_HOOKS,
    KERNEL_NAMES,
    OPTIONAL_KERNELS,
    optional_kernel,
    parameters,
    provides,
)

_REGISTRY: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make a :class:`Game` subclass loadable by its ``NAME``.

    Checks that its kernels module defines the whole contract, and that every optional hook it
    declares (:data:`~mctslab.games.contract.OPTIONAL_KERNELS`,
    :data:`~mctslab.games.contract.GAME_HOOKS`) has the contract's shape.
    """
    missing = [k for k in (*KERNEL_NAMES, "STATE_DTYPE") if not hasattr(cls.kernels, k)]
    if missing:
        raise TypeError(f"game {cls.NAME!r}: kernels module lacks {', '.join(missing)}")
    problems = hook_problems(cls)
    if problems:
        raise TypeError(f"game {cls.NAME!r}: " + "; ".join(problems))
    _REGISTRY[cls.NAME] = cls
    return cls


def hook_problems(cls: type[Game]) -> list[str]:
    """What is wrong with the optional hooks a game class declares (empty: nothing)."""
    out = []
    for name, params in OPTIONAL_KERNELS.items():
        fn = optional_kernel(cls.kernels, name)
        if fn is None:
            continue
        if not hasattr(fn, "py_func") and not numba_config.DISABLE_JIT:
            out.append(
                f"kernel {name} is not compiled (@njit); templates call it from compiled code"
            )
        elif parameters(fn) != params:
            out.append(f"kernel {name}{parameters(fn)} should take ({', '.join(params)})")
    for name, params in GAME_HOOKS.items():
        value = getattr(cls, name, None)
        if value is None or params is None:
            continue
        if not callable(value):
            out.append(f"{name} is not a method")
        elif parameters(value) != ("self", *params):
            out.append(f"method {name}{parameters(value)[1:]} should take ({', '.join(params)})")
    if callable(getattr(cls, "observation", None)) != callable(getattr(cls, "symmetries", None)):
        out.append("observation and symmetries (methods) come together")
    if provides(cls, "network_value") != callable(getattr(cls, "load_network", None)):
        out.append("network_value (kernel) and load_network (method) come together")
    table = getattr(cls, "ROLLOUT_POLICIES", None) or {}
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and k.isidentifier() and k != "random" for k in table
    ):
        out.append("ROLLOUT_POLICIES maps names (identifiers other than 'random') to ids")
    elif not all(type(v) is int and v >= 1 for v in table.values()) or len(
        set(table.values())
    ) != len(table):
        out.append("ROLLOUT_POLICIES ids are distinct integers >= 1 (0 is 'random')")
    if bool(table) != provides(cls, "policy_playout"):
        out.append("a non-empty ROLLOUT_POLICIES and the kernel policy_playout come together")
    agents = getattr(cls, "AGENTS", ())
    if not isinstance(agents, tuple) or not all(
        isinstance(a, str) and a.count(":") == 1 and all(a.split(":")) for a in agents
    ):
        out.append("AGENTS is a tuple of 'module:Class' paths")
    return out


def registered_games() -> dict[str, type[Game]]:
    """Name -> game class, in registration order."""
    return dict(_REGISTRY)


def describe_games() -> str:
    """``name(params...)`` for every registered game, one per line."""
    return "\n".join(
        f"{name}: {specstr.describe_fields(cls.Params)}" for name, cls in _REGISTRY.items()
    )


def load_game(spec: str) -> Game:
    """Load a game from a spec string such as ``nogo(size=9)`` or ``hex(size=11,swap=true)``.

    Raises :class:`SpecError` naming the allowed games, keys and ranges.
    """
    name, raw = specstr.parse(spec)
    cls = _REGISTRY.get(name.lower())
    if cls is None:
        close = difflib.get_close_matches(name.lower(), list(_REGISTRY), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise SpecError(f"unknown game {name!r}{hint}; known games: {', '.join(_REGISTRY)}")
    params = specstr.validate(cls.Params, f"game {cls.NAME}", raw)
    return cls(params)
