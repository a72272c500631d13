"""The 2048 n-tuple network: features against a plain reference, symmetry invariance, the TD(0)
update against a step-by-step Python trace of the same games, learning that shows in play, the
network file (missing, corrupt, wrong shape, resumed training), the ``network`` agent, MDP MCTS
with ``leaf=network`` against an exact expectation, and ``mctslab train 2048``."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import MctslabError, SpecError
from mctslab.games import g2048_kernels as k
from mctslab.games import g2048_ntuple as nt
from mctslab.interfaces.cli.main import main
from mctslab.kernels.rng import as_state, seed_state
from mctslab.search.budget import Budget
from mctslab.search.mdp import Mdp, MdpConfig

BOARD = "2 4 8 16 / . 2 . 4 / . . 2 . / 4 . . 2"  # no symmetry maps it to itself
#: 16 distinct tiles: every feature of every symmetry reads a different index
DISTINCT = "2 4 8 16 / 32 64 128 256 / 512 1024 2048 4096 / 8192 16384 32768 4"


@pytest.fixture(scope="module")
def game():
    return mctslab.load_game("2048")


@pytest.fixture(scope="module")
def random_net(tmp_path_factory):
    """A network of random weights in [0, 1) (values differ between boards and moves)."""
    w = np.random.default_rng(0).random((len(nt.PATTERNS), nt.TABLE_SIZE), dtype=np.float32)
    path = tmp_path_factory.mktemp("net") / "random.npy"
    np.save(path, w)
    return w, str(path)


def bitboard(game, text):
    b, ok = k.pack(game.state_from_board(text).array)
    assert ok
    return np.uint64(b)


def cells(b):
    return [int((int(b) >> (4 * i)) & 15) for i in range(16)]


def reference_value(w, b):
    """V(b) by the definition: for each pattern and each symmetry of the square, the table entry
    indexed by the pattern's cells read through the symmetry."""
    e = cells(b)
    total = 0.0
    for p, pattern in enumerate(nt.PATTERNS):
        for sigma in nt.symmetries():
            idx = sum(e[sigma[c]] << (4 * j) for j, c in enumerate(pattern))
            total += float(w[p, idx])
    return total


def test_the_eight_symmetries_are_distinct_permutations():
    maps = nt.symmetries()
    assert len({tuple(m) for m in maps}) == 8
    assert all(sorted(m) == list(range(16)) for m in maps)
    assert maps[0] == list(range(16))
    fs = nt.feature_shifts()
    assert fs.shape == (32, 6) and fs.dtype == np.uint64


def test_value_is_the_sum_of_table_entries(game, random_net):
    w, _ = random_net
    fs = nt.feature_shifts()
    for text in (BOARD, "2 . . . / . . . . / . . . . / . . . .", DISTINCT):
        b = bitboard(game, text)
        assert k.network_afterstate_value(w, fs, b) == pytest.approx(reference_value(w, b), 1e-9)


def test_value_is_the_same_on_every_symmetric_board(game, random_net):
    w, _ = random_net
    fs = nt.feature_shifts()
    e = cells(bitboard(game, BOARD))
    values = set()
    for sigma in nt.symmetries():
        image = np.uint64(sum(e[sigma[i]] << (4 * i) for i in range(16)))
        values.add(round(k.network_afterstate_value(w, fs, image), 6))
    assert len(values) == 1


def test_an_update_moves_the_value_by_delta(game):
    """Each of the 32 weights V(b) sums gets delta / 32; on a board where they are 32 different
    weights V(b) moves by delta, where two features read the same entry (empty cells) by more."""
    w = nt.new_weights()
    fs = nt.feature_shifts()
    b = bitboard(game, DISTINCT)
    nt.update(w, fs, b, 3.2)
    assert k.network_afterstate_value(w, fs, b) == pytest.approx(3.2, rel=1e-6)
    assert np.count_nonzero(w) == 32
    w[:] = 0
    b = bitboard(game, BOARD)
    nt.update(w, fs, b, 3.2)
    shared = 32 - np.count_nonzero(w)
    assert shared > 0 and k.network_afterstate_value(w, fs, b) > 3.2


def trace_training(consts, w, fs, n_games, alpha, rng):
    """TD(0) afterstate learning written out step by step in Python (the module docstring's
    rule), with the kernels' own moves and spawns: the oracle for :func:`nt.train`."""
    for _ in range(n_games):
        b = np.uint64(0)
        b, rng = k.board_spawn(b, rng)
        b, rng = k.board_spawn(np.uint64(b), as_state(rng))
        rng = as_state(rng)
        prev = None
        while True:
            a, after, _, v = k.network_best_move(consts, w, fs, np.uint64(b))
            if prev is not None:
                target = v if a >= 0 else 0.0  # r + V(after), or 0 at the end
                nt.update(w, fs, prev, alpha * (target - k.network_afterstate_value(w, fs, prev)))
            if a < 0:
                break
            prev = np.uint64(after)
            b, rng = k.board_spawn(prev, rng)
            rng = as_state(rng)
    return rng


def test_training_is_the_td0_rule(game):
    fs = nt.feature_shifts()
    w1, w2 = nt.new_weights(), nt.new_weights()
    n = 3
    sc, mt = np.zeros(n, np.int64), np.zeros(n, np.int64)
    rng1 = nt.train(game.consts, w1, fs, n, 0.1, seed_state(11), sc, mt)
    rng2 = trace_training(game.consts, w2, fs, n, 0.1, seed_state(11))
    assert int(rng1) == int(rng2)
    touched = np.flatnonzero(w1 != 0)
    assert touched.size > 100
    np.testing.assert_allclose(w1.ravel()[touched], w2.ravel()[touched], rtol=1e-4, atol=1e-3)
    assert np.count_nonzero(w2) == touched.size
    assert (sc > 0).all() and (mt >= 5).all()


