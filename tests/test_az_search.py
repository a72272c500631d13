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


#: the fake network of nim(n=5,k=3) for Gumbel (priors of take 1, 2, 3; value for the mover)
FAKE5 = {
    5: ((0.5, 0.3, 0.2), 0.2),
    4: ((1 / 3, 1 / 3, 1 / 3), -0.6),
    3: ((0.2, 0.3, 0.5), 0.7),
    2: ((0.3, 0.7, 0.0), 0.6),
    1: ((1.0, 0.0, 0.0), 0.9),
}


def fake_network5(obs, mask):
    counters = obs.reshape(len(obs), -1).argmax(axis=1)
    return (
        np.array([FAKE5[int(n)][0] for n in counters]) * mask,
        np.array([FAKE5[int(n)][1] for n in counters]),
    )


def test_gumbel_sequential_halving_by_hand():
    """nim(n=5,k=3), 8 simulations, fixed Gumbel draws g = (0.1, -0.2, 0.3), c_visit 50,
    c_scale 1. Worked by hand:

    sim 1 evaluates the root. m = 3 actions, ceil(log2 3) = 2 phases.
    phase 1 (7 left, 2 phases: 3 a phase, 1 each): take 1 -> 4 left, value -0.6 for the
    opponent, Q = 0.6; take 2 -> Q = -0.7; take 3 -> Q = -0.6. Scores g + log p + 51 (Q + 1)/2:
    take 1 -0.593 + 40.8 = 40.21, take 2 -1.404 + 7.65 = 6.25, take 3 -1.309 + 10.2 = 8.89: keep
    take 1 and take 3.
    phase 2 (4 left): 2 each, Gumbel's selection below the root (pi' - N / (1 + sum N)).
    Below take 1 (player 1 at 4, value -0.6): all children tie (pi' = 1/3 each): 3 left (value
    0.7 for player 0); then, with its virtual loss (Q -1, mixed value -0.8 for the others,
    pi' ~ (0.003, 0.4985, 0.4985), minus 1/2 for the visited one): 2 left (0.6):
    W = 0.6 - 2 + 2 + 0.7 + 0.6 = 1.9, Q = 1.9 / 3. Below take 3 (player 1 at 2, value 0.6):
    pi' = the priors (0.3, 0.7): taking the last 2, a win for player 1; then Q 1 against the
    mixed value 0.8, pi' ~ (0.003, 0.997), minus 1/2: again. W = -0.6 - 2 + 0 = -2.6.
    The played move is take 1 (score -0.593 + 53 (0.633 + 1) / 2 = 42.7), the improved policy
    softmax(log p + 53 (Q + 1) / 2) all but 1 on it.
    """
    game = mctslab.load_game("nim(n=5,k=3)")
    config = AzConfig(c_puct=1.25, fpu=0.25, batch=8, gumbel=True, c_visit=50.0, c_scale=1.0)
    search = AzSearch(game, config, fake_network5, seed=0)
    root = game.new_initial_state().array
    g = np.array([0.1, -0.2, 0.3])

    tree = search.new_tree(4)
    chosen, policy = search.gumbel(tree, root, 4, g)  # phase 1 only
    assert tree.visits[1:4].tolist() == [1, 1, 1]
    assert (tree.wsum[1:4] / tree.visits[1:4]) == pytest.approx([0.6, -0.7, -0.6])
    assert tree.action[chosen] == 0
    logits = np.log([0.5, 0.3, 0.2])
    expected = np.exp(logits + 51 * np.array([0.8, 0.15, 0.2]))
    assert policy == pytest.approx(expected / expected.sum())

    tree = search.new_tree(8)
    chosen, policy = search.gumbel(tree, root, 8, g)
    assert tree.visits[1:4].tolist() == [3, 1, 3]  # take 2 was halved away after phase 1
    q = tree.wsum[1:4] / tree.visits[1:4]
    assert q == pytest.approx([1.9 / 3, -0.7, -2.6 / 3])
    assert tree.action[chosen] == 0 and policy[0] == pytest.approx(1.0)


