"""MDP MCTS (the book's Algorithms 9.6/9.7): the first simulations traced as in the book's 2048
example, exact action values on a tiny chance MDP (discount, rollout leaf, open loop), the
heuristic leaf, a full table, determinism and the agent's spec checks.

The tiny MDP (the kernels below, specialised like any game): three steps; action 0 ("safe")
earns 2; action 1 ("risky") is followed by a fair coin that earns 5 or 0. Optimal values with
discount γ over the steps left: V_1 = 2.5, V_k = 2.5 + γ V_{k-1}; Q(s, safe) = 2 + γ V_{k-1}.
"""

import sys

import numpy as np
import pytest
from numba import njit

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import SpecError
from mctslab.kernels.rng import below
from mctslab.search.budget import Budget
from mctslab.search.mdp import Mdp, MdpConfig

# -- the tiny MDP's kernels: state [steps done, score, coin pending] ----------------------------
STATE_DTYPE = np.int32
HORIZON = 3


@njit(cache=True)
def init_state(consts, state):
    state[0] = 0
    state[1] = 0
    state[2] = 0


@njit(cache=True)
def current_player(consts, state):
    if state[2] == 1:
        return -1
    if state[0] >= HORIZON:
        return -4
    return 0


@njit(cache=True)
def legal_actions(consts, state, out):
    if state[2] == 1 or state[0] >= HORIZON:
        return 0
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def apply_action(consts, state, action):
    state[0] += 1
    if action == 0:
        state[1] += 2
    else:
        state[2] = 1


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    if state[2] != 1:
        return 0
    outcomes[0] = 0
    outcomes[1] = 1
    probs[0] = 0.5
    probs[1] = 0.5
    return 2


@njit(cache=True)
def apply_chance(consts, state, outcome):
    state[2] = 0
    state[1] += 5 * outcome


@njit(cache=True)
def returns(consts, state, out):
    out[0] = state[1]


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    n = 0
    while current_player(consts, state) != -4:
        rng, r = below(rng, 2)
        if current_player(consts, state) == -1:
            apply_chance(consts, state, r)
            continue
        moves[2 * n] = 0
        moves[2 * n + 1] = r
        n += 1
        apply_action(consts, state, r)
    returns(consts, state, out)
    return n, rng


class _Spec:
    name = "coinchain"
    spec_string = "coinchain"
    num_players = 1
    num_distinct_actions = 2
    num_chance_outcomes = 2
    state_size = 3
    max_game_length = 2 * HORIZON


class CoinChain(mctslab.Game):
    """Just enough of a Game for :class:`Mdp`: the spec, constants and kernels."""

    NAME = "coinchain"
    kernels = sys.modules[__name__]

    def __init__(self):
        self.consts = np.zeros(1, dtype=np.int32)
        self.spec = _Spec()
        self.params = None

    def action_to_string(self, player, action):
        return ("safe", "risky")[action]

    def render(self, state):
        return str(state)


def exact_q(gamma: float) -> tuple[float, float]:
    v = 0.0
    for _ in range(HORIZON - 1):
        v = 2.5 + gamma * v
    return 2 + gamma * v, 2.5 + gamma * v


def root_q(config: MdpConfig, sims: int, seed: int = 1):
    game = CoinChain()
    mdp = Mdp(game, config, seed)
    result = mdp.search(game.new_initial_state(), Budget(sims=sims))
    return result


@pytest.mark.parametrize("gamma", [1.0, 0.5])
@pytest.mark.parametrize("open_loop", [False, True])
def test_root_values_converge_to_the_exact_q(gamma, open_loop):
    config = MdpConfig(d=HORIZON, c=3.0, gamma=gamma, leaf="zero", open_loop=open_loop)
    result = root_q(config, 20000)
    safe, risky = exact_q(gamma)
    assert result.action == 1
    # the best action's mean converges to its value; the other is sampled less, and its mean
    # still carries the exploration below it: between always-safe play (2 a step) and its value
    assert result.values[1] == pytest.approx(risky, abs=0.1)
    assert 2 + gamma * 2 + gamma**2 * 2 - 0.05 <= result.values[0] <= safe + 0.05
    assert result.visits[1] > result.visits[0]


