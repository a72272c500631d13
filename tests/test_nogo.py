"""NoGo: rules from hand-drawn boards, a pure-Python reference, solved boards, and the fast playout.

Boards are drawn with the top row first (as printed); ``X`` is Black (player 0), ``O`` White.
"""

from __future__ import annotations

import math
import random
from functools import cache

import numpy as np
import pytest
from numba import njit

import mctslab
from mctslab.errors import IllegalMoveError, SpecError
from mctslab.games import TERMINAL_PLAYER, coords, generic_template, nogo_kernels
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, below, seed_state
from mctslab.search import solve_template


def nogo(size: int):
    return mctslab.load_game(f"nogo(size={size})")


def legal_strings(state) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def all_points(size: int) -> set[str]:
    return {coords.go_to_string(a, size) for a in range(size * size)}


# -- a pure-Python reference: flood fill on a list board ------------------------------------------


def _neighbours(a: int, size: int):
    r, c = divmod(a, size)
    if r > 0:
        yield a - size
    if r < size - 1:
        yield a + size
    if c > 0:
        yield a - 1
    if c < size - 1:
        yield a + 1


def _has_liberty(board: list[int], a: int, size: int) -> bool:
    colour, seen, todo = board[a], {a}, [a]
    while todo:
        x = todo.pop()
        for y in _neighbours(x, size):
            if board[y] == 0:
                return True
            if board[y] == colour and y not in seen:
                seen.add(y)
                todo.append(y)
    return False


def ref_legal(board: list[int], size: int, player: int) -> list[int]:
    """Legal NoGo moves by definition: after the move, every group still has a liberty."""
    legal = []
    for a in range(size * size):
        if board[a] != 0:
            continue
        b = list(board)
        b[a] = player + 1
        if all(_has_liberty(b, x, size) for x in [a, *_neighbours(a, size)] if b[x] != 0):
            legal.append(a)
    return legal


def board_list(game, state) -> list[int]:
    return [int(v) for v in game.board(state.array).reshape(-1)]


# -- spec, strings, rendering ---------------------------------------------------------------------


def test_spec_and_registry():
    g = nogo(9)
    s = g.spec
    assert (s.name, s.num_players, s.num_distinct_actions, s.num_chance_outcomes) == (
        "nogo",
        2,
        81,
        0,
    )
    assert (s.min_utility, s.max_utility, s.utility_sum, s.max_game_length) == (-1, 1, 0.0, 81)
    assert mctslab.load_game(s.spec_string) == g
    assert mctslab.load_game("nogo").params.size == 9
    assert nogo(3).spec.num_distinct_actions == 9
    for bad in ("nogo(size=2)", "nogo(size=20)", "nogo(sise=9)"):
        with pytest.raises(SpecError):
            mctslab.load_game(bad)


def test_move_strings_round_trip_and_errors():
    g = nogo(9)
    assert g.action_to_string(0, 0) == "A9"
    assert g.action_to_string(0, 80) == "J1"
    assert g.string_to_action(0, "e5") == 40
    for a in range(81):
        assert g.string_to_action(1, g.action_to_string(1, a)) == a
    for bad in ("I5", "K1", "A10", "", "55"):
        with pytest.raises(IllegalMoveError):
            g.string_to_action(0, bad)


def test_render_board_and_status():
    g = nogo(5)
    s = g.new_initial_state()
    s.apply_move("A5")  # top-left corner
    s.apply_move("E1")  # bottom-right corner
    lines = str(s).splitlines()
    assert lines[0].split() == list("ABCDE")
    assert lines[1].split() == ["5", "X", ".", ".", ".", ".", "5"]
    assert lines[5].split() == ["1", ".", ".", ".", ".", "O", "1"]
    assert lines[-1] == "Black (X) to move"
    t = nogo(3).state_from_ascii(". X .\nX . X\n. X .", to_move="O")
    assert str(t).splitlines()[-1] == "Black (X) won: White (O) has no legal move"
    s.apply_move("C3")
    assert str(s).splitlines()[-1] == "White (O) to move"
    again = g.state_from_ascii(str(s), to_move="O")  # the printed board reads back
    assert np.array_equal(g.board(again.array), g.board(s.array))
    assert again.legal_actions() == s.legal_actions()


