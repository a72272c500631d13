"""The UCT-family search behind the ``mcts`` agent: configuration, the tree it keeps between
moves, the budget loop and the final-move rules. The compiled part is :func:`template.uct`."""

from __future__ import annotations

import time

import numpy as np

from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.games.contract import CHANCE_PLAYER, TERMINAL_PLAYER
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search import playouts
from mctslab.search import uct_template as template
from mctslab.search.budget import Budget, run_budget
from mctslab.search.options import UctConfig
from mctslab.search.playouts import common as pc
from mctslab.search.result import SearchResult, depth_summary, first_decision_state
from mctslab.search.transpositions import ProvenTable
from mctslab.search.tree import MAX_ACTIONS, PROVEN_EXACT, PROVEN_LOSS, PROVEN_WIN, ROOT, Tree

FORMULAS = {
    "slides": template.SLIDES,
    "paper": template.PAPER,
    "book": template.BOOK,
    "ucb1tuned": template.UCB1_TUNED,
}
LEAVES = {"playout": template.LEAF_PLAYOUT, "coin": template.LEAF_COIN}
CHANCE_MODES = {"sampled": template.CHANCE_SAMPLED, "expanded": template.CHANCE_EXPANDED}
RAVE_SCHEDULES = {
    "off": template.RAVE_OFF,
    "paper": template.RAVE_PAPER,
    "gelly_silver": template.RAVE_GELLY_SILVER,
    "article": template.RAVE_ARTICLE,
}


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
        playouts.check_base(policies, config.playout, spec.spec_string)
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
        self.fparams = np.zeros(template.N_FPARAMS, dtype=np.float64)
        self.fparams[template.F_C] = config.c
        self.fparams[template.F_MIN_UTILITY] = spec.min_utility
        self.fparams[template.F_MAX_UTILITY] = (
            spec.max_utility if spec.max_utility > spec.min_utility else spec.min_utility + 1.0
        )
        self.iparams = np.zeros(template.N_IPARAMS, dtype=np.int64)
        self.iparams[template.P_FORMULA] = FORMULAS[config.formula]
        self.iparams[template.P_Z] = config.z
        self.iparams[template.P_EXPAND_ALL] = config.expand_all
        self.iparams[template.P_SOLVER] = self.solver
        self.iparams[template.P_LEAF] = LEAVES[config.leaf]
        self.iparams[template.P_NUM_PLAYERS] = spec.num_players
        self.iparams[template.P_NUM_ACTIONS] = spec.num_distinct_actions
        self.iparams[template.P_MAX_LENGTH] = spec.max_game_length
        self.fparams[template.F_RAVE_K] = config.rave_k
        self.fparams[template.F_RAVE_B] = config.rave_b
        self.fparams[template.F_QBR_A] = config.qbr_a
        self.fparams[template.F_QBR_K] = config.qbr_k
        self.iparams[template.P_RAVE] = RAVE_SCHEDULES[config.rave]
        self.iparams[template.P_POLICY] = config.uses_policy
        self.iparams[template.P_QBR] = config.qbr
        if chance_tree and (config.rave != "off" or config.lgrf or config.pool > 0):
            raise SpecError(
                f"{spec.spec_string} has chance events: RAVE, LGRF and PoolRAVE need "
                "chance=playout (they read the tree path as alternating moves)"
            )
        self.iparams[template.P_CHANCE_TREE] = (
            template.CHANCE_OFF if not chance_tree else CHANCE_MODES[config.chance]
        )
        self.iparams[template.P_NUM_CHANCE] = spec.num_chance_outcomes
        if config.exact > 0 and not self.solver:
            raise SpecError(
                f"exact={config.exact} needs the solver (solver=true) in a two-player game with "
                f"a constant utility sum; {spec.spec_string} with solver={config.solver} has none"
            )
        self.iparams[template.P_EXACT] = config.exact
        self._init_policy(spec)
        self.counters = np.zeros(template.N_COUNTERS, dtype=np.int64)
        self.rng = seed_state(seed)
        self._root: State | None = None  # the position the tree's root stands for
        self._warm_up()

    def _init_policy(self, spec) -> None:
        """The playout-policy arrays (:mod:`mctslab.search.playouts.common`), each allocated only as
        large as the strategies that are on need."""
        config = self.config
        players, actions = spec.num_players, spec.num_distinct_actions
        self.pol = np.zeros(pc.N_PL, dtype=np.int64)
        self.pol[pc.PL_BASE] = pc.BASE_NAMES[config.playout]
        self.pol[pc.PL_DECISIVE] = config.decisive
        self.pol[pc.PL_ANTI] = config.antidecisive
        self.pol[pc.PL_LGRF] = config.lgrf
        self.pol[pc.PL_POOL_K] = config.pool
        self.pol[pc.PL_NA] = actions
        self.pol[pc.PL_NP] = players
        self.pol[pc.PL_LENGTH] = config.qbr
        self.pf = np.zeros(pc.N_PF, dtype=np.float64)
        self.pf[pc.PF_POOL_P] = config.pool_p
        self.ptab = np.full(
            pc.ptab_size(players, actions, config.lgrf, config.pool), -1, dtype=np.int32
        )
        self.pstat = np.zeros(2 * players * actions if config.pool else 0, dtype=np.float64)
        self.qstats = np.zeros(template.N_QSTATS * players if config.qbr else 0, np.float64)

    def _clear_policy(self) -> None:
        self.ptab[:] = -1
        self.pstat[:] = 0.0
        self.qstats[:] = 0.0

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
        self.counters[template.C_USED] = self.tree.used
        self.counters[template.C_TT_USED] = self.table.used
        ran, rng = self.kernels.uct(
            self.game.consts, root, *self.tree.arrays(), *self.table.arrays(), self.counters,
            depth_hist, self.fparams, self.iparams, self.pol, self.ptab, self.pf, self.pstat,
            self.qstats, n, self.rng,
        )  # fmt: skip
        self.rng = as_state(rng)
        self.tree.used = int(self.counters[template.C_USED])
        self.table.used = int(self.counters[template.C_TT_USED])
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
        self.pstat[:] = 0.0  # PoolRAVE's root AMAF and QBR's statistics are per search;
        self.qstats[:] = 0.0  # the LGRF table is kept for the game
        hist = np.zeros(self.game.spec.max_game_length + 1, dtype=np.int64)
        ran = run_budget(lambda n: self.run(root, n, hist), budget, start)
        proven = int(self.counters[template.C_ROOT_PROVEN]) if self.solver else 0
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

    def principal_variation(self) -> list[int]:
        """From the root, the actions of the most-visited visited child at each level."""
        tree = self.tree
        pv: list[int] = []
        node = ROOT
        while True:
            kids = tree.children(node)
            if not kids:
                return pv
            node = max(kids, key=lambda i: int(tree.visits[i]))
            if tree.visits[node] == 0:
                return pv
            pv.append(int(tree.action[node]))
