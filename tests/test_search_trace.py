"""Hand-traceable searches on a tiny explicit game tree, checked after every single simulation.

The tree (P0, P1 = the player to move; leaves give P0's return; a playout always takes the first
child, so it is deterministic)::

    R (P0)
    ├── 0: A (P1)
    │      └── 0: A0 (P0)
    │             └── 0: A00  leaf +1   (P0 wins: win value 1 for P0, 0 for P1)
    └── 1: B (P1)
           └── 0: B0  leaf -1           (P0 loses)

A playout from A (or A0) ends in A00, one from B in B0. Values in the tree are win values for the
player who moved into the node: P0 for A, B and A00, P1 for A0.
"""

import math

import numpy as np
import pytest

from mctslab.search import PROVEN_LOSS, PROVEN_WIN, Uct, UctConfig
from mctslab.search.budget import Budget
from search_tree_game import TreeGame

TREE = (0, [(1, [(0, [1.0])]), (1, [-1.0])])


def stepper(**config):
    """A search that the test advances one simulation at a time (the tree is kept: the root
    position does not change, so tree reuse keeps all of it)."""
    game = TreeGame(TREE)
    uct = Uct(game, UctConfig(**{"solver": False, **config}), seed=7)
    state = game.new_initial_state()
    return uct, lambda: uct.search(state, Budget(sims=1))


def node(uct, *path):
    """Pool index of the node reached by the actions in ``path``."""
    i = 0
    for a in path:
        i = uct.tree.child_with_action(i, a)
        assert i is not None, path
    return i


def stats(uct, *path):
    i = node(uct, *path)
    return int(uct.tree.visits[i]), float(uct.tree.value[i])


def test_expand_all_z1_after_each_simulation():
    uct, sim = stepper()
    sim()  # the root is expanded (R, A, B); A and B tie at +inf, one is picked at random
    assert uct.tree.used == 3
    assert stats(uct)[0] == 1 and stats(uct, 0)[0] + stats(uct, 1)[0] == 1
    sim()  # the other one
    assert uct.tree.used == 3
    assert stats(uct, 0) == (1, 1.0) and stats(uct, 1) == (1, 0.0)
    r = sim()  # A: 1 + 0.7 sqrt(2 ln 2 / 1) beats B: 0 + 0.7 sqrt(2 ln 2); A has 1 >= z visits,
    # so it is expanded and the simulation stops at its new child A0 (playout A0 -> A00)
    assert uct.tree.used == 4
    assert stats(uct) == (3, 0.0)
    assert stats(uct, 0) == (2, 1.0) and stats(uct, 0, 0) == (1, 0.0) and stats(uct, 1) == (1, 0.0)
    assert r.depth_max == 2
    sim()  # A again (1.734 vs 1.038); A0 is expanded; A00 is terminal
    assert uct.tree.used == 5
    assert stats(uct, 0) == (3, 1.0) and stats(uct, 0, 0) == (2, 0.0)
    assert stats(uct, 0, 0, 0) == (1, 1.0)
    # B gets its second visit only when 0.7 sqrt(2 ln N) > 1 + 0.7 sqrt(2 ln N / (N - 1)):
    # N = 9: 1.467 < 1.519; N = 10: 1.502 > 1.501, i.e. in simulation 11.
    for _ in range(5, 11):
        sim()
        assert stats(uct, 1)[0] == 1
    sim()
    assert stats(uct, 1) == (2, 0.0) and stats(uct, 0)[0] == 9


def test_slow_node_creation_z2():
    uct, sim = stepper(z=2)
    sim(), sim()
    r = sim()  # A has 1 < 2 visits: not expanded, the playout starts at A
    assert uct.tree.used == 3 and r.depth_max == 1 and stats(uct, 0) == (2, 1.0)
    r = sim()  # A has 2 visits: expanded; A0 (0 < 2 visits) is where the playout starts
    assert uct.tree.used == 4 and r.depth_max == 2 and stats(uct, 0, 0) == (1, 0.0)
    sim()  # A0 has 1 < 2 visits
    assert uct.tree.used == 4 and stats(uct, 0, 0) == (2, 0.0)
    sim()  # A0 has 2: expanded; A00 is terminal
    assert uct.tree.used == 5 and stats(uct, 0, 0, 0) == (1, 1.0) and stats(uct, 0) == (5, 1.0)