def test_learning_shows_in_play(game):
    """1,500 training games from zero make a player that scores several times what the untrained
    network scores (all values 0: the largest merge reward, ties to the first move, ~3,000 a
    game like greedy_corner in docs/chance-and-mdp.md)."""
    fs = nt.feature_shifts()
    w = nt.new_weights()
    n = 200
    sc, mt = np.zeros(n, np.int64), np.zeros(n, np.int64)
    nt.train(game.consts, w, fs, n, 0.0, seed_state(3), sc, mt)  # play only
    untrained = sc.mean()
    big = np.zeros(1500, np.int64)
    nt.train(game.consts, w, fs, 1500, nt.ALPHA, seed_state(4), big, big.copy())
    nt.train(game.consts, w, fs, n, 0.0, seed_state(3), sc, mt)  # play only
    assert sc.mean() > 2.5 * untrained, (untrained, sc.mean())


def test_missing_corrupt_and_wrong_files_say_how_to_make_one(tmp_path):
    with pytest.raises(MctslabError, match=r"no trained 2048 network at .*mctslab train 2048"):
        nt.load(tmp_path / "none.npy")
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not a numpy file at all")
    with pytest.raises(MctslabError, match=r"not a readable network file.*mctslab train 2048"):
        nt.load(bad)
    small = tmp_path / "small.npy"
    np.save(small, np.zeros((4, 10), dtype=np.float32))
    with pytest.raises(MctslabError, match=r"shape \(4, 10\), not a 2048 n-tuple network"):
        nt.load(small)


def test_training_saves_and_resumes(tmp_path):
    path = tmp_path / "net.npy"
    rows = []
    first = nt.train_network(30, path, seed=1, chunk=10, report=rows.append)
    assert first["games"] == 30 and [r["this_run"] for r in rows] == [10, 20, 30]
    w = nt.load(path)
    assert np.count_nonzero(w) > 0 and nt.load(path) is w  # read once, shared
    again = nt.train_network(20, path, seed=1, chunk=10)
    assert again["games"] == 50 and len(again["history"]) == 5
    assert nt.info(path)["games"] == 50
    assert not np.array_equal(nt.load(path), w)  # it went on from the saved weights
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.json", "net.npy"]
    fresh = nt.train_network(10, path, seed=1, chunk=10, resume=False)
    assert fresh["games"] == 10


def test_network_agent_plays_the_best_reward_plus_value(game, random_net):
    w, path = random_net
    state = game.state_from_board(BOARD)
    result = make_agent(f"network(network={path})", game).search(state)
    expect = []
    for a in state.legal_actions():
        after = state.clone()
        after.apply_action(a)
        b, _ = k.pack(after.array)
        r = after.returns()[0] - state.returns()[0]
        expect.append(r + reference_value(w, b))
    assert result.values == pytest.approx(expect, rel=1e-6)
    assert result.action == state.legal_actions()[int(np.argmax(expect))]


def test_network_leaf_at_depth_one_is_reward_plus_expected_state_value(game, random_net):
    """d = 1, leaf=network: Q(s, a) = r(a) + E_spawn[max_a' r(a') + V(after(a'))], the sample
    mean over spawns converging to the expectation over every outcome."""
    w, path = random_net
    fs = nt.feature_shifts()
    state = game.state_from_board(BOARD)
    mdp = Mdp(game, MdpConfig(d=1, c=1e9, leaf="network", network=path), seed=5)
    result = mdp.search(state, Budget(sims=20000))
    for a, q in zip(result.actions, result.values, strict=True):
        after = state.clone()
        after.apply_action(a)
        exact = after.returns()[0] - state.returns()[0]
        for o, p in after.chance_outcomes():
            nxt = after.clone()
            nxt.apply_action(o)
            exact += p * k.network_value(game.consts, w, fs, nxt.array)
        assert q == pytest.approx(exact, rel=2e-3), a


def test_network_leaf_is_checked(game, tmp_path):
    spec = SimpleNamespace(num_players=1, name="solo", spec_string="solo")
    with pytest.raises(SpecError, match=r"leaf=network needs a trained network.*solo lacks"):
        Mdp(SimpleNamespace(spec=spec, kernels=None), MdpConfig(leaf="network"), 1)
    with pytest.raises(SpecError, match="network is the file of leaf=network"):
        make_agent(f"mdp(network={tmp_path / 'x.npy'})", game)
    with pytest.raises(MctslabError, match="no trained 2048 network"):
        make_agent(f"mdp(leaf=network,network={tmp_path / 'x.npy'})", game)
    with pytest.raises(MctslabError, match="plays 2048 only"):
        make_agent("network", mctslab.load_game("nim"))


def test_train_command(tmp_path):
    out = tmp_path / "cli.npy"
    run = CliRunner().invoke(main, ["train", "2048", "--games", "20", "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "20 training games in all" in run.output
    assert json.loads(out.with_suffix(".json").read_text())["games"] == 20
    out.write_bytes(b"garbage")
    run = CliRunner().invoke(main, ["train", "2048", "--games", "5", "--out", str(out)])
    assert run.exit_code != 0 and "not a readable network file" in run.output
    assert "Traceback" not in run.output
