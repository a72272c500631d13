"""Match statistics. Draws count half a point throughout."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927, JASA 22:209–212).

    ``score`` is wins plus half the draws out of ``n`` games::

        centre = (p + z²/2n) / (1 + z²/n),  half = z·sqrt(p(1−p)/n + z²/4n²) / (1 + z²/n)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = score / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def two_sigma(score: float, n: int) -> float:
    """The NoGo paper's ± figure: two standard deviations of the win rate, 2·sqrt(p(1−p)/n)."""
    if n <= 0:
        return 1.0
    p = score / n
    return 2.0 * math.sqrt(p * (1.0 - p) / n)
