"""mctslab: a fast, honest Monte-Carlo Tree Search laboratory.

>>> import mctslab
>>> game = mctslab.load_game("nim(n=5,k=3)")
>>> state = game.new_initial_state()
>>> state.legal_actions()
[0, 1, 2]
"""

from mctslab.kernels import cache

cache.configure()  # before anything imports numba

from mctslab.errors import IllegalMoveError, MctslabError, SpecError  # noqa: E402
from mctslab.games import (  # noqa: E402
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    Game,
    GameSpec,
    State,
    load_game,
    registered_games,
)

__version__ = "0.1.0"

__all__ = [
    "CHANCE_PLAYER",
    "TERMINAL_PLAYER",
    "Game",
    "GameSpec",
    "IllegalMoveError",
    "MctslabError",
    "SpecError",
    "State",
    "__version__",
    "load_game",
    "registered_games",
]
