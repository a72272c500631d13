"""External GTP/HTP engines as agents: ``gtp(cmd="/usr/games/gnugo --mode gtp --level 10",time=1)``.

The agent runs the command as a subprocess and is its GTP controller (Farnebäck, "GTP — Go Text
Protocol, version 2.0", draft 2, 2002; HTP, the HexGui/MoHex dialect, for Hex). Before each move
it brings the engine to the game's position: the game's protocol adapter
(``mctslab/games/<game>_protocol.py``) gives the set-up commands (``boardsize``, ``clear_board``,
``komi``) and the move text; the moves played since the engine's last position are sent as
``play`` commands, or the board is cleared and every move replayed when the game's history went
another way (a new game, another line). ``time=T`` sends ``time_settings 0 T 1`` (no main time,
a byo-yomi period of T seconds for each move), so the engine plays under its own time control;
a :class:`~mctslab.search.budget.Budget` with seconds replaces T for one move, and a budget of
simulations means nothing to an external engine and is ignored. Then ``genmove``.

The engine loses the game (:class:`~mctslab.agents.base.Forfeit`, with the reason) when it
resigns, answers a move that is illegal by this game's rules, refuses a move of its opponent,
answers something that is not GTP, exits, or does not answer within ``timeout`` seconds (beyond
the move's time for ``genmove``, and :data:`STARTUP_WAIT` more for a new process's first
reply); after a crash, hang or garbage the process is killed and the next move starts a new one.
A process that dies or refuses during its first set-up, or a set-up command (board size, komi,
time control) the engine refuses, is a configuration error (:class:`~mctslab.errors.MctslabError`)
rather than a lost game. The engine's stderr goes to a temporary file whose last line is quoted
when the engine dies; it never reaches our output. Processes end on :meth:`GtpAgent.close`
(``quit``, then a kill of the process group after :data:`QUIT_WAIT` seconds), when the agent is
garbage-collected, and at interpreter exit.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from typing import IO

import numpy as np
import pydantic
from pydantic import Field

from mctslab.agents.base import STRICT, TIME, Agent, Forfeit
from mctslab.errors import IllegalMoveError, MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.games.protocols import GAMES, parse_reply, protocol_for
from mctslab.search.budget import MAX_SECONDS, Budget
from mctslab.search.result import SearchResult

#: seconds a reply may take by default (beyond the move's time for ``genmove``)
DEFAULT_TIMEOUT = 30.0
#: seconds more for the first reply of a new process (engines load networks, compile, read books)
STARTUP_WAIT = 120.0
#: seconds an engine has to exit after ``quit`` before its process group is killed
QUIT_WAIT = 2.0
#: a reply longer than this many lines is garbage
MAX_REPLY_LINES = 10_000
#: characters of the engine's last stderr line quoted when it dies
STDERR_TAIL = 200
#: GTP colours by player
COLOURS = "bw"


class GtpParams(pydantic.BaseModel):
    model_config = STRICT
    cmd: str = Field(
        ..., min_length=1, description='the engine\'s command line, quoted: cmd="gnugo --mode gtp"'
    )
    time: float | None = TIME
    timeout: float = Field(
        DEFAULT_TIMEOUT,
        gt=0,
        le=int(MAX_SECONDS),
        description="seconds a reply may take (beyond time, for genmove) before the engine "
        "counts as hung and loses",
    )

    @pydantic.field_validator("cmd")
    @classmethod
    def _normal_command(cls, cmd: str) -> str:
        """The command line with shell quoting normalised (``shlex``), so that equal commands
        give equal spec strings."""
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise ValueError(f"cannot split the command line ({exc})") from None
        if not argv:
            raise ValueError("the command line is empty")
        return shlex.join(argv)


def _pump(stream: IO[str], lines: queue.SimpleQueue) -> None:
    """The reader thread: every line of the engine's stdout, then None at its end."""
    with stream:
        for line in stream:
            lines.put(line)
    lines.put(None)


