"""Progress of a long command whose output is not a terminal.

The rich bars of matches, experiments, the tuner and training are drawn only on a terminal; under
``nohup`` or in a pipe they print nothing until the end, so a run of hours leaves an empty log.
:class:`PlainProgress` prints the bar's text as a plain line instead, at most every
:data:`PLAIN_PROGRESS_SECONDS` and once more when the total is reached.
"""

from __future__ import annotations

import time

#: seconds between two plain progress lines
PLAIN_PROGRESS_SECONDS = 60.0


class PlainProgress:
    """Lines ``WHAT: DONE/TOTAL TEXT`` (``WHAT: TEXT`` without a total) on ``console`` when it is
    not a terminal; nothing on a terminal, where the bar shows the same."""

    def __init__(self, console, what: str, total: int | None = None):
        self.console, self.what, self.total = console, what, total
        self.last = time.monotonic()

    def update(self, done: int, text: str) -> None:
        if self.console.is_terminal:
            return
        now = time.monotonic()
        if (self.total is None or done < self.total) and now - self.last < PLAIN_PROGRESS_SECONDS:
            return
        self.last = now
        count = "" if self.total is None else f"{done}/{self.total} "
        self.console.print(f"{self.what}: {count}{text}", highlight=False)
