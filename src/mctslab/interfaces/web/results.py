"""Browsing the results folder in the web app: results databases, experiment reports and plots,
and replays of stored games.

Everything is read from one folder (``mctslab serve --results DIR``): the results databases
(``*.sqlite``, :mod:`mctslab.harness.store`), the experiment reports (``*.md``, rendered to HTML by
markdown-it-py with raw HTML off) and their plots (``*.png``). A name in a URL must be a plain file
name of that folder (no ``/``, no leading dot, not a symlink out of it): anything else is a 400.
Databases are checked by the store's own read-only check (not SQLite, another application's,
newer schema, corrupt: refused with its message, status 422) and then opened with
``mode=ro``, so browsing never writes to a file, not even to create an empty one.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from mctslab.errors import MctslabError, SpecError
from mctslab.games.registry import load_game
from mctslab.harness.stats import wilson_interval
from mctslab.harness.store import _JSON_COLUMNS, ResultsStore, StoreError
from mctslab.interfaces.render import state_svg

#: the folder browsed when none is given
DEFAULT_DIR = "results"


class ResultsNotFound(MctslabError):
    """No such database, report, plot, run or game (HTTP 404)."""


class ReadOnlyStore(ResultsStore):
    """A results file opened read-only (``ResultsStore(path, readonly=True)``), with the queries
    the pages need."""

    def __init__(self, path: Path):
        super().__init__(path, readonly=True)

    def summaries(self) -> dict[int, tuple[int, float, int, int]]:
        """Per run id: games, A's score, A's wins, draws."""
        rows = self._con.execute(
            "SELECT run_id, COUNT(*), SUM(score_a), SUM(score_a = 1.0), SUM(score_a = 0.5) "
            "FROM games GROUP BY run_id"
        ).fetchall()
        return {r[0]: (int(r[1]), float(r[2] or 0), int(r[3] or 0), int(r[4] or 0)) for r in rows}

    def game(self, run_id: int, index: int) -> dict | None:
        cur = self._con.execute(
            "SELECT * FROM games WHERE run_id = ? AND game_index = ?", (run_id, index)
        )
        names = [d[0] for d in cur.description]
        values = cur.fetchone()
        if values is None:
            return None
        row = dict(zip(names, values, strict=True))
        for k in _JSON_COLUMNS:
            row[k] = json.loads(row[k])
        return row


class Folder:
    """The browsed folder and the checks on names inside it."""

    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)

    def file(self, name: str, suffix: str) -> Path:
        """The file ``name`` (ending in ``suffix``) of the folder, or a clear error."""
        if (
            not name
            or "/" in name
            or "\\" in name
            or "\x00" in name
            or name.startswith(".")
            or not name.endswith(suffix)
        ):
            raise SpecError(
                f"{name!r} is not a {suffix} file name of the results folder "
                "(a plain name, no folders, no leading dot)"
            )
        root = self.dir.resolve()
        path = self.dir / name
        if not path.resolve().is_relative_to(root):
            raise SpecError(f"{name!r} points outside the results folder")
        if not path.is_file():
            raise ResultsNotFound(f"no {name} in the results folder {self.dir}")
        return path

    def listing(self) -> dict:
        names = sorted(p.name for p in self.dir.iterdir()) if self.dir.is_dir() else []
        plain = [n for n in names if not n.startswith(".") and (self.dir / n).is_file()]
        reports = []
        for n in plain:
            if n.endswith(".md"):
                stem = n[: -len(".md")]
                plots = [p for p in plain if p.endswith(".png") and p.startswith(stem)]
                reports.append({"name": n, "plots": plots})
        return {
            "dir": str(self.dir),
            "exists": self.dir.is_dir(),
            "databases": [
                {"name": n, "bytes": (self.dir / n).stat().st_size}
                for n in plain
                if n.endswith(".sqlite")
            ],
            "reports": reports,
            "plots": [n for n in plain if n.endswith(".png")],
        }

    def open(self, name: str) -> ReadOnlyStore:
        return ReadOnlyStore(self.file(name, ".sqlite"))


def run_rows(store: ReadOnlyStore) -> list[dict]:
    """Per run: agents, games played, A's wins/draws/losses, score, rate and Wilson 95% interval;
    a single-player run (2048, no agent B) stores each game's score as ``score_a``, so it gets
    ``mean_score`` and no rate."""
    summaries = store.summaries()
    out = []
    for run in store.runs():
        n, score, wins, draws = summaries.get(run.id, (0, 0.0, 0, 0))
        row = {
            "id": run.id,
            "label": run.label,
            "games": run.games,
            "agent_a": run.agent_a,
            "agent_b": run.agent_b,
            "seed": run.seed,
            "played": n,
            "score_a": score,
        }
        if run.agent_b:
            lo, hi = wilson_interval(score, n)
            row |= {"wins": wins, "draws": draws, "losses": n - wins - draws}
            row |= {"rate_a": score / n if n else None, "wilson95": [lo, hi]}
        else:
            row |= {"wins": 0, "draws": 0, "losses": 0, "mean_score": score / n if n else None}
            row |= {"rate_a": None, "wilson95": [None, None]}
        out.append(row)
    return out


def game_rows(store: ReadOnlyStore, run_id: int) -> list[dict]:
    return [
        {
            "index": g["game_index"],
            "game": g["game"],
            "players": g["players"],
            "seat_a": g["seat_a"],
            "score_a": g["score_a"],
            "returns": g["returns"],
            "moves": len(g["moves"]),
        }
        for g in store.games(run_id)
    ]


def replay(row: dict, step: int | None) -> dict:
    """The game's move strings and its board after ``step`` moves (default: the end)."""
    moves = row["moves"]
    if step is None:
        step = len(moves)
    if not 0 <= step <= len(moves):
        raise SpecError(f"query parameter 'step' must be 0..{len(moves)}, got {step}")
    state = load_game(row["game"]).new_initial_state()
    words: list[str] = []
    board = state_svg(state) if step == 0 else None
    for i, action in enumerate(moves):
        chance = state.is_chance_node()
        word = state.action_to_string(action)
        words.append(f"({word})" if chance else word)
        state.apply_action(action)
        if i + 1 == step:
            board = state_svg(state)
    return {
        "run": row["run_id"],
        "index": row["game_index"],
        "game": row["game"],
        "players": row["players"],
        "seat_a": row["seat_a"],
        "score_a": row["score_a"],
        "returns": row["returns"],
        "agent_seeds": row["agent_seeds"],
        "chance_seed": row["chance_seed"],
        "mctslab_version": row["mctslab_version"],
        "finished_at": row["finished_at"],
        "moves": words,
        "step": step,
        "board_svg": board,
    }


