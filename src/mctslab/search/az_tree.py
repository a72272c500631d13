"""The AlphaZero search tree and its compiled operations (game-independent, compiled once).

PUCT selection, as in AlphaZero (Silver et al., "A general reinforcement learning algorithm that
masters chess, shogi and Go through self-play", Science 2018, and its published pseudocode):
at a node visited ``N`` times, pick the child ``a`` maximising

    Q(a) + c(N) * P(a) * sqrt(N) / (1 + n(a)),   c(N) = c_puct + log((N + c_base + 1) / c_base)

where ``P`` is the network's prior, ``n(a)`` the child's visits and ``Q(a)`` its mean value for the
player choosing (values in [-1, 1]); ``c_base`` = 0 leaves out the growth term (``c(N) = c_puct``;
AlphaZero used ``c_puct`` = 1.25, ``c_base`` = 19652). An unvisited child's ``Q`` is the
first-play urgency (FPU) of Leela Zero: the chooser's network value of the node minus
``fpu * sqrt(sum of the priors of the visited children)``. Ties go to the lowest child (the
lowest action). The root's own network evaluation counts as its first visit, so the second
simulation already weighs the priors (as in mctx).

Virtual loss (Chaslot et al., "Parallel Monte-Carlo Tree Search", 2008): a descent adds a visit
and a loss (-1) to every node on its path at once, so the leaves chosen in one round of a batch
differ; the backup then adds ``1 + value``, leaving the real visit and value.

The tree is a struct of arrays (:class:`AzTree`), children of a node side by side, with
``first_child`` -1 until the node is expanded; ``wsum`` of a node is from the point of view of
the player who chose it (the mover of its parent), ``value0`` its network value for its own mover.
A full pool stops growth, not search: a leaf that does not fit is evaluated and backed up again.

MCTS-Solver (Winands, Björnsson and Saito, "Monte-Carlo Tree Search Solver", Computers and Games
2008, section 3): ``proven`` marks a node whose game-theoretic value is known, from the point of
view of the player who chose it (1 a proven win, -1 a proven loss, 0 unknown; the root's from its
own mover's point of view). A terminal leaf is proven by its returns (a draw is not); a node is a
proven win for its mover when one child is a proven win for that mover, a proven loss when every
child is a proven loss (:func:`prove`). PUCT never picks a proven loss while another child is not
one and always picks a proven win (:func:`select_child`); a descent stops at a proven node and
backs up its value without the network.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

#: ``mover`` of a node not evaluated yet (a terminal node's is the contract's TERMINAL_PLAYER, -4)
UNKNOWN = -2


class AzTree(NamedTuple):
    """The node pool of one search (module docstring); ``used[0]`` nodes are in use."""

    first_child: np.ndarray  # int32 [M]: first child, -1 while not expanded
    num_children: np.ndarray  # int32 [M]
    action: np.ndarray  # int32 [M]: the action from the parent
    parent: np.ndarray  # int32 [M]: -1 at the root
    prior: np.ndarray  # float64 [M]: the network's prior of the action (root: with noise)
    visits: np.ndarray  # int64 [M]: visits, virtual ones included
    wsum: np.ndarray  # float64 [M]: sum of values for the player who chose the node
    mover: np.ndarray  # int32 [M]: player to move at the node, UNKNOWN, or -4 (terminal)
    value0: np.ndarray  # float64 [M]: the network's value of the node for its mover
    proven: np.ndarray  # int8 [M]: MCTS-Solver's verdict (module docstring), 0 unknown
    used: np.ndarray  # int64 [1]


def new_tree(capacity: int) -> AzTree:
    """An empty tree of ``capacity`` nodes (at least the root), with the root in place."""
    m = max(1, int(capacity))
    tree = AzTree(
        np.full(m, -1, np.int32),
        np.zeros(m, np.int32),
        np.full(m, -1, np.int32),
        np.full(m, -1, np.int32),
        np.zeros(m, np.float64),
        np.zeros(m, np.int64),
        np.zeros(m, np.float64),
        np.full(m, UNKNOWN, np.int32),
        np.zeros(m, np.float64),
        np.zeros(m, np.int8),
        np.ones(1, np.int64),
    )
    return tree


@njit(cache=True)
def select_child(tree, node, c_puct, c_base, fpu):
    """The child of ``node`` PUCT picks (module docstring): a proven win for the player choosing
    at once, never a proven loss unless every child is one."""
    n_parent = tree.visits[node]
    c = c_puct
    if c_base > 0:
        c += math.log((n_parent + c_base + 1.0) / c_base)
    first = tree.first_child[node]
    k = tree.num_children[node]
    seen = 0.0
    for i in range(first, first + k):
        if tree.visits[i] > 0:
            seen += tree.prior[i]
    q_new = tree.value0[node] - fpu * math.sqrt(seen)
    explore = c * math.sqrt(n_parent)
    best, best_score = first, -1e300
    for i in range(first, first + k):
        if tree.proven[i] > 0:
            return i
        n = tree.visits[i]
        q = tree.wsum[i] / n if n > 0 else q_new
        score = q + explore * tree.prior[i] / (1.0 + n)
        if tree.proven[i] < 0:
            score = -1e299
        if score > best_score:
            best, best_score = i, score
    return best


@njit(cache=True)
def select_gumbel(tree, node, c_visit, c_scale):
    """The child Gumbel AlphaZero picks below the root (Danihelka et al. 2022, section 5, eq. 14):
    ``argmax_a pi'(a) - N(a) / (1 + sum_b N(b))`` with ``pi' = softmax(log P + sigma(completed
    Q))``, the completed Q and sigma as at the root (:mod:`mctslab.search.gumbel`: unvisited
    children take the mixed value of the node's network value and its visited children's Q;
    sigma on the win-rate scale). Ties go to the lowest child."""
    first = tree.first_child[node]
    k = tree.num_children[node]
    total = 0.0
    max_n = 0.0
    mass = 0.0
    weighted = 0.0
    for i in range(first, first + k):
        n = tree.visits[i]
        total += n
        max_n = max(max_n, n)
        if n > 0:
            mass += tree.prior[i]
            weighted += tree.prior[i] * tree.wsum[i] / n
    mix = tree.value0[node]
    if mass > 0:
        mix = (tree.value0[node] + total * weighted / mass) / (1.0 + total)
    scale = (c_visit + max_n) * c_scale
    z = np.empty(k)
    for j in range(k):
        i = first + j
        q = tree.wsum[i] / tree.visits[i] if tree.visits[i] > 0 else mix
        z[j] = math.log(max(tree.prior[i], 1e-30)) + scale * (q + 1.0) / 2.0
    top = z.max()
    norm = 0.0
    for j in range(k):
        z[j] = math.exp(z[j] - top)
        norm += z[j]
    best, best_score = first, -1e300
    for j in range(k):
        score = z[j] / norm - tree.visits[first + j] / (1.0 + total)
        if score > best_score:
            best, best_score = first + j, score
    return best


@njit(cache=True)
def expand(tree, leaf, player, legal, n, priors, value):
    """Give ``leaf`` (evaluated: ``player`` to move, network ``value`` for that player) its
    ``n`` children, the actions ``legal[:n]`` with the priors ``priors[action]``. Returns False
    (and expands nothing) when the pool is full or the leaf is already expanded."""
    tree.mover[leaf] = player
    tree.value0[leaf] = value
    first = tree.used[0]
    if tree.first_child[leaf] >= 0 or first + n > tree.first_child.shape[0]:
        return False
    for i in range(n):
        c = first + i
        tree.action[c] = legal[i]
        tree.parent[c] = leaf
        tree.prior[c] = priors[legal[i]]
        tree.first_child[c] = -1
        tree.num_children[c] = 0
        tree.visits[c] = 0
        tree.wsum[c] = 0.0
        tree.mover[c] = -2
        tree.value0[c] = 0.0
        tree.proven[c] = 0
    tree.first_child[leaf] = first
    tree.num_children[leaf] = n
    tree.used[0] = first + n
    return True


@njit(cache=True)
def backup(tree, path, depth, values):
    """Back up per-player ``values`` along ``path[0..depth]`` (the root first), undoing the
    descent's virtual loss: each node gains ``1 + values[chooser]``."""
    for i in range(1, depth + 1):
        node = path[i]
        tree.wsum[node] += 1.0 + values[tree.mover[tree.parent[node]]]


