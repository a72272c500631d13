"""SGF export of a results database: one file per board game, readable back, same moves."""

from click.testing import CliRunner

from mctslab.harness.sgf import read_sgf_file
from mctslab.interfaces.cli.main import main


def test_sgf_export_writes_board_games_and_skips_others(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "r.db")
    for game in ("nogo(size=5)", "nim(n=7)"):
        res = runner.invoke(
            main, ["match", game, "mcts(sims=100)", "random", "--games", "2", "--db", db,
                   "--workers", "1", "--json"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    out = tmp_path / "sgf"
    res = runner.invoke(main, ["results", "export", db, "--format", "sgf", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "2 SGF files written" in res.output and "2 games without SGF skipped" in res.output
    files = sorted(out.glob("*.sgf"))
    assert [f.name for f in files] == ["run1-game0.sgf", "run1-game1.sgf"]
    for f in files:
        assert "RU[NoGo]" in f.read_text()
        game = read_sgf_file(f)
        assert game.replay().is_terminal()


def test_sgf_export_needs_a_folder(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "r.db")
    args = ["match", "nim(n=5)", "random", "random", "--games", "2", "--db", db, "--json"]
    assert runner.invoke(main, args).exit_code == 0
    res = runner.invoke(main, ["results", "export", db, "--format", "sgf"])
    assert res.exit_code == 2 and "give a folder with --out" in res.output
