"""What both sides of GTP share: the engine (:mod:`mctslab.interfaces.gtp`, the games speak it)
and the client (:mod:`mctslab.agents.external`, the games play an external engine through it).

- :func:`protocol_for`: a game's protocol adapter, ``mctslab.games.<game>_protocol.PROTOCOL``,
  found by the game's name;
- :func:`format_reply` and :func:`parse_reply`: the response structure of Farnebäck, "GTP — Go
  Text Protocol, version 2.0", draft 2, 2002 (protocol basics: a command is ``[id] name
  [arguments]``; a response is ``=[id] result`` on success or ``?[id] error_message`` on failure,
  ending with two consecutive newlines, so a result holds no empty line). HTP, Hex's dialect,
  keeps this structure.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from mctslab.errors import SpecError

#: the games with a protocol adapter (``mctslab/games/<game>_protocol.py``)
GAMES = ("go", "nogo", "hex")

_REPLY = re.compile(r"([=?])(\d*)(.*)\Z", re.DOTALL)


def protocol_for(game: str) -> Any:
    """The protocol adapter of ``game`` (``mctslab.games.<game>_protocol.PROTOCOL``)."""
    if game not in GAMES:
        raise SpecError(f"unknown GTP game {game!r}; choose one of {', '.join(GAMES)}")
    return importlib.import_module(f"mctslab.games.{game}_protocol").PROTOCOL


def format_reply(ok: bool, cid: str, text: str) -> str:
    """The response to a command with id ``cid`` ('' for none): ``=cid text`` or ``?cid text``
    (no space before a text that starts on its own line), empty lines removed from the text,
    then the empty line that ends it."""
    sep = "" if text.startswith("\n") else " "
    body = f"{'=' if ok else '?'}{cid}{sep}{text}".rstrip()
    return re.sub(r"\n\s*\n", "\n", body) + "\n\n"


def parse_reply(lines: list[str], cid: str = "") -> tuple[bool, str]:
    """``(ok, text)`` of a response given as its lines (without the empty line that ends it);
    ``cid`` is the id the command was sent with, which the response must repeat if it has one.
    Raises ``ValueError`` naming what is wrong with a response that is not GTP."""
    if not lines:
        raise ValueError("an empty response")
    match = _REPLY.match("\n".join(line.rstrip("\r") for line in lines))
    if match is None:
        raise ValueError(f"a response must start with '=' or '?', got {lines[0][:80]!r}")
    mark, rid, text = match.groups()
    if rid and cid and rid != cid:
        raise ValueError(f"the response has id {rid}, the command had {cid}")
    return mark == "=", text.strip()
