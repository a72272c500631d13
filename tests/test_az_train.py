"""AlphaZero training: Nim's theory learnt by self-play, resume after a kill, determinism, and
the trained network played by the az agent."""

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import MctslabError

torch = pytest.importorskip("torch")

from mctslab.harness.az_config import SELF_PLAY_GUMBEL_M, TrainConfig  # noqa: E402
from mctslab.harness.az_train import (  # noqa: E402
    CARD,
    CHECKPOINT,
    MODEL,
    Trainer,
    _worker_play,
    cpu_weights,
    expert_play,
    self_play,
    unpack_buffer,
    worker_jobs,
)
from mctslab.search import az_net  # noqa: E402
from mctslab.search.az_options import AzConfig  # noqa: E402

TINY = dict(blocks=1, channels=8, hidden=16, sims=8, games=4, batch=16, steps=3, seed=3)


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def greedy_mistakes(net, game) -> list[int]:
    """Positions n <= N with a winning move where the network's most probable move is not it
    (Nim's theory: the mover wins iff n mod (k+1) != 0, by taking n mod (k+1))."""
    k = game.params.k
    wrong = []
    for n in range(1, game.params.n + 1):
        s = game.new_initial_state().array.copy()
        s[0] = n  # nim_kernels.S_COUNTERS
        priors, _ = az_net.Evaluator(net)(game.observation(s)[None], game.legal_mask(s)[None])
        if n % (k + 1) and int(priors[0].argmax()) != n % (k + 1) - 1:
            wrong.append(n)
    return wrong


def test_nim_self_play_learns_the_theory(tmp_path):
    """nim(n=40,k=3): after at most 60 iterations (16 games of 32 simulations a move, 40 steps
    each; with self-play tree reuse 9 iterations and 4 s on one core under load, without it 37
    and 18 s, 2026-11-24) the network alone plays the winning move in every position that has
    one."""
    cfg = TrainConfig(
        game="nim(n=40,k=3)", blocks=1, channels=16, hidden=32, sims=32, games=16,
        temp_moves=4, batch=64, steps=40, lr=0.003, seed=0,
    )  # fmt: skip
    trainer = Trainer(cfg, tmp_path)
    assert len(greedy_mistakes(trainer.net, trainer.game)) > 10  # untrained
    for _ in range(60):
        trainer.iterate()
        if not greedy_mistakes(trainer.net, trainer.game):
            break
    assert greedy_mistakes(trainer.net, trainer.game) == []
    # the model file plays through the agent: from 13 counters take 1, from 30 take 2
    agent = make_agent(f"az(net={tmp_path / MODEL},sims=50)", trainer.game, seed=0)
    for n, best in ((13, 0), (30, 1)):
        state = trainer.game.new_initial_state()
        state.array[0] = n
        result = agent.search(state)
        assert result.action == best and len(result.priors) == 3
        assert result.network_value is not None and result.network_value > 0


def test_value_mix_trains_the_value_on_the_searchs_value_of_the_position():
    """nim(n=20,k=3), 32 simulations: MCTS-Solver proves the positions of a few counters, so with
    ``value_mix=1`` their targets are Nim's theory (the mover wins iff n mod 4 != 0); those of
    many counters are the search's mean values, strictly inside (-1, 1), where outcomes are
    +-1. The same games either way; ``value_mix=0.5`` halves the difference."""
    game = mctslab.load_game("nim(n=20,k=3)")
    torch.manual_seed(0)
    cfg = TrainConfig(game=game.spec.spec_string, **{**TINY, "sims": 32, "games": 8})
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16)).eval()
    outcome = self_play(game, net, cfg, 8, seed=1)
    mixed = self_play(game, net, dataclasses.replace(cfg, value_mix=1.0), 8, seed=1)
    assert np.array_equal(mixed["pi"], outcome["pi"])  # the same games
    assert set(outcome["z"].tolist()) <= {-1.0, 1.0}
    counters = mixed["obs"].reshape(len(mixed["z"]), -1).argmax(1)
    few = counters <= 4
    assert few.any() and np.array_equal(mixed["z"][few], np.where(counters[few] % 4, 1.0, -1.0))
    assert np.all(np.abs(mixed["z"][counters == 20]) < 1)
    half = self_play(game, net, dataclasses.replace(cfg, value_mix=0.5), 8, seed=1)
    assert np.allclose(half["z"], (outcome["z"] + mixed["z"]) / 2)


