"""``gtp(cmd="...")``: external GTP/HTP engines as agents (mctslab/agents/external.py).

Against our own engine as a subprocess (NoGo, Go, Hex over HTP), GNU Go (skipped when it is not
installed; ``make test`` installs it), and a fake engine written here that logs what it is sent,
passes, and misbehaves once (crash, hang, garbage, resignation, illegal moves): each misdeed is a
lost game with its reason, and the next game is played normally. The quoted spec-string values
it needs (specstr), the harness's forfeits and a stored ``mctslab match`` are tested here too.
"""

from __future__ import annotations

import gc
import shlex
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import mctslab
from mctslab import specstr
from mctslab.agents import make_agent
from mctslab.agents.base import Agent, Forfeit
from mctslab.errors import MctslabError, SpecError
from mctslab.games.protocols import format_reply, parse_reply
from mctslab.harness.game import play_game
from mctslab.harness.store import ResultsStore
from mctslab.interfaces.cli.main import main
from mctslab.search import SearchResult
from mctslab.search.budget import Budget

MCTSLAB = Path(sys.executable).with_name("mctslab")
GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)

FAKE = textwrap.dedent(
    """
    import os, sys, time
    mode, folder = sys.argv[1], sys.argv[2]
    log = open(os.path.join(folder, "log.txt"), "a")
    marker = os.path.join(folder, "misbehaved")
    if mode == "dead":
        print("fake: cannot load my network", file=sys.stderr, flush=True)
        sys.exit(2)
    genmoves, last = 0, "pass"

    def first_time():  # once per test, whichever process comes first
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
            return True
        except FileExistsError:
            return False

    for line in sys.stdin:
        log.write(line)
        log.flush()
        words = line.split()
        cid = words.pop(0) if words[0].isdigit() else ""
        name = words[0]
        if name == "play":
            last = words[2]
        if name == "quit":
            print(f"={cid}\\n", flush=True)
            break
        if name == "boardsize" and mode == "refuse":
            print(f"?{cid} unacceptable size\\n", flush=True)
            continue
        if name != "genmove":
            print(f"={cid}\\n", flush=True)
            continue
        genmoves += 1
        if genmoves == 2 and first_time():
            if mode == "crash":
                print("fake: segmentation fault", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "hang":
                time.sleep(600)
            if mode == "exit":  # answers, then exits
                print(f"={cid} pass\\n", flush=True)
                sys.exit(4)
            answer = {"garbage": "hello there", "resign": f"={cid} resign",
                      "occupied": f"={cid} {last}", "nonsense": f"={cid} Z99"}.get(mode)
            if answer is not None:
                print(answer + "\\n", flush=True)
                continue
        print(f"={cid} pass\\n", flush=True)
    """
)


