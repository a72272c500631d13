"""The book's MDP Monte Carlo tree search (Algorithms 9.6 and 9.7) behind the ``mdp`` agent:
configuration, the state-keyed statistics kept between moves, the budget loop. The compiled part
is :func:`mctslab.search.mdp_template.mdp_search`, whose docstring gives the algorithm."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import numpy as np

from mctslab.errors import MctslabError, SpecError
from mctslab.games.base import Game, State
from mctslab.games.contract import provides
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search import mdp_template as tpl
from mctslab.search.budget import Budget, run_budget
from mctslab.search.result import SearchResult, depth_summary, first_decision_state
from mctslab.search.solve_template import zobrist_table
from mctslab.search.transpositions import SEED

LEAVES = {
    "rollout": tpl.LEAF_ROLLOUT,
    "zero": tpl.LEAF_ZERO,
    "heuristic": tpl.LEAF_HEURISTIC,
    "network": tpl.LEAF_NETWORK,
}
#: the rollout policy every game has: the contract's uniform ``random_playout``
RANDOM_ROLLOUT = "random"
C_SCALES = {"absolute": tpl.C_ABSOLUTE, "best": tpl.C_BEST}
_MASK32 = np.uint64(0xFFFFFFFF)


@dataclass(frozen=True)
class MdpConfig:
    """One MDP MCTS (see :mod:`mctslab.search.mdp_template`). Defaults are the book's 2048
    example (Example 9.3): depth ``d = 10``, exploration ``c = 100``, a 10-step random rollout,
    ``γ = 1``.

    ``c`` is in reward units (2048's rewards are tile values, so 100 is a few merges).
    ``rollout_depth = 0`` rolls out to the end of the game.
    ``h_weight`` scales the game's heuristic when ``leaf = "heuristic"``. ``reuse`` keeps
    ``N`` and ``Q`` between the searches of a game, as the book's policy object does (its
    dictionaries live as long as the policy); the table is cleared when it is half full at the
    start of a search. ``max_states`` is the table's slot count (rounded up to a power of two);
    each slot costs ``8 + 12 · num_actions`` bytes, paged in only where used.

    Additions to the book (opt-in; the defaults are the book's algorithm):
    ``rollout`` = ``random`` (the book's uniform rollout) or a name of the game's rollout policy
    table (its ``ROLLOUT_POLICIES`` hook, :mod:`mctslab.games.contract`): the policy of a rollout
    to the end (needs ``leaf = "rollout"``, ``rollout_depth = 0``, ``γ = 1``), played by the
    game's ``policy_playout`` kernel. 2048's table: ``greedy`` plays a move of the largest
    merge reward (ties at random), ``corner`` left or down when either is legal, else right,
    else up, ``greedy_corner`` the largest merge reward with ties broken as ``corner`` does,
    ``heuristic`` the largest merge reward plus the line heuristic of the board it leaves (the
    expectimax agent's evaluation, one ply, no chance). ``eps`` is the share of uniformly random
    moves in such a rollout.
    ``c_scale = "best"`` explores with ``c · max_b |Q(s, b)|`` over the node's visited actions
    instead of ``c`` (``c`` then a share of the node's value, not reward units).
    ``leaf = "heuristic"`` and ``leaf = "network"`` need the game's ``heuristic_value`` and
    ``network_value`` kernels; the network is the game's ``load_network(network)`` (2048's
    n-tuple network, ``network`` its file, default where ``mctslab train 2048`` puts it, else
    the one shipped with the package).
    """

    d: int = 10
    c: float = 100.0
    gamma: float = 1.0
    leaf: Literal["rollout", "zero", "heuristic", "network"] = "rollout"
    rollout_depth: int = 10
    h_weight: float = 1.0
    open_loop: bool = False
    reuse: bool = True
    max_states: int = 1 << 19
    rollout: str = RANDOM_ROLLOUT
    c_scale: Literal["absolute", "best"] = "absolute"
    eps: float = 0.0
    network: str | None = None


def rollout_policies(game: Game) -> dict[str, int]:
    """The rollout policies of a game, name -> the id the template passes to its
    ``policy_playout`` kernel: ``random`` (0, the uniform ``random_playout``), then the game's
    ``ROLLOUT_POLICIES`` table (:mod:`mctslab.games.contract`)."""
    table = getattr(game, "ROLLOUT_POLICIES", None) or {}
    return {RANDOM_ROLLOUT: 0, **table} if provides(game, "policy_playout") else {RANDOM_ROLLOUT: 0}


class Mdp:
    """MDP MCTS for one single-player game."""

    def __init__(self, game: Game, config: MdpConfig, seed: int):
        spec = game.spec
        if spec.num_players != 1:
            raise SpecError(
                f"agent mdp: the book's MDP search needs a single-player game (one reward "
                f"stream); {spec.spec_string} has {spec.num_players} players"
            )
        if config.leaf == "heuristic" and not provides(game, "heuristic_value"):
            raise SpecError(
                f"agent mdp: leaf=heuristic needs a heuristic_value kernel, which "
                f"{spec.name} lacks; allowed here: leaf=rollout|zero"
            )
        if config.leaf == "network" and not provides(game, "network_value"):
            raise SpecError(
                f"agent mdp: leaf=network needs a trained network for the game, which "
                f"{spec.name} lacks; allowed here: leaf=rollout|zero|heuristic"
            )
        if config.network is not None and config.leaf != "network":
            raise SpecError("agent mdp: network is the file of leaf=network")
        if config.c_scale not in C_SCALES:
            raise SpecError(
                f"agent mdp: unknown c_scale={config.c_scale!r}; allowed: {'|'.join(C_SCALES)}"
            )
        rollouts = rollout_policies(game)
        if config.rollout != RANDOM_ROLLOUT:
            if len(rollouts) == 1:
                raise SpecError(
                    f"agent mdp: rollout={config.rollout} needs a rollout policy table and a "
                    f"policy_playout kernel, which {spec.name} lacks; allowed here: rollout=random"
                )
            if config.rollout not in rollouts:
                raise SpecError(
                    f"agent mdp: unknown rollout={config.rollout!r}; allowed: {'|'.join(rollouts)}"
                )
            if config.leaf != "rollout" or config.rollout_depth != 0 or config.gamma != 1.0:
                raise SpecError(
                    f"agent mdp: rollout={config.rollout} plays to the end of the game: it needs "
                    "leaf=rollout, rollout_depth=0 and gamma=1"
                )
        elif config.eps != 0.0:
            policies = "|".join(list(rollouts)[1:]) or f"none for {spec.name}"
            raise SpecError(
                f"agent mdp: eps is the random share of a policy rollout (rollout={policies})"
            )
        if not 0.0 <= config.eps <= 1.0:
            raise SpecError(f"agent mdp: eps must be in [0, 1], got {config.eps}")
        self.game = game
        self.config = config
        self.kernels = codegen.specialize(tpl, game.kernels)
        slots = 1 << max(4, int(config.max_states - 1).bit_length())
        na = spec.num_distinct_actions
        self.keys = np.zeros(slots, dtype=np.uint64)
        self.visits = np.zeros((slots, na), dtype=np.int32)
        self.qvalues = np.zeros((slots, na), dtype=np.float64)
        self.bytes_per_state = 8 + 12 * na
        a = zobrist_table(spec.state_size, seed_state(SEED))
        self.mult = np.stack([a & _MASK32, a >> np.uint64(32)])
        self.counters = np.zeros(tpl.N_COUNTERS, dtype=np.int64)
        self.fparams = np.array(
            [config.c, config.gamma, config.h_weight, config.eps], dtype=np.float64
        )
        self.iparams = np.zeros(tpl.N_IPARAMS, dtype=np.int64)
        self.iparams[tpl.P_DEPTH] = config.d
        self.iparams[tpl.P_LEAF] = LEAVES[config.leaf]
        self.iparams[tpl.P_ROLLOUT_DEPTH] = config.rollout_depth
        self.iparams[tpl.P_OPEN_LOOP] = int(config.open_loop)
        self.iparams[tpl.P_NUM_ACTIONS] = na
        self.iparams[tpl.P_NUM_CHANCE] = spec.num_chance_outcomes
        self.iparams[tpl.P_MAX_LENGTH] = spec.max_game_length
        self.iparams[tpl.P_ROLLOUT_POLICY] = rollouts[config.rollout]
        self.iparams[tpl.P_C_SCALE] = C_SCALES[config.c_scale]
        if config.leaf == "network":
            self.net_w, self.net_fs = game.load_network(config.network)
        else:  # unused by the kernel
            self.net_w = np.zeros((1, 1), dtype=np.float32)
            self.net_fs = np.zeros((1, 1), dtype=np.uint64)
        self.rng = seed_state(seed)
        state = first_decision_state(game)
        if state is not None:  # load (or compile) the kernels now, not in the first timed search
            self._run(state.array, 1, np.zeros(config.d + 2, dtype=np.int64))
            self.kernels.root_slot(state.array, self.keys, self.mult, self.counters)
            self.reset()

    def reset(self) -> None:
        """Forget every statistic."""
        if self.counters[tpl.C_USED]:
            self.keys[:] = 0
            self.visits[:] = 0
            self.qvalues[:] = 0.0
        self.counters[:] = 0

    def _run(self, root: np.ndarray, n: int, hist: np.ndarray) -> int:
        args = (self.game.consts, root, self.keys, self.visits, self.qvalues, self.mult)
        rng = self.kernels.mdp_search(
            *args, self.counters, hist, self.fparams, self.iparams, n, self.rng, self.net_w,
            self.net_fs,
        )  # fmt: skip
        self.rng = as_state(rng)
        return n

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Algorithm 9.6 from ``state`` until the ``budget`` is spent; the move is
        ``argmax_a Q(s, a)`` (the first best among the legal actions, as in the book)."""
        start = time.perf_counter()
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        if not self.config.reuse or 2 * self.counters[tpl.C_USED] > self.keys.shape[0]:
            self.reset()
        root = state.array.copy()
        hist = np.zeros(self.config.d + 2, dtype=np.int64)
        ran = run_budget(lambda n: self._run(root, n, hist), budget, start)
        slot = self.kernels.root_slot(root, self.keys, self.mult, self.counters)
        visits = [int(self.visits[slot, a]) if slot >= 0 else 0 for a in moves]
        values = [float(self.qvalues[slot, a]) if slot >= 0 else 0.0 for a in moves]
        best = int(np.argmax(values))
        elapsed = time.perf_counter() - start
        mean, median, deepest = depth_summary(hist)
        used = int(self.counters[tpl.C_USED])
        return SearchResult(
            action=moves[best],
            actions=moves,
            visits=visits,
            values=values,
            pv=[moves[best]],
            simulations=ran,
            elapsed=elapsed,
            sims_per_second=ran / elapsed if elapsed > 0 else 0.0,
            nodes=used,
            slots=int(self.keys.shape[0]),
            bytes=used * self.bytes_per_state,
            bytes_per_node=self.bytes_per_state,
            depth_mean=mean,
            depth_median=median,
            depth_max=deepest,
            win_ratio=values[best],
        )