def test_a_resumed_run_is_the_run_that_did_not_stop(tmp_path):
    cfg = TrainConfig(game="nim(n=12,k=3)", **TINY)
    straight = Trainer(cfg, tmp_path / "a")
    straight.iterate()
    straight.iterate()
    first = Trainer(cfg, tmp_path / "b")
    first.iterate()
    resumed = Trainer(cfg, tmp_path / "b")  # reads the checkpoint
    assert resumed.iteration == 1
    resumed.iterate()
    for (k, a), b in zip(straight.net.state_dict().items(), resumed.net.state_dict().values(),
                         strict=True):  # fmt: skip
        assert torch.equal(a, b), k
    assert np.array_equal(straight.buffer.data["pi"], resumed.buffer.data["pi"])


def test_overlapped_self_play_plays_the_network_before_learning_and_resumes_exactly(tmp_path):
    cfg = TrainConfig(game="nim(n=12,k=3)", overlap=True, **TINY)
    straight = Trainer(cfg, tmp_path / "a")
    untrained = cpu_weights(straight.net)
    straight.iterate()
    # the second iteration's games went out before the first learning: the untrained network
    ahead = straight.ahead
    assert all(torch.equal(untrained[k], v) for k, v in ahead["net"].items())
    assert not all(torch.equal(untrained[k], v) for k, v in cpu_weights(straight.net).items())
    played = _worker_play(worker_jobs(cfg, straight.net, 1, ahead["seed"] * 1000, ahead["net"])[0])
    first_rows = straight.buffer.at
    straight.iterate()
    straight.close()
    assert np.array_equal(straight.buffer.data["pi"][first_rows : straight.buffer.at], played["pi"])
    assert np.array_equal(straight.buffer.data["z"][first_rows : straight.buffer.at], played["z"])
    stopped = Trainer(cfg, tmp_path / "b")
    stopped.iterate()
    stopped.close()  # the games in flight are dropped; the checkpoint describes them
    resumed = Trainer(TrainConfig(game="nim(n=12,k=3)"), tmp_path / "b")  # the run's own
    assert resumed.cfg.overlap
    assert not Trainer(cfg, tmp_path / "b", overlap=False).cfg.overlap  # switched off
    resumed.iterate()
    resumed.close()
    for (k, a), b in zip(straight.net.state_dict().items(), resumed.net.state_dict().values(),
                         strict=True):  # fmt: skip
        assert torch.equal(a, b), k
    assert np.array_equal(straight.buffer.data["pi"], resumed.buffer.data["pi"])


def test_a_resumed_run_takes_a_new_learning_rate_and_records_it(tmp_path):
    cfg = TrainConfig(game="nim(n=12,k=3)", **TINY)
    first = Trainer(cfg, tmp_path)
    first.iterate()
    assert first.opt.param_groups[0]["lr"] == cfg.lr
    dropped = Trainer(cfg, tmp_path, lr=cfg.lr / 10)  # the checkpoint's optimiser, a new rate
    assert [g["lr"] for g in dropped.opt.param_groups] == [cfg.lr / 10]
    assert dropped.cfg.lr == cfg.lr / 10
    dropped.iterate()
    card = json.loads((tmp_path / CARD).read_text())
    schedule = [{"iteration": 0, "lr": cfg.lr}, {"iteration": 1, "lr": cfg.lr / 10}]
    assert card["lr_schedule"] == schedule and card["config"]["lr"] == cfg.lr / 10
    again = Trainer(cfg, tmp_path)  # no rate given: the run keeps its own
    assert again.opt.param_groups[0]["lr"] == cfg.lr / 10 and again.lr_schedule == schedule


def test_a_step_schedule_drops_the_rate_at_its_iterations_also_across_a_resume(tmp_path):
    cfg = TrainConfig(game="nim(n=12,k=3)", lr_drops=(1, 3), **TINY)
    t = Trainer(cfg, tmp_path)
    t.iterate()
    assert t.opt.param_groups[0]["lr"] == cfg.lr
    t.iterate()  # the second iteration learns at a tenth
    assert t.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 10)
    resumed = Trainer(TrainConfig(game="nim(n=12,k=3)"), tmp_path)  # the run's own schedule
    resumed.iterate()
    assert resumed.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 10)
    resumed.iterate()
    assert resumed.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 100)
    card = json.loads((tmp_path / CARD).read_text())
    assert [e["iteration"] for e in card["lr_schedule"]] == [0, 1, 3]
    assert card["config"]["lr_drops"] == [1, 3]


