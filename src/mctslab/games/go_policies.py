"""Go playout policies and prior knowledge (:mod:`mctslab.search.playouts`).

Playouts: ``go``, the MoGo-style playout of :mod:`mctslab.games.go_playouts`; ``go_sa``, the same
with self-atari avoidance; ``go_fuego``, ``go_sa`` with Fuego's escapes by capture, low-liberty
moves and captures anywhere (:mod:`mctslab.games.go_fuego`); ``uniform`` with modifiers
(decisive, anti-decisive, LGRF, PoolRAVE) is the generic contract version
(:mod:`mctslab.search.playouts.policy_template`), whose uniform moves include passes and eye
fills. The ``go`` bases take no modifier: combined with one they stop the search with an error
rather than silently ignoring it.

Prior knowledge (:func:`prior`, ``mcts(prior=...)``): Fuego's default prior knowledge.
"""

import numpy as np
from numba import njit

from mctslab.games import go_kernels
from mctslab.games.go_fuego import fuego_playout
from mctslab.games.go_kernels import C_N, C_P, C_SIZE, C_TABLES, C_W, EMPTY, HEADER, S_TO_MOVE
from mctslab.games.go_playouts import (
    MAX_CANDIDATES,
    go_style_playout,
    pattern_point,
    policy_points,
    safe_go_playout,
    self_atari,
)
from mctslab.kernels import codegen
from mctslab.search.playouts import policy_template as generic
from mctslab.search.playouts.common import BASE_UNIFORM

_generic = codegen.specialize(generic, go_kernels)
#: the MoGo-style playout
BASE_GO = 1
#: the MoGo-style playout with self-atari avoidance
BASE_GO_SA = 2
#: ``go_sa`` with Fuego's further rules
BASE_GO_FUEGO = 3
#: the base policies this module implements, name -> id (``PlayoutParams.base``)
BASES = {"uniform": BASE_UNIFORM, "go": BASE_GO, "go_sa": BASE_GO_SA, "go_fuego": BASE_GO_FUEGO}


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """The Go-style playouts for ``params.base`` ``BASE_GO``, ``BASE_GO_SA`` and
    ``BASE_GO_FUEGO``, else the generic one."""
    if params.base != BASE_GO and params.base != BASE_GO_SA and params.base != BASE_GO_FUEGO:
        return _generic.policy_playout(consts, state, rng, moves, out, last, params, stats)
    if params.decisive or params.anti or params.lgrf or params.pool_k:
        raise ValueError("playout=go takes no decisive, antidecisive, lgrf or pool modifier")
    if params.base == BASE_GO_FUEGO:
        return fuego_playout(consts, state, rng, moves, out)
    if params.base == BASE_GO_SA:
        return safe_go_playout(consts, state, rng, moves, out)
    return go_style_playout(consts, state, rng, moves, out)


@njit(cache=True)
def quality(consts, state, winner):
    """No qualitative measure for Go yet (the qualitative bonus stays off)."""
    return 0.0