@njit(cache=True)
def prove_terminal(tree, path, depth, values):
    """MCTS-Solver at a terminal leaf ``path[depth]`` (``depth`` >= 1) with per-player returns
    ``values``: a win or a loss for the player who chose it is proven (a draw is not), then
    :func:`prove` carries it up."""
    leaf = path[depth]
    v = values[tree.mover[tree.parent[leaf]]]
    if v != 0:
        tree.proven[leaf] = 1 if v > 0 else -1
        prove(tree, path, depth)


@njit(cache=True)
def prove(tree, path, depth):
    """Carry the proven node ``path[depth]`` up ``path`` (module docstring): its parent is a
    proven win for the parent's mover when the child is a proven win for that mover (the
    child's chooser), a proven loss when every child is a proven loss; stop at the first parent
    not proven. The root's verdict is stored from its mover's point of view."""
    for i in range(depth, 0, -1):
        p = tree.proven[path[i]]
        if p == 0:
            return
        parent = path[i - 1]
        if p < 0:
            first = tree.first_child[parent]
            for c in range(first, first + tree.num_children[parent]):
                if tree.proven[c] != -1:
                    return
        if i == 1:
            tree.proven[0] = p
        elif tree.mover[tree.parent[parent]] == tree.mover[parent]:
            tree.proven[parent] = p
        else:
            tree.proven[parent] = -p


