"""Go rules: ASCII-board tests (captures, suicide, ko, superko, eyes, scoring) and a plain-Python
Tromp-Taylor referee that random games are checked against move by move."""

import random

import numpy as np
import pytest

import mctslab
from mctslab.errors import IllegalMoveError, SpecError
from mctslab.games import go_kernels
from mctslab.kernels.rng import seed_state


def go(size=5, komi=0.5):
    return mctslab.load_game(f"go(size={size},komi={komi})")


# -- a slow, obvious referee -------------------------------------------------------------------


def _neighbours(p, size):
    r, c = divmod(p, size)
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < size and 0 <= cc < size:
            yield rr * size + cc


def _group(board, p, size):
    colour, seen, todo, libs = board[p], {p}, [p], set()
    while todo:
        q = todo.pop()
        for y in _neighbours(q, size):
            if board[y] == 0:
                libs.add(y)
            elif board[y] == colour and y not in seen:
                seen.add(y)
                todo.append(y)
    return seen, libs


def ref_play(board, p, colour, size):
    """The board after a ``colour`` stone at ``p`` (captures first), or None for suicide."""
    b = list(board)
    b[p] = colour
    for y in _neighbours(p, size):
        if b[y] == 3 - colour:
            stones, libs = _group(b, y, size)
            if not libs:
                for s in stones:
                    b[s] = 0
    return None if not _group(b, p, size)[1] else tuple(b)


def ref_score(board, size):
    """Black area minus White area (Tromp-Taylor)."""
    score, seen = 0, set()
    for p, v in enumerate(board):
        if v:
            score += 1 if v == 1 else -1
        elif p not in seen:
            region, todo, reach = {p}, [p], set()
            while todo:
                q = todo.pop()
                for y in _neighbours(q, size):
                    if board[y] == 0 and y not in region:
                        region.add(y)
                        todo.append(y)
                    elif board[y]:
                        reach.add(board[y])
            seen |= region
            if reach == {1}:
                score += len(region)
            elif reach == {2}:
                score -= len(region)
    return score


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_games_agree_with_the_referee(size):
    """Legal moves (suicide, positional superko), boards and results agree at every step; on
    small boards superko forbids moves that a simple-ko rule would allow, and the test checks that
    this happened, so the superko path is exercised."""
    game = go(size, komi=0.5)
    rnd = random.Random(size)
    superko_only = 0
    for _ in range(40):
        state = game.new_initial_state()
        board = (0,) * (size * size)
        history = {board}
        player = 0
        while not state.is_terminal():
            legal = []
            for p in range(size * size):
                if board[p] == 0:
                    after = ref_play(board, p, player + 1, size)
                    if after is not None and after not in history:
                        legal.append(p)
                    elif after is not None:
                        superko_only += 1
            assert state.legal_actions() == [*legal, size * size]
            action = rnd.choice(state.legal_actions())
            state.apply_action(action)
            if action < size * size:
                board = ref_play(board, action, player + 1, size)
                history.add(board)
            player = 1 - player
            assert tuple(game.board(state.array).reshape(-1)) == board
        score = ref_score(board, size) - 0.5
        assert state.returns() == ([1.0, -1.0] if score > 0 else [-1.0, 1.0])
    assert superko_only > 0


@pytest.mark.parametrize("size", [4, 5, 9])
def test_fast_playouts_are_legal_and_never_fill_own_eyes(size):
    """Replay each fast playout through the rules; a pass only when every empty point is an own
    eye or illegal; the final board is scored as the referee scores it."""
    game = go(size, komi=7.5)
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    for seed in range(30):
        state = game.new_initial_state()
        n, _ = go_kernels.random_playout(game.consts, state.array, seed_state(seed), moves, out)
        replay = game.new_initial_state()
        for i in range(n):
            player, action = int(moves[2 * i]), int(moves[2 * i + 1])
            assert replay.current_player() == player
            legal = replay.legal_actions()
            assert action in legal
            board = game.board(replay.array)
            playable = [a for a in legal[:-1] if not _own_eye(board, a, player + 1, size)]
            if action == size * size:
                assert playable == []
            else:
                assert action in playable
            replay.apply_action(action)
        assert replay.is_terminal() and state.is_terminal()
        assert list(out) == replay.returns()
        board = tuple(game.board(replay.array).reshape(-1))
        score = ref_score(board, size) - 7.5
        assert list(out) == ([1.0, -1.0] if score > 0 else [-1.0, 1.0])


