"""Go-style (MoGo) playouts: legal games that end scorable, the capture/escape/pattern
priorities, and the 3x3 pattern table."""

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import SpecError
from mctslab.games import go_kernels, go_patterns
from mctslab.games.go_playouts import (
    go_style_playout,
    nogo_go_style_playout,
    nogo_go_unadapted_playout,
)
from mctslab.kernels.rng import seed_state


def _buffers(game):
    return np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32), np.zeros(2)


@pytest.mark.parametrize("size", [5, 9])
def test_go_style_playouts_are_legal_games_to_a_scored_end(size):
    game = mctslab.load_game(f"go(size={size},komi=0.5)")
    moves, out = _buffers(game)
    for seed in range(20):
        state = game.new_initial_state()
        for m in ("C3", "D3"):  # a last move to play around
            state.apply_move(m)
        n, _ = go_style_playout(game.consts, state.array, seed_state(seed), moves, out)
        replay = game.new_initial_state()
        for m in ("C3", "D3"):
            replay.apply_move(m)
        for i in range(n):
            assert replay.current_player() == moves[2 * i]
            assert int(moves[2 * i + 1]) in replay.legal_actions()
            replay.apply_action(int(moves[2 * i + 1]))
        assert replay.is_terminal() and replay.returns() == list(out)
        assert (replay.array[: go_kernels.HEADER] == state.array[: go_kernels.HEADER]).all()


def _first_move(moves_played, seed=0):
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.new_initial_state()
    for m in moves_played:
        state.apply_move(m)
    moves, out = _buffers(game)
    go_style_playout(game.consts, state.array, seed_state(seed), moves, out)
    return state.action_to_string(int(moves[1]), int(moves[0]))


def test_a_group_left_in_atari_by_the_last_move_is_captured():
    # White's last move C4 has one liberty, C3: every seed captures it
    played = ("B4", "E1", "D4", "E2", "C5", "C4")
    assert {_first_move(played, seed) for seed in range(10)} == {"C3"}


def test_an_own_group_put_in_atari_escapes():
    # Black's C5 takes White C4's second-last liberty; White extends at C3 (three liberties)
    played = ("B4", "C4", "D4", "A1", "C5")
    assert {_first_move(played, seed) for seed in range(10)} == {"C3"}


def test_random_playouts_do_not_do_that():
    played = ("B4", "E1", "D4", "E2", "C5", "C4")
    game = mctslab.load_game("go(size=5,komi=0.5)")
    firsts = set()
    for seed in range(20):
        state = game.new_initial_state()
        for m in played:
            state.apply_move(m)
        moves, out = _buffers(game)
        go_kernels.random_playout(game.consts, state.array, seed_state(seed), moves, out)
        firsts.add(int(moves[1]))
    assert len(firsts) > 3


def _code(rows):
    values = {".": 0, "X": 1, "O": 2, "#": 3}
    cells = [rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][2], rows[2][0], rows[2][1]]
    cells.append(rows[2][2])
    return sum(values[ch] << (2 * i) for i, ch in enumerate(cells))


def test_pattern_table_matches_moggy_patterns_under_symmetry_and_colour_swap():
    table = go_patterns.TABLE
    assert table[_code(("XOX", "...", "..."))] == 1  # enclosing hane
    assert table[_code(("OXO", "...", "..."))] == 1  # colours swapped
    assert table[_code(("X..", "O..", "X.."))] == 1  # rotated
    assert table[_code(("...", "...", "..."))] == 0  # empty
    assert table[_code(("X.?".replace("?", "."), "O..", "###"))] == 1  # edge chase
    assert table[_code(("XXX", "X.X", "XXX"))] == 0
    codes = np.arange(4**8)
    swap = np.array([0, 2, 1, 3])
    cells = [(codes >> (2 * i)) & 3 for i in range(8)]
    swapped = sum(swap[c] << (2 * i) for i, c in enumerate(cells))
    assert (table[swapped] == table).all()
    assert 0 < table.sum() < 4**8 // 4


def _pattern_points(game, state, last):
    """Legal empty 8-neighbours of ``last`` whose 3x3 neighbourhood is in the pattern table."""
    size = game.params.size
    board = game.board(state.array)
    legal = set(state.legal_actions())
    r0, c0 = divmod(last, size)
    found = set()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = r0 + dr, c0 + dc
            if (dr, dc) == (0, 0) or not (0 <= r < size and 0 <= c < size) or board[r, c]:
                continue
            code = 0
            order = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
            for i, (a, b) in enumerate(order):
                rr, cc = r + a, c + b
                v = int(board[rr, cc]) if 0 <= rr < size and 0 <= cc < size else 3
                code |= v << (2 * i)
            if go_patterns.TABLE[code] and r * size + c in legal:
                found.add(r * size + c)
    return found


