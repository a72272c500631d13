"""The results database: one SQLite file, one row per finished game with all it takes to replay it.

Layout (schema version :data:`SCHEMA_VERSION`; ``PRAGMA application_id`` marks the file as
mctslab's, ``PRAGMA user_version`` holds the schema version):

- ``runs``: one row per match identity (the game specs a pair may be drawn from, the two agent
  specs in canonical form, the run seed) — the same command finds the same run again — and the
  run's openings (:mod:`mctslab.harness.openings`; a JSON list of move lists, ``''`` for none):
  the same match with other openings is refused rather than mixed into the run.
- ``games``: primary key ``(run_id, game_index)``; the game spec actually played, A's seat, the
  agent specs and seeds by seat, the chance seed, the whole history (actions and chance outcomes),
  per-player returns, A's score (1, ½, 0), seconds per move, per-move search statistics, the
  mctslab version, the finishing time, and the opening's actions (``opening``, JSON; the first
  moves of the history, played before the agents' first decision). ``INSERT OR IGNORE`` on the
  key means a game can never be stored twice.
- A single-player run (2048, :mod:`mctslab.harness.single_player`) has an empty ``agent_b``; its
games
  have one player and one agent seed, A's seat is 0 and ``score_a`` is the game's return (the
  score), not a result against B.
- A harness module may keep its own tables beside these (:meth:`ResultsStore.extension`): the
  tuner's ``tune`` and ``tune_steps`` (:mod:`mctslab.harness.tune`).

Schema 2 added ``runs.openings`` and ``games.opening``; a schema-1 file is upgraded in place
when opened (the two columns are added with their empty defaults), after which an mctslab that
only knows schema 1 refuses it as newer.

Every game is committed on its own in WAL mode, so a run killed (Ctrl-C, ``kill -9``) loses only
the games in flight, and rerunning the same command resumes. A file that is not an SQLite
database, or is one from another application, a newer schema, or fails ``PRAGMA quick_check``,
is refused with :class:`StoreError` before anything is written to it. SQLite's WAL needs a local
file system (not NFS).

A store opened to write checks at once that it can (one write, rolled back), so a read-only file
or folder is refused before a game is played, not after it. A store opened with
``readonly=True`` (``mctslab results show``/``export``, the web app's results pages) never
changes the file, not even an empty one: it opens it with SQLite's ``mode=ro``, after the
read-only integrity check, and refuses a missing or empty (0-byte) file. Reading a WAL-mode
file with plain ``mode=ro`` would leave an ``-shm`` and an empty ``-wal`` file beside it (SQLite
needs the shared-memory index to read a WAL, and a read-only connection cannot remove it), so
a file with no ``-wal`` or ``-journal`` beside it (no writer has it open, nothing left to
recover) is read with ``immutable=1`` as well, which reads the file alone; a file a match is
still writing (its ``-wal`` is there) is read through the WAL, seeing every game committed so
far, and the sidecar files it finds are the writer's (:func:`_readonly_uri`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mctslab.errors import MctslabError

SCHEMA_VERSION = 2
#: ``PRAGMA application_id`` of an mctslab results file: the bytes "MCTL"
APPLICATION_ID = 0x4D43544C
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    games TEXT NOT NULL,
    agent_a TEXT NOT NULL,
    agent_b TEXT NOT NULL,
    seed INTEGER NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    openings TEXT NOT NULL DEFAULT ''
);
CREATE TABLE games (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    game_index INTEGER NOT NULL,
    game TEXT NOT NULL,
    seat_a INTEGER NOT NULL,
    players TEXT NOT NULL,
    agent_seeds TEXT NOT NULL,
    chance_seed INTEGER NOT NULL,
    moves TEXT NOT NULL,
    returns TEXT NOT NULL,
    score_a REAL NOT NULL,
    move_seconds TEXT NOT NULL,
    search_stats TEXT NOT NULL,
    mctslab_version TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    opening TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (run_id, game_index)
);
"""

#: what upgrades a schema-1 file to schema 2
_UPGRADE_1_TO_2 = """
ALTER TABLE runs ADD COLUMN openings TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT '[]';
UPDATE meta SET value = '2' WHERE key = 'schema_version';
PRAGMA user_version = 2;
"""

