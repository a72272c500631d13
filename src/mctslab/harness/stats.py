"""Match statistics. Draws count half a point throughout.

Every function takes counts (wins, draws, losses or a score out of ``n`` games) from one player's
side ("A") and returns plain floats, so the arena, the progress bar, the experiment reports and
the tests all use the same formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

Z95 = float(norm.ppf(0.975))  # two-sided 95% normal quantile, 1.959963984540054


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927, JASA 22:209–212).

    ``score`` is wins plus half the draws out of ``n`` games::

        centre = (p + z²/2n) / (1 + z²/n),  half = z·sqrt(p(1−p)/n + z²/4n²) / (1 + z²/n)

    The interval always holds p; the bounds are clamped to p so that rounding at p = 0 or 1
    (``centre − half`` came out 3.5e-18 at 0 of 100) never puts p outside it.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = score / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def two_sigma(score: float, n: int) -> float:
    """The NoGo paper's ± figure: two standard deviations of the win rate, 2·sqrt(p(1−p)/n)."""
    if n <= 0:
        return 1.0
    p = score / n
    return 2.0 * math.sqrt(p * (1.0 - p) / n)


def elo_from_score(p: float) -> float:
    """Logistic Elo difference for an expected score ``p``: ``−400·log10(1/p − 1)``
    (±inf at 0 and 1)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: ``1 / (1 + 10^(−elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_interval(
    wins: int, draws: int, losses: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Elo difference of A over B with a confidence interval, as cutechess-cli's ``Elo`` class
    prints it: the per-game score (1, ½, 0) has mean ``μ`` and standard error
    ``s = sqrt((w(1−μ)² + d(½−μ)² + l(0−μ)²)/n) / sqrt(n)``; the interval
    ``μ ± Φ⁻¹((1+confidence)/2)·s`` is mapped through :func:`elo_from_score`.

    Returns ``(elo, low, high)``; bounds are ±inf when a score bound reaches 0 or 1.
    """
    n = wins + draws + losses
    if n == 0:
        return (0.0, -math.inf, math.inf)
    mu = (wins + 0.5 * draws) / n
    var = (wins * (1 - mu) ** 2 + draws * (0.5 - mu) ** 2 + losses * mu**2) / n
    se = math.sqrt(var / n)
    z = float(norm.ppf(0.5 + confidence / 2))
    return (elo_from_score(mu), elo_from_score(mu - z * se), elo_from_score(mu + z * se))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that A is stronger than B given the decisive games (draws carry no
    information): ``LOS = Φ((w − l) / sqrt(w + l))`` (the normal approximation used by
    cutechess-cli and the chess-engine testing community). 0.5 with no decisive game."""
    if wins + losses == 0:
        return 0.5
    return float(norm.cdf((wins - losses) / math.sqrt(wins + losses)))


@dataclass(frozen=True)
class Sprt:
    """Wald's sequential probability ratio test of H0: Elo = ``elo0`` against H1: Elo = ``elo1``
    with error rates ``alpha`` (accept H1 when H0 holds) and ``beta``, stopping bounds as in
    cutechess-cli (``sprt.cpp``): accept H1 when ``LLR ≥ log((1−β)/α)``, H0 when
    ``LLR ≤ log(β/(1−α))``.

    With draws, the log-likelihood ratio is cutechess-cli's trinomial BayesElo model: the draw
    Elo is estimated from the observed frequencies, Elo bounds are converted to BayesElo by the
    scale ``4x/(1+x)²`` with ``x = 10^(−drawElo/400)``, and
    ``LLR = w·log(p1w/p0w) + d·log(p1d/p0d) + l·log(p1l/p0l)``.
    Without draws (NoGo, Hex, Nim have none) the model is binomial with logistic Elo:
    ``p_i = 1/(1+10^(−elo_i/400))``, ``LLR = w·log(p1/p0) + l·log((1−p1)/(1−p0))``.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """The log-likelihood ratio of H1 against H0 for these counts."""
        if wins + losses + draws == 0:
            return 0.0
        if draws == 0:
            p0, p1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
            return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))
        if wins == 0 or losses == 0:
            return 0.0  # cutechess-cli: no estimate of the draw Elo yet
        n = wins + draws + losses
        pw, pl = wins / n, losses / n
        draw_elo = 200.0 * math.log10((1 - pl) / pl * (1 - pw) / pw)
        x = 10.0 ** (-draw_elo / 400.0)
        scale = 4.0 * x / (1.0 + x) ** 2

        def probs(bayes_elo: float) -> tuple[float, float, float]:
            w = 1.0 / (1.0 + 10.0 ** ((draw_elo - bayes_elo) / 400.0))
            lo = 1.0 / (1.0 + 10.0 ** ((draw_elo + bayes_elo) / 400.0))
            return w, 1.0 - w - lo, lo

        w0, d0, l0 = probs(self.elo0 / scale)
        w1, d1, l1 = probs(self.elo1 / scale)
        return wins * math.log(w1 / w0) + draws * math.log(d1 / d0) + losses * math.log(l1 / l0)

    def status(self, wins: int, draws: int, losses: int) -> str:
        """``'H1'`` (A is at least ``elo1`` stronger), ``'H0'`` or ``'continue'``."""
        lo, hi = self.bounds
        value = self.llr(wins, draws, losses)
        if value >= hi:
            return "H1"
        if value <= lo:
            return "H0"
        return "continue"
