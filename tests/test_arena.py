"""Matches: seeded pairs, resume after SIGKILL without duplicates, workers, SPRT, CLI."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from mctslab.harness.game import replay
from mctslab.harness.schedule import run_match
from mctslab.harness.stats import Sprt
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

GAME = "nogo(size=5)"
A, B = "mcts(sims=150)", "flat(sims=150)"


def _games(rows):
    return {r["game_index"]: (r["game"], r["moves"], r["returns"], r["seat_a"]) for r in rows}


def test_pairs_alternate_colours_and_replay(tmp_path):
    with ResultsStore(tmp_path / "r.sqlite") as store:
        res = run_match(GAME, A, B, 6, seed=5, store=store)
        assert res.resumed_games == 0 and res.summary.games == 6
        assert [r["seat_a"] for r in res.rows] == [0, 1, 0, 1, 0, 1]
        for r in res.rows:
            assert r["players"][r["seat_a"]].startswith("mcts(")
            assert len(r["move_seconds"]) == len(r["search_stats"]["simulations"])
            state = replay(r)
            assert state.is_terminal() and state.returns() == r["returns"]
        again = run_match(GAME, A, B, 8, seed=5, store=store)
        assert again.resumed_games == 6 and again.summary.games == 8
        assert _games(again.rows[:6]) == _games(res.rows)


def test_worker_processes_give_the_same_games():
    one = run_match(GAME, A, B, 6, seed=11, workers=1)
    two = run_match(GAME, A, B, 6, seed=11, workers=2)
    assert _games(one.rows) == _games(two.rows)
    assert _games(run_match(GAME, A, B, 6, seed=12).rows) != _games(one.rows)


def test_progress_off_a_terminal_prints_plain_lines(monkeypatch, capsys):
    """Under nohup or a pipe the bar is not drawn: a plain line every PLAIN_PROGRESS_SECONDS
    and one for the last game, so a long run's log shows how far it is."""
    from mctslab.harness import progress

    monkeypatch.setattr(progress, "PLAIN_PROGRESS_SECONDS", 1e9)
    run_match(GAME, A, B, 3, seed=5, progress=True, description="slow")
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("slow: ")]
    assert len(lines) == 1 and lines[0].startswith("slow: 3/3 ")
    monkeypatch.setattr(progress, "PLAIN_PROGRESS_SECONDS", 0.0)
    run_match(GAME, A, B, 3, seed=6, progress=True, description="each")
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("each: ")]
    assert [x.split()[1] for x in lines] == ["1/3", "2/3", "3/3"]


def test_pair_shares_a_drawn_game_spec():
    specs = [f"nim(n={n})" for n in range(20, 51)]
    res = run_match(specs, "random", "random", 20, seed=3)
    drawn = [r["game"] for r in res.rows]
    assert all(drawn[i] == drawn[i + 1] for i in range(0, 20, 2))
    assert len(set(drawn)) > 3


def test_sprt_stops_a_lopsided_match_early():
    res = run_match("nim(n=13)", "mcts(sims=400)", "random", 200, seed=1, sprt=Sprt(0, 100))
    assert res.sprt == "H1"
    assert res.summary.games < 40
    assert [r["game_index"] for r in res.rows] == list(range(res.summary.games))


