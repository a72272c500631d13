"""The shipped az networks (mctslab.models): found by their card's game, played by ``az``
without ``net=``, listed by ``mctslab models``; a game without one gets a clear error."""

import json

import pytest
from click.testing import CliRunner

import mctslab
from mctslab import models
from mctslab.agents import make_agent
from mctslab.errors import MctslabError
from mctslab.interfaces.cli import main as cli
from mctslab.search.budget import Budget


@pytest.fixture
def shipped_folder(tmp_path, tiny_az_model, monkeypatch):
    """A models folder holding a tiny nim(n=9,k=3) network and its card, made the package's."""
    game = mctslab.load_game("nim(n=9,k=3)")
    folder = tmp_path / "models"
    folder.mkdir()
    tiny_az_model(game).rename(folder / "nim9.pt")
    card = {"game": game.spec.spec_string, "network": {"blocks": 1, "channels": 4},
            "parameters": 123, "games": 64, "training_seconds": 60.0,
            "evaluation": ["a measured claim"]}  # fmt: skip
    (folder / "nim9.json").write_text(json.dumps(card))
    (folder / "orphan.json").write_text(json.dumps({"game": "nogo(size=5)"}))  # no network
    (folder / "broken.json").write_text("{")
    real = models.shipped_models
    monkeypatch.setattr(models, "shipped_models", lambda folder_=None: real(folder_ or folder))
    return folder


def test_the_shipped_network_is_found_by_its_game_and_played_without_net(shipped_folder):
    game = mctslab.load_game("nim(n=9,k=3)")
    assert [m.game for m in models.shipped_models()] == [game.spec.spec_string]
    assert models.shipped(game.spec.spec_string).path == shipped_folder / "nim9.pt"
    assert models.shipped("nogo(size=5)") is None
    agent = make_agent("az(sims=8)", game, seed=0)
    state = game.new_initial_state()
    assert agent.step(state) in state.legal_actions()


def test_int8_is_in_the_canonical_string_only_when_asked_for(shipped_folder):
    """A key added later (canonical="changed") leaves the strings of older agents as they were."""
    game = mctslab.load_game("nim(n=9,k=3)")
    plain, int8 = make_agent("az(sims=8)", game), make_agent("az(int8=true,sims=8)", game)
    assert "int8" not in plain.spec_string and "c_puct=1.25" in plain.spec_string
    assert int8.spec_string == plain.spec_string.replace("sims=8,", "sims=8,int8=true,")
    assert make_agent(int8.spec_string, game).spec_string == int8.spec_string


def test_the_gumbel_keys_are_in_the_canonical_string_only_with_gumbel(shipped_folder):
    """A PUCT agent's string does not carry the Gumbel keys (only_with="gumbel"), so changing
    their defaults leaves it as it was; a Gumbel agent's string names them all."""
    game = mctslab.load_game("nim(n=9,k=3)")
    puct = make_agent("az(sims=8,gumbel_m=4)", game)
    gumbel = make_agent("az(sims=8,gumbel=true)", game)
    for key in ("gumbel_m", "c_visit", "c_scale", "gumbel_scale"):
        assert key not in puct.spec_string and f"{key}=" in gumbel.spec_string
    assert "gumbel=false" in puct.spec_string
    assert gumbel.spec_string.endswith(
        ",gumbel=true,gumbel_m=8,c_visit=50.0,c_scale=1.0,gumbel_scale=0.0)"
    )
    assert make_agent(gumbel.spec_string, game).spec_string == gumbel.spec_string


def test_the_cards_play_keys_are_the_shipped_networks_defaults(shipped_folder):
    """A card's ``play`` object sets keys of ``az`` without ``net=`` (visible in the canonical
    string); a key the spec gives, or a network of the user's own, is left as given."""
    game = mctslab.load_game("nim(n=9,k=3)")
    card_path = shipped_folder / "nim9.json"
    card = json.loads(card_path.read_text())
    card_path.write_text(json.dumps({**card, "play": {"endgame": 2}}))
    assert "endgame=2" in make_agent("az(sims=8)", game).spec_string
    # a key the card sets stays in the string at its default, so that it reads back as given
    off = make_agent("az(endgame=0,sims=8)", game)
    assert off.endgame == 0 and off.spec_string.endswith(",endgame=0)")
    assert make_agent(off.spec_string, game).spec_string == off.spec_string
    own = make_agent(f"az(net={shipped_folder / 'nim9.pt'},sims=8)", game)
    assert own.endgame == 0 and "endgame" not in own.spec_string
    card_path.write_text(json.dumps({**card, "play": {"endgame": -1}}))
    with pytest.raises(MctslabError, match="endgame"):
        make_agent("az(sims=8)", game)


