"""The command line: JSON outputs, one-line errors, a human at the prompt, the demo."""

import json
import re

import pytest
from click.testing import CliRunner

from mctslab.interfaces.cli.cores import default_threads
from mctslab.interfaces.cli.main import main


@pytest.fixture
def runner():
    return CliRunner()


def test_games_lists_every_registered_game(runner):
    import mctslab

    out = runner.invoke(main, ["games"]).output
    for name in mctslab.registered_games():
        assert name in out


def test_bad_game_spec_is_one_line_and_exit_2(runner):
    res = runner.invoke(main, ["bench", "playouts", "nim(n=0)"])
    assert res.exit_code == 2
    assert res.output.strip().startswith("error: game nim: n=0")
    assert "Traceback" not in res.output


def test_bad_agent_spec_fails_before_any_game(runner):
    res = runner.invoke(main, ["match", "nim(n=5)", "mcts(bogus=1)", "random", "--games", "3"])
    assert res.exit_code == 2
    assert "unknown key(s) bogus" in res.output
    assert "games" not in res.output.split("error:")[0]


def test_match_json_fields(runner):
    res = runner.invoke(
        main, ["match", "nim(n=9)", "mcts(sims=300)", "random", "--games", "6", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["games"] == 6
    assert data["score_a"] == data["wins_a"] + 0.5 * data["draws"]
    assert data["win_rate_a"] == pytest.approx(data["score_a"] / 6)
    lo, hi = data["ci95"]
    assert 0.0 <= lo <= data["win_rate_a"] <= hi <= 1.0


def test_bench_playouts_json(runner):
    res = runner.invoke(main, ["bench", "playouts", "nim(n=20)", "--seconds", "0.05", "--json"])
    data = json.loads(res.output)
    assert data["playouts_per_second"] > 0 and 5 <= data["mean_length"] <= 20


def test_bench_search_json(runner):
    res = runner.invoke(
        main, ["bench", "search", "nim(n=20)", "--agent", "mcts(sims=500)", "--json"]
    )
    data = json.loads(res.output)
    assert data["simulations"] == 500
    assert data["sims_per_second"] > 0 and data["nodes"] > 1 and data["bytes_per_node"] > 0


def test_bench_startup_times_an_agents_first_search_in_fresh_processes(runner):
    # a random agent: an mcts one would compile its search cold, in the children's empty cache
    res = runner.invoke(main, ["bench", "startup", "nim(n=9)", "--agent", "random", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["agent"] == "random"  # the canonical spec, as the children made it
    assert data["cold_seconds"] > 0 and data["warm_seconds"] > 0


def test_bench_startup_rejects_a_bad_agent_before_starting_any_process(runner, monkeypatch):
    from mctslab.harness import bench

    monkeypatch.setattr(bench, "startup", lambda *a: pytest.fail("a process was started"))
    res = runner.invoke(main, ["bench", "startup", "nim(n=9)", "--agent", "mcts(bogus=1)"])
    assert res.exit_code == 2
    assert "unknown key(s) bogus" in res.output


def test_human_gets_a_new_prompt_after_bad_input(runner):
    # nim(n=5): the human (player 0) types garbage, an illegal number, then takes 1 (leaves 4,
    # a lost position for the mover); the agent replies; then the human quits.
    res = runner.invoke(
        main,
        ["play", "nim(n=5)", "--black", "human", "--white", "mcts(sims=200)"],
        input="banana\n7\nmoves\n1\nquit\n",
    )
    assert "not a move" in res.output
    assert "1 2 3" in res.output  # the 'moves' listing
    assert "player 0 (human): 1" in res.output
    assert "player 1 (mcts" in res.output
    assert res.exit_code == 1 and "abandoned" in res.output
    assert "Traceback" not in res.output


def test_closed_input_abandons_cleanly(runner):
    res = runner.invoke(main, ["play", "nim(n=5)", "--black", "human"], input="")
    assert res.exit_code == 1 and "input closed" in res.output


def test_agent_vs_agent_game_ends_with_returns(runner):
    res = runner.invoke(
        main, ["play", "nogo(size=5)", "--black", "mcts(sims=100)", "--white", "random"]
    )
    assert res.exit_code == 0, res.output
    assert "returns: [" in res.output


def test_demo_runs_a_real_match(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the demo writes its results/ folder here, not in the repository
    res = runner.invoke(main, ["demo", "--games", "2"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "results" / "demo.sqlite").is_file()
    assert "win rate ± 2σ" in res.output and "95% CI" in res.output


def test_gtp_threads_set_the_mcts_agents_workers_and_survive_boardsize(runner):
    script = "version\nboardsize 7\nversion\ngenmove b\nquit\n"
    args = ["gtp", "--game", "nogo", "--agent", "mcts(sims=60)", "--seed", "1"]
    res = runner.invoke(main, [*args, "--threads", "2"], input=script)
    assert res.exit_code == 0, res.output
    replies = [line for line in res.output.splitlines() if line.startswith("=")]
    assert replies[0].startswith("= ") and replies[0].endswith(",workers=2)")
    assert "sims=60," in replies[0] and replies[2] == replies[0]
    assert re.fullmatch(r"= [A-HJ][1-7]", replies[3])  # a move on the 7x7 board
    default = runner.invoke(main, args, input="version\nquit\n")
    threads = default_threads()
    assert default.exit_code == 0
    assert ("workers=" in default.output) == (threads > 1)
    assert threads == 1 or f"workers={threads})" in default.output
    bad = runner.invoke(main, [*args, "--threads", "0"], input="quit\n")
    assert bad.exit_code == 2 and "--threads" in bad.output and "1<=x<=64" in bad.output
