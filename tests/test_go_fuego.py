"""Fuego's playout rules (``playout=go_fuego``): escapes by capture, low-liberty moves and
captures anywhere on hand-made boards; its playouts are replayed as legal games without
self-ataris of two stones in tests/test_go_knowledge.py."""

import numpy as np

import mctslab
from mctslab.games import go_kernels as K
from mctslab.games.go_fuego import MAX_CANDIDATES, MAX_NOTES, fuego_playout, fuego_points
from mctslab.kernels.rng import seed_state

GAME = "go(size=7,komi=0.5)"


def _points(game, state, notes=()):
    """The candidates of ``fuego_points`` as move strings, and the notes it keeps."""
    w, pp = int(game.consts[K.C_W]), int(game.consts[K.C_P])
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    kept = np.zeros(MAX_NOTES, dtype=np.int64)
    for i, move in enumerate(notes):
        kept[i] = game.consts[K.C_TABLES + state.string_to_action(move)]
    buf = np.empty(3, dtype=np.int64)
    k, n = fuego_points(game.consts, state.array, cand, w, pp, kept, len(notes), buf)
    to_move = {int(game.consts[K.C_TABLES + a]): a for a in range(game.size**2)}
    names = sorted({state.action_to_string(to_move[int(p)]) for p in cand[:k]})
    return names, sorted(state.action_to_string(to_move[int(p)]) for p in kept[:n])


def _after(game, board, last):
    state = game.state_from_ascii(board, to_move="X")
    state.array[K.S_LAST] = state.string_to_action(last)
    return state


def test_low_liberties_extend_an_own_group_where_it_gains_liberties():
    game = mctslab.load_game(GAME)
    # White's E4 leaves C4-D4 two liberties, D5 and D3; at D5 Black gains none (E5 is White)
    state = _after(
        game,
        """
        . . . . . . .
        . . . . . . .
        . . O . O . .
        . O X X O . .
        . . O . . . .
        . . . . . . .
        . . . . . . .
        """,
        "E4",
    )
    assert _points(game, state)[0] == ["D3"]


def test_low_liberties_take_the_liberty_the_last_moves_group_needs():
    game = mctslab.load_game(GAME)
    # White's D4 has two liberties, D5 and E4: at D5 White would gain C5 and D6 and E5;
    # at E4 it would gain F4 and E5 and E3; both are good liberties for Black to take
    state = _after(
        game,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X O . . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        """,
        "D4",
    )
    assert _points(game, state)[0] == ["D5", "E4"]
    # a liberty where White would gain nothing is not taken: E4 boxed in by Black
    state = _after(
        game,
        """
        . . . . . . .
        . . . . . . .
        . . . . X . .
        . . X O . X .
        . . . X X . .
        . . . . . . .
        . . . . . . .
        """,
        "D4",
    )
    assert _points(game, state)[0] == ["D5"]


def test_an_own_group_in_atari_escapes_by_capturing_an_attacker_away_from_the_last_move():
    game = mctslab.load_game(GAME)
    # Black's D4 is in atari after White's E4 (liberty D5); White's C4, two points from E4, is
    # in atari too (liberty C5): extending and capturing are both candidates
    state = _after(
        game,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . X O X O . .
        . . X O . . .
        . . . . . . .
        . . . . . . .
        """,
        "E4",
    )
    assert _points(game, state)[0] == ["C5", "D5"]


def test_a_group_put_in_atari_earlier_is_captured_anywhere():
    game = mctslab.load_game(GAME)
    state = game.state_from_ascii(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        O X . . . . .
        """,
        to_move="X",
    )
    state.array[K.S_LAST] = game.pass_action
    # A1 (White, in atari) is captured at A2; D4 (empty now) and B1 (out of atari) are dropped
    assert _points(game, state, notes=("D4", "A1", "B1")) == (["A2"], ["A1"])
    assert _points(game, state) == ([], [])


def test_a_fixed_seed_gives_the_same_playout():
    """Legality and self-ataris: tests/test_go_knowledge.py (safe playouts)."""
    game = mctslab.load_game(GAME)
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    runs = []
    for seed in (3, 3, 4):
        state = game.new_initial_state().array.copy()
        n, _ = fuego_playout(game.consts, state, seed_state(seed), moves, out)
        runs.append(tuple(moves[: 2 * n]))
    assert runs[0] == runs[1] and runs[0] != runs[2]
