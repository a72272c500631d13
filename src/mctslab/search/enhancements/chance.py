"""Chance nodes in the tree, fully expanded and probability-weighted (``chance=expanded``).

The descent takes the outcome with the largest ``p_i / (n_i + 1)`` (Antonoglou et al. 2022,
*Planning in Stochastic Environments with a Learned Model* (Stochastic MuZero), section 3: visits
follow the probabilities without sampling noise; ties at random), skipping solved outcomes; the
chance node's value is ``sum_i p_i Q_i / sum_i p_i`` over its visited outcomes, so a rare outcome
weighs what its probability says however often it was visited. The statistics are the tree's
``prob`` array (the probability of the outcome leading to each child of a chance node).
"""

import numpy as np
from numba import njit

from mctslab.search.enhancements.selection import tie_break
from mctslab.search.enhancements.solver import solved_value
from mctslab.search.tree import UNPROVEN


@njit(cache=True)
def expanded_outcome(fc, k, visits, proven, prob, solver, rng):
    """The outcome (0 .. k-1) to descend into: the largest ``p_i / (n_i + 1)`` among the
    unsolved ones (ties at random), -1 when every outcome is solved. Returns ``(j, rng)``."""
    j = -1
    best = -np.inf
    ties = 0
    for i in range(k):
        if solver and proven[fc + i] != UNPROVEN:
            continue
        take, best, ties, rng = tie_break(prob[fc + i] / (visits[fc + i] + 1.0), best, ties, rng)
        if take:
            j = i
    return j, rng


@njit(cache=True)
def weighted_mean(fc, k, visits, value, proven, exact, prob):
    """A fully expanded chance node's value: ``sum_i p_i Q_i / sum_i p_i`` over its outcomes that
    have been visited (or solved, with their exact values)."""
    num = 0.0
    den = 0.0
    for i in range(fc, fc + k):
        if proven[i] != UNPROVEN:
            num += prob[i] * solved_value(proven, value, exact, i)
        elif visits[i] > 0:
            num += prob[i] * np.float64(value[i])
        else:
            continue
        den += prob[i]
    return num / den if den > 0.0 else 0.0