@njit(cache=True)
def extract(src, node, dst):
    """Copy the subtree of ``src`` below ``node`` into the empty tree ``dst``, ``node`` becoming
    its root (tree reuse: the positions a search already explored after the moves played).
    Children stay side by side, in breadth-first order; nodes that do not fit stay unexpanded.
    Returns the nodes copied."""
    m = dst.first_child.shape[0]
    queue = np.empty(m, np.int64)  # queue[i]: the src node of dst node i
    queue[0] = node
    used = 1
    head = 0
    while head < used:
        s = queue[head]
        d = head
        dst.action[d] = src.action[s] if d > 0 else -1
        dst.prior[d] = src.prior[s]
        dst.visits[d] = src.visits[s]
        dst.wsum[d] = src.wsum[s]
        dst.mover[d] = src.mover[s]
        dst.value0[d] = src.value0[s]
        dst.proven[d] = src.proven[s]
        dst.first_child[d] = -1
        dst.num_children[d] = 0
        k = src.num_children[s]
        if src.first_child[s] >= 0 and used + k <= m:
            dst.first_child[d] = used
            dst.num_children[d] = k
            for i in range(k):
                queue[used + i] = src.first_child[s] + i
                dst.parent[used + i] = d
            used += k
        head += 1
    dst.parent[0] = -1
    dst.used[0] = used
    if node > 0:  # the new root's verdict from its own mover's point of view
        same = src.mover[src.parent[node]] == src.mover[node]
        dst.proven[0] = src.proven[node] if same else -src.proven[node]
    return used


def child_by_action(tree: AzTree, node: int, action: int) -> int:
    """The child of ``node`` reached by ``action``, or -1 (not expanded, or no such move)."""
    first, k = int(tree.first_child[node]), int(tree.num_children[node])
    if first < 0:
        return -1
    hits = np.flatnonzero(tree.action[first : first + k] == action)
    return first + int(hits[0]) if hits.size else -1
