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


# -- reading never writes; a store that cannot be written is refused before a game ---------------
def test_reading_commands_never_change_a_file(tmp_path):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    for args in (["results", "show"], ["results", "export"]):
        result = CliRunner().invoke(main, [*args, str(empty)])
        assert result.exit_code == 2, result.output
        assert "is empty (0 bytes)" in result.output
        assert empty.read_bytes() == b""  # no schema written into it
    missing = tmp_path / "missing.sqlite"
    result = CliRunner().invoke(main, ["results", "show", str(missing)])
    assert result.exit_code == 2 and "no results database at" in result.output
    assert not missing.exists()
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as s:
        s.add_game(s.run_id(["nim"], "a", "b", 7), _row(0))
    before = _digest(db)
    with ResultsStore(db, readonly=True) as s:
        assert s.game_count() == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            s.run_id(["nim"], "a", "b", 8)
    assert CliRunner().invoke(main, ["results", "show", str(db)]).exit_code == 0
    out = tmp_path / "out" / "games.jsonl"
    out.parent.mkdir()
    result = CliRunner().invoke(main, ["results", "export", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert _digest(db) == before
    # a WAL-mode file read with plain mode=ro would get an -shm and an empty -wal beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite", "out", "r.sqlite"]


def test_reading_a_file_a_match_is_writing_sees_its_games_and_leaves_its_files(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as writer:
        run = writer.run_id(["nim"], "a", "b", 7)
        writer.add_game(run, _row(0))
        assert (tmp_path / "r.sqlite-wal").exists()  # the game is in the WAL, not yet the file
        with ResultsStore(db, readonly=True) as reader:
            assert reader.game_count() == 1
        writer.add_game(run, _row(1))
        assert (tmp_path / "r.sqlite-wal").exists() and (tmp_path / "r.sqlite-shm").exists()
        with ResultsStore(db, readonly=True) as reader:
            assert reader.game_count() == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]


@pytest.fixture
def unwritable(tmp_path, make_unwritable):
    """A results file that cannot be written, even by root."""
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as s:
        s.add_game(s.run_id(["nim(n=5)"], "random", "random", 1), _row(0))
    make_unwritable(db)
    return db


def test_an_unwritable_database_is_refused_before_playing(unwritable):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    with pytest.raises(StoreError, match="cannot be written"):
        ResultsStore(unwritable)
    args = ["match", "nim(n=5)", "random", "random", "--games", "4", "--db", str(unwritable)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert "cannot be written" in result.output and "--db" in result.output
    with ResultsStore(unwritable, readonly=True) as s:  # reading it still works
        assert s.game_count() == 1


def test_an_export_that_cannot_be_written_is_one_line(tmp_path):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as s:
        s.add_game(s.run_id(["nim(n=5)"], "random", "random", 1), _row(0))
    for fmt in ("csv", "sgf"):
        out = tmp_path / "missing" / "folder" / "x"
        (tmp_path / "missing").write_text("a file where a folder should be")
        args = ["results", "export", str(db), "--format", fmt, "--out", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: cannot write ") and result.output.count("\n") == 1
