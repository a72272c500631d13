"""Hex's side of HTP, the dialect of GTP that HexGui speaks (the HexGui/MoHex "Hex Text
Protocol": cells ``a1`` .. with ``a1`` top-left, lowercase column letters including ``i``, rows
counted from the top; ``boardsize N`` or ``boardsize N N``; the swap move is the vertex
``swap-pieces``). The game is played with the swap rule on. Found by the GTP engine
(:mod:`mctslab.interfaces.gtp`) by the game's name; this module imports nothing from the
interfaces.
"""

from __future__ import annotations

from mctslab.games import hex_kernels
from mctslab.games.base import Game, State
from mctslab.games.registry import load_game

#: HTP's vertex for the swap move (the game also reads it: :data:`mctslab.games.hex.SWAP_WORDS`)
SWAP_VERTEX = "swap-pieces"


class HexProtocol:
    """What the HTP engine needs to know about Hex beyond the game contract."""

    name = "hex"
    sizes = range(3, 20)
    extra: tuple[str, ...] = ()
    #: the engine's ``genmove`` reply when the game is already over
    over = "resign"

    def load(self, size: int, komi: float) -> Game:
        return load_game(f"hex(size={size},swap=true)")

    def setup(self, game: Game) -> list[str]:
        """The commands that give an external engine the empty board of ``game``:
        HTP's ``boardsize N N``, ``clear_board``."""
        return [f"boardsize {game.params.size} {game.params.size}", "clear_board"]

    def parse_move(self, game: Game, player: int, text: str) -> int:
        """A cell (``c3``) or ``swap-pieces`` (the game reads both)."""
        return game.string_to_action(player, text)

    def move_text(self, game: Game, player: int, action: int) -> str:
        if action == game.swap_action:
            return SWAP_VERTEX
        return game.action_to_string(player, action)

    def force_to_move(self, game: Game, state: State, player: int) -> None:
        """Make ``player`` the one to move: the game's own ``force_to_move`` when it has one, else
        the kernels' to-move slot (Hex has no other state that depends on who moves)."""
        force = getattr(game, "force_to_move", None)
        if force is not None:
            force(state, player)
        else:
            state.array[hex_kernels.S_TO_MOVE] = player


PROTOCOL = HexProtocol()
