"""A tiny artificial game for hand-traceable search tests: an explicit game tree.

Internal nodes are ``(player, [children...])``; a leaf is player 0's return (player 1 gets the
negation); a chance node is ``(-1, [children...], [probabilities...])``. The state is the index
of the current node. A "random" playout is deterministic: it always takes the first child (and
the first outcome), so every simulation's value can be traced by hand.

A children list shared by several nodes (the same list object) is laid out once, so all of them
lead to the same positions: the game is then a DAG, with transpositions.

Constants: ``[n_nodes, then per node: first_child, num_children, player, 100 × return,
10^6 × the probability of reaching it from its chance parent]``.
"""

from __future__ import annotations

import numpy as np
import pydantic
from numba import njit

from mctslab.games.base import Game

STATE_DTYPE = np.int32
_FIRST, _COUNT, _PLAYER, _RETURN, _PROB = 0, 1, 2, 3, 4
_ROW = 5


@njit(cache=True)
def init_state(consts, state):
    state[0] = 0


@njit(cache=True)
def current_player(consts, state):
    b = 1 + _ROW * state[0]
    if consts[b + _COUNT] == 0:
        return -4
    return np.int64(consts[b + _PLAYER])


@njit(cache=True)
def legal_actions(consts, state, out):
    k = consts[1 + _ROW * state[0] + _COUNT]
    for a in range(k):
        out[a] = a
    return k


@njit(cache=True)
def apply_action(consts, state, action):
    state[0] = consts[1 + _ROW * state[0] + _FIRST] + action


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    b = 1 + _ROW * state[0]
    if consts[b + _PLAYER] != -1:
        return 0
    first = consts[b + _FIRST]
    for j in range(consts[b + _COUNT]):
        outcomes[j] = j
        probs[j] = consts[1 + _ROW * (first + j) + _PROB] / 1e6
    return consts[b + _COUNT]


@njit(cache=True)
def apply_chance(consts, state, outcome):
    apply_action(consts, state, outcome)


@njit(cache=True)
def returns(consts, state, out):
    b = 1 + _ROW * state[0]
    v = consts[b + _RETURN] / 100.0 if consts[b + _COUNT] == 0 else 0.0
    out[0] = v
    out[1] = -v


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    n = 0
    while current_player(consts, state) != -4:
        if current_player(consts, state) >= 0:
            moves[2 * n] = current_player(consts, state)
            moves[2 * n + 1] = 0
            n += 1
        apply_action(consts, state, 0)
    returns(consts, state, out)
    return n, rng


class _NoParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)


class TreeGame(Game):
    """The game given by ``tree`` (see the module docstring); not registered."""

    NAME = "testtree"
    Params = _NoParams

    def __init__(self, tree):
        import search_tree_game  # this very module, by the name codegen imports it as

        type(self).kernels = search_tree_game
        self.tree = tree
        super().__init__(_NoParams())

    def _build(self, params):
        rows: list[list[int]] = [[0, 0, 0, 0, 0]]
        blocks: dict[int, int] = {}  # id of a children list -> the row of its first child

        def place(index: int, node, prob: float = 0.0) -> None:
            if not isinstance(node, tuple):
                rows[index] = [0, 0, 0, round(100 * node), round(1e6 * prob)]
                return
            player, children, *probs = node
            probs = probs[0] if probs else [0.0] * len(children)
            first = blocks.get(id(children))
            if first is None:
                first = blocks[id(children)] = len(rows)
                rows.extend([0, 0, 0, 0, 0] for _ in children)
                for j, child in enumerate(children):
                    place(first + j, child, probs[j])
            rows[index] = [first, len(children), player, 0, round(1e6 * prob)]

        def height(node) -> int:
            return 1 + max(map(height, node[1])) if isinstance(node, tuple) else 0

        def width(node) -> int:
            return max(len(node[1]), *map(width, node[1])) if isinstance(node, tuple) else 0

        def chance_width(node) -> int:
            if not isinstance(node, tuple):
                return 0
            own = len(node[1]) if node[0] == -1 else 0
            return max(own, *map(chance_width, node[1]))

        place(0, self.tree)
        consts = np.array([len(rows), *(x for row in rows for x in row)], dtype=np.int32)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=width(self.tree),
            num_chance_outcomes=chance_width(self.tree),
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=height(self.tree),
            state_size=1,
        )
        return consts, spec