def hashed_network(obs, mask, calls=None):
    """Priors and a value that depend only on the counters left (any number of them)."""
    if calls is not None:
        calls.append(len(obs))
    n = obs.reshape(len(obs), -1).argmax(axis=1)
    priors = (1 + (n[:, None] * 7 + np.arange(mask.shape[1])[None, :] * 3) % 5) * mask
    return priors / priors.sum(axis=1, keepdims=True), ((n * 13) % 7 - 3) / 4.0


def test_gumbel_many_gives_each_tree_what_it_gets_alone_in_fewer_network_calls():
    """Self-play's batched Gumbel: four nim(n=20,k=3) roots, one with two moves (one phase of
    halving) and three with three (two phases); together, each tree ends with the visits,
    values, move and policy it gets alone, and the network is called fewer times."""
    game = mctslab.load_game("nim(n=20,k=3)")
    roots = []
    for takes in ((), (3, 3, 1), (3, 3, 3, 3, 3, 3), (3, 3, 3, 3)):
        state = game.new_initial_state()
        for t in takes:
            state.apply_action(t - 1)
        roots.append(state.array.copy())
    config = AzConfig(batch=4, gumbel=True, gumbel_m=3, gumbel_scale=1.0)
    rng = np.random.default_rng(3)
    gs = [rng.gumbel(size=len(game.state_from_array(r).legal_actions())) for r in roots]
    assert sorted(len(g) for g in gs) == [2, 3, 3, 3]
    alone_calls, together_calls = [], []
    search = AzSearch(game, config, lambda o, m: hashed_network(o, m, alone_calls), seed=0)
    trees_alone = [search.new_tree(12) for _ in roots]
    alone = [search.gumbel(t, r, 12, g) for t, r, g in zip(trees_alone, roots, gs, strict=True)]
    search = AzSearch(game, config, lambda o, m: hashed_network(o, m, together_calls), seed=0)
    trees = [search.new_tree(12) for _ in roots]
    together = search.gumbel_many(trees, roots, 12, gs)
    for (c1, p1), (c2, p2), t1, t2 in zip(alone, together, trees_alone, trees, strict=True):
        assert c1 == c2 and np.array_equal(p1, p2)
        used = int(t1.used[0])
        assert int(t2.used[0]) == used
        assert np.array_equal(t1.visits[:used], t2.visits[:used])
        assert np.array_equal(t1.wsum[:used], t2.wsum[:used])
    assert len(together_calls) < len(alone_calls) and max(together_calls) > config.batch


def test_gumbel_scale_zero_considers_the_top_logits_whatever_the_seed():
    # nim(n=5,k=3), m = 2 of 3 actions: without draws the two largest priors (take 1, take 2)
    # are considered and take 3 is never visited, for every seed; with draws some seed lets
    # take 3 in
    game = mctslab.load_game("nim(n=5,k=3)")
    root = game.new_initial_state().array
    visited = set()
    for scale, seeds in ((0.0, range(20)), (1.0, range(20))):
        for seed in seeds:
            config = AzConfig(batch=8, gumbel=True, gumbel_m=2, gumbel_scale=scale)
            search = AzSearch(game, config, fake_network5, seed=seed)
            tree = search.new_tree(6)
            search.gumbel(tree, root, 6)
            seen = tuple(int(n) > 0 for n in tree.visits[1:4])
            if scale == 0.0:
                assert seen == (True, True, False)
            else:
                visited.add(seen)
    assert (True, True, False) in visited and len(visited) > 1


