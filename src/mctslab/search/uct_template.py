"""The compiled search loops, written once against the kernel contract and specialised per game
by :func:`mctslab.kernels.codegen.specialize` (the two marked imports below are rewritten for each
game:
its kernels module as ``game`` and its playout-policies module as ``policies``).

:func:`uct` runs many simulations of the UCT family inside one compiled call; :func:`flat` runs
flat Monte Carlo. Both keep every bit of state in caller-owned arrays, so the Python driver can
call them in chunks (to check a wall-clock budget) that continue the same search.

Win values: a simulation's per-player returns ``r`` become win values
``w = (r - min_utility) / (max_utility - min_utility)`` (1 win, 0 loss, 0.5 draw in a two-player
zero-sum game); every statistic in the tree is a win value.

The contract kernels come from ``game``; the game's *policies module* ``policies``
(:mod:`mctslab.search.playouts`) adds ``policy_playout`` and ``quality``. Every enhancement is off
unless its parameter turns it on, and when off it costs one test per simulation: RAVE
(``iparams[P_RAVE]``), the playout policy (``P_POLICY``), Last Good Reply (``pol[PL_LGRF]``),
PoolRAVE (``pol[PL_POOL_K]``) and Quality-Based Rewards (``P_QBR``); their statistics are arrays
of shape [0] unless used.
"""

import math

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.games import nim_policies as policies  # mctslab:game-policies
from mctslab.kernels.rng import below, weighted
from mctslab.search.playouts.common import PL_LGRF, PL_NA, PL_POOL_K, sigmoid_bonus
from mctslab.search.transpositions import insert, lookup, state_hash
from mctslab.search.tree import NO_CHILD, PROVEN_EXACT, PROVEN_LOSS, PROVEN_WIN, ROOT, UNPROVEN

# Selection formulas (``iparams[P_FORMULA]``); see :func:`uct`.
SLIDES = 0
PAPER = 1
BOOK = 2
UCB1_TUNED = 3
# Leaf evaluations (``iparams[P_LEAF]``).
LEAF_PLAYOUT = 0
LEAF_COIN = 1
# RAVE schedules (``iparams[P_RAVE]``); see :func:`uct`.
RAVE_OFF = 0
RAVE_PAPER = 1
RAVE_GELLY_SILVER = 2
RAVE_ARTICLE = 3
# Chance nodes (``iparams[P_CHANCE_TREE]``); see :func:`uct`.
CHANCE_OFF = 0
CHANCE_SAMPLED = 1
CHANCE_EXPANDED = 2
# Layout of ``iparams``.
P_FORMULA, P_Z, P_EXPAND_ALL, P_SOLVER, P_LEAF = 0, 1, 2, 3, 4
P_NUM_PLAYERS, P_NUM_ACTIONS, P_MAX_LENGTH = 5, 6, 7
P_RAVE, P_POLICY, P_QBR = 8, 9, 10
P_CHANCE_TREE, P_NUM_CHANCE, P_EXACT = 11, 12, 13
N_IPARAMS = 14
# Layout of ``fparams``.
F_C, F_MIN_UTILITY, F_MAX_UTILITY = 0, 1, 2
F_RAVE_K, F_RAVE_B, F_QBR_A, F_QBR_K = 3, 4, 5, 6
N_FPARAMS = 7
#: PoolRAVE rebuilds its pools every this many simulations (and at the start of every call).
POOL_REFRESH = 16
#: QBR statistics per player (``qstats[6 p ...]``): count, mean and sum of squared deviations
#: (Welford) of the lengths, then of the qualities, of the simulations that player won.
N_QSTATS = 6
# Layout of ``counters`` (int64): pool slots in use, the root's solved status for the player
# to move at the root (UNPROVEN, PROVEN_WIN, PROVEN_LOSS or PROVEN_EXACT: every move's exact
# value is known), transposition-table slots in use.
C_USED, C_ROOT_PROVEN, C_TT_USED = 0, 1, 2
N_COUNTERS = 3

_CHANCE = -1
_TERMINAL = -4


@njit(cache=True)
def _new_children(
    first_child, num_children, action, parent, visits, value, proven, value_sq, amaf_n, amaf_v,
    node, fc, k, labels, tuned, rave,
):  # fmt: skip
    """Make ``first_child[fc .. fc+k-1]`` the children of ``node``, labelled ``labels[:k]``
    (actions, or chance outcomes), with empty statistics."""
    first_child[node] = fc
    num_children[node] = k
    for j in range(k):
        i = fc + j
        first_child[i] = NO_CHILD
        num_children[i] = 0
        action[i] = labels[j]
        parent[i] = node
        visits[i] = 0
        value[i] = 0.0
        proven[i] = UNPROVEN
        if tuned:
            value_sq[i] = 0.0
        if rave:
            amaf_n[i] = 0
            amaf_v[i] = 0.0


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
    """A win value for player ``p`` from one for player 0 (and back): ``v`` or ``1 - v``, in the
    two-player constant-sum games the solver works in."""
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


