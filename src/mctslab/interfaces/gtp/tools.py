"""The GTP commands that controllers and tournament tools send beyond the required set:

- ``echo ...`` (the arguments back) and ``cputime`` (this process's CPU seconds), which GoGui's
  and gogui-twogtp's time keeping read;
- ``reg_genmove colour``: the move ``genmove`` would play, without playing it (GNU Go's
  regression suites, Fuego's ``.tst`` files);
- ``kgs-time_settings none | absolute main | canadian main byo_yomi stones | byoyomi main period
  periods`` (KGS's kgsGtp): the clock of :mod:`.clock`; Japanese byo-yomi is kept as one stone
  per period of ``period`` seconds (the spare periods are not counted on);
- ``gomill-describe_engine``: the version, the agent's canonical spec string and the seed, which
  gomill's ringmaster stores with each tournament so that a run can be reproduced.
"""

from __future__ import annotations

import copy
import time

from mctslab import __version__ as _version
from mctslab.interfaces.gtp.protocol import CONVERT, Colour, GtpError


class ToolCommands:
    """The commands of the module doc, mixed into the engine
    (:class:`~mctslab.interfaces.gtp.engine.Engine` keeps ``agent``, ``seed``, ``clocks``,
    ``resigners``, ``pos``, ``state`` and ``_genmove``)."""

    def cmd_echo(self, *words: str):
        return " ".join(words)

    def cmd_cputime(self):
        return f"{time.process_time():.3f}"

    def cmd_reg_genmove(self, colour: Colour):
        moves, state = list(self.pos.moves), self.state
        clocks, resigners = copy.deepcopy(self.clocks), copy.deepcopy(self.resigners)
        try:
            return self._genmove(colour, cleanup=False)
        finally:
            self.pos.moves, self.state = moves, state
            self.clocks, self.resigners = clocks, resigners

    def cmd_kgs_time_settings(self, system: str, *values: str):
        system = system.lower()
        counts = {"none": 0, "absolute": 1, "canadian": 3, "byoyomi": 3}
        if system not in counts:
            raise GtpError(f"unknown time system {system!r}: none, absolute, canadian or byoyomi")
        if len(values) != counts[system]:
            raise GtpError(f"kgs-time_settings {system} takes {counts[system]} numbers")
        numbers = [CONVERT[float](v) for v in values]
        if any(x < 0 for x in numbers):
            raise GtpError("time settings must not be negative")
        if system == "none":
            settings = (0.0, 1.0, 0)  # GTP's "no time limit": byo-yomi time, no stones
        elif system == "absolute":
            settings = (numbers[0], 0.0, 0)
        elif system == "canadian":
            settings = (numbers[0], numbers[1], int(numbers[2]))
        elif numbers[2] > 0:
            settings = (numbers[0], numbers[1], 1)
        else:  # no periods: absolute time
            settings = (numbers[0], 0.0, 0)
        for clock in self.clocks:
            clock.settings(*settings)

    def cmd_gomill_describe_engine(self):
        return "\n".join(
            [
                f"mctslab {_version}",
                f"game: {self.pos.game.spec.spec_string}",
                f"agent: {self._pending.spec_string}",
                f"seed: {self.seed if self.seed is not None else 'none (random)'}",
            ]
        )
