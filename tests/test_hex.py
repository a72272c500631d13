"""Hex: ASCII-board rule tests, an independent BFS referee, exact solutions of small boards, and
the fast random fill checked against the contract's uniformly random game.

The referee below (``replay`` + ``connected``) is plain Python written from the rules, independent
of the kernels' state layout and union-find: it rebuilds the board from the moves and searches it.
"""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mctslab
from mctslab.errors import IllegalMoveError
from mctslab.games import generic_template, hex_kernels
from mctslab.games.contract import TERMINAL_PLAYER
from mctslab.kernels import codegen
from mctslab.kernels.rng import seed_state

# The six neighbours of (r, c), from the rules: (r, c±1), (r±1, c), (r-1, c+1), (r+1, c-1).
STEPS = ((0, -1), (0, 1), (-1, 0), (1, 0), (-1, 1), (1, -1))


# -- the independent referee ----------------------------------------------------------------------
def replay(pairs, size):
    """The board (rows of 'X', 'O', '.') after (player, action) pairs, swap included."""
    grid = [["."] * size for _ in range(size)]
    for player, action in pairs:
        if action == size * size:
            stones = [(r, c) for r in range(size) for c in range(size) if grid[r][c] != "."]
            assert len(stones) == 1 and grid[stones[0][0]][stones[0][1]] == "X"
            r, c = stones[0]
            grid[r][c] = "."
            grid[c][r] = "O"
        else:
            r, c = divmod(int(action), size)
            assert grid[r][c] == ".", "a stone played on an occupied cell"
            grid[r][c] = "XO"[player]
    return grid


def connected(grid, stone):
    """Breadth-first search: does ``stone`` ('X' top-bottom, 'O' left-right) join its sides?"""
    size = len(grid)
    if stone == "X":
        frontier = [(0, c) for c in range(size) if grid[0][c] == "X"]
    else:
        frontier = [(r, 0) for r in range(size) if grid[r][0] == "O"]
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        if (stone == "X" and r == size - 1) or (stone == "O" and c == size - 1):
            return True
        for dr, dc in STEPS:
            rr, cc = r + dr, c + dc
            inside = 0 <= rr < size and 0 <= cc < size
            if inside and grid[rr][cc] == stone and (rr, cc) not in seen:
                seen.add((rr, cc))
                frontier.append((rr, cc))
    return False


def rendered_grid(state, size):
    """The board as the ASCII rendering shows it."""
    lines = str(state).splitlines()[1 : 1 + size]
    return [line.split()[1:-1] for line in lines]


def position(picture: str):
    """Play the stones of an ASCII board: Black's and White's in reading order, alternately.

    Black has as many stones as White or one more. The wrapper refuses a move after the game
    ended, so a picture that is won before its last stone fails here.
    """
    rows = [line.split() for line in picture.strip().splitlines()]
    size = len(rows)
    assert all(len(row) == size for row in rows)
    black = [r * size + c for r in range(size) for c in range(size) if rows[r][c] == "X"]
    white = [r * size + c for r in range(size) for c in range(size) if rows[r][c] == "O"]
    assert len(white) <= len(black) <= len(white) + 1
    state = mctslab.load_game(f"hex(size={size})").new_initial_state()
    for i, a in enumerate(black):
        state.apply_action(a)
        if i < len(white):
            state.apply_action(white[i])
    assert rendered_grid(state, size) == rows
    return state


# -- rules on ASCII boards ------------------------------------------------------------------------
def test_black_wins_top_to_bottom():
    s = position(
        """
        . X .
         . X O
          O X .
        """
    )
    assert s.is_terminal() and s.current_player() == TERMINAL_PLAYER
    assert s.returns() == [1.0, -1.0]
    assert s.legal_actions() == []
    assert "Black (X, top-bottom) won" in str(s)


def test_white_wins_left_to_right():
    s = position(
        """
        X . .
         O O O
          X . X
        """
    )
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]
    assert "White (O, left-right) won" in str(s)


