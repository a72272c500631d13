"""SGF read/write for Go, NoGo and Hex: round trips of random games, known files, clear errors,
and ``mctslab replay``."""

import random

import pytest
from click.testing import CliRunner

import mctslab
from mctslab.harness.sgf import SgfError, read_sgf, read_sgf_file, write_sgf
from mctslab.interfaces.cli.main import main


def random_moves(game, seed, limit=None):
    rnd = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and (limit is None or len(state.history) < limit):
        state.apply_action(rnd.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    "spec", ["go(size=5,komi=0.5)", "go(size=9,komi=6.5)", "nogo(size=5)", "hex(size=5,swap=true)"]
)
def test_random_games_round_trip(spec):
    game = mctslab.load_game(spec)
    for seed in range(5):
        state = random_moves(game, seed)
        text = write_sgf(game, state.history, black="a", white="b]c")
        back = read_sgf(text)
        assert back.game == game
        assert [a for _, a in back.moves] == state.history
        assert (back.replay().array == state.array).all()
        assert back.properties["PW"] == "b]c"
        r = state.returns()
        assert back.properties["RE"][0] == ("B" if r[0] > r[1] else "W")


def test_what_each_game_writes():
    go = mctslab.load_game("go(size=9,komi=7.5)")
    text = write_sgf(go, [go.string_to_action(0, "C7"), go.pass_action], date="2026-01-02")
    assert text == (
        "(;FF[4]CA[UTF-8]AP[mctslab]GM[1]SZ[9]RU[Tromp-Taylor]KM[7.5]DT[2026-01-02]\n;B[cc];W[])\n"
    )
    nogo = mctslab.load_game("nogo(size=7)")
    assert "GM[1]SZ[7]RU[NoGo]" in write_sgf(nogo, [0])
    hexg = mctslab.load_game("hex(size=11,swap=true)")
    text = write_sgf(hexg, [(0, 0), (1, 121)], result="W+R")
    assert "GM[11]SZ[11]" in text and ";B[a1];W[swap-pieces])" in text and "RE[W+R]" in text


def test_reading_a_go_file_from_elsewhere():
    text = b"""(;GM[1]FF[3]SZ[9]KM[6.5]PB[gnugo]RE[B+R]
    ;B[ee];W[ge](;B[tt];W[gg])(;B[aa]))"""
    sgf = read_sgf(text)
    assert sgf.game.spec.spec_string == "go(size=9,komi=6.5)"
    assert sgf.moves == [(0, 40), (1, 42), (0, 81), (1, 60)]  # [tt] is a pass; first variation
    assert sgf.properties["PB"] == "gnugo"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "malformed SGF: no SGF data found"),
        ("(;GM[1]SZ[9];B[dd]", "malformed SGF: unexpected end"),
        ("(;GM[3]SZ[9])", "unsupported GM[3]"),
        ("(;GM[1]SZ[25])", "unsupported game"),
        ("(;GM[1]SZ[x])", "bad SZ[x]"),
        ("(;GM[1]SZ[9];B[zz])", "node 1: B[zz]: bad point"),
        ("(;GM[1]SZ[9];B[dd];W[dd])", "move 2: illegal move"),
        ("(;GM[1]SZ[9];B[dd];B[ee])", "move 2: B plays out of turn"),
        ("(;GM[1]RU[NoGo]SZ[9];B[])", "NoGo has no pass"),
        ("(;GM[11]SZ[5];B[f1])", "bad cell"),
        ("(;GM[1]SZ[9];B[ee]AB[dd])", "node 1: set-up property AB after a move"),
        ("(;GM[11]SZ[5]AB[a1])", "set-up property AB is read for Go and NoGo only"),
        ("(;GM[1]SZ[9]AB[dd][zz])", "node 0: AB[zz]: bad point"),
        ("(;GM[1]SZ[9]AB[aa]AW[ab][ba])", "set-up: not a go position: the group at A9"),
        ("(;GM[1]SZ[9]AB[dd]PL[x])", "bad PL[x]"),
        ("(;GM[1]SZ[9]KM[lots])", "bad KM[lots]"),
    ],
)
def test_malformed_files_get_clear_errors(text, message):
    with pytest.raises(SgfError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_sgf(text)


@pytest.mark.parametrize("rules", ["", "RU[NoGo]"])
def test_setup_stones_are_read_played_from_and_written_back(rules):
    text = f"(;GM[1]SZ[9]{rules}HA[2]AB[cc][gg]AW[aa:bb]AE[bb];W[ee];B[ff])"
    sgf = read_sgf(text)
    colours, to_move = sgf.setup
    board = colours.reshape(9, 9)
    assert to_move == 1  # HA without PL: White moves first
    assert board[2, 2] == board[6, 6] == 1 and board[0, 0] == board[0, 1] == board[1, 0] == 2
    assert board[1, 1] == 0 and int((colours > 0).sum()) == 5  # AE removed the rectangle's bb
    assert sgf.moves == [(1, 40), (0, 50)]
    assert sgf.start().current_player() == 1
    final = sgf.replay()
    assert final.game.board(final.array)[4, 4] == 2
    again = read_sgf(write_sgf(sgf.game, sgf.moves, setup=sgf.setup))
    assert (again.setup[0] == colours).all() and again.setup[1] == 1 and again.moves == sgf.moves


def test_replay_plays_from_the_setup_stones(tmp_path):
    path = tmp_path / "handicap.sgf"
    path.write_text("(;GM[1]SZ[9]KM[0.5]AB[cc][gg]PL[W];W[ee];B[ff])")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "set-up stones (AB/AW), W to move" in result.output
    assert "1. W E5" in result.output and "2. B F4" in result.output


def test_write_refuses_illegal_moves_and_other_games():
    go = mctslab.load_game("go(size=5)")
    with pytest.raises(SgfError, match="move 2"):
        write_sgf(go, [12, 12])
    with pytest.raises(SgfError, match="not nim"):
        write_sgf(mctslab.load_game("nim"), [1])


def test_replay_command(tmp_path):
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = random_moves(game, 1)
    path = tmp_path / "game.sgf"
    path.write_text(write_sgf(game, state.history))
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{len(state.history)} moves" in result.output
    assert "result by the rules: " in result.output and "result in the file: " in result.output
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[9];B[dd]")
    result = CliRunner().invoke(main, ["replay", str(bad)])
    assert result.exit_code == 2 and "malformed SGF" in result.output  # an input error
    bad.write_text("(;GM[1]SZ[5];B[cc];W[cc])")
    result = CliRunner().invoke(main, ["replay", str(bad)])
    assert result.exit_code == 2 and "move 2: illegal move C3 (12); legal moves: " in result.output
    with pytest.raises(SgfError, match="cannot read"):
        read_sgf_file(tmp_path / "missing.sgf")
