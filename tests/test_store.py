"""The results database refuses what it must not touch and never stores a game twice."""

import hashlib
import sqlite3

import pytest

from mctslab.harness.store import SCHEMA_VERSION, ResultsStore, StoreError


def _row(i, score=1.0):
    return {
        "game_index": i,
        "game": "nim(n=5,k=3,coin=false)",
        "seat_a": i % 2,
        "players": ["random", "random"],
        "agent_seeds": [1, 2],
        "chance_seed": 3,
        "moves": [2, 1],
        "returns": [1.0, -1.0],
        "score_a": score,
        "move_seconds": [0.1, 0.2],
        "search_stats": {"player": [0, 1]},
    }


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_roundtrip_and_no_duplicates(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as s:
        run = s.run_id(["nim"], "a", "b", 7)
        assert s.run_id(["nim"], "a", "b", 7) == run
        assert s.run_id(["nim"], "a", "b", 8) != run
        assert s.add_game(run, _row(0)) is True
        assert s.add_game(run, _row(0, score=0.0)) is False  # same game index: ignored
        assert s.add_game(run, _row(1)) is True
    with ResultsStore(db) as s:  # reopened
        rows = list(s.games(run))
        assert [r["game_index"] for r in rows] == [0, 1]
        assert rows[0]["score_a"] == 1.0 and rows[0]["moves"] == [2, 1]
        assert s.game_count() == 2
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_not_sqlite_is_refused_and_untouched(tmp_path):
    db = tmp_path / "notes.sqlite"
    db.write_bytes(b"my precious notes\n" * 100)
    before = _digest(db)
    with pytest.raises(StoreError, match="not an SQLite database"):
        ResultsStore(db)
    assert _digest(db) == before


def test_foreign_sqlite_is_refused_and_untouched(tmp_path):
    db = tmp_path / "other.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = _digest(db)
    with pytest.raises(StoreError, match="another application"):
        ResultsStore(db)
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_corrupt_results_file_is_refused_and_untouched(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as s:
        run = s.run_id(["nim"], "a", "b", 0)
        for i in range(200):
            s.add_game(run, _row(i))
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[2 * page : 3 * page] = b"\x5a" * page  # a page of garbage, header intact
    db.write_bytes(bytes(data))
    before = _digest(db)
    with pytest.raises(StoreError, match="corrupt"):
        ResultsStore(db)
    assert _digest(db) == before


def test_newer_schema_is_refused(tmp_path):
    db = tmp_path / "r.sqlite"
    ResultsStore(db).close()
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer"):
        ResultsStore(db)