def test_a_resumed_run_takes_a_new_schedule_of_the_drops_still_ahead(tmp_path):
    cfg = TrainConfig(game="nim(n=12,k=3)", lr_drops=(1, 3), **TINY)
    t = Trainer(cfg, tmp_path)
    t.iterate()
    t.iterate()  # at 1 the rate dropped; the drop at 3 is still ahead
    with pytest.raises(MctslabError, match="--lr-drop 1: the run is at iteration 2"):
        Trainer(cfg, tmp_path, lr_drops=(1, 4))
    moved = Trainer(cfg, tmp_path, lr_drops=(2, 4))  # 3 moved to 2 (the next iteration) and 4
    assert moved.cfg.lr_drops == (1, 2, 4)
    moved.iterate()
    assert moved.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 100)
    moved.iterate()  # iteration 3: no drop there any more
    assert moved.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 100)
    again = Trainer(cfg, tmp_path)  # no drops given: the run keeps its new schedule
    assert again.cfg.lr_drops == (1, 2, 4)
    again.iterate()
    assert again.opt.param_groups[0]["lr"] == pytest.approx(cfg.lr / 1000)
    card = json.loads((tmp_path / CARD).read_text())
    assert [e["iteration"] for e in card["lr_schedule"]] == [0, 1, 2, 4]


def test_the_checkpoint_keeps_the_buffer_compressed_and_exact(tmp_path):
    t = Trainer(TrainConfig(game="connect_four(rows=4,cols=5,connect=3)", **TINY), tmp_path)
    t.iterate()
    data = t.buffer.filled()
    raw = sum(v.nbytes for v in data.values())
    blob = torch.load(tmp_path / CHECKPOINT, weights_only=False)["buffer"]
    assert isinstance(blob, bytes) and len(blob) < raw / 3
    back = unpack_buffer(blob)
    assert back.keys() == data.keys()
    for k, v in data.items():
        assert back[k].dtype == v.dtype and np.array_equal(back[k], v), k


def test_the_same_seed_gives_the_same_network(tmp_path):
    nets = []
    for run in ("a", "b"):
        t = Trainer(TrainConfig(game="connect_four(rows=4,cols=5,connect=3)", **TINY),
                    tmp_path / run)  # fmt: skip
        t.iterate()
        nets.append(t.net.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(nets[0].values(), nets[1].values(), strict=True))