def test_rollout_leaf_is_the_discounted_return_of_k_random_steps():
    # d = 1: Q(root, a) = r(a) + γ U(s'), U = Σ_{t<2} γ^t r_t of uniformly random moves
    # (mean reward per random step (2 + 2.5) / 2 = 2.25)
    gamma = 0.5
    config = MdpConfig(d=1, c=100.0, gamma=gamma, leaf="rollout", rollout_depth=2)
    result = root_q(config, 40000)
    u = 2.25 * (1 + gamma)
    assert result.values[0] == pytest.approx(2 + gamma * u, abs=0.05)
    assert result.values[1] == pytest.approx(2.5 + gamma * u, abs=0.05)


@pytest.mark.parametrize("gamma", [1.0, 0.5])
def test_a_rollout_to_the_end(gamma):
    """``rollout_depth = 0``: to the end of the game (γ = 1: through the fast playout)."""
    config = MdpConfig(d=1, c=100.0, gamma=gamma, leaf="rollout", rollout_depth=0)
    result = root_q(config, 40000)
    u = 2.25 * (1 + gamma)
    assert result.values[0] == pytest.approx(2 + gamma * u, abs=0.05)
    assert result.values[1] == pytest.approx(2.5 + gamma * u, abs=0.05)


def test_zero_leaf_at_depth_one_is_the_immediate_reward():
    result = root_q(MdpConfig(d=1, c=100.0, leaf="zero"), 4000)
    assert result.values[0] == 2.0
    assert result.values[1] == pytest.approx(2.5, abs=0.2)


@pytest.fixture(scope="module")
def g2048():
    return mctslab.load_game("2048")


BOARD = "2 4 8 16 / 32 64 128 256 / 4 . . 2 / . . 2 ."


def test_first_simulations_follow_the_book_example(g2048):
    """Example 9.3/9.4: the first simulation only adds the root (N = Q = 0 for every action);
    each next one tries an unvisited action (infinite bonus), the first of them first."""
    state = g2048.state_from_board(BOARD)
    legal = state.legal_actions()
    for sims, expect in ((1, [0] * len(legal)), (2, [1] + [0] * (len(legal) - 1))):
        mdp = Mdp(g2048, MdpConfig(reuse=False), seed=3)
        r = mdp.search(state, Budget(sims=sims))
        assert r.visits == expect and r.nodes >= 1
    r = Mdp(g2048, MdpConfig(reuse=False), seed=3).search(state, Budget(sims=1 + len(legal)))
    assert r.visits == [1] * len(legal)


def test_heuristic_leaf_at_depth_one_is_reward_plus_expected_heuristic(g2048):
    state = g2048.state_from_board(BOARD)
    w = 0.001
    mdp = Mdp(g2048, MdpConfig(d=1, c=1e9, leaf="heuristic", h_weight=w), seed=5)
    r = mdp.search(state, Budget(sims=8000))
    h = g2048.kernels.heuristic_value
    for a, q in zip(r.actions, r.values, strict=True):
        after = state.clone()
        after.apply_action(a)
        exact = after.returns()[0]
        for o, p in after.chance_outcomes():
            nxt = after.clone()
            nxt.apply_action(o)
            exact += p * w * h(g2048.consts, nxt.array)
        assert q == pytest.approx(exact, rel=2e-3), a


def test_a_full_table_stops_growing_and_the_search_goes_on(g2048):
    state = g2048.state_from_board(BOARD)
    mdp = Mdp(g2048, MdpConfig(max_states=16, reuse=False), seed=1)
    r = mdp.search(state, Budget(sims=3000))
    assert r.nodes <= 16 and r.slots == 16 and r.simulations == 3000
    assert mdp.counters[1] > 0  # insertions refused
    assert sum(r.visits) == 3000 - 1  # every simulation after the first passes the root


def test_same_seed_same_search(g2048):
    state = g2048.state_from_board(BOARD)
    runs = [make_agent("mdp(sims=500,leaf=rollout,seed=9)", g2048).search(state) for _ in range(2)]
    assert runs[0].visits == runs[1].visits and runs[0].values == runs[1].values


