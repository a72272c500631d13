"""The NoGo 7x7 and Hex 7x7 networks that ship (mctslab.models): each is found by its game with
its model card, and with a small search it beats plain MCTS at several times its simulations,
decisively (the Wilson lower bound above 50%), from the built-in openings with colours swapped.
The full evaluations (equal time against the strong preset, more games) are in the model cards
and docs/alphazero.md."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.schedule import run_match
from mctslab.models import shipped

pytest.importorskip("torch")

BOARDS = [("nogo(size=7)", "nogo7-first-moves"), ("hex(size=7)", "hex7-balanced")]


@pytest.mark.parametrize("spec", [spec for spec, _ in BOARDS])
def test_a_network_ships_with_its_card(spec):
    model = shipped(mctslab.load_game(spec).spec.spec_string)
    assert model is not None and model.path.stat().st_size < 5_000_000
    assert model.card["network"]["blocks"] >= 1 and model.card["evaluation"]


def test_the_cards_play_keys_apply_by_default(monkeypatch):
    """The cards' ``play`` keys, each measured stronger at equal time (docs/alphazero.md): NoGo
    7x7 hands its endgame to MCTS, Hex 7x7 runs its convolutions in 8-bit integers (on a CPU
    with 8-bit dot products); a spec's own key wins over the card's."""
    from mctslab.search import az_net

    monkeypatch.setattr(az_net, "int8_dot_products", lambda: True)
    nogo, hex7 = mctslab.load_game("nogo(size=7)"), mctslab.load_game("hex(size=7)")
    assert make_agent("az(time=0.2)", nogo).spec_string.endswith(",endgame=28)")
    assert "int8=true" not in make_agent("az(time=0.2)", nogo).spec_string
    hex_agent = make_agent("az(time=0.2)", hex7).spec_string
    assert "endgame" not in hex_agent and "int8=true" in hex_agent
    assert "int8=true" not in make_agent("az(int8=false,time=0.2)", hex7).spec_string


def test_the_hex_card_plays_floats_where_int8_cannot_run(monkeypatch):
    """Without ONNX Runtime (or with a GPU) the card's ``int8`` is not applied: it plays floats."""
    from mctslab.search import az_net

    game = mctslab.load_game("hex(size=7)")
    missing = {"onnxruntime": "not installed", az_net.INT8: "not installed"}
    monkeypatch.setattr(az_net, "backend_missing", missing.get)
    monkeypatch.setenv(az_net.BACKEND_ENV, "eager")
    agent = make_agent("az(sims=8)", game, seed=1)
    assert "int8" not in agent.spec_string
    assert agent.step(game.new_initial_state()) in range(49)


def test_the_hex_card_plays_floats_on_a_cpu_without_int8_dot_products(monkeypatch, tmp_path):
    """A CPU known to lack 8-bit dot products (an AVX2-only AMD EPYC's flags) plays the card in
    floats, where 8-bit evaluation measured slower; one that has them (or cannot tell) in int8;
    a spec's own ``int8=true`` is kept either way."""
    from mctslab.search import az_net

    zen1, xeon = tmp_path / "zen1", tmp_path / "xeon"
    zen1.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n")
    xeon.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_vnni amx_int8\n")
    assert az_net.int8_dot_products(zen1) is False and az_net.int8_dot_products(xeon) is True
    assert az_net.int8_dot_products(tmp_path / "absent") is None
    game, real = mctslab.load_game("hex(size=7)"), az_net.int8_dot_products
    for cpu, int8 in ((zen1, False), (xeon, True), (tmp_path / "absent", True)):
        monkeypatch.setattr(az_net, "int8_dot_products", lambda cpu=cpu: real(cpu))
        assert ("int8=true" in make_agent("az(time=0.2)", game).spec_string) == int8
    assert "int8=true" in make_agent("az(int8=true,time=0.2)", game).spec_string


def test_an_own_int8_on_a_cpu_without_8_bit_dot_products_is_said_once(monkeypatch, capsys):
    """A spec's ``int8=true`` on a CPU known to lack 8-bit dot products plays as asked, and the
    process says once on stderr that floats are faster there; not where the CPU has them, and
    not for the card's ``int8``, which is not applied there."""
    pytest.importorskip("onnxruntime")
    from mctslab.agents import az as az_agent
    from mctslab.search import az_net

    game = mctslab.load_game("hex(size=7)")
    az_agent._say_int8_slow.cache_clear()  # as in a new process
    monkeypatch.setattr(az_net, "int8_dot_products", lambda: True)
    make_agent("az(int8=true,time=0.2)", game)
    assert "8-bit dot products" not in capsys.readouterr().err
    monkeypatch.setattr(az_net, "int8_dot_products", lambda: False)
    assert "int8=true" in make_agent("az(int8=true,time=0.2)", game).spec_string
    make_agent("az(int8=true,time=0.2)", game)
    make_agent("az(time=0.2)", game)
    assert capsys.readouterr().err.count("8-bit dot products") == 1


@pytest.mark.parametrize("agent", ["az(int8=false,sims=50)", "az(int8=true,sims=50)"])
@pytest.mark.parametrize("spec, openings", BOARDS)
def test_the_shipped_network_beats_plain_mcts_with_four_times_its_simulations(
    spec, openings, agent
):
    """In floats and with the network's convolutions in 8-bit integers (``int8``)."""
    res = run_match(spec, agent, "mcts(sims=200)", 12, seed=1, openings=openings)
    assert res.summary.ci95[0] > 0.5, res.summary
    a_specs = {row["players"][row["seat_a"]] for row in res.rows}
    assert all(("int8=true" in a) == ("int8=true" in agent) for a in a_specs)