@pytest.mark.parametrize(
    ("picture", "black_won"),
    [
        # the short diagonal a3-b2-c1 is a chain: (r, c) touches (r+1, c-1)
        ("""
         O . X
          . X .
           X . O
         """, True),
        # the long diagonal a1-b2-c3 is not: (r, c) and (r+1, c+1) are not neighbours
        ("""
         X . O
          . X .
           O . X
         """, False),
    ],
)  # fmt: skip
def test_a_chain_connects_only_along_the_short_diagonal(picture, black_won):
    s = position(picture)
    assert s.is_terminal() is black_won
    if black_won:
        assert s.returns() == [1.0, -1.0]
    else:
        assert s.current_player() == 1 and len(s.legal_actions()) == 4


def test_acute_corner_a1_has_two_neighbours():
    # a1 does not touch b2, so the column below b2 is cut off from a1 ...
    s = position(
        """
        X . . O
         . X . O
          . X . O
           . X . O
        """
    )
    assert not s.is_terminal() and s.current_player() == 0
    # ... but a2 touches both a1 and b2
    s.apply_move("a2")
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


def test_obtuse_corner_top_right_touches_the_cell_below_left():
    s = position(
        """
        . . . X
         O . X .
          O . X .
           O . X .
        """
    )
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


def test_obtuse_corner_bottom_left_touches_the_cell_above_right():
    s = position(
        """
        X X X .
         X . . .
          . O O O
           O . . .
        """
    )
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]


def test_acute_corner_bottom_right_has_two_neighbours():
    s = position(
        """
        X X X .
         X . . .
          O O O .
           . . . O
        """
    )
    assert not s.is_terminal()  # c3 and d4 do not touch
    s.apply_move("b2")
    assert not s.is_terminal()
    s.apply_move("c4")  # c4 touches c3 and d4
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]


def test_moves_strings_and_illegal_moves():
    game = mctslab.load_game("hex(size=11)")
    s = game.new_initial_state()
    assert s.legal_actions() == list(range(121))
    assert s.action_to_string(0) == "a1" and s.action_to_string(120) == "k11"
    assert s.action_to_string(10) == "k1" and s.action_to_string(110) == "a11"
    s.apply_move("f6")
    assert s.current_player() == 1 and 60 not in s.legal_actions()
    with pytest.raises(IllegalMoveError):
        s.apply_move("f6")
    with pytest.raises(IllegalMoveError, match="no swap rule"):
        s.apply_move("swap")
    with pytest.raises(IllegalMoveError):
        s.apply_action(121)


# -- the swap rule --------------------------------------------------------------------------------
def test_swap_is_legal_only_at_the_second_move_and_only_with_swap():
    plain = mctslab.load_game("hex(size=5)")
    assert plain.num_distinct_actions() == 25 and plain.spec.max_game_length == 25
    game = mctslab.load_game("hex(size=5,swap=true)")
    assert game.num_distinct_actions() == 26 and game.spec.max_game_length == 26
    s = game.new_initial_state()
    assert 25 not in s.legal_actions()
    with pytest.raises(IllegalMoveError):
        s.apply_action(25)
    s.apply_move("b1")
    assert s.legal_actions()[-1] == 25 and s.action_to_string(25) == "swap"
    assert s.string_to_action("swap") == 25 and s.string_to_action("swap-pieces") == 25
    assert "(or swap)" in str(s)
    declined = s.clone()
    declined.apply_move("c3")
    assert 25 not in declined.legal_actions()
    s.apply_move("swap")
    assert s.current_player() == 0  # Black moves again
    assert 25 not in s.legal_actions()
    assert len(s.legal_actions()) == 24  # b1 is empty again
    grid = rendered_grid(s, 5)
    assert grid[1][0] == "O"  # b1 = (0, 1) mirrors to a2 = (1, 0)
    assert sum(row.count(".") for row in grid) == 24


