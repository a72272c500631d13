"""The GTP commands beyond the required set (issue 17's protocol gaps): set-up and SGF, handicap,
queries, dead stones, the tool commands, and live analysis (``lz-analyze`` read by a client that
parses it as Sabaki does, on a live pipe)."""

import io
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mctslab
from mctslab.games import go_ownership
from mctslab.harness.sgf import read_sgf
from mctslab.interfaces.gtp import Engine

AGENT = "mcts(sims=200)"


def ask(engine, command):
    reply = engine.handle(command)
    assert reply.endswith("\n\n"), reply
    return reply[0] == "=", reply[1:].strip()


@pytest.fixture
def go():
    return Engine("go", AGENT, seed=5)


def test_queries_echo_and_describe(go):
    assert ask(go, "query_boardsize") == (True, "9")
    assert ask(go, "komi 6.5")[0] and ask(go, "get_komi") == (True, "6.5")
    assert ask(go, "echo hello   there") == (True, "hello there")
    assert ask(go, "play b e5")[0]
    assert ask(go, "is_legal w e5") == (True, "0")
    assert ask(go, "is_legal w d4") == (True, "1")
    assert ask(go, "is_legal w z9")[0] is False
    ok, text = ask(go, "gomill-describe_engine")
    assert ok and "agent: mcts(sims=200," in text and "seed: 5" in text
    assert "go(size=9,komi=6.5)" in text
    ok, text = ask(go, "cputime")
    assert ok and float(text) > 0
    nogo = set(Engine("nogo", "random").handle("list_commands")[2:].split())
    assert {"lz-analyze", "loadsgf", "printsgf", "is_legal"} <= nogo
    assert not {"final_status_list", "fixed_handicap", "get_komi"} & nogo


def test_reg_genmove_leaves_the_position_alone(go):
    assert ask(go, "play b e5")[0]
    before = str(go.state)
    ok, move = ask(go, "reg_genmove w")
    assert ok and re.fullmatch(r"[A-HJ]\d|pass|resign", move)
    assert str(go.state) == before and len(go.pos.moves) == 1


def test_kgs_time_settings_set_both_clocks(go):
    assert ask(go, "kgs-time_settings canadian 60 30 5")[0]
    assert (go.clocks[0].main, go.clocks[0].period, go.clocks[0].stones) == (60, 30, 5)
    assert ask(go, "kgs-time_settings byoyomi 10 2 3")[0]
    assert (go.clocks[1].main, go.clocks[1].period, go.clocks[1].stones) == (10, 2, 1)
    assert ask(go, "kgs-time_settings absolute 5")[0] and not go.clocks[0].unlimited
    assert ask(go, "kgs-time_settings none")[0] and go.clocks[0].unlimited
    assert ask(go, "kgs-time_settings fischer 5") == (
        False,
        "unknown time system 'fischer': none, absolute, canadian or byoyomi",
    )
    assert ask(go, "kgs-time_settings canadian 5")[0] is False


def test_handicap_commands(go):
    assert ask(go, "fixed_handicap 4") == (True, "C3 G7 C7 G3")
    assert go.state.current_player() == 1  # White moves after the handicap
    assert ask(go, "fixed_handicap 2") == (False, "board not empty")
    assert ask(go, "play w e5")[0] and ask(go, "undo")[0]
    assert go.pos.game.board(go.state.array)[6, 2] == 1  # C3
    assert ask(go, "clear_board")[0]
    assert ask(go, "fixed_handicap 10")[0] is False
    assert ask(go, "place_free_handicap 3") == (True, "C3 G7 C7")
    assert ask(go, "clear_board")[0]
    assert ask(go, "set_free_handicap a1 j9 e5")[0]
    board = go.pos.game.board(go.state.array)
    assert board[8, 0] == board[0, 8] == board[4, 4] == 1 and go.state.current_player() == 1
    assert ask(go, "clear_board")[0] and ask(go, "set_free_handicap a1 a1")[0] is False
    small = Engine("go", "random", size=5)
    assert ask(small, "fixed_handicap 2") == (
        False,
        "invalid number of handicap stones 2: on 5x5 none",
    )


def test_printsgf_and_loadsgf_round_trip(go, tmp_path):
    for command in ("fixed_handicap 2", "play w e5", "play b d4", "play w pass"):
        assert ask(go, command)[0]
    ok, text = ask(go, "printsgf")
    assert ok and "AB[gc][cg]" in text and "PL[W]" in text
    sgf = read_sgf(text)
    assert sgf.moves == [(1, 40), (0, 48), (1, 81)]
    path = tmp_path / "game.sgf"
    assert ask(go, f"printsgf {path}") == (True, "")
    other = Engine("go", AGENT)
    assert ask(other, f"loadsgf {path}") == (True, "")
    assert str(other.state) == str(go.state) and other.pos.moves == go.pos.moves
    assert ask(other, f"loadsgf {path} 2")[0] and other.pos.moves == [(1, 40)]
    nogo = Engine("nogo", "random")
    ok, message = ask(nogo, f"loadsgf {path}")
    assert not ok and "holds a go game, this engine plays nogo" in message
    assert ask(other, "loadsgf /nonexistent.sgf")[0] is False
    assert other.pos.moves == [(1, 40)]  # a failed load changes nothing