def test_kill_9_mid_run_leaves_a_checkpoint_that_resumes(tmp_path):
    out = tmp_path / "run"
    cmd = [
        sys.executable, "-c", "from mctslab.interfaces.cli.main import run; run()",
        "train", "az", "nim(n=12,k=3)", "--steps", "100000", "--out", str(out),
        "--blocks", "1", "--channels", "8", "--sims", "8", "--games", "4", "--learn-steps", "5",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            if (out / CHECKPOINT).exists() and Trainer(
                TrainConfig(game="nim(n=12,k=3)"), out
            ).iteration >= 2:
                break
            time.sleep(0.5)
    finally:  # kill -9 also when the wait failed, so that no training run is left behind
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    resumed = Trainer(TrainConfig(game="nim(n=12,k=3)"), out)
    done = resumed.iteration
    assert done >= 2 and resumed.cfg.channels == 8  # the run's own configuration
    (out / "tmpleftover.tmp").write_bytes(b"a write that kill -9 cut short")
    resumed.iterate()
    assert Trainer(TrainConfig(game="nim(n=12,k=3)"), out).iteration == done + 1
    assert not [p for p in out.iterdir() if p.suffix == ".tmp"]
    card = json.loads((out / CARD).read_text())
    assert card["game"] == "nim(n=12,k=3,coin=false)" and card["iterations"] == done + 1
    assert card["network"]["channels"] == 8 and card["parameters"] > 0
    assert card["learner_steps"] == 5 * (done + 1)  # --learn-steps, kept on resume


def test_an_untrained_network_never_chooses_an_illegal_move(tmp_path):
    game = mctslab.load_game("connect_four(rows=4,cols=5,connect=3)")
    t = Trainer(TrainConfig(game=game.spec.spec_string, **TINY), tmp_path)
    t.save()
    agent = make_agent(f"az(net={tmp_path / MODEL},sims=20)", game, seed=0)
    rnd = np.random.default_rng(0)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            move = agent.step(state)
            assert move in state.legal_actions()
            state.apply_action(int(rnd.choice(state.legal_actions())))


def test_a_checkpoint_of_another_game_is_refused(tmp_path):
    Trainer(TrainConfig(game="nim(n=12,k=3)", **TINY), tmp_path).save()
    with pytest.raises(mctslab.MctslabError, match="another --out folder"):
        Trainer(TrainConfig(game="connect_four"), tmp_path)
    with pytest.raises(mctslab.MctslabError, match="not for connect_four"):
        make_agent(f"az(net={tmp_path / MODEL})", mctslab.load_game("connect_four"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / CHECKPOINT).write_bytes(b"not a checkpoint")
    with pytest.raises(mctslab.MctslabError, match="not a checkpoint"):
        Trainer(TrainConfig(game="nim(n=12,k=3)"), tmp_path / "broken")


def test_a_checkpoint_for_another_observation_is_refused(tmp_path):
    # a NoGo run from before the legality planes: its first convolution reads 3 planes, not 5
    cfg = TrainConfig(game="nogo(size=5)", **TINY)
    t = Trainer(cfg, tmp_path)
    first = "stem.0.weight"
    t.save()
    ck = torch.load(tmp_path / CHECKPOINT, weights_only=False)
    ck["net"][first] = ck["net"][first][:, :3]
    torch.save(ck, tmp_path / CHECKPOINT)
    with pytest.raises(mctslab.MctslabError, match=rf"{first} is \(8, 3, 3, 3\).*\(8, 5, 3, 3\)"):
        Trainer(cfg, tmp_path)


def test_gumbel_self_play_draws_at_the_root_while_a_playing_agent_does_not():
    """Self-play's exploration is the root's Gumbel draws (scale 1, the paper's m = 16); the
    ``az`` agent's defaults play without draws over fewer actions, so changing those must not
    change training."""
    search = TrainConfig(game="nim(n=12,k=3)", gumbel=True, **TINY).search_config()
    assert (search.gumbel_scale, search.gumbel_m) == (1.0, SELF_PLAY_GUMBEL_M)
    playing = AzConfig()
    assert playing.gumbel_scale == 0.0 and playing.gumbel_m < SELF_PLAY_GUMBEL_M


def test_gumbel_self_play_trains_on_the_improved_policy(tmp_path):
    """With gumbel the policy targets are completed-Q improved policies: full distributions over
    the legal moves (not visit counts), summing to 1."""
    t = Trainer(TrainConfig(game="nim(n=12,k=3)", gumbel=True, **TINY), tmp_path)
    t.iterate()
    pi, mask = t.buffer.data["pi"][: len(t.buffer)], t.buffer.data["mask"][: len(t.buffer)]
    assert np.allclose(pi.sum(axis=1), 1.0, atol=1e-5)
    assert ((pi > 0) == mask).all()  # every legal move keeps some probability


def test_the_gumbel_agent_plays_legal_moves_and_needs_simulations(tmp_path):
    game = mctslab.load_game("connect_four(rows=4,cols=5,connect=3)")
    Trainer(TrainConfig(game=game.spec.spec_string, **TINY), tmp_path).save()
    agent = make_agent(f"az(net={tmp_path / MODEL},sims=16,gumbel=true,gumbel_m=4)", game, seed=1)
    state = game.new_initial_state()
    while not state.is_terminal():
        result = agent.search(state)
        assert result.action in state.legal_actions() and result.simulations == 16
        state.apply_action(result.action)
    timed = make_agent(f"az(net={tmp_path / MODEL},time=0.1,gumbel=true)", game, seed=1)
    with pytest.raises(mctslab.MctslabError, match="sims=N"):
        timed.search(game.new_initial_state())


def test_bench_az_reports_self_play_throughput():
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    args = ["bench", "az", "nim(n=12,k=3)", "--sims", "4", "--games", "2", "--blocks", "1",
            "--channels", "4", "--json"]  # fmt: skip
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["positions"] >= 6 and data["positions_per_second"] > 0
    assert data["simulations_per_second"] == pytest.approx(4 * data["positions_per_second"])
    res = CliRunner().invoke(main, [*args, "--gumbel"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["positions"] >= 6


def test_each_evaluated_network_plays_matches_stored_in_the_run_database(tmp_path):
    from mctslab.harness import az_eval
    from mctslab.harness.store import ResultsStore

    cfg = TrainConfig(game="nim(n=12,k=3)", eval_games=2, eval_every=1, eval_sims=4,
                      eval_against="random", **TINY)  # fmt: skip
    t = Trainer(cfg, tmp_path)
    t.iterate()
    t.iterate()
    first, second = t.evaluations
    assert first["promoted"] and "best" not in first and first["against"]["games"] == 2
    assert second["best"]["spec"] == f"az(net={tmp_path / 'models' / 'iter-00001.pt'},sims=4)"
    # as resolved: every key the agent had, so a preset changed later does not hide it
    assert "c_puct=" in second["best"]["resolved"] and first["against"]["resolved"] == "random"
    assert t.best in (first["model"], second["model"])
    assert (tmp_path / az_eval.PLOT).stat().st_size > 0
    store = ResultsStore(tmp_path / az_eval.EVAL_DB, readonly=True)
    try:
        assert len(store.runs()) == 3  # two against random, one against the best
    finally:
        store.close()
    card = json.loads((tmp_path / CARD).read_text())
    assert card["best"] == t.best and len(card["evaluations"]) == 2
    assert Trainer(cfg, tmp_path).evaluations == t.evaluations  # kept by the checkpoint


def test_a_moved_run_folder_resumes_its_evaluations_against_the_best_network(tmp_path):
    import shutil

    cfg = TrainConfig(game="nim(n=12,k=3)", eval_games=2, eval_every=1, eval_sims=4,
                      eval_against="random", **TINY)  # fmt: skip
    t = Trainer(cfg, tmp_path / "here")
    t.iterate()
    shutil.move(tmp_path / "here", tmp_path / "there")
    moved = Trainer(cfg, tmp_path / "there")
    assert moved.best == str(tmp_path / "there" / "models" / "iter-00001.pt")
    moved.iterate()  # plays the best network from its new place
    assert moved.evaluations[-1]["best"]["games"] == 2
    # without it the run stops at once with the file named, not after an iteration's training
    (tmp_path / "there" / "models" / "iter-00001.pt").unlink()
    (tmp_path / "there" / "models" / "iter-00002.pt").unlink()
    with pytest.raises(MctslabError, match=r"best network so far, .*iter-0000\d\.pt, is missing"):
        Trainer(cfg, tmp_path / "there")


def _roots_before_search(monkeypatch, cfg):
    """Self-play of ``cfg`` recording each search's roots (visits, priors) before it runs."""
    from mctslab.harness import az_train
    from mctslab.search.az import AzSearch

    seen = []
    run = AzSearch.run

    def spy(self, trees, roots, sims):
        seen.extend(
            (int(t.visits[0]), t.prior[t.first_child[0] : t.first_child[0] + 3].copy())
            for t in trees
        )
        return run(self, trees, roots, sims)

    monkeypatch.setattr(AzSearch, "run", spy)
    game = mctslab.load_game(cfg.game)
    net = az_net.AzNet(az_net.shape_for(game, cfg.blocks, cfg.channels, cfg.hidden))
    samples = az_train.self_play(game, net, cfg, cfg.games, seed=1)
    return seen, samples


def test_int8_self_play_evaluates_the_quantised_network_and_a_resumed_run_may_switch(
    tmp_path, monkeypatch
):
    """With ``int8`` self-play's evaluator is the 8-bit backend (az(int8=true)'s), its samples
    valid; the run records it, and a resumed run keeps it unless told otherwise."""
    pytest.importorskip("onnxruntime")
    made = []
    real = az_net.Evaluator

    def spy(net, backend=None, game=None):
        made.append(backend)
        return real(net, backend, game)

    monkeypatch.setattr(az_net, "Evaluator", spy)
    game = mctslab.load_game("connect_four")
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16))
    samples = self_play(game, net, TrainConfig(game="connect_four", int8=True, **TINY), 2, 0)
    assert made == [az_net.INT8]
    assert np.allclose(samples["pi"].sum(axis=1), 1.0) and len(samples["z"]) >= 14
    assert set(np.unique(samples["z"])) <= {-1.0, 0.0, 1.0}
    run = Trainer(TrainConfig(game="nim(n=12,k=3)", **TINY), tmp_path / "r", int8=True)
    run.iterate()
    run.close()
    assert made[-1] == az_net.INT8
    assert json.loads((tmp_path / "r" / CARD).read_text())["config"]["int8"] is True
    assert Trainer(TrainConfig(game="nim(n=12,k=3)"), tmp_path / "r").cfg.int8  # its own
    assert not Trainer(TrainConfig(game="nim(n=12,k=3)"), tmp_path / "r", int8=False).cfg.int8
    assert not Trainer(TrainConfig(game="nim(n=12,k=3)", **TINY), tmp_path / "new").cfg.int8


def test_self_play_reuses_the_subtree_of_the_move_played(monkeypatch):
    """With reuse (the default) a game's later searches start from the visits its previous
    search gave the move played, their roots re-noised; without it every search starts empty."""
    base = dict(TINY, game="nim(n=12,k=3)", sims=30)
    seen, samples = _roots_before_search(monkeypatch, TrainConfig(**base))
    inherited = [v for v, _ in seen if v > 0]
    assert inherited and len(inherited) < len(seen)  # the first search of each game is fresh
    assert np.allclose(samples["pi"].sum(axis=1), 1.0)
    seen_off, _ = _roots_before_search(monkeypatch, TrainConfig(**base, reuse=False))
    assert all(v == 0 for v, _ in seen_off)


def test_root_noise_on_a_reused_root():
    """noise_root mixes Dirichlet noise into an expanded root's priors: (1 - frac)·P + frac·η,
    still a distribution; nothing without noise or on an unexpanded root."""
    from mctslab.search import az_tree
    from mctslab.search.az import AzSearch
    from mctslab.search.az_options import AzConfig

    game = mctslab.load_game("nim(n=12,k=3)")
    tree = az_tree.new_tree(10)
    legal = np.array([0, 1, 2], dtype=np.int32)
    az_tree.expand(tree, 0, 0, legal, 3, np.array([0.5, 0.3, 0.2]), 0.0)
    before = tree.prior[1:4].copy()
    quiet = AzSearch(game, AzConfig(noise_frac=0.0), None, seed=0)
    quiet.noise_root(tree)
    assert np.array_equal(tree.prior[1:4], before)
    noisy = AzSearch(game, AzConfig(noise_frac=0.25, noise_alpha=0.3), None, seed=0)
    eta = np.random.default_rng(0).dirichlet(np.full(3, 0.3))
    noisy.noise_root(tree)
    assert tree.prior[1:4] == pytest.approx(0.75 * before + 0.25 * eta)
    assert tree.prior[1:4].sum() == pytest.approx(1.0)
    fresh = az_tree.new_tree(10)
    noisy.noise_root(fresh)  # unexpanded: its noise comes at expansion
    assert fresh.first_child[0] < 0


def test_playout_cap_randomization_keeps_only_the_full_searches(monkeypatch):
    """With ``fast_sims`` a move is searched in full (``sims``, root noise) with probability
    ``full_share``, else quickly (``fast_sims``, no noise), and only the full searches' positions
    become samples (Wu 2019, section 3.1)."""
    from mctslab.search.az import AzSearch

    calls = []
    run = AzSearch.run

    def spy(self, trees, roots, sims):
        calls.append((sims, self.config.noise_frac, len(trees)))
        return run(self, trees, roots, sims)

    monkeypatch.setattr(AzSearch, "run", spy)
    game = mctslab.load_game("nim(n=21,k=3)")
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16)).eval()
    cfg = TrainConfig(game=game.spec.spec_string, **{**TINY, "sims": 12, "games": 6})
    capped = dataclasses.replace(cfg, fast_sims=3, full_share=0.3)
    samples = self_play(game, net, capped, 6, seed=1)
    full = sum(n for sims, frac, n in calls if sims == 12)
    quick = sum(n for sims, frac, n in calls if sims == 3)
    assert {frac for sims, frac, _ in calls} == {cfg.noise_frac, 0.0}
    assert all(frac == 0.0 for sims, frac, _ in calls if sims == 3)
    assert full > 0 and quick > full  # about 30% in full
    assert len(samples["z"]) == full
    assert np.allclose(samples["pi"].sum(axis=1), 1.0)
    calls.clear()
    everything = self_play(game, net, dataclasses.replace(capped, full_share=1.0), 6, seed=1)
    assert {sims for sims, _, _ in calls} == {12}
    assert len(everything["z"]) == sum(n for _, _, n in calls)