#: columns of ``games`` holding JSON
_JSON_COLUMNS = (
    "players",
    "agent_seeds",
    "moves",
    "returns",
    "move_seconds",
    "search_stats",
    "opening",
)


class StoreError(MctslabError):
    """The results file cannot be used (corrupt, foreign, newer schema); it was not modified."""


@dataclass(frozen=True)
class Run:
    id: int
    games: list[str]
    agent_a: str
    agent_b: str
    seed: int
    label: str


def run_key(games: list[str], agent_a: str, agent_b: str, seed: int) -> str:
    """The identity of a match: the same command (canonical specs) gives the same key."""
    return json.dumps({"games": games, "a": agent_a, "b": agent_b, "seed": seed}, sort_keys=True)


def _readonly_uri(path: Path) -> str:
    """The URI that opens ``path`` read-only without creating files beside it (module doc):
    ``mode=ro``, plus ``immutable=1`` when there is neither a ``-wal`` nor a ``-journal``
    beside it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    sidecars = (path.with_name(path.name + suffix) for suffix in ("-wal", "-journal"))
    if not any(p.exists() for p in sidecars):
        uri += "&immutable=1"
    return uri


def _check_existing(path: Path) -> None:
    """Refuse a file that is not an intact mctslab results database, reading only."""
    with path.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        raise StoreError(
            f"{path} is not an SQLite database (it does not start with the SQLite header); "
            "mctslab will not use or overwrite it — pass another --db file"
        )
    try:
        con = sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path} cannot be opened: {exc}") from None
    try:
        app = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if app != APPLICATION_ID:
            raise StoreError(
                f"{path} is an SQLite database of another application (application_id {app:#x}, "
                f"mctslab's is {APPLICATION_ID:#x}); mctslab will not use or overwrite it"
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has results schema version {version}, newer than this mctslab's "
                f"{SCHEMA_VERSION}; upgrade mctslab to read it"
            )
        check = con.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            detail = "; ".join(str(r[0]) for r in check[:3])
            raise StoreError(f"{path} is a corrupt results database ({detail}); it was left as is")
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path} is a corrupt results database ({exc}); it was left as is"
        ) from None
    finally:
        con.close()


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to an existing results file (see the module's docstring)."""
    if not path.is_file():
        raise StoreError(f"no results database at {path}")
    if path.stat().st_size == 0:
        raise StoreError(f"{path} is empty (0 bytes): no results stored in it yet")
    _check_existing(path)
    try:
        return sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path} cannot be opened read-only: {exc}") from None


