"""The compiled search loops, written once against the kernel contract and specialised per game
by :func:`mctslab.codegen.specialize` (the marked import below is rewritten for each game).

:func:`uct` runs many simulations of the UCT family inside one compiled call; :func:`flat` runs
flat Monte Carlo. Both keep every bit of state in caller-owned arrays, so the Python driver can
call them in chunks (to check a wall-clock budget) that continue the same search.

Win values: a simulation's per-player returns ``r`` become win values
``w = (r - min_utility) / (max_utility - min_utility)`` (1 win, 0 loss, 0.5 draw in a two-player
zero-sum game); every statistic in the tree is a win value.
"""

import math

import numpy as np
from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.rng import below
from mctslab.search.transpositions import insert, lookup, state_hash
from mctslab.search.tree import NO_CHILD, PROVEN_LOSS, PROVEN_WIN, ROOT, UNPROVEN

# Selection formulas (``iparams[P_FORMULA]``); see :func:`uct`.
SLIDES = 0
PAPER = 1
BOOK = 2
UCB1_TUNED = 3
# Leaf evaluations (``iparams[P_LEAF]``).
LEAF_PLAYOUT = 0
LEAF_COIN = 1
# Layout of ``iparams``.
P_FORMULA, P_Z, P_EXPAND_ALL, P_SOLVER, P_LEAF = 0, 1, 2, 3, 4
P_NUM_PLAYERS, P_NUM_ACTIONS, P_MAX_LENGTH = 5, 6, 7
N_IPARAMS = 8
# Layout of ``fparams``.
F_C, F_MIN_UTILITY, F_MAX_UTILITY = 0, 1, 2
N_FPARAMS = 3
# Layout of ``counters`` (int64): pool slots in use, the root's proven status for the player
# to move at the root (UNPROVEN, PROVEN_WIN or PROVEN_LOSS), transposition-table slots in use.
C_USED, C_ROOT_PROVEN, C_TT_USED = 0, 1, 2
N_COUNTERS = 3

_CHANCE = -1
_TERMINAL = -4


@njit(cache=True)
def _root_status(first_child, num_children, proven):
    """MCTS-Solver at the root, for the player to move there: a win if some child is a proven win
    for that player, a loss if every child is a proven loss, else unproven."""
    fc = first_child[ROOT]
    if fc == NO_CHILD:
        return UNPROVEN
    all_lost = True
    for i in range(fc, fc + num_children[ROOT]):
        if proven[i] == PROVEN_WIN:
            return PROVEN_WIN
        if proven[i] != PROVEN_LOSS:
            all_lost = False
    return PROVEN_LOSS if all_lost else UNPROVEN


