"""Root parallelisation (Cazenave and Jouandeau 2007; Chaslot, Winands, van den Herik 2008):
``workers`` independent UCT searches of the same position with different seeds, one per thread,
each with its own tree; their root statistics are merged and the final move is chosen from the
merged ones.

The compiled search releases the GIL (``nogil=True``), so the threads run on separate cores.
A budget of ``sims`` simulations is split evenly among the workers (the total is ``sims``); a
time budget applies to every worker. Merged per root move: visits summed, mean win value
weighted by visits. Tree reuse works per worker (each keeps its own tree).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from mctslab.games.base import Game, State
from mctslab.search.budget import Budget
from mctslab.search.options import UctConfig
from mctslab.search.result import SearchResult
from mctslab.search.tree import PROVEN_LOSS, PROVEN_WIN
from mctslab.search.uct import Uct


class RootParallel:
    """``workers`` :class:`Uct` searches run side by side; the API of :class:`Uct`."""

    def __init__(self, game: Game, config: UctConfig, seed: int, workers: int):
        self.config = config
        self.workers = [Uct(game, config, seed + 7919 * i) for i in range(workers)]
        self._pool = ThreadPoolExecutor(max_workers=workers)

    @property
    def tree(self):
        """The first worker's tree (for viewers; the others are alike in shape)."""
        return self.workers[0].tree

    def reset(self) -> None:
        for w in self.workers:
            w.reset()

    def search(self, state: State, budget: Budget) -> SearchResult:
        start = time.perf_counter()
        k = len(self.workers)
        sims = budget.sims
        shares = [None] * k if sims is None else [sims // k + (i < sims % k) for i in range(k)]
        futures = [
            self._pool.submit(w.search, state, replace(budget, sims=max(1, s) if s else None))
            for w, s in zip(self.workers, shares, strict=True)
        ]
        results = [f.result() for f in futures]
        return merge(results, self.config.final, time.perf_counter() - start)


def merge(results: list[SearchResult], final: str, elapsed: float) -> SearchResult:
    """One result from several root-parallel ones (see the module doc)."""
    actions = sorted({a for r in results for a in r.actions})
    index = {a: i for i, a in enumerate(actions)}
    visits = np.zeros(len(actions), dtype=np.int64)
    wins = np.zeros(len(actions), dtype=np.float64)
    for r in results:
        for a, n, v in zip(r.actions, r.visits, r.values, strict=True):
            visits[index[a]] += n
            wins[index[a]] += n * v
    values = np.divide(wins, visits, out=np.zeros_like(wins), where=visits > 0)
    proven = next((r.proven for r in results if r.proven == PROVEN_WIN), 0)
    if proven == PROVEN_WIN:
        action = next(r.action for r in results if r.proven == PROVEN_WIN)
    elif all(r.proven == PROVEN_LOSS for r in results):
        proven, action = PROVEN_LOSS, results[0].action
    elif final == "robust":
        order = np.lexsort((-values, -visits))
        action = actions[int(order[0])]
    else:
        masked = np.where(visits > 0, values, -np.inf)
        action = actions[int(np.lexsort((-visits, -masked))[0])]
    sims = sum(r.simulations for r in results)
    chosen = index[action]
    best = max(results, key=lambda r: r.simulations)
    return SearchResult(
        action=action,
        actions=actions,
        visits=[int(v) for v in visits],
        values=[float(v) for v in values],
        pv=best.pv,
        simulations=sims,
        elapsed=elapsed,
        sims_per_second=sims / elapsed if elapsed > 0 else 0.0,
        nodes=sum(r.nodes for r in results),
        slots=sum(r.slots for r in results),
        bytes=sum(r.bytes for r in results),
        bytes_per_node=results[0].bytes_per_node,
        depth_mean=float(np.mean([r.depth_mean for r in results])),
        depth_median=float(np.median([r.depth_median for r in results])),
        depth_max=max(r.depth_max for r in results),
        win_ratio=float(values[chosen]),
        reused_fraction=float(np.mean([r.reused_fraction for r in results])),
        proven=proven,
        proven_positions=max(r.proven_positions for r in results),
    )