def test_the_swapped_stone_is_white_and_counts_for_white():
    s = mctslab.load_game("hex(size=3,swap=true)").new_initial_state()
    for move in ("b1", "swap", "b1", "b2", "a3"):  # b1 -> White a2; Black replays b1
        s.apply_move(move)
    assert not s.is_terminal()
    s.apply_move("c2")  # a2 b2 c2: White joins left and right through the swapped stone
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]


def test_a_swapped_top_edge_stone_leaves_no_trace_in_black_connections():
    # c1 (top edge) becomes White a3; Black's chain must not inherit c1's link to the top.
    s = mctslab.load_game("hex(size=3,swap=true)").new_initial_state()
    for move in ("c1", "swap", "b2", "a1", "b3", "a2"):
        s.apply_move(move)
    assert not s.is_terminal()  # b2-b3 reaches the bottom but not the top
    assert rendered_grid(s, 3) == [["O", ".", "."], ["O", "X", "."], ["O", "X", "."]]
    s.apply_move("c1")
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


# -- the incremental win detection agrees with the BFS referee ------------------------------------
def test_random_games_agree_with_the_bfs_after_every_move():
    rnd = random.Random(2024)
    for game_no in range(150):
        size = 3 + game_no % 6
        swap = game_no % 2 == 1
        game = mctslab.load_game(f"hex(size={size},swap={str(swap).lower()})")
        s = game.new_initial_state()
        pairs = []
        while True:
            player = s.current_player()
            action = rnd.choice(s.legal_actions())
            s.apply_action(action)
            pairs.append((player, action))
            grid = replay(pairs, size)
            assert rendered_grid(s, size) == grid
            x, o = connected(grid, "X"), connected(grid, "O")
            assert not (x and o)
            assert s.is_terminal() == (x or o), (size, pairs)
            if s.is_terminal():
                assert (x, o) == (player == 0, player == 1)  # only the mover can win
                assert s.returns() == ([1.0, -1.0] if x else [-1.0, 1.0])
                break
            assert s.current_player() == (0 if action == size * size else 1 - player)


def _playout(game, seed, state=None):
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    state = game.new_initial_state() if state is None else state
    n, rng = hex_kernels.random_playout(game.consts, state.array, seed_state(seed), moves, out)
    pairs = [(int(moves[2 * i]), int(moves[2 * i + 1])) for i in range(n)]
    return state, pairs, out.tolist(), int(rng)


@settings(max_examples=120)
@given(size=st.integers(3, 11), swap=st.booleans(), seed=st.integers(0, 2**40))
def test_a_full_random_board_has_exactly_one_winner_and_the_bfs_agrees(size, swap, seed):
    game = mctslab.load_game(f"hex(size={size},swap={str(swap).lower()})")
    state, pairs, out, _ = _playout(game, seed)
    grid = replay(pairs, size)
    assert all("." not in row for row in grid), "the fill leaves the board full"
    assert rendered_grid(state, size) == grid
    x, o = connected(grid, "X"), connected(grid, "O")
    assert x != o, "a full Hex board has exactly one winner"
    assert out == ([1.0, -1.0] if x else [-1.0, 1.0])
    assert state.is_terminal() and state.returns() == out
    # The recorded fill replays through the contract: the game ends on the way, won by the same
    # player, and the moves after its end are exactly the rest of the fill.
    replayed = game.new_initial_state()
    for i, (player, action) in enumerate(pairs):
        assert replayed.current_player() == player
        replayed.apply_action(action)
        if replayed.is_terminal():
            assert replayed.returns() == out
            assert all(a < size * size for _, a in pairs[i + 1 :])
            break
    else:
        pytest.fail("the replayed fill never ended the game")


