"""Invariants of the tree after any search, on random small game trees and on Nim."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mctslab
from mctslab.search import NO_CHILD, NO_PARENT, Uct, UctConfig
from mctslab.search.budget import Budget
from search_tree_game import TreeGame

leaves = st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0])
#: outcome probabilities of a chance node with 1, 2 or 3 outcomes (exact in the 10^-6 encoding)
PROBS = {1: [1.0], 2: [0.5, 0.5], 3: [0.25, 0.25, 0.5]}


def internal(kids):
    """A decision node of player 0 or 1, or a chance node."""
    return st.one_of(
        st.tuples(st.integers(0, 1), st.lists(kids, min_size=1, max_size=3)),
        st.lists(kids, min_size=1, max_size=3).map(lambda ks: (-1, ks, PROBS[len(ks)])),
    )


trees = st.recursive(leaves, internal, max_leaves=25).filter(
    lambda t: isinstance(t, tuple) and t[0] >= 0  # a search starts where a player moves
)

configs = st.builds(
    UctConfig,
    c=st.sampled_from([0.0, 0.4, 1.0]),
    formula=st.sampled_from(["slides", "paper", "book", "ucb1tuned"]),
    z=st.integers(1, 4),
    expand_all=st.booleans(),
    solver=st.booleans(),
    leaf=st.sampled_from(["playout", "coin"]),
    max_nodes=st.integers(4, 60),
    chance=st.sampled_from(["sampled", "expanded", "playout"]),
    exact=st.sampled_from([0, 0, 30]),
)


def with_solver_keys(config: UctConfig) -> UctConfig:
    """``exact`` needs the solver: dropped when the configuration has none."""
    return config if config.solver else UctConfig(**{**config.__dict__, "exact": 0})


def check_tree(uct: Uct, sims: int) -> None:
    t = uct.tree
    used = t.used
    assert 1 <= used <= t.capacity
    assert t.visits[0] == sims
    assert t.parent[0] == NO_PARENT
    assert np.all((t.value[:used] >= 0.0) & (t.value[:used] <= 1.0))
    z = uct.config.z
    for i in range(used):
        kids = t.children(i)
        if t.first_child[i] == NO_CHILD:
            assert t.num_children[i] == 0
            continue
        assert kids.stop <= used and len(kids) >= 1
        assert all(t.parent[k] == i for k in kids)
        below = int(t.visits[list(kids)].sum())
        stopped = int(t.visits[i]) - below  # simulations that ended at i
        if i == 0:
            assert stopped == 0
        elif uct.solver:
            assert stopped >= z
        else:  # exactly the z simulations before i was expanded
            assert stopped == z


@settings(max_examples=60)
@given(tree=trees, config=configs, sims=st.integers(1, 80), seed=st.integers(0, 2**32))
def test_tree_invariants_on_random_trees(tree, config, sims, seed):
    game = TreeGame(tree)
    config = with_solver_keys(config)
    if config.max_nodes < 1 + len(tree[1]):
        config = UctConfig(**{**config.__dict__, "max_nodes": 1 + len(tree[1])})
    uct = Uct(game, config, seed)
    r = uct.search(game.new_initial_state(), Budget(sims=sims))
    assert r.simulations == sims or r.proven != 0
    check_tree(uct, r.simulations)
    assert sum(r.visits) == r.simulations
    assert 0 <= r.depth_mean <= r.depth_max <= game.spec.max_game_length


@pytest.mark.parametrize("seed", range(8))
def test_ucb1tuned_selects_below_a_chance_node_whose_value_is_its_outcomes_mean(seed):
    # Found by the property above: the root's only move leads to a chance node with one outcome,
    # a win. A coin leaf may score the chance node's first visit a loss; once expanded, its
    # value is its outcome's (1) while its mean squared return was 0, and UCB1-Tuned's V < 0
    # made the score NaN: the third simulation stopped at the root.
    game = TreeGame((0, [(-1, [1.0], [1.0])]))
    config = UctConfig(
        c=0.0, formula="ucb1tuned", z=1, solver=False, leaf="coin", max_nodes=4,
        chance="expanded",
    )  # fmt: skip
    uct = Uct(game, config, seed)
    r = uct.search(game.new_initial_state(), Budget(sims=3))
    check_tree(uct, r.simulations)
    assert list(r.visits) == [3]


@settings(max_examples=25)
@given(
    n=st.integers(5, 40),
    coin=st.booleans(),
    config=configs,
    sims=st.integers(1, 400),
    seed=st.integers(0, 2**32),
)
def test_tree_invariants_on_nim(n, coin, config, sims, seed):
    game = mctslab.load_game(f"nim(n={n},k=3,coin={str(coin).lower()})")
    uct = Uct(game, with_solver_keys(config), seed)
    r = uct.search(game.new_initial_state(), Budget(sims=sims))
    check_tree(uct, r.simulations)
    assert r.action in game.new_initial_state().legal_actions()
    if coin and config.chance == "playout":  # the tree does not grow past a chance event
        assert r.depth_max <= 1