def _own_eye(board, a, colour, size):
    r, c = divmod(a, size)
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < size and 0 <= cc < size and board[rr, cc] != colour:
            return False
    diag = [(r + i, c + j) for i in (-1, 1) for j in (-1, 1)]
    inside = [(rr, cc) for rr, cc in diag if 0 <= rr < size and 0 <= cc < size]
    bad = sum(board[rr, cc] == 3 - colour for rr, cc in inside)
    return bad + (len(inside) < 4) < 2


# -- ASCII-board rule tests ---------------------------------------------------------------------


def test_capture_removes_the_group_and_counts_prisoners():
    game = go(5)
    state = game.state_from_ascii(
        """
        . X O . .
        X O O X .
        . X O . .
        . . X . .
        . . . . .
        """,
        to_move="X",
    )
    assert "D3" in [state.action_to_string(a) for a in state.legal_actions()]
    state.apply_move("D3")  # the four O stones keep one liberty, D5
    assert game.board(state.array)[1, 2] == 2
    state.apply_move("pass")
    state.apply_move("D5")
    board = game.board(state.array)
    assert board[0, 2] == board[1, 1] == board[1, 2] == board[2, 2] == 0
    assert game.captures(state.array) == (4, 0)


def test_suicide_is_illegal_but_a_capturing_move_into_no_liberty_is_legal():
    game = go(5)
    state = game.state_from_ascii(
        """
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        to_move="O",
    )
    with pytest.raises(IllegalMoveError):
        state.apply_move("A5")  # suicide
    state = game.state_from_ascii(
        """
        O X . . .
        . O . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        to_move="X",
    )
    state.apply_move("A4")  # fills its own last liberty, but captures O at A5 first
    assert game.board(state.array)[0, 0] == 0


KO = """
. X O . .
X O . O .
. X O . .
. . . . .
. . . . .
"""


def test_ko_cannot_be_retaken_at_once_but_can_after_a_threat():
    game = go(5)
    state = game.state_from_ascii(KO, to_move="X")
    state.apply_move("C4")  # captures O at B4
    assert game.board(state.array)[1, 1] == 0
    with pytest.raises(IllegalMoveError):
        state.apply_move("B4")  # immediate retake recreates the position
    state.apply_move("E1")
    state.apply_move("E2")
    state.apply_move("B4")  # a new position now
    assert game.board(state.array)[1, 2] == 0


DOUBLE_KO = """
. X O . . . .
X O . O . . .
. X O . . . .
. . . . . . .
. O X . . . .
O X . X . . .
. O X . . . .
"""


def test_positional_superko_forbids_a_repeat_that_simple_ko_allows():
    """Two kos: Black takes the top one, White the bottom one, Black passes, White retakes the
    top one; Black's retake of the bottom one would recreate the starting position. That position
    is not the one before White's last move (simple ko would allow the move), but it occurred:
    positional superko forbids it."""
    game = go(7)
    state = game.state_from_ascii(DOUBLE_KO, to_move="X")
    for move in ("C6", "C2", "pass", "B6"):
        state.apply_move(move)
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert "B2" not in legal and "D4" in legal
    with pytest.raises(IllegalMoveError):
        state.apply_move("B2")
    # with a stone instead of the pass the retake makes a new position, and is legal
    other = game.state_from_ascii(DOUBLE_KO, to_move="X")
    for move in ("C6", "C2", "G1", "B6"):
        other.apply_move(move)
    assert "B2" in {other.action_to_string(a) for a in other.legal_actions()}


