"""HTP (Hex) engine: a scripted session against its transcript; swap-pieces; lowercase cells
with i; bad sizes."""

import io

from mctslab.interfaces.gtp import Engine

SCRIPT = """boardsize 9 9
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
final_score
"""

TRANSCRIPT = """=

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

? unknown command 'final_score'

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
    engine = Engine("hex", "random", size=3, seed=0)
    engine.handle("play b b2")
    reply = engine.handle("genmove w")
    assert reply in {f"= {c}{r}\n\n" for c in "abc" for r in "123"} | {"= swap-pieces\n\n"}
    engine.handle("undo")
    engine.handle("play w swap-pieces")
    assert engine.handle("play w swap-pieces").startswith("? illegal move")
    assert engine.handle("play b d1").startswith("? illegal move: bad cell")  # 3x3: a..c
    assert engine.handle("play b c3") == "=\n\n"
