"""Games: compiled kernels behind an OpenSpiel-like wrapper, loaded by spec string."""

# Importing a game module registers it.
from mctslab.games import connect_four, g2048, go, hex, nim, nogo  # noqa: F401
from mctslab.games.base import Game, State
from mctslab.games.contract import CHANCE_PLAYER, TERMINAL_PLAYER, GameSpec
from mctslab.games.registry import describe_games, load_game, register, registered_games

__all__ = [
    "CHANCE_PLAYER",
    "TERMINAL_PLAYER",
    "Game",
    "GameSpec",
    "State",
    "describe_games",
    "load_game",
    "register",
    "registered_games",
]