def test_completed_q_fills_unvisited_actions_with_the_mixed_value():
    """v_mix = (v + sum N / (sum of visited priors) * sum visited pi q) / (1 + sum N)."""
    from mctslab.search import gumbel

    cq = gumbel.completed_q(
        np.array([0.5, 0.0, 0.0]), np.array([2, 0, 0]), np.array([0.5, 0.3, 0.2]), 0.1
    )
    mix = (0.1 + 2 / 0.5 * 0.5 * 0.5) / 3
    assert cq == pytest.approx([0.5, mix, mix])
    assert gumbel.phases(1) == 1 and gumbel.phases(3) == 2 and gumbel.phases(16) == 4
    assert gumbel.halve(np.array([1.0, 3.0, 2.0]), [0, 1, 2]) == [1, 2]


def test_mcts_solver_by_hand():
    """The trace above goes on with MCTS-Solver (on by default). Sim 5 reached node 4, terminal
    and won by player 1, who chose it: node 4 is a proven win for its chooser, so node 1 (player
    1 to move) is a proven win for player 1, a proven loss for the root's player 0. Sim 6: PUCT
    would pick node 1 again (-0.7/3 + 2.236 * 0.6 / 4 = 0.102 against node 2's -0.8 + 2.236 *
    0.4 / 2 = -0.353), the solver never picks a proven loss while another child is not one: node
    2, then its only child 5 (take the last counter), won by player 1: node 2 is a proven loss
    for the root too, every root child is, and the root is a proven loss for player 0. A seventh
    simulation is not run; without the solver sim 6 goes to node 1 and nothing is proven."""
    game = mctslab.load_game("nim(n=3,k=2)")
    root = game.new_initial_state().array
    search = AzSearch(game, AzConfig(c_puct=1.0, c_base=0.0, fpu=0.0, batch=1), fake_network, 0)
    tree = search.new_tree(10)
    search.run([tree], [root], 5)
    assert tree.proven[:5].tolist() == [0, -1, 0, 0, 1]
    assert search.run([tree], [root], 1) == 1
    assert tree.visits[:6].tolist() == [6, 3, 2, 1, 1, 1]
    assert tree.proven[:6].tolist() == [-1, -1, -1, 0, 1, 1]
    assert search.run([tree], [root], 1) == 0 and tree.visits[0] == 6
    off_config = AzConfig(c_puct=1.0, c_base=0.0, fpu=0.0, batch=1, solver=False)
    off = AzSearch(game, off_config, fake_network, 0)
    tree_off = off.new_tree(10)
    off.run([tree_off], [root], 6)
    assert tree_off.visits[:3].tolist() == [6, 4, 1] and not tree_off.proven.any()


def test_solver_plays_a_proven_win_and_avoids_proven_losses():
    """nim(n=5,k=3): taking 1 (leaving 4) wins, the others lose against perfect play. A
    network that prefers taking 3 misleads PUCT; the solver proves the win and plays it, and
    the result reports the proof. Without the solver the most visited move is played."""
    from mctslab.search.budget import Budget

    def misleading(obs, mask):
        priors = np.tile([0.05, 0.15, 0.8], (len(obs), 1)) * mask
        return priors / priors.sum(axis=1, keepdims=True), np.zeros(len(obs))

    game = mctslab.load_game("nim(n=5,k=3)")
    state = game.new_initial_state()
    on = AzSearch(game, AzConfig(batch=1), misleading, 0).search(state, Budget(sims=400))
    assert on.action == 0 and on.proven == 1 and on.solved_value == 1.0
    assert on.values[0] == 1.0 and on.simulations < 400  # the proof stops the search
    lost = game.new_initial_state()
    lost.apply_action(0)  # 4 left: every move loses
    verdict = AzSearch(game, AzConfig(batch=1), misleading, 0).search(lost, Budget(sims=400))
    assert verdict.proven == -1 and verdict.solved_value == 0.0


