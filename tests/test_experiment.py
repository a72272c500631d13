"""Experiment files: every shipped file parses; the runner refuses what is missing; a tiny
experiment runs, resumes and renders a report with the source's numbers side by side."""

import pytest
from click.testing import CliRunner

from mctslab.harness import experiments as ex
from mctslab.harness.experiments.report import source_value
from mctslab.harness.experiments.spec import evaluate, fill
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

TINY = """
title = "tiny"
source = "made up"
value = "rate"
[scale.quick]
games = 4
[[table]]
title = "Nim"
game = "nim(n={n},k=3)"
draw = { n = [9, 12] }
per_n = true
row = "sims"
rows = [20, 200]
a = "mcts(sims={sims})"
b = "mcts(sims={sims // 10})"
source = ["60% ± 5%", "0.99"]
"""


@pytest.fixture
def tiny(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


@pytest.mark.parametrize("name", ex.list_names())
def test_every_shipped_experiment_parses_at_every_scale(name):
    for scale in ("quick", "decide", "paper"):
        exp = ex.load(name, scale)
        assert exp.tables and all(t.cells for t in exp.tables)
    paper = ex.load(name, "paper")
    quick = ex.load(name, "quick")
    assert sum(len(t.cells) for t in quick.tables) <= sum(len(t.cells) for t in paper.tables)


def test_templates_are_arithmetic_only():
    assert fill("mcts(sims={2*N},time={t/1000})", {"N": 50, "t": 10}) == "mcts(sims=100,time=0.01)"
    assert evaluate("N // 10", {"N": 55}) == 5
    with pytest.raises(ex.ExperimentError, match="unsupported"):
        evaluate("__import__('os')", {})
    with pytest.raises(ex.ExperimentError, match="unknown variable"):
        fill("{M}", {"N": 1})


def test_source_numbers_as_printed():
    assert source_value("56 % ± 5%", "rate", None) == pytest.approx(0.56)
    assert source_value("52.9 ± .015", "rate", None) == pytest.approx(0.529)
    assert source_value("183", "wins", 300) == pytest.approx(0.61)
    assert source_value("138/(138+65)=.679", "ratio", None) == pytest.approx(0.679)
    assert source_value("845,060 bytes in 72,177 blocks", "bytes", None) == 845060


def test_missing_agents_are_named_not_crashed(tmp_path):
    p = tmp_path / "future.toml"
    p.write_text(
        TINY.replace('a = "mcts(sims={sims})"', 'a = "mcts(preset=zzz,sims={sims})"').replace(
            'game = "nim(n={n},k=3)"', 'game = "nosuchgame(n={n})"'
        )
    )
    res = CliRunner().invoke(main, ["experiment", "run", str(p), "--out", str(tmp_path)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "cannot run yet" in res.output and "nosuchgame" in res.output
    assert not list(tmp_path.glob("*.sqlite"))


def test_tiny_experiment_runs_resumes_and_reports(tiny, tmp_path):
    out = tmp_path / "out"
    args = ["experiment", "run", str(tiny), "--out", str(out), "--workers", "1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    report = (out / "tiny-quick.md").read_text()
    assert "| 20 | `mcts(sims=20" in report and "60% ± 5%" in report
    assert "Per-N statistics" in report and "avg. convincity" in report
    assert (out / "tiny-quick-t1.png").stat().st_size > 1000
    with ResultsStore(out / "tiny.sqlite") as store:
        assert store.game_count() == 8 and len(store.runs()) == 2
    res2 = CliRunner().invoke(main, args)
    assert res2.exit_code == 0
    with ResultsStore(out / "tiny.sqlite") as store:
        assert store.game_count() == 8
    assert (out / "tiny-quick.md").read_text().split("Scale")[1].count("|") == report.split(
        "Scale"
    )[1].count("|")