def test_endgame_hands_timed_searches_with_few_moves_to_the_strong_mcts(shipped_folder):
    """``endgame=2`` on Nim (k = 3): with 3 legal moves, or with a budget of simulations only,
    the network searches (priors in the result); with 2 legal moves under a time budget,
    ``mcts(preset=strong)`` does (no priors; made with the agent, so that no timed move pays
    for loading it), and its tree is forgotten with the game."""
    game = mctslab.load_game("nim(n=9,k=3)")
    agent = make_agent("az(endgame=2,sims=8)", game, seed=0)
    three = game.new_initial_state()
    two = game.new_initial_state()
    for _ in range(7):
        two.apply_action(two.legal_actions()[0])
    assert len(three.legal_actions()) == 3 and len(two.legal_actions()) == 2
    assert make_agent("az(sims=8)", game).late is None and agent.late is not None
    late_tree = agent.late.searcher.tree
    empty = late_tree.used
    assert agent.search(two).priors and late_tree.used == empty
    assert agent.search(three, Budget(seconds=0.01)).priors and late_tree.used == empty
    result = agent.search(two, Budget(seconds=0.01))
    assert not result.priors and result.action in two.legal_actions()
    assert agent.late.spec_string.startswith("mcts(") and "playout=strategic" in (
        agent.late.spec_string
    )
    assert late_tree.used > empty
    agent.reset()
    assert late_tree.used == empty


def test_a_game_without_a_shipped_network_names_the_ones_that_have_one(shipped_folder):
    game = mctslab.load_game("nim(n=10,k=3)")
    with pytest.raises(MctslabError, match=r"no network ships for nim\(n=10.*shipped: nim\(n=9"):
        make_agent("az(sims=8)", game, seed=0)


def test_mctslab_models_lists_them(shipped_folder, monkeypatch):
    monkeypatch.setattr(cli.console, "width", 200)
    out = CliRunner().invoke(cli.main, ["models"])
    assert out.exit_code == 0
    assert "nim(n=9,k=3,coin=false)" in out.output and "a measured claim" in out.output
    assert "nogo(size=5)" not in out.output and "the defaults" in out.output
    card_path = shipped_folder / "nim9.json"
    card_path.write_text(
        json.dumps({**json.loads(card_path.read_text()), "play": {"endgame": 2, "int8": True}})
    )
    out = CliRunner().invoke(cli.main, ["models"])
    # written as a spec's keys are (booleans lowercase)
    assert "endgame=2,int8=true" in out.output and "the defaults" not in out.output
    # the card's lines joined by "; ", a line ending in ":" by a space
    card = json.loads(card_path.read_text())
    card_path.write_text(json.dumps({**card, "evaluation": ["seed 1:", "2 of 3", "4 of 5"]}))
    monkeypatch.setattr(cli.console, "width", 400)
    out = CliRunner().invoke(cli.main, ["models"])
    assert "seed 1: 2 of 3; 4 of 5" in out.output


def test_a_network_for_an_older_observation_is_refused_by_name(tmp_path):
    # NoGo's observation gained two legality planes: a network that reads three is refused with
    # both shapes named, not failed inside PyTorch
    pytest.importorskip("torch")
    from dataclasses import replace

    from mctslab.search import az_net

    game = mctslab.load_game("nogo(size=5)")
    shape = az_net.shape_for(game, blocks=1, channels=4)
    old = az_net.AzNet(replace(shape, planes=3))
    path = tmp_path / "old.pt"
    az_net.save(path, az_net.net_payload(old, game.spec.spec_string))
    with pytest.raises(MctslabError, match=r"\(3, 5, 5, 25\).*gives \(5, 5, 5, 25\)"):
        make_agent(f"az(net={path},sims=8)", game, seed=0)
    good = tmp_path / "good.pt"
    az_net.save(good, az_net.net_payload(az_net.AzNet(shape), game.spec.spec_string))
    state = game.new_initial_state()
    assert make_agent(f"az(net={good},sims=8)", game, seed=0).step(state) in state.legal_actions()