def test_agent_specs(g2048):
    agent = make_agent("mdp", g2048, seed=1)
    assert agent.spec_string.startswith("mdp(d=10,c=100.0,gamma=1.0,leaf=rollout")
    with pytest.raises(SpecError, match="single-player"):
        make_agent("mdp", mctslab.load_game("nim"))
    with pytest.raises(SpecError, match="leaf"):
        make_agent("mdp(leaf=best)", g2048)
    state = g2048.state_from_board(BOARD)
    assert make_agent("mdp(sims=200,open_loop=true)", g2048, seed=2).step(state) in (
        state.legal_actions()
    )


def test_policy_rollouts_and_scaled_c_are_checked(g2048):
    with pytest.raises(SpecError, match="'greedy_corner' or 'heuristic'"):
        make_agent("mdp(rollout=best)", g2048)
    with pytest.raises(SpecError, match="rollout_depth=0"):
        make_agent("mdp(rollout=greedy)", g2048)  # the book's 10-step rollout
    with pytest.raises(SpecError, match="rollout_depth=0"):
        make_agent("mdp(rollout=greedy,rollout_depth=0,gamma=0.9)", g2048)
    with pytest.raises(SpecError, match="eps"):
        make_agent("mdp(rollout_depth=0,eps=0.1)", g2048)
    with pytest.raises(SpecError, match="'absolute' or 'best'"):
        make_agent("mdp(c_scale=node)", g2048)
    with pytest.raises(SpecError, match="policy_playout"):
        Mdp(CoinChain(), MdpConfig(rollout="greedy", rollout_depth=0), 1)
    with pytest.raises(SpecError, match=r"c_scale='node'; allowed: absolute\|best"):
        Mdp(CoinChain(), MdpConfig(c_scale="node"), 1)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match=r"allowed: random\|greedy\|corner\|greedy_corner\|heur"):
        Mdp(g2048, MdpConfig(rollout="best", rollout_depth=0), 1)  # type: ignore[arg-type]


def test_scaled_c_is_c_times_the_best_visited_value():
    tpl = Mdp(CoinChain(), MdpConfig(), 1).kernels
    n_row = np.array([3, 0, 2], dtype=np.int32)
    q_row = np.array([-8.0, 50.0, 4.0])
    actions = np.array([0, 1, 2], dtype=np.int32)
    assert tpl.scaled_c(n_row, q_row, actions, 3, 0.5) == 4.0  # 0.5 * |-8|; action 1 unvisited
    assert tpl.scaled_c(np.zeros(3, dtype=np.int32), q_row, actions, 3, 0.5) == 0.5


def test_scaled_c_search_still_finds_the_exact_q():
    config = MdpConfig(d=HORIZON, c=0.5, c_scale="best", leaf="zero")
    result = root_q(config, 20000)
    _, risky = exact_q(1.0)
    assert result.action == 1 and result.values[1] == pytest.approx(risky, abs=0.1)


def test_a_greedy_rollout_leaf_is_the_greedy_players_score_to_come(g2048):
    """d = 1, greedy rollouts: Q(s, a) = r(a) + the mean score a greedy game still makes after
    the spawn; from a board where greedy play differs from random play, the greedy leaf's values
    are the larger (greedy games last longer)."""
    state = g2048.state_from_board(". . . . / . 2 . . / . . 4 . / . . . .")
    spec = "mdp(d=1,c=1e9,rollout_depth=0,sims=1200,seed=4{})"
    rnd = make_agent(spec.format(""), g2048).search(state)
    greedy = make_agent(spec.format(",rollout=greedy"), g2048).search(state)
    assert min(greedy.values) > 1.3 * max(rnd.values)
    again = make_agent(spec.format(",rollout=greedy"), g2048).search(state)
    assert again.values == greedy.values


@pytest.mark.parametrize("rollout", ["greedy", "corner", "greedy_corner", "heuristic"])
def test_every_policy_rollout_plays_a_legal_move(g2048, rollout):
    state = g2048.state_from_board(BOARD)
    agent = make_agent(f"mdp(d=1,sims=100,rollout={rollout},rollout_depth=0,eps=0.1)", g2048)
    result = agent.search(state)
    assert result.action in state.legal_actions() and result.simulations == 100
    assert max(result.values) > 0  # rollouts to the end from a live board score something
