"""The arena's names in one place, for code written before the split (kept for callers outside
the harness; new code imports from the module that does the job):

- :mod:`mctslab.harness.game`: one game (:func:`play_game`), a match's game as a task
  (:class:`GameTask`, :func:`play_task`, :func:`seed_for`) and :func:`replay`;
- :mod:`mctslab.harness.match`: a match's summary and result (:class:`MatchSummary`,
  :func:`summarise_scores`, :class:`MatchResult`);
- :mod:`mctslab.harness.schedule`: running many games (:func:`run_match`, :func:`play_run`) with
  SPRT, locally or on Ray.
"""

from mctslab.harness.game import (
    SEARCH_STAT_FIELDS,
    GameRecord,
    GameTask,
    play_game,
    play_pair,
    play_task,
    replay,
    score_of,
    seed_for,
)
from mctslab.harness.match import MatchResult, MatchSummary, summarise, summarise_scores
from mctslab.harness.schedule import canonical_specs, match_tasks, play_run, run_match

__all__ = [
    "SEARCH_STAT_FIELDS",
    "GameRecord",
    "GameTask",
    "MatchResult",
    "MatchSummary",
    "canonical_specs",
    "match_tasks",
    "play_game",
    "play_pair",
    "play_run",
    "play_task",
    "replay",
    "run_match",
    "score_of",
    "seed_for",
    "summarise",
    "summarise_scores",
]
