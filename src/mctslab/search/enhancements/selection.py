"""Selection rules of the UCT family: the UCB formulas, the random tie-break and RAVE.

For a child with ``n`` visits and mean win value ``Q`` (``W = Q n`` wins) for the player to
move, at a node whose parent-visit count is ``N``, and the constant ``c``:

* ``SLIDES`` (lecture slides *Deep Learning 12 — MCTS*, the UCT slide; UCB1 of Auer et al. 2002
  for c = 1): ``Q + c sqrt(2 ln N / n)``
* ``PAPER`` (Chou, Teytaud, Yen 2011, the NoGo paper, Algorithm 1 and section 3.4):
  ``W/(n+1) + C sqrt(ln(t+1)/(n+1))`` with ``t = N``, and "+∞ if nb_t(o) = 0" (Algorithm 1):
  an untried move comes first as in the other formulas
* ``PAPER_PM1``: ``PAPER`` with rewards +1 and -1 instead of 1 and 0 (the paper does not give
  its reward scale): ``(2W - n)/(n+1) + C sqrt(ln(t+1)/(n+1))``, the same as ``PAPER``'s score
  with ``(W + 1/2)/(n+1)`` (a few visits pulled towards an even game instead of a loss) and
  ``C/2``
* ``BOOK`` (Kocsis and Szepesvári 2006 as in Browne et al. 2012): ``Q + c sqrt(ln N / n)``
* ``UCB1_TUNED`` (Auer, Cesa-Bianchi, Fischer 2002, eq. in section 4):
  ``Q + c sqrt(ln N / n * min(1/4, V))``, ``V = mean(w^2) - Q^2 + sqrt(2 ln N / n)``

Unvisited children score +inf (first) under every formula. Equal best scores are
broken uniformly at random. With the solver, children proven lost for the player to move are
never selected.

**RAVE** (:func:`rave_beta`): a child with AMAF statistics (``amaf_n > 0``, see
:mod:`mctslab.search.enhancements.amaf`) is scored with ``(1 - β) Q + β Q̃`` in place of ``Q``
(under ``PAPER``, in place of ``W/(n+1)``: the paper's ``α r + (1 - α) r'``, and under ``PAPER_PM1``
``2 α r + 2 (1 - α) r' - 1``), plus the formula's
exploration term. An unvisited child with AMAF statistics is no longer +inf: it scores ``Q̃``
(β = 1 at n = 0 in every schedule) plus the exploration term taken at ``n = 1`` (under ``PAPER``
the term already uses ``n + 1``: the paper's section 3.1 score ``α r + (1 − α) r′ +
C sqrt(log(t+1)/(nb+1))`` at ``nb = 0``, where ``α = 0``), so the AMAF values order the children
before they are tried; one without AMAF statistics is still +inf, and so is every unvisited child
with ``expand_all`` false (untried children first, as without RAVE).
"""

import math

import numpy as np
from numba import njit

from mctslab.kernels.rng import below
from mctslab.search.tree import PROVEN_LOSS

# Selection formulas (``UctParams.formula``).
SLIDES = 0
PAPER = 1
BOOK = 2
UCB1_TUNED = 3
PAPER_PM1 = 4
# RAVE schedules (``UctParams.rave``).
RAVE_OFF = 0
RAVE_PAPER = 1
RAVE_GELLY_SILVER = 2
RAVE_ARTICLE = 3
#: the ``formula`` and ``rave`` options' values (in the order ``--help`` lists them) and the
#: codes the kernels read: the one declaration of each list
FORMULA_CODES = {
    "slides": SLIDES,
    "paper": PAPER,
    "paper_pm1": PAPER_PM1,
    "book": BOOK,
    "ucb1tuned": UCB1_TUNED,
}
RAVE_CODES = {
    "off": RAVE_OFF,
    "paper": RAVE_PAPER,
    "gelly_silver": RAVE_GELLY_SILVER,
    "article": RAVE_ARTICLE,
}


@njit(cache=True)
def rave_beta(schedule, n, na, k, b):
    """Weight of the AMAF mean in the RAVE mix ``(1 - β) Q + β Q̃`` for a child with ``n`` visits
    and ``na`` AMAF updates (``na > 0``):

    * ``RAVE_PAPER`` (NoGo paper section 3.1): ``α r + (1 - α) r'`` with ``α = n / (K + n)``,
      so ``β = 1 - α = K / (K + n)``
    * ``RAVE_GELLY_SILVER`` (Gelly and Silver 2011, the minimum-MSE schedule):
      ``β = ñ / (n + ñ + 4 b² n ñ)``
    * ``RAVE_ARTICLE`` (the Hex article series' RAVE agent): ``α = max(0, (K - N) / K)`` on the
      AMAF value with ``N`` the child's visits, i.e. ``β = max(0, (K - n) / K)``; the article
      mixes the whole UCT score, here the exploration term is left unmixed
    """
    if schedule == RAVE_PAPER:
        return k / (k + n)
    if schedule == RAVE_GELLY_SILVER:
        return na / (n + na + 4.0 * b * b * n * na)
    return max(0.0, (k - n) / k)