def test_loadsgf_reads_setup_stones_in_nogo(tmp_path):
    path = tmp_path / "nogo.sgf"
    path.write_text("(;GM[1]SZ[7]RU[NoGo]AB[aa][cc]AW[gg]PL[W];W[dd])")
    engine = Engine("nogo", "random", size=9)
    assert ask(engine, f"loadsgf {path}") == (True, "")
    assert ask(engine, "query_boardsize") == (True, "7")
    board = engine.pos.game.board(engine.state.array)
    assert board[0, 0] == board[2, 2] == 1 and board[6, 6] == board[3, 3] == 2
    assert engine.state.current_player() == 0


DEAD = """
. . . . . . . . .
. . . . . . . . .
. . X X X X X . .
. . X O . . X . .
. . X . . . X . .
. . X . . . X . .
. . X X X X X . .
. . . . . . . . .
. . . . . . . . .
"""


def test_dead_stones_by_ownership_and_the_score_that_follows():
    game = mctslab.load_game("go(size=9,komi=7.5)")
    state = game.state_from_ascii(DEAD, 1)
    groups = go_ownership.groups(game, state)
    assert [(g.colour, g.status, len(g.points)) for g in groups] == [
        (1, "alive", 16),
        (2, "dead", 1),
    ]
    assert go_ownership.final_score(game, state) == 81 - 7.5  # the white stone removed
    # Tromp-Taylor as it stands: the inside (8 points) is neutral and the stone White's
    assert game.score(state.array) == 16 + 56 - 1 - 7.5
    engine = Engine("go", "random")
    engine.pos.setup = (game.board(state.array).reshape(-1), 1)
    engine._replay()
    assert ask(engine, "final_status_list dead") == (True, "D6")
    ok, alive = ask(engine, "final_status_list alive")
    assert ok and len(alive.split()) == 16 and "C7" in alive
    assert ask(engine, "final_status_list seki") == (True, "")
    assert ask(engine, "final_status_list maybe")[0] is False
    assert ask(engine, "final_score") == (True, "B+73.5")
    assert ask(engine, "play w pass")[0] and ask(engine, "play b pass")[0]
    ok, sgf = ask(engine, "printsgf")
    assert ok and "RE[B+73.5]" in sgf  # dead stones removed, not the rules' B+63.5


@pytest.mark.parametrize(("dead", "passes"), [("O", True), ("X", False)])
def test_genmove_passes_after_a_pass_exactly_when_the_referee_s_count_wins(dead, passes):
    """White passes with one stone of ``dead`` colour dead inside the other's wall: Black
    passes back at once when that count wins for Black (the random agent would almost never
    pick the pass: 1 of 66 moves), and plays on when it loses."""
    game = mctslab.load_game("go(size=9,komi=7.5)")
    inside = "O" if dead == "O" else "X"
    wall = "X" if dead == "O" else "O"
    board = DEAD.replace("X", "w").replace("O", "i").replace("w", wall).replace("i", inside)
    state = game.state_from_ascii(board, 1)
    engine = Engine("go", "random", seed=3)
    engine.pos.setup = (game.board(state.array).reshape(-1), 1)
    engine._replay()
    assert ask(engine, "play w pass") == (True, "")
    ok, reply = ask(engine, "genmove b")
    assert ok and (reply == "pass") is passes
    assert engine.state.is_terminal() is passes


SEKI = """
. . . . . . .
. . . . . . .
X X X X X . .
O O O O X . .
X X . O X . .
X X . O X . .
X X O O X . .
"""


