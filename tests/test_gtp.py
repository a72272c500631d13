"""GTP engine: scripted sessions against expected transcripts, robustness (the fuzz test of all
three engines is tests/test_gtp_fuzz.py), resignation, NoGo's resign, time control (with a
recording agent: no timing)."""

import io
import re

import pytest

from mctslab.interfaces.gtp import CLOSE_RATIO, Clock, Engine, GtpError, parse_command, preprocess
from mctslab.search import SearchResult
from mctslab.search.budget import Budget


def session(engine, script):
    out = io.StringIO()
    engine.serve(io.StringIO(script), out)
    return out.getvalue()


def dedent(text):
    return "\n".join(line[8:] if line.startswith(" " * 8) else line for line in text.splitlines())


@pytest.fixture(scope="module")
def go_engine():
    return Engine("go", "random", seed=1)


SCRIPT = """1 protocol_version
name
  # a comment line, then a blank one, then a tab and a control character

known_command\tfinal_score
known_command frobnicate
boardsize 5
komi 0.5
play b C3
2 play white b2
play b c3
play x c3
play b
undo
final_score
showboard
10 foo
boardsize 4
quit
name
"""

TRANSCRIPT = """=1 2

= mctslab

= true

= false

=

=

=

=2

? illegal move

? invalid color 'x': expected b, black, w or white

? wrong number of arguments: play colour vertex

=

= B+24.5

=
   A B C D E
 5 . . . . . 5
 4 . . . . . 4
 3 . . X . . 3
 2 . . . . . 2
 1 . . . . . 1
   A B C D E
White (O) to move (komi 0.5)

?10 unknown command 'foo'

? unacceptable size 4: go sizes are 5..19

=

"""


def test_scripted_go_session_matches_the_transcript(go_engine):
    assert session(go_engine, SCRIPT) == TRANSCRIPT
    assert go_engine.done


def test_list_commands_has_the_required_set_and_per_game_extras():
    required = {
        "protocol_version", "name", "version", "known_command", "list_commands", "quit",
        "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
        "final_score", "time_settings", "time_left", "kgs-genmove_cleanup",
        "gogui-analyze_commands",
    }  # fmt: skip
    listed = Engine("go", "random").handle("list_commands")[2:].split()
    assert required <= set(listed)
    nogo = set(Engine("nogo", "random").handle("list_commands")[2:].split())
    assert "komi" in nogo and "final_score" not in nogo and "kgs-genmove_cleanup" not in nogo


def test_genmove_plays_a_legal_move_and_records_it():
    engine = Engine("go", "mcts(sims=300)", size=5, seed=3)
    reply = engine.handle("genmove b")
    assert reply.startswith("= ") and reply.endswith("\n\n")
    move = reply[2:].strip()
    assert len(engine.pos.moves) == 1 and engine.state.history[0] == (
        engine.pos.game.string_to_action(0, move)
    )
    assert engine.handle(f"play w {move}") == "? illegal move\n\n"
    # gogui analysis of the new position (White to move): one label per legal point
    labels = engine.handle("gogui-visits")
    assert labels.startswith("= LABEL ") and len(labels.split()) == 2 + 2 * 24
    assert re.fullmatch(r"= LABEL( [A-E][1-5] \d+%)+\n\n", engine.handle("gogui-winrate"))
    assert engine.handle("gogui-pv").startswith("= VAR w ")


def test_genmove_out_of_turn_and_both_passes_end_the_game():
    engine = Engine("go", "random", size=5, seed=2)
    engine.handle("play b c3")
    assert engine.handle("play b d3") == "=\n\n"  # GTP: either colour may play
    assert engine.handle("play w pass") == "=\n\n"
    assert engine.handle("play b pass") == "=\n\n"
    assert engine.state.is_terminal()
    assert engine.handle("genmove w") == "= pass\n\n"
    assert engine.handle("final_score") == "= B+17.5\n\n"


def test_cleanup_never_passes_while_a_stone_move_exists():
    engine = Engine("go", "mcts(sims=400)", size=5, seed=5)
    for move in ("b c3", "w pass"):
        engine.handle("play " + move)
    reply = engine.handle("kgs-genmove_cleanup b")
    assert reply not in ("= pass\n\n", "= resign\n\n") and reply.startswith("= ")


