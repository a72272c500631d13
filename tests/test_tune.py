"""The SPSA tuner (mctslab.harness.tune, mctslab tune): the arithmetic by hand, parameters and
scales, convergence on a noisy synthetic objective, exact resumption, refusals, and tiny runs on
Nim that store every game."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import sqlite3

import numpy as np
import pytest
from click.testing import CliRunner

import mctslab.harness.game as game_module
from mctslab.errors import MctslabError
from mctslab.harness import tune as tn
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main

AGENT = "mcts(sims=30)"


# -- arithmetic ----------------------------------------------------------------------------------
def test_schedule_by_hand_and_fishtest_end_values():
    p = tn.Param("x", 0.0, 10.0, 5.0, log=False)
    s = tn.Schedule.plan([p], 100, c_end=0.1, r_end=0.1)
    # range 10: c_end = 1, r_end = 0.01; A = 10, c = 1·100^0.101, a = 0.01·1²·110^0.602
    assert s.A == 10
    assert s.c[0] == pytest.approx(100**0.101) == pytest.approx(1.5922, abs=1e-4)
    assert s.a[0] == pytest.approx(0.01 * 110**0.602) == pytest.approx(0.16940, abs=1e-4)
    a_0, c_0 = s.gains(0)
    assert c_0[0] == pytest.approx(s.c[0])
    assert a_0[0] == pytest.approx(s.a[0] / 11**0.602)
    # at the last iteration c_k is c_end and a_k/c_k² is r_end, as Fishtest defines them
    a_n, c_n = s.gains(99)
    assert c_n[0] == pytest.approx(1.0)
    assert a_n[0] / c_n[0] ** 2 == pytest.approx(0.01)


def test_perturb_update_and_clipping_by_hand():
    lo, hi = np.array([0.0, 0.0]), np.array([5.5, 10.0])
    plus, minus = tn.perturb(np.array([5.0, 0.1]), [1, -1], [1.0, 0.5], lo, hi)
    assert plus.tolist() == [5.5, 0.0]  # 6.0 and -0.4 clipped
    assert minus.tolist() == pytest.approx([4.0, 0.6])
    new = tn.spsa_update([5.0, 2.0], [1, -1], [0.2, 0.1], [0.5, 0.25], 2.0, lo, hi)
    # θ + a/c·r·Δ = [5 + 0.4·2, 2 − 0.4·2] = [5.8, 1.2], the first clipped to 5.5
    assert new.tolist() == pytest.approx([5.5, 1.2])


def test_rademacher_is_plus_minus_one_and_seeded():
    draws = [tn.rademacher(7, k, 3) for k in range(40)]
    assert all(set(d.tolist()) <= {-1.0, 1.0} for d in draws)
    assert len({tuple(d) for d in draws}) > 4
    assert tn.rademacher(7, 5, 3).tolist() == draws[5].tolist()
    assert any(tn.rademacher(8, k, 3).tolist() != draws[k].tolist() for k in range(40))


# -- parameters and scales -----------------------------------------------------------------------
def test_parse_param_scales_and_starts():
    c = tn.parse_param("c=0.05..2")
    assert c.log and c.start == pytest.approx(math.sqrt(0.1))
    assert c.bounds == pytest.approx((math.log(0.05), math.log(2)))
    assert c.value(c.tuned(0.7)) == pytest.approx(0.7)
    lin = tn.parse_param("x=1..10")  # hi/lo = 10 < 20: linear, arithmetic mean
    assert not lin.log and lin.start == 5.5
    forced = tn.parse_param("c=0.05..2@0.7:lin")
    assert not forced.log and forced.start == 0.7
    assert tn.parse_param("q=1..2:log").log
    neg = tn.parse_param("b=-1..100")
    assert not neg.log and neg.start == 49.5


def test_param_value_clips_and_rounds_integers():
    p = tn.Param("pool", 1, 100, 10, log=True, integer=True)
    assert p.value(math.log(37.4)) == 37
    assert p.value(math.log(1000)) == 100
    assert p.value(-5.0) == 1
    assert p.format(37) == "37"
    assert tn.Param("c", 0.05, 2, 0.3, log=True).format(0.123456789) == "0.123457"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("c", "expected NAME=LO..HI"),
        ("c=a..b", "expected NAME=LO..HI"),
        ("c=2..1", "LO must be less than HI"),
        ("c=0..1@3", "outside"),
        ("c=-1..5:log", "log scale needs LO > 0"),
        ("c=0..inf", "finite"),
    ],
)
def test_parse_param_refuses_bad_text(text, problem):
    with pytest.raises(tn.TuneError, match=problem):
        tn.parse_param(text)


def test_with_keys_replaces_and_adds():
    assert tn.with_keys("mcts(preset=rave,time=0.1)", {"c": "0.37"}) == (
        "mcts(preset=rave,time=0.1,c=0.37)"
    )
    assert tn.with_keys("mcts(c=1,sims=5)", {"c": "0.2"}) == "mcts(c=0.2,sims=5)"
    assert tn.with_keys("mcts", {"c": "0.2"}) == "mcts(c=0.2)"


# -- the loop on a synthetic objective -----------------------------------------------------------
def _synthetic(opt: float = 3.0, slope: float = 0.08):
    """A noisy, deterministic objective: θ⁺ wins each of two games with probability
    logistic(f(x⁺) − f(x⁻)), f(x) = −slope·(x − opt)², drawn from the iteration's own seed."""

    def objective(trials):
        out = []
        for t in trials:
            rng = random.Random(f"synthetic:{t.iteration}")
            d = slope * ((t.minus["x"] - opt) ** 2 - (t.plus["x"] - opt) ** 2)
            p = 1 / (1 + math.exp(-d))
            out.append(sum(1 if rng.random() < p else -1 for _ in range(2)))
        return out

    return objective


