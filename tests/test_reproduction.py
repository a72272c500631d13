"""The reproduction: the shipped experiments play the sources' settings (each finding of
experiments/reproduction-notes.md has a test here), the deciding scale, reading a database
without writing it, the committed export, and the page's verdicts."""

import hashlib
import re

import pytest
from click.testing import CliRunner

from mctslab.harness import experiments as ex
from mctslab.harness.experiments import archive, reproduction, runner
from mctslab.harness.experiments.report import source_value
from mctslab.harness.match import MatchResult, summarise_scores
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

NOGO_PAPER = [n for n in ex.list_names() if n.startswith(("nogo_", "go_"))]


#: the tables whose deciding scale has fewer games, for time (each said in the file's notes)
CUTS = {
    ("nogo_slow_nodes_time", "NoGo, 4 s/move"): 100,
    ("go_slow_nodes_time", "Go, 1 s/move"): 200,
}


def test_make_reproduce_runs_every_experiment_once_and_the_timed_ones_unniced():
    """`make reproduce` lists each experiment file once: the fixed-budget ones (run niced) and
    the timed ones (not niced, so that their seconds a move are the machine's)."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "Makefile").read_text().replace("\\\n", " ")
    lists = {
        k: re.search(rf"^{k} := (.*)$", text, re.M).group(1).split()
        for k in ("REPRODUCE_FIXED", "REPRODUCE_TIMED")
    }
    listed = lists["REPRODUCE_FIXED"] + lists["REPRODUCE_TIMED"]
    assert sorted(listed) == sorted(ex.list_names())
    timed = [n for n in ex.list_names() if any("time=" in s for s in _specs(ex.load(n, "decide")))]
    assert sorted(lists["REPRODUCE_TIMED"]) == sorted(timed)


def _specs(exp):
    return [s for t in exp.tables for c in t.cells for s in (c.a, c.b) if s]


@pytest.mark.parametrize("name", ex.list_names())
def test_the_deciding_scale_has_enough_games(name):
    """±2σ ≤ 5 points (400 games) where the source prints a rate; the source's own count
    where it prints counts (wins of 300)."""
    exp = ex.load(name, "decide")
    for t in exp.tables:
        if exp.kind == "match" and any(c.source for c in t.cells):
            cut = CUTS.get((name, t.title))
            assert t.games >= (t.source_games or 400) or (
                t.games == cut and f"{cut} games" in exp.notes
            ), t.title


@pytest.mark.parametrize("name", NOGO_PAPER)
def test_the_nogo_papers_program_builds_a_fresh_tree_without_solver(name):
    """Algorithm 1 initialises nbSims(s) = 0 for every move and has no MCTS-Solver."""
    for spec in _specs(ex.load(name, "decide")):
        assert "reuse=false" in spec and "solver=false" in spec, spec


@pytest.mark.parametrize("name", [n for n in NOGO_PAPER if n.startswith("nogo_")])
def test_naive_playouts_unless_the_table_names_anti_decisive_moves(name):
    exp = ex.load(name, "decide")
    for t in exp.tables:
        for c in t.cells:
            for spec in filter(None, (c.a, c.b)):
                if "playout=uniform" in spec and exp.explains == "nogo_antidecisive":
                    continue  # the table it explains pits legal playouts against naive ones
                if "playout=uniform" in spec and exp.explains:
                    # a tested explanation may change the playouts, and names them in its title
                    assert "playouts" in t.title and "legal" in exp.title, (t.title, spec)
                elif "playout=uniform" in spec:
                    assert name in ("nogo_antidecisive", "nogo_scalability", "nogo_go_playouts")
                    assert (
                        "anti-decisive" in t.title
                        or "antidecisive" in name
                        or ("uniform" in t.title)
                    ), (t.title, spec)
                elif "playout=" not in spec and "preset=nf" not in spec:
                    pytest.fail(f"{name}: {spec} plays uniform playouts without saying so")


def test_table_1_with_rave_and_with_rave_and_uct_are_different_agents():
    exp = ex.load("nogo_scalability", "decide")
    by_title = {t.title: t for t in exp.tables}
    rave = by_title["With RAVE"].cells[0]
    uct = by_title["2N sims +RAVE+UCT against N sims +RAVE+UCT"].cells[0]
    assert rave.a != uct.a and "c=0," in rave.a and "c=0.4" in uct.a


def test_nim_starts_from_20_to_49_counters():
    """No per-N table of the Nim report has a row n = 50."""
    for name in ("nim_report", "nim_strategic", "nim_coin"):
        for cell in ex.load(name, "decide").tables[0].cells:
            ns = [int(re.search(r"n=(\d+)", g).group(1)) for g in cell.game]
            assert (min(ns), max(ns)) == (20, 49), name


def test_coin_nim_mcts_adds_one_child_per_simulation():
    for cell in ex.load("nim_coin", "decide").tables[0].cells:
        assert "expand_all=false" in cell.a


TINY = """
title = "tiny"
source = "made up"
[scale.quick]
games = 4
[scale.decide]
games = 6
[[table]]
title = "Nim"
game = "nim(n={n},k=3)"
draw = { n = [9, 12] }
row = "sims"
rows = [30, 3]
a = "mcts(sims={sims})"
b = "mcts(sims=3)"
source = ["60% ± 5%", "50%"]
decide = { rows = [30] }

