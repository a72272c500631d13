"""HTP (Hex) engine: a scripted session against its transcript; swap-pieces and the swap rule as
a setting (param_game allow_swap); lowercase cells with i; bad sizes; all_legal_moves;
final_score."""

import io

import pytest

from mctslab.errors import SpecError
from mctslab.interfaces.gtp import Engine

SCRIPT = """boardsize 9 9
param_game allow_swap 1
play b i1
play w swap-pieces
showboard
play b a9
play w I9
undo
genmove w
boardsize 8 9
boardsize 2
komi 5
kgs-genmove_cleanup b
"""

TRANSCRIPT = """=

=

=

=

=
   a b c d e f g h i
 1 . . . . . . . . . 1
  2 . . . . . . . . . 2
   3 . . . . . . . . . 3
    4 . . . . . . . . . 4
     5 . . . . . . . . . 5
      6 . . . . . . . . . 6
       7 . . . . . . . . . 7
        8 . . . . . . . . . 8
         9 O . . . . . . . . 9
           a b c d e f g h i
Black (X, top-bottom) to move

? illegal move

=

=

= {genmove}

? unacceptable size: only square boards

? unacceptable size 2: hex sizes are 3..19

? unknown command 'komi'

? unknown command 'kgs-genmove_cleanup'

"""


def test_scripted_hex_session_matches_the_transcript():
    engine = Engine("hex", "random", seed=3)
    out = io.StringIO()
    engine.serve(io.StringIO(SCRIPT), out)
    genmove = engine.pos.game.action_to_string(1, engine.pos.moves[-1][1])
    assert out.getvalue() == TRANSCRIPT.format(genmove=genmove)
    assert genmove[0] in "abcdefghi" and 1 <= int(genmove[1:]) <= 9
    assert engine.pos.moves[:2] == [(0, 8), (1, 81)]  # i1, then the swap


def test_swap_is_answered_as_swap_pieces_and_only_on_the_second_move():
    engine = Engine("hex", "random", size=3, seed=0, allow_swap=True)
    engine.handle("play b b2")
    reply = engine.handle("genmove w")
    assert reply in {f"= {c}{r}\n\n" for c in "abc" for r in "123"} | {"= swap-pieces\n\n"}
    engine.handle("undo")
    engine.handle("play w swap-pieces")
    assert engine.handle("play w swap-pieces").startswith("? illegal move")
    assert engine.handle("play b d1").startswith("? illegal move: bad cell")  # 3x3: a..c
    assert engine.handle("play b c3") == "=\n\n"


def test_only_white_may_swap_and_only_after_blacks_first_stone():
    engine = Engine("hex", "random", size=5, seed=0, allow_swap=True)
    engine.handle("play b c1")
    assert engine.handle("play b swap-pieces") == (
        "? illegal move: only White may swap, as the second move\n\n"
    )
    assert engine.state.current_player() == 1 and engine.pos.moves == [(0, 2)]
    engine.handle("play b d2")  # Black twice: White's swap is gone too
    assert engine.handle("play w swap-pieces") == "? illegal move\n\n"
    for opening in (["play w c1"], ["play b c1", "play b d2"]):  # colours set by hand
        engine.handle("clear_board")
        for line in opening:
            engine.handle(line)
        assert "swap-pieces" not in engine.handle("all_legal_moves")
        for _ in range(20):  # nor may the agent swap for Black, or after White opened
            assert engine.handle("genmove b") != "= swap-pieces\n\n"
            engine.handle("undo")


