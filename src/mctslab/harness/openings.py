"""Openings for matches: start positions given as move sequences, each played twice with colours
swapped (the way cutechess-cli's ``-openings ... -repeat`` and Hex engine tests balance a game
whose first move decides it).

An openings file has one opening per line: moves in the game's notation separated by spaces
(Hex ``c3 d4``, Go and NoGo ``E5 D4``, Nim ``2 3``); ``#`` starts a comment, blank lines are
skipped. Every line is parsed and played through the rules before any game starts
(:meth:`OpeningBook.actions`), so a bad move is an :class:`OpeningError` naming the file, the
line, the move and why (unknown notation, or illegal in that position). Games with chance events
take no openings.

In a match, games ``2k`` and ``2k+1`` start from opening ``k mod len(openings)`` (the same
position, A and B on opposite sides): :func:`opening_for`.

Built-in sets (:data:`BUILTIN`, files in ``opening_sets/``) are addressed by name:

- ``hex7-balanced``, ``hex8-balanced`` and ``hex11-balanced`` (no swap): chosen, not solved (the
  project's exhaustive solver, :mod:`mctslab.search.solve_template`, solves every 4x4 first move at
  once but gave none for 5x5's in a run of about an hour, let alone these sizes). The edge
  cells, which Hex lore holds to be weak-but-not-hopeless first moves (the moves players open
  with under the swap rule), one per half-turn pair, without the acute corners ``a1`` and its
  image, which lose for the first player on every board from 2x2 up (:mod:`mctslab.games.hex`).
- ``nogo7-first-moves`` and ``nogo9-first-moves`` (``nogo(size=7)``, ``nogo(size=9)``): every
  first move up to the board's eight symmetries (the 10 and 15 points of one eighth of the
  board), a generic set for variety, not for balance.
- ``connect4-three-moves`` (``connect_four``): every three-move opening up to the mirror image
  (172), in a fixed shuffled order so that a match's first openings vary; it gives matches
  between deterministic agents (``az`` at fixed simulations) distinct games, not balance.
- ``hex7-two-moves`` (1,176, up to the half-turn) and ``nogo7-two-moves`` (315, up to the eight
  symmetries): every two-move opening, shuffled the same way and for the same purpose; the
  first-move sets above (11 and 10 openings) give deterministic agents at most 22 and 20
  distinct games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mctslab.errors import MctslabError
from mctslab.games.base import Game

#: built-in opening sets: name -> (the game spec they are for, what they are)
BUILTIN: dict[str, tuple[str, str]] = {
    "hex7-balanced": ("hex(size=7)", "Hex 7x7 edge first moves (not the acute corners)"),
    "hex8-balanced": ("hex(size=8)", "Hex 8x8 edge first moves (not the acute corners)"),
    "hex11-balanced": ("hex(size=11)", "Hex 11x11 edge first moves (not the acute corners)"),
    "nogo7-first-moves": ("nogo(size=7)", "NoGo 7x7: every first move up to symmetry"),
    "nogo9-first-moves": ("nogo(size=9)", "NoGo 9x9: every first move up to symmetry"),
    "connect4-three-moves": (
        "connect_four",
        "Connect Four: every three-move opening up to the mirror (172), shuffled",
    ),
    "hex7-two-moves": (
        "hex(size=7)",
        "Hex 7x7: every two-move opening up to the half-turn (1,176), shuffled",
    ),
    "nogo7-two-moves": (
        "nogo(size=7)",
        "NoGo 7x7: every two-move opening up to the eight symmetries (315), shuffled",
    ),
}


class OpeningError(MctslabError):
    """An openings file or set that cannot be used (missing, empty, or with a bad move)."""


@dataclass(frozen=True)
class OpeningBook:
    """Openings as read: their source (a file or a built-in name), and ``(line number, moves)``
    per opening."""

    source: str
    lines: tuple[tuple[int, tuple[str, ...]], ...]
    #: the game spec of a built-in set ("" for a file)
    game: str = ""

    def actions(self, game: Game) -> list[tuple[int, ...]]:
        """Each opening as actions of ``game``, checked by playing it from the initial state;
        raises :class:`OpeningError` at the first bad move."""
        if self.game:
            from mctslab.harness.game import _load

            meant = _load(self.game).spec.spec_string
            if meant != game.spec.spec_string:
                raise OpeningError(
                    f"openings {self.source} are for {meant}, not {game.spec.spec_string}"
                )
        if game.spec.num_chance_outcomes:
            raise OpeningError(
                f"openings {self.source}: {game.spec.spec_string} has chance events; openings "
                "are for games without them"
            )
        out = []
        for number, moves in self.lines:
            state = game.new_initial_state()
            actions = []
            for i, text in enumerate(moves, 1):
                where = f"{self.source} line {number}: move {i} {text!r}"
                if state.is_terminal():
                    raise OpeningError(f"{where}: the game is already over")
                try:
                    action = state.string_to_action(text)
                except MctslabError as exc:
                    raise OpeningError(f"{where}: unknown move ({exc})") from None
                if action not in state.legal_actions():
                    raise OpeningError(f"{where}: illegal in this position")
                state.apply_action(action)
                actions.append(action)
            if state.is_terminal():
                raise OpeningError(f"{self.source} line {number}: the opening ends the game")
            out.append(tuple(actions))
        return out

    def key(self, game: Game) -> str:
        """The openings' identity in a run (a JSON list of move lists in the game's own
        notation), so the same openings from another file, or spelled in another case, match."""
        texts = []
        for actions in self.actions(game):
            state = game.new_initial_state()
            line = []
            for a in actions:
                line.append(state.action_to_string(a))
                state.apply_action(a)
            texts.append(line)
        return json.dumps(texts)


def parse(text: str, source: str, game: str = "") -> OpeningBook:
    """An :class:`OpeningBook` from the text of an openings file (named ``source`` in errors)."""
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        moves = tuple(raw.split("#", 1)[0].split())
        if moves:
            lines.append((number, moves))
    if not lines:
        raise OpeningError(f"openings {source} hold no opening (one move sequence per line)")
    return OpeningBook(source, tuple(lines), game)


def load(name_or_path: str) -> OpeningBook:
    """A built-in set by name (:data:`BUILTIN`) or an openings file."""
    if name_or_path in BUILTIN:
        path = resources.files("mctslab.harness").joinpath("opening_sets", f"{name_or_path}.txt")
        return parse(path.read_text(), name_or_path, BUILTIN[name_or_path][0])
    path = Path(name_or_path)
    if not path.is_file():
        raise OpeningError(
            f"--openings {name_or_path!r}: no such file, and not a built-in set "
            f"(built-in: {', '.join(BUILTIN)})"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OpeningError(f"openings file {path} cannot be read: {exc}") from None
    return parse(text, str(path))


def for_run(openings: OpeningBook | str | None, games: list[str]) -> tuple[list, str]:
    """A run's openings (a book, a built-in name or a file; None for none) on its canonical game
    specs: the openings as actions and their identity (:meth:`OpeningBook.key`, ``""`` for
    none). Openings need a run on one game spec (their notation depends on the game)."""
    if openings is None:
        return [], ""
    book = load(openings) if isinstance(openings, str) else openings
    if len(games) != 1:
        raise OpeningError(
            f"openings {book.source} need a match on one game spec, not {len(games)} "
            f"({', '.join(games)})"
        )
    from mctslab.harness.game import _load

    game = _load(games[0])
    return book.actions(game), book.key(game)


def opening_for(openings: list[tuple[int, ...]], game_index: int) -> tuple[int, ...]:
    """The opening of game ``game_index``: games ``2k`` and ``2k+1`` share opening ``k``, and
    the openings cycle; no openings give the empty opening."""
    if not openings:
        return ()
    return openings[(game_index // 2) % len(openings)]


def builtin_for(game: Game) -> str | None:
    """The first built-in set made for ``game`` (compared by canonical spec string), or None."""
    from mctslab.harness.game import _load

    want = game.spec.spec_string
    names = (n for n, (spec, _) in BUILTIN.items() if _load(spec).spec.spec_string == want)
    return next(names, None)


def describe_builtin() -> str:
    """The built-in sets, for ``--help``: name, game and what they are."""
    return "; ".join(f"{name}: {what}" for name, (_, what) in BUILTIN.items())