def test_self_play_without_a_full_search_gives_empty_samples_the_buffer_takes():
    """When every move of a round was searched quickly, self-play returns no sample, in arrays
    of the usual shapes, so merging and the replay buffer go on as usual."""
    from mctslab.harness.az_train import Buffer, merge_samples

    game = mctslab.load_game("nim(n=6,k=3)")
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16)).eval()
    cfg = TrainConfig(game=game.spec.spec_string, **{**TINY, "sims": 12, "games": 2})
    none = self_play(game, net, dataclasses.replace(cfg, fast_sims=3, full_share=1e-12), 2, 1)
    some = self_play(game, net, cfg, 2, seed=1)
    assert len(none["z"]) == 0
    assert {k: v.shape[1:] for k, v in none.items()} == {k: v.shape[1:] for k, v in some.items()}
    assert {k: v.dtype for k, v in none.items()} == {k: v.dtype for k, v in some.items()}
    buffer = Buffer(100)
    buffer.add(none)
    buffer.add(merge_samples([none, some]))
    assert len(buffer) == len(some["z"])


def test_random_openings_start_games_after_random_moves_that_give_no_sample():
    """With ``random_openings`` = 1 every game begins with 1 to ``random_moves`` uniformly random
    moves, unsearched: no sample is of the initial position (n = 21), and a seeded run repeats
    them. Without, every game's first sample is the initial position."""
    game = mctslab.load_game("nim(n=21,k=3)")
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16)).eval()
    cfg = TrainConfig(game=game.spec.spec_string, **{**TINY, "sims": 8, "games": 6})
    first = game.observation(game.new_initial_state().array)

    def starts(samples):
        return sum(bool(np.array_equal(o, first)) for o in samples["obs"])

    assert starts(self_play(game, net, cfg, 6, seed=1)) == 6
    opened = dataclasses.replace(cfg, random_openings=1.0, random_moves=3)
    samples = self_play(game, net, opened, 6, seed=1)
    assert len(samples["z"]) > 0 and starts(samples) == 0
    again = self_play(game, net, opened, 6, seed=1)  # seeded: the same openings and games
    assert all(np.array_equal(samples[k], again[k]) for k in samples)


