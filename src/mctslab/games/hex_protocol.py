"""Hex's side of HTP, the dialect of GTP that HexGui speaks (the HexGui/MoHex "Hex Text
Protocol": cells ``a1`` .. with ``a1`` top-left, lowercase column letters including ``i``, rows
counted from the top; ``boardsize N`` or ``boardsize N N``; the swap move is the vertex
``swap-pieces``). The swap rule is a setting, ``param_game allow_swap 0|1`` as in MoHex
(Benzene's ``HexHtpEngine::CmdParamGame``), off by default as there (Benzene's ``Game`` starts
with ``m_allow_swap(false)``). Found by the GTP engine (:mod:`mctslab.interfaces.gtp`) by the
game's name; this module imports nothing from the interfaces.
"""

from __future__ import annotations

from mctslab.errors import IllegalMoveError
from mctslab.games import hex_kernels
from mctslab.games.base import Game, State
from mctslab.games.hex import SWAP_WORDS
from mctslab.games.registry import load_game

#: HTP's vertex for the swap move (one of the game's :data:`~mctslab.games.hex.SWAP_WORDS`)
SWAP_VERTEX = "swap-pieces"


class HexProtocol:
    """What the HTP engine needs to know about Hex beyond the game contract."""

    name = "hex"
    sizes = range(3, 20)
    extra: tuple[str, ...] = ("final_score", "param_game", "all_legal_moves")
    #: the engine's ``genmove`` reply when the game is already over
    over = "resign"
    #: the game settings ``param_game`` shows and sets (MoHex's names), with their defaults
    params: tuple[tuple[str, bool], ...] = (("allow_swap", False),)

    def load(self, size: int, komi: float, allow_swap: bool = False) -> Game:
        return load_game(f"hex(size={size},swap={str(allow_swap).lower()})")

    def setup(self, game: Game) -> list[str]:
        """The commands that give an external engine the empty board of ``game``: HTP's
        ``boardsize N N``, MoHex's ``param_game allow_swap 0|1`` (always: an engine may have
        either default, and one that lacks the command is then refused at the start of a match,
        not forfeited by a swap in mid-game), ``clear_board``."""
        size, swap = game.params.size, int(game.params.swap)
        return [f"boardsize {size} {size}", f"param_game allow_swap {swap}", "clear_board"]

    def parse_move(self, game: Game, player: int, text: str) -> int:
        """A cell (``c3``) or ``swap-pieces`` (the game reads both); the swap only for White and
        only with the swap rule on."""
        if text.lower() in SWAP_WORDS:
            if game.swap_action is None:
                raise IllegalMoveError("the swap rule is off (param_game allow_swap 1 turns it on)")
            if player != 1:
                raise IllegalMoveError("only White may swap, as the second move")
        return game.string_to_action(player, text)

    def move_text(self, game: Game, player: int, action: int) -> str:
        if action == game.swap_action:
            return SWAP_VERTEX
        return game.action_to_string(player, action)

    def force_to_move(self, game: Game, state: State, player: int) -> None:
        """Make ``player`` the one to move: the kernels' to-move slot (Hex has no other state
        that depends on who moves). A colour set by hand ends the swap rule's opening (its move
        counter jumps past the second move): the swap is only White's answer to Black's first
        stone, so it is never offered to Black, nor after White opened (HTP ``play b c1``,
        ``play b swap-pieces`` is an illegal move)."""
        state.array[hex_kernels.S_TO_MOVE] = player
        count = state.array[hex_kernels.S_COUNT]
        state.array[hex_kernels.S_COUNT] = max(count, 2)

    def score(self, game: Game, state: State) -> str:
        """HTP's ``final_score``: ``B+`` or ``W+`` (the winner; Hex has no margin), or, as MoHex
        answers before the game is decided, ``cannot score``."""
        if not state.is_terminal():
            return "cannot score"
        return "B+" if state.returns()[0] > 0 else "W+"


PROTOCOL = HexProtocol()
