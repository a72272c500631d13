"""The walk-through in examples/enhancement/README.md stays true: each of its four steps for
Quality-Based Rewards is where the page says, and the enhancement changes the search when on."""

import inspect
import re
from pathlib import Path

import numpy as np

import mctslab
from mctslab.agents import make_agent
from mctslab.search import UctConfig, options, records, uct_template
from mctslab.search.budget import Budget
from mctslab.search.enhancements import qbr
from mctslab.search.uct import Uct, uct_params

README = Path(__file__).resolve().parents[1] / "examples" / "enhancement" / "README.md"


def test_the_page_names_the_files_it_walks_through():
    text = README.read_text()
    for path in (
        "src/mctslab/search/options.py",
        "src/mctslab/search/records.py",
        "src/mctslab/search/enhancements/qbr.py",
        "src/mctslab/search/uct_template.py",
    ):
        assert path in text
        assert (README.parents[2] / path).is_file()


def test_step_1_one_declaration_per_key_with_its_source():
    declared = {o.name: o for o in options.OPTIONS}
    for key in ("qbr", "qbr_a", "qbr_k"):
        assert [o.name for o in options.OPTIONS].count(key) == 1
        assert declared[key].source
        assert hasattr(UctConfig(), key)
    assert options.PRESETS["qbr"] == {"qbr": True}
    assert "qbr_a" in options.markdown_options()


def test_step_2_the_record_carries_it_and_its_statistics_exist_only_when_on():
    assert {"qbr", "qbr_a", "qbr_k"} <= set(records.UctParams._fields)
    assert "qbr" in records.PolicyStats._fields
    assert records.policy_stats(2, 49, qbr=False).qbr.shape == (0,)
    assert records.policy_stats(2, 49, qbr=True).qbr.shape == (records.N_QSTATS * 2,)
    game = mctslab.load_game("nogo(size=5)")
    params = uct_params(UctConfig(qbr=True, qbr_a=0.3), game.spec, True, False)
    assert params.qbr is True and params.qbr_a == 0.3 and params.qbr_k == 1.4
    assert Uct(game, UctConfig(qbr=True), seed=1).params.qbr


def test_step_3_its_kernel_is_compiled_once_and_calls_no_game_kernel():
    source = inspect.getsource(qbr)
    assert "@njit(cache=True)" in source
    assert "mctslab:game-kernels" not in source and "import game" not in source
    assert hasattr(qbr.qbr_adjust, "py_func")  # a Numba dispatcher, compiled in its own module


def test_step_4_the_template_calls_it_once_behind_its_switch():
    source = inspect.getsource(uct_template.uct)
    assert len(re.findall(r"\bqbr_adjust\(", source)) == 1
    assert "qbr = params.qbr" in source


def test_on_it_changes_the_search_off_it_costs_nothing():
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()

    def visits(spec):
        agent = make_agent(spec, game, seed=3)
        return np.array(agent.search(state, Budget(sims=400)).visits)

    plain, again, with_qbr = visits("mcts"), visits("mcts(qbr=false)"), visits("mcts(preset=qbr)")
    assert (plain == again).all()
    assert not (plain == with_qbr).all()
