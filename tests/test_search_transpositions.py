"""MCTS-Solver's table of proven positions: a hand-traced DAG, the hash, the table, its lifetime.

The DAG (P0, P1 = the player to move; leaves give P0's return; playouts take the first child)::

    R (P0) ──0──> A (P1) ──0──┐
      └─────1──> B (P1) ──0──┴─> S (P0) ──0──> S1 (P1) ──0──> V  leaf -1 (P0 loses)

S is one position (one state array) reached by two move orders, R-A-S and R-B-S; in the search
tree it is two nodes, A.S and B.S. Every simulation ends in V, so every win value is 0 for P0.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mctslab
from mctslab.agents import make_agent
from mctslab.search import NO_CHILD, PROVEN_LOSS, PROVEN_WIN, UNPROVEN, Uct, UctConfig
from mctslab.search.budget import Budget
from mctslab.search.transpositions import EMPTY, ProvenTable, insert, lookup, state_hash
from search_tree_game import TreeGame

TO_S = [(0, [(1, [-1.0])])]
DAG = (0, [(1, TO_S), (1, TO_S)])


def node(uct, *path):
    i = 0
    for a in path:
        i = uct.tree.child_with_action(i, a)
        assert i is not None, path
    return i


@pytest.mark.parametrize("seed", range(4))
def test_a_position_proven_under_one_move_order_is_proven_under_the_other(seed):
    game = TreeGame(DAG)
    uct = Uct(game, UctConfig(), seed=seed)
    state = game.new_initial_state()
    t = uct.tree
    # 1-2: A and B are tried (ties at +inf). 3-4: both are expanded, A.S and B.S played out
    # (the less visited one goes next: both means are 0, the bonus decides). 5-6: both S nodes are
    # expanded, their S1 children played out. 7: one of them, H.S.S1, is expanded and reaches V:
    # V is a proven win for P1, so S1 (P1 to move) is won for P1, S (P0 to move) lost for P0,
    # H (P1 to move) won for P1; the root is not proven (the other move is not).
    for _ in range(7):
        r = uct.search(state, Budget(sims=1))
    assert r.proven == 0 and r.proven_positions == 3  # S1, S and H, for their player to move
    h = 0 if t.proven[node(uct, 0)] == PROVEN_LOSS else 1
    other = 1 - h
    assert [t.proven[node(uct, h, *p)] for p in ((), (0,), (0, 0))] == [
        PROVEN_LOSS,  # for P0, who moved into H
        PROVEN_WIN,  # for P1, who moved into H.S
        PROVEN_LOSS,  # for P0, who moved into H.S.S1
    ]
    s_other = node(uct, other, 0)
    assert t.proven[node(uct, other)] == t.proven[s_other] == UNPROVEN
    assert t.visits[s_other] == 2 and t.first_child[s_other] != NO_CHILD  # expanded, inside
    # 8: only the other move is left; the descent reaches its S, finds S lost for P0 in the table
    # and stops there: the node is a proven win for P1 although its only child S1 is unproven and
    # was never expanded. The other move is then lost for P0 too, and so is the root.
    r = uct.search(state, Budget(sims=1))
    s1_other = node(uct, other, 0, 0)
    assert t.proven[s_other] == PROVEN_WIN and t.visits[s_other] == 3
    assert t.proven[s1_other] == UNPROVEN and t.first_child[s1_other] == NO_CHILD
    assert r.proven == -1 and r.proven_positions == 5  # and the other move's position, the root
    assert t.used == 8  # R, A, B, A.S, B.S, A.S.S1, B.S.S1, H.S.S1.V


def test_without_the_table_the_other_occurrence_is_proven_through_its_own_subtree():
    game = TreeGame(DAG)
    uct = Uct(game, UctConfig(transpositions=False), seed=0)
    r = uct.search(game.new_initial_state(), Budget(sims=100))
    assert r.simulations == 8 and r.proven == -1 and r.proven_positions == 0
    for move in (0, 1):
        assert uct.tree.proven[node(uct, move, 0, 0)] == PROVEN_LOSS  # each S1 proven, via V
    assert uct.tree.used == 9


def exact_hash(values, mult):
    """The multilinear hash in Python integers: sum of a_i (x_i mod 2^32), mod 2^64."""
    a = [int(lo) + (int(hi) << 32) for lo, hi in zip(mult[0], mult[1], strict=True)]
    return sum(ai * (int(x) % 2**32) for ai, x in zip(a, values, strict=True)) % 2**64


@given(
    values=st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=40),
    dtype=st.sampled_from([np.int16, np.int32]),
)
def test_state_hash_is_the_multilinear_sum_mod_2_64(values, dtype):
    info = np.iinfo(dtype)
    state = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    mult = ProvenTable(0, state.shape[0]).mult
    assert int(state_hash(state, mult)) == exact_hash(state, mult)


def test_nim_positions_hash_apart_and_equal_arrays_alike():
    game = mctslab.load_game("nim(n=50,k=3)")
    mult = ProvenTable(0, game.spec.state_size).mult
    seen = {}
    state = game.new_initial_state()
    for take in [0, 1, 2] * 8:  # 24 distinct positions along one game
        h = int(state_hash(state.array, mult))
        assert h not in seen
        seen[h] = state.array.copy()
        state.apply_action(take)
    again = game.new_initial_state()
    again.apply_action(1)
    again.apply_action(0)  # 50 - 2 - 1 = 47 as after 50 - 1 - 2 above, P0 to move
    assert np.array_equal(seen[int(state_hash(again.array, mult))], again.array)


def test_table_probes_then_stops_inserting_when_full():
    table = ProvenTable(4, 1)
    keys, vals = table.keys, table.vals
    same_slot = [np.uint64((7 << 32) | i) for i in range(5)]  # all start probing at slot 3
    assert [insert(keys, vals, h, 0.25) for h in same_slot] == [1, 1, 1, 1, 0]
    assert insert(keys, vals, same_slot[2], 0.0) == 0  # present: kept as it was
    assert [lookup(keys, vals, h) for h in same_slot] == [0.25] * 4 + [EMPTY]
    assert list(vals) == [0.25] * 4  # slots 3, 0, 1, 2 (wrapping around)
    table.clear()
    assert lookup(keys, vals, same_slot[0]) == EMPTY and table.used == 0


def test_the_table_outlives_a_search_until_reset():
    game = mctslab.load_game("nim(n=30,k=3)")
    agent = make_agent("mcts(sims=5000,c=0.1,reuse=false)", game, seed=1)
    state = game.new_initial_state()
    first = agent.search(state)
    assert first.proven == 1 and first.proven_positions > 0 and first.simulations > 100
    # a fresh tree: the winning move's position is in the table, so the search ends as soon as
    # it is first reached (the root's three moves are tried first)
    again = agent.search(state)
    assert again.proven == 1 and again.simulations <= 3 and again.action == first.action
    assert again.proven_positions == first.proven_positions
    agent.reset()
    assert agent.searcher.table.used == 0 and (agent.searcher.table.vals == EMPTY).all()


def test_no_table_without_the_solver():
    game = mctslab.load_game("nim(n=30,k=3)")
    for config in (UctConfig(solver=False), UctConfig(transpositions=False)):
        assert Uct(game, config, seed=0).table.keys.shape == (0,)
    assert Uct(game, UctConfig(max_nodes=5), seed=0).table.keys.shape == (4,)