def test_a_group_whose_liberties_stay_empty_is_in_seki():
    """The judgement of go_ownership.judge on ownership shares as a self-atari-avoiding playout
    gives them in this corner seki (measured: C3 and C2 neutral in 99% of 300 playouts)."""
    game = mctslab.load_game("go(size=7,komi=0.5)")
    board = game.board(game.state_from_ascii(SEKI, 1).array)
    share = np.zeros((3, 49))
    flat = board.reshape(-1)
    share[np.where(flat == 0, 1, flat), np.arange(49)] = 1.0  # stones their own, empty Black's
    for vertex in ("C3", "C2"):  # but the shared liberties neither's
        share[:, game.string_to_action(0, vertex)] = (1.0, 0.0, 0.0)
    judged = go_ownership.judge(board, share)
    assert [(g.colour, g.status, len(g.points)) for g in judged] == [
        (1, "alive", 9),
        (2, "seki", 8),
        (1, "seki", 6),
    ]
    for vertex in ("C3", "C2"):  # Black owns the shared liberties in the playouts
        share[:, game.string_to_action(0, vertex)] = (0.0, 1.0, 0.0)
    share[:, flat == 2] = [[0.0], [1.0], [0.0]]  # and captures White's group
    statuses = [g.status for g in go_ownership.judge(board, share)]
    assert statuses == ["alive", "dead", "alive"]


@pytest.mark.parametrize("to_move", [0, 1])
def test_the_corner_seki_is_judged_seki_from_the_playouts(to_move):
    """End to end: the ownership playouts avoid self-ataris, so neither side fills a shared
    liberty and both groups come out in seki (the plain Go-style playout called White's group
    dead), whoever is to move; the score counts both groups' stones and no shared liberty."""
    game = mctslab.load_game("go(size=7,komi=0.5)")
    state = game.state_from_ascii(SEKI, to_move)
    judged = go_ownership.groups(game, state)
    assert [(g.colour, g.status, len(g.points)) for g in judged] == [
        (1, "alive", 9),
        (2, "seki", 8),
        (1, "seki", 6),
    ]
    share = go_ownership.ownership(game, state)
    for vertex in ("C3", "C2"):
        assert share[0, game.string_to_action(0, vertex)] > 0.9


_PV = re.compile(r"(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*$")


def sabaki_parse(line):
    """An ``lz-analyze`` line read as Sabaki reads it (SabakiHQ/Sabaki, ``src/modules/
    analysis.js``, ``parseAnalysis``, ported line by line): split at ``info``, the trailing run
    of vertices is the variation (cut at a pass), the tokens before it less the ``pv`` keyword
    are key-value pairs, pass moves are dropped, and an integer ``winrate`` is in hundredths of
    a percent. The other keys (``prior``, ``lcb``, ``order``) are kept as read."""
    out = []
    for x in (x.strip() for x in re.split(r"\s*info\s+", line)[1:]):
        match = _PV.search(x)
        if match is None:
            continue
        pv_text = match.group(0)
        cut = pv_text.find("pass")
        pv = [m for m in pv_text[: cut if cut >= 0 else None].split() if len(m) >= 2]
        tokens = x[: match.start()].strip().split()[:-1]
        fields = dict(zip(tokens[::2], tokens[1::2], strict=True))
        if not re.fullmatch(r"[A-Za-z]\d+", fields["move"]):
            continue
        winrate = fields["winrate"]
        out.append(
            {
                **fields,
                "visits": int(fields["visits"]),
                "winrate": float(winrate) * 100 if "." in winrate else int(winrate) / 100,
                "lcb": int(fields["lcb"]) / 100,
                "order": int(fields["order"]),
                "moves": pv,
            }
        )
    return out


@pytest.mark.parametrize(
    ("game", "size", "vertex"),
    [("go", 9, r"[A-HJ]\d"), ("nogo", 7, r"[A-G]\d"), ("hex", 5, r"[a-e]\d")],
)
def test_lz_analyze_streams_until_the_next_command(game, size, vertex):
    engine = Engine(game, "mcts(sims=100000)", size=size, seed=1)
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    inp, out = os.fdopen(r_in, "r"), os.fdopen(w_out, "w")
    server = threading.Thread(target=engine.serve, args=(inp, out), daemon=True)
    server.start()
    send = os.fdopen(w_in, "w")
    replies = os.fdopen(r_out, "r")
    send.write("7 lz-analyze 5\n")
    send.flush()
    assert replies.readline() == "=7\n"
    infos = [replies.readline() for _ in range(3)]  # at least three updates, 50 ms apart
    send.write("name\n")
    send.flush()
    rest = []
    while (line := replies.readline()) != "= mctslab\n":
        rest.append(line)
    assert rest[-1] == "\n" and all(r.startswith("info ") for r in rest[:-1])
    visits = []
    for line in infos + rest[:-1]:
        moves = sabaki_parse(line)
        orders = [m["order"] for m in moves]  # Sabaki drops the pass
        assert moves and orders == sorted(set(orders)) and orders[-1] <= len(moves)
        for m in moves:
            assert re.fullmatch(vertex, m["move"]) and m["moves"][0] == m["move"]
            assert 0 <= m["lcb"] <= m["winrate"] <= 100 and m["visits"] > 0
        assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
        visits.append(sum(m["visits"] for m in moves))
    assert visits == sorted(visits) and visits[-1] > visits[0]  # the search goes on
    send.write("quit\n")
    send.flush()
    assert replies.readline() == "\n" and replies.readline() == "=\n"
    server.join(timeout=10)
    assert not server.is_alive()


