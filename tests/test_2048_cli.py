"""``mctslab play 2048 --agent`` and ``mctslab bench 2048``; the expectimax baseline."""

import json

import pytest
from click.testing import CliRunner

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.single_player import GAME_FIELDS
from mctslab.interfaces.cli.g2048 import (
    ROLLOUT_AGENT,
    agent_with_time,
    default_agent,
    play_one,
    summarise,
)
from mctslab.interfaces.cli.main import main


def test_play_shows_board_and_score():
    out = CliRunner().invoke(
        main, ["play", "2048", "--agent", "mdp(sims=3,d=1,leaf=zero)", "--seed", "4"]
    )
    assert out.exit_code == 0, out.output
    assert "score" in out.output and "game over" in out.output
    assert "player 0 (mdp(" in out.output and "value" in out.output


def test_bench_json_fields_and_tiles():
    args = ["bench", "2048", "--games", "2", "--agent", "expectimax(depth=1)", "--json"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["games"] == 2 and data["moves_per_second"] > 0
    reached = data["reached"]
    assert reached["128"] >= reached["256"] >= reached["2048"] >= reached["4096"]
    assert all(0.0 <= v <= 1.0 for v in reached.values())
    assert data["median_score"] > 0


def test_bench_refuses_a_bad_agent():
    out = CliRunner().invoke(main, ["bench", "2048", "--agent", "mdp(leaf=nope)"])
    assert out.exit_code == 2 and "leaf" in out.output


def test_time_is_added_only_without_a_budget():
    assert agent_with_time("mdp(d=3)", 0.1) == "mdp(d=3,time=0.1)"
    assert agent_with_time("mdp(sims=50)", 0.1) == "mdp(sims=50)"
    assert agent_with_time("expectimax(depth=2)", 0.1) == "expectimax(depth=2)"


def test_summary_counts_tiles_reached():
    games = [
        {"score": 100, "max_tile": 2048, "moves": 10, "seconds": 1.0, "slowest_move": 0.2},
        {"score": 300, "max_tile": 4096, "moves": 30, "seconds": 1.0, "slowest_move": 0.1},
        {"score": 200, "max_tile": 512, "moves": 20, "seconds": 1.0, "slowest_move": 0.1},
    ]
    s = summarise("x", 0.1, games)
    assert s["reached"]["2048"] == pytest.approx(2 / 3) and s["reached"]["4096"] == pytest.approx(
        1 / 3
    )
    assert s["median_score"] == 200 and s["moves_per_second"] == 20.0


def test_a_seed_replays_the_same_game():
    a = play_one("expectimax(depth=1)", seed=7, max_moves=150)
    b = play_one("expectimax(depth=1)", seed=7, max_moves=150)
    assert (a["score"], a["moves"], a["max_tile"]) == (b["score"], b["moves"], b["max_tile"])
    assert set(a) == set(GAME_FIELDS)  # what a --out file's lines are read back as


def test_expectimax_beats_random_moves_and_refuses_other_games():
    game = mctslab.load_game("2048")
    exp = play_one("expectimax(depth=1)", seed=1, max_moves=400)
    rnd = play_one("random", seed=1, max_moves=400)
    assert exp["score"] > rnd["score"]
    with pytest.raises(mctslab.MctslabError, match="2048 only"):
        make_agent("expectimax", mctslab.load_game("nim"))
    state = game.state_from_board("2 4 8 16 / 32 64 128 256 / 4 . . 2 / . . 2 .")
    assert make_agent("expectimax(depth=2)", game).step(state) in state.legal_actions()


def test_the_default_agent_is_the_network_agent_when_there_is_a_network(tmp_path, monkeypatch):
    from mctslab.games import g2048_ntuple

    monkeypatch.setattr(g2048_ntuple, "default_path", lambda: tmp_path / "net.npy")
    assert "leaf=network" in default_agent()  # the shipped network
    monkeypatch.setattr(g2048_ntuple, "shipped_path", lambda: tmp_path / "shipped.npz.xz")
    assert default_agent() == ROLLOUT_AGENT
    args = ["bench", "2048", "--games", "1", "--time-per-move", "0.001", "--json"]
    run = CliRunner().invoke(main, args)
    assert "no 2048 network (none trained, none shipped): measuring the rollout" in run.output
    g2048_ntuple.train_network(5, tmp_path / "net.npy", chunk=5)
    assert "leaf=network" in default_agent()


def test_the_rollout_agent_is_mdp_with_greedy_rollouts():
    game = mctslab.load_game("2048")
    agent = make_agent(agent_with_time(ROLLOUT_AGENT, 0.01), game, seed=1)
    assert "rollout=greedy" in agent.spec_string and "time=0.01" in agent.spec_string
    state = game.state_from_board("2 4 8 16 / 32 64 128 256 / 4 . . 2 / . . 2 .")
    assert agent.step(state) in state.legal_actions()


def test_bench_records_time_per_move_only_when_it_applies():
    base = ["bench", "2048", "--games", "1", "--time-per-move", "0.02", "--json"]
    own = CliRunner().invoke(main, [*base, "--agent", "mdp(d=1,sims=5,leaf=zero)"])
    assert own.exit_code == 0, own.output
    assert json.loads(own.output)["time_per_move"] is None  # its own sims budget
    timed = CliRunner().invoke(main, [*base, "--agent", "mdp(d=1,leaf=zero)"])
    assert timed.exit_code == 0, timed.output
    assert json.loads(timed.output)["time_per_move"] == 0.02


def test_summary_gives_wilson_intervals():
    games = [{"score": 1, "max_tile": 2048, "moves": 1, "seconds": 1.0, "slowest_move": 1.0}] * 98
    games += [{"score": 1, "max_tile": 1024, "moves": 1, "seconds": 1.0, "slowest_move": 1.0}] * 2
    lo, hi = summarise("x", None, games)["reached_interval"]["2048"]
    assert lo == pytest.approx(0.9300, abs=5e-4) and hi == pytest.approx(0.9945, abs=5e-4)


def test_out_file_resumes_and_extends_a_run(tmp_path):
    out = tmp_path / "games.jsonl"
    args = ["bench", "2048", "--agent", "mdp(d=1,sims=3,leaf=zero)", "--seed", "10", "--json"]
    first = CliRunner().invoke(main, [*args, "--games", "2", "--out", str(out)])
    assert first.exit_code == 0, first.output
    lines = out.read_text().splitlines()
    assert sorted(json.loads(x)["seed"] for x in lines) == [10, 11]
    with out.open("a") as f:  # a write cut short, and a game of another agent
        f.write(json.dumps({**json.loads(lines[0]), "agent": "other", "seed": 12}) + "\n")
        f.write('{"agent": "mdp(')
    more = CliRunner().invoke(main, [*args, "--games", "3", "--out", str(out)])
    assert more.exit_code == 0, more.output
    assert "2 of the 3 games are already in" in more.output
    assert "1 line(s) are not games (line 4); skipped" in more.output
    summary = json.loads(more.output.splitlines()[-1])
    assert summary["games"] == 3
    rows = [x for x in out.read_text().splitlines()]
    assert rows[3] == '{"agent": "mdp(' and json.loads(rows[4])["seed"] == 12  # ended, then added
    again = CliRunner().invoke(main, [*args, "--games", "3", "--out", str(out)])
    assert "3 of the 3 games are already in" in again.output
    assert len(out.read_text().splitlines()) == 5  # nothing played twice
