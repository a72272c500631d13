"""Gumbel AlphaZero's root arithmetic (Danihelka, Guez, Schrittwieser and Silver, "Policy
improvement by planning with Gumbel", ICLR 2022), in NumPy: it runs once per search.

At the root, with network logits ``l(a)`` and Gumbel draws ``g(a)`` (section 3: Gumbel-top-k
samples k actions without replacement), the search considers the ``m`` actions with the largest
``g(a) + l(a)`` and spends its simulations on them by sequential halving (section 4,
Algorithm 2): ``ceil(log2 m)`` phases, each giving every remaining action an equal share of the
phase's budget (the budget left divided by the phases left), then keeping the better half by
``g(a) + l(a) + sigma(q(a))``. The action played is the best remaining one by that score.

``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` (section 4, eq. 8; ``c_visit`` 50 and
``c_scale`` 1 there), with ``q`` on the win-rate scale [0, 1] (``(Q + 1) / 2`` of the tree's
values in [-1, 1]; the paper normalises Q to [0, 1], mctx by the min and max of the completed Q).

The completed Q (Appendix D, eq. 33) fills the actions never visited with the mixed value
``v_mix = (v + sum_b N(b) / (sum_{b: N(b) > 0} pi(b)) * sum_{b: N(b) > 0} pi(b) q(b)) /
(1 + sum_b N(b))``, ``v`` the network's value of the root, ``pi`` its priors. The improved policy,
the training target, is ``softmax(l + sigma(completed q))`` (section 5, eq. 11).
"""

from __future__ import annotations

import math

import numpy as np


def sigma(q01: np.ndarray, visits: np.ndarray, c_visit: float, c_scale: float) -> np.ndarray:
    """The monotone transform of win-rate-scale values (module docstring)."""
    return (c_visit + float(visits.max(initial=0))) * c_scale * q01


def completed_q(q: np.ndarray, visits: np.ndarray, priors: np.ndarray, value: float) -> np.ndarray:
    """Visited actions' Q, the mixed value elsewhere (module docstring; all in [-1, 1])."""
    seen = visits > 0
    total = float(visits.sum())
    mix = value
    if seen.any():
        mass = float(priors[seen].sum())
        weighted = float((priors[seen] * q[seen]).sum()) / max(mass, 1e-12)
        mix = (value + total * weighted) / (1.0 + total)
    return np.where(seen, q, mix)


def improved_policy(
    logits: np.ndarray, cq: np.ndarray, visits: np.ndarray, c_visit: float, c_scale: float
) -> np.ndarray:
    """``softmax(logits + sigma(completed q))`` over the root's actions."""
    z = logits + sigma((cq + 1) / 2, visits, c_visit, c_scale)
    z = np.exp(z - z.max())
    return z / z.sum()


def phases(m: int) -> int:
    """The phases of sequential halving over ``m`` actions: ``ceil(log2 m)``, at least 1."""
    return max(1, math.ceil(math.log2(m))) if m > 1 else 1


def halve(scores: np.ndarray, remaining: list[int]) -> list[int]:
    """The better half (rounded up) of ``remaining`` by ``scores`` (ties: the earlier)."""
    keep = math.ceil(len(remaining) / 2)
    order = sorted(remaining, key=lambda i: -scores[i])
    return order[:keep]
