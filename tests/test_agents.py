"""Agents from spec strings: strict parsing, canonical strings, the common interface."""

import pytest

import mctslab
from mctslab.agents import describe_agents, make_agent
from mctslab.errors import MctslabError, SpecError


@pytest.fixture(scope="module")
def nim():
    return mctslab.load_game("nim(n=10,k=3)")


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts(sim=10)", "unknown key(s) sim"),
        ("mcts(c=-1)", "c=-1"),
        ("mcts(formula=uct)", "formula=uct"),
        ("mcts(expand=0)", "expand=0"),
        ("mcts(final=best)", "final=best"),
        ("mcts(reuse=maybe)", "reuse=maybe"),
        ("flat(time=0)", "time=0"),
        ("random(sims=3)", "unknown key(s) sims"),
        ("alphazero", "known agents: random, flat, mcts"),
        ("mcts(sims=10", "closing"),
        ("mcts(c=inf)", "c=inf: input should be a finite number"),
        ("mcts(c=nan)", "c=nan: input should be a finite number"),
        ("mcts(rave_k=inf)", "rave_k=inf: input should be a finite number"),
        ("mcts(time=inf)", "time=inf: input should be a finite number"),
        ("mcts(time=86401)", "time=86401: input should be less than or equal to 86400"),
        ("flat(time=inf)", "time=inf: input should be a finite number"),
        ("mdp(time=nan)", "time=nan: input should be a finite number"),
        ("mdp(c=inf)", "c=inf: input should be a finite number"),
        ("mcts(final=ratio)", "final=ratio: input should be 'robust' or 'mean'"),
    ],
)
def test_bad_specs_name_the_problem_and_the_allowed_keys(nim, spec, message):
    with pytest.raises(SpecError) as err:
        make_agent(spec, nim)
    assert message in str(err.value)
    if "unknown key" in message or "=" in message:
        assert "allowed:" in str(err.value)

    key = spec.partition("(")[2].partition("=")[0]
    ranges = {"c": ">=0", "rave_k": ">0", "time": ">0 <=86400"}
    if key in ranges:  # the allowed range of the key is named
        assert f" {key}: float" in str(err.value)
        assert f"{ranges[key]}, default" in str(err.value).split(f" {key}: float", 1)[1]


def test_canonical_spec_strings_round_trip(nim):
    a = make_agent("mcts(formula=paper,time=0.5)", nim)
    assert a.spec_string == (
        "mcts(time=0.5,formula=paper,c=0.4,expand=1,expand_all=true,final=robust,reuse=true,"
        "solver=true,max_nodes=2000000,leaf=playout)"
    )
    assert make_agent(a.spec_string, nim).spec_string == a.spec_string
    assert make_agent("flat", nim).spec_string == "flat(sims=1000)"
    assert make_agent("random(seed=4)", nim).spec_string == "random(seed=4)"


def test_describe_agents_lists_every_key_with_ranges_and_defaults():
    text = describe_agents()
    for word in ("random:", "flat:", "mcts:", "slides|paper|paper_pm1|book|ucb1tuned",
                 "expand: int >=1", "default robust", "leaf: playout|coin"):  # fmt: skip
        assert word in text


@pytest.mark.parametrize("spec", ["random", "flat(sims=200)", "mcts(sims=200)"])
def test_every_agent_steps_searches_and_resets(nim, spec):
    agent = make_agent(spec, nim, seed=3)
    state = nim.new_initial_state()
    before = state.array.copy()
    result = agent.search(state)
    assert (state.array == before).all() and state.history == []
    assert result.action in state.legal_actions()
    assert agent.last_result is None
    action = agent.step(state)
    assert agent.last_result is not None and agent.last_result.action == action
    agent.reset()
    assert agent.last_result is None