class ResultsStore:
    """One results file (or ``":memory:"``). Use as a context manager or call :meth:`close`.
    ``readonly``: only read an existing file, never change it."""

    def __init__(self, path: str | os.PathLike = ":memory:", readonly: bool = False):
        self.path = str(path)
        if readonly:
            self._con = _connect_readonly(Path(self.path))
            return
        memory = self.path == ":memory:"
        if not memory:
            p = Path(self.path)
            if p.is_dir():
                raise StoreError(f"{p} is a directory; --db needs a file name")
            if p.exists() and p.stat().st_size > 0:
                _check_existing(p)
            p.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = sqlite3.connect(self.path, timeout=30.0)
            if not memory:
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("PRAGMA synchronous=NORMAL")
            version = self._con.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                self._create()
            elif version == 1:
                with self._con:
                    self._con.executescript(_UPGRADE_1_TO_2)
            self._check_writable()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from None

    def _check_writable(self) -> None:
        """One write, rolled back: a file or folder that cannot be written is refused now, not
        when the first finished game is stored."""
        try:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
        except sqlite3.OperationalError as exc:
            raise StoreError(
                f"{self.path} cannot be written ({exc}): make it and its folder writable, "
                "or pass another --db file"
            ) from None
        finally:
            if self._con.in_transaction:
                self._con.rollback()

    def _create(self) -> None:
        from mctslab import __version__

        with self._con:
            self._con.executescript(_SCHEMA)
            self._con.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("application", "mctslab results"),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("created_by", __version__),
                ],
            )
            self._con.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self._con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- runs ------------------------------------------------------------------------------------
    def run_id(
        self,
        games: list[str],
        agent_a: str,
        agent_b: str,
        seed: int,
        label: str = "",
        openings: str = "",
    ) -> int:
        """The id of this match's run, created on first use. ``openings`` (the run's openings,
        :meth:`mctslab.harness.openings.OpeningBook.key`; ``""`` for none) must be those the run
        was started with: :class:`StoreError` otherwise."""
        key = run_key(games, agent_a, agent_b, seed)
        row = self._con.execute("SELECT id, openings FROM runs WHERE key = ?", (key,)).fetchone()
        if row:
            if row[1] != openings:
                raise StoreError(
                    f"run {row[0]} in {self.path} ({agent_a} vs {agent_b or '-'}, seed {seed}) "
                    f"was played with {_openings_text(row[1])}, not {_openings_text(openings)}; "
                    "resume it with the same --openings, or pass another --db or --seed"
                )
            return int(row[0])
        with self._con:
            cur = self._con.execute(
                "INSERT INTO runs (key, games, agent_a, agent_b, seed, label, created, openings) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, json.dumps(games), agent_a, agent_b, seed, label, _now(), openings),
            )
        return int(cur.lastrowid)

    def runs(self) -> list[Run]:
        rows = self._con.execute(
            "SELECT id, games, agent_a, agent_b, seed, label FROM runs ORDER BY id"
        ).fetchall()
        return [Run(r[0], json.loads(r[1]), r[2], r[3], r[4], r[5]) for r in rows]

    # -- games -----------------------------------------------------------------------------------
    def add_game(self, run_id: int, row: dict) -> bool:
        """Store one finished game (a dict as :func:`mctslab.harness.game.play_task` returns);
        False if
        that game index was already stored (nothing changes)."""
        from mctslab import __version__

        values = {k: json.dumps(row[k]) for k in _JSON_COLUMNS if k != "opening"}
        values["opening"] = json.dumps(row.get("opening", []))
        with self._con:
            cur = self._con.execute(
                "INSERT OR IGNORE INTO games (run_id, game_index, game, seat_a, players, "
                "agent_seeds, chance_seed, moves, returns, score_a, move_seconds, search_stats, "
                "mctslab_version, finished_at, opening) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run_id,
                    row["game_index"],
                    row["game"],
                    row["seat_a"],
                    values["players"],
                    values["agent_seeds"],
                    row["chance_seed"],
                    values["moves"],
                    values["returns"],
                    row["score_a"],
                    values["move_seconds"],
                    values["search_stats"],
                    __version__,
                    _now(),
                    values["opening"],
                ),
            )
        return cur.rowcount == 1

    def games(self, run_id: int | None = None) -> Iterator[dict]:
        """Stored games as dicts (JSON columns decoded), by run and game index."""
        sql = "SELECT * FROM games"
        args: tuple = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            args = (run_id,)
        cur = self._con.execute(sql + " ORDER BY run_id, game_index", args)
        names = [d[0] for d in cur.description]
        for values in cur:
            row = dict(zip(names, values, strict=True))
            for k in _JSON_COLUMNS:
                row[k] = json.loads(row[k])
            yield row

    def game_count(self, run_id: int | None = None) -> int:
        if run_id is None:
            return int(self._con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        sql = "SELECT COUNT(*) FROM games WHERE run_id = ?"
        return int(self._con.execute(sql, (run_id,)).fetchone()[0])

    def extension(self, ddl: str) -> sqlite3.Connection:
        """The connection, for a harness module that keeps its own tables beside the games (the
        tuner's, :mod:`mctslab.harness.tune`), after running its ``CREATE TABLE IF NOT EXISTS``
        statements ``ddl``."""
        with self._con:
            self._con.executescript(ddl)
        return self._con

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _openings_text(key: str) -> str:
    """A run's openings in a message: none, or how many and the first few."""
    if not key:
        return "no openings"
    lines = [" ".join(m) for m in json.loads(key)]
    shown = ", ".join(lines[:3]) + (", ..." if len(lines) > 3 else "")
    return f"{len(lines)} openings ({shown})"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
