"""GTP v2 (Go, NoGo) and HTP (Hex) engines over any mctslab agent.

Protocol: the Go Text Protocol, version 2 (Farnebäck, "GTP — Go Text Protocol, version 2.0",
draft 2, 2002; http://www.lysator.liu.se/~gunnar/gtp/). Every input line is pre-processed as its
section 3.1 says (control characters other than tab and newline dropped, ``#`` comments removed,
tabs made spaces, empty lines ignored); a command is ``[id] name [arguments]`` with an optional
non-negative integer ``id`` that the reply repeats: ``=id result`` or ``?id message``, then an
empty line. Replies are flushed at once. No input can crash the engine: malformed lines, unknown
commands, bad arguments, illegal moves and unexpected failures all become ``? message``.

HTP is the dialect HexGui speaks (Hex: cells ``a1`` .. with ``a1`` top-left, lowercase column
letters including ``i``, rows counted from the top; ``boardsize N`` or ``boardsize N N``; the
swap move is the vertex ``swap-pieces``; the game is played with the swap rule on).

Handlers are methods ``cmd_<name>`` (``-`` in a command name becomes ``_``), found by name, and
their arguments are converted from the type hints (``int``, ``float``, ``str``, :data:`Colour`),
the minigo ``gtp_engine`` design.

Time control (:class:`Clock`): ``time_settings main byo_yomi stones`` (Canadian byo-yomi) and
``time_left colour seconds stones``. In main time a move gets ``base = usable / M + share / 2``
and at most ``hard = min(3 base, usable / 4 + share / 2)`` seconds, where ``M = max(20, legal
moves / 2)`` estimates the player's moves left, ``share = byo_yomi / stones`` and ``usable`` is the
time left less a reserve (0.1 s, plus 0.01 s for each move the player may still have to make
by the game's length bound in sudden death, for the work around each search; a search's
minimum, one chunk of 8 simulations, is far below). In a byo-yomi period, ``base`` is the
period's time left (less 0.01 s per stone and
0.1 s) over its stones left and ``hard = 1.5 base``. So the clock never runs out even if every
move took its hard limit (tested). Hard moves get more: while the best and second-best moves are
close (the second has at least :data:`CLOSE_RATIO` of the best's visits, or a better mean), the
search goes on in steps of half the base time until the hard limit.
"""

from __future__ import annotations

import inspect
import re
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any, NewType, get_type_hints

import numpy as np

from mctslab import __version__ as _version
from mctslab.agents import Agent, make_agent
from mctslab.errors import IllegalMoveError, MctslabError, SpecError
from mctslab.games import go_kernels, hex_kernels, nogo_kernels
from mctslab.games.base import Game, State
from mctslab.games.registry import load_game
from mctslab.search import SearchResult
from mctslab.search.budget import Budget

#: a GTP colour argument: ``b``/``black`` -> 0, ``w``/``white`` -> 1
Colour = NewType("Colour", int)
#: extend a search while the second-best move has this share of the best one's visits
CLOSE_RATIO = 0.7
#: seconds reserved per move still to play, for the work around a search (GTP, Python)
MOVE_OVERHEAD = 0.01
#: seconds never planned for
SAFETY = 0.1
#: the fewest moves a player is assumed still to play in main time
MIN_MOVES_LEFT = 20.0
#: the default agent of ``mctslab gtp``
DEFAULT_AGENT = "mcts(sims=20000)"
#: resign when the chosen move's win value is below this (0 never resigns)
DEFAULT_RESIGN = 0.05
#: visits at the root before a resignation is considered
RESIGN_MIN_VISITS = 500
GAMES = ("go", "nogo", "hex")
#: commands that only some games answer (``Adapter.extra``)
GAME_SPECIFIC = ("komi", "final_score", "kgs-genmove_cleanup")

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpError(Exception):
    """A command failed; the message is the GTP error reply."""


def preprocess(line: str) -> str:
    """GTP section 3.1: drop control characters except tab/newline, cut ``#`` comments, tabs
    become spaces; returns the stripped command text ('' to ignore)."""
    line = _CONTROL.sub("", line).split("#", 1)[0].replace("\t", " ")
    return line.strip()


def parse_command(text: str) -> tuple[int | None, str, list[str]]:
    """``[id] name args...`` of a pre-processed non-empty line."""
    words = text.split()
    cid = None
    if words and words[0].isdigit():
        cid = int(words.pop(0))
    if not words:
        raise GtpError("missing command name")
    return cid, words[0].lower(), words[1:]


