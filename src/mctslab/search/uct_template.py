"""The compiled UCT loop, written once against the kernel contract and specialised per game by
:func:`mctslab.kernels.codegen.specialize` (the two marked imports below are rewritten for each
game: its kernels module as ``game`` and its playout-policies module as ``policies``).

:func:`uct` runs many simulations of the UCT family inside one compiled call. It keeps every bit of
state in caller-owned arrays, so the Python driver can call it in chunks (to check a wall-clock
budget) that continue the same search. It takes typed records (:mod:`mctslab.search.records`):
the scalar parameters (:class:`UctParams`), the tree's arrays (:class:`TreeArrays`), the
transposition table (:class:`TableArrays`), the playout policy's parameters
(:class:`PlayoutParams`) and what the enhancements learn (:class:`PolicyStats`).

Win values: a simulation's per-player returns ``r`` become win values
``w = (r - min_utility) / (max_utility - min_utility)`` (1 win, 0 loss, 0.5 draw in a two-player
zero-sum game); every statistic in the tree is a win value.

Only the loop and what calls a game kernel are here. Each enhancement is a kernel module of its
own in :mod:`mctslab.search.enhancements`, compiled once for every game, called from the loop as a
hook; the exact search (:func:`exact_search`), which calls game kernels, stays here. Every
enhancement is off unless its parameter turns it on, and when off it costs one test per
simulation: RAVE (``params.rave``), the playout policy (``params.policy``), Last Good Reply
(``playout.lgrf``), PoolRAVE (``playout.pool_k``) and Quality-Based Rewards (``params.qbr``);
their statistics are arrays of shape [0] unless used.
"""

import math

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.games import nim_policies as policies  # mctslab:game-policies
from mctslab.kernels.rng import below, weighted
from mctslab.search.enhancements.amaf import amaf_update
from mctslab.search.enhancements.chance import expanded_outcome, weighted_mean
from mctslab.search.enhancements.lgrf import lgrf_update
from mctslab.search.enhancements.poolrave import POOL_REFRESH, pool_rebuild, pool_update
from mctslab.search.enhancements.qbr import qbr_adjust
from mctslab.search.enhancements.selection import (
    RAVE_OFF,
    UCB1_TUNED,
    select_rave,
    select_ucb,
)
from mctslab.search.enhancements.solver import (
    chance_value,
    decision_value,
    for_player,
    root_status,
    set_solved,
    solved_value,
    status_of,
)
from mctslab.search.records import C_ROOT_PROVEN, C_TT_USED, C_USED, ExactStack
from mctslab.search.transpositions import insert, lookup, state_hash
from mctslab.search.tree import NO_CHILD, PROVEN_EXACT, ROOT, UNPROVEN, new_children

# Leaf evaluations (``UctParams.leaf``).
LEAF_PLAYOUT = 0
LEAF_COIN = 1
# Chance nodes (``UctParams.chance``); see :func:`uct`.
CHANCE_OFF = 0
CHANCE_SAMPLED = 1
CHANCE_EXPANDED = 2

_CHANCE = -1
_TERMINAL = -4


@njit(cache=True)
def exact_search(consts, root, budget, lo, span, table, counters, stack, out):
    """Exact value of ``root`` for player 0 by a depth-first search of at most ``budget`` nodes,
    or -1 when the budget runs out: expectimax over the game's decision and chance nodes with
    win values (1 win, 0 loss), a decision node stopping at its first winning move.

    This is the exact search that the ``exact`` option of :func:`uct` runs where the tree grows,
    after Baier and Winands (2015), *MCTS-Minimax Hybrids* (IEEE TCIAIG 7(2)), whose MCTS-MS
    starts a shallow minimax search at tree nodes to find wins MCTS would sample past; here the
    search is bounded by nodes instead of depth and goes through chance nodes (expectimax), so
    it solves small endgames exactly, with or without chance. It calls the game's kernels, so
    it stays in this per-game template.

    It shares MCTS-Solver's transposition table ``table`` (a :class:`TableArrays`; ``counters``
    its slots in use): it looks up every position it enters and stores every position it finishes
    (terminal positions aside), so a search that runs out of budget still leaves its solved
    subtrees behind for the next one, and the tree's descent finds them there.

    ``stack`` is an :class:`ExactStack` with one row per depth; ``out`` takes the returns. A
    search deeper than the rows gives up (-1) like an exhausted budget.
    """
    tt_keys = table.keys
    tt_vals = table.vals
    tt_mult = table.mult
    states = stack.states
    labels = stack.labels
    probs = stack.probs
    nlab = stack.nlab
    idx = stack.idx
    acc = stack.acc
    kind = stack.kind
    hashes = stack.hashes
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