def test_cleanup_after_two_passes_plays_on_as_kgs_expects():
    # KGS sends kgs-genmove_cleanup exactly after both players passed (its clean-up phase)
    engine = Engine("go", "random", size=5, seed=5)
    for move in ("b c3", "w d3", "b pass", "w pass"):
        assert engine.handle("play " + move) == "=\n\n"
    assert engine.state.is_terminal()
    reply = engine.handle("kgs-genmove_cleanup b")
    assert reply not in ("= pass\n\n", "= resign\n\n") and reply.startswith("= ")
    assert engine.pos.moves[:2] == [(0, 12), (1, 13)] and len(engine.pos.moves) == 3
    assert engine.handle("play w a1") == "=\n\n"  # the opponent's clean-up moves too
    assert engine.state.current_player() == 0 and not engine.state.is_terminal()
    for move in ("b pass", "w pass"):  # two more passes end it again
        engine.handle("play " + move)
    assert engine.state.is_terminal() and engine.handle("play b pass").startswith("? illegal")


def test_nogo_genmove_answers_resign_when_no_move_is_legal():
    engine = Engine("nogo", "random", size=5, seed=4)
    colour = "b"
    for _ in range(30):
        reply = engine.handle(f"genmove {colour}")
        if reply == "= resign\n\n":
            break
        assert reply.startswith("= ")
        colour = "w" if colour == "b" else "b"
    assert reply == "= resign\n\n"
    assert engine.state.is_terminal()
    assert engine.handle("play b pass").startswith("? illegal move")


def test_resignation_when_hopeless_is_configurable():
    # White to move on 5x5 after Black owns everything but a corner: hopeless for White
    script = "boardsize 5\nkomi 0.5\n" + "".join(
        f"play b {v}\n" for v in ("b2", "b4", "d2", "d4", "c3", "c1", "a3", "e3", "c5")
    )
    hopeless = Engine("go", "mcts(sims=1500)", seed=1, resign=0.2)
    session(hopeless, script)
    # White's third hopeless decision in a row resigns; the first two are played
    first, second = hopeless.handle("genmove w"), hopeless.handle("genmove w")
    assert "resign" not in first + second and len(hopeless.pos.moves) == 11
    # reg_genmove answers what genmove would, without counting the decision
    assert hopeless.handle("reg_genmove w") == "= resign\n\n"
    assert hopeless.resigners[1].run == 2 and hopeless.resigners[0].run == 0
    assert hopeless.handle("genmove w") == "= resign\n\n"
    assert len(hopeless.pos.moves) == 11  # a resignation plays nothing
    hopeless.handle("undo")  # taken back: the run starts again
    assert hopeless.resigners[1].run == 0
    assert hopeless.handle("genmove w") != "= resign\n\n"
    never = Engine("go", "mcts(sims=1500)", seed=1, resign=0.0)
    session(never, script)
    assert all(never.handle("genmove w") != "= resign\n\n" for _ in range(3))


def test_long_arguments_are_quoted_cut_and_ids_and_numbers_are_ascii():
    engine = Engine("nogo", "random", size=5, seed=0)
    reply = engine.handle("play b " + "A" * 10_000_000)
    assert reply.startswith("? illegal move: bad vertex 'AAAA") and len(reply) < 300
    assert re.search(r"A\.\.\. \(10,000,\d{3} characters\)\n\n$", reply)
    assert engine.handle("\u0661 name") == "? unknown command '\u0661'\n\n"  # Arabic-Indic 1
    assert engine.handle("12 name") == "=12 mctslab\n\n"
    assert engine.handle("boardsize \u0667").startswith("? expected an integer")
    assert engine.handle("komi \u0667.5").startswith("? expected a number")


def test_nogo_takes_every_size_the_game_takes():
    engine = Engine("nogo", "random", seed=0)
    for size in (3, 4):
        assert engine.handle(f"boardsize {size}") == "=\n\n"
        assert engine.pos.game.params.size == size
    assert engine.handle("boardsize 2") == "? unacceptable size 2: nogo sizes are 3..19\n\n"