def _colour(text: str) -> int:
    t = text.lower()
    if t in ("b", "black"):
        return 0
    if t in ("w", "white"):
        return 1
    raise GtpError(f"invalid color {text!r}: expected b, black, w or white")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GtpError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value):
        raise GtpError(f"expected a finite number, got {text!r}")
    return value


_CONVERT = {int: _int, float: _float, str: str, Colour: _colour}


# -- games ------------------------------------------------------------------------------------


class Adapter:
    """What the engine needs to know about one game beyond the contract."""

    name: str
    sizes = range(5, 20)
    #: commands only this game answers
    extra: tuple[str, ...] = ()

    def load(self, size: int, komi: float) -> Game:
        raise NotImplementedError

    def parse_move(self, game: Game, player: int, text: str) -> int:
        return game.string_to_action(player, text)

    def move_text(self, game: Game, player: int, action: int) -> str:
        return game.action_to_string(player, action)

    def force_to_move(self, game: Game, state: State, player: int) -> None:
        """Make ``player`` the one to move (GTP allows either colour to play at any time)."""
        raise NotImplementedError


class GoAdapter(Adapter):
    name = "go"
    extra = ("komi", "final_score", "kgs-genmove_cleanup")

    def load(self, size, komi):
        return load_game(f"go(size={size},komi={komi})")

    def force_to_move(self, game, state, player):
        state.array[go_kernels.S_TO_MOVE] = player


class NoGoAdapter(Adapter):
    name = "nogo"
    extra = ("komi",)  # a required GTP command; NoGo ignores the value

    def load(self, size, komi):
        return load_game(f"nogo(size={size})")

    def force_to_move(self, game, state, player):
        colours = game.board(state.array).reshape(-1).astype(np.int32)
        nogo_kernels.setup_position(game.consts, state.array, colours, player)


class HexAdapter(Adapter):
    name = "hex"
    sizes = range(3, 20)

    def load(self, size, komi):
        return load_game(f"hex(size={size},swap=true)")

    def move_text(self, game, player, action):
        return (
            "swap-pieces" if action == game.swap_action else game.action_to_string(player, action)
        )

    def force_to_move(self, game, state, player):
        state.array[hex_kernels.S_TO_MOVE] = player


ADAPTERS = {a.name: a for a in (GoAdapter(), NoGoAdapter(), HexAdapter())}


# -- time -------------------------------------------------------------------------------------


@dataclass
class Clock:
    """One side's clock under Canadian byo-yomi (``time_settings`` / ``time_left``)."""

    main: float = 0.0
    period: float = 0.0
    stones: int = 0
    #: no ``time_settings`` yet, or GTP's "no time limit" (period > 0, stones = 0)
    unlimited: bool = True
    left: float = 0.0
    stones_left: int = 0  # 0 = still in main time

    def settings(self, main: float, period: float, stones: int) -> None:
        self.main, self.period, self.stones = main, period, stones
        self.unlimited = period > 0 and stones == 0
        self.left, self.stones_left = main, 0
        if main <= 0 and stones > 0:
            self.left, self.stones_left = period, stones

    def budget(self, legal: int, most_left: int) -> tuple[float, float] | None:
        """``(base, hard)`` seconds for the next move, or None without a time limit (formulas in
        the module doc); ``legal`` is the number of legal moves, a proxy for the moves left, and
        ``most_left`` the most moves the player may still have to make (the game's length
        bound)."""
        if self.unlimited:
            return None
        if self.stones_left > 0:  # in byo-yomi: this period's time over its stones
            usable = max(0.0, self.left - MOVE_OVERHEAD * self.stones_left - SAFETY)
            base = usable / self.stones_left
            return base, min(usable, 1.5 * base)
        moves_left = max(MIN_MOVES_LEFT, legal / 2.0)
        share = self.period / self.stones if self.stones > 0 else 0.0
        # sudden death keeps a reserve for the overhead of the moves still to come; with
        # byo-yomi after the main time, the periods are that reserve
        reserve = SAFETY + (MOVE_OVERHEAD * most_left if self.stones == 0 else 0.0)
        usable = max(0.0, self.left - reserve)
        base = usable / moves_left + 0.5 * share
        hard = min(3 * base, usable / 4 + 0.5 * share)
        return base, hard

    def spend(self, seconds: float) -> None:
        """Our own accounting between ``time_left`` messages."""
        if self.unlimited:
            return
        self.left -= seconds
        if self.stones_left > 0:
            self.stones_left -= 1
            if self.stones_left == 0:
                self.left, self.stones_left = self.period, self.stones
        elif self.left <= 0 and self.stones > 0:
            self.left, self.stones_left = self.period, self.stones