def render_markdown(text: str) -> str:
    """Markdown to HTML (CommonMark and tables, raw HTML escaped); relative images point to the
    app's plot URL."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for tok in tokens:
        for child in tok.children or []:
            if child.type == "image":
                src = str(child.attrGet("src") or "")
                if src and "/" not in src and ":" not in src:
                    child.attrSet("src", f"/api/results/files/{src}")
    return md.renderer.render(tokens, md.options, {})


def _step(request: Request) -> int | None:
    raw = request.query_params.get("step")
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise SpecError(f"query parameter 'step' must be an integer, got {raw!r}") from None


def routes(results_dir: str | os.PathLike) -> list[Route]:
    folder = Folder(results_dir)

    def with_store(request: Request, fn):
        def work():
            store = folder.open(request.path_params["db"])
            try:
                return fn(store)
            except sqlite3.DatabaseError as exc:
                raise StoreError(
                    f"{request.path_params['db']} is a corrupt results database ({exc})"
                ) from None
            finally:
                store.close()

        return run_in_threadpool(work)

    async def listing(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(folder.listing))

    async def runs(request: Request) -> Response:
        rows = await with_store(request, run_rows)
        return JSONResponse({"database": request.path_params["db"], "runs": rows})

    async def games(request: Request) -> Response:
        run_id = request.path_params["run"]

        def work(store: ReadOnlyStore) -> list[dict]:
            if run_id not in {r.id for r in store.runs()}:
                raise ResultsNotFound(f"no run {run_id} in {request.path_params['db']}")
            return game_rows(store, run_id)

        rows = await with_store(request, work)
        return JSONResponse({"database": request.path_params["db"], "run": run_id, "games": rows})

    async def game(request: Request) -> Response:
        run_id, index = request.path_params["run"], request.path_params["index"]
        step = _step(request)

        def work(store: ReadOnlyStore) -> dict:
            row = store.game(run_id, index)
            if row is None:
                raise ResultsNotFound(
                    f"no game {index} of run {run_id} in {request.path_params['db']}"
                )
            return replay(row, step)

        return JSONResponse(await with_store(request, work))

    async def report(request: Request) -> Response:
        path = folder.file(request.path_params["name"], ".md")
        text = await run_in_threadpool(path.read_text, "utf-8", "replace")
        html = await run_in_threadpool(render_markdown, text)
        return JSONResponse({"name": path.name, "html": html})

    async def plot(request: Request) -> Response:
        return FileResponse(
            folder.file(request.path_params["name"], ".png"), media_type="image/png"
        )

    return [
        Route("/api/results", listing),
        Route("/api/results/reports/{name:path}", report),
        Route("/api/results/files/{name:path}", plot),
        Route("/api/results/{db:path}/runs", runs),
        Route("/api/results/{db:path}/runs/{run:int}/games", games),
        Route("/api/results/{db:path}/games/{run:int}/{index:int}", game),
    ]
