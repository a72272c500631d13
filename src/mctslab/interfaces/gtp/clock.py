"""Time control for GTP (Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2, 2002: the
commands ``time_settings`` and ``time_left``; Canadian byo-yomi).

``time_settings main byo_yomi stones`` and ``time_left colour seconds stones`` set a side's
:class:`Clock`. In main time a move gets ``base = usable / M + share / 2`` and at most ``hard =
min(3 base, usable / 4 + share / 2)`` seconds, where ``M = max(20, legal moves / 2)`` estimates
the player's moves left, ``share = byo_yomi / stones`` and ``usable`` is the time left less a
reserve (0.1 s, plus 0.01 s for each move the player may still have to make by the game's length
bound in sudden death, for the work around each search; a search's minimum, one chunk of 8
simulations, is far below). In a byo-yomi period, ``base`` is the period's time left (less 0.01 s
per stone and 0.1 s) over its stones left and ``hard = 1.5 base``. So the clock never runs out
even if every move took its hard limit (tested). Hard moves get more (:func:`timed_search`):
while the best and second-best moves are close (the second has at least :data:`CLOSE_RATIO` of
the best's visits, or a better mean), the search goes on in steps of half the base time until the
hard limit. Every search is the agent's own, given a :class:`~mctslab.search.budget.Budget`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from mctslab.agents import Agent
from mctslab.games.base import State
from mctslab.search import SearchResult
from mctslab.search.budget import Budget

#: extend a search while the second-best move has this share of the best one's visits
CLOSE_RATIO = 0.7
#: seconds reserved per move still to play, for the work around a search (GTP, Python)
MOVE_OVERHEAD = 0.01
#: seconds never planned for
SAFETY = 0.1
#: the fewest moves a player is assumed still to play in main time
MIN_MOVES_LEFT = 20.0


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


def timed_search(
    agent: Agent, state: State, clock: Clock, most_left: int, stop: threading.Event | None = None
) -> SearchResult:
    """The agent's search of ``state`` under ``clock`` (the module doc); its own budget when the
    clock has no limit or the agent has no budget to replace (``random``). ``most_left`` is the
    most moves the player may still have to make; ``stop`` (GoGui's interrupt) ends the search
    between two chunks."""
    budget = clock.budget(len(state.legal_actions()), most_left)
    if agent.budget is None:
        return agent.search(state)
    if budget is None:
        own = agent.budget
        return agent.search(state, Budget(sims=own.sims, seconds=own.seconds, stop=stop))
    base, hard = budget
    start = time.perf_counter()
    result = agent.search(state, Budget(seconds=max(base, 0.001), stop=stop))
    while (spent := time.perf_counter() - start) < hard - 0.01 and close(result):
        if stop is not None and stop.is_set():
            break
        step = max(0.001, min(base / 2, hard - spent))
        result = agent.search(state, Budget(seconds=step, stop=stop))
    return result


def close(result: SearchResult) -> bool:
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
