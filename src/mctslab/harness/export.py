"""Exports of a results database: CSV, JSON lines, and PGN result lines for Ordo / BayesElo.

Each exporter writes to an open text file and returns the number of games written.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TextIO

from mctslab.harness.store import ResultsStore

CSV_COLUMNS = (
    "run_id",
    "label",
    "game_index",
    "game",
    "agent_a",
    "agent_b",
    "seat_a",
    "player0",
    "player1",
    "score_a",
    "returns",
    "moves",
    "seconds",
    "finished_at",
)


def _games(store: ResultsStore, run_id: int | None):
    runs = {r.id: r for r in store.runs()}
    for g in store.games(run_id):
        yield runs[g["run_id"]], g


def export_jsonl(store: ResultsStore, f: TextIO, run_id: int | None = None) -> int:
    """One JSON object per game: every stored column plus the run's label and agents."""
    n = 0
    for run, g in _games(store, run_id):
        f.write(
            json.dumps(
                {
                    "label": run.label,
                    "agent_a": run.agent_a,
                    "agent_b": run.agent_b,
                    "run_seed": run.seed,
                    **g,
                }
            )
            + "\n"
        )
        n += 1
    return n


def export_csv(store: ResultsStore, f: TextIO, run_id: int | None = None) -> int:
    """One row per game (:data:`CSV_COLUMNS`); ``moves`` are action indices separated by spaces,
    ``seconds`` the total thinking time of both players. A single-player game (2048) has an empty
    ``player1`` and its score as ``score_a``."""
    w = csv.writer(f)
    w.writerow(CSV_COLUMNS)
    n = 0
    for run, g in _games(store, run_id):
        w.writerow(
            [
                g["run_id"],
                run.label,
                g["game_index"],
                g["game"],
                run.agent_a,
                run.agent_b,
                g["seat_a"],
                g["players"][0],
                g["players"][1] if len(g["players"]) > 1 else "",
                g["score_a"],
                " ".join(f"{r:g}" for r in g["returns"]),
                " ".join(map(str, g["moves"])),
                f"{sum(g['move_seconds']):.4f}",
                g["finished_at"],
            ]
        )
        n += 1
    return n


def _tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def pgn_result(returns: list[float]) -> str:
    """``1-0`` when player 0 has the better return, ``0-1`` when player 1 has, else ``1/2-1/2``."""
    if returns[0] > returns[1]:
        return "1-0"
    if returns[1] > returns[0]:
        return "0-1"
    return "1/2-1/2"


def export_pgn(store: ResultsStore, f: TextIO, run_id: int | None = None) -> int:
    """A PGN game without moves per stored game, which Ordo (``ordo -p FILE``) and BayesElo
    (``readpgn FILE``) read: ``White`` is player 0, the side that moves first (Black in NoGo, Go
    and Hex), ``Black`` player 1; ``Result`` from the returns. Single-player games (2048) have no
    result between two players and are left out."""
    n = 0
    for run, g in _games(store, run_id):
        if len(g["players"]) < 2:
            continue
        result = pgn_result(g["returns"])
        f.write(
            f'[Event "{_tag(run.label or f"mctslab run {run.id}")}"]\n'
            f'[Site "{_tag(g["game"])}"]\n'
            f'[Round "{g["game_index"] + 1}"]\n'
            f'[White "{_tag(g["players"][0])}"]\n'
            f'[Black "{_tag(g["players"][1])}"]\n'
            f'[Result "{result}"]\n\n{result}\n\n'
        )
        n += 1
    return n


EXPORTERS = {"csv": export_csv, "jsonl": export_jsonl, "pgn": export_pgn}


def export_sgf(store: ResultsStore, directory: Path, run_id: int | None = None) -> tuple[int, int]:
    """One SGF file per stored board game (Go, NoGo, Hex) in ``directory``, named
    ``run<id>-game<index>.sgf``, with the agents as player names and the run label as the event.
    Games SGF has no notation for (Nim, 2048) are skipped. Returns ``(written, skipped)``."""
    from mctslab.games import load_game
    from mctslab.harness.sgf import SGF_GAMES, write_sgf

    directory.mkdir(parents=True, exist_ok=True)
    written = skipped = 0
    games = {}
    for run, g in _games(store, run_id):
        game = games.setdefault(g["game"], load_game(g["game"]))
        if game.spec.name not in SGF_GAMES:
            skipped += 1
            continue
        text = write_sgf(
            game,
            g["moves"],
            black=g["players"][0],
            white=g["players"][1],
            event=run.label or f"mctslab run {run.id}",
            date=g["finished_at"][:10],
        )
        (directory / f"run{g['run_id']}-game{g['game_index']}.sgf").write_text(text)
        written += 1
    return written, skipped