def _stop(proc: subprocess.Popen, stderr: IO[bytes], polite: bool) -> None:
    """End an engine: ``quit`` and :data:`QUIT_WAIT` seconds to exit when ``polite``, then a kill
    of its process group (the engine's own children too); close its stderr file."""
    if polite and proc.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.write("quit\n")
            proc.stdin.flush()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(QUIT_WAIT)
    if proc.poll() is None:  # not reaped, so the group id is still this engine's
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()
    stderr.close()


class _Engine:
    """One running engine process: send a command, read its reply before a deadline."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _stop)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            self.stderr.close()
            raise MctslabError(
                f"agent gtp: cannot start {shlex.join(argv)!r}: {exc.strerror or exc}"
            ) from None
        self.lines: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        self._finalizer = weakref.finalize(self, _stop, self.proc, self.stderr, True)
        self._next_id = 0

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, polite: bool = True) -> None:
        if self._finalizer.detach() is not None:
            _stop(self.proc, self.stderr, polite)

    def _stderr_tail(self) -> str:
        """The last non-empty line the engine wrote to stderr, shortened, or ''."""
        try:
            self.stderr.seek(0, os.SEEK_END)
            self.stderr.seek(max(0, self.stderr.tell() - 4096))
            text = self.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
        return f" (its last stderr line: {last[:STDERR_TAIL]!r})" if last else ""

    def died(self, when: str) -> Forfeit:
        """The lost game of an engine that exited (or closed its output) ``when``; the process
        is killed."""
        try:
            status = self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            status = None
        how = "closed its output" if status is None else f"exited with status {status}"
        reason = f"the engine {how} {when}{self._stderr_tail()}"
        self.close(polite=False)
        return Forfeit(reason)

    def send(self, command: str, timeout: float) -> tuple[bool, str]:
        """``(ok, text)`` of the reply to ``command``. Raises :class:`Forfeit` (and kills the
        process) when the engine dies, does not answer within ``timeout`` seconds, or answers
        something that is not a GTP reply to this command (the first command of the process may
        take :data:`STARTUP_WAIT` seconds more)."""
        self._next_id += 1
        cid = str(self._next_id)
        if self._next_id == 1:
            timeout += STARTUP_WAIT
        try:
            try:
                self.proc.stdin.write(f"{cid} {command}\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                raise self.died(f"before answering {command!r}") from None
            deadline = time.monotonic() + timeout
            lines: list[str] = []
            while True:
                try:
                    line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise Forfeit(f"no reply to {command!r} within {timeout:g} s") from None
                if line is None:
                    raise self.died(f"before answering {command!r}")
                if line.strip():
                    lines.append(line.rstrip("\n"))
                    if len(lines) > MAX_REPLY_LINES:
                        raise Forfeit(
                            f"a reply of more than {MAX_REPLY_LINES} lines to {command!r}"
                        )
                elif lines:
                    break
            try:
                return parse_reply(lines, cid)
            except ValueError as exc:
                raise Forfeit(f"an unreadable reply to {command!r}: {exc}") from None
        except Forfeit:
            self.close(polite=False)
            raise


class GtpAgent(Agent):
    COMPILED = False
    NAME = "gtp"
    DESCRIPTION = (
        "an external GTP engine (HTP for Hex) run as a subprocess, e.g. "
        'gtp(cmd="/usr/games/gnugo --mode gtp --level 10",time=1); it loses a game it resigns, '
        "or where it crashes, hangs past timeout, or answers garbage or an illegal move"
    )
    Params = GtpParams

    def __init__(self, spec_string: str, game: Game, params: GtpParams, seed: int):
        super().__init__(spec_string, game)
        if game.NAME not in GAMES:
            raise SpecError(
                f"agent gtp plays the games with a GTP/HTP adapter ({', '.join(GAMES)}), "
                f"not {game.NAME}"
            )
        self.adapter = protocol_for(game.NAME)
        size = game.params.size
        if size not in self.adapter.sizes:
            sizes = self.adapter.sizes
            raise SpecError(
                f"agent gtp: {game.NAME} over GTP takes sizes {sizes.start}..{sizes.stop - 1}, "
                f"not {size}"
            )
        self.argv = shlex.split(params.cmd)
        if shutil.which(self.argv[0]) is None:
            raise SpecError(
                f"agent gtp: command {self.argv[0]!r} not found (not an executable file, nor a "
                "name on PATH)"
            )
        self.time = params.time
        self.timeout = params.timeout
        self._engine: _Engine | None = None
        #: the moves (player, action) of the engine's position; None before its set-up
        self._moves: list[tuple[int, int]] | None = None
        #: the seconds per move of the engine's time control (None: its own default)
        self._seconds: float | None = None

    # -- the engine's process -------------------------------------------------------------------
    def close(self) -> None:
        """Stop the engine (``quit``, then a kill); the next move starts a new one."""
        if self._engine is not None:
            self._engine.close()
        self._engine, self._moves, self._seconds = None, None, None

    def _ask(self, command: str, extra: float = 0.0) -> str:
        """The engine's answer to ``command``; a refusal is a :class:`Forfeit`."""
        engine = self._engine
        assert engine is not None
        try:
            ok, text = engine.send(command, self.timeout + extra)
        except Forfeit:
            self._engine, self._moves, self._seconds = None, None, None
            raise
        if not ok:
            raise Forfeit(f"the engine refused {command!r}: {text}")
        return text

    def _setup(self, command: str, fresh: bool) -> None:
        """A set-up command: refused, or (on a fresh process) unanswered, it is a configuration
        error, not a lost game."""
        try:
            self._ask(command)
        except Forfeit as exc:
            if fresh or self._engine is not None:
                raise MctslabError(
                    f"agent gtp: {shlex.join(self.argv)!r} cannot play "
                    f"{self.game.spec.spec_string}: {exc.reason}"
                ) from None
            raise

    def _sync(self, moves: list[tuple[int, int]], seconds: float | None) -> None:
        """Bring the engine to the position after ``moves`` under ``seconds`` per move."""
        engine = self._engine
        if engine is not None and not engine.alive:
            self._engine, self._moves, self._seconds = None, None, None
            raise engine.died("since its last reply")
        fresh = engine is None
        if fresh:
            self._engine = _Engine(self.argv)
        if self._moves is None or moves[: len(self._moves)] != self._moves:
            for command in self.adapter.setup(self.game):
                self._setup(command, fresh)
            self._moves = []
        if seconds != self._seconds:
            # GTP: byo-yomi time with 0 stones means no time limit
            self._setup(
                f"time_settings 0 {seconds:g} 1" if seconds else "time_settings 0 1 0", fresh
            )
            self._seconds = seconds
        for player, action in moves[len(self._moves) :]:
            self._ask(f"play {COLOURS[player]} {self.adapter.move_text(self.game, player, action)}")
            self._moves.append((player, action))

    # -- moves ----------------------------------------------------------------------------------
    def _history(self, state: State) -> list[tuple[int, int]]:
        """``(player, action)`` of every move of ``state.history``, which must lead to
        ``state``."""
        replay = self.game.new_initial_state()
        moves = []
        for action in state.history:
            moves.append((replay.current_player(), action))
            replay.apply_action(action)
        if not np.array_equal(replay.array, state.array):
            raise MctslabError(
                "agent gtp: the position does not follow from its move history (state.history), "
                "which is what the engine is sent"
            )
        return moves

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        """``genmove`` for the player to move, after the engine is brought to ``state``; the
        engine's answer is the chosen action (no statistics)."""
        player = state.current_player()
        if player not in (0, 1):
            raise MctslabError("search needs a position with a player to move")
        start = time.perf_counter()
        moves = self._history(state)
        seconds = budget.seconds if budget is not None and budget.seconds else self.time
        self._sync(moves, seconds)
        command = f"genmove {COLOURS[player]}"
        text = self._ask(command, extra=seconds or 0.0)
        self._moves = None  # the engine played its answer: set it up afresh unless it is legal
        if text.lower() == "resign":
            raise Forfeit("the engine resigned")
        try:
            action = self.adapter.parse_move(self.game, player, text)
        except IllegalMoveError as exc:
            raise Forfeit(f"the engine answered {command!r} with {text!r}: {exc}") from None
        if action not in state.legal_actions():
            raise Forfeit(f"the engine answered {command!r} with an illegal move {text!r}")
        self._moves = [*moves, (player, action)]
        return SearchResult(action=action, actions=[action], elapsed=time.perf_counter() - start)