def test_temp_moves_draws_the_first_moves_and_then_plays_the_most_visited():
    """Without root noise and with ``temp_moves`` = 0 every game of a batch is the same game (the
    most visited move each time); with a draw in proportion to the visits for every move they
    differ."""
    game = mctslab.load_game("nim(n=21,k=3)")
    net = az_net.AzNet(az_net.shape_for(game, 1, 8, 16)).eval()
    quiet = TrainConfig(game=game.spec.spec_string, noise_frac=0.0, temp_moves=0, **TINY)

    def distinct_games(cfg):
        samples = self_play(game, net, cfg, 6, seed=1)
        one_game = len(samples["z"]) / 6
        return len({o.tobytes() for o in samples["obs"]}) / one_game

    assert distinct_games(quiet) == 1
    assert distinct_games(dataclasses.replace(quiet, temp_moves=100)) > 1


def test_keep_every_freezes_networks_between_the_evaluations(tmp_path):
    """``keep_every`` = 2 without evaluations: the networks of iterations 2 and 4 are kept, each
    the network as it was then (the later one has learnt more), and none of the others."""
    from mctslab.harness.az_eval import MODELS

    trainer = Trainer(TrainConfig(game="nim(n=12,k=3)", **TINY), tmp_path, keep_every=2)
    for _ in range(4):
        trainer.iterate()
    kept = sorted(p.name for p in (tmp_path / MODELS).iterdir())
    assert kept == ["iter-00002.pt", "iter-00004.pt"]
    second = az_net.load_net(tmp_path / MODELS / kept[0], trainer.cfg.game).state_dict()
    fourth = az_net.load_net(tmp_path / MODELS / kept[1], trainer.cfg.game).state_dict()
    now = trainer.net.state_dict()
    assert all(torch.equal(fourth[k].cpu(), now[k].cpu()) for k in now)
    assert not all(torch.equal(second[k], fourth[k]) for k in now)


