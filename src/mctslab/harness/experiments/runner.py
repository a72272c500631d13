"""Run an experiment's cells into the results database (the report: :mod:`.report`).

Match cells go through :func:`mctslab.harness.schedule.run_match` (each cell is one resumable
run in the database, labelled ``experiment/table/row/column``); memory cells run single searches
from the initial position and record the tree's bytes and nodes
(:class:`~mctslab.search.SearchResult`); score cells (single-player games, 2048) go through
:func:`mctslab.harness.single_player.run_score`, one resumable run per row, and report the tiles
reached, the scores and the time per move.

Beside the games, the runner keeps two tables of its own in the database
(:meth:`~mctslab.harness.store.ResultsStore.extension`): ``experiment_memory`` (a memory cell's
mean bytes and nodes, so that the report reads them instead of searching again) and
``experiment_load`` (the machine's load averages, ``os.getloadavg()``, sampled every
:data:`LOAD_EVERY` seconds while a cell with a time budget plays, so a timed table says how busy
the machine was). :func:`collect` rebuilds every cell from the database without playing.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from dataclasses import dataclass, field

from mctslab.harness.experiments.spec import (
    Cell,
    Experiment,
    ExperimentError,
    Table,
    missing,
)
from mctslab.harness.game import seed_for
from mctslab.harness.match import MatchResult, summarise_scores
from mctslab.harness.schedule import run_match
from mctslab.harness.single_player import ScoreResult, from_row, run_score
from mctslab.harness.store import run_key

#: seconds between two load samples while a timed cell plays
LOAD_EVERY = 30.0
#: the runner's own tables beside the games
DDL = """
CREATE TABLE IF NOT EXISTS experiment_memory (
    label TEXT PRIMARY KEY, searches INTEGER NOT NULL, bytes REAL NOT NULL, nodes REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS experiment_load (
    label TEXT NOT NULL, at TEXT NOT NULL, load1 REAL NOT NULL, load5 REAL NOT NULL,
    load15 REAL NOT NULL, cpus INTEGER NOT NULL
);
"""


@dataclass
class CellResult:
    cell: Cell
    match: MatchResult | None = None
    bytes: float = 0.0
    nodes: float = 0.0
    per_n: list[dict] = field(default_factory=list)
    score: ScoreResult | None = None
    #: load samples ``(load1, load5, load15, cpus)`` taken while the cell played (timed cells)
    load: list[tuple] = field(default_factory=list)


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
    con = store.extension(DDL)
    out = []
    for ti, table in enumerate(exp.tables):
        results = []
        for cell in table.cells:
            label = cell_label(exp, table, cell)
            if exp.kind == "memory":
                cr = _memory(cell, table.searches, run_seed)
                with con:
                    con.execute(
                        "INSERT OR REPLACE INTO experiment_memory VALUES (?, ?, ?, ?)",
                        (label, table.searches, cr.bytes, cr.nodes),
                    )
                results.append(cr)
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
            with _LoadSampler(con, label, timed(cell)):
                m = run_match(
                    cell.game, cell.a, cell.b, n_games, run_seed, openings=table.openings, **common
                )
            cr = CellResult(cell, m, load=_loads(con, label))
            if table.per_n:
                cr.per_n = per_n_statistics(m.rows)
            results.append(cr)
        out.append(TableResult(table, results))
    return out


def cell_label(exp: Experiment, table: Table, cell: Cell) -> str:
    """A cell's run label: ``experiment/table/row/column``."""
    return "/".join(x for x in (exp.name, table.title, cell.row_label, cell.col_label) if x)


def timed(cell: Cell) -> bool:
    """True when an agent of the cell has a time budget (``time=`` in its spec)."""
    return any("time=" in spec for spec in (cell.a, cell.b))


class _LoadSampler:
    """Samples ``os.getloadavg()`` every :data:`LOAD_EVERY` seconds on a thread while a timed
    cell plays, and stores the samples when it ends (also when interrupted)."""

    def __init__(self, con, label: str, on: bool):
        self.con, self.label, self.on = con, label, on
        self.samples: list[tuple] = []
        self.stop = threading.Event()

    def _sample(self) -> None:
        self.samples.append(
            (time.strftime("%Y-%m-%dT%H:%M:%S%z"), *os.getloadavg(), os.cpu_count() or 1)
        )

    def _loop(self) -> None:
        while not self.stop.wait(LOAD_EVERY):
            self._sample()

    def __enter__(self):
        if self.on:
            self._sample()
            self.thread = threading.Thread(target=self._loop, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if not self.on:
            return
        self.stop.set()
        self.thread.join()
        self._sample()
        with self.con:
            self.con.executemany(
                "INSERT INTO experiment_load VALUES (?, ?, ?, ?, ?, ?)",
                [(self.label, *x) for x in self.samples],
            )


def _loads(con, label: str) -> list[tuple]:
    sql = "SELECT load1, load5, load15, cpus FROM experiment_load WHERE label = ? ORDER BY at"
    return [tuple(r) for r in con.execute(sql, (label,))]


def collect(exp: Experiment, store, *, seed: int | None = None) -> list[TableResult]:
    """Every cell of ``exp`` as the database holds it, playing nothing and writing nothing: a
    match cell's first ``table.games`` stored games (fewer while the run is unfinished; none if
    it never started), a memory cell's stored figures (0 bytes if not run)."""
    from mctslab.harness.schedule import canonical_specs

    run_seed = exp.seed if seed is None else seed
    runs = {run_key(r.games, r.agent_a, r.agent_b, r.seed): r.id for r in store.runs()}
    con = store.extension("")  # the connection; an empty script changes nothing
    sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    tables = {r[0] for r in con.execute(sql)}
    memory = {}
    if "experiment_memory" in tables:
        sql = "SELECT label, bytes, nodes FROM experiment_memory"
        memory = {r[0]: r[1:] for r in con.execute(sql)}
    out = []
    for table in exp.tables:
        results = []
        for cell in table.cells:
            label = cell_label(exp, table, cell)
            if exp.kind == "memory":
                b, n = memory.get(label, (0.0, 0.0))
                results.append(CellResult(cell, None, b, n))
                continue
            names, a, b = canonical_specs(cell.game, cell.a, cell.b)
            run_id = runs.get(run_key(names, a, b, run_seed))
            rows = list(store.games(run_id)) if run_id is not None else []
            rows = [r for r in rows if r["game_index"] < table.games]
            if exp.kind == "score":
                sr = ScoreResult(a, names[0], [from_row(r) for r in rows], len(rows), run_id or 0)
                results.append(CellResult(cell, score=sr))
                continue
            summary = summarise_scores([r["score_a"] for r in rows])
            load = _loads(con, label) if "experiment_load" in tables else []
            cr = CellResult(cell, MatchResult(summary, len(rows), rows, None, run_id), load=load)
            if table.per_n:
                cr.per_n = per_n_statistics(rows)
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
