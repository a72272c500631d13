"""Go's side of GTP (Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2, 2002): the game
a ``boardsize``/``komi`` pair stands for, vertices and ``pass`` as the game writes them, and making
either colour the one to move (GTP lets either colour play at any time). Found by the GTP engine
(:mod:`mctslab.interfaces.gtp`) by the game's name; this module imports nothing from the
interfaces.
"""

from __future__ import annotations

from mctslab.games.base import Game, State
from mctslab.games.registry import load_game


class GoProtocol:
    """What the GTP engine needs to know about Go beyond the game contract."""

    name = "go"
    sizes = range(5, 20)
    #: GTP commands only this game answers (the engine's handlers)
    extra: tuple[str, ...] = (
        "komi", "final_score", "kgs-genmove_cleanup", "final_status_list", "fixed_handicap",
        "place_free_handicap", "set_free_handicap", "get_komi",
    )  # fmt: skip
    #: the engine's ``genmove`` reply when the game is already over
    over = "pass"
    #: game settings the protocol sets (Hex's ``param_game``): none
    params: tuple[tuple[str, bool], ...] = ()

    def load(self, size: int, komi: float) -> Game:
        return load_game(f"go(size={size},komi={komi})")

    def setup(self, game: Game) -> list[str]:
        """The commands that give an external engine the empty board of ``game``:
        ``boardsize N``, ``clear_board``, ``komi K``."""
        return [f"boardsize {game.params.size}", "clear_board", f"komi {game.params.komi:g}"]

    def parse_move(self, game: Game, player: int, text: str) -> int:
        """A GTP vertex (``D4``, ``pass``; case-insensitive, no ``I``) as an action."""
        return game.string_to_action(player, text)

    def move_text(self, game: Game, player: int, action: int) -> str:
        return game.action_to_string(player, action)

    def force_to_move(self, game: Game, state: State, player: int) -> None:
        """Make ``player`` the one to move: the game's own
        :meth:`~mctslab.games.go.Go.force_to_move` (which leaves a finished game alone)."""
        game.force_to_move(state, player)


PROTOCOL = GoProtocol()