def test_superko_table_lives_in_the_state_and_clones_with_it():
    game = go(5)
    state = game.state_from_ascii(KO, to_move="X")
    state.apply_move("C4")
    clone = state.clone()
    with pytest.raises(IllegalMoveError):
        clone.apply_move("B4")
    assert int(clone.array[go_kernels.S_NHIST]) == 2


def test_eyes_the_playout_leaves_alone_and_the_scoring_of_the_end():
    """Black's two eyes survive a playout: both sides pass at once; area scoring counts them."""
    game = go(5, komi=0.5)
    state = game.state_from_ascii(
        """
        . X O . O
        X X O O O
        X . X O .
        X X X O O
        . X O O .
        """,
        to_move="X",
    )
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    before = game.board(state.array).copy()
    n, _ = go_kernels.random_playout(game.consts, state.array, seed_state(1), moves, out)
    assert n == 2 and list(moves[:4]) == [0, 25, 1, 25]
    assert (game.board(state.array) == before).all()
    # Black: 9 stones + eyes A5, B3, A1; White: 10 stones + eyes D5, E3, E1
    assert game.score(state.array) == (9 + 3) - (10 + 3) - 0.5
    assert state.returns() == [-1.0, 1.0]


def test_scoring_with_integer_komi_can_draw():
    game = go(5, komi=1)
    state = game.state_from_ascii(
        """
        . X O . .
        . X O . .
        X X O . .
        . X O O O
        . X O . .
        """,
        to_move="X",
    )
    assert game.score(state.array) == 10 - 15 - 1
    state.apply_move("pass")
    state.apply_move("pass")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    even = go(3, komi=0)
    s = even.state_from_ascii("X . O\nX . O\nX . O", to_move="X")
    s.apply_move("pass")
    s.apply_move("pass")
    assert s.returns() == [0.0, 0.0]
    assert "draw" in str(s)


def test_two_passes_end_the_game_and_one_does_not():
    state = go(5).new_initial_state()
    state.apply_move("pass")
    assert not state.is_terminal()
    state.apply_move("pass")  # White: a pass, then a stone, then two passes
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]  # empty board: komi decides
    state = go(5).new_initial_state()
    state.apply_move("C3")
    state.apply_move("pass")
    assert not state.is_terminal()
    state.apply_move("pass")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]  # Black owns the board


def test_ascii_round_trip_and_bad_boards():
    game = go(5)
    state = game.state_from_ascii(KO, to_move="O")
    again = game.state_from_ascii(str(state), to_move="O")
    assert (game.board(again.array) == game.board(state.array)).all()
    with pytest.raises(ValueError, match="expected 5 rows"):
        game.state_from_ascii("X . .")
    with pytest.raises(IllegalMoveError, match="no liberty"):
        game.state_from_ascii("X O . . .\nO . . . .\n" + ". . . . .\n" * 3)


def test_spec_defaults_and_errors():
    assert mctslab.load_game("go").spec.spec_string == "go(size=9,komi=7.5)"
    assert mctslab.load_game("go(size=7)").params.komi == 9.0
    assert mctslab.load_game("go(size=7,komi=5.5)").params.komi == 5.5
    for bad in ("go(size=20)", "go(komi=0.3)", "go(size=2)"):
        with pytest.raises(SpecError):
            mctslab.load_game(bad)


@pytest.mark.parametrize("komi", ["nan", "inf", "-inf"])
def test_non_finite_komi_is_refused_as_such(komi):
    with pytest.raises(SpecError, match=r"komi=.*finite number") as err:
        mctslab.load_game(f"go(komi={komi})")
    assert "less than or equal" not in str(err.value)  # not the misleading range message


def test_max_length_guard_ends_and_scores():
    game = go(3, komi=0.5)
    state = game.new_initial_state()
    state.array[go_kernels.S_NMOVES] = game.spec.max_game_length - 1
    state.apply_move("B2")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
