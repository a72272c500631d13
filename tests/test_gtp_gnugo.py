"""Full games over GTP against GNU Go (Debian package ``gnugo``; ``make test`` installs it): they
end legally (two passes or a resignation) and both engines score them; on games played to the
end (two passes) the two engines' ``final_score`` and dead stones (``final_status_list``)
agree."""

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


def play(engine, gnugo, size, komi, first="b"):
    """Play a game between the two engines from an empty board; returns how it ended."""
    for command in (f"boardsize {size}", "clear_board", f"komi {komi}"):
        assert gnugo.send(command)[0] and ours(engine, command)[0]
    players = {first: (engine, gnugo), "bw".replace(first, ""): (gnugo, engine)}
    colour, passes, moves = "b", 0, []
    while len(moves) < 300:
        mover, other = players[colour]
        ask = (lambda c: ours(engine, c)) if mover is engine else gnugo.send
        ok, move = ask(f"genmove {colour}")
        assert ok, move
        move = move.lower()
        moves.append(move)
        if move == "resign":
            return "resign"
        tell = (lambda c: ours(engine, c)) if other is engine else gnugo.send
        ok, reply = tell(f"play {colour} {move}")
        assert ok, f"move {len(moves)} {colour} {move} refused: {reply}"
        passes = passes + 1 if move == "pass" else 0
        if passes == 2:
            return "passes"
        colour = "w" if colour == "b" else "b"
    raise AssertionError("the game did not end in 300 moves")


def test_a_full_game_against_gnugo_ends_legally_and_is_scored():
    engine = Engine("go", "mcts(sims=400)", seed=11, resign=0.02)
    gnugo = Gnugo()
    try:
        ended = play(engine, gnugo, 9, 7.5)
        assert ended == "resign" or engine.state.is_terminal()
        ok, our_score = ours(engine, "final_score")
        assert ok and re.fullmatch(r"[BW]\+\d+(\.5)?|0", our_score)
        ok, their_score = gnugo.send("final_score")
        assert ok and re.fullmatch(r"[BW]\+\d+(\.\d+)?|0", their_score)
    finally:
        gnugo.close()


def dead_stones(reply):
    return sorted(reply.upper().split())


@pytest.mark.parametrize("first", ["b", "w"])
def test_scores_and_dead_stones_agree_with_gnugo_on_finished_games(first):
    """Small boards, games played out to two passes (no resignation): both engines score the
    final position the same, dead stones included (issue 17)."""
    engine = Engine("go", "mcts(sims=300)", seed=3, resign=0)
    gnugo = Gnugo()
    try:
        assert play(engine, gnugo, 7, 0.5, first) == "passes"
        ok, ours_dead = ours(engine, "final_status_list dead")
        theirs_dead = gnugo.send("final_status_list dead")
        assert ok and theirs_dead[0]
        assert dead_stones(ours_dead) == dead_stones(theirs_dead[1])
        assert ours(engine, "final_score") == gnugo.send("final_score")
    finally:
        gnugo.close()
