"""What a match adds up to: agent A's wins, draws and losses with their intervals and Elo
(:class:`MatchSummary`), and the result of a run (:class:`MatchResult`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mctslab.harness import stats
from mctslab.harness.game import GameRecord, score_of


@dataclass
class MatchSummary:
    """Agent A's result over a match: score = wins + draws/2."""

    games: int
    wins_a: int
    draws: int
    losses_a: int

    @property
    def score_a(self) -> float:
        return self.wins_a + 0.5 * self.draws

    @property
    def win_rate_a(self) -> float:
        return self.score_a / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return stats.wilson_interval(self.score_a, self.games)

    @property
    def two_sigma(self) -> float:
        return stats.two_sigma(self.score_a, self.games)

    @property
    def elo(self) -> tuple[float, float, float]:
        """A's Elo advantage with its 95% interval (see
        :func:`mctslab.harness.stats.elo_interval`)."""
        return stats.elo_interval(self.wins_a, self.draws, self.losses_a)

    @property
    def los(self) -> float:
        return stats.likelihood_of_superiority(self.wins_a, self.losses_a)

    def as_dict(self) -> dict:
        lo, hi = self.ci95
        elo, elo_lo, elo_hi = self.elo
        return {
            "games": self.games,
            "wins_a": self.wins_a,
            "draws": self.draws,
            "losses_a": self.losses_a,
            "score_a": self.score_a,
            "win_rate_a": self.win_rate_a,
            "ci95": [lo, hi],
            "two_sigma": self.two_sigma,
            "elo": _finite(elo),
            "elo_ci95": [_finite(elo_lo), _finite(elo_hi)],
            "los": self.los,
        }

    def score_text(self) -> str:
        """``A 63.0% ± 4.8 [58.1, 67.6] Elo +92`` — the progress bar's and the report's line."""
        if not self.games:
            return ""
        lo, hi = self.ci95
        elo = self.elo[0]
        elo_s = f"{round(elo) or 0:+d}" if abs(elo) != float("inf") else f"{elo:+}"
        return (
            f"A {100 * self.win_rate_a:.1f}% ± {100 * self.two_sigma:.1f} "
            f"[{100 * lo:.1f}, {100 * hi:.1f}] Elo {elo_s}"
        )


def _finite(x: float) -> float | None:
    """JSON has no infinity: an infinite Elo bound is reported as null."""
    return None if abs(x) == float("inf") else x


def summarise_scores(scores: Sequence[float]) -> MatchSummary:
    """Count A's wins (1), draws (½) and losses (0)."""
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    return MatchSummary(len(scores), wins, draws, len(scores) - wins - draws)


def summarise(records: Sequence[GameRecord], seat_of_a: Sequence[int]) -> MatchSummary:
    """Count A's wins, draws and losses; ``seat_of_a[i]`` is A's player index in game i."""
    return summarise_scores(
        [score_of(r.returns, s) for r, s in zip(records, seat_of_a, strict=True)]
    )


@dataclass
class MatchResult:
    summary: MatchSummary
    #: games found already finished in the database when the match started
    resumed_games: int
    #: the rows of the games counted in ``summary``, by game index
    rows: list[dict]
    #: the SPRT's verdict ('H0', 'H1', 'continue') or None without SPRT
    sprt: str | None = None
    run_id: int | None = None
