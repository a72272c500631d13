"""The search tree: a preallocated struct-of-arrays node pool (Fuego's layout, mctx's style).

Node ``0`` is always the root. A node's children are side by side in the pool: they are
``first_child[i] .. first_child[i] + num_children[i] - 1``, one per legal action of the node's
state, in ascending action order, allocated together when the node is expanded. Nodes store no game
states: a simulation copies the root state and replays ``action`` along its path.

Per-node arrays (``C`` = capacity, the ``max_nodes`` memory cap)::

    first_child   int32[C]    index of the first child, NO_CHILD while not expanded
    num_children  int16[C]    number of children (0 while not expanded)
    action        int16[C]    the action that leads from the parent to this node
    parent        int32[C]    index of the parent, NO_PARENT for the root
    visits        int32[C]    simulations that went through this node
    value         float32[C]  mean win value (1 win, 0.5 draw, 0 loss) of those simulations for
                              the player who moved INTO this node (the player to move at the
                              parent); not maintained for the root (nobody moved into it)
    proven        int8[C]     MCTS-Solver status for that same player: PROVEN_WIN (exact value
                              1), PROVEN_LOSS (0), PROVEN_EXACT (another exact value, e.g. a draw
                              or an expectation through chance nodes) or UNPROVEN
    value_sq      float32[C]  mean squared win value, same player; allocated only for UCB1-Tuned
                              (shape [0] otherwise)
    amaf_n        int32[C]    RAVE: AMAF updates of the node's action at its parent (simulations
                              through the parent in which the parent's player to move played the
                              action later on); allocated only with RAVE (shape [0] otherwise)
    amaf_v        float32[C]  RAVE: their mean win value for that player; only with RAVE
    prob          float64[C]  the probability of the chance outcome that leads to the node (a
                              child of a chance node); allocated only when the tree holds chance
                              nodes
    exact         float64[C]  the exact value of a PROVEN_EXACT node, in double precision (an
                              expectation over many chance levels must not collect float32
                              rounding); allocated only with chance nodes and MCTS-Solver.
                              Otherwise a PROVEN_EXACT node's exact value is its ``value``.

That is 21 bytes per node (25 with UCB1-Tuned, 29 with RAVE, 37 with chance nodes and the solver);
OpenSpiel's C++ ``SearchNode`` takes about 80.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.search.records import TreeArrays

#: ``first_child`` of a node that is not expanded.
NO_CHILD = -1
#: ``parent`` of the root.
NO_PARENT = -1
#: index of the root node.
ROOT = 0
#: ``proven`` values, for the player who moved into the node.
UNPROVEN = 0
PROVEN_WIN = 1
PROVEN_LOSS = -1
PROVEN_EXACT = 2

#: Upper bounds implied by the int16 fields.
MAX_ACTIONS = np.iinfo(np.int16).max

#: the per-node arrays allocated only when a search needs them (shape [0] otherwise)
_OPTIONAL = ("value_sq", "amaf_n", "amaf_v", "prob", "exact")

_FIELDS = (
    ("first_child", np.int32),
    ("num_children", np.int16),
    ("action", np.int16),
    ("parent", np.int32),
    ("visits", np.int32),
    ("value", np.float32),
    ("proven", np.int8),
)


class Tree:
    """The node pool. ``used`` slots (``0..used-1``) are in the tree; the rest is free.

    ``with_squares`` allocates ``value_sq`` (needed by UCB1-Tuned only), ``with_amaf`` the RAVE
    arrays ``amaf_n`` and ``amaf_v``, ``with_prob`` the outcome probabilities ``prob`` (chance
    nodes in the tree), ``with_exact`` the double-precision exact values ``exact``.
    """

    __slots__ = (
        "capacity", "used", *(name for name, _ in _FIELDS), *_OPTIONAL,
    )  # fmt: skip

    def __init__(
        self,
        capacity: int,
        with_squares: bool = False,
        with_amaf: bool = False,
        with_prob: bool = False,
        with_exact: bool = False,
    ):
        self.capacity = int(capacity)
        for name, dtype in _FIELDS:
            # np.zeros maps pages lazily: a large cap costs memory only where the tree grows.
            setattr(self, name, np.zeros(self.capacity, dtype=dtype))
        self.value_sq = np.zeros(self.capacity if with_squares else 0, dtype=np.float32)
        self.amaf_n = np.zeros(self.capacity if with_amaf else 0, dtype=np.int32)
        self.amaf_v = np.zeros(self.capacity if with_amaf else 0, dtype=np.float32)
        self.prob = np.zeros(self.capacity if with_prob else 0, dtype=np.float64)
        self.exact = np.zeros(self.capacity if with_exact else 0, dtype=np.float64)
        self.used = 0
        self.clear()

    @property
    def bytes_per_node(self) -> int:
        """Sum of the item sizes of every allocated per-node array."""
        total = sum(np.dtype(d).itemsize for _, d in _FIELDS)
        optional = (getattr(self, name) for name in _OPTIONAL)
        return total + sum(a.itemsize for a in optional if a.shape[0])

    def clear(self) -> None:
        """Make the tree a lone, unvisited, unexpanded root."""
        self.used = 1
        self.first_child[ROOT] = NO_CHILD
        self.num_children[ROOT] = 0
        self.action[ROOT] = -1
        self.parent[ROOT] = NO_PARENT
        self.visits[ROOT] = 0
        self.value[ROOT] = 0.0
        self.proven[ROOT] = UNPROVEN
        if self.value_sq.shape[0]:
            self.value_sq[ROOT] = 0.0
        if self.amaf_n.shape[0]:
            self.amaf_n[ROOT] = 0
            self.amaf_v[ROOT] = 0.0
        if self.prob.shape[0]:
            self.prob[ROOT] = 1.0

    def solved_values(self, nodes) -> np.ndarray:
        """The exact win value of each node for its mover where MCTS-Solver has one (1 for a
        proven win, 0 for a proven loss, the stored value for PROVEN_EXACT), NaN elsewhere."""
        nodes = np.asarray(nodes, dtype=np.int64)
        status = self.proven[nodes]
        stored = self.exact[nodes] if self.exact.shape[0] else self.value[nodes].astype(np.float64)
        out = np.full(nodes.shape[0], np.nan)
        out[status == PROVEN_WIN] = 1.0
        out[status == PROVEN_LOSS] = 0.0
        out[status == PROVEN_EXACT] = stored[status == PROVEN_EXACT]
        return out

    def children(self, node: int) -> range:
        """Pool indices of a node's children (empty if it is not expanded)."""
        first = int(self.first_child[node])
        return range(0) if first == NO_CHILD else range(first, first + int(self.num_children[node]))

    def child_with_action(self, node: int, action: int) -> int | None:
        """The child of ``node`` reached by ``action``, or None if there is none in the tree."""
        for i in self.children(node):
            if int(self.action[i]) == action:
                return i
        return None

    def created_nodes(self, expand_all: bool) -> int:
        """Nodes in the tree: every used slot when all children are created at once; with one
        child per simulation, the root plus the children that a simulation has reached (the other
        slots of a block are reserved but not yet created)."""
        if expand_all:
            return self.used
        return 1 + int(np.count_nonzero(self.visits[1 : self.used]))

    def arrays(self) -> TreeArrays:
        """Every per-node array, as the kernels' record."""
        return TreeArrays(
            self.first_child,
            self.num_children,
            self.action,
            self.parent,
            self.visits,
            self.value,
            self.proven,
            self.value_sq,
            self.amaf_n,
            self.amaf_v,
            self.prob,
            self.exact,
        )

    def reroot(self, node: int) -> None:
        """Make ``node`` the root: compact its subtree to the start of the pool (breadth first,
        so children stay contiguous); every other node is freed."""
        order = np.empty(self.used, dtype=np.int32)
        new_first = np.empty(self.used, dtype=np.int32)
        self.used = int(_compact(self.arrays(), node, order, new_first))
        self.parent[ROOT] = NO_PARENT
        self.action[ROOT] = -1
        self.proven[ROOT] = UNPROVEN  # the root's status is recomputed from its children


