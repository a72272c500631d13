"""MCTS-Solver's arithmetic of exact values (Winands, Björnsson, Saito 2008, *Monte-Carlo Tree
Search Solver*, Computers and Games, section 3; extended here to exact values: draws and
expectations through chance nodes, expectimax).

A node is *solved* when its exact win value ``v`` for its mover is known: 1 is a proven win
(PROVEN_WIN), 0 a proven loss (PROVEN_LOSS), anything else PROVEN_EXACT. The statistics are the
tree's ``proven`` array and, for PROVEN_EXACT, ``exact`` (double precision, when allocated) or
``value``. The solver works in two-player constant-sum games, where a win value for one player is
``1 - v`` for the other.
"""

import numpy as np
from numba import njit

from mctslab.search.tree import NO_CHILD, PROVEN_EXACT, PROVEN_LOSS, PROVEN_WIN, ROOT, UNPROVEN


@njit(inline="always")
def solved_value(proven, value, exact, i):
    """The exact win value of the solved node ``i`` for its mover: 1 for PROVEN_WIN, 0 for
    PROVEN_LOSS, the stored value for PROVEN_EXACT (``exact`` when allocated, else ``value``)."""
    s = proven[i]
    if s == PROVEN_WIN:
        return 1.0
    if s == PROVEN_LOSS:
        return 0.0
    return exact[i] if exact.shape[0] > 0 else np.float64(value[i])


@njit(inline="always")
def status_of(v):
    """The solver status of the exact win value ``v``: PROVEN_WIN (1), PROVEN_LOSS (0), else
    PROVEN_EXACT."""
    return PROVEN_WIN if v == 1.0 else PROVEN_LOSS if v == 0.0 else PROVEN_EXACT


@njit(inline="always")
def for_player(v, p):
    """A win value for player ``p`` from one for player 0 (and back): ``v`` or ``1 - v``."""
    return v if p == 0 else 1.0 - v


@njit(inline="always")
def set_solved(proven, value, exact, i, v):
    """Record that node ``i`` has the exact win value ``v`` for its mover; returns its status."""
    status = status_of(v)
    proven[i] = status
    if status == PROVEN_EXACT:
        value[i] = v
        if exact.shape[0] > 0:
            exact[i] = v
    return status


@njit(cache=True)
def decision_value(fc, k, proven, value, exact):
    """The exact value of a decision node for its player to move ``p``, from its children (whose
    values are for ``p``): 1 if a child is a proven win, else the best child's value once every
    child is solved, else -1 (unsolved)."""
    best = -1.0
    for i in range(fc, fc + k):
        if proven[i] == PROVEN_WIN:
            return 1.0
        if proven[i] == UNPROVEN:
            best = 2.0
        elif best < 2.0:
            best = max(best, solved_value(proven, value, exact, i))
    return -1.0 if best == 2.0 else best


@njit(cache=True)
def chance_value(fc, k, proven, value, exact, prob):
    """The exact value of a chance node once every outcome is solved: ``sum_i p_i v_i``
    (expectimax); -1 while one is not."""
    v = 0.0
    for i in range(fc, fc + k):
        if proven[i] == UNPROVEN:
            return -1.0
        v += prob[i] * solved_value(proven, value, exact, i)
    return v


@njit(cache=True)
def root_status(first_child, num_children, proven, value, exact):
    """MCTS-Solver at the root, for the player to move there: a win if some child is a proven win
    for that player, a loss if every child is a proven loss, PROVEN_EXACT if every child is
    solved with some other best value, else unproven."""
    fc = first_child[ROOT]
    if fc == NO_CHILD:
        return UNPROVEN
    v = decision_value(fc, num_children[ROOT], proven, value, exact)
    return UNPROVEN if v < 0.0 else status_of(v)
