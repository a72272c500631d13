"""The AlphaZero search driver: PUCT guided by a policy/value network, with leaves batched.

Each simulation descends one tree by PUCT with a virtual loss (the compiled
:func:`mctslab.search.az_template.descend`), to a node not expanded yet; the leaves of a round
(``batch`` per tree, over every tree in play) go to the network in one call; each leaf is then
expanded with the network's priors and its value is backed up (:mod:`mctslab.search.az_tree`,
where the formulas are). A terminal leaf's value is the game's returns, without the network.
Many trees advance together in self-play (:meth:`AzSearch.run`), so one network call serves
many games; one search for an agent is the same loop with one tree (:meth:`AzSearch.search`).

With ``mix`` = λ > 0 a leaf's value is AlphaGo's ``(1 - λ) v + λ z`` (Silver et al., "Mastering
the game of Go with deep neural networks and tree search", Nature 2016: λ = 0.5), ``z`` the
outcome of one uniformly random playout from the leaf for the player to move there.

With ``solver`` (two-player zero-sum games) MCTS-Solver marks proven wins and losses
(:mod:`mctslab.search.az_tree`): a descent that reaches a proven node backs up its value without
the network, a search whose root is proven stops, and the move played is a proven win when there
is one, never a proven loss while another move is not one (:func:`playable_visits`; self-play's
policy targets use the same visits).

Root Dirichlet noise (AlphaZero: ``P = (1 - frac) * P + frac * Dir(alpha)`` at the root) is
added only when ``noise_frac`` > 0, which only self-play sets. The move played is the most
visited child (ties: the better mean, then the lower action).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from mctslab.errors import MctslabError
from mctslab.games.base import Game, State
from mctslab.games.contract import provides
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search import az_template, az_tree, gumbel, options
from mctslab.search.az_tree import AzTree
from mctslab.search.budget import Budget, run_budget
from mctslab.search.result import SearchResult

#: (observations [B, C, H, W] float32, legal masks [B, A] bool) -> (priors [B, A], values [B])
Evaluate = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

#: nodes a tree holds at most when the budget is a time (52 bytes a node: about 104 MB)
MAX_NODES = 2_000_000


def check_game(game: Game) -> None:
    """AlphaZero here needs two players, no chance events, and the network hooks."""
    spec = game.spec
    if spec.num_players != 2 or spec.num_chance_outcomes or not provides(game, "observation"):
        raise MctslabError(
            f"az plays two-player games without chance (nim, nogo, go, hex, connect_four), "
            f"not {spec.spec_string}"
        )


class AzSearch:
    """PUCT searches of one game with one network (``evaluate``) and one :class:`AzConfig`."""

    def __init__(self, game: Game, config, evaluate: Evaluate, seed: int):
        check_game(game)
        self.game = game
        self.config = config
        self.evaluate = evaluate
        self.rng = np.random.default_rng(seed)
        self.kern = codegen.specialize(az_template, game.kernels)
        self.solver = options.solver_applies(config, game.spec)
        spec = game.spec
        self._state = np.empty(spec.state_size, dtype=game.kernels.STATE_DTYPE)
        self._path = np.empty(spec.max_game_length + 2, dtype=np.int64)
        self._legal = np.empty(spec.num_distinct_actions, dtype=np.int32)
        self._returns = np.zeros(2)
        self._scratch = np.empty(spec.state_size, dtype=game.kernels.STATE_DTYPE)
        self._moves = np.empty(2 * spec.max_game_length + 2, dtype=np.int32)
        self._rollout = seed_state(seed)
        #: the last search's tree, and its root's history and state (tree reuse)
        self._last: tuple[AzTree, list[int], np.ndarray] | None = None

    def reset(self) -> None:
        """Forget the last tree (a new game)."""
        self._last = None

    def _reused(self, state: State, extra: int) -> tuple[AzTree | None, float]:
        """The subtree of the last search's tree at ``state`` when ``state`` follows its root
        by moves it explored (checked by replaying them), in a tree with room for ``extra`` more
        nodes; and the share of the old tree's nodes kept. ``(None, 0)`` otherwise. The same
        position again goes on in the old tree itself, nothing copied (a search run in slices,
        as the web page's live view runs it); a full pool only stops expanding."""
        if self._last is None:
            return None, 0.0
        old, history, array = self._last
        moves = state.history[len(history) :]
        if state.history[: len(history)] != history:
            return None, 0.0
        if not moves and np.array_equal(array, state.array):
            return old, 1.0
        replay, node = array.copy(), 0
        for move in moves:
            node = az_tree.child_by_action(old, node, move)
            if node < 0:
                return None, 0.0
            self.game.kernels.apply_action(self.game.consts, replay, move)
        if not np.array_equal(replay, state.array):
            return None, 0.0
        return self.subtree(old, node, extra)

    def subtree(self, old: AzTree, node: int, extra: int) -> tuple[AzTree, float]:
        """``old``'s subtree below ``node`` (``node`` the new root) in a new tree with room for
        ``extra`` more nodes, and the share of ``old``'s nodes kept."""
        tree = az_tree.new_tree(extra + int(old.used[0]))
        kept = az_tree.extract(old, node, tree)
        return tree, kept / int(old.used[0])

    def noise_root(self, tree: AzTree) -> None:
        """Self-play's root noise on a root expanded before it became the root (a reused
        subtree): its children's priors become ``(1 - frac)·P + frac·η``, η ~ Dir(alpha), as a
        fresh root's are at its expansion (:meth:`_round`)."""
        first, k = int(tree.first_child[0]), int(tree.num_children[0])
        if self.config.noise_frac <= 0 or first < 0:
            return
        tree.prior[first : first + k] = self._noised(tree.prior[first : first + k])

    def _noised(self, priors: np.ndarray) -> np.ndarray:
        """Root noise: ``(1 - frac)·P + frac·η``, η ~ Dir(``noise_alpha``) over the moves."""
        noise = self.rng.dirichlet(np.full(len(priors), self.config.noise_alpha))
        return (1 - self.config.noise_frac) * priors + self.config.noise_frac * noise

    def capacity(self, sims: int | None) -> int:
        """Nodes enough for ``sims`` simulations (None: :data:`MAX_NODES`)."""
        return MAX_NODES if sims is None else 1 + self.game.spec.num_distinct_actions * (sims + 1)

    def new_tree(self, sims: int | None) -> AzTree:
        """A tree big enough for ``sims`` simulations (None: :data:`MAX_NODES`)."""
        return az_tree.new_tree(self.capacity(sims))

    def run(self, trees: list[AzTree], roots: list[np.ndarray], sims: int) -> int:
        """Run up to ``sims`` more simulations in each tree (root states ``roots``), ``batch``
        leaves per tree per network call; returns the simulations run per tree."""
        done = 0
        while done < sims:
            live = [(t, r) for t, r in zip(trees, roots, strict=True) if t.proven[0] == 0]
            if not live:  # every root proven (MCTS-Solver): nothing left to search
                break
            k = min(self.config.batch, sims - done)
            self._round([(t, r, -1) for t, r in live for _ in range(k)])
            done += k
        return done

    def _round(self, jobs: list[tuple[AzTree, np.ndarray, int]]) -> None:
        """One descent per job ``(tree, root state, forced root child or -1)``, their leaves
        evaluated in one network call, then expanded and backed up."""
        game, c = self.game, self.config
        consts = game.consts
        pending = []
        for tree, root, forced in jobs:
            leaf, depth, player, n = self.kern.descend(
                consts, root, self._state, tree, c.c_puct, c.c_base, c.fpu, forced,
                c.gumbel and forced >= 0, c.c_visit, c.c_scale, self._path, self._legal,
            )  # fmt: skip
            if player < 0:  # terminal: the game's returns, no network
                game.kernels.returns(consts, self._state, self._returns)
                az_tree.backup(tree, self._path, depth, self._returns)
                if self.solver and depth > 0:
                    az_tree.prove_terminal(tree, self._path, depth, self._returns)
                continue
            if depth > 0 and tree.proven[leaf] != 0:  # proven: its value, no network
                chooser = int(tree.mover[tree.parent[leaf]])
                az_tree.backup(tree, self._path, depth, _returns(float(tree.proven[leaf]), chooser))
                continue
            legal = self._legal[:n].copy()
            z = 0.0
            if c.mix > 0:  # AlphaGo's mix of the network's value and a rollout's outcome
                self._rollout = as_state(
                    self.kern.playout(consts, self._state, self._scratch, self._rollout,
                                      self._moves, self._returns)
                )  # fmt: skip
                z = float(self._returns[player])
            pending.append(
                (tree, leaf, depth, self._path[: depth + 1].copy(), player, legal,
                 game.observation(self._state), z)
            )  # fmt: skip
        if not pending:
            return
        masks = np.zeros((len(pending), game.spec.num_distinct_actions), dtype=bool)
        for j, p in enumerate(pending):
            masks[j, p[5]] = True
        priors, values = self.evaluate(np.stack([p[6] for p in pending]), masks)
        for j, (tree, leaf, depth, path, player, legal, _, z) in enumerate(pending):
            v = (1 - c.mix) * float(values[j]) + c.mix * z
            row = priors[j]
            if leaf == 0 and c.noise_frac > 0 and tree.first_child[0] < 0:
                row = row.copy()
                row[legal] = self._noised(row[legal])
            az_tree.expand(tree, leaf, player, legal, len(legal), row, v)
            az_tree.backup(tree, path, depth, _returns(v, player))

    def gumbel(
        self, tree: AzTree, root: np.ndarray, sims: int, g: np.ndarray | None = None
    ) -> tuple[int, np.ndarray]:
        """Gumbel AlphaZero at the root of one tree (:meth:`gumbel_many` with one tree): the
        chosen root child (a node) and the improved policy over the root's children."""
        return self.gumbel_many([tree], [root], sims, None if g is None else [g])[0]

    def gumbel_many(
        self,
        trees: list[AzTree],
        roots: list[np.ndarray],
        sims: int,
        gs: list[np.ndarray] | None = None,
    ) -> list[tuple[int, np.ndarray]]:
        """Gumbel AlphaZero at the root (:mod:`mctslab.search.gumbel`) of each tree: evaluate
        the root, take the ``gumbel_m`` best actions by ``g + logits`` (``g`` drawn from
        Gumbel(0, 1) times ``gumbel_scale`` unless given, one per root child), spend the other
        ``sims - 1`` simulations on them by sequential halving (below the root, Gumbel's
        deterministic selection, :func:`mctslab.search.az_tree.select_gumbel`), and return per
        tree the chosen root child (a node) and the improved policy over the root's children.

        The trees go through their phases together: each round takes up to ``batch`` forced
        descents from every tree still in the phase, and their leaves go to the network in one
        call (self-play's many games). A tree's simulations and result are those it gets alone:
        its rounds hold the same descents, and the trees share nothing but the network call."""
        c = self.config
        fresh = [(t, r) for t, r in zip(trees, roots, strict=True) if t.first_child[0] < 0]
        if fresh:
            self._round([(t, r, -1) for t, r in fresh])
        plans = []
        for j, tree in enumerate(trees):
            first, k = int(tree.first_child[0]), int(tree.num_children[0])
            logits = np.log(np.maximum(tree.prior[first : first + k], 1e-30))
            g = gs[j] if gs is not None else c.gumbel_scale * self.rng.gumbel(size=k)
            base = g + logits
            m = min(c.gumbel_m, k)
            remaining = [int(i) for i in np.argsort(-base, kind="stable")[:m]]
            plans.append(_GumbelPlan(first, logits, base, remaining, sims - 1, gumbel.phases(m)))
        for phase in range(max(p.phases for p in plans)):
            forced = []
            for p in plans:
                if phase >= p.phases or p.left <= 0:
                    forced.append([])
                    continue
                per = max(1, (p.left // (p.phases - phase)) // len(p.remaining))
                forced.append([p.first + i for i in p.remaining for _ in range(per)][: p.left])
                p.left -= len(forced[-1])
            for at in range(0, max(map(len, forced)), c.batch):
                self._round(
                    [(t, r, f) for t, r, fs in zip(trees, roots, forced, strict=True)
                     for f in fs[at : at + c.batch]]
                )  # fmt: skip
            for tree, p, fs in zip(trees, plans, forced, strict=True):
                if fs and len(p.remaining) > 1:
                    p.remaining = gumbel.halve(p.base + self._sigma(tree), p.remaining)
        out = []
        for tree, p in zip(trees, plans, strict=True):
            score = p.base + self._sigma(tree)
            best = max(p.remaining, key=lambda i: score[i])
            _, visits, q, priors = root_children(tree)
            cq = gumbel.completed_q(q, visits, priors, float(tree.value0[0]))
            policy = gumbel.improved_policy(p.logits, cq, visits, c.c_visit, c.c_scale)
            out.append((p.first + best, policy))
        return out

    def _sigma(self, tree: AzTree) -> np.ndarray:
        """sigma of the root children's completed Q (win-rate scale)."""
        _, visits, q, priors = root_children(tree)
        cq = gumbel.completed_q(q, visits, priors, float(tree.value0[0]))
        return gumbel.sigma((cq + 1) / 2, visits, self.config.c_visit, self.config.c_scale)

    def search(self, state: State, budget: Budget) -> SearchResult:
        """One search from ``state`` to the budget: in the last search's subtree at ``state``
        with ``reuse`` (the slides' knowledge transfer), else in a fresh tree; with ``gumbel``
        always a fresh tree, and the budget must be simulations only (sequential halving plans
        them)."""
        if state.current_player() < 0:
            raise MctslabError("search needs a position with a player to move")
        start = time.perf_counter()
        root = state.array.copy()
        if self.config.gumbel:
            if budget.sims is None or budget.seconds is not None or budget.stop is not None:
                raise MctslabError("az(gumbel=true) needs a budget of simulations only (sims=N)")
            tree = self.new_tree(budget.sims)
            chosen, _ = self.gumbel(tree, root, budget.sims)
            out = result(tree, budget.sims, time.perf_counter() - start)
            out.action = int(tree.action[chosen])
            return out
        planned = budget.sims if budget.seconds is None and budget.stop is None else None
        tree, kept = None, 0.0
        if self.config.reuse:
            tree, kept = self._reused(state, self.capacity(planned))
        if tree is None:
            tree = self.new_tree(planned)
        sims = run_budget(lambda n: self.run([tree], [root], n), budget, start)
        if self.config.reuse:
            self._last = (tree, list(state.history), root)
        out = result(tree, sims, time.perf_counter() - start)
        out.reused_fraction = kept
        return out


@dataclasses.dataclass
class _GumbelPlan:
    """One tree's sequential halving (:meth:`AzSearch.gumbel_many`): its root's first child,
    logits, ``g + logits``, the actions still considered, simulations left and phases."""

    first: int
    logits: np.ndarray
    base: np.ndarray
    remaining: list[int]
    left: int
    phases: int


def _returns(v: float, player: int) -> np.ndarray:
    """Per-player values of a value ``v`` for ``player`` (two players, zero-sum)."""
    return np.array([v, -v]) if player == 0 else np.array([-v, v])


def _root_kids(tree: AzTree) -> slice:
    """The root's children, side by side in the pool (empty before the root is expanded)."""
    first, k = int(tree.first_child[0]), int(tree.num_children[0])
    return slice(first, first + k) if first >= 0 else slice(0, 0)


def root_children(tree: AzTree) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The root's children in node order (ascending actions): actions, visits, mean values for
    the player to move (in [-1, 1]; 0 where unvisited) and priors."""
    sl = _root_kids(tree)
    visits = tree.visits[sl].copy()
    q = np.where(visits > 0, tree.wsum[sl] / np.maximum(visits, 1), 0.0)
    return tree.action[sl].copy(), visits, q, tree.prior[sl].copy()


def root_value(tree: AzTree) -> float:
    """The search's value of the root for its player to move, in [-1, 1]: +1 or -1 when
    MCTS-Solver proved it, else its children's mean values weighted by their visits (the
    network's value when nothing was visited)."""
    if tree.proven[0] != 0:
        return float(np.sign(tree.proven[0]))
    _, visits, q, _ = root_children(tree)
    n = visits.sum()
    return float((visits * q).sum() / n) if n > 0 else float(tree.value0[0])


def playable_visits(tree: AzTree) -> np.ndarray:
    """The root children's visits (node order) with MCTS-Solver's verdicts applied: only the
    proven wins' when the root is a proven win, the proven losses' zeroed while another child is
    not one. The move played and self-play's policy target come from these."""
    sl = _root_kids(tree)
    visits, proven = tree.visits[sl].copy(), tree.proven[sl]
    if tree.proven[0] > 0:
        visits[proven <= 0] = 0
    elif np.any(proven >= 0):
        visits[proven < 0] = 0
    return visits


def best_child(tree: AzTree, node: int, visits: np.ndarray | None = None) -> int:
    """The most visited child of ``node`` (ties: the better mean, then the lower action);
    ``visits`` replaces the children's visit counts in the ranking (the root's
    :func:`playable_visits`)."""
    first, k = int(tree.first_child[node]), int(tree.num_children[node])
    n = tree.visits[first : first + k]
    q = np.where(n > 0, tree.wsum[first : first + k] / np.maximum(n, 1), -2.0)
    return first + int(np.lexsort((-q, -(n if visits is None else visits)))[0])


def result(tree: AzTree, sims: int, elapsed: float) -> SearchResult:
    """The :class:`SearchResult` of a finished search (values as win rates in [0, 1])."""
    actions, visits, q, priors = root_children(tree)
    playable = playable_visits(tree)
    kids_proven = tree.proven[_root_kids(tree)]
    win = np.where(kids_proven > 0, 1.0, np.where(kids_proven < 0, 0.0, (q + 1) / 2))
    pv, node = [], 0
    if playable.sum() > 0:  # the move: the most visited among those MCTS-Solver allows
        node = best_child(tree, 0, playable)
        pv.append(int(tree.action[node]))
    while tree.first_child[node] >= 0 and tree.visits[node] > 1:
        node = best_child(tree, node)
        pv.append(int(tree.action[node]))
    action = pv[0] if pv else int(actions[np.argmax(priors)])
    order = np.argsort(actions)
    chosen = int(np.flatnonzero(actions == action)[0])
    proven = int(tree.proven[0])
    return SearchResult(
        action=action,
        actions=actions[order].tolist(),
        visits=visits[order].tolist(),
        values=win[order].tolist(),
        pv=pv,
        simulations=sims,
        elapsed=elapsed,
        sims_per_second=sims / elapsed if elapsed > 0 else 0.0,
        nodes=int(tree.used[0]),
        slots=int(tree.first_child.shape[0]),
        win_ratio=float(win[chosen]),
        proven=proven,
        solved_value=None if proven == 0 else float(proven > 0),
        priors=priors[order].tolist(),
        network_value=float(tree.value0[0]),
    )
