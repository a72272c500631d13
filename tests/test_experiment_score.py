"""Score tables (``kind = "score"``): single-player 2048 games per agent spec, stored in the results
database, resumed without replaying finished games, reported with tiles reached (Wilson 95%),
scores and time per move."""

import statistics

import pytest
from click.testing import CliRunner

import mctslab
from mctslab.errors import MctslabError
from mctslab.harness import experiments as ex
from mctslab.harness import schedule
from mctslab.harness.experiments.spec import TABLE_KEYS
from mctslab.harness.single_player import play_one, run_score
from mctslab.harness.stats import wilson_interval
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

TINY = """
title = "tiny 2048"
source = "made up"
kind = "score"
seed = 3
[scale.quick]
games = 3
vars = { sims = 4 }
[scale.paper]
games = 5
vars = { sims = 8 }
[[table]]
title = "leaves"
game = "2048"
tiles = [64, 128, 256]
row = "U"
rows = [
  { label = "zero", leaf = "zero", source = "as printed" },
  { label = "rollout", leaf = "rollout,rollout_depth=3" },
]
a = "mdp(d=2,c=100,leaf={leaf},sims={sims})"
"""


def write(tmp_path, text, name="tiny2048"):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return p


def test_a_score_file_expands_rows_per_scale(tmp_path):
    p = write(tmp_path, TINY)
    quick, paper = ex.load(str(p), "quick"), ex.load(str(p), "paper")
    assert quick.kind == "score" and quick.value == "score"
    (t,) = quick.tables
    assert t.tiles == [64, 128, 256] and t.games == 3
    assert [c.a for c in t.cells] == [
        "mdp(d=2,c=100,leaf=zero,sims=4)",
        "mdp(d=2,c=100,leaf=rollout,rollout_depth=3,sims=4)",
    ]
    assert [c.b for c in t.cells] == ["", ""] and t.cells[0].source == "as printed"
    assert paper.tables[0].games == 5 and paper.tables[0].cells[0].a.endswith("sims=8)")
    assert ex.missing(quick) == []


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("seed = 3", "seed = 3\nseeds = 4", "unknown key 'seeds'; allowed: title, source, kind"),
        (
            "games = 3",
            "games = 3\nrounds = 2",
            r"\[scale.quick\]: unknown key 'rounds'; allowed: games",
        ),
        ('game = "2048"', 'game = "2048"\nb = "random"', "unknown key 'b'; allowed: .*tiles"),
        ('game = "2048"', 'game = "2048"\nper_n = true', "unknown key 'per_n'"),
        ('label = "zero",', 'label = "zero", b = "random",', "one agent per row"),
        ('kind = "score"', 'kind = "score"\nvalue = "rate"', "value = 'rate' does not go with"),
        ("tiles = [64, 128, 256]", "tiles = [100]", "powers of two"),
        ("tiles = [64, 128, 256]", "tiles = []", "powers of two"),
        ('kind = "score"', 'kind = "scores"', "kind must be one of .*'score'"),
    ],
)
def test_bad_files_are_refused_naming_what_is_allowed(tmp_path, old, new, message):
    assert old in TINY
    p = write(tmp_path, TINY.replace(old, new, 1))
    with pytest.raises(ex.ExperimentError, match=message):
        ex.load(str(p), "quick")


def test_unknown_table_keys_are_refused_for_every_kind(tmp_path):
    p = write(tmp_path, 'kind = "match"\n[[table]]\ngame = "nim"\na = "random"\ntiles = [8]\n')
    with pytest.raises(ex.ExperimentError, match="unknown key 'tiles'") as err:
        ex.load(str(p), "quick")
    assert ", ".join(TABLE_KEYS["match"]) in str(err.value)