def _count(db):
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_resume_after_sigkill_no_duplicates_same_results(tmp_path):
    n = 40
    db = tmp_path / "killed.sqlite"
    cmd = [
        sys.executable,
        "-m",
        "mctslab.interfaces.cli.main",
        "match",
        GAME,
        A,
        B,
        "--games",
        str(n),
        "--seed",
        "9",
        "--workers",
        "1",
        "--json",
        "--db",
        str(db),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 120
    while _count(db) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = _count(db)
    assert 3 <= stored < n, "the run was not killed mid-match"
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    data = json.loads(out.stdout)
    assert data["games"] == n and data["resumed_games"] >= stored
    con = sqlite3.connect(db)
    idx = [r[0] for r in con.execute("SELECT game_index FROM games ORDER BY game_index")]
    con.close()
    assert idx == list(range(n))
    with ResultsStore(db) as store:
        resumed = _games(store.games())
    clean = run_match(GAME, A, B, n, seed=9)
    assert resumed == _games(clean.rows)
    assert data["wins_a"] == clean.summary.wins_a


def test_cli_match_json_reports_resumed_games(tmp_path):
    db = str(tmp_path / "m.sqlite")
    args = [
        "match",
        "nim(n=9)",
        "mcts(sims=100)",
        "random",
        "--games",
        "4",
        "--db",
        db,
        "--workers",
        "1",
        "--json",
    ]
    first = json.loads(CliRunner().invoke(main, args).output)
    assert first["resumed_games"] == 0 and first["games"] == 4
    second = json.loads(CliRunner().invoke(main, [*args[:5], "6", *args[6:]]).output)
    assert second["resumed_games"] == 4 and second["games"] == 6


def test_cli_refuses_corrupt_database_untouched(tmp_path):
    db = tmp_path / "bad.sqlite"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    before = db.read_bytes()
    res = CliRunner().invoke(main, ["match", "nim(n=5)", "random", "random", "--db", str(db)])
    assert res.exit_code == 2
    assert res.output.startswith("error: ") and "Traceback" not in res.output
    assert db.read_bytes() == before


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "pgn"])
def test_exports(tmp_path, fmt):
    db = tmp_path / "e.sqlite"
    with ResultsStore(db) as store:
        res = run_match("nim(n=7)", "mcts(sims=50)", "random", 4, seed=2, store=store)
    out = tmp_path / f"out.{fmt}"
    r = CliRunner().invoke(main, ["results", "export", str(db), "--format", fmt, "--out", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    if fmt == "csv":
        assert len(text.strip().splitlines()) == 5
    elif fmt == "jsonl":
        rows = [json.loads(x) for x in text.splitlines()]
        assert [x["moves"] for x in rows] == [x["moves"] for x in res.rows]
    else:
        results = [line for line in text.splitlines() if line.startswith("[Result")]
        wins_p0 = sum(1 for r in res.rows if r["returns"][0] > r["returns"][1])
        assert len(results) == 4 and sum('"1-0"' in x for x in results) == wins_p0


def test_sigterm_or_a_background_sigint_stops_a_match_keeping_its_games(tmp_path):
    """A background job of a non-interactive shell starts with SIGINT ignored; SIGTERM and such a
    SIGINT both stop the match as Ctrl-C does: the finished games stay, no traceback."""
    db = tmp_path / "stopped.sqlite"
    cmd = [sys.executable, "-m", "mctslab.interfaces.cli.main", "match", GAME, A, B,
           "--games", "200", "--seed", "9", "--json", "--db", str(db)]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for sig in (signal.SIGINT, signal.SIGTERM):
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )  # fmt: skip
        before = _count(db)
        deadline = time.monotonic() + 120
        while _count(db) < before + 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        err = err.decode()
        assert "interrupted: " in err and "Traceback" not in err, err
        assert proc.returncode == 130 and _count(db) >= before + 2


def test_a_stop_that_a_library_turns_into_another_error_still_reads_interrupted(tmp_path, capsys):
    """Ctrl-C during Numba's first compile: llvmlite drops the KeyboardInterrupt raised in its
    ctypes callback and Numba fails with a RuntimeError instead; the user still stopped it."""
    from mctslab.interfaces.cli.arena import _stoppable

    def body(error):
        with ResultsStore(tmp_path / "s.sqlite") as store, _stoppable(store):
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)  # the handler runs here
            except KeyboardInterrupt:
                raise error from None

    with pytest.raises(SystemExit) as stop:
        body(RuntimeError("no compiled object yet for <Library 'uct'>"))
    assert stop.value.code == 130
    assert "interrupted: 0 finished games are stored" in capsys.readouterr().err
    with pytest.raises(ValueError, match="a real bug"), _stoppable(None):  # no stop: not hidden
        raise ValueError("a real bug")