@njit(cache=True)
def prior(consts, state, legal, k, counts, values, params):
    """Prior knowledge of the ``k`` legal actions ``legal`` of a Go position: ``values[j]`` a win
    value for the player to move, worth ``counts[j]`` simulations (0: no knowledge). Fuego's
    default prior knowledge (Enzenberger, Müller, Arneson and Segal, "Fuego — An Open-Source
    Framework for Board Games and Go Engine Based on Monte Carlo Tree Search", IEEE TCIAIG 2(4),
    2010; ``GoUctDefaultPriorKnowledge``), from what the playout policy would do here
    (:mod:`mctslab.games.go_playouts`):

    * the policy's own move is a capture or atari escape, or a 3x3 pattern around the last move
      (:func:`~mctslab.games.go_playouts.policy_points`): those moves 1.0, self-ataris 0.0,
      other pattern moves 0.6, the others 0.4, each worth 9 simulations;
    * else, if some empty point matches a pattern: self-ataris 0.0, pattern moves 1.0, the
      others 0.5 (the "even game" prior of Gelly and Silver 2007, *Combining online and offline
      knowledge in UCT*, ICML), each worth 3;
    * else self-ataris 0.0 worth 3, no knowledge of the others;
    * the pass 0.0 worth 9, always;
    * with ``params.edge_prior`` = E > 0 (``mcts(edge_prior=E)``), :func:`edge_prior` adds
      edge-distance knowledge after Pachi's: in an empty area a move on the first two lines
      0.0 and on the third and fourth 1.0, worth E more simulations (the values averaged by
      their counts, as Pachi adds priors).
    """
    w = np.int64(consts[C_W])
    pp = consts[C_P]
    nn = consts[C_N]
    col = state[S_TO_MOVE] + 1
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    n_best = policy_points(consts, state, cand, w, pp, True)
    any_pattern = n_best > 0
    for j in range(k):
        a = legal[j]
        if a < nn and not any_pattern:
            any_pattern = pattern_point(state, consts[C_TABLES + a], w)
    weight = 9.0 if n_best > 0 else 3.0
    for j in range(k):
        a = legal[j]
        if a >= nn:
            counts[j] = 9.0
            values[j] = 0.0
            continue
        p = consts[C_TABLES + a]
        counts[j] = weight
        if self_atari(state, p, col, w, pp) > 0:
            values[j] = 0.0
            continue
        best = False
        for i in range(n_best):
            best = best or cand[i] == p
        if best:
            values[j] = 1.0
        elif n_best > 0:
            values[j] = 0.6 if pattern_point(state, p, w) else 0.4
        elif any_pattern:
            values[j] = 1.0 if pattern_point(state, p, w) else 0.5
        else:
            counts[j] = 0.0
    if params.edge_prior > 0.0:
        edge_prior(consts, state, legal, k, counts, values, params.edge_prior)


#: no stone within this many points (rows and columns) makes an area empty for :func:`edge_prior`
EDGE_RADIUS = 2


@njit(inline="always")
def edge_prior(consts, state, legal, k, counts, values, weight):
    """An edge-distance prior after Pachi's (Baudiš and Gailly 2011, *Pachi: State of the Art
    Open Source Go Program*, ACG 13; ``uct_prior_b19``, which gives a first-line move 0 and a
    third-line move 1): a move with no stone within :data:`EDGE_RADIUS` points either way gets
    the value 0.0 on the first two lines (counted from the edge) and 1.0 on the third and
    fourth, worth ``weight`` simulations, averaged into ``counts``/``values`` by their counts
    (``v = (n v + weight v_e) / (n + weight)``, ``n += weight``); other moves are unchanged.
    Pachi's own form (lines 1 and 3 only, weight 10) was even with the preset at 2,000
    simulations on 13x13 (22 of 40): second-line moves in empty areas are what our searches
    played too often (docs/strength.md, "Go 13x13: the edge prior")."""
    size = np.int64(consts[C_SIZE])
    nn = consts[C_N]
    for j in range(k):
        a = np.int64(legal[j])
        if a >= nn:
            continue
        r = a // size
        c = a % size
        line = min(r, c, size - 1 - r, size - 1 - c)  # 0: the first line
        if line > 3:
            continue
        empty = True
        for rr in range(max(0, r - EDGE_RADIUS), min(size, r + EDGE_RADIUS + 1)):
            for cc in range(max(0, c - EDGE_RADIUS), min(size, c + EDGE_RADIUS + 1)):
                if state[HEADER + consts[C_TABLES + rr * size + cc]] != EMPTY:
                    empty = False
        if not empty:
            continue
        v = 1.0 if line >= 2 else 0.0
        n = counts[j] + weight
        values[j] = v if counts[j] == 0.0 else (counts[j] * values[j] + weight * v) / n
        counts[j] = n