[[table]]
title = "timed"
game = "nim(n=10,k=3)"
row = "ms"
rows = [1]
a = "mcts(time={ms/1000})"
b = "random"
source = ["99%"]
"""


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_collect_and_the_export_give_what_the_run_played(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "LOAD_EVERY", 0.01)
    toml = tmp_path / "tiny.toml"
    toml.write_text(TINY)
    exp = ex.load(str(toml), "decide")
    db = tmp_path / "tiny.sqlite"
    with ResultsStore(db) as store:
        played = ex.run(exp, store)
    before = _digest(db)
    with ResultsStore(db) as store:
        read = runner.collect(exp, store)
    assert _digest(db) == before  # nothing written
    for p, r in zip(played, read, strict=True):
        for a, b in zip(p.cells, r.cells, strict=True):
            assert a.match.summary == b.match.summary
    timed = read[1].cells[0]
    assert len(timed.load) >= 2 and timed.load[0][3] >= 1
    assert reproduction.sims_per_move(timed)[0] > 0
    export = tmp_path / "games" / "tiny.jsonl.gz"
    with ResultsStore(db) as store:
        assert archive.write(store, export) == 12
        first = export.read_bytes()
        archive.write(store, export)
    assert export.read_bytes() == first  # the same games, the same bytes
    with archive.read(export) as store:
        again = runner.collect(exp, store)
    for p, r in zip(read, again, strict=True):
        for a, b in zip(p.cells, r.cells, strict=True):
            assert a.match.summary == b.match.summary and a.load == b.load


def test_report_writes_the_page_from_the_export_alone(tmp_path, monkeypatch, make_unwritable):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(TINY)
    (tmp_path / "experiments" / "reproduction-notes.md").write_text("## Findings\n\nF1 ...")
    run = ["experiment", "run", "tiny", "--scale", "decide", "--workers", "1", "--out", "results"]
    res = CliRunner().invoke(main, run)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "experiments" / "games" / "tiny.jsonl.gz").is_file()
    (tmp_path / "results" / "tiny.sqlite").unlink()  # a fresh clone has the export only
    res = CliRunner().invoke(main, ["experiment", "report", "tiny", "--out", "page.md"])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "page.md").read_text()
    assert "F1 ..." in page and "| 30 | 6 |" in page and "experiments/games/tiny.jsonl.gz" in page
    assert "| 3 | cut | not played at this scale | | 50% | — |" in page  # cut, still listed
    assert re.search(r"\| `tiny` \| tiny \| 12/12 \| [0-9]+\.[0-9]{2} \| ", page)  # the summary
    assert not (tmp_path / "results" / "tiny.sqlite").exists()  # the report wrote no database
    assert re.search(
        r"\| 1 \| 6 \| .* \| 99% \| (agrees|same direction|differs) \| [0-9,]+ ·", page
    )
    # named experiments alone are printed: the whole page is never replaced by a part of it
    res = CliRunner().invoke(main, ["experiment", "report", "tiny"])
    assert res.exit_code == 0 and "experiments/games/tiny.jsonl.gz" in res.output
    assert not (tmp_path / "docs").exists()
    # a rerun on a fresh checkout resumes from the export instead of replaying
    res = CliRunner().invoke(main, run)
    assert "resuming from the committed games" in res.output
    with ResultsStore(tmp_path / "results" / "tiny.sqlite") as store:
        assert store.game_count() == 12
    # the report only reads the database: a file that cannot be written is read the same
    db = tmp_path / "results" / "tiny.sqlite"
    listing, before = sorted(p.name for p in db.parent.iterdir()), _digest(db)
    make_unwritable(db)
    res = CliRunner().invoke(main, ["experiment", "report", "tiny", "--out", "from-db.md"])
    assert res.exit_code == 0, res.output
    assert "results/tiny.sqlite" in (tmp_path / "from-db.md").read_text()
    assert _digest(db) == before and sorted(p.name for p in db.parent.iterdir()) == listing


def _cell(source, wins, n, value="rate", source_games=None):
    cell = ex.spec.Cell("r", None, "g", "a", "b", source, {})
    summary = summarise_scores([1.0] * wins + [0.0] * (n - wins))
    return runner.CellResult(cell, MatchResult(summary, 0, [], None, None))


@pytest.mark.parametrize(
    ("source", "wins", "n", "value", "games", "expected"),
    [
        ("56 % ± 5%", 220, 400, "rate", None, "agrees"),  # 55% [50.1, 59.8]
        ("56 % ± 5%", 400, 400, "rate", None, "same direction"),
        ("56 % ± 5%", 100, 400, "rate", None, "differs"),
        ("27.7%", 149, 300, "rate", None, "differs"),  # 49.7% [44.0, 55.3]: undecided
        ("27.7%", 120, 300, "rate", None, "same direction"),  # 40% [34.6, 45.6]
        ("52.9 ± .015", 212, 400, "rate", None, "agrees"),
        ("183", 180, 300, "wins", 300, "agrees"),
        ("183", 120, 300, "wins", 300, "differs"),
        ("1163/(1163+1279)=.476", 195, 400, "ratio", None, "agrees"),
        ("26/(26+69)=.273", 220, 400, "ratio", None, "differs"),
    ],
)
def test_verdicts(source, wins, n, value, games, expected):
    assert reproduction.verdict(_cell(source, wins, n), value, games) == expected


def test_source_intervals_as_printed():
    assert reproduction.source_interval("56 % ± 5%", "rate", None) == pytest.approx((0.51, 0.61))
    assert reproduction.source_interval("52.9 ± .015", "rate", None) == pytest.approx(
        (0.514, 0.544)
    )
    assert reproduction.source_interval("60% ± 3", "rate", None) == pytest.approx((0.57, 0.63))
    lo, hi = reproduction.source_interval("138/(138+65)=.679", "ratio", None)
    assert lo < source_value("138/(138+65)=.679", "ratio", None) < hi
    assert reproduction.source_interval("50 %", "rate", None) is None


def test_the_hex_articles_agents_are_built_on_its_rave_agent():
    """The article's Decisive Move, LGR and PoolRAVE agents extend its RAVE agent, whose
    schedule is α = max(0, (K − N)/K)."""
    agents = ex.load("hex_round_robin", "decide").tables[0].agents
    assert sum("rave=article" in a for a in agents) == 4
    assert any("decisive=true" in a and "rave=article" in a for a in agents)
    assert any("lgrf=true" in a and "rave=article" in a for a in agents)


def test_an_explanation_is_listed_apart_and_not_counted(tmp_path, monkeypatch):
    """An experiment with ``explains`` (a tested explanation of another's *differs*) gets its
    own summary table, and its verdicts stay out of the page's counts."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(TINY)
    why = TINY.replace('title = "tiny"', 'title = "why"\nexplains = "tiny"')
    (tmp_path / "experiments" / "why.toml").write_text(why)
    assert ex.load("why").explains == "tiny" and ex.load("tiny").explains == ""
    for name in ("tiny", "why"):
        run = ["experiment", "run", name, "--scale", "decide", "--workers", "1"]
        assert CliRunner().invoke(main, [*run, "--out", "results"]).exit_code == 0
    text, counts = reproduction.page(
        ["tiny", "why"], "decide", tmp_path / "results", tmp_path / "experiments" / "games", None
    )
    assert sum(counts.values()) == 2  # tiny's two played cells only, not why's
    head, explained = text.split("Explanations tested")[0], text.split("Explanations tested")[1]
    assert "| `tiny` |" in head and "`why`" not in head.split("## Summary")[1]
    assert "| `why` (`tiny`) | why |" in explained


@pytest.mark.parametrize("value", ["nowhere", "why"])
def test_explains_must_name_another_experiment(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(TINY)
    why = TINY.replace('title = "tiny"', f'title = "why"\nexplains = "{value}"')
    (tmp_path / "experiments" / "why.toml").write_text(why)
    with pytest.raises(ex.ExperimentError, match=r"is not another experiment; known: .*tiny"):
        ex.load("why")


def test_an_unplayed_round_robin_reads_not_run(tmp_path):
    """A round robin with no games shows `not run` in each pair, not a 0% ± 100 score."""
    text, counts = reproduction.page(
        ["hex_round_robin"], "decide", tmp_path / "none", tmp_path / "none", None
    )
    table = text.split("### 8x8 Hex")[1]
    assert "not run" in table and "0% ± 100" not in table and "100% ± 100" not in table
    assert "0 of 15 rows or pairs complete (0/1500 games)." in table
    assert counts == {"agrees": 0, "same direction": 0, "differs": 0}


def test_the_page_links_each_played_experiments_figures_beside_it(tmp_path, monkeypatch):
    """`experiment report --out DIR/page.md` writes the played experiments' figures into
    DIR/page/ and links them; an experiment without games gets none, and a figure left from
    an experiment no longer listed goes when the whole page is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(TINY)
    (tmp_path / "experiments" / "idle.toml").write_text(TINY.replace('"tiny"', '"idle"'))
    run = ["experiment", "run", "tiny", "--scale", "quick", "--workers", "1", "--out", "results"]
    assert CliRunner().invoke(main, run).exit_code == 0
    (tmp_path / "out" / "page").mkdir(parents=True)
    (tmp_path / "out" / "page" / "gone-quick-t1.png").write_bytes(b"old")
    report = ["experiment", "report", "--scale", "quick", "--out", "out/page.md"]
    res = CliRunner().invoke(main, report)
    assert res.exit_code == 0, res.output
    text = (tmp_path / "out" / "page.md").read_text()
    assert sorted(p.name for p in (tmp_path / "out" / "page").iterdir()) == ["tiny-quick-t1.png"]
    assert "![tiny-quick-t1](page/tiny-quick-t1.png)" in text
    assert "idle-quick" not in text