def test_observation_shows_stones_and_where_each_player_may_play():
    # White to move. A1 is an eye of Black's: White may not play there (suicide), Black may (own
    # group keeps liberties). C3 would capture nothing and is legal for both; B2 is legal for
    # both. Planes: mover (White) stones, Black stones, ones, White-legal, Black-legal.
    g = nogo(3)
    s = g.state_from_ascii(
        """
        . . .
        X . .
        . X .
        """,
        to_move="O",
    )
    obs = g.observation(s.array)
    assert obs.shape == (5, 3, 3) and obs.dtype == np.float32
    board = g.board(s.array)
    np.testing.assert_array_equal(obs[0], board == 2)
    np.testing.assert_array_equal(obs[1], board == 1)
    np.testing.assert_array_equal(obs[2], np.ones((3, 3)))
    white = {coords.go_to_string(a, 3) for a in np.flatnonzero(obs[3].ravel())}
    black = {coords.go_to_string(a, 3) for a in np.flatnonzero(obs[4].ravel())}
    assert white == legal_strings(s)
    assert "A1" not in white and "A1" in black
    assert black == all_points(3) - {"A2", "B1"}
    s.apply_move("B2")  # Black to move: the legality planes swap places with the mover
    after = g.observation(s.array)
    assert {coords.go_to_string(a, 3) for a in np.flatnonzero(after[3].ravel())} == legal_strings(s)


def test_from_ascii_rejects_bad_boards():
    g = nogo(3)
    with pytest.raises(ValueError):
        g.state_from_ascii("...\n...")  # two rows
    with pytest.raises(ValueError):
        g.state_from_ascii("...\n.#.\n...")
    with pytest.raises(ValueError):
        g.state_from_ascii("...\n...\n...", to_move="Z")
    with pytest.raises(IllegalMoveError):
        g.state_from_ascii("XO.\nO..\n...")  # X at A3 has no liberty


# -- rules on hand-drawn boards -------------------------------------------------------------------


def test_capture_is_illegal():
    g = nogo(5)
    board = """
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """
    black = g.state_from_ascii(board, "X")
    assert "C2" not in legal_strings(black)  # would take O's last liberty
    with pytest.raises(IllegalMoveError):
        black.apply_move("C2")
    assert "C2" in legal_strings(g.state_from_ascii(board, "O"))


def test_suicide_is_illegal_and_connecting_is_not():
    g = nogo(5)
    board = """
        X X O . .
        . X O . .
        O O O . .
        . . . . .
        . . . . .
    """
    # A4 is the last liberty of the X group: suicide for X, a capture for O.
    assert "A4" not in legal_strings(g.state_from_ascii(board, "X"))
    assert "A4" not in legal_strings(g.state_from_ascii(board, "O"))
    corner = """
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .
    """
    assert "A5" not in legal_strings(g.state_from_ascii(corner, "O"))  # suicide for O
    assert "A5" in legal_strings(g.state_from_ascii(corner, "X"))  # joins groups with liberties


def test_edge_and_corner_liberties():
    g = nogo(5)
    # an O stone in the corner has two liberties, on the edge three
    corner = g.state_from_ascii("O X . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .", "X")
    assert "A4" not in legal_strings(corner)
    assert "B4" in legal_strings(corner)
    edge = g.state_from_ascii(". X O X .\n. . . . .\n. . . . .\n. . . . .\n. . . . .", "X")
    assert "C4" not in legal_strings(edge)
    centre = g.state_from_ascii(". . . . .\n. X O X .\n. . . . .\n. . . . .\n. . . . .", "X")
    assert "C3" in legal_strings(centre)  # the same shape off the edge: O keeps C5
    # the right edge is not glued to the next row's left edge (the padded board shares a border
    # column between them): O at E5 has the one liberty E4, not A4 as well
    wrap = ". . . X O\n. . . . .\n. . . . .\n. . . . .\n. . . . ."
    black = legal_strings(g.state_from_ascii(wrap, "X"))
    assert "E4" not in black and "A4" in black
    left = ". . . . .\nO X . . .\n. . . . .\n. . . . .\n. . . . ."
    black = legal_strings(g.state_from_ascii(left, "X"))
    assert "A5" in black and "A3" in black  # O at A4 keeps two liberties on the left edge
    bottom = ". . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . X O"
    assert legal_strings(g.state_from_ascii(bottom, "X")) == all_points(5) - {"E2", "D1", "E1"}


