"""MDP Monte Carlo tree search (Kochenderfer, Wheeler, Wray, *Algorithms for Decision Making*,
2022, section 9.6, Algorithms 9.6 and 9.7), compiled and specialised per game by
:func:`mctslab.kernels.codegen.specialize` (the marked import below is rewritten for each game).

The book's algorithm, for a single-player MDP with generative model ``TR(s, a) -> (s', r)``::

    simulate!(π, s, d):
        if d <= 0: return U(s)
        if (s, first(A)) not in N:                      # a new state
            for a in A: N[(s, a)] = 0; Q[(s, a)] = 0.0
            return U(s)
        a = explore(π, s)
        s', r = TR(s, a)
        q = r + γ simulate!(π, s', d - 1)
        N[(s, a)] += 1
        Q[(s, a)] += (q - Q[(s, a)]) / N[(s, a)]
        return q

    explore(π, s) = argmax_a Q[(s, a)] + c · bonus(N[(s, a)], N(s)),   N(s) = Σ_a N[(s, a)]
    bonus(Nsa, Ns) = Nsa == 0 ? ∞ : sqrt(log(Ns) / Nsa)

and the move played is ``argmax_a Q[(s, a)]`` after ``m`` simulations from ``s``. Here:

* ``s`` is the game's decision state; ``TR`` applies the action and then samples the chance
  events that follow (by their probabilities) up to the next decision or the end; ``r`` is the
  difference of the returns across that step (the contract's cumulative reward). ``A`` is the
  state's legal actions (2048's moves that change the board). A terminal state has value 0.
* ``N`` and ``Q`` live in a hash table keyed by a 64-bit hash of the state array
  (:func:`mctslab.search.transpositions.state_hash`, a multilinear hash; a collision merges two
  states' statistics with probability about ``2^-64`` per pair). Open addressing with linear
  probing; a table that is full stops taking new states (their value is ``U(s)``, the search
  goes on). ``argmax`` takes the first best action, as Julia's does.
* ``U`` (``iparams[P_LEAF]``): ``LEAF_ROLLOUT`` the discounted return ``Σ_{t<k} γ^t r_t`` of a
  ``k``-step uniformly random rollout (section 9.2; the book's 2048 example uses ``k = 10``);
  ``k = 0`` rolls out to the end of the game (with ``γ = 1`` through the game's fast
  ``random_playout``: the pure Monte-Carlo value, the score still to come),
  ``LEAF_ZERO`` zero, ``LEAF_HEURISTIC`` ``w · H(s)`` with the game's ``heuristic_value`` kernel
  and a weight ``w``, ``LEAF_NETWORK`` (an addition) a learned estimate of the score still to
  come with the game's ``network_value`` kernel (2048: ``max_a r(s, a) + V(after(s, a))`` by an
  n-tuple network trained by TD(0), :mod:`mctslab.games.g2048_ntuple`). Both kernels are
  optional hooks of the game contract (:data:`mctslab.games.contract.OPTIONAL_KERNELS`), bound
  below through :func:`~mctslab.games.contract.optional_kernel`; for a game without one the
  template binds a stand-in that the driver (:mod:`mctslab.search.mdp`) never lets run.
* **Rollout policy** (``P_ROLLOUT_POLICY``, an addition to the book; only for a rollout to the
  end with ``γ = 1``): 0 is the uniform ``random_playout``; another value is an id of the game's
  rollout policy table (its ``ROLLOUT_POLICIES`` hook) and plays the game's optional
  ``policy_playout(policy, eps)`` kernel instead, a share ``eps`` of its moves uniformly random
  (2048: ``greedy``, ``corner``, ``greedy_corner``, ``heuristic``; see
  :func:`mctslab.games.g2048_kernels.pick_move`). The leaf value is then the score that policy
  still makes, a less noisy and larger estimate of what a good player makes than the random
  game's (Browne et al. 2012, "A survey of MCTS methods", §6.1: heavy playouts).
* **Scaled exploration** (``P_C_SCALE = C_BEST``, an addition): ``explore`` uses
  ``c · max_b |Q(s, b)|`` (over the node's visited actions) instead of ``c``, so ``c`` is a
  share of the node's best value estimate rather than reward units. UCB1's bonus assumes
  rewards in ``[0, 1]`` (Auer et al. 2002); 2048's returns to come grow from hundreds to tens of
  thousands over a game, so a fixed ``c`` explores a lot early and hardly at all late.
* **Open loop** (``P_OPEN_LOOP``; Perez Liebana et al. 2015, "Open loop search for general video
  game playing"): the statistics are keyed by the action sequence from the root instead of the
  state (``key' = mix(key, a)``), so every sampled outcome of an action shares one node.
"""

import math

import numpy as np
from numba import njit

from mctslab.games import g2048_kernels as game  # mctslab:game-kernels
from mctslab.games.contract import optional_kernel
from mctslab.kernels.rng import below, next_u64, weighted
from mctslab.search.transpositions import state_hash

