"""NoGo's side of GTP (the protocol of the NoGo tournaments, which use GTP v2 as for Go:
Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2, 2002): the game a ``boardsize``
stands for (``komi`` is accepted and ignored), vertices as for Go without ``pass``, and making
either colour the one to move. Found by the GTP engine (:mod:`mctslab.interfaces.gtp`) by the
game's name; this module imports nothing from the interfaces.
"""

from __future__ import annotations

import numpy as np

from mctslab.games import nogo_kernels
from mctslab.games.base import Game, State
from mctslab.games.registry import load_game


class NoGoProtocol:
    """What the GTP engine needs to know about NoGo beyond the game contract."""

    name = "nogo"
    #: every size the game takes (3 and 4 are solved: first player wins 3x3, second 4x4)
    sizes = range(3, 20)
    #: ``komi`` is a required GTP command; NoGo ignores the value
    extra: tuple[str, ...] = ("komi",)
    #: the engine's ``genmove`` reply when the game is already over (no legal move)
    over = "resign"
    #: game settings the protocol sets (Hex's ``param_game``): none
    params: tuple[tuple[str, bool], ...] = ()

    def load(self, size: int, komi: float) -> Game:
        return load_game(f"nogo(size={size})")

    def setup(self, game: Game) -> list[str]:
        """The commands that give an external engine the empty board of ``game``:
        ``boardsize N``, ``clear_board`` (no komi)."""
        return [f"boardsize {game.params.size}", "clear_board"]

    def parse_move(self, game: Game, player: int, text: str) -> int:
        return game.string_to_action(player, text)

    def move_text(self, game: Game, player: int, action: int) -> str:
        return game.action_to_string(player, action)

    def force_to_move(self, game: Game, state: State, player: int) -> None:
        """Make ``player`` the one to move: the same stones (the game's ``board``) set up afresh
        with ``player`` to move, through the kernels' position set-up (which also works out
        whether that player has a legal move), as the game's ``state_from_ascii`` does."""
        colours = game.board(state.array).reshape(-1).astype(np.int32)
        nogo_kernels.setup_position(game.consts, state.array, colours, player)


PROTOCOL = NoGoProtocol()