@njit(inline="always")
def ucb_score(formula, c, q, nf, ne, log_n, big_n, q_sq, mixed):
    """The selection score of a child (formulas in the module doc): mean ``q`` (the RAVE mix when
    ``mixed``), ``nf`` visits, ``ne`` the visits in the exploration term, ``log_n = ln N``,
    ``big_n = N``, ``q_sq`` the mean squared value (UCB1-Tuned)."""
    if formula == SLIDES:
        return q + c * math.sqrt(2.0 * log_n / ne)
    if formula == BOOK:
        return q + c * math.sqrt(log_n / ne)
    if formula in (PAPER, PAPER_PM1):
        r = 2.0 * q - 1.0 if formula == PAPER_PM1 else q  # the mean reward on the formula's scale
        qterm = r if mixed else r * nf / (nf + 1.0)
        return qterm + c * math.sqrt(math.log(big_n + 1.0) / (nf + 1.0))
    # V >= 0 for a node's own running means; a fully expanded chance node's Q is the weighted
    # mean of its outcomes instead, so V is clamped at 0 (a negative V made the score NaN and
    # the selection choose nothing)
    var = q_sq - q * q + math.sqrt(2.0 * log_n / ne)
    return q + c * math.sqrt(log_n / ne * max(0.0, min(0.25, var)))


@njit(inline="always")
def tie_break(score, best, ties, rng):
    """Keep the best score, equal best scores broken uniformly at random (reservoir sampling):
    returns ``(take this one, best, ties, rng)``."""
    if score > best:
        return True, score, 1, rng
    if score == best:
        ties += 1
        rng, r = below(rng, ties)
        return r == 0, best, ties, rng
    return False, best, ties, rng


@njit(cache=True)
def select_ucb(
    fc, k, visits, value, proven, value_sq, solver, formula, c, log_n, big_n, tuned, rng,
):  # fmt: skip
    """Selection among the children ``fc .. fc+k-1`` without RAVE (module doc): the best
    :func:`ucb_score`, ties at random, unvisited children first.
    Returns ``(chosen, rng)``, chosen -1 when every child is proven lost."""
    chosen = -1
    best = -np.inf
    ties = 0
    for i in range(fc, fc + k):
        if solver and proven[i] == PROVEN_LOSS:
            continue
        n = visits[i]
        if n == 0:
            score = np.inf
        else:
            nf = np.float64(n)
            q_sq = np.float64(value_sq[i]) if tuned else 0.0
            score = ucb_score(formula, c, np.float64(value[i]), nf, nf, log_n, big_n, q_sq, False)
        take, best, ties, rng = tie_break(score, best, ties, rng)
        if take:
            chosen = i
    return chosen, rng


@njit(cache=True)
def select_rave(
    fc, k, visits, value, proven, value_sq, amaf_n, amaf_v, solver, untried_first, formula, c,
    log_n, big_n, tuned, rave, rave_k, rave_b, rng,
):  # fmt: skip
    """Selection among the children ``fc .. fc+k-1`` with RAVE (module doc): a child with AMAF
    statistics scores ``(1 - β) Q + β Q̃`` (:func:`rave_beta`) plus the exploration term (taken
    at n = 1 when it is unvisited); an unvisited child without them is +inf, and so is every
    unvisited child with ``untried_first`` (one child per simulation). Returns
    ``(chosen, rng)``."""
    chosen = -1
    best = -np.inf
    ties = 0
    for i in range(fc, fc + k):
        if solver and proven[i] == PROVEN_LOSS:
            continue
        n = visits[i]
        na = amaf_n[i]
        if n == 0 and (untried_first or na == 0):
            score = np.inf
        else:
            q = np.float64(value[i])
            nf = np.float64(n)
            if na > 0:
                beta = rave_beta(rave, nf, np.float64(na), rave_k, rave_b)
                q = (1.0 - beta) * q + beta * np.float64(amaf_v[i])
            q_sq = np.float64(value_sq[i]) if tuned else 0.0
            score = ucb_score(formula, c, q, nf, max(nf, 1.0), log_n, big_n, q_sq, na > 0)
        take, best, ties, rng = tie_break(score, best, ties, rng)
        if take:
            chosen = i
    return chosen, rng