def test_extract_keeps_a_subtree_with_its_statistics():
    game = mctslab.load_game("nim(n=5,k=3)")
    search = AzSearch(game, AzConfig(c_puct=1.0, batch=1), fake_network5, seed=0)
    tree = search.new_tree(30)
    search.run([tree], [game.new_initial_state().array], 30)
    node = az_tree.child_by_action(tree, 0, 0)  # take 1: 4 left
    assert node > 0 and az_tree.child_by_action(tree, 0, 7) == -1
    sub = az_tree.new_tree(100)
    kept = az_tree.extract(tree, node, sub)
    assert kept > 1 and sub.used[0] == kept and sub.visits[0] == tree.visits[node]
    for action in range(3):  # the children of the new root are the old node's
        old, new = (
            az_tree.child_by_action(tree, node, action),
            az_tree.child_by_action(sub, 0, action),
        )
        assert tree.visits[old] == sub.visits[new] and tree.wsum[old] == sub.wsum[new]
        assert sub.parent[new] == 0
    assert int(sub.visits[1:kept].sum()) <= int(tree.visits[node]) * 3


def test_tree_reuse_continues_in_the_subtree_of_the_position_reached():
    """After the agent's search and two moves, the next search starts from the statistics the
    first gathered there; a position reached otherwise (or with reuse off) starts afresh."""
    from mctslab.search.budget import Budget

    game = mctslab.load_game("nim(n=9,k=3)")
    config = AzConfig(c_puct=1.0, batch=1, solver=False)  # 200 simulations would solve nim(9)
    search = AzSearch(game, config, fake_network5_or_uniform, seed=0)
    state = game.new_initial_state()
    first = search.search(state, Budget(sims=200))
    assert first.reused_fraction == 0.0
    state.apply_action(0)
    state.apply_action(0)  # 7 left
    second = search.search(state, Budget(sims=10))
    assert 0 < second.reused_fraction < 1
    assert sum(second.visits) > 10  # inherited visits beside the 10 new simulations
    assert second.simulations == 10
    other = game.new_initial_state()
    other.array[0] = 7  # the same counters, but not reached from the last root by moves
    assert search.search(other, Budget(sims=10)).reused_fraction == 0.0
    off = AzSearch(game, AzConfig(batch=1, reuse=False), fake_network5_or_uniform, seed=0)
    off.search(game.new_initial_state(), Budget(sims=50))
    assert off.search(state, Budget(sims=10)).reused_fraction == 0.0


def test_searching_the_same_position_again_goes_on_in_the_same_tree():
    """Slices (the web page's live view): two searches of one position of 30 simulations are
    one search of 60, the same tree grown in place (nothing copied)."""
    from mctslab.search.budget import Budget

    game = mctslab.load_game("nim(n=9,k=3)")
    state = game.new_initial_state()
    config = AzConfig(c_puct=1.0, batch=1, solver=False)  # a proof would stop either early
    sliced = AzSearch(game, config, fake_network5_or_uniform, seed=0)
    sliced.search(state, Budget(sims=30))
    tree = sliced._last[0]
    again = sliced.search(state, Budget(sims=30))
    assert sliced._last[0] is tree and again.reused_fraction == 1.0
    whole = AzSearch(game, config, fake_network5_or_uniform, seed=0)
    once = whole.search(state, Budget(sims=60))
    assert again.visits == once.visits and again.values == pytest.approx(once.values)
    assert again.simulations == 30 and sum(once.visits) == 59  # the first expands the root


def fake_network5_or_uniform(obs, mask):
    """FAKE5 up to 5 counters, uniform priors and value 0 above."""
    counters = obs.reshape(len(obs), -1).argmax(axis=1)
    priors = np.array([FAKE5.get(int(n), ((1, 1, 1), 0.0))[0] for n in counters], float) * mask
    values = np.array([FAKE5.get(int(n), ((1, 1, 1), 0.0))[1] for n in counters])
    return priors / priors.sum(axis=1, keepdims=True), values


