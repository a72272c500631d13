"""SGF (Smart Game Format, FF[4]: https://www.red-bean.com/sgf/) for Go, NoGo and Hex.

* Go: ``GM[1]``, ``SZ``, ``KM``, ``RU[Tromp-Taylor]`` (area scoring, positional superko); moves
  ``B[dd]`` with SGF points (column then row, ``a`` = left / top), a pass ``B[]`` (``[tt]`` is
  read as a pass on boards up to 19x19, as FF[3] wrote it).
* NoGo: ``GM[1]`` with ``RU[NoGo]`` (how NoGo tournaments record it), Go points, no passes.
* Hex: ``GM[11]``, moves as HexGui writes them: HTP cells ``B[a1]`` (column letter, row number
  from the top) and ``W[swap-pieces]`` for the swap; the game is read with the swap rule on.
* Set-up (Go and NoGo): ``AB``/``AW``/``AE`` (stones added, point lists and ``aa:cc`` rectangles
  as FF[4] writes them) in the nodes before the first move, and ``PL`` for the player to move
  (White when ``HA`` is given without ``PL``, as in a handicap game); the moves are played from
  that position (:func:`mctslab.games.stones.setup_state`). Set-up after a move is refused.

Parsing is sgfmill's (``sgf_grammar``, pinned); the main line (first variation) is read, and
every move is replayed through the rules, so a file with an illegal move, a bad point, an unknown
``GM``/``RU`` or a size out of range is refused with :class:`SgfError` naming the problem and the
move number. :func:`write_sgf` is what the arena calls to save a game.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sgfmill import sgf_grammar

from mctslab.errors import IllegalMoveError, MctslabError, SpecError
from mctslab.games import coords
from mctslab.games.base import Game, State
from mctslab.games.registry import load_game
from mctslab.games.stones import BOARD_GAMES, setup_state

_COLOURS = ("B", "W")
_SGF_LETTERS = "abcdefghijklmnopqrs"


class SgfError(MctslabError):
    """A malformed or unsupported SGF file (the message says what and where)."""


#: set-up stones: the colour of every point (0 empty, 1 Black, 2 White) and the player to move
Setup = tuple[np.ndarray, int]


@dataclass
class SgfGame:
    """A game read from SGF: the game, its moves as ``(player, action)``, root properties, and
    the set-up stones (colour per action, 0 empty, 1 Black, 2 White) with the player to move
    before the first move, when the file has any."""

    game: Game
    moves: list[tuple[int, int]]
    properties: dict[str, str] = field(default_factory=dict)
    setup: Setup | None = None

    def start(self) -> State:
        """The position before the first move."""
        return start_state(self.game, self.setup)

    def replay(self) -> State:
        """The final state."""
        return _replay(self.game, self.moves, self.setup)


def start_state(game: Game, setup: Setup | None) -> State:
    """The game's initial state, or the position of ``setup`` (raises :class:`SgfError`)."""
    if setup is None:
        return game.new_initial_state()
    try:
        return setup_state(game, setup[0], setup[1])
    except IllegalMoveError as exc:
        raise SgfError(f"set-up: {exc}") from None


def _replay(game: Game, moves: Iterable[tuple[int, int]], setup: Setup | None = None) -> State:
    state = start_state(game, setup)
    for i, (player, action) in enumerate(moves, 1):
        if state.is_terminal():
            raise SgfError(f"move {i}: the game is already over")
        if state.current_player() != player:
            raise SgfError(
                f"move {i}: {_COLOURS[player]} plays out of turn "
                f"({_COLOURS[state.current_player()]} is to move)"
            )
        try:
            state.apply_action(action)
        except IllegalMoveError as exc:
            raise SgfError(f"move {i}: {exc}") from None
    return state


#: the games SGF records (the others have no SGF notation)
SGF_GAMES = ("go", "nogo", "hex")


def _kind(game: Game) -> str:
    if game.NAME not in SGF_GAMES:
        raise SgfError(f"SGF is written for go, nogo and hex, not {game.NAME}")
    return game.NAME


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def move_value(game: Game, action: int) -> str:
    """The SGF value of a move."""
    size = game.params.size
    if _kind(game) == "hex":
        return "swap-pieces" if action == game.swap_action else coords.hex_to_string(action, size)
    if action == size * size:
        return ""  # a Go pass
    row, col = divmod(action, size)
    return _SGF_LETTERS[col] + _SGF_LETTERS[row]