@njit(cache=True)
def _root_status(first_child, num_children, proven, value, exact):
    """MCTS-Solver at the root, for the player to move there: a win if some child is a proven win
    for that player, a loss if every child is a proven loss, PROVEN_EXACT if every child is
    solved with some other best value, else unproven."""
    fc = first_child[ROOT]
    if fc == NO_CHILD:
        return UNPROVEN
    v = decision_value(fc, num_children[ROOT], proven, value, exact)
    return UNPROVEN if v < 0.0 else status_of(v)


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
    """The selection score of a child (formulas in :func:`uct`): mean ``q`` (the RAVE mix when
    ``mixed``), ``nf`` visits, ``ne`` the visits in the exploration term, ``log_n = ln N``,
    ``big_n = N``, ``q_sq`` the mean squared value (UCB1-Tuned)."""
    if formula == SLIDES:
        return q + c * math.sqrt(2.0 * log_n / ne)
    if formula == BOOK:
        return q + c * math.sqrt(log_n / ne)
    if formula == PAPER:
        qterm = q if mixed else q * nf / (nf + 1.0)
        return qterm + c * math.sqrt(math.log(big_n + 1.0) / (nf + 1.0))
    var = q_sq - q * q + math.sqrt(2.0 * log_n / ne)
    return q + c * math.sqrt(log_n / ne * min(0.25, var))


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
def select_rave(
    fc, k, visits, value, proven, value_sq, amaf_n, amaf_v, solver, untried_first, formula, c,
    log_n, big_n, tuned, rave, rave_k, rave_b, rng,
):  # fmt: skip
    """Selection among the children ``fc .. fc+k-1`` with RAVE (see :func:`uct`): a child with
    AMAF statistics scores ``(1 - β) Q + β Q̃`` (:func:`rave_beta`) plus the exploration term
    (taken at n = 1 when it is unvisited); an unvisited child without them is +inf when the
    formula puts unvisited children first, and every unvisited child is with ``untried_first``
    (one child per simulation). Returns ``(chosen, rng)``."""
    unvisited_first = formula != PAPER or untried_first
    chosen = -1
    best = -np.inf
    ties = 0
    for i in range(fc, fc + k):
        if solver and proven[i] == PROVEN_LOSS:
            continue
        n = visits[i]
        na = amaf_n[i]
        if n == 0 and unvisited_first and (untried_first or na == 0):
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


@njit(cache=True)
def amaf_update(
    first_child, num_children, action, amaf_n, amaf_v, path, path_player, d, moves, n_po, w,
    mark, stamp, na,
):  # fmt: skip
    """AMAF (all moves as first; Gelly and Silver 2007) after one simulation.

    For every expanded node ``x = path[j]`` of the simulation (the leaf too, if it is expanded),
    with ``p`` the player to move at ``x``: every child of ``x`` whose action ``p`` played at
    step ``j`` or later of this simulation (in the tree or in the playout) gets
    ``amaf_n += 1`` and ``amaf_v += (w[p] - amaf_v) / amaf_n``, the win value from ``p``'s
    perspective (the perspective of every value in ``x``'s children block). A move played twice
    counts once. ``mark[p * na + a] == stamp`` records "``p`` played ``a`` at a step >= j";
    the playout's moves are marked first, then the tree's moves walking up the path.
    """
    for t in range(n_po):
        mark[moves[2 * t] * na + moves[2 * t + 1]] = stamp
    for j in range(d, -1, -1):
        pj = path_player[j]
        if j < d:
            mark[pj * na + action[path[j + 1]]] = stamp
        x = path[j]
        fx = first_child[x]
        if pj < 0 or fx == NO_CHILD:
            continue
        wv = w[pj]
        base = pj * na
        for i in range(fx, fx + num_children[x]):
            if mark[base + action[i]] == stamp:
                n = amaf_n[i] + 1
                amaf_n[i] = n
                q = np.float64(amaf_v[i])
                amaf_v[i] = q + (wv - q) / n


@njit(cache=True)
def _sim_move(t, d, path, path_player, action, moves):
    """The ``t``-th move of a simulation as ``(player, action)``: tree moves, then playout."""
    if t < d:
        return np.int64(path_player[t]), np.int64(action[path[t + 1]])
    return np.int64(moves[2 * (t - d)]), np.int64(moves[2 * (t - d) + 1])


@njit(cache=True)
def lgrf_update(ptab, na, path, path_player, action, d, moves, n_po, w):
    """Last Good Reply with Forgetting, LGRF-1 (Baier and Drake 2010), after one simulation:
    for every move ``b`` of player ``p`` that replies to the opponent's move ``a`` just before it
    (tree and playout moves alike), ``reply[p, a] = b`` if ``p`` won (win value > 1/2), and
    ``reply[p, a] = -1`` if ``p`` lost (< 1/2) and ``b`` was the stored reply."""
    for t in range(1, d + n_po):
        q, a = _sim_move(t - 1, d, path, path_player, action, moves)
        p, b = _sim_move(t, d, path, path_player, action, moves)
        if p == q:
            continue
        slot = p * na + a
        if w[p] > 0.5:
            ptab[slot] = b
        elif w[p] < 0.5 and ptab[slot] == b:
            ptab[slot] = -1


