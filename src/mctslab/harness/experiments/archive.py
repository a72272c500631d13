"""The committed export of an experiment's database: ``experiments/games/NAME.jsonl.gz``.

A results database (``results/NAME.sqlite``) is not committed (``results/`` is ignored, and
SQLite files do not diff); its export is. One gzipped JSON object a line, in order:

* ``{"type": "run", "games": [...], "a": ..., "b": ..., "seed": ..., "label": ...,
  "openings": ...}`` — a run (one cell of a table), followed by its games;
* ``{"type": "game", ...}`` — one game, every column of the ``games`` table
  (:mod:`mctslab.harness.store`) but ``run_id``: the seeds, the moves, the returns, the
  seconds and search statistics of every move (floats to 4 decimals), the mctslab version that
  played it;
* ``{"type": "memory", ...}`` and ``{"type": "load", ...}`` — the rows of the runner's own
  tables (:data:`mctslab.harness.experiments.runner.DDL`).

:func:`write` makes it from a database (``mctslab experiment run --scale decide`` does after
every run); :func:`read` loads it into a database: an in-memory one that :func:`.runner.collect`
reads like the file (so the report is made the same way from either), or the new
``results/NAME.sqlite`` of a fresh checkout, which the next run then resumes.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mctslab.harness.experiments.runner import DDL
from mctslab.harness.store import ResultsStore

#: where the exports live, relative to the working directory (a checkout's root)
FOLDER = Path("experiments") / "games"
#: decimals kept of every float of a game (:func:`_round`)
DIGITS = 4
_MEMORY = ("label", "searches", "bytes", "nodes")
_LOAD = ("label", "at", "load1", "load5", "load15", "cpus")


def path_for(name: str, folder: Path) -> Path:
    """Where experiment ``name``'s export lives under ``folder`` (``experiments/games``)."""
    return folder / f"{name}.jsonl.gz"


def write(store: ResultsStore, path: Path) -> int:
    """Export every run, game and runner row of ``store`` to ``path``; returns the games."""
    con = store.extension(DDL)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    tmp = path.with_suffix(".tmp")
    # mtime=0: the same games give the same bytes, so an unchanged export does not show in git
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        for run in store.runs():
            (openings,) = con.execute(
                "SELECT openings FROM runs WHERE id = ?", (run.id,)
            ).fetchone()
            head = {"type": "run", "games": run.games, "a": run.agent_a, "b": run.agent_b}
            head |= {"seed": run.seed, "label": run.label, "openings": openings}
            gz.write((json.dumps(head) + "\n").encode())
            for row in store.games(run.id):
                row = {"type": "game", **{k: _round(v) for k, v in row.items() if k != "run_id"}}
                gz.write((json.dumps(row) + "\n").encode())
                n += 1
        for kind, cols, table in (("memory", _MEMORY, "experiment_memory"),
                                  ("load", _LOAD, "experiment_load")):  # fmt: skip
            for r in con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY rowid"):
                gz.write(
                    (json.dumps({"type": kind, **dict(zip(cols, r, strict=True))}) + "\n").encode()
                )
    tmp.replace(path)
    return n


def _round(value):
    """Floats to :data:`DIGITS` decimals (seconds to 0.1 ms, win ratios and depths to 10⁻⁴),
    through lists and dicts: the export is about half the size, and nothing the reports print
    changes."""
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, list):
        return [_round(v) for v in value]
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    return value


def read(path: Path, store: ResultsStore | None = None) -> ResultsStore:
    """A results database holding the export at ``path``: ``store`` (a new database that
    ``mctslab experiment run`` resumes from the export) or an in-memory one."""
    store = store or ResultsStore(":memory:")
    con = store.extension(DDL)
    run_id = None
    with gzip.open(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            kind = row.pop("type")
            if kind == "run":
                run_id = store.run_id(
                    row["games"], row["a"], row["b"], row["seed"], row["label"], row["openings"]
                )
            elif kind == "game":
                store.add_game(run_id, row)
            else:
                cols = _MEMORY if kind == "memory" else _LOAD
                table = f"experiment_{kind}"
                marks = ", ".join("?" * len(cols))
                with con:
                    con.execute(f"INSERT INTO {table} VALUES ({marks})", [row[c] for c in cols])
    return store
