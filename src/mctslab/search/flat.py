"""Flat Monte Carlo (Abramson 1990; the slides' first method): uniform random playouts after
each root move in turn, then the move with the best mean. The compiled part is
:func:`mctslab.search.flat_template.flat`, specialised per game."""

from __future__ import annotations

import time

import numpy as np

from mctslab.errors import MctslabError
from mctslab.games.base import Game, State
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search import flat_template
from mctslab.search.budget import Budget, run_budget
from mctslab.search.options import UctConfig
from mctslab.search.result import SearchResult, first_decision_state
from mctslab.search.uct import uct_params


class Flat:
    """Flat Monte Carlo for one game."""

    def __init__(self, game: Game, seed: int):
        self.game = game
        self.kernels = codegen.specialize(flat_template, game.kernels)
        #: the UCT record (only ``lo``, ``span``, ``num_players`` and ``max_length`` are read)
        self.params = uct_params(UctConfig(), game.spec, solver=False, chance_tree=False)
        self.rng = seed_state(seed)
        state = first_decision_state(game)
        if state is not None:  # load (or compile) the kernel now, not in the first timed search
            self._run(
                state.array,
                np.array(state.legal_actions(), dtype=np.int32),
                0,
                1,
                np.zeros(1, np.int64),
                np.zeros(1, np.float64),
                self.rng,
            )

    def _run(self, root, legal, start, n, visits, values, rng):
        return as_state(
            self.kernels.flat(
                self.game.consts,
                root,
                legal,
                len(legal),
                visits,
                values,
                start,
                n,
                self.params,
                rng,
            )
        )

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Round-robin playouts over the root moves; the move with the best mean win value
        (ties: more playouts, then the lower action)."""
        start = time.perf_counter()
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        legal = np.array(moves, dtype=np.int32)
        visits = np.zeros(len(moves), dtype=np.int64)
        values = np.zeros(len(moves), dtype=np.float64)
        root = state.array.copy()
        done = 0

        def run(n: int) -> int:
            nonlocal done
            self.rng = self._run(root, legal, done, n, visits, values, self.rng)
            done += n
            return n

        ran = run_budget(run, budget, start)
        best = int(np.lexsort((-visits, -np.where(visits > 0, values, -np.inf)))[0])
        elapsed = time.perf_counter() - start
        return SearchResult(
            action=moves[best],
            actions=moves,
            visits=[int(v) for v in visits],
            values=[float(v) for v in values],
            pv=[moves[best]],
            simulations=ran,
            elapsed=elapsed,
            sims_per_second=ran / elapsed if elapsed > 0 else 0.0,
            depth_max=1,
            depth_mean=1.0,
            depth_median=1.0,
            win_ratio=float(values[best]),
        )