def test_parser_follows_gtp_section_3():
    assert preprocess("  12 play\tb  D4 # comment\r") == "12 play b  D4"
    assert preprocess("# only a comment") == ""
    assert parse_command("12 play b D4") == (12, "play", ["b", "D4"])
    assert parse_command("PLAY b D4") == (None, "play", ["b", "D4"])
    with pytest.raises(GtpError):
        parse_command("12")


# -- time control ---------------------------------------------------------------------------


def test_clock_budgets_never_exceed_the_time_left():
    clock = Clock()
    assert clock.budget(81, 122) is None  # no time_settings: the agent's own budget
    clock.settings(60, 0, 0)  # sudden death: one minute
    base, hard = clock.budget(82, 122)
    assert 0 < base <= hard <= 60 / 4
    clock.settings(5, 30, 0)  # byo-yomi time with 0 stones: no limit (GTP)
    assert clock.budget(81, 122) is None


@pytest.mark.parametrize(
    ("main", "period", "stones"), [(6, 0, 0), (60, 0, 0), (1.5, 0, 0), (0, 10, 5), (3, 5, 2)]
)
def test_spending_the_hard_limit_on_every_move_never_runs_out_of_time(main, period, stones):
    """The worst case: every move of a longest 9x9 game (243 moves, 122 of them ours) takes its
    hard limit plus the overhead the budget reserves for; the clock stays positive, and no
    byo-yomi period is overrun."""
    clock = Clock()
    clock.settings(main, period, stones)
    for move in range(122):
        base, hard = clock.budget(max(1, 82 - move), 122 - move)
        assert 0 <= base <= hard
        in_period, before = clock.stones_left > 0, clock.left
        clock.spend(hard + 0.0099)
        if in_period:
            assert before - (hard + 0.0099) > 0, move  # the period is not overrun
        elif stones == 0:
            assert clock.left > 0, move
    assert clock.left > 0


class RecordingAgent:
    """Stands in for an agent: records the time it was given, returns scripted results."""

    spec_string = "recording"

    def __init__(self, results):
        self.results = list(results)
        self.times = []
        self.budget = Budget(sims=1000)

    def search(self, state, budget=None):
        self.times.append((budget or self.budget).seconds)
        return self.results.pop(0)


def _result(visits, values):
    return SearchResult(action=0, actions=list(range(len(visits))), visits=visits, values=values)


def test_hard_moves_get_more_time_easy_moves_do_not():
    engine = Engine("go", "random", size=5)
    engine.handle("time_settings 100 0 0")
    close = _result([100, int(100 * CLOSE_RATIO) + 1], [0.5, 0.49])
    clear = _result([100, 10], [0.6, 0.3])
    engine.agent = RecordingAgent([close, close, clear])
    engine._search(engine.state, 0)
    base, hard = engine.clocks[0].budget(26, (engine.pos.game.spec.max_game_length + 1) // 2)
    assert engine.agent.times[0] == pytest.approx(base)
    assert len(engine.agent.times) == 3  # extended twice while close, stopped when clear
    assert all(t <= hard for t in engine.agent.times)
    assert engine.agent.budget == Budget(sims=1000)  # untouched
    engine.agent = RecordingAgent([clear])
    engine._search(engine.state, 0)
    assert len(engine.agent.times) == 1


def test_time_left_updates_the_clock_and_bad_values_are_errors():
    engine = Engine("go", "random", size=5)
    assert engine.handle("time_settings 300 30 5") == "=\n\n"
    assert engine.handle("time_left b 12.5 3") == "=\n\n"
    assert (engine.clocks[0].left, engine.clocks[0].stones_left) == (12.5, 3)
    assert engine.handle("time_left w -1 0").startswith("? ")
    assert engine.handle("time_settings 1 2").startswith("? wrong number")
    assert engine.handle("time_settings a 2 3").startswith("? expected a number")
    # a clock no search could spend (the old engine then failed every genmove)
    reply = engine.handle("time_settings 0 1e300 1")
    assert reply == "? time settings: main time and byo-yomi time are 0..86400 s (one day)\n\n"
    assert (
        engine.handle("time_left b 1e9 0")
        == "? time left 1e+09: should be 0..86400 s (one day)\n\n"
    )
    assert engine.clocks[0].left == 12.5
