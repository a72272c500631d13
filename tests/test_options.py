"""The one declaration of the UCT family's options and what is made from it: the spec-string
model, UctConfig's defaults and checks, the canonical string, the presets and the docs' tables."""

import dataclasses
import math
from pathlib import Path

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.agents.mcts import MctsAgent, MctsParams
from mctslab.errors import SpecError
from mctslab.search import UctConfig, options


@pytest.fixture(scope="module")
def nim():
    return mctslab.load_game("nim(n=10,k=3)")


@pytest.mark.parametrize("formula", options.FORMULAS)
def test_python_and_spec_strings_get_the_same_defaults(nim, formula):
    """``UctConfig(formula=f)`` resolves ``c`` in the search layer, as the spec string does."""
    direct = UctConfig(formula=formula)
    agent = make_agent(f"mcts(formula={formula},sims=10)", nim)
    assert direct == agent.config
    assert direct.c == options.DEFAULT_C[formula]
    assert f"c={direct.c}," in agent.spec_string
    assert UctConfig(formula=formula, c=0.25).c == 0.25


def test_c_defaults_per_formula():
    assert UctConfig().c == 0.7
    assert UctConfig(formula="paper").c == 0.4
    assert UctConfig(formula="book").c == UctConfig(formula="ucb1tuned").c == 1.0


def test_model_and_config_come_from_the_declaration():
    spec_keys = [o.name for o in options.OPTIONS if o.spec]
    assert list(MctsParams.model_fields) == spec_keys
    attrs = [f.name for f in dataclasses.fields(UctConfig)]
    assert attrs == [o.attr for o in options.OPTIONS if o.attr]
    config = UctConfig()
    for o in options.OPTIONS:
        if o.attr and not o.per_formula:
            assert getattr(config, o.attr) == o.default
        if o.spec and not o.per_formula:
            assert MctsParams.model_fields[o.name].default == o.default


def test_the_agent_builds_its_config_in_one_step(nim):
    agent = make_agent("mcts(formula=paper,expand=3,rave=paper,rave_k=50,sims=10)", nim)
    params = MctsAgent.prepare(MctsParams(formula="paper", expand=3, rave="paper", rave_k=50))
    assert agent.config == UctConfig.from_keys(params)
    assert (agent.config.c, agent.config.z, agent.config.rave_k) == (0.4, 3, 50.0)


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"c": math.inf}, "c=inf: not allowed; c takes float >=0 finite"),
        ({"c": math.nan}, "c=nan: not allowed; c takes float >=0 finite"),
        ({"c": -1.0}, "c=-1"),
        ({"rave_k": math.inf}, "rave_k=inf: not allowed; rave_k takes float >0 finite"),
        (
            {"formula": "uct"},
            "formula=uct: not allowed; formula takes slides|paper|paper_pm1|book|ucb1tuned",
        ),
        ({"final": "ratio"}, "final=ratio: not allowed; final takes robust|mean"),
        ({"z": 0}, "z=0: not allowed; z takes int >=1 <=1000000"),
        ({"solver": 1}, "solver=1: not allowed; solver takes true|false"),
    ],
)
def test_impossible_values_are_refused_in_python_too(keys, message):
    with pytest.raises(SpecError) as err:
        UctConfig(**keys)
    assert message in str(err.value)


def test_presets_are_declared_bundles_of_valid_keys():
    assert list(options.PRESETS) == [p.name for p in options.PRESET_LIST]
    assert options.BY_KEY["preset"].choices == tuple(options.PRESETS)
    for preset in options.PRESET_LIST:
        for key, value in preset.keys.items():
            options.BY_KEY[key].check(value)


def test_statistics_each_option_needs():
    assert UctConfig().node_statistics() == ()
    assert UctConfig(formula="ucb1tuned").node_statistics() == ("value_sq",)
    assert UctConfig(rave="paper").node_statistics() == ("amaf_n", "amaf_v")
    assert UctConfig(chance="expanded").node_statistics(chance_tree=True) == ("prob", "exact")
    assert UctConfig(chance="expanded").node_statistics(True, solver=False) == ("prob",)