@pytest.mark.parametrize("size", [5, 7])
def test_nogo_go_style_playouts_are_legal_and_play_patterns_first(size):
    game = mctslab.load_game(f"nogo(size={size})")
    moves, out = _buffers(game)
    rnd = np.random.default_rng(size)
    pattern_moves = 0
    for seed in range(30):
        state = game.new_initial_state()
        for _ in range(int(rnd.integers(1, 6))):
            state.apply_action(int(rnd.choice(state.legal_actions())))
        last = state.history[-1]
        expected = _pattern_points(game, state, last)
        replay = state.clone()
        n, _ = nogo_go_style_playout(
            game.consts, state.array, seed_state(seed), moves, out, np.int64(last)
        )
        if expected:
            assert int(moves[1]) in expected
            pattern_moves += 1
        for i in range(n):
            assert replay.current_player() == moves[2 * i]
            assert int(moves[2 * i + 1]) in replay.legal_actions()
            replay.apply_action(int(moves[2 * i + 1]))
        assert replay.is_terminal() and state.is_terminal() and replay.returns() == list(out)
    assert pattern_moves > 0


def test_go_playout_policy_through_the_agent():
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.new_initial_state()
    state.apply_move("C3")
    agent = make_agent("mcts(sims=300,playout=go)", game, seed=1)
    assert agent.step(state) in state.legal_actions()
    with pytest.raises(SpecError, match="allowed: go, go_fuego, go_sa, uniform"):
        make_agent("mcts(sims=300,playout=nf)", game, seed=1)


@pytest.mark.parametrize(
    "spec", ["mcts(sims=300,preset=rave)", "mcts(sims=300,lgrf=true)", "mcts(sims=300,qbr=true)"]
)
def test_enhancements_search_go(spec):
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.new_initial_state()
    state.apply_move("C3")
    result = make_agent(spec, game, seed=2).search(state)
    assert result.action in state.legal_actions() and result.simulations == 300


def _unadapted(moves_played, seed, size=5):
    game = mctslab.load_game(f"nogo(size={size})")
    state = game.new_initial_state()
    for m in moves_played:
        state.apply_move(m)
    moves, out = _buffers(game)
    start = state.clone()
    n, _ = nogo_go_unadapted_playout(
        game.consts, state.array, seed_state(seed), moves, out, np.int64(state.history[-1])
    )
    return start, n, moves, out


def test_the_unadapted_go_playout_captures_and_so_loses_nogo():
    """White's last move C4 leaves it one liberty, C3 (legal in NoGo): Go's step 1 captures
    there, which NoGo forbids, so Black loses at once on every seed; NoGo's own Go-style playout
    never plays it.

    . . B . .      row 5
    . B W B .      row 4   (C4 White, its liberty C3)
    . . . . .      row 3
    """
    played = ("B4", "E1", "D4", "E2", "C5", "C4")
    for seed in range(10):
        _, n, _, out = _unadapted(played, seed)
        assert n == 0 and out[1] > out[0]  # White (player 1) wins: Black captured
    game = mctslab.load_game("nogo(size=5)")
    moves, out = _buffers(game)
    for seed in range(10):
        state = game.new_initial_state()
        for m in played:
            state.apply_move(m)
        nogo_go_style_playout(
            game.consts, state.array, seed_state(seed), moves, out, np.int64(state.history[-1])
        )
        assert state.action_to_string(int(moves[1]), 0) != "C3"


@pytest.mark.parametrize("size", [5, 7])
def test_unadapted_go_playouts_play_nogo_moves_until_one_loses(size):
    """Every move recorded is legal in NoGo; the game ends with the player to move out of legal
    moves, or with that player having drawn a move NoGo forbids (the naive playout's ending):
    either way the returns say the player to move lost."""
    game = mctslab.load_game(f"nogo(size={size})")
    rnd = np.random.default_rng(size)
    endings = set()
    for seed in range(40):
        state = game.new_initial_state()
        for _ in range(int(rnd.integers(1, 6))):
            state.apply_action(int(rnd.choice(state.legal_actions())))
        played = [state.action_to_string(a, i % 2) for i, a in enumerate(state.history)]
        start, n, moves, out = _unadapted(played, seed, size)
        replay = start.clone()
        for i in range(n):
            assert replay.current_player() == moves[2 * i]
            assert int(moves[2 * i + 1]) in replay.legal_actions()
            replay.apply_action(int(moves[2 * i + 1]))
        loser = (start.current_player() + n) % 2
        assert out[loser] < out[1 - loser]
        endings.add(replay.is_terminal())
    assert False in endings  # Go's captures end them (on these boards every one, seen)