def test_seeds_make_agents_reproducible(nim):
    def moves(spec, seed):
        return [make_agent(spec, nim, seed=seed).search(nim.new_initial_state()).visits]

    assert moves("flat(sims=300)", 1) == moves("flat(sims=300)", 1)
    assert moves("mcts(sims=300,seed=9)", 1) == moves("mcts(sims=300,seed=9)", 2)


def test_flat_is_round_robin_and_picks_the_best_mean(nim):
    r = make_agent("flat(sims=3000)", nim, seed=1).search(nim.new_initial_state())
    assert r.visits == [1000, 1000, 1000]
    assert r.action == max(range(3), key=lambda i: r.values[i])
    assert r.win_ratio == max(r.values)


def test_searching_a_finished_game_is_an_error(nim):
    state = mctslab.load_game("nim(n=1,k=3)").new_initial_state()
    state.apply_action(0)
    for spec in ("random", "flat", "mcts"):
        with pytest.raises(MctslabError):
            make_agent(spec, state.game).search(state)


def test_final_move_rules():
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()
    for final, key in (("robust", "visits"), ("mean", "values")):
        r = make_agent(f"mcts(sims=2000,final={final})", game, seed=1).search(state)
        scores = getattr(r, key)
        assert scores[r.actions.index(r.action)] == max(scores)
        assert r.win_ratio == r.values[r.actions.index(r.action)]


def test_a_key_that_undoes_its_preset_stays_in_the_canonical_string(nim):
    """``preset=rave,rave=off`` is plain UCT with the preset's name: its canonical string must
    say ``rave=off``, or it would read back as RAVE."""
    a = make_agent("mcts(preset=rave,rave=off,sims=10)", nim)
    assert a.spec_string.endswith("preset=rave,rave=off)")
    assert a.config.rave == "off"
    assert make_agent(a.spec_string, nim).config.rave == "off"
    assert make_agent("mcts(preset=rave,sims=10)", nim).spec_string.endswith(
        "preset=rave,rave=paper)"
    )


def test_max_nodes_beyond_the_memory_is_refused_with_the_most_that_fits(nim, monkeypatch):
    from mctslab.search import options

    monkeypatch.setattr(options, "available_memory", lambda: 50_000_000)
    with pytest.raises(SpecError) as err:
        make_agent("mcts(max_nodes=10000000,sims=10)", nim)
    msg = str(err.value)
    assert "max_nodes=10000000: needs" in msg and "50 MB of memory is available" in msg
    most = int(msg.rsplit("at most max_nodes=", 1)[1].split()[0])
    config = make_agent(f"mcts(max_nodes={most},sims=10)", nim).config
    assert options.memory_needed(config, nim.spec, 1, most) <= 50_000_000
    assert options.memory_needed(config, nim.spec, 1, most + 1) > 50_000_000
    with pytest.raises(SpecError, match="x 4 workers"):
        make_agent(f"mcts(max_nodes={most},workers=4,sims=10)", nim)


def test_a_tree_that_cannot_be_allocated_is_a_clear_error_not_an_internal_one():
    """Under a memory limit (ulimit -v) MemAvailable passes the check, the allocation fails: a
    child process limits its address space to 512 MB more than it uses after a small search
    was set up, then asks for a tree of about 1.75 GB."""
    import subprocess
    import sys

    code = (
        "import resource, re, mctslab\n"
        "from mctslab.agents import make_agent\n"
        "from mctslab.errors import SpecError\n"
        "nim = mctslab.load_game('nim')\n"
        "make_agent('mcts(max_nodes=100,sims=10)', nim)\n"
        "vm = int(re.search(r'VmSize:\\s+(\\d+)', open('/proc/self/status').read())[1]) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (vm + 2**29, vm + 2**29))\n"
        "try:\n"
        "    make_agent('mcts(max_nodes=50000000,sims=10)', nim)\n"
        "except SpecError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.startswith("max_nodes=50000000: the "), out.stdout + out.stderr[-2000:]
    assert "could not be allocated" in out.stdout and "give a smaller max_nodes" in out.stdout
