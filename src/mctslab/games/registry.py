"""The registry of games, loaded by spec string: ``load_game("nogo(size=9)")``."""

from __future__ import annotations

import difflib

from mctslab import specstr
from mctslab.errors import SpecError
from mctslab.games.base import Game
from mctslab.games.contract import KERNEL_NAMES

_REGISTRY: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make a :class:`Game` subclass loadable by its ``NAME``.

    Checks that its kernels module defines the whole contract.
    """
    missing = [k for k in (*KERNEL_NAMES, "STATE_DTYPE") if not hasattr(cls.kernels, k)]
    if missing:
        raise TypeError(f"game {cls.NAME!r}: kernels module lacks {', '.join(missing)}")
    _REGISTRY[cls.NAME] = cls
    return cls


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
