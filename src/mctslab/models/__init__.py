"""The trained AlphaZero networks that ship with mctslab (package data), one per game
configuration: ``NAME.pt`` (the network, as ``mctslab train az`` writes ``model.pt``) beside
``NAME.json`` (its model card: the game spec string, the network's shape, training time and
counts, configuration, and the evaluation it passed).

An ``az`` agent without ``net=`` plays the shipped network of its game (:func:`shipped`), so
``mctslab play``, ``mctslab gtp``, the web page and the demo use AlphaZero on a fresh machine
without training. ``mctslab models`` lists them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mctslab.errors import MctslabError


@dataclass(frozen=True)
class ShippedModel:
    """A shipped network: its file, the game it plays and its model card."""

    path: Path
    game: str
    card: dict


def shipped_models(folder: Path | None = None) -> list[ShippedModel]:
    """Every network shipped in ``folder`` (default: this package's); a card without its
    network file, or unreadable, is skipped."""
    out = []
    folder = folder or Path(str(resources.files(__name__)))
    for card_path in sorted(folder.glob("*.json")):
        net = card_path.with_suffix(".pt")
        try:
            card = json.loads(card_path.read_text())
        except (OSError, ValueError):
            continue
        if net.is_file() and isinstance(card, dict) and isinstance(card.get("game"), str):
            out.append(ShippedModel(net, card["game"], card))
    return out


def shipped(game_spec: str) -> ShippedModel | None:
    """The shipped network of the game ``game_spec`` (its canonical spec string), or None."""
    return next((m for m in shipped_models() if m.game == game_spec), None)


def require_network_file(path: str | Path) -> Path:
    """``path`` as a Path, or :class:`MctslabError` naming it when it is not a file (checked when
    an ``az`` spec is validated; ``search.az_net.load_net``, below the agents, checks again)."""
    path = Path(path)
    if not path.is_file():
        raise MctslabError(f"no network file {str(path)!r}: train one with `mctslab train az`")
    return path
