"""The GTP v2 (Go, NoGo) and HTP (Hex) engine over any mctslab agent.

Protocol: the Go Text Protocol, version 2 (Farnebäck, "GTP — Go Text Protocol, version 2.0",
draft 2, 2002; http://www.lysator.liu.se/~gunnar/gtp/); the line protocol is
:mod:`.protocol`, time control :mod:`.clock`, the Hex dialect :mod:`.htp`. A command is
``[id] name [arguments]`` with an optional non-negative integer ``id`` that the reply repeats:
``=id result`` or ``?id message``, then an empty line. Replies are flushed at once. No input can
crash the engine: malformed lines, unknown commands, bad arguments, illegal moves and unexpected
failures all become ``? message``.

What the engine needs to know about a game beyond the game contract (the game a board size and
komi stand for, move text, making either colour the one to move, which game-specific commands it
answers) is the game's protocol adapter, ``mctslab.games.<game>_protocol.PROTOCOL``, found by the
game's name (:func:`~mctslab.games.protocols.protocol_for`, shared with the GTP client
:mod:`mctslab.agents.external`, as is the reply format).

Handlers are methods ``cmd_<name>`` (``-`` in a command name becomes ``_``), found by name, and
their arguments are converted from the type hints (``int``, ``float``, ``str``, :data:`Colour`),
the minigo ``gtp_engine`` design. Every search is the agent's own (``agent.search(state,
budget)``; under time control :func:`.clock.timed_search`).
"""

from __future__ import annotations

import inspect
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any, get_type_hints

from mctslab import __version__ as _version
from mctslab.agents import Agent
from mctslab.agents.resign import Resigner
from mctslab.agents.warmup import PendingAgent
from mctslab.errors import IllegalMoveError, MctslabError, SpecError
from mctslab.games import go_ownership
from mctslab.games.base import Game, State
from mctslab.games.protocols import format_reply, protocol_for
from mctslab.games.stones import setup_state
from mctslab.interfaces.gtp.analysis import AnalysisCommands, Streamed
from mctslab.interfaces.gtp.clock import Clock, timed_search
from mctslab.interfaces.gtp.htp import HtpCommands, check_square
from mctslab.interfaces.gtp.position import PositionCommands
from mctslab.interfaces.gtp.protocol import (
    CONVERT,
    Colour,
    GtpError,
    is_id,
    parse_command,
    preprocess,
)
from mctslab.interfaces.gtp.tools import ToolCommands
from mctslab.interfaces.messages import clip
from mctslab.search import SearchResult
from mctslab.search.budget import MAX_SECONDS

#: the default agent of ``mctslab gtp``
DEFAULT_AGENT = "best"
#: resign when the chosen move's win value is below this (0 never resigns)
DEFAULT_RESIGN = 0.05
#: commands that only some games answer (a protocol adapter's ``extra``)
GAME_SPECIFIC = (
    "komi", "final_score", "kgs-genmove_cleanup", "param_game", "all_legal_moves",
    "final_status_list", "fixed_handicap", "place_free_handicap", "set_free_handicap", "get_komi",
)  # fmt: skip
#: the line GoGui writes to interrupt a running command (its interrupt protocol)
INTERRUPT = "# interrupt"


@dataclass
class _Position:
    game: Game
    moves: list[tuple[int, int]] = field(default_factory=list)  # (player, action)
    #: set-up stones (handicap, SGF ``AB``/``AW``): each point's colour and the player to move
    setup: tuple[Any, int] | None = None

    def start(self) -> State:
        """The position before the first move."""
        if self.setup is None:
            return self.game.new_initial_state()
        return setup_state(self.game, *self.setup)