LEAF_ROLLOUT = 0
LEAF_ZERO = 1
LEAF_HEURISTIC = 2
LEAF_NETWORK = 3
# Layout of ``iparams``.
P_DEPTH, P_LEAF, P_ROLLOUT_DEPTH, P_OPEN_LOOP, P_NUM_ACTIONS, P_NUM_CHANCE = 0, 1, 2, 3, 4, 5
P_MAX_LENGTH, P_ROLLOUT_POLICY, P_C_SCALE = 6, 7, 8
N_IPARAMS = 9
# ``P_C_SCALE``: ``c`` in reward units (the book) or relative to the node's best ``|Q|``.
C_ABSOLUTE, C_BEST = 0, 1
# Layout of ``fparams``.
F_C, F_GAMMA, F_H_WEIGHT, F_EPS = 0, 1, 2, 3
N_FPARAMS = 4
# Layout of ``counters``: states stored, table-full events, hash-table probes over the limit.
C_USED, C_FULL = 0, 1
N_COUNTERS = 2
#: slots examined by a lookup or an insertion
PROBES = 16
_U32 = np.uint64(32)
_ONE = np.uint64(1)


@njit(cache=True)
def _no_heuristic(consts, state):
    return 0.0


#: the game's leaf heuristic, or zero for a game that has none (the driver refuses that case)
_heuristic = optional_kernel(game, "heuristic_value", _no_heuristic)


@njit(cache=True)
def _no_policy_playout(consts, state, rng, policy, eps, out):
    return 0, rng


@njit(cache=True)
def _no_network(consts, w, fs, state):
    return 0.0


#: the game's learned leaf value (an n-tuple network), or zero (the driver refuses that case)
_network = optional_kernel(game, "network_value", _no_network)


#: the game's policy rollout to the end, if it has one (the driver refuses a policy otherwise)
_policy_playout = optional_kernel(game, "policy_playout", _no_policy_playout)


@njit(cache=True)
def find_slot(keys, h, insert, counters):
    """The slot of key ``h`` (never 0), or -1; with ``insert``, a free slot is claimed for it
    (its ``N`` and ``Q`` rows must be zero). Returns ``(slot, created)``."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = (h >> _U32) & mask
    for _ in range(PROBES):
        k = keys[slot]
        if k == h:
            return np.int64(slot), False
        if k == 0:
            if insert:
                keys[slot] = h
                counters[C_USED] += 1
                return np.int64(slot), True
            return -1, False
        slot = (slot + _ONE) & mask
    if insert:
        counters[C_FULL] += 1
    return -1, False


@njit(cache=True)
def mix_action(key, action):
    """The open-loop key of the node reached by ``action`` from the node keyed ``key``."""
    h = next_u64(key ^ np.uint64(0x9E3779B97F4A7C15 + action))
    return next_u64(h) | _ONE


@njit(cache=True)
def key_of(state, mult):
    """The closed-loop key of a state: its hash, never 0 (0 marks an empty slot)."""
    return state_hash(state, mult) | _ONE


@njit(cache=True)
def sample_chance(consts, state, rng, outcomes, probs):
    """Apply chance events by their probabilities until a decision or terminal state."""
    while game.current_player(consts, state) == -1:
        n = game.chance_outcomes(consts, state, outcomes, probs)
        rng, i = weighted(rng, probs, n)
        game.apply_chance(consts, state, outcomes[i])
    return rng


@njit(cache=True)
def rollout_value(consts, state, depth, gamma, rng, actions, outcomes, probs, ret):
    """``Σ_{t<depth} γ^t r_t`` along uniformly random moves from ``state`` (changed in place)."""
    total = 0.0
    disc = 1.0
    game.returns(consts, state, ret)
    before = ret[0]
    for _ in range(depth):
        if game.current_player(consts, state) != 0:
            break
        n = game.legal_actions(consts, state, actions)
        rng, i = below(rng, n)
        game.apply_action(consts, state, actions[i])
        rng = sample_chance(consts, state, rng, outcomes, probs)
        game.returns(consts, state, ret)
        total += disc * (ret[0] - before)
        before = ret[0]
        disc *= gamma
    return total, rng


@njit(cache=True)
def explore(n_row, q_row, actions, n, c):
    """Algorithm 9.7: ``argmax_a Q(s,a) + c sqrt(log N(s) / N(s,a))`` over ``actions[:n]``, an
    unvisited action's bonus infinite; the first best wins."""
    ns = 0
    for i in range(n):
        ns += n_row[actions[i]]
    log_ns = math.log(ns) if ns > 0 else 0.0
    best = actions[0]
    best_score = -np.inf
    for i in range(n):
        a = actions[i]
        if n_row[a] == 0:
            return a
        score = q_row[a] + c * math.sqrt(log_ns / n_row[a])
        if score > best_score:
            best_score = score
            best = a
    return best