def test_the_learner_and_self_play_options_reach_the_runs_configuration(tmp_path):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    out = tmp_path / "run"
    args = ["train", "az", "nim(n=12,k=3)", "--out", str(out), "--steps", "2", "--blocks", "1",
            "--channels", "4", "--sims", "4", "--games", "2", "--learn-steps", "1",
            "--batch", "16", "--buffer", "300", "--temp-moves", "0"]  # fmt: skip
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    resumed = Trainer(TrainConfig(game="nim(n=12,k=3)"), out)  # the run's own settings
    cfg = resumed.cfg
    assert (cfg.batch, cfg.buffer, cfg.temp_moves, cfg.steps) == (16, 300, 0, 1)
    assert resumed.buffer.capacity == 300


def test_the_new_run_options_take_their_defaults_from_the_configuration():
    """Each default is declared once, in TrainConfig: the command line's options read it."""
    from mctslab.interfaces.cli.az import train_az

    fields = {f.name: f.default for f in dataclasses.fields(TrainConfig)}
    # the option's field where its name differs (--steps is the run's length, not a field)
    named = {"learn_steps": "steps", "steps": None}
    checked = {}
    for param in train_az.params:
        field = named.get(param.name, param.name)
        if field in fields and isinstance(param.default, type(fields[field])):
            checked[field] = param.default
            assert param.default == fields[field], param.name
    assert {"blocks", "steps", "batch", "buffer", "temp_moves", "eval_against"} <= set(checked)
    assert len(checked) >= 20


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--sims", "8", "--fast-sims", "8"], "--fast-sims"),  # fewer quick simulations
        (["--gumbel", "--sims", "8", "--fast-sims", "2"], "--fast-sims"),  # and PUCT
        (["--random-openings", "1.5"], "--random-openings"),  # a share
        (["--expert", "mcts(sims=20)"], "--expert-iterations"),  # how many iterations
    ],
)
def test_bad_self_play_options_are_refused_before_a_run_starts(tmp_path, extra, option):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["train", "az", "nim(n=12,k=3)", "--out", str(out), *extra])
    assert res.exit_code == 2 and option in res.output and "Traceback" not in res.output
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--expert-iterations", "2"], ["expert iterations need an expert agent", "--expert"]),
        (["--expert", "mcts(simz=20)", "--expert-iterations", "2"], ["simz"]),
    ],
)
def test_expert_iterations_need_a_good_expert(tmp_path, extra, words):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["train", "az", "nim(n=12,k=3)", "--out", str(out), *extra])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert all(w in res.output for w in words), res.output
    assert not (out / CHECKPOINT).exists()


