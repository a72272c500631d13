"""The az network's evaluation backends (plain PyTorch, TorchScript, ONNX Runtime): their outputs
equal plain PyTorch's, the default and its fallback, and ``mctslab bench az-inference``."""

import importlib.util
import json

import numpy as np
import pytest

import mctslab
from mctslab.errors import MctslabError

torch = pytest.importorskip("torch")

from mctslab.search import az_net  # noqa: E402

AVAILABLE = [b for b in az_net.BACKENDS if az_net.backend_missing(b) is None]
#: what ``bench az-inference`` times: the exact backends and the 8-bit one
TIMED = AVAILABLE + [az_net.INT8] * (az_net.backend_missing(az_net.INT8) is None)


def random_net(game, seed: int) -> az_net.AzNet:
    """A small network with random batch-normalisation statistics and scales (an untrained one
    has means 0 and variances 1, which a wrong folding of them into the convolutions would pass)."""
    torch.manual_seed(seed)
    net = az_net.AzNet(az_net.shape_for(game, blocks=2, channels=8, hidden=16))
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            torch.nn.init.uniform_(m.weight, 0.5, 1.5)
            torch.nn.init.uniform_(m.bias, 0.0, 0.5)  # most units stay active after the ReLUs
    return net.eval()


def random_inputs(shape: az_net.NetShape, batch: int, seed: int):
    """Random observations in [0, 1] and random legal masks with at least one legal action."""
    rng = np.random.default_rng(seed)
    obs = rng.random((batch, shape.planes, shape.height, shape.width), dtype=np.float32)
    mask = rng.random((batch, shape.actions)) < 0.6
    mask[np.arange(batch), rng.integers(shape.actions, size=batch)] = True
    return obs, mask


@pytest.mark.parametrize("backend", AVAILABLE)
@pytest.mark.parametrize("spec", ["connect_four", "nogo(size=5)"])
def test_backend_outputs_equal_eager(spec, backend):
    game = mctslab.load_game(spec)
    net = random_net(game, seed=1)
    eager, other = az_net.Evaluator(net, "eager"), az_net.Evaluator(net, backend)
    for batch in (1, 8, 37):
        obs, mask = random_inputs(net.shape, batch, seed=batch)
        p0, v0 = eager(obs, mask)
        p1, v1 = other(obs, mask)
        assert p1.shape == p0.shape and p1.dtype == np.float64 and v1.shape == (batch,)
        assert np.abs(p1 - p0).max() < 1e-4 and np.abs(v1 - v0).max() < 1e-4
        assert (p1[~mask] == 0).all()
        np.testing.assert_allclose(p1.sum(axis=1), 1, atol=1e-5)
    assert other.evaluations == 1 + 8 + 37


@pytest.mark.skipif(az_net.backend_missing(az_net.INT8) is not None, reason="no ONNX Runtime")
def test_int8_backend_approximates_eager_on_real_positions():
    game = mctslab.load_game("nogo(size=5)")
    net = random_net(game, seed=4)
    eager, int8 = az_net.Evaluator(net, "eager"), az_net.Evaluator(net, az_net.INT8, game)
    obs, mask = az_net.random_positions(game, 300, seed=9)  # not the calibration positions
    p0, v0 = eager(obs, mask)
    p1, v1 = int8(obs, mask)
    assert p1.dtype == np.float64 and (p1[~mask] == 0).all()
    np.testing.assert_allclose(p1.sum(axis=1), 1, atol=1e-5)
    assert np.abs(p1 - p0).max() > 0  # 8-bit: not exact
    assert np.abs(p1 - p0).sum(axis=1).mean() < 0.05 and np.abs(v1 - v0).mean() < 0.05
    assert (p1.argmax(axis=1) == p0.argmax(axis=1)).mean() > 0.9
    with pytest.raises(MctslabError, match="needs the game"):
        az_net.Evaluator(net, az_net.INT8)


