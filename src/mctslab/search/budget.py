"""The budget of one search, given per call, and the one loop that spends it.

Every search (:class:`~mctslab.search.uct.Uct`, :class:`~mctslab.search.flat.Flat`,
:class:`~mctslab.search.mdp.Mdp`, :class:`~mctslab.search.parallel.RootParallel`) takes a
:class:`Budget` with each call, as OpenSpiel's bots and KataGo's search take theirs: an agent
keeps the budget its spec string gives as a default, and the arena, GTP time control and the web
session pass their own per move without touching the agent.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mctslab.errors import SpecError

#: A chunk of simulations between two clock readings should take about this long: short enough
#: that the last chunk cannot overrun a time budget by much, long enough that the ~10 µs of Python
#: per chunk is noise.
CHUNK_SECONDS = 0.005
#: Simulations in the first chunk of a timed search, before the speed is known.
FIRST_CHUNK = 8
#: The largest time budget a search accepts (a day): anything longer is a mistake, not a plan.
MAX_SECONDS = 86_400.0


@dataclass(frozen=True)
class Budget:
    """Simulations and/or seconds for one search (whichever ends first), and an optional
    ``stop`` event that ends the search between two chunks (GUI interrupts, analysis).

    At least one chunk of simulations always runs, so that there is a move to choose.
    """

    sims: int | None = None
    seconds: float | None = None
    stop: threading.Event | None = None

    def __post_init__(self) -> None:
        if self.sims is None and self.seconds is None and self.stop is None:
            raise SpecError("a budget needs sims, seconds or a stop event")
        if self.sims is not None and (isinstance(self.sims, bool) or self.sims < 1):
            raise SpecError(f"sims={self.sims}: should be a whole number >= 1")
        if self.seconds is not None and not (0 < self.seconds <= MAX_SECONDS):
            raise SpecError(
                f"seconds={self.seconds}: should be > 0 and <= {MAX_SECONDS:g} (one day)"
            )
        if self.seconds is not None and math.isnan(self.seconds):
            raise SpecError("seconds=nan: should be > 0 and <= 86400")

    @property
    def chunked(self) -> bool:
        """Whether the loop must look at the clock or the stop event between chunks."""
        return self.seconds is not None or self.stop is not None


def run_budget(run: Callable[[int], int], budget: Budget, start: float) -> int:
    """Call ``run(n)`` (run up to ``n`` more simulations, return how many ran) until
    ``budget.sims`` simulations are done, ``budget.seconds`` have passed since ``start``
    (``time.perf_counter``) or ``budget.stop`` is set, whichever comes first, or until ``run``
    returns fewer than asked (the search is finished). At least one chunk runs.

    Without a time limit or stop event this is one call. With one, chunks are sized from the
    measured speed to take :data:`CHUNK_SECONDS` and never more than the time left. Returns the
    simulations run.
    """
    sims, seconds, stop = budget.sims, budget.seconds, budget.stop
    done = 0
    chunk = FIRST_CHUNK
    while sims is None or done < sims:
        want = (sims - done) if sims is not None else chunk
        if budget.chunked:
            if done > 0 and (
                (seconds is not None and time.perf_counter() - start >= seconds)
                or (stop is not None and stop.is_set())
            ):
                break
            want = min(want, chunk)
        t0 = time.perf_counter()
        ran = run(want)
        dt = time.perf_counter() - t0
        done += ran
        if ran < want:
            break
        if budget.chunked:
            rate = ran / max(dt, 1e-7)
            left = CHUNK_SECONDS if seconds is None else seconds - (time.perf_counter() - start)
            chunk = max(1, int(rate * min(CHUNK_SECONDS, left)))
    return done
