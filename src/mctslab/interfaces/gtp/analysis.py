"""Live analysis over GTP: Leela Zero's ``lz-analyze`` and ``lz-genmove_analyze`` (the format
Sabaki, Lizzie and KaTrain read) and GoGui's analysis commands, for Go, NoGo and Hex.

``lz-analyze [colour] [interval]`` (``interval`` in centiseconds, also written ``interval N``)
answers ``=id`` on a line of its own, then searches the position (for ``colour`` when given) and
every ``interval`` prints one line holding every visited root move, most visited first, as Leela
Zero's ``UCTSearch::output_analysis`` writes it (leela-zero/leela-zero, ``src/UCTSearch.cpp``;
the ``lcb`` field of version 0.17)::

    info move D4 visits 120 winrate 5400 prior 1200 lcb 5100 order 0 pv D4 Q16 info move ...

``winrate`` is the mean win value for the player to move × 10000; ``prior`` is the uniform
10000 / (root moves), as the search has no policy; ``lcb`` is the Wilson 95% lower bound of the
win rate over the move's visits × 10000 (:func:`mctslab.harness.stats.wilson_interval`);
``pv`` is the line the tree holds after the move (most visits at each level). When the next
command arrives on stdin (the engine's reader, :meth:`Engine.serve`, sets an event) the search
stops within one chunk (~5 ms), an empty line ends the reply, and the command is answered; the
search tree is kept, so a following ``genmove`` reuses it. ``lz-genmove_analyze colour
[interval]`` streams the same lines while ``genmove``'s search runs to its budget, then writes
``play MOVE`` and the empty line (Leela Zero's ``GTP.cpp``). Without a reader (``handle`` called
directly) one interval is searched and printed.

``gogui-interrupt`` is GoGui's interrupt protocol: the engine lists it, and GoGui then writes a
``# interrupt`` line to stop a running ``genmove`` or analysis, which returns at once with the
best move so far. ``gogui-analyze_commands`` lists LABEL displays of visits and win rates, the
principal variation as ``VAR`` and as ``pspairs`` (each move's number in the line), and visits
and win values as ``dboard`` (a number per point, top row first).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from mctslab.harness.stats import wilson_interval
from mctslab.interfaces.gtp.clock import Clock
from mctslab.interfaces.gtp.protocol import CONVERT, Colour, GtpError
from mctslab.search import SearchResult
from mctslab.search.budget import Budget
from mctslab.search.uct import Uct

#: the shortest interval between two ``info`` lines (centiseconds; 0 means 1)
MIN_INTERVAL = 1


def _log(exc: Exception) -> None:
    """An error after a streamed reply began (GTP has no way to report it there): on stderr,
    which GTP controllers show in their engine log."""
    print(f"mctslab: analysis stopped: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


class Streamed(str):
    """A reply that is already formatted, whatever part of it the command has written itself."""


def parse_analyze_args(args: tuple[str, ...]) -> tuple[int | None, float]:
    """``[colour] [interval] | [colour] interval N`` of ``lz-analyze``: the colour (None: the
    player to move) and the interval in seconds (default 1 s)."""
    words = list(args)
    colour = None
    if words and words[0].lower() in ("b", "w", "black", "white"):
        colour = CONVERT[Colour](words.pop(0))
    if words and words[0].lower() == "interval":
        words.pop(0)
        if not words:
            raise GtpError("interval needs a value (centiseconds)")
    centis = 100
    if words:
        value = words.pop(0)
        if not value.isdigit() or not value.isascii():
            raise GtpError(f"interval {value!r}: expected centiseconds, a whole number >= 0")
        centis = max(MIN_INTERVAL, int(value))
    if words:
        raise GtpError(
            f"unexpected {' '.join(words)!r}: lz-analyze takes [colour] [interval] "
            "(centiseconds, or interval N)"
        )
    return colour, centis / 100.0


def info_line(result: SearchResult, move_text: Callable[[int], str], line: Callable) -> str:
    """One ``info move ...`` entry per visited root move, most visited first (ties: the higher
    win rate), on one line (module doc). ``line(action)`` is the principal variation after the
    root move ``action``."""
    moves = [i for i, v in enumerate(result.visits) if v > 0]
    moves.sort(key=lambda i: (-result.visits[i], -result.values[i]))
    prior = int(10000 / max(1, len(result.actions)))
    parts = []
    for order, i in enumerate(moves):
        n, q = result.visits[i], result.values[i]
        lcb = wilson_interval(q * n, n)[0]
        pv = " ".join(move_text(a) for a in line(result.actions[i]))
        parts.append(
            f"info move {move_text(result.actions[i])} visits {n} winrate {int(q * 10000)} "
            f"prior {prior} lcb {int(lcb * 10000)} order {order} pv {pv}"
        )
    return " ".join(parts)


class AnalysisCommands:
    """The analysis commands, mixed into the engine (:class:`~mctslab.interfaces.gtp.engine.
    Engine` keeps ``agent``, ``adapter``, ``pos``, ``state``, ``_genmove`` and, while it serves,
    the reader's events)."""

    #: set by the reader when a command waits on stdin, or GoGui's ``# interrupt`` arrives
    pending: threading.Event | None = None
    #: set by the reader when GoGui's ``# interrupt`` arrives
    interrupt: threading.Event | None = None
    #: writes text to the output at once (set while serving)
    emit: Callable[[str], None] | None = None
    #: the id of the command being answered
    command_id: str = ""
    #: while ``lz-genmove_analyze`` runs: the interval in seconds and the lines written
    _reporting: tuple[float, list[str]] | None = None

    def cmd_gogui_interrupt(self):
        """GoGui's interrupt protocol (module doc): listing the command is the declaration."""

    def _line_after(self, action: int) -> list[int]:
        searcher = getattr(self.agent, "searcher", None)
        if isinstance(searcher, Uct):
            return searcher.principal_variation(action) or [action]
        return [action]

    def _info(self, result: SearchResult, player: int) -> str:
        game = self.pos.game
        text = lambda a: self.adapter.move_text(game, player, a)  # noqa: E731
        return info_line(result, text, self._line_after)

    def _start_stream(self) -> list[str]:
        """Write (or keep, without a reader) the reply's first line ``=id``."""
        head = f"={self.command_id}\n"
        if self.emit is not None:
            self.emit(head)
            return []
        return [head]

    def _write(self, lines: list[str], text: str) -> None:
        if self.emit is not None:
            self.emit(text)
        else:
            lines.append(text)

    def cmd_lz_analyze(self, *args: str):
        colour, interval = parse_analyze_args(args)
        state = self.state.clone()
        if state.is_terminal():
            raise GtpError("the game is over: nothing to analyse")
        if colour is not None and state.current_player() != colour:
            self.adapter.force_to_move(self.pos.game, state, colour)
            state.history = []
        self._check_statistics()
        lines = self._start_stream()
        stop = self.pending
        budget = Budget(seconds=interval)  # the first interval always runs
        try:
            while True:
                result = self.agent.search(state, budget)
                self._write(lines, self._info(result, state.current_player()) + "\n")
                if stop is None or stop.is_set():
                    break
                budget = Budget(seconds=interval, stop=stop)
        except Exception as exc:  # the reply has begun: end it, say why on stderr
            _log(exc)
        else:
            if colour is None or colour == self.state.current_player():
                self.last_result, self._analysed = result, list(self.pos.moves)
        return Streamed("".join(lines) + "\n")

    def _check_statistics(self) -> None:
        """Refuse an agent that does not search (``random``): it has no statistics to show."""
        if self.agent.budget is None:
            raise GtpError(f"agent {self.agent.spec_string} keeps no search statistics")

    def cmd_lz_genmove_analyze(self, colour: Colour, *args: str):
        _, interval = parse_analyze_args(args)
        self._check_statistics()
        lines = self._start_stream()
        self._reporting = (interval, lines)
        try:
            self._write(lines, f"play {self._genmove(colour, cleanup=False)}\n")
        except Exception as exc:  # the reply has begun: end it without a move, say why
            _log(exc)
        finally:
            self._reporting = None
        return Streamed("".join(lines) + "\n")

    def _reported_search(self, state, clock: Clock, most_left: int) -> SearchResult:
        """``genmove``'s search under ``lz-genmove_analyze``: the budget (the clock's base time,
        :meth:`Clock.budget`, else the agent's own) spent in slices of the interval, an ``info``
        line after each; GoGui's interrupt ends it."""
        interval, lines = self._reporting
        limit = clock.budget(len(state.legal_actions()), most_left)
        sims = self.agent.budget.sims if limit is None else None
        seconds = self.agent.budget.seconds if limit is None else max(0.001, limit[0])
        start = time.perf_counter()
        done = 0
        while True:
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            step = interval if left is None else max(0.001, min(interval, left))
            more = None if sims is None else sims - done
            result = self.agent.search(state, Budget(sims=more, seconds=step, stop=self.interrupt))
            done += result.simulations
            self._write(lines, self._info(result, state.current_player()) + "\n")
            interrupted = self.interrupt is not None and self.interrupt.is_set()
            if interrupted or (sims is not None and done >= sims):
                return result
            if seconds is not None and time.perf_counter() - start >= seconds:
                return result

    # -- GoGui -------------------------------------------------------------------------------
    def cmd_gogui_analyze_commands(self):
        return "\n".join(
            [
                "gfx/Visits/gogui-visits",
                "gfx/Win rate/gogui-winrate",
                "gfx/Principal variation/gogui-pv",
                "pspairs/Principal variation (numbers)/gogui-pv_numbers",
                "dboard/Visits (board)/gogui-visits_board",
                "dboard/Win value (board)/gogui-values_board",
            ]
        )

    def cmd_gogui_pv_numbers(self):
        """The principal variation as GoGui's ``pspairs``: each move's point and its number."""
        r = self._analysis()
        player = self.state.current_player()
        game = self.pos.game
        pairs = []
        for k, a in enumerate(r.pv, 1):
            if a < game.params.size**2:  # a point, not a pass or a swap
                pairs.append(f"{self.adapter.move_text(game, player, a)} {k}")
            player = 1 - player
        return " ".join(pairs)

    def _dboard(self, values: dict[int, str]) -> str:
        size = self.pos.game.params.size
        rows = [" ".join(values.get(r * size + c, "0") for c in range(size)) for r in range(size)]
        return "\n" + "\n".join(rows)

    def cmd_gogui_visits_board(self):
        """Visits of every root move as a ``dboard`` (0 elsewhere)."""
        r = self._analysis()
        return self._dboard({a: str(v) for a, v in zip(r.actions, r.visits, strict=True)})

    def cmd_gogui_values_board(self):
        """Mean win value (0..1, for the player to move) of every visited root move as a
        ``dboard`` (0 elsewhere)."""
        r = self._analysis()
        values = {
            a: f"{q:.3f}" for a, v, q in zip(r.actions, r.visits, r.values, strict=True) if v > 0
        }
        return self._dboard(values)