def test_a_score_table_on_a_two_player_game_is_refused(tmp_path):
    p = write(
        tmp_path, TINY.replace('game = "2048"', 'game = "nogo(size=5)"').replace("mdp(", "flat(")
    )
    p.write_text(p.read_text().replace("tiles = [64, 128, 256]\n", ""))
    exp = ex.load(str(p), "quick")
    with pytest.raises(ex.ExperimentError, match=r"single-player games, and nogo\(size=5\) has 2"):
        ex.missing(exp)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["experiment", "run", str(p), "--out", str(out)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "has 2 players" in res.output and not out.exists()
    with pytest.raises(MctslabError, match="single-player run needs a one-player game"):
        run_score("nogo(size=5)", "random", 1, store=ResultsStore())
    with pytest.raises(MctslabError, match="a match needs a two-player game"):
        schedule.run_match("2048", "random", "random", 2)


def test_tiny_score_experiment_runs_reports_and_resumes(tmp_path, monkeypatch):
    p = write(tmp_path, TINY)
    out = tmp_path / "out"
    args = ["experiment", "run", str(p), "--out", str(out), "--workers", "1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    db = out / "tiny2048.sqlite"
    with ResultsStore(db) as store:
        runs = store.runs()
        rows = {r.id: list(store.games(r.id)) for r in runs}
    assert len(runs) == 2 and all(r.agent_b == "" for r in runs)
    assert [len(v) for v in rows.values()] == [3, 3]
    first = rows[runs[0].id]
    assert all(g["players"] == [runs[0].agent_a] and g["seat_a"] == 0 for g in first)
    assert all(g["score_a"] == g["returns"][0] > 0 for g in first)
    # a stored game is replayed exactly from its agent and chance seeds
    g0 = first[0]
    again = play_one(runs[0].agent_a, g0["agent_seeds"][0], chance_seed=g0["chance_seed"])
    assert again["score"] == g0["score_a"] and again["moves"] == len(g0["move_seconds"])
    assert g0["agent_seeds"] != first[1]["agent_seeds"]
    # the report's figures are the stored games'
    report = (out / "tiny2048-quick.md").read_text()
    assert "| U | agent | games | reached 64 | reached 128 | reached 256 | median score" in report
    assert "| zero | `mdp(d=2,c=100,leaf=zero,sims=4)` | 3 |" in report
    assert "as printed" in report
    median = statistics.median(g["score_a"] for g in first)
    assert f"| {median:,.0f} |" in report.split("| zero |")[1].split("\n")[0]
    assert (out / "tiny2048-quick-t1.png").stat().st_size > 1000

    # a rerun replays nothing: any game played now fails the test
    def no_game(task):
        raise AssertionError(f"game {task.index} was played again")

    monkeypatch.setattr(schedule, "play_task", no_game)
    res2 = CliRunner().invoke(main, args)
    assert res2.exit_code == 0, res2.output
    assert (out / "tiny2048-quick.md").read_text().split("## leaves")[1] == report.split(
        "## leaves"
    )[1]
    # more games: only the missing ones are played
    monkeypatch.undo()
    played = []
    real = schedule.play_task
    monkeypatch.setattr(schedule, "play_task", lambda t: played.append(t.index) or real(t))
    res3 = CliRunner().invoke(main, [*args, "--games", "4"])
    assert res3.exit_code == 0, res3.output
    assert played == [3, 3]
    with ResultsStore(db) as store:
        assert store.game_count() == 8


def test_report_shares_and_intervals(tmp_path):
    from mctslab.harness.experiments.report import score_row
    from mctslab.harness.experiments.runner import TableResult

    exp = ex.load(str(write(tmp_path, TINY)), "quick")
    with ResultsStore() as store:
        res = ex.run(exp, store)
        (tr,) = res
        assert isinstance(tr, TableResult)
        r = score_row(tr.cells[0], [64, 128])
        games = tr.cells[0].score.games
        reached = sum(g["max_tile"] >= 128 for g in games)
        assert r["reached"][128] == (reached, reached / 3, wilson_interval(reached, 3))
        assert r["ms_per_move"] > 0 and r["mean"] == statistics.fmean(g["score"] for g in games)
        # resuming in the same store plays nothing and returns the same games
        again = ex.run(exp, store)
        assert again[0].cells[0].score.resumed_games == 3
        assert again[0].cells[0].score.games == games


def test_results_show_and_exports_read_a_score_database(tmp_path):
    db = tmp_path / "s.sqlite"
    with ResultsStore(db) as store:
        run_score("2048", "mdp(d=1,leaf=zero,sims=2)", 2, 1, store=store, label="solo")
    runner = CliRunner()
    show = runner.invoke(main, ["results", "show", str(db)])
    assert show.exit_code == 0 and "mean score" in show.output, show.output
    csv = runner.invoke(main, ["results", "export", str(db), "--format", "csv"])
    assert csv.exit_code == 0 and len(csv.output.strip().splitlines()) == 3, csv.output
    pgn = runner.invoke(main, ["results", "export", str(db), "--format", "pgn"])
    assert pgn.exit_code == 0 and "[Result" not in pgn.output
    from mctslab.interfaces.web.results import ReadOnlyStore, run_rows

    (row,) = run_rows(ReadOnlyStore(db))
    assert row["rate_a"] is None and row["mean_score"] > 0 and row["played"] == 2


def test_the_book_experiment_is_shipped():
    for scale, games, sims in (("quick", 8, 20), ("paper", 20, 100)):
        exp = ex.load("mdp_2048_book", scale)
        (t,) = exp.tables
        assert exp.kind == "score" and t.games == games and t.tiles == [1024, 2048, 4096]
        assert t.cells[0].a == f"mdp(d=10,c=100,gamma=1,leaf=rollout,rollout_depth=10,sims={sims})"
        assert [c.row_label for c in t.cells][1:] == [
            "zero",
            "heuristic (h_weight = 1)",
            "random rollout to the end",
        ]
    assert ex.missing(ex.load("mdp_2048_book", "quick")) == []
    assert mctslab.load_game("2048").num_players() == 1


def test_the_reproduction_page_sets_out_a_score_table(tmp_path, monkeypatch):
    """The page shows a score table as the experiment's report does (tiles reached with their
    intervals, scores), not only its game counts."""
    from mctslab.harness.experiments import reproduction

    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    write(tmp_path / "experiments", TINY)
    run = ["experiment", "run", "tiny2048", "--scale", "quick", "--workers", "1"]
    assert CliRunner().invoke(main, [*run, "--out", "results"]).exit_code == 0
    text, _ = reproduction.page(
        ["tiny2048"], "quick", tmp_path / "results", tmp_path / "experiments" / "games", None
    )
    assert "| U | agent | games | reached 64 | reached 128 | reached 256 |" in text
    assert "| zero | `mdp(d=2,c=100,leaf=zero,sims=4)` | 3 |" in text
    assert "2 of 2 rows or pairs complete (6/6 games)." in text
