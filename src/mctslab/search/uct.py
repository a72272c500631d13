"""The UCT-family search behind the ``mcts`` agent: configuration, the tree it keeps between
moves, the budget loop and the final-move rules. The compiled part is :func:`template.uct`, which
takes the records built here (:mod:`mctslab.search.records`) from :class:`UctConfig`."""

from __future__ import annotations

import time
import typing

import numpy as np

from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.games.contract import CHANCE_PLAYER, TERMINAL_PLAYER
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search import playouts
from mctslab.search import uct_template as template
from mctslab.search.budget import Budget, run_budget
from mctslab.search.enhancements import selection
from mctslab.search.options import UctConfig
from mctslab.search.records import (
    C_ROOT_PROVEN,
    C_TT_USED,
    C_USED,
    N_COUNTERS,
    UctParams,
    playout_params,
    policy_stats,
)
from mctslab.search.result import SearchResult, depth_summary, first_decision_state
from mctslab.search.transpositions import ProvenTable
from mctslab.search.tree import MAX_ACTIONS, PROVEN_EXACT, PROVEN_LOSS, PROVEN_WIN, ROOT, Tree

LEAVES = {"playout": template.LEAF_PLAYOUT, "coin": template.LEAF_COIN}
CHANCE_MODES = {"sampled": template.CHANCE_SAMPLED, "expanded": template.CHANCE_EXPANDED}


#: the Python type of each field of :class:`UctParams`
_FIELD_TYPES: dict[str, type] = typing.get_type_hints(UctParams)


def uct_params(config: UctConfig, spec, solver: bool, chance_tree: bool) -> UctParams:
    """The kernel's scalar parameters from ``config`` and the game's ``spec`` (every field of one
    Python type, so that the kernel compiles once per game). A field named like a
    :class:`UctConfig` attribute takes that attribute, converted to the field's type; the rest
    are the codes of the tables above (and of selection.FORMULA_CODES and RAVE_CODES) and what
    the game and the caller decide."""
    lo = float(spec.min_utility)
    hi = float(spec.max_utility) if spec.max_utility > spec.min_utility else lo + 1.0
    decided = dict(
        lo=lo,
        span=hi - lo,
        formula=selection.FORMULA_CODES[config.formula],
        solver=bool(solver),
        leaf=LEAVES[config.leaf],
        num_players=int(spec.num_players),
        num_actions=int(spec.num_distinct_actions),
        max_length=int(spec.max_game_length),
        rave=selection.RAVE_CODES[config.rave],
        policy=bool(config.uses_policy),
        chance=CHANCE_MODES[config.chance] if chance_tree else template.CHANCE_OFF,
        num_chance=int(spec.num_chance_outcomes),
    )
    direct = {f: _FIELD_TYPES[f](getattr(config, f)) for f in _FIELD_TYPES if f not in decided}
    return UctParams(**direct, **decided)