def test_lz_genmove_analyze_and_the_gogui_displays():
    engine = Engine("go", AGENT, size=9, seed=2)
    reply = engine.handle("3 lz-genmove_analyze b 1")
    lines = reply.split("\n")
    assert lines[0] == "=3" and reply.endswith("\n\n")
    assert lines[-3].startswith("play ") and all(x.startswith("info ") for x in lines[1:-3])
    assert len(engine.pos.moves) == 1
    assert engine.handle("lz-analyze b 1 extra").startswith("? unexpected 'extra'")
    assert engine.handle("lz-analyze interval").startswith("? interval needs a value")
    reply = engine.handle("lz-analyze b interval 1")  # Black's moves, White to move
    assert reply.startswith("=\ninfo move ") and reply.endswith("\n\n")
    assert engine.state.current_player() == 1 and len(engine.pos.moves) == 1
    assert Engine("go", "random").handle("lz-analyze 10") == (
        "? agent random keeps no search statistics\n\n"
    )
    ok, text = ask(engine, "gogui-analyze_commands")
    assert "dboard/Visits (board)/gogui-visits_board" in text
    assert "pspairs/Principal variation (numbers)/gogui-pv_numbers" in text
    ok, board = ask(engine, "gogui-visits_board")
    rows = board.split("\n")
    assert ok and len(rows) == 9 and all(len(r.split()) == 9 for r in rows)
    assert sum(int(x) for r in rows for x in r.split()) > 0
    ok, values = ask(engine, "gogui-values_board")
    assert ok and all(0 <= float(x) <= 1 for r in values.split("\n") for x in r.split())
    ok, pairs = ask(engine, "gogui-pv_numbers")
    words = pairs.split()
    assert ok and words[1::2] == [str(k) for k in range(1, len(words) // 2 + 1)]


def test_gogui_interrupt_stops_a_long_genmove():
    engine = Engine("nogo", "mcts(time=60)", size=7, seed=3)
    assert "gogui-interrupt" in engine.handle("list_commands")
    r_in, w_in = os.pipe()
    inp, out = os.fdopen(r_in, "r"), io.StringIO()
    server = threading.Thread(target=engine.serve, args=(inp, out), daemon=True)
    server.start()
    send = os.fdopen(w_in, "w")
    send.write("genmove b\n")
    send.flush()
    time.sleep(1.0)
    start = time.perf_counter()
    send.write("# interrupt\nquit\n")
    send.flush()
    server.join(timeout=20)
    assert time.perf_counter() - start < 5 and not server.is_alive()
    assert re.match(r"= [A-G]\d\n\n=\n\n", out.getvalue())


def test_an_error_inside_a_streamed_reply_ends_it_cleanly(capsys):
    engine = Engine("go", AGENT, size=9)

    def broken(state, budget=None):
        raise RuntimeError("boom")

    engine.agent.search = broken
    assert engine.handle("5 lz-analyze 1") == "=5\n\n"
    assert engine.handle("lz-genmove_analyze b 1") == "=\n\n"
    assert not engine.pos.moves
    assert "analysis stopped: RuntimeError: boom" in capsys.readouterr().err
    assert ask(engine, "name") == (True, "mctslab")


def test_lz_analyze_through_the_mctslab_gtp_process_as_sabaki_runs_it():
    """The command line engine on real stdin/stdout pipes: the analysis streams, the next command
    stops it within a few chunks, and GoGui's interrupt ends a genmove."""
    mctslab_cli = Path(sys.executable).with_name("mctslab")
    proc = subprocess.Popen(
        [str(mctslab_cli), "gtp", "--agent", "mcts(sims=1000000)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        proc.stdin.write("1 lz-analyze 10\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "=1\n"
        lines = [proc.stdout.readline() for _ in range(2)]
        assert all(sabaki_parse(line) for line in lines)
        start = time.perf_counter()
        proc.stdin.write("2 name\n")
        proc.stdin.flush()
        while (line := proc.stdout.readline()) != "=2 mctslab\n":
            assert line == "\n" or line.startswith("info move ")
        assert time.perf_counter() - start < 2
        assert proc.stdout.readline() == "\n"
        start = time.perf_counter()
        proc.stdin.write("genmove b\n# interrupt\n")  # 1,000,000 simulations, interrupted
        proc.stdin.flush()
        assert re.fullmatch(r"= [A-HJ]\d\n", proc.stdout.readline())
        assert time.perf_counter() - start < 10
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "\n" and proc.stdout.readline() == "=\n"
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
