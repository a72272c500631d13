"""A tiny artificial game for hand-traceable search tests: an explicit game tree.

Internal nodes are ``(player, [children...])``; a leaf is player 0's return (player 1 gets the
negation). The state is the index of the current node. A "random" playout is deterministic:
it always takes the first child, so every simulation's value can be traced by hand.

A children list shared by several nodes (the same list object) is laid out once, so all of them
lead to the same positions: the game is then a DAG, with transpositions.

Constants: ``[n_nodes, then per node: first_child, num_children, player, 100 × return]``.
"""

from __future__ import annotations

import numpy as np
import pydantic
from numba import njit

from mctslab.games.base import Game

STATE_DTYPE = np.int32
_FIRST, _COUNT, _PLAYER, _RETURN = 0, 1, 2, 3


@njit(cache=True)
def init_state(consts, state):
    state[0] = 0


@njit(cache=True)
def current_player(consts, state):
    b = 1 + 4 * state[0]
    if consts[b + _COUNT] == 0:
        return -4
    return np.int64(consts[b + _PLAYER])


@njit(cache=True)
def legal_actions(consts, state, out):
    k = consts[1 + 4 * state[0] + _COUNT]
    for a in range(k):
        out[a] = a
    return k


@njit(cache=True)
def apply_action(consts, state, action):
    state[0] = consts[1 + 4 * state[0] + _FIRST] + action


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    return 0


@njit(cache=True)
def apply_chance(consts, state, outcome):
    pass


@njit(cache=True)
def returns(consts, state, out):
    b = 1 + 4 * state[0]
    v = consts[b + _RETURN] / 100.0 if consts[b + _COUNT] == 0 else 0.0
    out[0] = v
    out[1] = -v


@njit(cache=True)
def random_playout(consts, state, rng, moves, out):
    n = 0
    while current_player(consts, state) >= 0:
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
        rows: list[list[int]] = [[0, 0, 0, 0]]
        blocks: dict[int, int] = {}  # id of a children list -> the row of its first child

        def place(index: int, node) -> None:
            if not isinstance(node, tuple):
                rows[index] = [0, 0, 0, round(100 * node)]
                return
            player, children = node
            first = blocks.get(id(children))
            if first is None:
                first = blocks[id(children)] = len(rows)
                rows.extend([0, 0, 0, 0] for _ in children)
                for j, child in enumerate(children):
                    place(first + j, child)
            rows[index] = [first, len(children), player, 0]

        def height(node) -> int:
            return 1 + max(map(height, node[1])) if isinstance(node, tuple) else 0

        def width(node) -> int:
            return max(len(node[1]), *map(width, node[1])) if isinstance(node, tuple) else 0

        place(0, self.tree)
        consts = np.array([len(rows), *(x for row in rows for x in row)], dtype=np.int32)
        spec = self._spec(
            num_players=2,
            num_distinct_actions=width(self.tree),
            num_chance_outcomes=0,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=height(self.tree),
            state_size=1,
        )
        return consts, spec
