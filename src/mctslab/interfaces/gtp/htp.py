"""HTP, the dialect of GTP that HexGui speaks (the HexGui/MoHex "Hex Text Protocol"), where it
differs from GTP v2 (Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2, 2002).

- ``boardsize N`` or ``boardsize N N`` (:func:`check_square`; the engine plays square boards only);
- cells ``a1`` .. with ``a1`` top-left, lowercase column letters including ``i``, rows counted
  from the top, and the swap move as the vertex ``swap-pieces``: the Hex protocol adapter
  (:mod:`mctslab.games.hex_protocol`);
- the swap rule as a game setting, ``param_game allow_swap 0|1``, and ``param_game`` alone
  listing the settings as ``[bool] allow_swap 0`` (the GoGui parameter format), both as in MoHex
  (Benzene's ``HexHtpEngine::CmdParamGame``); off by default, as there;
- ``all_legal_moves`` (the player to move's, ``swap-pieces`` included when it is legal) and
  ``final_score`` answering ``B+`` or ``W+`` (the adapter's ``score``);
- ``genmove`` answers ``resign`` when the game is over (Hex has no pass).

Everything else (the line protocol, the administrative commands, ``play``, ``genmove``,
``undo``, time control, the gogui analysis commands) is the engine's GTP.
"""

from __future__ import annotations

from mctslab.interfaces.gtp.protocol import GtpError

#: the values ``param_game`` takes for a boolean setting (MoHex reads 0 and 1)
_BOOL = {"0": False, "1": True, "false": False, "true": True}


def check_square(size: int, more: tuple[int, ...]) -> None:
    """``boardsize size [size]``: a second size (HTP) must repeat the first."""
    if any(m != size for m in more) or len(more) > 1:
        raise GtpError("unacceptable size: only square boards")


class HtpCommands:
    """HTP's own commands, mixed into the engine (:class:`~mctslab.interfaces.gtp.engine.Engine`
    keeps ``params``, ``pos``, ``state``, ``adapter`` and ``_rebuild_game``); the engine answers
    them only for the games whose adapter lists them in ``extra``."""

    def cmd_param_game(self, *args: str):
        """No argument: the settings, one ``[bool] name 0|1`` line each; ``name value``: set one.
        The moves played are kept (a game with a swap cannot turn the swap rule off)."""
        if not args:
            return "\n" + "\n".join(f"[bool] {k} {int(v)}" for k, v in self.params.items())
        if len(args) != 2:
            raise GtpError("param_game takes no argument, or a setting's name and value")
        name, value = args[0].lower(), args[1].lower()
        if name not in self.params:
            raise GtpError(f"unknown game setting {args[0]!r}: known are {', '.join(self.params)}")
        if value not in _BOOL:
            raise GtpError(f"param_game {name} {args[1]!r}: expected 0 or 1")
        swap = self.pos.game.swap_action
        if name == "allow_swap" and not _BOOL[value] and any(a == swap for _, a in self.pos.moves):
            raise GtpError("the game has a swap: clear_board or undo it before turning it off")
        self.params[name] = _BOOL[value]
        self._rebuild_game(clear=False)

    def cmd_all_legal_moves(self):
        """The legal moves of the player to move, as HTP vertices (none when the game is over)."""
        state, game = self.state, self.pos.game
        if state.is_terminal():
            return ""
        player = state.current_player()
        return " ".join(self.adapter.move_text(game, player, a) for a in state.legal_actions())