@pytest.fixture
def fake(tmp_path):
    """``fake(mode, **keys)``: the spec of a fake engine in ``mode`` (its log and marker files
    are in tmp_path)."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)

    def spec(mode: str = "pass", **keys) -> str:
        cmd = shlex.join([sys.executable, str(script), mode, str(tmp_path)])
        return specstr.format_spec("gtp", {"cmd": cmd, **keys})

    return spec


def _log(tmp_path) -> list[str]:
    lines = (tmp_path / "log.txt").read_text().splitlines()
    return [line.split(maxsplit=1)[1] if line[0].isdigit() else line for line in lines]


class Stones(Agent):
    """Plays the lowest legal move that is not a pass (a pass when there is none): never ends a
    Go game early by passing."""

    def __init__(self, game):
        super().__init__("stones", game)

    def search(self, state, budget=None):
        legal = state.legal_actions()
        stones = [a for a in legal if a != getattr(self.game, "pass_action", None)]
        return SearchResult(action=(stones or legal)[0])


# -- spec strings --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "params"),
    [
        ('gtp(cmd="gnugo --mode gtp --level 10",time=1)', {"cmd": "gnugo --mode gtp --level 10"}),
        ('gtp(cmd="sh -c \\"a,b (c=d)\\"")', {"cmd": 'sh -c "a,b (c=d)"'}),
        ('gtp(cmd="a\\\\b")', {"cmd": "a\\b"}),
    ],
)
def test_quoted_values_keep_spaces_commas_parentheses_and_round_trip(text, params):
    name, raw = specstr.parse(text)
    assert name == "gtp" and raw["cmd"] == params["cmd"]
    assert specstr.parse(specstr.format_spec(name, raw)) == (name, raw)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('gtp(cmd="gnugo)', "without its closing"),
        ('gtp(cmd="gnugo"x)', "after the closing"),
        ('gtp(cmd=gno"go")', "key=value"),
        ('gtp(cmd="")', "no value"),
        ("gtp(cmd=(gnugo))", "parentheses"),
    ],
)
def test_bad_quotes_are_spec_errors(text, needle):
    with pytest.raises(SpecError, match=None) as info:
        specstr.parse(text)
    assert needle in str(info.value)


def test_the_reply_format_round_trips():
    assert format_reply(True, "3", "D4") == "=3 D4\n\n"
    assert format_reply(False, "", "bad\n\nthing") == "? bad\nthing\n\n"
    assert parse_reply(["=3 D4"], "3") == (True, "D4")
    assert parse_reply(["?", "x"], "") == (False, "x")
    with pytest.raises(ValueError, match="start with"):
        parse_reply(["D4"], "1")
    with pytest.raises(ValueError, match="id 2"):
        parse_reply(["=2 D4"], "1")


def test_canonical_spec_and_clear_errors(fake):
    game = mctslab.load_game("go(size=5)")
    agent = make_agent(fake("pass").replace(" ", "   ", 1), game)  # extra spaces normalised
    assert agent.spec_string == fake("pass", timeout=30.0)
    assert make_agent(agent.spec_string, game).spec_string == agent.spec_string
    with pytest.raises(SpecError, match="'no-such-engine' not found"):
        make_agent('gtp(cmd="no-such-engine --mode gtp")', game)
    with pytest.raises(SpecError, match="cmd: required"):
        make_agent("gtp", game)
    with pytest.raises(SpecError, match="go, nogo, hex"):
        make_agent(fake("pass"), mctslab.load_game("nim"))
    with pytest.raises(SpecError, match="timeout"):
        make_agent(fake("pass", timeout=0), game)


# -- our own engine, GNU Go ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game_spec", "engine"),
    [
        ("nogo(size=5)", "--game nogo --size 5"),
        ("go(size=5)", "--game go --size 5"),
        ("hex(size=5,swap=true)", "--game hex --size 5"),
        ("hex(size=5)", "--game hex --size 5 --swap"),  # the set-up turns the engine's swap off
    ],
)
def test_our_engine_as_a_subprocess_plays_whole_games(game_spec, engine):
    game = mctslab.load_game(game_spec)
    cmd = f"{MCTSLAB} gtp {engine} --agent random --seed 1"
    # Go: the first genmove after a pass judges dead stones (go_ownership), which compiles its
    # playouts in a cold cache: well over 30 s on a loaded 2-core machine
    agent = make_agent(specstr.format_spec("gtp", {"cmd": cmd, "timeout": 300}), game)
    other = make_agent("random", game, seed=2)
    try:
        for seats in ([agent, other], [other, agent]):
            record = play_game(game, seats)
            assert record.forfeit is None and record.final.is_terminal()
            assert sum(p == seats.index(agent) for p in record.search_stats["player"]) >= 2
    finally:
        agent.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (make test installs it)")
def test_gnugo_plays_two_games_under_time_control():
    game = mctslab.load_game("go(size=7)")
    spec = specstr.format_spec(
        "gtp",
        {"cmd": f"{GNUGO} --mode gtp --level 0 --chinese-rules --capture-all-dead", "time": 1},
    )
    agent = make_agent(spec, game)
    other = make_agent("random", game, seed=3)
    try:
        records = [play_game(game, seats) for seats in ([agent, other], [other, agent])]
    finally:
        agent.close()
    assert all(r.forfeit is None and r.final.is_terminal() for r in records)
    # GNU Go beats a random player, also under area scoring where stones are never dead (hence
    # --capture-all-dead: GNU Go otherwise passes with its opponent's dead stones on the board)
    assert records[0].returns[0] > 0 and records[1].returns[1] > 0


# -- synchronisation, time control, clean-up ----------------------------------------------------
def test_position_is_synchronised_by_play_commands_and_replayed_after_divergence(fake, tmp_path):
    game = mctslab.load_game("go(size=5,komi=6.5)")
    agent = make_agent(fake("pass", time=2), game)
    state = game.new_initial_state()
    state.apply_action(game.string_to_action(0, "C3"))
    assert agent.step(state) == game.pass_action
    state.apply_action(game.pass_action)
    state.apply_action(game.string_to_action(0, "B2"))
    agent.step(state)
    other = game.new_initial_state()  # another line: the board is set up again
    other.apply_action(game.string_to_action(0, "A1"))
    agent.step(other)
    assert _log(tmp_path) == [
        "boardsize 5", "clear_board", "komi 6.5", "time_settings 0 2 1",
        "play b C3", "genmove w",
        "play b B2", "genmove w",
        "boardsize 5", "clear_board", "komi 6.5", "play b A1", "genmove w",
    ]  # fmt: skip
    proc = agent._engine.proc
    agent.close()
    assert proc.poll() is not None and _log(tmp_path)[-1] == "quit"
    agent.step(other)  # a new process after close
    proc = agent._engine.proc
    del agent
    gc.collect()
    assert proc.wait(5) is not None


def test_a_budget_in_seconds_replaces_time_for_that_move(fake, tmp_path):
    game = mctslab.load_game("nogo(size=5)")
    agent = make_agent(fake("pass"), game)  # no time: the engine's own default
    state = game.new_initial_state()
    state.apply_action(game.string_to_action(0, "C3"))
    with pytest.raises(Forfeit, match="'pass'"):  # NoGo has no pass: the fake loses
        agent.step(state, Budget(seconds=0.5))
    with pytest.raises(Forfeit):
        agent.step(state, Budget(sims=100))  # simulations mean nothing to an engine
    agent.close()
    sent = [c for c in _log(tmp_path) if c.startswith("time_settings")]
    assert sent == ["time_settings 0 0.5 1", "time_settings 0 1 0"]  # then no limit again


# -- misbehaving engines: a lost game with its reason, then a normal game ------------------------
@pytest.mark.parametrize(
    ("mode", "reason", "restarted", "moves"),
    [
        ("crash", "exited with status 3 before answering 'genmove b'", True, 2),
        ("exit", "exited with status 4", True, 4),  # since its last reply, or before the next
        ("hang", "no reply to 'genmove b' within 1 s", True, 2),
        ("garbage", "unreadable reply to 'genmove b'", True, 2),
        ("resign", "the engine resigned", False, 2),
        ("occupied", "an illegal move", False, 2),
        ("nonsense", "'Z99'", False, 2),
    ],
)
def test_a_misbehaving_engine_loses_with_the_reason_and_the_next_game_is_normal(
    fake, mode, reason, restarted, moves
):
    game = mctslab.load_game("go(size=5)")
    agent = make_agent(fake(mode, timeout=1), game)
    try:
        record = play_game(game, [agent, Stones(game)])
        assert record.forfeit is not None
        assert record.forfeit[0] == 0 and reason in record.forfeit[1]
        assert record.returns == [-1.0, 1.0] and len(record.moves) == moves
        if mode == "crash":
            assert "fake: segmentation fault" in record.forfeit[1]
        assert (agent._engine is None) is restarted
        again = play_game(game, [agent, Stones(game)])
        assert again.forfeit is None and again.final.is_terminal()
    finally:
        agent.close()


def test_an_engine_found_dead_before_the_next_move_loses_and_is_restarted(fake):
    game = mctslab.load_game("go(size=5)")
    agent = make_agent(fake("exit"), game)
    state = game.new_initial_state()
    for vertex in ("A1", "B1"):  # the second genmove is answered, then the engine exits
        state.apply_action(game.string_to_action(0, vertex))
        state.apply_action(agent.step(state))
    agent._engine.proc.wait(5)
    state.apply_action(game.string_to_action(0, "C1"))
    with pytest.raises(Forfeit, match="exited with status 4 since its last reply"):
        agent.step(state)
    assert agent.step(state) == game.pass_action  # a new process, the position replayed
    agent.close()


def test_an_engine_that_cannot_set_up_the_board_is_a_configuration_error(fake):
    game = mctslab.load_game("go(size=5)")
    for mode, needle in (("refuse", "unacceptable size"), ("dead", "cannot load my network")):
        agent = make_agent(fake(mode), game)
        with pytest.raises(MctslabError, match=needle):
            agent.step(game.new_initial_state())
        agent.close()


# -- a stored match -------------------------------------------------------------------------------
def test_match_stores_games_against_a_gtp_agent(fake, tmp_path):
    db = tmp_path / "results.db"
    spec = fake("resign")
    args = ["match", "go(size=5)", "random", spec, "--games", "2", "--db", str(db)]
    out = CliRunner().invoke(main, [*args, "--workers", "2", "--json"])
    assert out.exit_code == 0, out.output
    with ResultsStore(db) as store:
        rows = list(store.games())
    assert len(rows) == 2
    canonical = fake("resign", timeout=30.0)
    assert all(canonical in row["players"] for row in rows)
    forfeits = [row["search_stats"].get("forfeit") for row in rows]
    resigned = [f for f in forfeits if f is not None]
    assert len(resigned) == 1 and resigned[0]["reason"] == "the engine resigned"
    row = rows[forfeits.index(resigned[0])]
    assert row["players"][resigned[0]["player"]] == canonical and row["score_a"] == 1.0
