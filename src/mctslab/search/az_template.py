"""The AlphaZero descent for one game (specialised per game by :mod:`mctslab.kernels.codegen`):
the only tree operation that calls game kernels. Selection, expansion and backup are
:mod:`mctslab.search.az_tree`'s."""

from numba import njit

from mctslab.games import nim_kernels as game  # mctslab:game-kernels
from mctslab.search import az_tree


@njit(cache=True)
def descend(consts, root, state, tree, c_puct, c_base, fpu, forced, gumbel, c_visit, c_scale,
            path, legal):  # fmt: skip
    """From the root state ``root``, follow PUCT to a node not expanded yet (or terminal, or
    proven by MCTS-Solver), with
    a virtual loss on the way, leaving its state in ``state`` and the path in ``path``; the first
    step goes to the root's child ``forced`` when it is >= 0 (Gumbel's sequential halving), and
    with ``gumbel`` the steps below the root are Gumbel AlphaZero's
    (:func:`mctslab.search.az_tree.select_gumbel`).
    Returns ``(leaf, depth, player to move there, number of legal actions written into
    legal)``."""
    state[:] = root
    node = 0
    depth = 0
    path[0] = 0
    tree.visits[0] += 1
    while tree.first_child[node] >= 0 and (depth == 0 or tree.proven[node] == 0):
        if depth == 0 and forced >= 0:
            node = forced
        elif depth > 0 and gumbel:
            node = az_tree.select_gumbel(tree, node, c_visit, c_scale)
        else:
            node = az_tree.select_child(tree, node, c_puct, c_base, fpu)
        tree.visits[node] += 1
        tree.wsum[node] -= 1.0
        game.apply_action(consts, state, tree.action[node])
        depth += 1
        path[depth] = node
    player = game.current_player(consts, state)
    n = 0
    if player >= 0:
        n = game.legal_actions(consts, state, legal)
    return node, depth, player, n


@njit(cache=True)
def playout(consts, state, scratch, rng, moves, out):
    """A uniformly random playout from ``state`` (left unchanged) in ``scratch``, its returns in
    ``out`` (AlphaGo's rollout, for ``mix``). Returns the generator state."""
    scratch[:] = state
    _, rng = game.random_playout(consts, scratch, rng, moves, out)
    return rng