def test_legal_actions_exact_on_drawn_boards():
    g = nogo(4)
    board = """
        4 X O . .
        3 . X O .
        2 . . X .
        1 . . . .
          A B C D
    """
    everything = all_points(4) - {"A4", "B4", "B3", "C3", "C2"}
    black = g.state_from_ascii(board, "X")
    assert legal_strings(black) == everything - {"C4"}  # C4 captures B4
    assert black.legal_actions() == sorted(black.legal_actions())
    assert legal_strings(g.state_from_ascii(board, "O")) == everything - {"A3"}  # captures A4
    g5 = nogo(5)
    board5 = """
        . X . O .
        X . X O .
        . X . O O
        X X X . .
        . . . . .
    """
    stones = {"B5", "D5", "A4", "C4", "D4", "B3", "D3", "E3", "A2", "B2", "C2"}
    empty = all_points(5) - stones
    assert legal_strings(g5.state_from_ascii(board5, "O")) == empty - {"A5", "B4", "A3"}
    assert legal_strings(g5.state_from_ascii(board5, "X")) == empty


def test_side_without_moves_loses():
    g = nogo(3)
    board = ". X .\nX . X\n. X ."  # every empty point is suicide for O
    white = g.state_from_ascii(board, "O")
    assert white.current_player() == TERMINAL_PLAYER
    assert white.is_terminal() and white.legal_actions() == []
    assert white.returns() == [1.0, -1.0]
    with pytest.raises(IllegalMoveError):
        white.apply_action(0)
    black = g.state_from_ascii(board, "X")
    assert black.current_player() == 0
    assert black.returns() == [0.0, 0.0]
    # reach the same end by play: X takes the last point O could use
    s = g.state_from_ascii(". X .\nX . X\n. . .", "X")
    assert s.current_player() == 0
    s.apply_move("B1")
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


# -- the kernels against the reference on random positions ----------------------------------------


def _check_against_reference(game, state):
    size = game.params.size
    board = board_list(game, state)
    p = int(state.array[nogo_kernels.S_TO_MOVE])
    legal = ref_legal(board, size, p)
    if legal:
        assert state.current_player() == p
        assert state.legal_actions() == legal
    else:
        assert state.is_terminal()
        assert state.returns()[p] == -1.0 and state.returns()[1 - p] == 1.0
    return legal


def test_legal_actions_match_reference_on_random_games():
    rnd = random.Random(20240611)
    for game_no in range(60):
        size = rnd.choice([3, 4, 5, 6, 7, 9])
        g = nogo(size)
        s = g.new_initial_state()
        while True:
            legal = _check_against_reference(g, s)
            if not legal:
                break
            s.apply_action(rnd.choice(legal))
        assert len(s.history) <= size * size, game_no


def test_legal_actions_match_reference_on_random_boards():
    rnd = random.Random(7)
    checked = 0
    while checked < 150:
        size = rnd.choice([3, 4, 5, 7])
        fill = rnd.random()
        board = [rnd.choice([1, 2]) if rnd.random() < fill else 0 for _ in range(size * size)]
        if not all(_has_liberty(board, a, size) for a in range(size * size) if board[a]):
            continue
        text = "\n".join(
            "".join(".XO"[board[r * size + c]] for c in range(size)) for r in range(size)
        )
        g = nogo(size)
        for to_move in (0, 1):
            _check_against_reference(g, g.state_from_ascii(text, to_move))
        checked += 1


# -- solved boards --------------------------------------------------------------------------------


@cache
def _ref_wins(size: int, board: tuple[int, ...], player: int) -> bool:
    """Pure-Python memoised negamax on the reference rules: does ``player``, to move, win?"""
    return any(
        not _ref_wins(size, (*board[:a], player + 1, *board[a + 1 :]), 1 - player)
        for a in ref_legal(list(board), size, player)
    )


@pytest.fixture(scope="module")
def solver():
    return codegen.specialize(solve_template, nogo_kernels)


def _solve(solver, size):
    g = nogo(size)
    root = g.new_initial_state().array
    s = g.spec
    return solver.solve_value(
        g.consts, root, 0, s.num_distinct_actions, s.max_game_length, tt_bits=22
    )


