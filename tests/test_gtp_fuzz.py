"""The GTP/HTP engine fuzzed with hypothesis over Go, NoGo and Hex: lines of known and unknown
commands with arguments from the whole Unicode alphabet (other scripts' digits, control
characters, ``#``, CR), long arguments (up to 200,000 characters) and valid-looking vertices.

After every line: the reply is well formed (``=``/``?``, the id repeated, one empty line at the
end, at most a few hundred characters for an error), never an internal error; and the protocol
state is consistent: the engine's position is the replay of the moves it recorded, and after an
accepted move by colour C the stone on its point is C's (a swap: White's, played by White) and,
unless the game ended, the other colour is to move (the old engine let Black "swap", leaving a
White stone with White to move).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mctslab.games import hex_kernels
from mctslab.interfaces.gtp import Engine, preprocess

COMMANDS = [
    "play", "genmove", "undo", "boardsize", "clear_board", "komi", "showboard", "final_score",
    "kgs-genmove_cleanup", "param_game", "all_legal_moves", "time_settings", "time_left",
    "known_command", "list_commands", "name", "protocol_version", "version", "gogui-visits",
    "gogui-pv", "PLAY", "frobnicate", "", "echo", "is_legal", "query_boardsize", "get_komi",
    "reg_genmove", "fixed_handicap", "place_free_handicap", "set_free_handicap",
    "final_status_list", "kgs-time_settings", "cputime", "gomill-describe_engine",
    "gogui-analyze_commands", "gogui-visits_board", "loadsgf",
]  # fmt: skip
# (not fuzzed: lz-analyze and lz-genmove_analyze stream until the next command arrives, and
# printsgf FILE writes a file)
COLOURS = ["b", "w", "black", "WHITE", "x", "\u0628"]
VERTICES = ["pass", "PASS", "swap-pieces", "resign", "Z0", "T19", "i9", "A1", "j10"] + [
    f"{c}{r}" for c in "abcdefgABCDEFG" for r in range(1, 8)
]
WORDS = st.one_of(
    st.sampled_from(COLOURS + VERTICES + ["allow_swap", "0", "1", "3", "5", "7", "-1", "nan"]),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
    st.integers(1_000, 200_000).map(lambda n: "\u0661" * 3 + "A" * n),
)
COMMAND_LINES = st.tuples(
    st.one_of(st.just(""), st.integers(0, 99).map(str), st.sampled_from(["\u0661\u0662", "007"])),
    st.sampled_from(COMMANDS),
    st.lists(WORDS, max_size=3),
    st.sampled_from(["", " # comment", "\r", "\t", "\x00"]),
).map(lambda t: " ".join([t[0], t[1], *t[2]]) + t[3])
LINES = st.one_of(COMMAND_LINES, st.text(st.characters(exclude_categories=("Cs",)), max_size=60))


def replayed(engine):
    """The position the engine's recorded moves give, played again from the start."""
    game, state = engine.pos.game, engine.pos.start()  # (handicap stones included)
    for player, action in engine.pos.moves:
        if state.current_player() != player:
            engine.adapter.force_to_move(game, state, player)
        state.apply_action(action)
    return state


def stone(engine, action):
    """0 empty, 1 Black, 2 White at the point of ``action``."""
    game, array = engine.pos.game, engine.state.array
    if engine.adapter.name == "hex":
        return int(array[hex_kernels.B + action])
    return int(game.board(array).reshape(-1)[action])


def check_consistent(engine, text, reply):
    assert np.array_equal(replayed(engine).array, engine.state.array), text
    words = text.split()
    if words and words[0].isascii() and words[0].isdigit():
        words = words[1:]
    if not reply.startswith("=") or len(words) < 2:
        return
    name, colour = words[0].lower(), {"b": 0, "black": 0, "w": 1, "white": 1}.get(words[1].lower())
    if name == "play" and len(words) == 3:
        vertex = words[2]
    elif name in ("genmove", "kgs-genmove_cleanup") and len(words) == 2:
        vertex = reply[1:].strip()
    else:
        return
    if vertex.lower() in ("pass", "resign"):
        return
    game, state = engine.pos.game, engine.state
    assert engine.pos.moves[-1][0] == colour, text
    action = engine.pos.moves[-1][1]
    if vertex.lower() == "swap-pieces":
        assert colour == 1 and action == game.swap_action, text
        stones = [stone(engine, a) for a in range(game.params.size**2)]
        assert sorted(stones)[-1] == 2 and sum(s > 0 for s in stones) == 1, text
    else:
        assert stone(engine, action) == colour + 1, text
    if not state.is_terminal():
        assert state.current_player() == 1 - colour, text


@pytest.mark.parametrize("game", ["go", "nogo", "hex"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINES, max_size=10))
def test_fuzzed_lines_never_crash_and_leave_a_consistent_position(game, lines):
    engine = Engine(game, "random", size=5, seed=0)
    for line in lines:
        reply = engine.handle(line)
        text = preprocess(line)
        if reply is None:
            assert text == ""
            continue
        assert reply[0] in "=?" and reply.endswith("\n\n") and "\n\n" not in reply[:-2]
        assert "internal error" not in reply, (line[:200], reply)
        first = text.split()[0]
        cid = first if first.isascii() and first.isdigit() else ""
        assert reply[1:].startswith(cid)
        if reply[0] == "?":
            assert len(reply) < 300, reply[:300]
        check_consistent(engine, text, reply)


@pytest.mark.parametrize(
    ("game", "script"),
    [
        (
            "hex",
            ["param_game allow_swap 1", "play b c1", "play b swap-pieces", "play w swap-pieces"],
        ),
        ("hex", ["param_game allow_swap 1", "play w c1", "genmove w", "genmove b", "undo"]),
        ("go", ["play b c3", "play b pass", "play w pass", "kgs-genmove_cleanup w", "play b d4"]),
        ("nogo", ["boardsize 3", "play w b2", "genmove w", "genmove b", "undo", "undo"]),
    ],
)
def test_scripted_edge_cases_keep_the_position_consistent(game, script):
    engine = Engine(game, "random", size=5, seed=1)
    for line in script:
        check_consistent(engine, line, engine.handle(line))