class Engine(HtpCommands, PositionCommands, AnalysisCommands, ToolCommands):
    """A GTP/HTP engine: :meth:`handle` answers one input line; :meth:`serve` runs a session."""

    def __init__(
        self,
        game: str = "go",
        agent: str = DEFAULT_AGENT,
        size: int | None = None,
        komi: float | None = None,
        resign: float = DEFAULT_RESIGN,
        seed: int | None = None,
        allow_swap: bool | None = None,
        threads: int | None = None,
    ):
        #: the game's protocol adapter
        self.adapter = protocol_for(game)
        #: the adapter's game settings (Hex: ``allow_swap``, HTP's ``param_game``)
        self.params = dict(self.adapter.params)
        if allow_swap is not None:
            if "allow_swap" not in self.params:
                raise SpecError(f"the swap rule is Hex's, not {game}'s")
            self.params["allow_swap"] = allow_swap
        self.agent_spec = agent
        self.seed = seed
        #: the threads of an agent that has them, unless its spec gives them (``make_agent``)
        self.threads = threads
        #: each colour's run of hopeless ``genmove`` decisions (:mod:`mctslab.agents.resign`)
        self.resigners = [Resigner(resign), Resigner(resign)]
        self.size = size or (11 if game == "hex" else 9)
        if self.size not in self.adapter.sizes:
            raise SpecError(f"size {self.size}: {game} sizes are {self._size_range()}")
        self.komi = 7.5 if komi is None else komi
        self.clocks = [Clock(), Clock()]
        self.done = False
        #: the last search, and the moves of the position it searched
        self.last_result: SearchResult | None = None
        self._analysed: list[tuple[int, int]] = []
        self._new_game(self.adapter.load(self.size, self.komi, **self.params))
        #: the agent, made in the background (:attr:`agent`)
        self._pending = self._make_agent(self.pos.game)

    # -- plumbing -------------------------------------------------------------------------
    def _make_agent(self, game: Game) -> PendingAgent:
        """Start making the agent for ``game`` in a background thread, saying on stderr when
        its search is not in the compile cache yet (:mod:`mctslab.agents.warmup`): commands
        that need no search answer meanwhile, a GUI's start-up among them."""
        return PendingAgent(self.agent_spec, game, seed=self.seed, threads=self.threads)

    @property
    def agent(self) -> Agent:
        """The agent, once made (waits for the background thread of :meth:`_make_agent`)."""
        return self._pending.get()

    @agent.setter
    def agent(self, agent: Agent) -> None:
        self._pending = PendingAgent.ready(agent, self.pos.game)

    def _size_range(self) -> str:
        return f"{self.adapter.sizes.start}..{self.adapter.sizes.stop - 1}"

    def _new_game(self, game: Game) -> None:
        self.pos = _Position(game)
        self.state = game.new_initial_state()
        self.last_result = None
        self._reset_resigners()

    def _reset_resigners(self) -> None:
        for resigner in self.resigners:
            resigner.reset()

    def _replay(self) -> None:
        """Set ``state`` from the position's set-up and moves (the position was set up anew or
        taken back: the runs of hopeless decisions start again)."""
        self._reset_resigners()
        game = self.pos.game
        state = self.pos.start()
        for player, action in self.pos.moves:
            if state.current_player() != player:
                self.adapter.force_to_move(game, state, player)
            state.apply_action(action)
        self.state = state

    def commands(self) -> dict[str, Any]:
        """Command name -> handler: every ``cmd_<name>`` method (``gogui_``, ``kgs_``, ``lz_``
        and ``gomill_`` become ``gogui-``, ``kgs-``, ``lz-`` and ``gomill-``), less the
        game-specific commands of other games."""
        found = {}
        for attr in dir(self):
            if not attr.startswith("cmd_"):
                continue
            name = attr[4:]
            for prefix in ("gogui_", "kgs_", "lz_", "gomill_"):
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
        cid = first if is_id(first) else ""
        self.command_id = cid
        try:
            _, name, args = parse_command(text)
            result = self._dispatch(name, args)
            if isinstance(result, Streamed):  # written as it went (live analysis)
                return str(result)
            return format_reply(True, cid, result)
        except (GtpError, MctslabError) as exc:
            return format_reply(False, cid, clip(str(exc)))
        except Exception as exc:  # never crash the engine (the controller would lose the game)
            return format_reply(False, cid, clip(f"internal error: {type(exc).__name__}: {exc}"))

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
            values.append(CONVERT[hints.get(p.name, str)](arg))
        result = method(*values)
        if isinstance(result, Streamed):
            return result
        return "" if result is None else str(result)

    def serve(self, inp: IO[str] = sys.stdin, out: IO[str] = sys.stdout) -> None:
        """Answer lines from ``inp`` until ``quit`` or the end of input.

        A reader thread queues the input lines and sets :attr:`pending` whenever a command waits
        (a running analysis then stops, :mod:`.analysis`), and :attr:`interrupt` too when
        GoGui's ``# interrupt`` line arrives (a running ``genmove`` then stops with its best move
        so far); commands are answered one at a time, in order."""
        lines: queue.Queue[str | None] = queue.Queue()
        lock = threading.Lock()
        pending, interrupt = threading.Event(), threading.Event()
        self.pending, self.interrupt = pending, interrupt

        def read() -> None:
            for line in inp:
                with lock:
                    if line.strip() == INTERRUPT:
                        interrupt.set()
                    else:
                        lines.put(line)
                    pending.set()
            lines.put(None)
            pending.set()

        def emit(text: str) -> None:
            out.write(text)
            out.flush()

        self.emit = emit
        threading.Thread(target=read, daemon=True, name="gtp-reader").start()
        try:
            while (line := lines.get()) is not None:
                with lock:
                    if lines.empty():
                        pending.clear()
                reply = self.handle(line)
                interrupt.clear()  # after the command: an interrupt read just before it counts
                if reply is not None:
                    emit(reply)
                if self.done:
                    break
        finally:
            self.pending = self.interrupt = self.emit = None

    # -- administrative commands ------------------------------------------------------------
    def cmd_protocol_version(self):
        return "2"

    def cmd_name(self):
        return "mctslab"

    def cmd_version(self):
        return f"{_version} {self._pending.spec_string}"

    def cmd_known_command(self, command: str):
        return "true" if command.lower() in self.commands() else "false"

    def cmd_list_commands(self):
        return "\n".join(self.commands())

    def cmd_quit(self):
        self.done = True

    # -- setup ------------------------------------------------------------------------------
    def cmd_boardsize(self, size: int, *more: int):
        check_square(size, more)
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
        game = self.adapter.load(self.size, self.komi, **self.params)
        moves = [] if clear else self.pos.moves
        setup = None if clear else self.pos.setup
        self._new_game(game)
        self.pos.moves, self.pos.setup = moves, setup
        self._replay()
        if clear or self._pending.game != game:
            self._pending = self._make_agent(game)

    # -- moves ------------------------------------------------------------------------------
    def _resume(self) -> None:
        """Go after two passes: play goes on, from the same position with the same player to
        move, as GTP engines do (GNU Go) and as KGS's clean-up phase needs (KGS sends
        ``kgs-genmove_cleanup`` and the opponent's moves exactly then): the two passes are
        dropped from the moves."""
        pass_action = getattr(self.pos.game, "pass_action", None)
        last = [a for _, a in self.pos.moves[-2:]]
        if pass_action is not None and self.state.is_terminal() and last == [pass_action] * 2:
            del self.pos.moves[-2:]
            self._replay()

    def _play(self, player: int, action: int) -> None:
        if action != getattr(self.pos.game, "pass_action", None):
            self._resume()
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
        self._resume()
        return self._genmove(colour, cleanup=True)

    def _genmove(self, colour: int, cleanup: bool) -> str:
        """Search and play a move for ``colour``. Go: ``pass`` at the end of the game; NoGo:
        ``resign`` without a legal move; any game: ``resign`` when ``colour``'s chosen move's win
        value was below the threshold after :data:`~mctslab.agents.resign.MIN_VISITS` root
        visits on its last :data:`~mctslab.agents.resign.RESIGN_MOVES` ``genmove`` decisions
        (:class:`~mctslab.agents.resign.Resigner`). Go: after the
        opponent's pass, ``pass`` at once when the score with dead stones removed
        (:func:`mctslab.games.go_ownership.final_score`, as a referee counts it) wins for
        ``colour``, as Fuego and Pachi end a won game instead of filling their own
        territory. ``cleanup`` (KGS): never pass while a stone move is legal, so that dead
        stones get captured before Tromp-Taylor scoring."""
        start = time.perf_counter()
        state = self.state.clone()
        game = self.pos.game
        if not state.is_terminal() and state.current_player() != colour:
            self.adapter.force_to_move(game, state, colour)
            state.history = []
        if state.is_terminal():
            return self.adapter.over
        if not cleanup and self._won_by_passing(state, colour):
            self.clocks[colour].spend(time.perf_counter() - start)
            self._play(colour, game.pass_action)
            return self.adapter.move_text(game, colour, game.pass_action)
        result = self._search(state, colour)
        self.last_result, self._analysed = result, list(self.pos.moves)
        action = result.action
        pass_action = getattr(game, "pass_action", None)
        if cleanup and action == pass_action:
            stones = [i for i, a in enumerate(result.actions) if a != pass_action]
            if stones:
                action = result.actions[max(stones, key=lambda i: result.visits[i])]
        self.clocks[colour].spend(time.perf_counter() - start)
        if self.resigners[colour].gives_up(result, pass_action, action):
            return "resign"
        self.state = state
        self._play(colour, action)
        return self.adapter.move_text(game, colour, action)

    def _won_by_passing(self, state: State, colour: int) -> bool:
        """Go, the opponent's last move a pass: the game ends if ``colour`` passes too, and
        ``colour`` (0 Black, 1 White) wins it once dead stones are removed."""
        if self.adapter.name != "go" or not self.pos.moves:
            return False
        player, action = self.pos.moves[-1]
        if player == colour or action != self.pos.game.pass_action:
            return False
        score = go_ownership.final_score(self.pos.game, state)
        return score > 0 if colour == 0 else score < 0

    def _search(self, state: State, colour: int) -> SearchResult:
        """The agent's search of ``state`` under ``colour``'s clock."""
        most_left = (self.pos.game.spec.max_game_length - len(self.pos.moves) + 1) // 2
        if self._reporting is not None:  # lz-genmove_analyze
            return self._reported_search(state, self.clocks[colour], most_left)
        return timed_search(self.agent, state, self.clocks[colour], most_left, self.interrupt)

    # -- time -------------------------------------------------------------------------------
    def cmd_time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int):
        if main_time < 0 or byo_yomi_time < 0 or byo_yomi_stones < 0:
            raise GtpError("time settings must not be negative")
        if max(main_time, byo_yomi_time) > MAX_SECONDS:  # a search would never end
            raise GtpError(
                f"time settings: main time and byo-yomi time are 0..{MAX_SECONDS:g} s (one day)"
            )
        for clock in self.clocks:
            clock.settings(main_time, byo_yomi_time, byo_yomi_stones)

    def cmd_time_left(self, colour: Colour, time_left: float, stones: int):
        if time_left < 0 or stones < 0:
            raise GtpError("time left must not be negative")
        if time_left > MAX_SECONDS:
            raise GtpError(f"time left {time_left:g}: should be 0..{MAX_SECONDS:g} s (one day)")
        clock = self.clocks[colour]
        clock.left, clock.stones_left = time_left, stones

    # -- output -----------------------------------------------------------------------------
    def cmd_showboard(self):
        return "\n" + str(self.state)

    def cmd_final_score(self):
        if self.adapter.name == "hex":
            return self.adapter.score(self.pos.game, self.state)
        score = go_ownership.final_score(self.pos.game, self.state)
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

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