def test_3x3_first_player_wins(solver):
    assert _ref_wins(3, (0,) * 9, 0) is True
    value, _ = _solve(solver, 3)
    assert value == 1.0
    g = nogo(3)
    s = g.spec
    root = g.new_initial_state().array
    moves = solver.solve_moves(g.consts, root, s.num_distinct_actions, s.max_game_length)
    ref = {}
    for a in range(9):
        child = tuple(1 if x == a else 0 for x in range(9))
        ref[a] = -1.0 if _ref_wins(3, child, 1) else 1.0
    assert moves == ref  # (on 3x3 every first move wins)


def test_solver_move_values_match_reference_on_4x4_positions(solver):
    g = nogo(4)
    s = g.spec
    rnd = random.Random(3)
    seen_values = set()
    for _ in range(6):
        state = g.new_initial_state()
        for _ in range(6):
            if state.is_terminal():
                break
            state.apply_action(rnd.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        p = state.current_player()
        board = tuple(board_list(g, state))
        ref = {
            a: -1.0 if _ref_wins(4, (*board[:a], p + 1, *board[a + 1 :]), 1 - p) else 1.0
            for a in state.legal_actions()
        }
        got = solver.solve_moves(g.consts, state.array, s.num_distinct_actions, s.max_game_length)
        assert got == ref
        seen_values.update(ref.values())
    assert seen_values == {-1.0, 1.0}


def test_4x4_second_player_wins(solver):
    value, nodes = _solve(solver, 4)
    assert value == -1.0
    assert nodes > 1000


# -- the fast playout -----------------------------------------------------------------------------


@njit(cache=True)
def _biased_playout(consts, state, rng):
    """A deliberately wrong playout for the power check: after an illegal draw it takes the next
    candidate in list order instead of drawing again (a classic non-uniform shortcut)."""
    k = nogo_kernels
    w, pp, nn = consts[k.C_W], consts[k.C_P], consts[k.C_N]
    c0 = k.HEADER + k.N_PADDED_ARRAYS * pp
    c = state[k.S_TO_MOVE]
    n = 0
    while True:
        base = c0 + c * nn
        cnt = state[k.S_NCAND + c]
        found = -1
        if cnt > 0:
            rng, i = below(rng, cnt)
            while cnt > 0:
                i = 0 if i >= cnt else i
                p = state[base + i]
                cnt -= 1
                state[base + i] = state[base + cnt]
                if k._is_legal(state, p, c + 1, w, pp):
                    found = p
                    break
        state[k.S_NCAND + c] = cnt
        if found < 0:
            state[k.S_WINNER] = 1 - c
            return n, rng
        k._place(state, found, c + 1, w, pp)
        n += 1
        c = 1 - c


def _random_games(game, count: int, seed: int, kind: str):
    """Lengths, Black's returns and final boards of ``count`` random games from the empty board:
    ``kind`` is "fast" (random_playout), "contract" (contract_random_game) or "biased"."""
    k = game.kernels
    template = codegen.specialize(generic_template, nogo_kernels)
    root = game.new_initial_state().array
    n = game.spec.num_distinct_actions
    moves = np.zeros(2 * n + 2, dtype=np.int32)
    actions = np.zeros(n + 1, dtype=np.int32)
    chance = np.zeros(1, dtype=np.int32)
    out = np.zeros(2)
    rng = seed_state(seed)
    lengths = np.zeros(count, dtype=np.int64)
    black = np.zeros(count)
    boards = np.zeros((count, n), dtype=np.int64)
    state = root.copy()
    for i in range(count):
        state[:] = root
        rng = as_state(rng)  # kernels hand a uint64 back to Python as an int
        if kind == "fast":
            m, rng = k.random_playout(game.consts, state, rng, moves, out)
        elif kind == "contract":
            m, rng = template.contract_random_game(
                game.consts, state, rng, actions, chance, moves, out
            )
        else:
            m, rng = _biased_playout(game.consts, state, rng)
            k.returns(game.consts, state, out)
        assert k.current_player(game.consts, state) == TERMINAL_PLAYER
        lengths[i] = m
        black[i] = out[0]
        boards[i] = game.board(state).reshape(-1)
    return lengths, black, boards


def _chi2_z(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample chi-square homogeneity test on integer samples, as a Wilson-Hilferty z score
    (about N(0,1) when both samples share a distribution). Sparse tail bins are pooled."""
    lo, hi = int(min(a.min(), b.min())), int(max(a.max(), b.max()))
    ca = np.bincount(a - lo, minlength=hi - lo + 1).astype(float)
    cb = np.bincount(b - lo, minlength=hi - lo + 1).astype(float)
    bins_a, bins_b, acc_a, acc_b = [], [], 0.0, 0.0
    for x, y in zip(ca, cb, strict=True):
        acc_a, acc_b = acc_a + x, acc_b + y
        if acc_a + acc_b >= 40:
            bins_a.append(acc_a)
            bins_b.append(acc_b)
            acc_a = acc_b = 0.0
    bins_a[-1] += acc_a
    bins_b[-1] += acc_b
    ta, tb = sum(bins_a), sum(bins_b)
    chi2 = 0.0
    for x, y in zip(bins_a, bins_b, strict=True):
        ea = (x + y) * ta / (ta + tb)
        eb = (x + y) * tb / (ta + tb)
        chi2 += (x - ea) ** 2 / ea + (y - eb) ** 2 / eb
    k = len(bins_a) - 1
    return ((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


def _rate_z(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = (a > 0).mean(), (b > 0).mean()
    p = (pa * len(a) + pb * len(b)) / (len(a) + len(b))
    return abs(pa - pb) / math.sqrt(p * (1 - p) * (1 / len(a) + 1 / len(b)))


def _worst_point_chi2(a: np.ndarray, b: np.ndarray) -> float:
    """The largest, over points, two-sample chi-square (2 degrees of freedom) of the final colour
    (empty, Black, White) of one point. Under the null each exceeds 27.6 with probability 1e-6."""
    worst = 0.0
    for p in range(a.shape[1]):
        ca = np.bincount(a[:, p], minlength=3).astype(float)
        cb = np.bincount(b[:, p], minlength=3).astype(float)
        tot = ca + cb
        m = tot > 0
        ea = tot[m] * len(a) / (len(a) + len(b))
        eb = tot[m] * len(b) / (len(a) + len(b))
        chi2 = (((ca[m] - ea) ** 2) / ea).sum() + (((cb[m] - eb) ** 2) / eb).sum()
        worst = max(worst, float(chi2))
    return worst


def test_fast_playout_matches_contract_random_game():
    g = nogo(5)
    count = 20_000
    fast_len, fast_black, fast_boards = _random_games(g, count, seed=1, kind="fast")
    ref_len, ref_black, ref_boards = _random_games(g, count, seed=2, kind="contract")
    # the last mover wins: Black wins exactly the odd-length games
    assert np.array_equal(fast_black > 0, fast_len % 2 == 1)
    assert np.array_equal(ref_black > 0, ref_len % 2 == 1)
    assert _chi2_z(fast_len, ref_len) < 4.0
    assert _rate_z(fast_black, ref_black) < 4.0
    assert _worst_point_chi2(fast_boards, ref_boards) < 27.6
    # power: the same statistics catch a playout that is not uniform over the legal moves
    _, _, biased_boards = _random_games(g, count, seed=3, kind="biased")
    assert _worst_point_chi2(biased_boards, ref_boards) > 27.6


def test_fast_playout_is_deterministic_and_records_legal_moves():
    g = nogo(7)
    k = g.kernels
    moves_a = np.zeros(2 * 49 + 2, dtype=np.int32)
    moves_b = np.zeros_like(moves_a)
    out = np.zeros(2)
    sa = g.new_initial_state().array
    sb = sa.copy()
    na, ra = k.random_playout(g.consts, sa, seed_state(5), moves_a, out)
    nb, rb = k.random_playout(g.consts, sb, seed_state(5), moves_b, out)
    assert (na, ra) == (nb, rb) and np.array_equal(moves_a, moves_b) and np.array_equal(sa, sb)
    sc = g.new_initial_state().array
    k.random_playout(g.consts, sc, seed_state(6), moves_b, out)
    assert not np.array_equal(sa, sc)
    # replaying the recorded moves through the wrapper checks each one's legality
    s = g.new_initial_state()
    for i in range(na):
        assert s.current_player() == moves_a[2 * i]
        s.apply_action(int(moves_a[2 * i + 1]))
    assert s.is_terminal()
    assert np.array_equal(g.board(s.array), g.board(sa))
    k.returns(g.consts, sa, out)
    assert s.returns() == list(out)
    # a playout from a terminal state plays nothing
    assert k.random_playout(g.consts, sa, seed_state(1), moves_a, out)[0] == 0
