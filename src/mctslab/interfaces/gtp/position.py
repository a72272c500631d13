"""The GTP commands that set up, query and score the position (Farnebäck, "GTP — Go Text
Protocol, version 2.0", draft 2, 2002, sections 4.1 and 6.3, and the extensions GoGui, KGS and
Leela Zero send):

- ``loadsgf file [move_number]`` (every game with SGF: Go, NoGo, Hex): the file's board size, komi,
  set-up stones and moves up to the position before ``move_number``; nothing changes when the
  file cannot be read or played. ``printsgf [file]``: the game as SGF (set-up stones as
  ``AB``/``AW``; a finished Go game's ``RE`` is ``final_score``'s), written to ``file`` or
  returned.
- Go: ``fixed_handicap N`` (the layout of section 4.1.1, :func:`mctslab.games.stones.
  handicap_points`), ``place_free_handicap N`` (the same points: the engine's choice),
  ``set_free_handicap v1 v2 ...``: Black's stones on an empty board as set-up stones, White to
  move. ``final_status_list alive|dead|seki``: one group a line, by playout ownership
  (:mod:`mctslab.games.go_ownership`), which ``final_score`` shares.
- ``is_legal colour vertex`` (1 or 0), ``get_komi``, ``query_boardsize``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mctslab.errors import IllegalMoveError
from mctslab.games import go_ownership
from mctslab.games.stones import handicap_points, max_fixed_handicap
from mctslab.harness.sgf import read_sgf_file, write_sgf
from mctslab.interfaces.gtp.protocol import Colour, GtpError


class PositionCommands:
    """The commands of the module doc, mixed into the engine
    (:class:`~mctslab.interfaces.gtp.engine.Engine` keeps ``adapter``, ``pos`` (its ``setup``
    stones and ``moves``), ``state``, ``size``, ``komi``, ``_rebuild_game`` and ``_replay``)."""

    # -- SGF ---------------------------------------------------------------------------------
    def cmd_loadsgf(self, filename: str, *move_number: int):
        if len(move_number) > 1:
            raise GtpError("loadsgf takes a file name and an optional move number")
        sgf = read_sgf_file(filename)
        if self.adapter.name != sgf.game.NAME:
            raise GtpError(f"{filename} holds a {sgf.game.NAME} game, this engine plays "
                           f"{self.adapter.name}")  # fmt: skip
        size = sgf.game.params.size
        if size not in self.adapter.sizes:
            raise GtpError(f"{filename}: board size {size} is not one of {self._size_range()}")
        last = len(sgf.moves) if not move_number else max(0, move_number[0] - 1)
        saved = (self.size, self.komi, self.pos, self.state, self._pending, dict(self.params))
        self.size = size
        if self.adapter.name == "go":
            self.komi = sgf.game.params.komi
        if "allow_swap" in self.params and any(a == sgf.game.swap_action for _, a in sgf.moves):
            self.params["allow_swap"] = True  # Hex: a game with a swap was played with the rule
        self._rebuild_game(clear=True)
        self.pos.setup = sgf.setup
        self.pos.moves = list(sgf.moves[:last])
        try:
            self._replay()
        except IllegalMoveError as exc:
            self.size, self.komi, self.pos, self.state, self._pending, self.params = saved
            raise GtpError(f"{filename}: {exc}") from None

    def cmd_printsgf(self, *filename: str):
        if len(filename) > 1:
            raise GtpError("printsgf takes an optional file name")
        # a finished Go game's RE is final_score's, dead stones removed (the rules' would count
        # them); others the rules' result
        over = self.adapter.name == "go" and self.state.is_terminal()
        result = self.cmd_final_score() if over else None
        text = write_sgf(self.pos.game, self.pos.moves, setup=self.pos.setup, result=result)
        if not filename:
            return "\n" + text
        try:
            Path(filename[0]).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise GtpError(f"cannot write {filename[0]}: {exc.strerror}") from None

    # -- handicap ----------------------------------------------------------------------------
    def _place_handicap(self, points: list[int]) -> str:
        if self.pos.moves or self.pos.setup is not None:
            raise GtpError("board not empty")
        colours = np.zeros(self.size * self.size, dtype=np.int32)
        colours[points] = 1
        self.pos.setup = (colours, 1)
        self._replay()
        game = self.pos.game
        return " ".join(self.adapter.move_text(game, 0, a) for a in points)

    def cmd_fixed_handicap(self, stones: int):
        try:
            return self._place_handicap(handicap_points(self.size, stones))
        except IllegalMoveError as exc:
            raise GtpError(str(exc)) from None

    def cmd_place_free_handicap(self, stones: int):
        """The engine's own placement: the fixed layout (GTP allows any)."""
        most = max_fixed_handicap(self.size)
        if not 2 <= stones <= most:
            raise GtpError(f"invalid number of handicap stones {stones}: this engine places "
                           f"2..{most} on {self.size}x{self.size}")  # fmt: skip
        return self.cmd_fixed_handicap(stones)

    def cmd_set_free_handicap(self, *vertices: str):
        game = self.pos.game
        points = []
        for v in vertices:
            try:
                a = self.adapter.parse_move(game, 0, v)
            except IllegalMoveError as exc:
                raise GtpError(str(exc)) from None
            if a >= self.size * self.size or a in points:
                raise GtpError(f"bad handicap vertex {v}: a pass or a repeated point")
            points.append(a)
        if not 2 <= len(points) < self.size * self.size:
            most = self.size * self.size - 1
            raise GtpError(f"bad handicap: 2..{most} stones, got {len(points)}")
        self._place_handicap(points)

    # -- queries -----------------------------------------------------------------------------
    def cmd_is_legal(self, colour: Colour, vertex: str):
        try:
            action = self.adapter.parse_move(self.pos.game, colour, vertex)
        except IllegalMoveError as exc:
            raise GtpError(str(exc)) from None
        state = self.state.clone()
        if state.is_terminal():
            return "0"
        if state.current_player() != colour:
            self.adapter.force_to_move(self.pos.game, state, colour)
        return "1" if action in state.legal_actions() else "0"

    def cmd_get_komi(self):
        return f"{self.komi:g}"

    def cmd_query_boardsize(self):
        return str(self.size)

    # -- scoring -----------------------------------------------------------------------------
    def cmd_final_status_list(self, status: str):
        status = status.lower()
        if status not in go_ownership.STATUSES:
            raise GtpError(f"invalid status {status!r}: expected alive, dead or seki")
        game = self.pos.game
        lines = [
            " ".join(self.adapter.move_text(game, 0, a) for a in g.points)
            for g in go_ownership.groups(game, self.state)
            if g.status == status
        ]
        return "\n".join(lines)