# -- the engine ---------------------------------------------------------------------------------


@dataclass
class _Position:
    game: Game
    moves: list[tuple[int, int]] = field(default_factory=list)  # (player, action)


class Engine:
    """A GTP/HTP engine: :meth:`handle` answers one input line; :meth:`serve` runs a session."""

    def __init__(
        self,
        game: str = "go",
        agent: str = DEFAULT_AGENT,
        size: int | None = None,
        komi: float | None = None,
        resign: float = DEFAULT_RESIGN,
        seed: int | None = None,
    ):
        if game not in ADAPTERS:
            raise SpecError(f"unknown GTP game {game!r}; choose one of {', '.join(GAMES)}")
        self.adapter = ADAPTERS[game]
        self.agent_spec = agent
        self.seed = seed
        self.resign = resign
        self.size = size or (11 if game == "hex" else 9)
        if self.size not in self.adapter.sizes:
            raise SpecError(f"size {self.size}: {game} sizes are {self._size_range()}")
        self.komi = 7.5 if komi is None else komi
        self.clocks = [Clock(), Clock()]
        self.done = False
        #: the last search, and the moves of the position it searched
        self.last_result: SearchResult | None = None
        self._analysed: list[tuple[int, int]] = []
        self._new_game(self.adapter.load(self.size, self.komi))
        self.agent: Agent = make_agent(agent, self.pos.game, seed=seed)

    # -- plumbing -------------------------------------------------------------------------
    def _size_range(self) -> str:
        return f"{self.adapter.sizes.start}..{self.adapter.sizes.stop - 1}"

    def _new_game(self, game: Game) -> None:
        self.pos = _Position(game)
        self.state = game.new_initial_state()
        self.last_result = None

    def _replay(self) -> None:
        game = self.pos.game
        state = game.new_initial_state()
        for player, action in self.pos.moves:
            if state.current_player() != player:
                self.adapter.force_to_move(game, state, player)
            state.apply_action(action)
        self.state = state

    def commands(self) -> dict[str, Any]:
        """Command name -> handler: every ``cmd_<name>`` method (``gogui_`` and ``kgs_`` become
        ``gogui-`` and ``kgs-``), less the game-specific commands of other games."""
        found = {}
        for attr in dir(self):
            if not attr.startswith("cmd_"):
                continue
            name = attr[4:]
            for prefix in ("gogui_", "kgs_"):
                if name.startswith(prefix):
                    name = prefix[:-1] + "-" + name[len(prefix) :]
            if name not in GAME_SPECIFIC or name in self.adapter.extra:
                found[name] = getattr(self, attr)
        return dict(sorted(found.items()))

    def handle(self, line: str) -> str | None:
        """The reply to one input line (ending with an empty line), or None for a line GTP says
        to ignore."""
        text = preprocess(line)
        if not text:
            return None
        first = text.split()[0]
        cid = first if first.isdigit() else ""
        try:
            _, name, args = parse_command(text)
            result = self._dispatch(name, args)
            sep = "" if result.startswith("\n") else " "
            body = f"={cid}{sep}{result}".rstrip()
        except (GtpError, MctslabError) as exc:
            body = f"?{cid} {exc}"
        except Exception as exc:  # never crash the engine (the controller would lose the game)
            body = f"?{cid} internal error: {type(exc).__name__}: {exc}"
        body = re.sub(r"\n\s*\n", "\n", body)  # a reply may not contain an empty line
        return body + "\n\n"

    def _dispatch(self, name: str, args: list[str]) -> str:
        method = self.commands().get(name)
        if method is None:
            raise GtpError(f"unknown command {name!r}")
        sig = inspect.signature(method)
        hints = get_type_hints(method)
        values: list[Any] = []
        params = list(sig.parameters.values())
        fixed = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        star = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
        if len(args) < len(fixed) or (star is None and len(args) > len(fixed)):
            want = " ".join(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
            raise GtpError(f"wrong number of arguments: {name} {want}".rstrip())
        for i, arg in enumerate(args):
            p = fixed[i] if i < len(fixed) else star
            values.append(_CONVERT[hints.get(p.name, str)](arg))
        result = method(*values)
        return "" if result is None else str(result)

    def serve(self, inp: IO[str] = sys.stdin, out: IO[str] = sys.stdout) -> None:
        """Answer lines from ``inp`` until ``quit`` or the end of input."""
        for line in inp:
            reply = self.handle(line)
            if reply is not None:
                out.write(reply)
                out.flush()
            if self.done:
                break

    # -- administrative commands ------------------------------------------------------------
    def cmd_protocol_version(self):
        return "2"

    def cmd_name(self):
        return "mctslab"

    def cmd_version(self):
        return f"{_version} {self.agent.spec_string}"

    def cmd_known_command(self, command: str):
        return "true" if command.lower() in self.commands() else "false"

    def cmd_list_commands(self):
        return "\n".join(self.commands())

    def cmd_quit(self):
        self.done = True

    # -- setup ------------------------------------------------------------------------------
    def cmd_boardsize(self, size: int, *more: int):
        if any(m != size for m in more) or len(more) > 1:
            raise GtpError("unacceptable size: only square boards")
        if size not in self.adapter.sizes:
            raise GtpError(f"unacceptable size {size}: {self.adapter.name} sizes are "
                           f"{self._size_range()}")  # fmt: skip
        self.size = size
        self._rebuild_game(clear=True)

    def cmd_clear_board(self):
        self._rebuild_game(clear=True)

    def cmd_komi(self, komi: float):
        if self.adapter.name == "go":
            if abs(komi) > 361 or komi * 2 != round(komi * 2):
                raise GtpError(f"komi {komi}: must be a multiple of 0.5 within -361..361")
            self.komi = komi
            self._rebuild_game(clear=False)

    def _rebuild_game(self, clear: bool) -> None:
        game = self.adapter.load(self.size, self.komi)
        moves = [] if clear else self.pos.moves
        self._new_game(game)
        self.pos.moves = moves
        self._replay()
        if clear or self.agent.game != game:
            self.agent = make_agent(self.agent_spec, game, seed=self.seed)

    # -- moves ------------------------------------------------------------------------------
    def _play(self, player: int, action: int) -> None:
        state = self.state.clone()
        if state.is_terminal():
            raise GtpError("illegal move: the game is over")
        if state.current_player() != player:
            self.adapter.force_to_move(self.pos.game, state, player)
            state.history = []  # the position is no longer the game's own sequence
        if action not in state.legal_actions():
            raise GtpError("illegal move")
        state.apply_action(action)
        self.state = state
        self.pos.moves.append((player, action))

    def cmd_play(self, colour: Colour, vertex: str):
        try:
            action = self.adapter.parse_move(self.pos.game, colour, vertex)
        except IllegalMoveError as exc:
            raise GtpError(f"illegal move: {exc}") from None
        self._play(colour, action)

    def cmd_undo(self):
        if not self.pos.moves:
            raise GtpError("cannot undo")
        self.pos.moves.pop()
        self._replay()

    def cmd_genmove(self, colour: Colour):
        return self._genmove(colour, cleanup=False)

    def cmd_kgs_genmove_cleanup(self, colour: Colour):
        return self._genmove(colour, cleanup=True)

    def _genmove(self, colour: int, cleanup: bool) -> str:
        """Search and play a move for ``colour``. Go: ``pass`` at the end of the game; NoGo:
        ``resign`` without a legal move; any game: ``resign`` when the chosen move's win value
        is below the threshold after :data:`RESIGN_MIN_VISITS` root visits. ``cleanup`` (KGS):
        never pass while a stone move is legal, so that dead stones get captured before
        Tromp-Taylor scoring."""
        start = time.perf_counter()
        state = self.state.clone()
        game = self.pos.game
        if not state.is_terminal() and state.current_player() != colour:
            self.adapter.force_to_move(game, state, colour)
            state.history = []
        if state.is_terminal():
            if self.adapter.name == "go":
                return "pass"
            return "resign"
        result = self._search(state, colour)
        self.last_result, self._analysed = result, list(self.pos.moves)
        action = result.action
        pass_action = getattr(game, "pass_action", None)
        if cleanup and action == pass_action:
            stones = [i for i, a in enumerate(result.actions) if a != pass_action]
            if stones:
                action = result.actions[max(stones, key=lambda i: result.visits[i])]
        self.clocks[colour].spend(time.perf_counter() - start)
        chosen = result.actions.index(action)
        if (
            self.resign > 0
            and sum(result.visits) >= RESIGN_MIN_VISITS
            and result.values[chosen] < self.resign
            and action != pass_action
        ):
            return "resign"
        self.state = state
        self._play(colour, action)
        return self.adapter.move_text(game, colour, action)

    def _search(self, state: State, colour: int) -> SearchResult:
        played = len(self.pos.moves)
        most_left = (self.pos.game.spec.max_game_length - played + 1) // 2
        budget = self.clocks[colour].budget(len(state.legal_actions()), most_left)
        agent = self.agent
        if budget is None or agent.budget is None:
            return agent.search(state)
        base, hard = budget
        start = time.perf_counter()
        result = agent.search(state, Budget(seconds=max(base, 0.001)))
        while (spent := time.perf_counter() - start) < hard - 0.01 and _close(result):
            result = agent.search(state, Budget(seconds=max(0.001, min(base / 2, hard - spent))))
        return result

    # -- time -------------------------------------------------------------------------------
    def cmd_time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int):
        if main_time < 0 or byo_yomi_time < 0 or byo_yomi_stones < 0:
            raise GtpError("time settings must not be negative")
        for clock in self.clocks:
            clock.settings(main_time, byo_yomi_time, byo_yomi_stones)

    def cmd_time_left(self, colour: Colour, time_left: float, stones: int):
        if time_left < 0 or stones < 0:
            raise GtpError("time left must not be negative")
        clock = self.clocks[colour]
        clock.left, clock.stones_left = time_left, stones

    # -- output -----------------------------------------------------------------------------
    def cmd_showboard(self):
        return "\n" + str(self.state)

    def cmd_final_score(self):
        score = self.pos.game.score(self.state.array)
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def cmd_gogui_analyze_commands(self):
        return "\n".join(
            [
                "gfx/Visits/gogui-visits",
                "gfx/Win rate/gogui-winrate",
                "gfx/Principal variation/gogui-pv",
            ]
        )

    def _analysis(self) -> SearchResult:
        """The last search of the current position (a new search if it has none)."""
        if self.state.is_terminal():
            raise GtpError("the game is over: nothing to analyse")
        if self.last_result is None or self._analysed != self.pos.moves:
            self.last_result = self.agent.search(self.state)
            self._analysed = list(self.pos.moves)
        if len(self.last_result.visits) != len(self.last_result.actions):
            raise GtpError(f"agent {self.agent.spec_string} keeps no search statistics")
        return self.last_result

    def _labels(self, texts: dict[int, str]) -> str:
        game = self.pos.game
        parts = [
            f"{self.adapter.move_text(game, 0, a)} {t}"
            for a, t in texts.items()
            if a != getattr(game, "pass_action", None) and a != getattr(game, "swap_action", None)
        ]
        return "LABEL " + " ".join(parts) if parts else ""

    def cmd_gogui_visits(self):
        """Visits of every root move of the last search (a new search if there is none)."""
        r = self._analysis()
        return self._labels({a: str(v) for a, v in zip(r.actions, r.visits, strict=True)})

    def cmd_gogui_winrate(self):
        """Win rate (%) of every visited root move for the player who was to move."""
        r = self._analysis()
        rates = {
            a: f"{100 * q:.0f}%"
            for a, v, q in zip(r.actions, r.visits, r.values, strict=True)
            if v > 0
        }
        return self._labels(rates)

    def cmd_gogui_pv(self):
        r = self._analysis()
        game = self.pos.game
        player = self.state.current_player()
        moves = []
        for a in r.pv:
            moves.append(f"{'bw'[player % 2]} {self.adapter.move_text(game, player, a)}")
            player = 1 - player
        return "VAR " + " ".join(moves) if moves else ""


def _close(result: SearchResult) -> bool:
    """A hard move: the second-best root move has most of the best's visits, or a better mean."""
    if len(result.visits) < 2:
        return False
    order = np.argsort(result.visits)[::-1]
    best, second = order[0], order[1]
    if result.visits[best] == 0:
        return False
    return (
        result.visits[second] >= CLOSE_RATIO * result.visits[best]
        or result.values[second] > result.values[best]
    )