def test_playout_from_a_mid_game_position_fills_only_the_empty_cells():
    game = mctslab.load_game("hex(size=6,swap=true)")
    s = game.new_initial_state()
    pairs = []
    for move in ("c3", "swap", "d4", "a1", "e2"):  # c3 is on the long diagonal: swaps in place
        pairs.append((s.current_player(), s.string_to_action(move)))
        s.apply_move(move)
    start = replay(pairs, 6)
    occupied = {r * 6 + c for r in range(6) for c in range(6) if start[r][c] != "."}
    assert occupied == {game.string_to_action(0, m) for m in ("c3", "d4", "a1", "e2")}
    state, fill, out, _ = _playout(game, 3, s.clone())
    assert fill[0][0] == 1 and [p for p, _ in fill] == [(1 + i) % 2 for i in range(len(fill))]
    assert sorted(a for _, a in fill) == sorted(set(range(36)) - occupied)
    grid = replay(pairs + fill, 6)
    assert rendered_grid(state, 6) == grid
    assert (connected(grid, "X"), connected(grid, "O")) == (out[0] > 0, out[1] > 0)


def test_playout_is_deterministic_for_a_seed():
    game = mctslab.load_game("hex(size=11,swap=true)")
    runs = [_playout(game, 42) for _ in range(2)]
    assert runs[0][1:] == runs[1][1:]
    assert _playout(game, 43)[1] != runs[0][1]
    kern = codegen.specialize(generic_template, hex_kernels)
    totals = []
    for _ in range(2):
        t = np.zeros(2)
        moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
        total, rng = kern.run_playouts(
            game.consts, game.new_initial_state().array, 500, seed_state(1), moves, np.zeros(2), t
        )
        totals.append((total, int(rng), t.tolist()))
    assert totals[0] == totals[1]


# -- exact solutions of small boards --------------------------------------------------------------
def solver(spec, check_terminals=True):
    """Exhaustive memoised search over the kernels: the winner under perfect play.

    Positions are keyed by the referee's own board, a string of 'X', 'O', '.' (and whether a swap
    is still possible), up to the half turn (r, c) -> (n-1-r, n-1-c), which preserves Hex. With
    ``check_terminals`` every terminal position found is checked against the BFS referee.
    """
    game = mctslab.load_game(spec)
    kern, consts = game.kernels, game.consts
    size = game.params.size
    n = size * size
    centre = (size - 1) / 2
    # central cells first (wins are found sooner), the swap before all
    order = sorted(
        range(n + 1), key=lambda a: -1 if a == n else math.dist(divmod(a, size), (centre, centre))
    )
    rank = {a: i for i, a in enumerate(order)}
    memo = {}
    legal = np.empty(n + 1, dtype=np.int32)
    out = np.zeros(2)

    def play(board, player, a):
        if a == n:  # the swap: the one black stone (r, c) becomes a white one at (c, r)
            r, c = divmod(board.index("X"), size)
            board = board.replace("X", ".")
            a, player = c * size + r, 1
        return board[:a] + "XO"[player] + board[a + 1 :]

    def solve(array, board, depth):
        key = (min(board, board[::-1]), depth == 1)  # the half turn reverses the string
        if key in memo:
            return memo[key]
        player = int(kern.current_player(consts, array))
        if player == TERMINAL_PLAYER:
            kern.returns(consts, array, out)
            result = 0 if out[0] > 0 else 1
            if check_terminals:
                grid = [board[r * size : (r + 1) * size] for r in range(size)]
                assert connected(grid, "XO"[result]) and not connected(grid, "OX"[result])
        else:
            k = kern.legal_actions(consts, array, legal)
            result = 1 - player
            for a in sorted(legal[:k].tolist(), key=rank.__getitem__):
                child = array.copy()
                kern.apply_action(consts, child, a)
                if solve(child, play(board, player, a), depth + 1) == player:
                    result = player
                    break
        memo[key] = result
        return result

    def winner_after(moves):
        state = game.new_initial_state()
        board = "." * n
        for m in moves:
            a = state.string_to_action(m)
            board = play(board, state.current_player(), a)
            state.apply_action(a)
        return solve(state.array, board, len(moves))

    return game, winner_after


def winning_openings(spec):
    game, winner_after = solver(spec)
    size = game.params.size
    cells = [game.action_to_string(0, a) for a in range(size * size)]
    return {m for m in cells if winner_after([m]) == 0}, cells


