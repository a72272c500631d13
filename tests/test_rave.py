"""RAVE/AMAF, step by step on the tiny explicit game of ``test_search_trace`` (see its doc):

    R (P0) ── 0: A (P1) ── 0: A0 (P0) ── 0: A00  (P0 wins)
           └─ 1: B (P1) ── 0: B0  (P0 loses)

A playout always takes child 0. AMAF credits a child of node x when the player to move at x
played the child's action later in the same simulation, with that player's win value.
"""

import numpy as np
import pytest

from mctslab.search import Uct, UctConfig
from mctslab.search.budget import Budget
from mctslab.search.enhancements.selection import (
    RAVE_ARTICLE,
    RAVE_GELLY_SILVER,
    RAVE_PAPER,
    rave_beta,
)
from search_tree_game import TreeGame
from test_search_trace import TREE, node


def amaf(uct, *path):
    i = node(uct, *path)
    return int(uct.tree.amaf_n[i]), float(uct.tree.amaf_v[i])


def stepper(**config):
    game = TreeGame(TREE)
    uct = Uct(game, UctConfig(solver=False, rave="paper", **config), seed=3)
    state = game.new_initial_state()
    return uct, lambda: uct.search(state, Budget(sims=1))


def test_amaf_updates_step_by_step():
    uct, sim = stepper()
    sim()
    sim()
    # Both root children tried once, in either order:
    #   via A: moves (P0,0) tree, (P1,0) (P0,0) playout; P0 wins -> A gets AMAF (1, 1.0)
    #   via B: moves (P0,1) tree, (P1,0) playout; P0 loses -> B gets AMAF (1, 0.0); P1's
    #          action 0 must NOT credit A (another player's move)
    assert amaf(uct, 0) == (1, 1.0)
    assert amaf(uct, 1) == (1, 0.0)
    assert amaf(uct) == (0, 0.0)  # the root's own slot is never updated
    # Third simulation: A has the better mix (1.0 against 0.0) and the same exploration; A has
    # 1 >= z visits, so it is expanded and the simulation stops at A0 (playout A0 -> A00).
    # Moves: (P0,0) (P1,0) tree, (P0,0) playout. AMAF at R: P0 played 0 -> A (2, 1.0);
    # at A (P1 to move): P1 played 0 at step >= 1 -> A0 (1, 0.0), P1's win value.
    sim()
    assert amaf(uct, 0) == (2, 1.0)
    assert amaf(uct, 1) == (1, 0.0)
    assert amaf(uct, 0, 0) == (1, 0.0)
    assert int(uct.tree.visits[node(uct, 0, 0)]) == 1


def test_amaf_arrays_only_with_rave():
    game = TreeGame(TREE)
    plain = Uct(game, UctConfig(), seed=1)
    assert plain.tree.amaf_n.shape == (0,) and plain.tree.bytes_per_node == 21
    rave = Uct(game, UctConfig(rave="gelly_silver"), seed=1)
    assert rave.tree.amaf_n.shape[0] == rave.tree.capacity and rave.tree.bytes_per_node == 29


def test_rave_schedules_by_hand():
    # paper: beta = 1 - n/(K+n) = K/(K+n)
    assert rave_beta(RAVE_PAPER, 100.0, 50.0, 300.0, 0.1) == pytest.approx(0.75)
    # Gelly-Silver: na / (n + na + 4 b^2 n na) = 50 / (100 + 50 + 4 * 0.01 * 5000) = 50 / 350
    assert rave_beta(RAVE_GELLY_SILVER, 100.0, 50.0, 300.0, 0.1) == pytest.approx(50 / 350)
    # article: max(0, (K - n)/K)
    assert rave_beta(RAVE_ARTICLE, 100.0, 50.0, 300.0, 0.1) == pytest.approx(2 / 3)
    assert rave_beta(RAVE_ARTICLE, 400.0, 50.0, 300.0, 0.1) == 0.0


def test_rave_tree_reuse_keeps_amaf():
    import mctslab

    game = mctslab.load_game("nogo(size=5)")
    uct = Uct(game, UctConfig(rave="paper", formula="paper", c=0.4), seed=2)
    state = game.new_initial_state()
    uct.search(state, Budget(sims=300))
    a = uct.principal_variation()[0]
    child = uct.tree.child_with_action(0, a)
    kids = list(uct.tree.children(child))
    before = {int(uct.tree.action[i]): int(uct.tree.amaf_n[i]) for i in kids}
    state.apply_action(a)
    result = uct.search(state, Budget(sims=1))
    assert result.reused_fraction > 0
    after = {int(uct.tree.action[i]): int(uct.tree.amaf_n[i]) for i in uct.tree.children(0)}
    assert sum(after.values()) >= sum(before.values()) > 0
    assert all(after[k] >= v for k, v in before.items())
    assert np.all(uct.tree.amaf_v[: uct.tree.used] >= 0)