def test_mix_averages_the_network_value_with_a_random_playout():
    """mix = 0.5: the root's value is (0.1 + z) / 2 with z = +-1 the outcome of one random
    playout of nim(n=3,k=2); mix = 1: z alone."""
    game = mctslab.load_game("nim(n=3,k=2)")
    root = game.new_initial_state().array
    seen = set()
    for seed in range(8):
        search = AzSearch(game, AzConfig(batch=1, mix=0.5), fake_network, seed=seed)
        tree = search.new_tree(5)
        search.run([tree], [root], 1)
        assert round(float(tree.value0[0]), 9) in (0.55, -0.45)
        seen.add(round(float(tree.value0[0]), 9))
    assert seen == {0.55, -0.45}  # both outcomes happen over the seeds
    search = AzSearch(game, AzConfig(batch=1, mix=1.0), fake_network, seed=0)
    tree = search.new_tree(5)
    search.run([tree], [root], 1)
    assert tree.value0[0] in (-1.0, 1.0)


def gumbel_interior_oracle(prior, visits, wsum, value, c_visit=50.0, c_scale=1.0):
    """Danihelka et al. 2022, eq. 14, written out with NumPy: argmax pi' - N / (1 + sum N)."""
    seen = visits > 0
    q = np.where(seen, wsum / np.maximum(visits, 1), 0.0)
    total = visits.sum()
    mix = value
    if seen.any():
        mix = (value + total * (prior[seen] * q[seen]).sum() / prior[seen].sum()) / (1 + total)
    cq = np.where(seen, q, mix)
    z = np.log(prior) + (c_visit + visits.max()) * c_scale * (cq + 1) / 2
    pi = np.exp(z - z.max())
    pi /= pi.sum()
    return int(np.argmax(pi - visits / (1 + total)))


def test_gumbel_selection_below_the_root_follows_the_improved_policy():
    """On a node worked by hand (a child visited 5 times with Q 0.2, one visited once with Q 0.5,
    one unvisited) and on 60 random nodes, select_gumbel picks what eq. 14 written out with NumPy
    picks; on some of the random nodes PUCT picks another child."""
    tree = az_tree.new_tree(8)
    tree.first_child[0], tree.num_children[0], tree.used[0] = 1, 3, 4
    tree.prior[1:4] = [0.6, 0.3, 0.1]
    tree.visits[:4] = [6, 5, 1, 0]
    tree.wsum[1:4] = [1.0, 0.5, 0.0]
    tree.value0[0] = 0.0
    # mix = (0 + 6 * (0.6 * 0.2 + 0.3 * 0.5) / 0.9) / 7 = 0.257; sigma scale 55:
    # z = log P + 55 (Q + 1) / 2 = 32.49, 40.05, 32.27: pi' ~ (0.0005, 0.999, 0.0004);
    # pi' - N / 7 = -0.714, 0.856, 0.0004: the child visited once
    assert az_tree.select_gumbel(tree, 0, 50.0, 1.0) == 2
    rng = np.random.default_rng(4)
    differ = 0
    for _ in range(60):
        k = int(rng.integers(2, 6))
        tree = az_tree.new_tree(8)
        tree.first_child[0], tree.num_children[0], tree.used[0] = 1, k, 1 + k
        prior = rng.dirichlet(np.ones(k))
        visits = rng.integers(0, 6, size=k)
        wsum = visits * rng.uniform(-1, 1, size=k)
        tree.prior[1 : 1 + k], tree.visits[1 : 1 + k], tree.wsum[1 : 1 + k] = prior, visits, wsum
        tree.visits[0] = visits.sum() + 1
        tree.value0[0] = rng.uniform(-1, 1)
        expected = 1 + gumbel_interior_oracle(prior, visits, wsum, tree.value0[0])
        assert az_tree.select_gumbel(tree, 0, 50.0, 1.0) == expected
        differ += az_tree.select_child(tree, 0, 1.25, 0.0, 0.25) != expected
    assert differ > 0