@njit(cache=True)
def scaled_c(n_row, q_row, actions, n, c):
    """``c · max_a |Q(s, a)|`` over the visited ``actions[:n]`` (``c`` while none is visited)."""
    m = 0.0
    seen = False
    for i in range(n):
        a = actions[i]
        if n_row[a] > 0:
            seen = True
            m = max(m, abs(q_row[a]))
    return c * m if seen else c


@njit(cache=True)
def mdp_search(
    consts, root, keys, visits, qvalues, mult, counters, depth_hist, fparams, iparams, n_sims, rng,
    net_w, net_fs,
):  # fmt: skip
    """Run ``n_sims`` simulations of Algorithm 9.6 from ``root`` (a decision state); return the
    generator state. ``visits``/``qvalues`` are ``[slots, num_actions]``: ``N(s, a)``, ``Q(s, a)``
    for the state (or open-loop node) in each slot of ``keys``. ``depth_hist[k]`` counts
    simulations that made ``k`` steps before their leaf value. ``net_w``, ``net_fs``: the
    network's weights and feature offsets for ``LEAF_NETWORK`` (unused otherwise)."""
    c = fparams[F_C]
    gamma = fparams[F_GAMMA]
    h_weight = fparams[F_H_WEIGHT]
    eps = fparams[F_EPS]
    policy = iparams[P_ROLLOUT_POLICY]
    c_best = iparams[P_C_SCALE] == C_BEST
    d = iparams[P_DEPTH]
    leaf_kind = iparams[P_LEAF]
    k_roll = iparams[P_ROLLOUT_DEPTH]
    open_loop = iparams[P_OPEN_LOOP] != 0
    na = iparams[P_NUM_ACTIONS]
    actions = np.empty(na, dtype=np.int32)
    outcomes = np.empty(max(1, iparams[P_NUM_CHANCE]), dtype=np.int32)
    probs = np.empty(outcomes.shape[0], dtype=np.float64)
    ret = np.zeros(1, dtype=np.float64)
    moves = np.empty(2 * iparams[P_MAX_LENGTH] + 2 if k_roll == 0 else 2, dtype=np.int32)
    path_slot = np.empty(d + 1, dtype=np.int64)
    path_action = np.empty(d + 1, dtype=np.int64)
    path_reward = np.empty(d + 1, dtype=np.float64)
    state = root.copy()
    root_key = key_of(root, mult)
    for _ in range(n_sims):
        state[:] = root
        key = root_key
        steps = 0
        leaf = 0.0  # a terminal state is worth 0
        estimate = True  # the descent stopped at a state valued by U(s)
        while True:
            if game.current_player(consts, state) == -4:
                estimate = False
                break
            if steps >= d:
                break
            slot, created = find_slot(keys, key, True, counters)
            if slot < 0 or created:
                break
            n = game.legal_actions(consts, state, actions)
            cs = scaled_c(visits[slot], qvalues[slot], actions, n, c) if c_best else c
            a = explore(visits[slot], qvalues[slot], actions, n, cs)
            game.returns(consts, state, ret)
            before = ret[0]
            game.apply_action(consts, state, a)
            rng = sample_chance(consts, state, rng, outcomes, probs)
            game.returns(consts, state, ret)
            path_slot[steps] = slot
            path_action[steps] = a
            path_reward[steps] = ret[0] - before
            steps += 1
            key = mix_action(key, a) if open_loop else key_of(state, mult)
        if estimate:
            if leaf_kind == LEAF_ROLLOUT and k_roll == 0 and gamma == 1.0:
                game.returns(consts, state, ret)
                before = ret[0]
                if policy == 0:
                    _, rng = game.random_playout(consts, state, rng, moves, ret)
                else:
                    _, rng = _policy_playout(consts, state, rng, policy, eps, ret)
                leaf = ret[0] - before
            elif leaf_kind == LEAF_ROLLOUT:
                k = k_roll if k_roll > 0 else iparams[P_MAX_LENGTH]
                leaf, rng = rollout_value(
                    consts, state, k, gamma, rng, actions, outcomes, probs, ret
                )
            elif leaf_kind == LEAF_HEURISTIC:
                leaf = h_weight * _heuristic(consts, state)
            elif leaf_kind == LEAF_NETWORK:
                leaf = _network(consts, net_w, net_fs, state)
            else:
                leaf = 0.0
        depth_hist[min(steps, depth_hist.shape[0] - 1)] += 1
        q = leaf
        for i in range(steps - 1, -1, -1):
            q = path_reward[i] + gamma * q
            s = path_slot[i]
            a = path_action[i]
            visits[s, a] += 1
            qvalues[s, a] += (q - qvalues[s, a]) / visits[s, a]
    return rng


@njit(cache=True)
def root_slot(root, keys, mult, counters):
    """The slot of the root's statistics, or -1."""
    slot, _ = find_slot(keys, key_of(root, mult), False, counters)
    return slot