def parse_move_value(game: Game, value: str) -> int:
    """The action of an SGF move value (raises :class:`SgfError`)."""
    size = game.params.size
    if _kind(game) == "hex":
        if value.strip().lower() in ("swap-pieces", "swap"):
            return size * size
        try:
            return coords.hex_from_string(value, size)
        except IllegalMoveError as exc:
            raise SgfError(str(exc)) from None
    if value == "" or (value == "tt" and size <= 19):
        if game.NAME == "nogo":
            raise SgfError("NoGo has no pass")
        return size * size
    if len(value) != 2 or any(ch not in _SGF_LETTERS[:size] for ch in value):
        raise SgfError(f"bad point [{value}]: expected two letters a..{_SGF_LETTERS[size - 1]}")
    return _SGF_LETTERS.index(value[1]) * size + _SGF_LETTERS.index(value[0])


def write_sgf(
    game: Game,
    moves: Sequence[int] | Sequence[tuple[int, int]],
    *,
    black: str = "",
    white: str = "",
    result: str | None = None,
    date: str | None = None,
    event: str = "",
    comment: str = "",
    setup: Setup | None = None,
) -> str:
    """The SGF text of a game from its initial position, or from the position of ``setup``
    (Go, NoGo: written as ``AB``/``AW`` and ``PL`` in the root).

    ``moves`` are actions (players alternate as the rules say; ``state.history`` fits) or
    ``(player, action)`` pairs. The moves are replayed (an illegal one raises
    :class:`SgfError`). ``result`` defaults to the rules' result at the end (``B+R``-style
    results of a resignation must be passed in); ``date`` to today.
    """
    kind = _kind(game)
    state = start_state(game, setup)
    pairs: list[tuple[int, int]] = []
    for m in moves:
        if isinstance(m, tuple):
            pairs.append((int(m[0]), int(m[1])))
        else:
            pairs.append((state.current_player(), int(m)))
            if state.current_player() >= 0:
                try:
                    state.apply_action(int(m))
                except IllegalMoveError as exc:
                    raise SgfError(f"move {len(pairs)}: {exc}") from None
    final = _replay(game, pairs, setup)
    size = game.params.size
    props = [("FF", "4"), ("CA", "UTF-8"), ("AP", "mctslab")]
    if kind == "hex":
        props += [("GM", "11"), ("SZ", str(size))]
    else:
        props += [("GM", "1"), ("SZ", str(size))]
        props.append(("RU", "NoGo") if kind == "nogo" else ("RU", "Tromp-Taylor"))
        if kind == "go":
            props.append(("KM", f"{game.params.komi:g}"))
    if result is None and final.is_terminal():
        result = _result(game, final)
    for key, value in (("PB", black), ("PW", white), ("RE", result or ""), ("EV", event)):
        if value:
            props.append((key, value))
    props.append(("DT", date or datetime.date.today().isoformat()))
    if comment:
        props.append(("C", comment))
    root = ";" + "".join(f"{k}[{_escape(v)}]" for k, v in props)
    if setup is not None:
        colours = np.asarray(setup[0]).reshape(-1)
        for key, colour in (("AB", 1), ("AW", 2)):
            points = [move_value(game, int(a)) for a in np.flatnonzero(colours == colour)]
            if points:
                root += key + "".join(f"[{p}]" for p in points)
        root += f"PL[{_COLOURS[setup[1]]}]"
    body = "".join(f";{_COLOURS[p]}[{move_value(game, a)}]" for p, a in pairs)
    return f"({root}\n{body})\n" if body else f"({root})\n"


def _result(game: Game, state: State) -> str:
    """SGF ``RE`` of a finished game: ``B+3.5`` for Go (area score), ``B+``/``W+`` otherwise,
    ``0`` for a draw."""
    r = state.returns()
    if r[0] == r[1]:
        return "0"
    winner = "B" if r[0] > r[1] else "W"
    if game.NAME == "go":
        return f"{winner}+{abs(game.score(state.array)):g}"
    return f"{winner}+"


