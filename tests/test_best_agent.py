"""``best(time=T)``: the strongest agent measured per game, made as the agent it stands for."""

from __future__ import annotations

import importlib.util

import pytest

import mctslab
from mctslab.agents import describe_agents, make_agent
from mctslab.agents.az import AzAgent
from mctslab.agents.mcts import MctsAgent
from mctslab.agents.mdp import MdpAgent
from mctslab.errors import SpecError
from mctslab.interfaces.gtp import Engine


@pytest.mark.parametrize(
    ("game_spec", "kind", "starts"),
    [
        ("nogo(size=7)", AzAgent, "az(time=0.3,"),
        ("hex(size=7)", AzAgent, "az(time=0.3,"),
        ("connect_four", AzAgent, "az(time=0.3,"),
        ("nogo(size=9)", MctsAgent, "mcts(time=0.3,"),
        ("go(size=9)", MctsAgent, "mcts(time=0.3,"),
        ("nim", MctsAgent, "mcts(time=0.3,"),
        ("2048", MdpAgent, "mdp(d=2,c=200.0,"),
    ],
)
def test_best_is_the_measured_strongest_agent_of_each_game(game_spec, kind, starts):
    agent = make_agent("best(time=0.3)", mctslab.load_game(game_spec), seed=1)
    assert type(agent) is kind
    assert agent.spec_string.startswith(starts)
    assert agent.budget.seconds == 0.3
    assert agent.budget.sims == (1000 if game_spec == "2048" else None)
    if kind is MctsAgent:
        assert "preset=strong" in agent.spec_string
    if game_spec == "2048":
        assert "leaf=network" in agent.spec_string


def test_best_on_nogo_7x7_is_az_up_to_the_cards_time_only():
    game = mctslab.load_game("nogo(size=7)")
    agent = make_agent("best", game, seed=1)
    assert type(agent) is AzAgent and agent.spec_string.endswith(",endgame=28)")
    assert agent.budget.seconds == 1.0
    assert type(make_agent("best(time=1.5)", game, seed=1)) is MctsAgent  # not measured there


def test_best_passes_its_seed_on():
    game = mctslab.load_game("nogo(size=9)")
    a = make_agent("best(time=0.05,seed=7)", game)
    b = make_agent("mcts(preset=strong,time=0.05,seed=7)", game)
    assert a.spec_string == b.spec_string


def test_best_takes_time_only_and_says_so():
    game = mctslab.load_game("nogo(size=9)")
    with pytest.raises(SpecError, match=r"agent best: unknown key\(s\) sims; allowed: time"):
        make_agent("best(sims=100)", game)
    with pytest.raises(SpecError, match="time"):
        make_agent("best(time=0)", game)


def test_best_without_pytorch_falls_back_to_the_strong_preset(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    agent = make_agent("best(time=0.3)", mctslab.load_game("hex(size=7)"), seed=1)
    assert type(agent) is MctsAgent and "preset=strong" in agent.spec_string


def test_best_is_listed_with_its_keys():
    text = describe_agents()
    assert "best: the strongest agent measured for the game" in text
    assert "time: float >0 <=86400, default 1.0" in text


def test_gtp_default_agent_follows_the_board_size():
    engine = Engine("hex", size=7, seed=1)
    assert type(engine.agent) is AzAgent
    assert engine.handle("boardsize 9") == "=\n\n"
    assert type(engine.agent) is MctsAgent and "preset=strong" in engine.agent.spec_string