def test_the_expert_plays_the_first_iterations_its_visits_the_policy_targets(tmp_path, monkeypatch):
    """Expert Iteration's start: the expert's games, policy targets its root visits (a
    distribution over legal moves), value targets the outcomes; seeded, so the same samples
    again; then the network's own self-play."""
    from mctslab.games import load_game

    cfg = TrainConfig(game="nim(n=12,k=3)", expert="mcts(sims=40)", expert_iterations=1, **TINY)
    game = load_game(cfg.game)
    s = expert_play(game, cfg, 3, seed=5)
    assert len(s["z"]) >= 3 * 3  # at least 3 moves a game from 12 counters taking 1..3
    np.testing.assert_allclose(s["pi"].sum(axis=1), 1.0, rtol=1e-5)
    assert not (s["pi"] > 0)[s["mask"] == 0].any()  # only legal moves
    assert set(np.unique(s["z"])) <= {-1.0, 1.0}
    again = expert_play(game, cfg, 3, seed=5)
    assert all(np.array_equal(s[k], again[k]) for k in s)
    # a position where Nim's theory leaves one winning move: 40 simulations find it
    tail = game.new_initial_state()
    for _ in range(2):
        tail.apply_action(2)  # take 3 counters twice: 6 left, the winning move takes 2
    seat = make_agent(cfg.expert, game, seed=1)
    res = seat.search(tail)
    assert res.actions[int(np.argmax(res.visits))] == 1

    t = Trainer(cfg, tmp_path)
    assert t.cfg.expert.startswith("mcts(sims=40,") and "c=" in t.cfg.expert  # as resolved
    played = []
    import mctslab.harness.az_train as az_train

    for name in ("expert_play", "self_play"):
        original = getattr(az_train, name)

        def spy(*args, _name=name, _original=original, **kwargs):
            played.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(az_train, name, spy)
    t.iterate()
    t.iterate()
    assert played == ["expert_play", "self_play"]
    assert json.loads((tmp_path / CARD).read_text())["config"]["expert_iterations"] == 1
