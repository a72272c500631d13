"""A full 9x9 game over GTP against GNU Go (Debian package ``gnugo``; ``make test`` installs it):
it ends legally (two passes or a resignation) and both engines score it."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mctslab.interfaces.gtp import Engine

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)
pytestmark = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (make test does)")


class Gnugo:
    def __init__(self):
        self.proc = subprocess.Popen(
            [GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--seed", "7"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"GNU Go closed the connection after {command!r}"
            if line == "\n" and lines:
                break
            lines.append(line.rstrip("\n"))
        reply = "\n".join(lines)
        return reply[0] == "=", reply[1:].strip()

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def ours(engine, command):
    reply = engine.handle(command)
    assert reply.endswith("\n\n")
    return reply[0] == "=", reply[1:].strip()


def test_a_full_game_against_gnugo_ends_legally_and_is_scored():
    engine = Engine("go", "mcts(sims=400)", seed=11, resign=0.02)
    gnugo = Gnugo()
    try:
        for command in ("boardsize 9", "clear_board", "komi 7.5"):
            assert gnugo.send(command)[0] and ours(engine, command)[0]
        players = {"b": (engine, gnugo), "w": (gnugo, engine)}
        colour, passes, moves, ended = "b", 0, [], None
        while len(moves) < 300:
            mover, other = players[colour]
            ok, move = (
                ours(mover, f"genmove {colour}")
                if mover is engine
                else mover.send(f"genmove {colour}")
            )
            assert ok, move
            move = move.lower()
            moves.append(move)
            if move == "resign":
                ended = "resign"
                break
            ok, reply = (
                ours(other, f"play {colour} {move}")
                if other is engine
                else other.send(f"play {colour} {move}")
            )
            assert ok, f"move {len(moves)} {colour} {move} refused: {reply}"
            passes = passes + 1 if move == "pass" else 0
            if passes == 2:
                ended = "passes"
                break
            colour = "w" if colour == "b" else "b"
        assert ended is not None, "the game did not end in 300 moves"
        ok, our_score = ours(engine, "final_score")
        assert ok and re.fullmatch(r"[BW]\+\d+(\.5)?|0", our_score)
        ok, their_score = gnugo.send("final_score")
        assert ok and re.fullmatch(r"[BW]\+\d+(\.\d+)?|0", their_score)
        if ended == "passes":
            assert engine.state.is_terminal()
            r = engine.state.returns()
            assert our_score[0] == ("B" if r[0] > 0 else "W")
    finally:
        gnugo.close()