@njit(cache=True)
def uct(
    consts, root, first_child, num_children, action, parent, visits, value, proven, value_sq,
    tt_keys, tt_vals, tt_mult, counters, depth_hist, fparams, iparams, n_sims, rng,
):  # fmt: skip
    """Run up to ``n_sims`` simulations on the tree; return ``(simulations run, rng)``.

    Stops early when the root is proven (MCTS-Solver). ``root`` is the root state (a decision
    node); ``depth_hist[d]`` counts simulations that left the tree at depth ``d``.

    **Selection** at a node whose parent-visit count is ``N`` (the simulations that went through
    it before this one), for a child with ``n`` visits and mean win value ``Q`` (``W = Q n`` wins)
    for the player to move, and the constant ``c``:

    * ``SLIDES`` (lecture slides, seeds/001; UCB1 of Auer et al. 2002 for c = 1):
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
    a proven node its proven result. The tree does not grow past a chance event yet: a node whose
    state is a chance node stays a leaf and the playout samples the chance.

    **Backup.** Every node on the path gets ``visits += 1`` and the incremental mean
    ``value += (w[m] - value) / visits`` of the win value of ``m``, the player who moved into it.

    **MCTS-Solver** (Winands, Björnsson, Saito 2008; two-player games): a terminal node is a
    proven win (loss) for its mover when the mover's win value is 1 (0). A node where the player
    to move ``p`` has a child proven won for ``p`` is a win for ``p``; one where every child is
    proven lost for ``p`` is a loss for ``p``; the node's status for its own mover is that result,
    negated when the mover is not ``p``. Proofs propagate up the path of the simulation.

    **Transpositions of proven positions** (a DAG-aware MCTS-Solver; the table and its hash are
    in :mod:`mctslab.search.transpositions`; ``tt_keys`` of shape [0] turns it off). Every
    position a simulation proves (a decision node, the root included) is stored with its result
    for its player to move; the simulation replays its path from ``root`` to hash them, so this
    costs nothing until something is proven. While the table holds anything, the descent looks up
    every unproven decision node it reaches (below the root): on a hit the node becomes proven
    at once (its mover's status is the stored result, negated when the mover is not the player
    to move there), the descent stops there as at any proven node, the simulation backs up the
    exact value (win value 1 or 0) and the proof propagates up its path as above. The root's own
    status still comes from its children (the move to play must be among them).
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

    state = root.copy()
    legal = np.empty(max(1, iparams[P_NUM_ACTIONS]), dtype=np.int32)
    path = np.empty(max_len + 1, dtype=np.int32)  # tree nodes of this simulation, root first
    path_player = np.empty(max_len + 1, dtype=np.int32)  # player to move at each of them
    moves = np.empty(2 * max_len + 2, dtype=np.int32)
    out = np.empty(num_players, dtype=np.float64)
    w = np.empty(num_players, dtype=np.float64)
    proof = np.empty(max_len + 1, dtype=np.int8)  # result proven at path[k], for its player

    if solver:
        counters[C_ROOT_PROVEN] = _root_status(first_child, num_children, proven)
    sims = 0
    while sims < n_sims and counters[C_ROOT_PROVEN] == UNPROVEN:
        sims += 1
        state[:] = root
        node = ROOT
        d = 0
        path[0] = ROOT
        player = game.current_player(consts, state)
        path_player[0] = player
        # ---- selection and expansion: walk down while the node is an expanded decision node
        while True:
            if player < 0:
                break
            if solver and d > 0:
                if proven[node] == UNPROVEN and counters[C_TT_USED] > 0:
                    found = lookup(tt_keys, tt_vals, state_hash(state, tt_mult))
                    proven[node] = found if player == path_player[d - 1] else -found
                if proven[node] != UNPROVEN:
                    break
            fc = first_child[node]
            if fc == NO_CHILD:
                if d > 0 and visits[node] < z:
                    break
                k = game.legal_actions(consts, state, legal)
                if counters[C_USED] + k > capacity:
                    break
                fc = counters[C_USED]
                counters[C_USED] += k
                first_child[node] = fc
                num_children[node] = k
                for j in range(k):
                    i = fc + j
                    first_child[i] = NO_CHILD
                    num_children[i] = 0
                    action[i] = legal[j]
                    parent[i] = node
                    visits[i] = 0
                    value[i] = 0.0
                    proven[i] = UNPROVEN
                    if tuned:
                        value_sq[i] = 0.0
            k = num_children[node]
            big_n = np.float64(visits[node])
            log_n = math.log(big_n) if big_n > 0.0 else 0.0
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
                    q = np.float64(value[i])
                    nf = np.float64(n)
                    if formula == SLIDES:
                        score = q + c * math.sqrt(2.0 * log_n / nf)
                    elif formula == BOOK:
                        score = q + c * math.sqrt(log_n / nf)
                    elif formula == PAPER:
                        score = q * nf / (nf + 1.0) + c * math.sqrt(
                            math.log(big_n + 1.0) / (nf + 1.0)
                        )
                    else:
                        var = np.float64(value_sq[i]) - q * q + math.sqrt(2.0 * log_n / nf)
                        score = q + c * math.sqrt(log_n / nf * min(0.25, var))
                if score > best:
                    best = score
                    chosen = i
                    ties = 1
                elif score == best:
                    ties += 1
                    rng, r = below(rng, ties)
                    if r == 0:
                        chosen = i
            if chosen < 0:
                break
            game.apply_action(consts, state, np.int64(action[chosen]))
            node = chosen
            d += 1
            path[d] = node
            player = game.current_player(consts, state)
            path_player[d] = player
        depth_hist[d] += 1
        # ---- evaluation: per-player win values w
        status = UNPROVEN
        if player == _TERMINAL:
            game.returns(consts, state, out)
            for p in range(num_players):
                w[p] = (out[p] - lo) / span
            if solver and d > 0:
                wm = w[path_player[d - 1]]
                if wm == 1.0:
                    status = PROVEN_WIN
                elif wm == 0.0:
                    status = PROVEN_LOSS
                proven[node] = status
        elif solver and d > 0 and proven[node] != UNPROVEN:
            status = proven[node]
            m = path_player[d - 1]
            w[m] = 1.0 if status == PROVEN_WIN else 0.0
            w[1 - m] = 1.0 - w[m]
        elif leaf == LEAF_COIN:
            rng, winner = below(rng, num_players)
            for p in range(num_players):
                w[p] = 1.0 if p == winner else 0.0
        else:
            _, rng = game.random_playout(consts, state, rng, moves, out)
            for p in range(num_players):
                w[p] = (out[p] - lo) / span
        # ---- backup
        visits[ROOT] += 1
        for j in range(d, 0, -1):
            i = path[j]
            wm = w[path_player[j - 1]]
            n = visits[i] + 1
            visits[i] = n
            q = np.float64(value[i])
            value[i] = q + (wm - q) / n
            if tuned:
                q2 = np.float64(value_sq[i])
                value_sq[i] = q2 + (wm * wm - q2) / n
        # ---- MCTS-Solver: propagate a proof up the path
        if solver and status != UNPROVEN:
            top = d  # the shallowest path index proven by this simulation (d: none)
            j = d
            while j > 0:
                x = path[j - 1]
                if status == PROVEN_WIN:
                    result = PROVEN_WIN  # for the player to move at x
                else:
                    result = PROVEN_LOSS
                    fx = first_child[x]
                    for i in range(fx, fx + num_children[x]):
                        if proven[i] != PROVEN_LOSS:
                            result = UNPROVEN
                            break
                if result == UNPROVEN:
                    break
                top = j - 1
                proof[top] = result
                if j == 1:
                    counters[C_ROOT_PROVEN] = result
                    break
                status = result if path_player[j - 2] == path_player[j - 1] else -result
                proven[x] = status
                j -= 1
            # ---- store the newly proven positions path[top..d-1], replaying the path from the root
            if top < d and tt_keys.shape[0] > 0:
                state[:] = root
                for k in range(d):
                    if k >= top:
                        counters[C_TT_USED] += insert(
                            tt_keys, tt_vals, state_hash(state, tt_mult), proof[k]
                        )
                    if k + 1 < d:
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