def test_the_swap_rule_is_off_by_default_and_a_setting():
    engine = Engine("hex", "random", size=3, seed=0)
    assert engine.handle("param_game") == "=\n[bool] allow_swap 0\n\n"
    engine.handle("play b b2")
    assert engine.handle("play w swap-pieces").startswith("? illegal move: the swap rule is off")
    for _ in range(30):  # the first genmove w never answers swap-pieces
        assert engine.handle("genmove w") != "= swap-pieces\n\n"
        engine.handle("undo")
    assert engine.handle("param_game allow_swap 1") == "=\n\n"  # the stone b2 is kept
    assert engine.pos.moves == [(0, 4)] and engine.pos.game.params.swap
    assert engine.handle("all_legal_moves").endswith(" swap-pieces\n\n")
    assert engine.handle("play w swap-pieces") == "=\n\n"
    assert engine.handle("param_game allow_swap 0").startswith("? the game has a swap")
    reply = engine.handle("param_game allow_swap 2")
    assert reply == "? param_game allow_swap '2': expected 0 or 1\n\n"
    assert engine.handle("param_game swap 1").startswith("? unknown game setting 'swap'")
    assert engine.handle("param_game allow_swap").startswith("? param_game takes no argument")


def test_all_legal_moves_and_final_score():
    engine = Engine("hex", "random", size=3, seed=0)
    assert engine.handle("all_legal_moves") == "= a1 b1 c1 a2 b2 c2 a3 b3 c3\n\n"
    assert engine.handle("final_score") == "= cannot score\n\n"
    for line in ("play b a1", "play w b1", "play b a2", "play w b2", "play b a3"):
        engine.handle(line)
    assert engine.handle("final_score") == "= B+\n\n"
    assert engine.handle("all_legal_moves") == "=\n\n"
    engine.handle("clear_board")
    for line in ("play b a1", "play w a2", "play b b1", "play w b2", "play b c3", "play w c2"):
        engine.handle(line)
    assert engine.handle("final_score") == "= W+\n\n"


def test_the_gtp_command_takes_the_swap_rule_and_other_games_refuse_it():
    assert Engine("hex", "random", allow_swap=True).pos.game.params.swap
    assert not Engine("hex", "random").pos.game.params.swap
    with pytest.raises(SpecError, match="the swap rule is Hex's, not go's"):
        Engine("go", "random", allow_swap=False)


def test_loadsgf_sets_up_a_hex_game_from_hexguis_sgf(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[11]SZ[5];B[c1];W[d2];B[b2])")
    engine = Engine("hex", "random", seed=0)
    assert engine.handle(f"loadsgf {path}") == "=\n\n"
    assert engine.pos.game.params.size == 5 and engine.pos.moves == [(0, 2), (1, 8), (0, 6)]
    assert engine.state.current_player() == 1
    assert engine.handle(f"loadsgf {path} 2") == "=\n\n"  # the position before move 2
    assert engine.pos.moves == [(0, 2)]
    assert "swap-pieces" not in engine.handle("all_legal_moves")  # the swap rule is off
    path.write_text("(;GM[11]SZ[5];B[c1];W[swap-pieces];B[b2])")
    assert engine.handle(f"loadsgf {path}") == "=\n\n"  # a game with a swap turns the rule on
    assert engine.pos.moves == [(0, 2), (1, 25), (0, 6)] and engine.state.current_player() == 1
    assert engine.handle("param_game") == "=\n[bool] allow_swap 1\n\n"
    engine.handle("param_game allow_swap 0")  # refused: the game has a swap
    path.write_text("(;GM[11]SZ[5];B[c1];W[swap-pieces];B[a3])")  # a3: the swapped stone
    assert engine.handle(f"loadsgf {path}").startswith("? ")
    assert engine.pos.moves == [(0, 2), (1, 25), (0, 6)]  # nothing changed


def test_komi_is_refused_for_hex_on_the_command_line():
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    result = CliRunner().invoke(main, ["gtp", "--game", "hex", "--komi", "5"], input="")
    assert result.exit_code == 2 and "--komi is for go: hex has no komi" in result.output


def test_an_external_engine_is_told_the_swap_rule_of_the_game():
    import mctslab
    from mctslab.games.hex_protocol import PROTOCOL

    for swap in (0, 1):
        commands = PROTOCOL.setup(mctslab.load_game(f"hex(size=5,swap={bool(swap)})"))
        assert commands == ["boardsize 5 5", f"param_game allow_swap {swap}", "clear_board"]