def test_spsa_converges_toward_the_optimum_of_a_noisy_objective():
    p = tn.Param("x", 0.0, 10.0, 8.0, log=False)
    n = 300
    schedule = tn.Schedule.plan([p], n, c_end=0.1, r_end=0.2)
    steps = tn.spsa(_synthetic(), [p], schedule, n, seed=1)
    assert len(steps) == n
    final = steps[-1].theta_next[0]
    assert abs(final - 3.0) < 1.0  # from 8, five away
    assert abs(np.mean([s.theta[0] for s in steps[-50:]]) - 3.0) < 1.0
    # a start on the other side converges too
    q = tn.Param("x", 0.0, 10.0, 0.5, log=False)
    assert abs(tn.spsa(_synthetic(), [q], schedule, n, seed=2)[-1].theta_next[0] - 3.0) < 1.0


@pytest.mark.parametrize("batch", [1, 3])
def test_spsa_resumed_after_an_interrupt_repeats_the_same_iterates(batch):
    params = [tn.Param("x", 0.0, 10.0, 8.0, log=False), tn.Param("c", 0.05, 2, 0.3, log=True)]
    schedule = tn.Schedule.plan(params, 20, r_end=0.2)

    sizes = []

    def objective(trials):
        sizes.append(len(trials))
        return _synthetic()(trials)

    whole = tn.spsa(objective, params, schedule, 20, seed=3, batch=batch)
    assert sizes == [batch] * (20 // batch) + ([20 % batch] if 20 % batch else [])
    assert all(a.theta_next == b.theta for a, b in itertools.pairwise(whole))
    kept = []

    def stop_after_6(new):
        kept.extend(new)
        if len(kept) >= 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tn.spsa(objective, params, schedule, 20, seed=3, batch=batch, on_batch=stop_after_6)
    resumed = tn.spsa(objective, params, schedule, 20, seed=3, batch=batch, done=kept)
    assert resumed == whole
    assert len({tuple(s.theta) for s in whole}) > 5  # it moved


# -- games ---------------------------------------------------------------------------------------
def test_refuses_unknown_and_non_numeric_keys_before_any_game():
    with ResultsStore() as store:
        for param, problem in [
            ("foo=1..2", "has no key 'foo'; its numeric keys: sims, time, c,"),
            ("formula=1..2", r"key 'formula' of 'mcts\(sims=30\)' is not a number"),
            ("solver=0..1", r"key 'solver' of 'mcts\(sims=30\)' is not a number"),
            ("seed=0..9", r"key 'seed' of 'mcts\(sims=30\)' is not a number"),
            ("c=-1..2", "c=-1"),
        ]:
            with pytest.raises(tn.TuneError, match=problem):
                tn.run_tune("nim", AGENT, [param], 4, store)
        with pytest.raises(tn.TuneError, match="given twice"):
            tn.run_tune("nim", AGENT, ["c=0.1..2", "c=0.2..1"], 4, store)
        with pytest.raises(tn.TuneError, match="even number"):
            tn.run_tune("nim", AGENT, ["c=0.1..2"], 5, store)
        assert store.game_count() == 0


def test_cli_tunes_c_on_nim_stores_every_game_and_resumes(tmp_path):
    db = tmp_path / "t.sqlite"
    args = ["tune", "nim", AGENT, "--param", "c=0.05..2", "--db", str(db), "--workers", "1"]
    first = CliRunner().invoke(main, [*args, "--games", "6", "--json"])
    assert first.exit_code == 0, first.output
    out = json.loads(first.output)
    assert out["iterations"] == 3 and out["games"] == 6 and out["resumed_iterations"] == 0
    assert out["spec"].startswith("mcts(sims=30,c=")
    assert tn.parse_param("c=0.05..2").lo <= out["theta"]["c"] <= 2
    assert (tmp_path / "t.png").stat().st_size > 0
    with ResultsStore(db) as store:
        assert store.game_count() == 6
        rows = list(store.games())
    first_steps = _stored_steps(db)
    assert len(first_steps) == 3
    assert [r["seat_a"] for r in rows] == [0, 1] * 3
    assert rows[0]["players"][0] != rows[0]["players"][1]  # θ⁺ and θ⁻ differ
    # more games continue the stored run with the first run's schedule
    more = CliRunner().invoke(main, [*args, "--games", "10"])
    assert more.exit_code == 0, more.output
    assert "3 iterations resumed" in more.output and "schedule planned for 3" in more.output
    assert "tuned: mcts(sims=30,c=" in more.output
    with ResultsStore(db) as store:
        assert store.game_count() == 10
        assert [r["game_index"] for r in store.games()] == list(range(10))
    assert _stored_steps(db)[:3] == first_steps
    # another command on the same database is refused, with the stored command named
    other = CliRunner().invoke(main, [*args[:3], "--param", "c=0.1..2", "--db", str(db)])
    assert other.exit_code == 2
    assert "holds another tuning run (mctslab tune nim" in other.output


def _stored_steps(db) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT * FROM tune_steps ORDER BY iteration").fetchall()
    finally:
        con.close()


def test_interrupted_run_resumes_to_the_uninterrupted_trajectory(tmp_path, monkeypatch):
    params = ["c=0.05..2"]
    with ResultsStore(tmp_path / "whole.sqlite") as store:
        whole = tn.run_tune("nim", AGENT, params, 8, store, seed=5)
        whole_games = [(r["game_index"], r["players"], r["moves"]) for r in store.games()]
    real, calls = game_module.play_task, []

    def interrupt_at_the_fifth_game(task):
        calls.append(task.index)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(game_module, "play_task", interrupt_at_the_fifth_game)
    with ResultsStore(tmp_path / "cut.sqlite") as store:
        cut = tn.run_tune("nim", AGENT, params, 8, store, seed=5)
        assert cut.interrupted and len(cut.steps) == 2 and store.game_count() == 4
    monkeypatch.setattr(game_module, "play_task", real)
    with ResultsStore(tmp_path / "cut.sqlite") as store:
        resumed = tn.run_tune("nim", AGENT, params, 8, store, seed=5)
        resumed_games = [(r["game_index"], r["players"], r["moves"]) for r in store.games()]
    assert resumed.resumed == 2 and not resumed.interrupted
    assert resumed.steps == whole.steps
    assert resumed_games == whole_games
    assert resumed.spec == whole.spec


def test_against_an_opponent_puts_both_perturbed_agents_on_the_same_seat():
    with ResultsStore() as store:
        res = tn.run_tune("nim", AGENT, ["c=0.05..2"], 4, store, against="random", seed=2)
        rows = {r["game_index"]: r for r in store.games()}
    assert sorted(rows) == [0, 2, 5, 7]  # iteration 0 on seat 0, iteration 1 on seat 1
    for k, step in enumerate(res.steps):
        i, j = tn.game_indices(k, True)
        assert rows[i]["seat_a"] == rows[j]["seat_a"] == k % 2
        assert "random" in rows[i]["players"] and "random" in rows[j]["players"]
        assert step.result == 2 * (rows[i]["score_a"] - rows[j]["score_a"])
    assert res.scores == [rows[i]["score_a"] for i in (0, 2, 5, 7)]


def test_openings_start_both_games_of_an_iteration_from_its_opening(tmp_path):
    book = tmp_path / "nim.txt"
    book.write_text("1 2  # take one, then two\n3\n")
    with ResultsStore(tmp_path / "o.sqlite") as store:
        res = tn.run_tune("nim", AGENT, ["c=0.05..2"], 6, store, seed=3, openings=str(book))
        rows = {r["game_index"]: r for r in store.games()}
    assert sorted(rows) == list(range(6))
    lines = [[0, 1], [2]]  # the openings as actions, cycling by iteration
    for k in range(len(res.steps)):
        i, j = tn.game_indices(k, False)
        assert rows[i]["opening"] == rows[j]["opening"] == lines[k % 2]
        assert rows[i]["moves"][: len(lines[k % 2])] == lines[k % 2]
        assert {rows[i]["seat_a"], rows[j]["seat_a"]} == {0, 1}
    # the openings are part of the run: resuming the run with others is refused
    other = tmp_path / "other.txt"
    other.write_text("2\n")
    refused = pytest.raises(MctslabError, match="openings")
    with ResultsStore(tmp_path / "o.sqlite") as store, refused:
        tn.run_tune("nim", AGENT, ["c=0.05..2"], 6, store, seed=3, openings=str(other))


def test_a_bad_opening_is_refused_before_any_game(tmp_path):
    book = tmp_path / "bad.txt"
    book.write_text("1\n9\n")
    r = CliRunner().invoke(
        main,
        ["tune", "nim", AGENT, "--param", "c=0.05..2", "--openings", str(book),
         "--db", str(tmp_path / "b.sqlite")],
    )  # fmt: skip
    assert r.exit_code == 2
    assert "line 2: move 1 '9'" in r.output
    with ResultsStore(tmp_path / "b.sqlite") as store:
        assert store.game_count() == 0


def test_cli_errors_are_one_line_before_any_game(tmp_path):
    db = tmp_path / "e.sqlite"
    for param, problem in [
        ("nokey=1..2", "error: --param nokey: 'mcts(sims=30)' has no key 'nokey'"),
        ("c=1..0.5", "error: --param 'c=1..0.5': LO must be less than HI"),
    ]:
        r = CliRunner().invoke(main, ["tune", "nim", AGENT, "--param", param, "--db", str(db)])
        assert r.exit_code == 2
        assert r.output.strip().splitlines() == [r.output.strip()]
        assert r.output.startswith(problem)
    with ResultsStore(db) as store:
        assert store.game_count() == 0


@pytest.mark.slow
def test_workers_play_a_batch_concurrently_without_changing_the_iterates(tmp_path):
    runs = []
    for workers in (1, 2):
        with ResultsStore(tmp_path / f"w{workers}.sqlite") as store:
            res = tn.run_tune("nim", AGENT, ["c=0.05..2"], 8, store, batch=2, workers=workers)
            games = [(r["game_index"], r["players"], r["moves"]) for r in store.games()]
        runs.append((res.steps, games))
    assert runs[0] == runs[1]
    assert len(runs[0][1]) == 8


def test_trajectory_values_and_running_score():
    p = tn.Param("x", 0.0, 10.0, 5.0, log=False)
    steps = [
        tn.Step(0, [5.0], [0.1], [1.0], [1], 2.0, [6.0]),
        tn.Step(1, [6.0], [0.1], [1.0], [-1], 0.0, [6.5]),
    ]
    schedule = tn.Schedule.plan([p], 2)
    res = tn.TuneResult("nim", "mcts(sims=30)", "", [p], schedule, steps, [1.0, 0.0, 1.0, 1.0])
    xs, values, running = tn.trajectory(res)
    assert xs == [0, 1, 2] and values == {"x": [5.0, 6.0, 6.5]}
    assert math.isnan(running[0]) and running[1:] == [0.5, 0.75]
    assert res.spec == "mcts(sims=30,x=6.5)"


@pytest.mark.slow
def test_ray_backend_gives_the_local_iterates(tmp_path):
    ray = pytest.importorskip("ray")
    with ResultsStore(tmp_path / "local.sqlite") as store:
        local = tn.run_tune("nim", AGENT, ["c=0.05..2"], 8, store, batch=2, against="random")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with ResultsStore(tmp_path / "ray.sqlite") as store:
            remote = tn.run_tune(
                "nim", AGENT, ["c=0.05..2"], 8, store, batch=2, against="random", backend="ray"
            )
    finally:
        ray.shutdown()
    assert remote.steps == local.steps and remote.scores == local.scores


def test_integer_keys_are_found_and_rounded_in_the_played_specs():
    import mctslab

    nim = mctslab.load_game("nim")
    c, expand = tn.check_params(
        [tn.parse_param("c=0.05..2"), tn.parse_param("expand=1..8")], AGENT, nim
    )
    assert not c.integer and expand.integer and not expand.log
    with ResultsStore() as store:
        res = tn.run_tune("nim", AGENT, ["expand=1..8@3"], 4, store)
        played = {p for r in store.games() for p in r["players"]}
    assert all(re.search(r",expand=\d+,", p) for p in played)
    assert isinstance(res.values["expand"], int) and f"expand={res.values['expand']})" in res.spec