@njit(cache=True)
def pool_update(pstat, path, path_player, action, d, moves, n_po, w, mark, stamp, na, np_):
    """PoolRAVE's statistics: the AMAF values at the root for every player. Every move ``a``
    that player ``p`` played in the simulation (once, however often) updates the mean win value
    for ``p`` in ``pstat[p * na + a]`` (count) and ``pstat[np_ * na + p * na + a]`` (mean)."""
    off = np_ * na
    for t in range(d + n_po):
        p, a = _sim_move(t, d, path, path_player, action, moves)
        slot = p * na + a
        if mark[off + slot] == stamp:
            continue
        mark[off + slot] = stamp
        n = pstat[slot] + 1.0
        pstat[slot] = n
        pstat[off + slot] += (w[p] - pstat[off + slot]) / n


@njit(cache=True)
def pool_rebuild(pstat, ptab, pol, np_):
    """PoolRAVE (Hoock et al. 2010; the Hex article): each player's pool is the ``k`` moves with
    the best AMAF mean at the root among those played at least once (fewer if fewer were
    played), best first; ties go to the lower action."""
    na = pol[PL_NA]
    k = pol[PL_POOL_K]
    off = np_ * na
    base = np_ * na
    for p in range(np_):
        size = 0
        while size < k:
            best = -1
            for a in range(na):
                if pstat[p * na + a] == 0.0:
                    continue
                taken = False
                for j in range(size):
                    if ptab[base + p * k + j] == a:
                        taken = True
                        break
                if taken:
                    continue
                if best < 0 or pstat[off + p * na + a] > pstat[off + p * na + best]:
                    best = a
            if best < 0:
                break
            ptab[base + p * k + size] = best
            size += 1
        ptab[base + np_ * k + p] = size


@njit(cache=True)
def qbr_adjust(qstats, w, length, quality, a, k, num_players):
    """Quality-Based Rewards (Pepels, Tak, Lanctot, Winands 2014, ECAI): for a decided two-player
    simulation won by ``τ`` (win value 1), with the reward ``r = ±1`` (winner, loser):

    * relative bonus: ``λ_r = (D̄_τ - D) / σ_D,τ``, ``D`` the simulation's length (moves from the
      root), ``D̄_τ`` and ``σ_D,τ`` the mean and standard deviation of the lengths of the earlier
      simulations that ``τ`` won (a short win is a good win);
    * qualitative bonus: ``λ_q = (q - Q̄_τ) / σ_Q,τ``, ``q`` the game's ``quality`` of the final
      state for ``τ`` (e.g. NoGo: the winner's legal moves left);
    * each squashed by ``b(λ) = -1 + 2 / (1 + exp(-k λ))`` and added as
      ``r + sgn(r) a (b(λ_r) + b(λ_q))`` (a bonus is 0 while its σ is 0 or fewer than two
      samples exist). The paper estimates ``a`` online; here it is a constant (Ludii's 0.25 and
      k = 1.4 by default). On the win-value scale ``w = (r + 1) / 2`` the winner gets
      ``1 + a B / 2`` and the loser ``-a B / 2``.

    Then ``D`` and ``q`` join ``τ``'s statistics (Welford's running mean and variance).
    """
    winner = -1
    for p in range(num_players):
        if w[p] == 1.0:
            winner = p
    if winner < 0:
        return
    s = N_QSTATS * winner
    bonus = 0.0
    for h in range(2):
        x = length if h == 0 else quality
        o = s + 3 * h
        cnt = qstats[o]
        if cnt >= 2.0:
            sd = math.sqrt(qstats[o + 2] / cnt)
            if sd > 0.0:
                lam = (qstats[o + 1] - x) / sd if h == 0 else (x - qstats[o + 1]) / sd
                bonus += sigmoid_bonus(lam, k)
        cnt += 1.0
        delta = x - qstats[o + 1]
        qstats[o] = cnt
        qstats[o + 1] += delta / cnt
        qstats[o + 2] += delta * (x - qstats[o + 1])
    for p in range(num_players):
        w[p] += (0.5 if p == winner else -0.5) * a * bonus