def read_sgf(text: str | bytes) -> SgfGame:
    """Read the main line of an SGF game (see the module doc); raises :class:`SgfError`."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        tree = sgf_grammar.parse_sgf_game(data)
    except ValueError as exc:
        raise SgfError(f"malformed SGF: {exc}") from None
    nodes = list(sgf_grammar.main_sequence_iter(tree))
    root = {k: _text(v[0]) for k, v in nodes[0].items() if v}
    gm = root.get("GM", "1")
    ru = root.get("RU", "")
    try:
        size = int(root.get("SZ", "19"))
    except ValueError:
        raise SgfError(f"bad SZ[{root.get('SZ')}]: expected a board size") from None
    try:
        if gm == "11":
            game = load_game(f"hex(size={size},swap=true)")
        elif gm == "1" and ru.lower() == "nogo":
            game = load_game(f"nogo(size={size})")
        elif gm == "1":
            komi = root.get("KM", "7.5")
            try:
                komi_value = float(komi)
            except ValueError:
                raise SgfError(f"bad KM[{komi}]: expected a number") from None
            game = load_game(f"go(size={size},komi={komi_value})")
        else:
            raise SgfError(f"unsupported GM[{gm}]: mctslab reads Go and NoGo (GM[1]), Hex (GM[11])")
    except SpecError as exc:
        raise SgfError(f"unsupported game in SGF: {exc}") from None
    setup = _setup(game, nodes, root)
    moves: list[tuple[int, int]] = []
    for i, node in enumerate(nodes[1:], 1):
        for player, key in enumerate(_COLOURS):
            if key in node:
                value = _text(node[key][0])
                try:
                    action = parse_move_value(game, value)
                except SgfError as exc:
                    raise SgfError(f"node {i}: {key}[{value}]: {exc}") from None
                moves.append((player, action))
    out = SgfGame(game, moves, root, setup)
    out.replay()  # every move must be legal
    return out


_SETUP_KEYS = ("AB", "AW", "AE")


def _setup(game: Game, nodes: list, root: dict[str, str]) -> Setup | None:
    """The set-up of the nodes before the first move (module doc), or None without one."""
    colours = np.zeros(game.params.size**2, dtype=np.int32)
    found = False
    moved = False
    for i, node in enumerate(nodes):
        moved = moved or any(key in node for key in _COLOURS)
        for key in _SETUP_KEYS:
            if key not in node:
                continue
            if game.NAME not in BOARD_GAMES:
                raise SgfError(f"node {i}: set-up property {key} is read for Go and NoGo only")
            if moved:
                raise SgfError(f"node {i}: set-up property {key} after a move is not supported")
            found = True
            for point in _points(game, node[key], f"node {i}: {key}"):
                colours[point] = _SETUP_KEYS.index(key) + 1 if key != "AE" else 0
    if not found:
        return None
    pl = root.get("PL") or ("W" if root.get("HA", "0") not in ("0", "1") else "B")
    if pl.upper() not in _COLOURS:
        raise SgfError(f"bad PL[{pl}]: expected B or W")
    return colours, _COLOURS.index(pl.upper())


def _points(game: Game, values: list[bytes], where: str) -> list[int]:
    """The points of a point list, ``aa:cc`` rectangles (compressed point lists) expanded."""
    size = game.params.size
    out = []
    for raw in values:
        value = _text(raw)
        corners = value.split(":")
        try:
            if len(corners) > 2:
                raise SgfError(f"bad point list [{value}]")
            ends = [parse_move_value(game, c) for c in corners]
        except SgfError as exc:
            raise SgfError(f"{where}[{value}]: {exc}") from None
        if any(e == size * size for e in ends):
            raise SgfError(f"{where}[{value}]: a set-up point cannot be empty")
        (r0, c0), (r1, c1) = divmod(ends[0], size), divmod(ends[-1], size)
        for r in range(min(r0, r1), max(r0, r1) + 1):
            out.extend(r * size + c for c in range(min(c0, c1), max(c0, c1) + 1))
    return out


def read_sgf_file(path: str | Path) -> SgfGame:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SgfError(f"cannot read {p}: {exc.strerror}") from None
    try:
        return read_sgf(data)
    except SgfError as exc:
        raise SgfError(f"{p}: {exc}") from None


def _text(raw: bytes) -> str:
    return sgf_grammar.simpletext_value(raw).decode("utf-8", "replace").strip()