def test_bytes_per_node_follow_the_needs(nim):
    plain = options.tree_bytes_per_node(UctConfig(), nim.spec)
    assert options.tree_bytes_per_node(UctConfig(formula="ucb1tuned"), nim.spec) == plain + 4
    assert options.tree_bytes_per_node(UctConfig(rave="paper"), nim.spec) == plain + 8


def test_describe_agents_lists_the_presets():
    from mctslab.agents import describe_agents

    text = describe_agents()
    c_line = (
        "c: float | None >=0, default slides 0.7, paper 0.4, paper_pm1 0.4, book 1, ucb1tuned 1"
    )
    assert c_line in text
    assert "pool_rave: rave=paper,pool=10" in text


def test_the_docs_hold_the_generated_tables():
    """``docs/enhancements.md`` holds ``markdown_presets()`` and ``markdown_options()`` as
    generated (regenerate them there after changing an option)."""
    docs = (Path(__file__).parents[1] / "docs" / "enhancements.md").read_text()
    assert options.markdown_presets() in docs
    assert options.markdown_options() in docs


def test_bench_presets_lists_the_declared_presets():
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    res = CliRunner().invoke(main, ["bench", "presets", "--list"])
    assert res.exit_code == 0, res.output
    assert res.output.strip("\n") == options.describe_presets().strip("\n")
    assert "pool_rave: rave=paper,pool=10 — RAVE plus PoolRAVE playouts" in res.output


@pytest.mark.parametrize(
    "game_spec, name",
    [("nogo(size=5)", "nogo"), ("hex(size=5)", "hex"), ("go(size=5)", "go"), ("nim(n=20)", "nim")],
)
def test_the_strong_preset_resolves_per_game_and_shows_every_key(game_spec, name):
    game = mctslab.load_game(game_spec)
    agent = make_agent("mcts(preset=strong,sims=10)", game, seed=1)
    keys = options.STRONG[name]
    assert keys  # each of these games has a measured configuration
    for key, value in keys.items():
        assert getattr(agent.config, options.BY_KEY[key].attr) == value
        assert f",{key}={options._fmt(value)}" in agent.spec_string
    # the canonical string rebuilds the same search, in that game and as written
    again = make_agent(agent.spec_string, game, seed=1)
    assert again.config == agent.config and again.spec_string == agent.spec_string


def test_keys_given_beside_the_strong_preset_win_and_other_games_get_plain_uct():
    nogo = mctslab.load_game("nogo(size=5)")
    agent = make_agent("mcts(preset=strong,c=0.3,playout=uniform,sims=10)", nogo, seed=1)
    assert (agent.config.c, agent.config.playout, agent.config.rave) == (0.3, "uniform", "paper")
    plain = make_agent("mcts(preset=uct,sims=10)", mctslab.load_game("2048"), seed=1)
    strong = make_agent("mcts(preset=strong,sims=10)", mctslab.load_game("2048"), seed=1)
    assert strong.config == plain.config
    assert "nogo: rave=paper" in options.describe_presets()


def test_a_key_of_a_playout_not_played_is_left_out_of_the_canonical_string():
    # nf_empty is read by the normal-form playouts only (only_with="playout"): beside another
    # playout, given or from a preset, it changes nothing and the string does not list it.
    nogo = mctslab.load_game("nogo(size=5)")
    contested = make_agent("mcts(playout=contested,nf_empty=30,sims=10)", nogo, seed=1)
    assert contested.spec_string == make_agent("mcts(playout=contested,sims=10)", nogo).spec_string
    nf2 = make_agent("mcts(playout=nf2,nf_empty=30,sims=10)", nogo, seed=1)
    assert nf2.spec_string.endswith(",playout=nf2,nf_empty=30)")
    assert make_agent(nf2.spec_string, nogo, seed=1).config == nf2.config