class Uct:
    """A UCT-family search for one game, keeping its tree between searches for reuse."""

    def __init__(self, game: Game, config: UctConfig, seed: int):
        spec = game.spec
        if spec.num_distinct_actions > MAX_ACTIONS:
            raise SpecError(f"{spec.spec_string}: more than {MAX_ACTIONS} actions")
        self.game = game
        self.config = config
        # The solver reasons about wins and losses of two players whose utilities sum to a
        # constant; in other games there is nothing it could prove.
        self.solver = config.solver and spec.num_players == 2 and spec.utility_sum is not None
        policies = playouts.policies_for(game.kernels)
        base = playouts.check_base(policies, config.playout, spec.spec_string)
        self.kernels = codegen.specialize(template, game.kernels, policies)
        chance_tree = config.chance != "playout" and spec.num_chance_outcomes > 0
        self.tree = Tree(
            config.max_nodes,
            with_squares=config.formula == "ucb1tuned",
            with_amaf=config.rave != "off",
            with_prob=chance_tree,
            with_exact=chance_tree and self.solver,
        )
        slots = 1 << ((config.max_nodes - 1) // 2).bit_length()
        self.table = ProvenTable(
            slots if self.solver and config.transpositions else 0, spec.state_size
        )
        if chance_tree and (config.rave != "off" or config.lgrf or config.pool > 0):
            raise SpecError(
                f"{spec.spec_string} has chance events: RAVE, LGRF and PoolRAVE need "
                "chance=playout (they read the tree path as alternating moves)"
            )
        if config.exact > 0 and not self.solver:
            raise SpecError(
                f"exact={config.exact} needs the solver (solver=true) in a two-player game with "
                f"a constant utility sum; {spec.spec_string} with solver={config.solver} has none"
            )
        self.params = uct_params(config, spec, self.solver, chance_tree)
        players, actions = spec.num_players, spec.num_distinct_actions
        #: the playout policy (:mod:`mctslab.search.playouts`)
        self.playout = playout_params(
            base=base,
            decisive=config.decisive,
            anti=config.antidecisive,
            lgrf=config.lgrf,
            pool_k=config.pool,
            pool_p=config.pool_p,
            num_actions=actions,
            num_players=players,
            length=config.qbr,
            nf_empty=config.nf_empty,
            edge_prior=config.edge_prior,
        )
        #: what the enhancements learn, each array only as large as its enhancement needs
        self.stats = policy_stats(players, actions, config.lgrf, config.pool, config.qbr)
        self.counters = np.zeros(N_COUNTERS, dtype=np.int64)
        self.rng = seed_state(seed)
        self._root: State | None = None  # the position the tree's root stands for
        self._warm_up()

    def _clear_policy(self) -> None:
        stats = self.stats
        stats.replies[:] = -1
        stats.pools[:] = -1
        stats.pool_sizes[:] = 0
        stats.pool_amaf[:] = 0.0
        stats.qbr[:] = 0.0

    def _warm_up(self) -> None:
        """Load (or compile) the kernels now, so that the first timed search does not pay."""
        state = first_decision_state(self.game)
        if state is not None:
            rng = self.rng
            self.run(state.array, 1, np.zeros(self.game.spec.max_game_length + 1, np.int64))
            self.rng = rng
            self.reset()

    def reset(self) -> None:
        """Forget the tree, the proven positions and what the playout policies learnt."""
        self.tree.clear()
        self.table.clear()
        self._clear_policy()
        self._root = None

    def run(self, root: np.ndarray, n: int, depth_hist: np.ndarray) -> int:
        """Run up to ``n`` simulations from the root state ``root`` on the current tree."""
        self.counters[C_USED] = self.tree.used
        self.counters[C_TT_USED] = self.table.used
        ran, rng = self.kernels.uct(
            self.game.consts, root, self.tree.arrays(), self.table.arrays(), self.counters,
            depth_hist, self.params, self.playout, self.stats, n, self.rng,
        )  # fmt: skip
        self.rng = as_state(rng)
        self.tree.used = int(self.counters[C_USED])
        self.table.used = int(self.counters[C_TT_USED])
        return ran

    def _nodes(self) -> int:
        return self.tree.created_nodes(self.config.expand_all)

    def _move_root(self, state: State) -> float:
        """Point the tree's root at ``state``: keep the subtree of the moves played since the
        last search when reuse is on and they are in the tree, else start afresh.
        Returns the reused fraction (nodes kept / nodes before)."""
        old = self._root
        self._root = state.clone()
        if old is not None and self.config.reuse:
            played = state.history[len(old.history) :]
            if state.history[: len(old.history)] == old.history:
                replay = old.clone()
                node: int | None = ROOT
                for a in played:
                    node = self.tree.child_with_action(node, a)  # None past a chance event
                    if node is None:
                        break
                    replay.apply_action(a)
                if node is not None and np.array_equal(replay.array, state.array):
                    before = self._nodes()
                    if node != ROOT:
                        self.tree.reroot(node)
                    return self._nodes() / before
        self.tree.clear()
        return 0.0

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` until the ``budget`` is spent (:func:`run_budget`); the game
        state is not changed."""
        start = time.perf_counter()
        player = state.current_player()
        if player in (TERMINAL_PLAYER, CHANCE_PLAYER):
            raise MctslabError("search needs a position with a player to move")
        reused = self._move_root(state)
        tree = self.tree
        if tree.first_child[ROOT] < 0 and 1 + len(state.legal_actions()) > tree.capacity:
            raise SpecError(
                f"max_nodes={tree.capacity} cannot hold the root and its "
                f"{len(state.legal_actions())} children"
            )
        root = state.array.copy()
        self.stats.pool_amaf[:] = 0.0  # PoolRAVE's root AMAF and QBR's statistics are per
        self.stats.qbr[:] = 0.0  # search; the LGRF table (and the pools, rebuilt) are kept
        hist = np.zeros(self.game.spec.max_game_length + 1, dtype=np.int64)
        ran = run_budget(lambda n: self.run(root, n, hist), budget, start)
        proven = int(self.counters[C_ROOT_PROVEN]) if self.solver else 0
        kids = np.array(tree.children(ROOT), dtype=np.int64)
        action = self._final(kids, proven)
        elapsed = time.perf_counter() - start
        depth_mean, depth_median, depth_max = depth_summary(hist)
        chosen = kids[np.flatnonzero(tree.action[kids] == action)[0]]
        return SearchResult(
            action=action,
            actions=[int(a) for a in tree.action[kids]],
            visits=[int(v) for v in tree.visits[kids]],
            values=[float(v) for v in tree.value[kids]],
            pv=self.principal_variation(),
            simulations=ran,
            elapsed=elapsed,
            sims_per_second=ran / elapsed if elapsed > 0 else 0.0,
            nodes=self._nodes(),
            slots=tree.used,
            bytes=tree.used * tree.bytes_per_node,
            bytes_per_node=tree.bytes_per_node,
            depth_mean=depth_mean,
            depth_median=depth_median,
            depth_max=depth_max,
            win_ratio=float(tree.value[chosen]),
            reused_fraction=reused,
            proven=proven,
            solved_value=self._solved_value(kids, proven),
            proven_positions=self.table.used,
        )

    def _solved_value(self, kids: np.ndarray, proven: int) -> float | None:
        """The root's exact win value for the player to move, when the solver has it."""
        if proven == PROVEN_WIN:
            return 1.0
        if proven == PROVEN_LOSS:
            return 0.0
        if proven == PROVEN_EXACT:
            return float(np.max(self.tree.solved_values(kids)))
        return None

    def _final(self, kids: np.ndarray, proven: int) -> int:
        """The move to play (see :class:`UctConfig`)."""
        tree = self.tree
        status = tree.proven[kids]
        if proven == PROVEN_WIN:
            kids = kids[status == PROVEN_WIN]
        elif proven == PROVEN_EXACT:
            exact = tree.solved_values(kids)
            kids = kids[exact == np.max(exact)]
        elif self.solver and np.any(status != PROVEN_LOSS):
            kids = kids[status != PROVEN_LOSS]
        visits = tree.visits[kids].astype(np.int64)
        values = tree.value[kids].astype(np.float64)
        if self.config.final == "robust":
            order = np.lexsort((-values, -visits))  # last key is primary
        else:
            values = np.where(visits > 0, values, -np.inf)
            order = np.lexsort((-visits, -values))
        return int(tree.action[kids[order[0]]])

    def principal_variation(self, first: int | None = None) -> list[int]:
        """From the root, the actions of the most-visited visited child at each level; with
        ``first``, the line that starts with the root move ``first`` (empty if it is not in the
        tree)."""
        tree = self.tree
        pv: list[int] = []
        node = ROOT
        if first is not None:
            child = tree.child_with_action(ROOT, first)
            if child is None:
                return pv
            node = child
            pv.append(first)
        while True:
            kids = tree.children(node)
            if not kids:
                return pv
            node = max(kids, key=lambda i: int(tree.visits[i]))
            if tree.visits[node] == 0:
                return pv
            pv.append(int(tree.action[node]))
