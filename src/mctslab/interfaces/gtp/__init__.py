"""GTP v2 (Go, NoGo) and HTP (Hex) over any mctslab agent: the engine (:mod:`.engine`), the
line protocol (:mod:`.protocol`), time control (:mod:`.clock`) and the Hex dialect (:mod:`.htp`).
Each game's protocol adapter lives next to the game, ``mctslab/games/<game>_protocol.py``."""

from mctslab.games.protocols import GAMES, protocol_for
from mctslab.interfaces.gtp.clock import CLOSE_RATIO, Clock, timed_search
from mctslab.interfaces.gtp.engine import (
    DEFAULT_AGENT,
    DEFAULT_RESIGN,
    GAME_SPECIFIC,
    Engine,
)
from mctslab.interfaces.gtp.protocol import Colour, GtpError, parse_command, preprocess

__all__ = [
    "CLOSE_RATIO",
    "DEFAULT_AGENT",
    "DEFAULT_RESIGN",
    "GAMES",
    "GAME_SPECIFIC",
    "Clock",
    "Colour",
    "Engine",
    "GtpError",
    "parse_command",
    "preprocess",
    "protocol_for",
    "timed_search",
]
