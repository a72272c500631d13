"""The AlphaZero search (PUCT) hand-traced on Nim with a fixed fake network, simulation by
simulation; and its agent's refusals."""

import math

import numpy as np
import pytest

import mctslab
from mctslab.errors import MctslabError
from mctslab.search import az_tree
from mctslab.search.az import AzSearch
from mctslab.search.az_options import AzConfig

#: the fake network of nim(n=3,k=2), by counters left: priors of (take 1, take 2), value for the
#: player to move
FAKE = {3: ((0.6, 0.4), 0.1), 2: ((0.5, 0.5), 0.5), 1: ((1.0, 0.0), 0.8)}


def fake_network(obs, mask):
    counters = obs.reshape(len(obs), -1).argmax(axis=1)
    priors = np.array([FAKE[int(n)][0] for n in counters]) * mask
    values = np.array([FAKE[int(n)][1] for n in counters])
    return priors, values


def test_puct_by_hand_after_each_simulation():
    """nim(n=3,k=2), c_puct 1, no growth, fpu 0, one leaf per call. Nodes: 0 the root (3
    counters, player 0), 1 = take 1 (2 left, player 1), 2 = take 2 (1 left), then 3 = 1-then-1
    (1 left, player 0), 4 = 1-then-2 (0 left: player 1 has won). Worked by hand:

    sim 1: the root is evaluated (value 0.1) and expanded: priors 0.6 and 0.4.
    sim 2: N=1; both unvisited, Q = FPU = 0.1: 0.1 + 0.6 = 0.7 beats 0.1 + 0.4: node 1, evaluated
           0.5 for player 1, so -0.5 for the chooser: W1 = -0.5.
    sim 3: N=2: node 1 -0.5 + 1.414 * 0.6 / 2 = -0.076; node 2 0.1 + 1.414 * 0.4 = 0.666: node 2,
           value 0.8 for player 1: W2 = -0.8.
    sim 4: N=3: node 1 -0.5 + 1.732 * 0.6 / 2 = 0.020; node 2 -0.8 + 1.732 * 0.4 / 2 = -0.454:
           node 1; there (N=1, FPU = its value 0.5) nodes 3 and 4 tie at 0.5 + 0.5: node 3 (the
           lower), value 0.8 for player 0: W3 = -0.8 (chooser player 1), W1 = -0.5 + 0.8 = 0.3.
    sim 5: N=4: node 1 0.15 + 2 * 0.6 / 3 = 0.55; node 2 -0.8 + 2 * 0.4 / 2 = -0.4: node 1;
           there (N=2) node 3 -0.8 + 1.414 * 0.5 / 2 = -0.446, node 4 0.5 + 1.414 * 0.5 = 1.207:
           node 4, terminal, player 1 won: W4 = 1, W1 = 0.3 - 1 = -0.7.
    """
    game = mctslab.load_game("nim(n=3,k=2)")
    config = AzConfig(c_puct=1.0, c_base=0.0, fpu=0.0, batch=1)
    search = AzSearch(game, config, fake_network, seed=0)
    tree = search.new_tree(10)
    root = game.new_initial_state().array
    expected = [  # visits of nodes 0..4, then W of nodes 1..4
        ([1, 0, 0, 0, 0], [0, 0, 0, 0]),
        ([2, 1, 0, 0, 0], [-0.5, 0, 0, 0]),
        ([3, 1, 1, 0, 0], [-0.5, -0.8, 0, 0]),
        ([4, 2, 1, 1, 0], [0.3, -0.8, -0.8, 0]),
        ([5, 3, 1, 1, 1], [-0.7, -0.8, -0.8, 1.0]),
    ]
    for sim, (visits, wsum) in enumerate(expected, 1):
        search.run([tree], [root], 1)
        assert tree.visits[:5].tolist() == visits, sim
        assert tree.wsum[1:5] == pytest.approx(wsum), sim
    assert tree.action[1:5].tolist() == [0, 1, 0, 1]
    assert tree.prior[1:5] == pytest.approx([0.6, 0.4, 0.5, 0.5])
    assert tree.value0[:2] == pytest.approx([0.1, 0.5])


def test_growth_term_and_first_play_urgency():
    """c(N) = c_puct + log((N + c_base + 1) / c_base); an unvisited child's Q is the parent's
    value minus fpu * sqrt(prior mass visited)."""
    tree = az_tree.new_tree(4)
    tree.first_child[0], tree.num_children[0], tree.used[0] = 1, 3, 4
    tree.visits[:4] = [10, 6, 0, 0]
    tree.wsum[1] = 3.0  # Q = 0.5
    tree.prior[1:4] = [0.5, 0.3, 0.2]
    tree.value0[0] = 0.4
    c = 1.0 + math.log((10 + 5 + 1) / 5)
    q_new = 0.4 - 0.5 * math.sqrt(0.5)
    scores = [0.5 + c * math.sqrt(10) * 0.5 / 7, q_new + c * math.sqrt(10) * 0.3, None]
    assert scores[1] > scores[0]  # so the growth and FPU terms decide: child 2
    assert az_tree.select_child(tree, 0, 1.0, 5.0, 0.5) == 2
    # without growth and with a harsh FPU, the visited child wins
    assert 0.5 + math.sqrt(10) * 0.5 / 7 > (0.4 - 2 * math.sqrt(0.5)) + math.sqrt(10) * 0.3
    assert az_tree.select_child(tree, 0, 1.0, 0.0, 2.0) == 1


def test_virtual_loss_spreads_one_batch_over_different_leaves():
    game = mctslab.load_game("nim(n=3,k=2)")
    search = AzSearch(game, AzConfig(c_puct=1.0, fpu=0.0, batch=2), fake_network, seed=0)
    tree = search.new_tree(10)
    root = game.new_initial_state().array
    search.run([tree], [root], 1)  # the root alone
    search.run([tree], [root], 2)  # one call: two leaves, both children
    assert tree.visits[:3].tolist() == [3, 1, 1]
    assert tree.wsum[1:3] == pytest.approx([-0.5, -0.8])


def test_az_refuses_games_it_cannot_play():
    with pytest.raises(MctslabError, match="two-player games without chance"):
        AzSearch(mctslab.load_game("nim(coin=true)"), AzConfig(), fake_network, seed=0)
    with pytest.raises(MctslabError, match="two-player games without chance"):
        AzSearch(mctslab.load_game("2048"), AzConfig(), fake_network, seed=0)