def test_3x3_solution():
    wins, cells = winning_openings("hex(size=3)")
    print("3x3 winning first moves:", sorted(wins))
    assert "b2" in wins  # the centre wins
    assert "a1" not in wins  # the acute corner loses
    # Hex is symmetric under the half turn (r, c) -> (n-1-r, n-1-c)
    flip = {m: cells[8 - i] for i, m in enumerate(cells)}
    assert {flip[m] for m in wins} == wins


def test_swap_rule_on_3x3_makes_the_second_player_win_and_swap_is_right_exactly_after_winners():
    wins, cells = winning_openings("hex(size=3)")
    _, winner_after = solver("hex(size=3,swap=true)")
    assert winner_after([]) == 1  # the pie rule: the second player wins
    for m in cells:
        # after a winning opening White must swap (and then wins); after a losing one she must not
        assert (winner_after([m, "swap"]) == 1) == (m in wins), m


def test_4x4_a1_loses_and_a_centre_cell_wins():
    _, winner_after = solver("hex(size=4)")
    assert winner_after(["a1"]) == 1
    assert winner_after(["c2"]) == 0


@pytest.mark.slow
def test_4x4_winning_openings():
    wins, cells = winning_openings("hex(size=4)")
    print("4x4 winning first moves:", sorted(wins))
    assert "a1" not in wins and "d4" not in wins
    assert "b3" in wins and "c2" in wins  # the centre cells on the short diagonal
    flip = {m: cells[15 - i] for i, m in enumerate(cells)}
    assert {flip[m] for m in wins} == wins


# -- the fast playout against the contract's uniformly random game ------------------------------
def _z(k1, k2, n):
    p = (k1 + k2) / (2 * n)
    sd = math.sqrt(max(p * (1 - p), 1e-12) * 2 / n)
    return (k1 / n - k2 / n) / sd


@pytest.mark.parametrize(
    ("spec", "opening"),
    [
        ("hex(size=5,swap=false)", ()),
        ("hex(size=5,swap=true)", ()),
        ("hex(size=5,swap=true)", ("a1",)),  # the swap is the playout's first decision
        ("hex(size=5,swap=false)", ("c3", "c2", "b4")),
    ],
)
def test_fast_playout_matches_the_contract_random_game_in_distribution(spec, opening):
    """Winner rate (and swap rate) of 20,000 fast fills vs 20,000 contract games: a z-test."""
    game = mctslab.load_game(spec)
    kern = codegen.specialize(generic_template, hex_kernels)
    n_games = 20_000
    size2 = game.params.size**2
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    actions = np.empty(game.spec.num_distinct_actions, dtype=np.int32)
    chance = np.empty(1, dtype=np.int32)
    out = np.zeros(2)
    start = game.new_initial_state()
    for m in opening:
        start.apply_move(m)
    root = start.array
    state = root.copy()
    counts = {}
    for name in ("fast", "contract"):
        rng = seed_state(11 if name == "fast" else 12)
        black = swaps = 0
        for _ in range(n_games):
            state[:] = root
            if name == "fast":
                n, rng = hex_kernels.random_playout(game.consts, state, np.uint64(rng), moves, out)
            else:
                n, rng = kern.contract_random_game(
                    game.consts, state, np.uint64(rng), actions, chance, moves, out
                )
            black += out[0] > 0
            swaps += bool((moves[1 : 2 * n : 2] == size2).any())
        counts[name] = (black, swaps)
    (b1, s1), (b2, s2) = counts["fast"], counts["contract"]
    print(spec, opening, "Black win rate", b1 / n_games, b2 / n_games, "swaps", s1, s2)
    assert abs(_z(b1, b2, n_games)) < 4
    if game.params.swap and len(opening) <= 1:
        # the swap is one of N uniform choices at the second move (N - 1 empty cells and swap)
        for s in (s1, s2):
            z = (s - n_games / size2) / math.sqrt(n_games * (1 / size2) * (1 - 1 / size2))
            assert abs(z) < 4
        assert abs(_z(s1, s2, n_games)) < 4
    else:
        assert s1 == s2 == 0
