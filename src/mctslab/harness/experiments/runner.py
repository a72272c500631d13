"""Run an experiment's cells into the results database (the report: :mod:`.report`).

Match cells go through :func:`mctslab.harness.schedule.run_match` (each cell is one resumable
run in the database, labelled ``experiment/table/row/column``); memory cells run single searches
from the initial position and record the tree's bytes and nodes
(:class:`~mctslab.search.SearchResult`); score cells (single-player games, 2048) go through
:func:`mctslab.harness.single_player.run_score`, one resumable run per row, and report the tiles
reached, the scores and the time per move.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from mctslab.harness.experiments.spec import (
    Cell,
    Experiment,
    ExperimentError,
    Table,
    missing,
)
from mctslab.harness.game import seed_for
from mctslab.harness.match import MatchResult
from mctslab.harness.schedule import run_match
from mctslab.harness.single_player import ScoreResult, run_score


@dataclass
class CellResult:
    cell: Cell
    match: MatchResult | None = None
    bytes: float = 0.0
    nodes: float = 0.0
    per_n: list[dict] = field(default_factory=list)
    score: ScoreResult | None = None


@dataclass
class TableResult:
    table: Table
    cells: list[CellResult]


def check_available(exp: Experiment) -> None:
    """Raise :class:`ExperimentError` naming what the experiment needs and what is missing."""
    problems = missing(exp)
    if problems:
        needs = f" (it needs {exp.needs})" if exp.needs else ""
        lines = "\n  ".join(problems)
        raise ExperimentError(f"experiment {exp.name} cannot run yet{needs}; missing:\n  {lines}")


def run(
    exp: Experiment,
    store,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    progress: bool = False,
) -> list[TableResult]:
    """Play every cell of ``exp`` (resuming what ``store`` already holds)."""
    check_available(exp)
    run_seed = exp.seed if seed is None else seed
    out = []
    for ti, table in enumerate(exp.tables):
        results = []
        for cell in table.cells:
            label = "/".join(
                x for x in (exp.name, table.title, cell.row_label, cell.col_label) if x
            )
            if exp.kind == "memory":
                results.append(_memory(cell, table.searches, run_seed))
                continue
            short = f"t{ti + 1} {cell.row_label}" + (f" {cell.col_label}" if cell.col_label else "")
            common = {
                "store": store,
                "workers": workers,
                "backend": backend,
                "address": address,
                "progress": progress,
                "label": label,
                "description": short,
            }
            n_games = games or table.games
            if exp.kind == "score":
                sr = run_score(cell.game, cell.a, n_games, run_seed, **common)
                results.append(CellResult(cell, score=sr))
                continue
            m = run_match(
                cell.game, cell.a, cell.b, n_games, run_seed, openings=table.openings, **common
            )
            cr = CellResult(cell, m)
            if table.per_n:
                cr.per_n = per_n_statistics(m.rows)
            results.append(cr)
        out.append(TableResult(table, results))
    return out


def _memory(cell: Cell, searches: int, run_seed: int) -> CellResult:
    import mctslab
    from mctslab.agents import make_agent

    game = mctslab.load_game(cell.game)
    b, n = [], []
    for i in range(searches):
        agent = make_agent(cell.a, game, seed=seed_for(run_seed, i, 0))
        r = agent.search(game.new_initial_state())
        b.append(r.bytes)
        n.append(r.nodes)
    return CellResult(cell, None, statistics.fmean(b), statistics.fmean(n))


def per_n_statistics(rows: list[dict]) -> list[dict]:
    """The Nim report's per-N table for agent A's decisions: counters on the board ``n``,
    popularity (decisions at ``n``), mean convincity (the chosen move's win ratio), mean
    playouts, mean / median / max path (depth at which simulations left the tree)."""
    from mctslab.games import nim_kernels
    from mctslab.harness.game import _load

    by_n: dict[int, list[tuple]] = {}
    for row in rows:
        state = _load(row["game"]).new_initial_state()
        s = row["search_stats"]
        k = 0
        for a in row["moves"]:
            if not state.is_chance_node():
                if state.current_player() == row["seat_a"]:
                    n = int(state.array[nim_kernels.S_COUNTERS])
                    by_n.setdefault(n, []).append(
                        (
                            s["win_ratio"][k],
                            s["simulations"][k],
                            s["depth_mean"][k],
                            s["depth_median"][k],
                            s["depth_max"][k],
                        )
                    )
                k += 1
            state.apply_action(a)
    table = []
    for n in sorted(by_n):
        v = by_n[n]
        table.append(
            {
                "n": n,
                "popularity": len(v),
                "convincity": statistics.fmean(x[0] for x in v),
                "playouts": statistics.fmean(x[1] for x in v),
                "path_mean": statistics.fmean(x[2] for x in v),
                "path_median": statistics.median(x[3] for x in v),
                "path_max": max(x[4] for x in v),
            }
        )
    return table
