"""Compiling ahead of the first move (``agents/warmup.py``, ``mctslab compile``): the markers that
tell a cold agent from a warm one, the notice before a cold one, and a GTP engine that answers
while its agent is still being made."""

import threading

import pytest
from click.testing import CliRunner

import mctslab
from mctslab.agents import warmup
from mctslab.errors import MctslabError, SpecError
from mctslab.interfaces.cli.main import main
from mctslab.interfaces.gtp import Engine


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder for the markers (and for the compile command's processes; this
    process's Numba read its folder at import), and no notices given yet."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "_announced", set())
    return tmp_path


def test_the_compiled_key_is_the_game_and_the_agent_kind():
    game = mctslab.load_game("nogo(size=5)")
    key = warmup.compiled_key("mcts(sims=5,time=1,seed=3,workers=2,c=0.5)", game)
    assert key == "nogo:mcts" == warmup.compiled_key("mcts(preset=strong)", game)
    assert warmup.compiled_key("flat", game) != key
    assert warmup.compiled_key("mcts", mctslab.load_game("hex(size=5)")) != key


def test_a_cold_agent_is_announced_once_then_marked_warm(cache):
    game = mctslab.load_game("nogo(size=5)")
    said = []
    agent = warmup.make_announced("mcts(sims=10)", game, seed=1, say=said.append)
    assert said == [warmup.cold_notice(agent.spec_string)]
    assert warmup.is_warm(agent.spec_string, game)
    assert list((cache / "mctslab-warm").iterdir())
    # another configuration of the same agent runs the same compiled code: no second notice
    warmup.make_announced("mcts(preset=strong,sims=99,seed=4)", game, threads=2, say=said.append)
    assert len(said) == 1
    warmup.make_announced("flat(sims=10)", game, say=said.append)
    assert len(said) == 2
    # one notice a process, even while the first agent is still being made
    (cache / "mctslab-warm").rename(cache / "gone")
    warmup.make_announced("flat(sims=10)", game, say=said.append)
    assert len(said) == 2
    # an agent that compiles no search of its own is never announced
    warmup.make_announced("random", game, say=said.append)
    assert len(said) == 2


def test_a_pending_agent_checks_its_spec_at_once_and_raises_what_making_it_raised(
    cache, monkeypatch
):
    game = mctslab.load_game("nogo(size=5)")
    with pytest.raises(SpecError, match="unknown agent"):
        warmup.PendingAgent("nonsense", game)

    def broken(*args):
        raise MctslabError("the network file is gone")

    monkeypatch.setattr(warmup, "build", broken)
    said = []
    pending = warmup.PendingAgent("random", game, say=said.append)
    assert pending.spec_string == "random"
    with pytest.raises(MctslabError, match="network file is gone"):
        pending.get()
    assert said[-1] == "mctslab: cannot make random: the network file is gone"
    assert not warmup.is_warm("random", game)


def test_gtp_answers_while_its_agent_is_made_and_says_why_the_first_move_waits(
    cache, monkeypatch, capsys
):
    release = threading.Event()
    build = warmup.build

    def slow_build(*args):
        assert release.wait(30)
        return build(*args)

    monkeypatch.setattr(warmup, "build", slow_build)
    engine = Engine("nogo", "mcts(sims=50)", size=5, seed=1)
    assert "compiling the search of mcts(" in capsys.readouterr().err
    # the GUI's start-up commands answer before the agent exists
    assert engine.handle("name") == "= mctslab\n\n"
    assert "mcts(sims=50," in engine.handle("version")
    assert engine.handle("boardsize 5").startswith("=")
    assert engine.handle("play b C3").startswith("=")
    release.set()
    assert engine.handle("genmove w").startswith("= ")
    # warm now: the next engine says nothing
    Engine("nogo", "mcts(sims=50)", size=5, seed=1).handle("genmove b")
    assert capsys.readouterr().err == ""


def test_compile_command_compiles_once_and_then_finds_it_compiled(cache):
    # random compiles little: the processes start from an empty cache
    args = ["compile", "nim(n=7)", "--agent", "random", "--agent", "random(seed=3)"]
    first = CliRunner().invoke(main, [*args, "--workers", "1"])
    assert first.exit_code == 0, first.output
    assert first.output.count("compiled now") == 1  # the two specs compile the same code
    second = CliRunner().invoke(main, [*args, "--workers", "1"])
    assert second.exit_code == 0, second.output
    assert "was compiled" in second.output and "compiled now" not in second.output


def test_warm_searches_past_the_chance_nodes_of_the_start(cache):
    row = warmup.warm("2048", "random")
    assert row["game"] == "2048" and not row["was_warm"]


def test_compile_command_rejects_a_bad_spec_before_compiling(cache):
    result = CliRunner().invoke(main, ["compile", "nim", "--agent", "mcts(c=-1)"])
    assert result.exit_code == 2
    assert "c" in result.output and not list(cache.iterdir())


def test_a_missing_network_file_fails_when_the_spec_is_checked_not_at_the_first_move(tmp_path):
    missing = tmp_path / "gone.pt"
    with pytest.raises(MctslabError, match="no network file"):
        Engine("nogo", f"az(net={missing})", size=7)


def test_a_match_announces_its_cold_agents_before_compiling_them(cache, capsys):
    from mctslab.harness.schedule import canonical_specs

    canonical_specs("nogo(size=5)", "mcts(sims=5)", "flat(sims=5)")
    err = capsys.readouterr().err
    assert "compiling the search of mcts(sims=5," in err and "of flat(sims=5" in err
    canonical_specs("nogo(size=5)", "mcts(sims=9)", "flat(sims=9)")
    assert capsys.readouterr().err == ""