@njit(cache=True)
def exact_search(
    consts, root, budget, lo, span, tt_keys, tt_vals, tt_mult, counters, states, labels, probs,
    nlab, idx, acc, kind, hashes, out,
):  # fmt: skip
    """Exact value of ``root`` for player 0 by a depth-first search of at most ``budget`` nodes,
    or -1 when the budget runs out: expectimax over the game's decision and chance nodes with
    win values (1 win, 0 loss), a decision node stopping at its first winning move.

    This is the exact search that the ``exact`` option of :func:`uct` runs where the tree grows,
    after Baier and Winands (2015), *MCTS-Minimax Hybrids* (IEEE TCIAIG 7(2)), whose MCTS-MS
    starts a shallow minimax search at tree nodes to find wins MCTS would sample past; here the
    search is bounded by nodes instead of depth and goes through chance nodes (expectimax), so
    it solves small endgames exactly, with or without chance. It shares MCTS-Solver's
    transposition table: it looks up every position it enters and stores every position it
    finishes (terminal positions aside), so a search that runs out of budget still leaves its
    solved subtrees behind for the next one, and the tree's descent finds them there.

    The stack arrays hold one row per depth (``states`` the positions, ``labels`` / ``probs``
    the actions or outcomes with their probabilities, ``nlab`` their number, ``idx`` the next
    one, ``acc`` the best value for the player to move so far or the probability-weighted sum,
    ``kind`` the player to move or ``_CHANCE``, ``hashes`` the position's hash); ``out`` takes
    the returns. A search deeper than the rows gives up (-1) like an exhausted budget.
    """
    use_tt = tt_keys.shape[0] > 0
    rows = states.shape[0]
    top = 0
    states[0, :] = root
    nodes = 0
    entering = True
    ret = 0.0  # the value for player 0 of the position just finished
    while True:
        finished = False
        if entering:
            entering = False
            nodes += 1
            if nodes > budget or top >= rows - 1:
                return -1.0
            s = states[top]
            p = game.current_player(consts, s)
            if p == _TERMINAL:
                game.returns(consts, s, out)
                ret = (out[0] - lo) / span
                finished = True
            else:
                if use_tt:
                    h = state_hash(s, tt_mult)
                    hashes[top] = h
                    if counters[C_TT_USED] > 0:
                        v0 = lookup(tt_keys, tt_vals, h)
                        if v0 >= 0.0:
                            ret = v0
                            finished = True
                if not finished:
                    kind[top] = p
                    idx[top] = 0
                    if p == _CHANCE:
                        nlab[top] = game.chance_outcomes(consts, s, labels[top], probs[top])
                        acc[top] = 0.0
                    else:
                        nlab[top] = game.legal_actions(consts, s, labels[top])
                        acc[top] = -1.0
        else:  # the child idx[top] - 1 has value ret for player 0
            p = kind[top]
            if p == _CHANCE:
                acc[top] += probs[top, idx[top] - 1] * ret
            else:
                vp = for_player(ret, p)
                if vp > acc[top]:
                    acc[top] = vp
                if vp == 1.0:
                    idx[top] = nlab[top]  # a winning move: nothing is better
        if not finished:
            if idx[top] < nlab[top]:
                j = idx[top]
                idx[top] = j + 1
                states[top + 1, :] = states[top]
                if kind[top] == _CHANCE:
                    game.apply_chance(consts, states[top + 1], np.int64(labels[top, j]))
                else:
                    game.apply_action(consts, states[top + 1], np.int64(labels[top, j]))
                top += 1
                entering = True
                continue
            p = kind[top]
            ret = acc[top] if p == _CHANCE else for_player(acc[top], p)
            if use_tt:
                counters[C_TT_USED] += insert(tt_keys, tt_vals, hashes[top], ret)
        if top == 0:
            return ret
        top -= 1