@njit(inline="always")
def prior_into_amaf(consts, state, legal, k, fc, amaf_n, amaf_v, weight, p_n, p_v, playout):
    """Start the AMAF statistics of the new children ``fc .. fc+k-1`` (actions ``legal[:k]`` of
    ``state``) from the policies module's prior knowledge: ``round(weight · count)`` virtual
    AMAF updates of the prior win value (Gelly and Silver 2007, *Combining online and offline
    knowledge in UCT*, section 4, which initialises a new node's value and count from prior
    knowledge; Fuego initialises the RAVE statistics the same way). Later AMAF updates average
    into them, so the prior fades as real statistics come."""
    policies.prior(consts, state, legal, k, p_n, p_v, playout)
    for j in range(k):
        n = np.int32(weight * p_n[j] + 0.5)
        if n > 0:
            amaf_n[fc + j] = n
            amaf_v[fc + j] = p_v[j]


@njit(cache=True, nogil=True)
def uct(consts, root, tree, table, counters, depth_hist, params, playout, stats, n_sims, rng):
    """Run up to ``n_sims`` simulations on the tree; return ``(simulations run, rng)``.

    Stops early when the root is solved (MCTS-Solver). ``root`` is the root state (a decision
    node); ``depth_hist[d]`` counts simulations that left the tree at depth ``d``.

    **Selection** (:mod:`mctslab.search.enhancements.selection`, which gives the formulas and
    their sources): ``params.formula`` picks SLIDES, PAPER, BOOK or UCB1_TUNED with the constant
    ``params.c``; unvisited children come first (under PAPER too: Algorithm 1's +∞), equal
    best scores are broken uniformly at random, and with the solver children proven lost for the
    player to move are never selected. With RAVE (``params.rave``, :func:`select_rave`) a child
    with AMAF statistics scores the mix ``(1 - β) Q + β Q̃`` in place of ``Q``.

    **Expansion.** A node is expanded (its children block allocated, one child per legal action)
    when a simulation reaches it and it has at least ``z`` visits (``params.z``); the root
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

    **Chance nodes** (``params.chance``; ``CHANCE_OFF``: a chance node stays a leaf and
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
      (:func:`mctslab.search.enhancements.chance.weighted_mean`, recomputed at each backup), so a
      rare outcome weighs what its probability says however often it was visited.

    RAVE, LGRF and PoolRAVE read the path as alternating moves and are refused with the chance
    tree.
    **Prior knowledge** (``params.prior`` > 0, with RAVE): a new decision node's children start
    with the policies module's prior in their AMAF statistics (:func:`prior_into_amaf`).

    ``params.policy`` plays the policies module's ``policy_playout`` instead of the uniform
    ``random_playout`` (decisive, anti-decisive, LGRF, PoolRAVE, base policies; the parameters in
    ``playout``, the LGRF and PoolRAVE tables in ``stats``; :mod:`mctslab.search.playouts`).
    With ``params.qbr`` a playout's win values get Quality-Based Rewards
    (:mod:`mctslab.search.enhancements.qbr`).

    **After the backup**: AMAF statistics (RAVE, :mod:`~mctslab.search.enhancements.amaf`), the LGRF
    table (:mod:`~mctslab.search.enhancements.lgrf`) and the PoolRAVE statistics
    (:mod:`~mctslab.search.enhancements.poolrave`, pools rebuilt every ``POOL_REFRESH``
    simulations) learn from the simulation, when on.

    **Backup.** Every node on the path gets ``visits += 1`` and the incremental mean
    ``value += (w[m] - value) / visits`` of the win value of ``m``, the player who moved into it.

    **MCTS-Solver** (Winands, Björnsson, Saito 2008; two-player constant-sum games; the arithmetic
    in :mod:`mctslab.search.enhancements.solver`), with exact
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

    **Exact searches where the tree grows** (``params.exact`` = a node budget ``B`` > 0,
    with the solver; an MCTS-minimax hybrid after Baier and Winands 2015): before a decision
    node is expanded, :func:`exact_search` tries to solve its position within ``B`` nodes; on
    success the node is solved there and then (as if the table had held it), and the root's
    search fills the table for its children. Small endgames, and whole small games such as coin
    Nim, are then solved exactly long before the tree itself reaches their ends.

    **Transpositions of solved positions** (a DAG-aware MCTS-Solver; the table and its hash are
    in :mod:`mctslab.search.transpositions`; ``table.keys`` of shape [0] turns it off). Every
    position a simulation solves (decision and chance nodes, the root included) is stored with
    its exact value for player 0; the simulation replays its path from ``root`` to hash them, so
    this costs nothing until something is solved. While the table holds anything, the descent
    looks up every unsolved non-terminal node it reaches (below the root): on a hit the node is
    solved at once (with ``v`` or ``1 - v`` for its mover), the descent stops there as at any
    solved node, the simulation backs up the exact value and the solution propagates up its path
    as above. The root's own status still comes from its children (the move to play must be
    among them).
    """
    # the hot fields, in locals
    c = params.c
    lo = params.lo
    span = params.span
    formula = params.formula
    z = params.z
    expand_all = params.expand_all
    solver = params.solver
    leaf = params.leaf
    num_players = params.num_players
    max_len = params.max_length
    tuned = formula == UCB1_TUNED
    rave = params.rave
    rave_k = params.rave_k
    rave_b = params.rave_b
    prior_w = params.prior if rave != RAVE_OFF else 0.0
    policy = params.policy
    qbr = params.qbr
    lgrf = playout.lgrf
    pool = playout.pool_k > 0
    na = max(1, params.num_actions)
    chance_tree = params.chance != CHANCE_OFF
    expanded = params.chance == CHANCE_EXPANDED
    first_child = tree.first_child
    num_children = tree.num_children
    action = tree.action
    visits = tree.visits
    value = tree.value
    proven = tree.proven
    value_sq = tree.value_sq
    amaf_n = tree.amaf_n
    amaf_v = tree.amaf_v
    prob = tree.prob
    exact = tree.exact
    tt_keys = table.keys
    tt_vals = table.vals
    tt_mult = table.mult
    capacity = first_child.shape[0]
    c_out = np.empty(max(1, params.num_chance), dtype=np.int32)
    c_prob = np.empty(c_out.shape[0], dtype=np.float64)
    # path_mover[k]: the player whose value node path[k] stores (who moved into it; through a
    # chance node, the player who moved before the chance event)
    path_mover = np.empty(max_len + 1, dtype=np.int32)

    state = root.copy()
    legal = np.empty(max(1, params.num_actions), dtype=np.int32)
    # the policies' prior knowledge of a node's children (counts, values)
    p_n = np.empty(legal.shape[0] if prior_w > 0.0 else 0, dtype=np.float64)
    p_v = np.empty(p_n.shape[0], dtype=np.float64)
    path = np.empty(max_len + 1, dtype=np.int32)  # tree nodes of this simulation, root first
    path_player = np.empty(max_len + 1, dtype=np.int32)  # player to move at each of them
    moves = np.empty(2 * max_len + 2, dtype=np.int32)
    out = np.empty(num_players, dtype=np.float64)
    w = np.empty(num_players, dtype=np.float64)
    solved0 = np.empty(max_len + 1, dtype=np.float64)  # exact value of path[k] for player 0
    # AMAF and PoolRAVE marks ("player p played action a in this simulation"), by stamp
    mark = np.zeros(2 * num_players * na if rave != RAVE_OFF or pool else 0, dtype=np.int64)
    # the exact search's stack (exact_search), one row per depth
    exact_budget = params.exact if solver else 0
    rows = max_len + 2 if exact_budget > 0 else 1
    width = max(na, c_out.shape[0])
    stack = ExactStack(
        np.empty((rows, root.shape[0]), dtype=root.dtype),
        np.empty((rows, width), dtype=np.int32),
        np.empty((rows, width), dtype=np.float64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.float64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.uint64),
    )
    if pool:
        pool_rebuild(
            stats.pool_amaf, stats.pools, stats.pool_sizes, na, playout.pool_k, num_players
        )

    if solver:
        counters[C_ROOT_PROVEN] = root_status(first_child, num_children, proven, value, exact)
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
                    new_children(tree, node, fc, k, c_out, tuned, False)
                    prob[fc : fc + k] = c_prob[:k]
                k = num_children[node]
                if expanded:
                    j, rng = expanded_outcome(fc, k, visits, proven, prob, solver, rng)
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
                        consts, state, exact_budget, lo, span, table, counters, stack, out
                    )
                    if v0 >= 0.0 and d > 0:
                        set_solved(proven, value, exact, node, for_player(v0, path_mover[d]))
                        break
                k = game.legal_actions(consts, state, legal)
                if counters[C_USED] + k > capacity:
                    break
                fc = counters[C_USED]
                counters[C_USED] += k
                new_children(tree, node, fc, k, legal, tuned, rave != RAVE_OFF)
                if prior_w > 0.0:
                    prior_into_amaf(
                        consts, state, legal, k, fc, amaf_n, amaf_v, prior_w, p_n, p_v, playout
                    )
            k = num_children[node]
            big_n = np.float64(visits[node])
            log_n = math.log(big_n) if big_n > 0.0 else 0.0
            if rave == RAVE_OFF:
                chosen, rng = select_ucb(
                    fc, k, visits, value, proven, value_sq, solver, formula, c, log_n, big_n,
                    tuned, rng,
                )  # fmt: skip
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
            if not policy:
                n_po, rng = game.random_playout(consts, state, rng, moves, out)
            else:
                last = np.int64(action[node]) if d > 0 else np.int64(-1)
                n_po, rng = policies.policy_playout(
                    consts, state, rng, moves, out, last, playout, stats
                )
            for p in range(num_players):
                w[p] = (out[p] - lo) / span
            if qbr:
                winner = 0
                for p in range(num_players):
                    if w[p] > w[winner]:
                        winner = p
                qbr_adjust(
                    stats.qbr, w, np.float64(d + n_po), policies.quality(consts, state, winner),
                    params.qbr_a, params.qbr_k, num_players,
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
            if tuned:  # the mean squared return through i (a chance node's too)
                q2 = np.float64(value_sq[i])
                value_sq[i] = q2 + (wm * wm - q2) / n
            if expanded and path_player[j] == _CHANCE and j < d:
                value[i] = weighted_mean(
                    first_child[i], num_children[i], visits, value, proven, exact, prob
                )
                continue
            q = np.float64(value[i])
            value[i] = q + (wm - q) / n
        # ---- what the enhancements learn from the simulation (hooks)
        if rave != RAVE_OFF:
            amaf_update(
                first_child, num_children, action, amaf_n, amaf_v, path, path_player, d,
                moves, n_po, w, mark, sims, na,
            )  # fmt: skip
        if lgrf:
            lgrf_update(stats.replies, na, path, path_player, action, d, moves, n_po, w)
        if pool:
            pool_update(stats.pool_amaf, path, path_player, action, d, moves, n_po, w, mark,
                        sims, na, num_players)  # fmt: skip
            if sims % POOL_REFRESH == 0:
                pool_rebuild(
                    stats.pool_amaf, stats.pools, stats.pool_sizes, na, playout.pool_k,
                    num_players,
                )  # fmt: skip
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
