"""The packed 2048 n-tuple network (:mod:`mctslab.games.g2048_ntuple_pack`): the codec's round
trip (zeros exact, every other weight its nearest level), cut-short and corrupt files, the order
in which agents look for a network, the shipped network playing, and ``mctslab train pack-2048``."""

import numpy as np
import pytest
from click.testing import CliRunner

from mctslab.errors import MctslabError
from mctslab.games import g2048_kernels as k
from mctslab.games import g2048_ntuple as nt
from mctslab.games import g2048_ntuple_pack as pack
from mctslab.interfaces.cli.main import main
from mctslab.kernels.rng import seed_state

SMALL = (2, 4096)
#: the real shipped file (the tests below move the places agents look)
SHIPPED = nt.shipped_path()


def synthetic_tables():
    """Two small tables shaped like trained ones: mostly exact zeros, the rest heavy-tailed of
    both signs (most weights within a few units, a few in the thousands)."""
    rng = np.random.default_rng(7)
    w = (rng.standard_t(1.5, SMALL) * 3).astype(np.float32)
    w[rng.random(SMALL) < 0.8] = 0
    w[0, 5], w[1, 9] = 4000.0, -900.0
    return w


def test_round_trip_keeps_zeros_and_takes_the_nearest_level(tmp_path):
    w = synthetic_tables()
    path = tmp_path / "net.npz.xz"
    pack.write(w, path)
    assert pack.is_packed(path)
    back = pack.read(path, SMALL)
    assert back.dtype == np.float32 and back.shape == SMALL
    assert np.array_equal(back == 0, w == 0)  # zeros exact, no weight lost to 0
    for p in range(SMALL[0]):
        x = w[p][w[p] != 0].astype(np.float64)
        levels = np.unique(back[p][back[p] != 0]).astype(np.float64)
        assert len(levels) <= pack.LEVELS
        assert levels[0] == pytest.approx(x.min(), rel=1e-5)  # the levels span the range
        assert levels[-1] == pytest.approx(x.max(), rel=1e-5)
        err = np.abs(back[p][w[p] != 0] - x)
        nearest = np.abs(levels[None, :] - x[:, None]).min(axis=1)
        np.testing.assert_allclose(err, nearest, atol=1e-9)  # no level is nearer
        assert err.max() <= np.diff(levels).max() / 2 * (1 + 1e-9)
        # the companding keeps the small weights within 0.06 (a linear grid of as many levels
        # over this range would be 0.5 to 2 off) and the large ones within 1% of themselves
        small = np.abs(x) < 10
        assert err[small].max() < 0.06
        assert np.max(err[~small] / np.abs(x[~small])) < 0.01


def test_the_codebook_is_the_companded_uniform_grid():
    values = np.array([-50.0, -1.0, 0.5, 2.0, 3000.0])
    lv = pack.codebook(values, 4.0).astype(np.float64)
    u = np.arcsinh(lv / 4.0)
    np.testing.assert_allclose(np.diff(u), (u[-1] - u[0]) / (pack.LEVELS - 1), rtol=1e-4)
    assert lv[0] == pytest.approx(-50, rel=1e-6) and lv[-1] == pytest.approx(3000, rel=1e-6)
    nearest = [int(np.argmin(np.abs(lv - v))) for v in values]
    assert list(pack.nearest(lv, values)) == nearest
    assert nearest[0] == 0 and nearest[-1] == pack.LEVELS - 1


def test_cut_short_corrupt_and_foreign_files_are_clear_errors(tmp_path):
    path = tmp_path / "net.npz.xz"
    pack.write(synthetic_tables(), path)
    data = path.read_bytes()
    cut = tmp_path / "cut.npz.xz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(MctslabError, match=r"cut.npz.xz is not a readable packed network"):
        pack.read(cut, SMALL)
    bad = tmp_path / "bad.npz.xz"
    bad.write_bytes(data[:40] + bytes(b ^ 0x55 for b in data[40:80]) + data[80:])
    with pytest.raises(MctslabError, match=r"not a readable packed network"):
        pack.read(bad, SMALL)
    with pytest.raises(MctslabError, match=r"packed network of another shape"):
        pack.read(path, (4, 4096))
    # through the loader: the message names how to make a network
    with pytest.raises(MctslabError, match=r"not a readable packed network.*mctslab train 2048"):
        nt.load(cut)
    with pytest.raises(MctslabError, match=r"another shape.*mctslab train 2048"):
        nt.load(path)