@pytest.mark.skipif(az_net.backend_missing(az_net.INT8) is not None, reason="no ONNX Runtime")
def test_int8_quantises_each_weights_once(monkeypatch):
    """A second network with the same weights (another agent loading the same file) reuses the
    quantised model, with the same outputs; changed weights are quantised again."""
    game = mctslab.load_game("nogo(size=5)")
    made = []
    real = az_net._int8_model
    monkeypatch.setattr(az_net, "_int8_model", lambda *a: made.append(1) or real(*a))
    net = random_net(game, seed=5)
    obs, mask = az_net.random_positions(game, 20, seed=9)
    p0, _ = az_net.Evaluator(net, az_net.INT8, game)(obs, mask)
    p1, _ = az_net.Evaluator(random_net(game, seed=5), az_net.INT8, game)(obs, mask)
    assert len(made) == 1 and np.array_equal(p0, p1)
    with torch.no_grad():
        next(net.parameters()).add_(0.5)
    az_net.Evaluator(net, az_net.INT8, game)
    assert len(made) == 2


def test_default_backend_and_its_fallback(monkeypatch):
    monkeypatch.delenv(az_net.BACKEND_ENV, raising=False)
    ort = importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("onnx")
    assert az_net.default_backend() == ("onnxruntime" if ort else "eager")
    net = random_net(mctslab.load_game("connect_four"), seed=2)
    assert az_net.Evaluator(net).backend == az_net.default_backend()

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name)
    )
    assert az_net.default_backend() == "eager"
    with pytest.raises(MctslabError, match="onnxruntime is not installed"):
        az_net.Evaluator(net, "onnxruntime")

    monkeypatch.setenv(az_net.BACKEND_ENV, "torchscript")
    assert az_net.Evaluator(net).backend == "torchscript"
    monkeypatch.setenv(az_net.BACKEND_ENV, "tensorrt")
    with pytest.raises(MctslabError, match="not a backend; allowed: eager, torchscript"):
        az_net.Evaluator(net)


@pytest.mark.parametrize("backend", [b for b in AVAILABLE if b != "eager"])
def test_compiled_backend_is_made_again_when_the_weights_change(backend):
    net = random_net(mctslab.load_game("connect_four"), seed=3)
    obs, mask = random_inputs(net.shape, 4, seed=0)
    first = az_net.Evaluator(net, backend)
    assert az_net.Evaluator(net, backend)._run is first._run  # same weights: made once
    before = first(obs, mask)
    with torch.no_grad():
        net.value_fc[0].bias.add_(1.0)  # a learner step, in place
    second = az_net.Evaluator(net, backend)
    assert second._run is not first._run
    np.testing.assert_array_equal(first(obs, mask)[1], before[1])  # the old weights, as made
    eager = az_net.Evaluator(net, "eager")(obs, mask)
    assert np.abs(second(obs, mask)[1] - eager[1]).max() < 1e-4
    assert np.abs(eager[1] - before[1]).max() > 1e-3


def run_cli(*args):
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    return CliRunner().invoke(main, ["bench", "az-inference", *args])


TINY = ["--blocks", "1", "--channels", "4", "--batch", "1", "--batch", "8", "--rounds", "2",
        "--seconds", "0.001"]  # fmt: skip


def test_bench_az_inference_prints_every_backend():
    res = run_cli("connect_four", *TINY)
    assert res.exit_code == 0, res.output
    out = res.output
    for backend in az_net.BACKENDS:
        if backend in AVAILABLE:
            assert out.count(f"│ {backend} ") == 2  # a row for each batch size
        else:
            assert f"{backend}: skipped: " in out
    for backend in AVAILABLE[1:]:
        assert f"{backend}: made in " in out and "(agree, < 0.0001)" in out
    assert f"the az Evaluator's backend here: {az_net.default_backend()}" in out


def test_bench_az_inference_json():
    res = run_cli("nogo(size=5)", *TINY, "--json")
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    assert r["game"] == "nogo(size=5)" and r["network"]["blocks"] == 1
    assert [(row["batch"], row["backend"]) for row in r["rows"]] == [
        (b, name) for b in (1, 8) for name in TIMED
    ]
    assert all(row["us_per_batch"] > 0 for row in r["rows"])
    assert all(row["speedup"] == 1 for row in r["rows"] if row["backend"] == "eager")
    assert all(b["agrees"] for b in r["backends"].values() if b["exact"])
    assert set(r["backends"]) | set(r["skipped"]) == {*az_net.BACKENDS, az_net.INT8}


def test_bench_az_inference_bad_game():
    res = run_cli("2048", *TINY)
    assert res.exit_code == 2 and "az plays two-player games without chance" in res.output