@njit(cache=True)
def new_children(t, node, fc, k, labels, tuned, rave):
    """Make ``fc .. fc+k-1`` the children of ``node`` in the tree ``t`` (a :class:`TreeArrays`),
    labelled ``labels[:k]`` (actions, or chance outcomes), with empty statistics (``value_sq``
    too when ``tuned``, the AMAF arrays when ``rave``)."""
    first_child = t.first_child
    num_children = t.num_children
    first_child[node] = fc
    num_children[node] = k
    for j in range(k):
        i = fc + j
        first_child[i] = NO_CHILD
        num_children[i] = 0
        t.action[i] = labels[j]
        t.parent[i] = node
        t.visits[i] = 0
        t.value[i] = 0.0
        t.proven[i] = UNPROVEN
        if tuned:
            t.value_sq[i] = 0.0
        if rave:
            t.amaf_n[i] = 0
            t.amaf_v[i] = 0.0


@njit(cache=True)
def _compact(t, new_root, order, new_first):
    """Move the subtree of ``new_root`` in the tree ``t`` (a :class:`TreeArrays`) to slots
    ``0..k-1`` in breadth-first order; return k.

    ``order[h]`` is the old index of new slot ``h``; ``new_first[h]`` its new first child.
    """
    first_child = t.first_child
    num_children = t.num_children
    action = t.action
    parent = t.parent
    visits = t.visits
    value = t.value
    proven = t.proven
    value_sq = t.value_sq
    amaf_n = t.amaf_n
    amaf_v = t.amaf_v
    prob = t.prob
    exact = t.exact
    order[0] = new_root
    k = 1
    head = 0
    while head < k:
        old = order[head]
        fc = first_child[old]
        if fc == NO_CHILD:
            new_first[head] = NO_CHILD
        else:
            new_first[head] = k
            for j in range(num_children[old]):
                order[k + j] = fc + j
            k += num_children[old]
        head += 1
    idx = order[:k]
    num_children[:k] = num_children[idx]
    action[:k] = action[idx]
    visits[:k] = visits[idx]
    value[:k] = value[idx]
    proven[:k] = proven[idx]
    if value_sq.shape[0] > 0:
        value_sq[:k] = value_sq[idx]
    if amaf_n.shape[0] > 0:
        amaf_n[:k] = amaf_n[idx]
        amaf_v[:k] = amaf_v[idx]
    if prob.shape[0] > 0:
        prob[:k] = prob[idx]
    if exact.shape[0] > 0:
        exact[:k] = exact[idx]
    for h in range(k):
        fc = new_first[h]
        first_child[h] = fc
        if fc != NO_CHILD:
            for j in range(num_children[h]):
                parent[fc + j] = h
    return k