@pytest.fixture
def places(tmp_path, monkeypatch):
    """The trained and the shipped network's places moved to ``tmp_path`` (both missing)."""
    trained, shipped = tmp_path / "trained.npy", tmp_path / "shipped.npz.xz"
    monkeypatch.setattr(nt, "default_path", lambda: trained)
    monkeypatch.setattr(nt, "shipped_path", lambda: shipped)
    return trained, shipped


def test_agents_look_for_the_trained_network_then_the_shipped_one(places):
    trained, shipped = places
    assert nt.find_network() is None
    with pytest.raises(MctslabError, match=r"no trained 2048 network .* no shipped one"):
        nt.load()
    shipped.write_bytes(b"x")
    assert nt.find_network() == shipped
    trained.write_bytes(b"x")
    assert nt.find_network() == trained
    with pytest.raises(MctslabError, match=r"trained.npy is not a readable network file"):
        nt.load()  # the trained file first, even when it is broken
    with pytest.raises(MctslabError, match=r"no trained 2048 network at .*none.npy.*train 2048"):
        nt.load(trained.parent / "none.npy")  # an explicit file never falls back


def test_a_cut_short_shipped_file_is_a_clear_error(places):
    _, shipped = places
    shipped.write_bytes(SHIPPED.read_bytes()[:100_000])
    with pytest.raises(MctslabError, match=r"shipped.npz.xz is not a readable packed network"):
        nt.load()


def test_training_never_writes_the_shipped_file(places):
    _, shipped = places
    with pytest.raises(MctslabError, match=r"is the network shipped with mctslab"):
        nt.train_network(1, shipped)
    assert not shipped.exists()


def test_the_shipped_network_plays_far_above_the_untrained_one(tmp_path, monkeypatch):
    monkeypatch.setattr(nt, "default_path", lambda: tmp_path / "none.npy")
    assert nt.find_network() == nt.shipped_path()
    w = nt.load()
    assert w.shape == (4, nt.TABLE_SIZE) and w.dtype == np.float32
    consts, fs = k.make_consts(), nt.feature_shifts()
    n = 20
    untrained, shipped = np.zeros(n, np.int64), np.zeros(n, np.int64)
    tiles = np.zeros(n, np.int64)
    nt.train(consts, nt.new_weights(), fs, n, 0.0, seed_state(3), untrained, tiles)
    nt.train(consts, w, fs, n, 0.0, seed_state(3), shipped, tiles)  # alpha 0: play only
    assert shipped.mean() > 10 * untrained.mean(), (untrained.mean(), shipped.mean())
    assert np.mean(tiles >= 11) >= 0.7  # 2048 in most games


def test_pack_command(tmp_path, monkeypatch):
    monkeypatch.setattr(nt, "TABLE_SIZE", SMALL[1])
    monkeypatch.setattr(nt, "PATTERNS", nt.PATTERNS[:2])
    src, out = tmp_path / "net.npy", tmp_path / "out.npz.xz"
    np.save(src, synthetic_tables())
    run = CliRunner().invoke(main, ["train", "pack-2048", "--network", str(src), "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "out.npz.xz" in run.output and "non-zero weights, largest error" in run.output
    assert np.array_equal(nt.load(out) == 0, synthetic_tables() == 0)
    run = CliRunner().invoke(
        main, ["train", "pack-2048", "--network", str(tmp_path / "x.npy"), "--out", str(out)]
    )
    assert run.exit_code != 0 and "no trained 2048 network" in run.output
    assert "Traceback" not in run.output