@pytest.mark.parametrize("expand_all, nodes", [(True, [3, 3, 4, 5, 5]), (False, [2, 3, 4, 5, 5])])
def test_one_child_per_simulation_creates_one_node_each_time(expand_all, nodes):
    uct, sim = stepper(expand_all=expand_all)
    got = [(sim().nodes, uct.tree.used) for _ in range(5)]
    assert got == [(n, s) for n, s in zip(nodes, [3, 3, 4, 5, 5], strict=True)]


def first_second_visit_of_b(score):
    """The simulation in which B gets its second visit, A having all the others (A always wins,
    B always loses), for a selection score ``score(wins, n, parent_visits)``."""
    for sim in range(3, 10_000):
        big_n, n_a = sim - 1, sim - 2
        if score(0.0, 1, big_n) > score(float(n_a), n_a, big_n):
            return sim
    raise AssertionError


@pytest.mark.parametrize(
    "formula, c, score",
    [
        ("slides", 0.7, lambda w, n, N: w / n + 0.7 * math.sqrt(2 * math.log(N) / n)),
        ("book", 1.3, lambda w, n, N: w / n + 1.3 * math.sqrt(math.log(N) / n)),
        ("paper", 1.6, lambda w, n, N: w / (n + 1) + 1.6 * math.sqrt(math.log(N + 1) / (n + 1))),
        # rewards +1 and -1: B's loss scores -1/2 after one visit, not 0
        (
            "paper_pm1",
            1.6,
            lambda w, n, N: (2 * w - n) / (n + 1) + 1.6 * math.sqrt(math.log(N + 1) / (n + 1)),
        ),
        # UCB1-Tuned: A's and B's win values never vary, so V = sqrt(2 ln N / n)
        (
            "ucb1tuned",
            2.0,
            lambda w, n, N: (
                w / n + 2.0 * math.sqrt(math.log(N) / n * min(0.25, math.sqrt(2 * math.log(N) / n)))
            ),
        ),
    ],
)
def test_each_formula_revisits_the_bad_move_when_its_formula_says(formula, c, score):
    expected = first_second_visit_of_b(score)
    # expand_all=false: both children are tried first (one child per simulation)
    uct, sim = stepper(formula=formula, c=c, expand_all=False)
    for k in range(1, expected):
        sim()
        assert stats(uct, 1)[0] == 1 or k == 1, k
    sim()
    assert stats(uct, 1)[0] == 2


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("rave", ["off", "paper"])
def test_paper_formula_tries_every_move_first(seed, rave):
    """The NoGo paper's Algorithm 1 scores an untried move "+∞ if nb_t(o) = 0": with C = 0 and
    all children expanded, the first two simulations visit A and B once each (a finite score,
    0, would keep B untried forever whenever A was drawn first and won); then W/(n+1) keeps to
    the winning move A."""
    game = TreeGame(TREE)
    config = UctConfig(formula="paper", c=0.0, solver=False, rave=rave)
    uct = Uct(game, config, seed=seed)
    state = game.new_initial_state()
    for _ in range(2):
        uct.search(state, Budget(sims=1))
    assert stats(uct, 0)[0] == 1 and stats(uct, 1)[0] == 1
    for _ in range(98):
        uct.search(state, Budget(sims=1))
    assert stats(uct, 0)[0] > 90


def test_solver_proves_the_root_in_four_simulations():
    game = TreeGame(TREE)
    uct = Uct(game, UctConfig(solver=True), seed=7)
    r = uct.search(game.new_initial_state(), Budget(sims=1000))
    assert r.simulations == 4 and r.proven == 1 and r.action == 0
    t = uct.tree
    assert t.proven[node(uct, 0, 0, 0)] == PROVEN_WIN  # for P0, who moved into A00
    assert t.proven[node(uct, 0, 0)] == PROVEN_LOSS  # for P1, who moved into A0
    assert t.proven[node(uct, 0)] == PROVEN_WIN


def test_solver_proves_a_loss_when_every_move_loses():
    game = TreeGame((0, [(1, [-1.0, 1.0]), (1, [0.5, -1.0])]))
    r = Uct(game, UctConfig(), seed=1).search(game.new_initial_state(), Budget(sims=1000))
    assert r.proven == -1 and r.simulations < 10


def test_a_full_pool_stops_growth_not_search():
    uct, sim = stepper(max_nodes=3)
    for _ in range(10):
        r = sim()
    assert uct.tree.used == 3 and r.depth_max == 1 and stats(uct)[0] == 10
    assert np.sum(r.visits) == 10