@njit(cache=True, nogil=True)
def uct(
    consts, root, first_child, num_children, action, parent, visits, value, proven, value_sq,
    amaf_n, amaf_v, prob, exact, tt_keys, tt_vals, tt_mult, counters, depth_hist, fparams,
    iparams, pol, ptab, pf, pstat, qstats, n_sims, rng,
):  # fmt: skip
    """Run up to ``n_sims`` simulations on the tree; return ``(simulations run, rng)``.

    Stops early when the root is solved (MCTS-Solver). ``root`` is the root state (a decision
    node); ``depth_hist[d]`` counts simulations that left the tree at depth ``d``.

    **Selection** at a node whose parent-visit count is ``N`` (the simulations that went through
    it before this one), for a child with ``n`` visits and mean win value ``Q`` (``W = Q n`` wins)
    for the player to move, and the constant ``c``:

    * ``SLIDES`` (lecture slides *Deep Learning 12 — MCTS*, the UCT slide; UCB1 of Auer et al. 2002
    for c = 1):
      ``Q + c sqrt(2 ln N / n)``
    * ``PAPER`` (Chou, Teytaud, Yen 2011, NoGo paper, section 3.4):
      ``W/(n+1) + C sqrt(ln(t+1)/(n+1))`` with ``t = N``; it is finite at ``n = 0``, so with
      ``expand_all`` an unvisited child competes with score ``C sqrt(ln(t+1))`` instead of
      coming first
    * ``BOOK`` (Kocsis and Szepesvári 2006 as in Browne et al. 2012): ``Q + c sqrt(ln N / n)``
    * ``UCB1_TUNED`` (Auer, Cesa-Bianchi, Fischer 2002, eq. in section 4):
      ``Q + c sqrt(ln N / n * min(1/4, V))``, ``V = mean(w^2) - Q^2 + sqrt(2 ln N / n)``

    Unvisited children score +inf (first), except under ``PAPER`` as said. Equal best scores are
    broken uniformly at random. With the solver, children proven lost for the player to move are
    never selected.

    **RAVE** (``iparams[P_RAVE]``, :func:`rave_beta`): a child with AMAF statistics (``amaf_n``
    > 0, see :func:`amaf_update`) is scored with ``(1 - β) Q + β Q̃`` in place of ``Q``
    (under ``PAPER``, in place of ``W/(n+1)``: the paper's ``α r + (1 - α) r'``), plus the
    formula's exploration term. An unvisited child with AMAF statistics is no longer +inf: it
    scores ``Q̃`` (β = 1 at n = 0 in every schedule) plus the exploration term taken at
    ``n = 1`` (under ``PAPER`` the term already uses ``n + 1``), so the AMAF values order the
    children before they are tried; one without AMAF statistics is still +inf, and so is every
    unvisited child with ``expand_all`` false (untried children first, as without RAVE).

    **Expansion.** A node is expanded (its children block allocated, one child per legal action)
    when a simulation reaches it and it has at least ``z`` visits (``iparams[P_Z]``); the root
    always. This is the NoGo paper's slow node creation (section 3.2), "creating a node in memory
    if and only if (i) its father node has already been created in memory and (ii) it has been
    simulated at least z times": a node *created in memory* there is a node whose move statistics
    exist here (an expanded node, where the bandit runs), and its simulation count is the
    ``visits`` of its slot in its father's block, which exists exactly when the father was
    created. With ``expand_all`` false (one child per simulation, Browne et al. 2012), a node
    with untried children adds one of them (uniformly at random) per simulation and the playout
    starts there (it has 0 < z visits, so it is not expanded in the same simulation); the bandit
    runs only once every child has been tried. Both ways the children
    block is reserved at once, so children stay contiguous. A full pool stops expansion; the
    simulation then plays out from the deepest node it reached.

    **Leaf.** ``LEAF_PLAYOUT``: the game's uniform ``random_playout``. ``LEAF_COIN``: a uniformly
    random winner, no playout (the NoGo paper's coin toss). Terminal states use their returns;
    a proven node its proven result.

    **Chance nodes** (``iparams[P_CHANCE_TREE]``; ``CHANCE_OFF``: a chance node stays a leaf and
    the playout samples the chance). A node whose state is a chance node is expanded like a
    decision node (once it has ``z`` visits), with one child per outcome of ``chance_outcomes``
    (labelled by the outcome, its probability ``p_i`` kept in ``prob``). A child of a chance
    node stores the value of the player who moved before the chance event.

    * ``CHANCE_SAMPLED``: the descent goes on through the child of an outcome drawn by its
      probability (the slides' stochastic transitions); the chance node's value is the sample
      mean of its simulations, an unbiased estimate of the expectation.
    * ``CHANCE_EXPANDED`` (probability-weighted): the descent takes the outcome with the largest
      ``p_i / (n_i + 1)`` (Antonoglou et al. 2022, Stochastic MuZero, section 3: visits follow
      the probabilities without sampling noise; ties at random), skipping solved outcomes; the
      chance node's value is ``sum_i p_i Q_i / sum_i p_i`` over its visited outcomes
      (:func:`weighted_mean`, recomputed at each backup), so a rare outcome weighs what its
      probability says however often it was visited.

    RAVE, LGRF and PoolRAVE read the path as alternating moves and are refused with the chance
    tree.
    ``iparams[P_POLICY]`` 1 plays the policies module's ``policy_playout`` instead of the
    uniform ``random_playout`` (decisive, anti-decisive, LGRF, PoolRAVE, base policies; the
    parameters in ``pol``, ``ptab``, ``pf``, laid out in :mod:`mctslab.search.playouts.common`).
    With ``P_QBR`` a playout's win values get Quality-Based Rewards (:func:`qbr_adjust`).

    **After the backup**: AMAF statistics (RAVE), the LGRF table (:func:`lgrf_update`) and the
    PoolRAVE statistics (:func:`pool_update`, pools rebuilt every ``POOL_REFRESH`` simulations)
    learn from the simulation, when on.

    **Backup.** Every node on the path gets ``visits += 1`` and the incremental mean
    ``value += (w[m] - value) / visits`` of the win value of ``m``, the player who moved into it.

    **MCTS-Solver** (Winands, Björnsson, Saito 2008; two-player constant-sum games), with exact
    values: a node is *solved* when its exact win value ``v`` for its mover is known: 1 is a
    proven win, 0 a proven loss, anything else PROVEN_EXACT. A terminal node is solved with its
    mover's win value (a draw: 0.5). A decision node where the player to move ``p`` has a child
    proven won for ``p`` is a win for ``p``; once every child is solved it has the best child's
    value for ``p`` (so every child proven lost is a loss, as in the paper); a chance node is
    solved once every outcome is, with ``sum_i p_i v_i`` (expectimax: so coin Nim and other games
    with chance are solved exactly, and a root whose moves are all solved plays the best
    expectation, however small the differences). The value for the node's own mover is ``v``,
    or ``1 - v`` when the mover is not ``p``. Solutions propagate up the path of the simulation;
    a solved node's ``value`` is no longer averaged (a proven win or loss keeps its mean, as
    before). Children proven lost are never selected; other solved children compete with their
    exact values.

    **Exact searches where the tree grows** (``iparams[P_EXACT]`` = a node budget ``B`` > 0,
    with the solver; an MCTS-minimax hybrid after Baier and Winands 2015): before a decision
    node is expanded, :func:`exact_search` tries to solve its position within ``B`` nodes; on
    success the node is solved there and then (as if the table had held it), and the root's
    search fills the table for its children. Small endgames, and whole small games such as coin
    Nim, are then solved exactly long before the tree itself reaches their ends.

    **Transpositions of solved positions** (a DAG-aware MCTS-Solver; the table and its hash are
    in :mod:`mctslab.search.transpositions`; ``tt_keys`` of shape [0] turns it off). Every
    position a simulation solves (decision and chance nodes, the root included) is stored with
    its exact value for player 0; the simulation replays its path from ``root`` to hash them, so
    this costs nothing until something is solved. While the table holds anything, the descent
    looks up every unsolved non-terminal node it reaches (below the root): on a hit the node is
    solved at once (with ``v`` or ``1 - v`` for its mover), the descent stops there as at any
    solved node, the simulation backs up the exact value and the solution propagates up its path
    as above. The root's own status still comes from its children (the move to play must be
    among them).
    """
    c = fparams[F_C]
    lo = fparams[F_MIN_UTILITY]
    span = fparams[F_MAX_UTILITY] - lo
    formula = iparams[P_FORMULA]
    z = iparams[P_Z]
    expand_all = iparams[P_EXPAND_ALL] != 0
    solver = iparams[P_SOLVER] != 0
    leaf = iparams[P_LEAF]
    num_players = iparams[P_NUM_PLAYERS]
    max_len = iparams[P_MAX_LENGTH]
    capacity = first_child.shape[0]
    tuned = formula == UCB1_TUNED
    unvisited_first = formula != PAPER or not expand_all
    rave = iparams[P_RAVE]
    rave_k = fparams[F_RAVE_K]
    rave_b = fparams[F_RAVE_B]
    policy = iparams[P_POLICY]
    qbr = iparams[P_QBR] != 0
    lgrf = pol.shape[0] > 0 and pol[PL_LGRF] != 0
    pool = pol.shape[0] > 0 and pol[PL_POOL_K] > 0
    na = max(1, iparams[P_NUM_ACTIONS])
    chance_tree = iparams[P_CHANCE_TREE] != CHANCE_OFF
    expanded = iparams[P_CHANCE_TREE] == CHANCE_EXPANDED
    c_out = np.empty(max(1, iparams[P_NUM_CHANCE]), dtype=np.int32)
    c_prob = np.empty(c_out.shape[0], dtype=np.float64)
    # path_mover[k]: the player whose value node path[k] stores (who moved into it; through a
    # chance node, the player who moved before the chance event)
    path_mover = np.empty(max_len + 1, dtype=np.int32)

    state = root.copy()
    legal = np.empty(max(1, iparams[P_NUM_ACTIONS]), dtype=np.int32)
    path = np.empty(max_len + 1, dtype=np.int32)  # tree nodes of this simulation, root first
    path_player = np.empty(max_len + 1, dtype=np.int32)  # player to move at each of them
    moves = np.empty(2 * max_len + 2, dtype=np.int32)
    out = np.empty(num_players, dtype=np.float64)
    w = np.empty(num_players, dtype=np.float64)
    solved0 = np.empty(max_len + 1, dtype=np.float64)  # exact value of path[k] for player 0
    # AMAF and PoolRAVE marks ("player p played action a in this simulation"), by stamp
    mark = np.zeros(2 * num_players * na if rave != RAVE_OFF or pool else 0, dtype=np.int64)
    # the exact search's stack (exact_search), one row per depth
    exact_budget = iparams[P_EXACT] if solver else 0
    rows = max_len + 2 if exact_budget > 0 else 1
    width = max(na, c_out.shape[0])
    x_states = np.empty((rows, root.shape[0]), dtype=root.dtype)
    x_labels = np.empty((rows, width), dtype=np.int32)
    x_probs = np.empty((rows, width), dtype=np.float64)
    x_n = np.zeros(rows, dtype=np.int64)
    x_idx = np.zeros(rows, dtype=np.int64)
    x_acc = np.zeros(rows, dtype=np.float64)
    x_kind = np.zeros(rows, dtype=np.int64)
    x_hash = np.zeros(rows, dtype=np.uint64)
    if pool:
        pool_rebuild(pstat, ptab, pol, num_players)

    if solver:
        counters[C_ROOT_PROVEN] = _root_status(first_child, num_children, proven, value, exact)
    sims = 0
    while sims < n_sims and counters[C_ROOT_PROVEN] == UNPROVEN:
        sims += 1
        state[:] = root
        node = ROOT
        d = 0
        path[0] = ROOT
        player = game.current_player(consts, state)
        path_player[0] = player
        path_mover[0] = -1
        # ---- selection and expansion: walk down while the node is an expanded decision node
        # (or, with the chance tree, a chance node, descended by sampling an outcome)
        while True:
            if solver and d > 0 and player != _TERMINAL:
                if proven[node] == UNPROVEN and counters[C_TT_USED] > 0:
                    v0 = lookup(tt_keys, tt_vals, state_hash(state, tt_mult))
                    if v0 >= 0.0:
                        set_solved(proven, value, exact, node, for_player(v0, path_mover[d]))
                if proven[node] != UNPROVEN:
                    break
            if player == _CHANCE and chance_tree and visits[node] >= z:
                fc = first_child[node]
                if fc == NO_CHILD:
                    k = game.chance_outcomes(consts, state, c_out, c_prob)
                    if counters[C_USED] + k > capacity:
                        break
                    fc = counters[C_USED]
                    counters[C_USED] += k
                    _new_children(
                        first_child, num_children, action, parent, visits, value, proven,
                        value_sq, amaf_n, amaf_v, node, fc, k, c_out, tuned, False,
                    )  # fmt: skip
                    prob[fc : fc + k] = c_prob[:k]
                k = num_children[node]
                if expanded:
                    j = -1
                    best = -np.inf
                    ties = 0
                    for i in range(k):
                        if solver and proven[fc + i] != UNPROVEN:
                            continue
                        take, best, ties, rng = tie_break(
                            prob[fc + i] / (visits[fc + i] + 1.0), best, ties, rng
                        )
                        if take:
                            j = i
                    if j < 0:
                        break
                else:
                    rng, j = weighted(rng, prob[fc : fc + k], k)
                node = fc + j
                game.apply_chance(consts, state, np.int64(action[node]))
                d += 1
                path[d] = node
                path_mover[d] = path_mover[d - 1]
                player = game.current_player(consts, state)
                path_player[d] = player
                continue
            if player < 0:
                break
            fc = first_child[node]
            if fc == NO_CHILD:
                if d > 0 and visits[node] < z:
                    break
                if exact_budget > 0:
                    v0 = exact_search(
                        consts, state, exact_budget, lo, span, tt_keys, tt_vals, tt_mult, counters,
                        x_states, x_labels, x_probs, x_n, x_idx, x_acc, x_kind, x_hash, out,
                    )  # fmt: skip
                    if v0 >= 0.0 and d > 0:
                        set_solved(proven, value, exact, node, for_player(v0, path_mover[d]))
                        break
                k = game.legal_actions(consts, state, legal)
                if counters[C_USED] + k > capacity:
                    break
                fc = counters[C_USED]
                counters[C_USED] += k
                _new_children(
                    first_child, num_children, action, parent, visits, value, proven, value_sq,
                    amaf_n, amaf_v, node, fc, k, legal, tuned, rave != RAVE_OFF,
                )  # fmt: skip
            k = num_children[node]
            big_n = np.float64(visits[node])
            log_n = math.log(big_n) if big_n > 0.0 else 0.0
            if rave == RAVE_OFF:  # the plain loop: RAVE's tests cost Hex 11x11 ~5% in here
                chosen = -1
                best = -np.inf
                ties = 0
                for i in range(fc, fc + k):
                    if solver and proven[i] == PROVEN_LOSS:
                        continue
                    n = visits[i]
                    if n == 0 and unvisited_first:
                        score = np.inf
                    else:
                        nf = np.float64(n)
                        q_sq = np.float64(value_sq[i]) if tuned else 0.0
                        score = ucb_score(
                            formula, c, np.float64(value[i]), nf, nf, log_n, big_n, q_sq, False
                        )
                    take, best, ties, rng = tie_break(score, best, ties, rng)
                    if take:
                        chosen = i
            else:
                chosen, rng = select_rave(
                    fc, k, visits, value, proven, value_sq, amaf_n, amaf_v, solver,
                    not expand_all, formula, c, log_n, big_n, tuned, rave,
                    rave_k, rave_b, rng,
                )  # fmt: skip
            if chosen < 0:
                break
            game.apply_action(consts, state, np.int64(action[chosen]))
            node = chosen
            d += 1
            path[d] = node
            player = game.current_player(consts, state)
            path_player[d] = player
            path_mover[d] = path_player[d - 1]
        depth_hist[d] += 1
        # ---- evaluation: per-player win values w
        status = UNPROVEN
        n_po = 0  # moves played by the playout
        if player == _TERMINAL:
            game.returns(consts, state, out)
            for p in range(num_players):
                w[p] = (out[p] - lo) / span
            if solver and d > 0:
                status = set_solved(proven, value, exact, node, w[path_mover[d]])
        elif solver and d > 0 and proven[node] != UNPROVEN:
            status = proven[node]
            m = path_mover[d]
            w[m] = solved_value(proven, value, exact, node)
            w[1 - m] = 1.0 - w[m]
        elif leaf == LEAF_COIN:
            rng, winner = below(rng, num_players)
            for p in range(num_players):
                w[p] = 1.0 if p == winner else 0.0
        else:
            if policy == 0:
                n_po, rng = game.random_playout(consts, state, rng, moves, out)
            else:
                last = np.int64(action[node]) if d > 0 else np.int64(-1)
                n_po, rng = policies.policy_playout(
                    consts, state, rng, moves, out, last, pol, ptab, pf
                )
            for p in range(num_players):
                w[p] = (out[p] - lo) / span
            if qbr:
                winner = 0
                for p in range(num_players):
                    if w[p] > w[winner]:
                        winner = p
                qbr_adjust(
                    qstats, w, np.float64(d + n_po), policies.quality(consts, state, winner),
                    fparams[F_QBR_A], fparams[F_QBR_K], num_players,
                )  # fmt: skip
        # ---- backup
        visits[ROOT] += 1
        for j in range(d, 0, -1):
            i = path[j]
            wm = w[path_mover[j]]
            n = visits[i] + 1
            visits[i] = n
            if solver and proven[i] == PROVEN_EXACT:
                continue  # its value is exact
            if expanded and path_player[j] == _CHANCE and j < d:
                value[i] = weighted_mean(
                    first_child[i], num_children[i], visits, value, proven, exact, prob
                )
                continue
            q = np.float64(value[i])
            value[i] = q + (wm - q) / n
            if tuned:
                q2 = np.float64(value_sq[i])
                value_sq[i] = q2 + (wm * wm - q2) / n
        # ---- what the enhancements learn from the simulation
        if rave != RAVE_OFF:
            amaf_update(
                first_child, num_children, action, amaf_n, amaf_v, path, path_player, d,
                moves, n_po, w, mark, sims, na,
            )  # fmt: skip
        if lgrf:
            lgrf_update(ptab, na, path, path_player, action, d, moves, n_po, w)
        if pool:
            pool_update(pstat, path, path_player, action, d, moves, n_po, w, mark, sims, na,
                        num_players)  # fmt: skip
            if sims % POOL_REFRESH == 0:
                pool_rebuild(pstat, ptab, pol, num_players)
        # ---- MCTS-Solver: propagate a solution up the path
        if solver and status != UNPROVEN:
            top = d  # the shallowest path index solved by this simulation (d: none)
            j = d
            while j > 0:
                x = path[j - 1]
                px = path_player[j - 1]
                fx = first_child[x]
                if px == _CHANCE:
                    vx = chance_value(fx, num_children[x], proven, value, exact, prob)
                    if vx < 0.0:
                        break
                    mx = path_mover[j - 1]  # the children's values are for x's mover too
                else:
                    vx = decision_value(fx, num_children[x], proven, value, exact)
                    if vx < 0.0:
                        break
                    mx = px  # the value for the player to move at x
                top = j - 1
                solved0[top] = for_player(vx, mx)
                if j == 1:
                    counters[C_ROOT_PROVEN] = status_of(vx)  # vx is for the root's player
                    break
                m = path_mover[j - 1]
                set_solved(proven, value, exact, x, vx if m == mx else 1.0 - vx)
                j -= 1
            # ---- store the newly solved positions path[top..d-1], replaying the path from the root
            if top < d and tt_keys.shape[0] > 0:
                state[:] = root
                for k in range(d):
                    if k >= top:
                        counters[C_TT_USED] += insert(
                            tt_keys, tt_vals, state_hash(state, tt_mult), solved0[k]
                        )
                    if k + 1 < d and path_player[k] == _CHANCE:
                        game.apply_chance(consts, state, np.int64(action[path[k + 1]]))
                    elif k + 1 < d:
                        game.apply_action(consts, state, np.int64(action[path[k + 1]]))
    return sims, rng


@njit(cache=True)
def flat(consts, root, legal, n_legal, visits, value, start, n_sims, fparams, iparams, rng):
    """Flat Monte Carlo (Abramson 1990, the slides' "no construction of game subtree"): simulation
    ``s`` (counting from ``start``) plays root move ``legal[s mod n_legal]`` (round robin) and then
    a uniform random playout; ``value[i]`` is the incremental mean win value of move ``i`` for the
    player to move at the root. Returns ``rng``."""
    lo = fparams[F_MIN_UTILITY]
    span = fparams[F_MAX_UTILITY] - lo
    max_len = iparams[P_MAX_LENGTH]
    moves = np.empty(2 * max_len + 2, dtype=np.int32)
    out = np.empty(iparams[P_NUM_PLAYERS], dtype=np.float64)
    me = game.current_player(consts, root)
    state = root.copy()
    for s in range(start, start + n_sims):
        i = s % n_legal
        state[:] = root
        game.apply_action(consts, state, np.int64(legal[i]))
        _, rng = game.random_playout(consts, state, rng, moves, out)
        n = visits[i] + 1
        visits[i] = n
        value[i] += ((out[me] - lo) / span - value[i]) / n
    return rng
