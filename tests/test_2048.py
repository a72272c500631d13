"""2048 rules with ASCII boards, the lookup tables against the plain rule, bitboards against the
array kernels, chance outcomes, the end of the game and the fast playout's distribution."""

import numpy as np
import pytest

import mctslab
from mctslab.errors import IllegalMoveError, SpecError
from mctslab.games import g2048_kernels as k
from mctslab.games import generic_template
from mctslab.kernels import codegen
from mctslab.kernels.rng import as_state, seed_state

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3


@pytest.fixture(scope="module")
def game():
    return mctslab.load_game("2048")


def board(state) -> list[list[int]]:
    return [[(1 << int(e)) if e else 0 for e in state.array[4 * r : 4 * r + 4]] for r in range(4)]


def rows(text: str) -> list[list[int]]:
    return [[0 if w == "." else int(w) for w in r.split()] for r in text.split("/")]


@pytest.mark.parametrize(
    ("before", "action", "after", "reward"),
    [
        ("2 2 2 2 / . . . . / . . . . / . . . .", LEFT, "4 4 . . / . . . . / . . . . / . . . .", 8),
        ("2 2 2 . / . . . . / . . . . / . . . .", LEFT, "4 2 . . / . . . . / . . . . / . . . .", 4),
        (
            "2 2 2 . / . . . . / . . . . / . . . .",
            RIGHT,
            ". . 2 4 / . . . . / . . . . / . . . .",
            4,
        ),
        # a merged tile does not merge again in the same move
        ("4 4 8 . / . . . . / . . . . / . . . .", LEFT, "8 8 . . / . . . . / . . . . / . . . .", 8),
        (". 2 . 2 / . . . . / . . . . / . . . .", LEFT, "4 . . . / . . . . / . . . . / . . . .", 4),
        (
            "2 4 8 16 / . . . . / . . . . / . . . 2",
            LEFT,
            "2 4 8 16 / . . . . / . . . . / 2 . . .",
            0,
        ),
        ("2 . . . / 2 . . . / 4 . . . / 4 . . .", UP, "4 . . . / 8 . . . / . . . . / . . . .", 12),
        (
            "2 . . . / 2 . . . / 4 . . . / 4 . . .",
            DOWN,
            ". . . . / . . . . / 4 . . . / 8 . . .",
            12,
        ),
        ("2 . . . / 2 . . . / 2 . . . / . . . .", DOWN, ". . . . / . . . . / 2 . . . / 4 . . .", 4),
        (
            "8 8 16 32 / . . . . / . . . . / . . . .",
            LEFT,
            "16 16 32 . / . . . . / . . . . / . . . .",
            16,
        ),
    ],
)
def test_slide_and_merge(game, before, action, after, reward):
    s = game.state_from_board(before, score=100)
    assert action in s.legal_actions()
    s.apply_action(action)
    assert board(s) == rows(after)
    assert s.returns() == [100 + reward]
    assert s.is_chance_node() and s.legal_actions() == []


def test_a_move_that_changes_nothing_is_illegal(game):
    s = game.state_from_board("2 4 8 16 / . . . . / . . . . / . . . .")
    assert s.legal_actions() == [DOWN]
    with pytest.raises(IllegalMoveError):
        s.apply_action(LEFT)


def test_chance_outcomes_are_the_empty_cells_with_2_at_point_9(game):
    s = game.state_from_board("2 2 4 8 / 4 8 16 32 / 2 4 8 16 / 4 8 16 32")
    s.apply_action(LEFT)  # "4 4 8 ." -> one empty cell, r1c4
    outcomes = s.chance_outcomes()
    assert outcomes == [(6, pytest.approx(0.9)), (7, pytest.approx(0.1))]
    assert s.action_to_string(7) == "4@r1c4"
    s.apply_action(7)
    assert board(s)[0] == [4, 4, 8, 4] and s.current_player() == 0


def test_game_ends_when_no_move_changes_the_board(game):
    s = game.state_from_board("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 2 4 2 .")
    assert not s.is_terminal()
    s.apply_action(RIGHT)  # the bottom row becomes ". 2 4 2"
    s.apply_action(2 * 12 + 1)  # a 4 at r4c1 fills the board with no equal neighbours
    assert s.is_terminal() and s.legal_actions() == [] and s.chance_outcomes() == []
    full = game.state_from_board("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", score=7)
    assert full.is_terminal() and full.returns() == [7]


def test_the_game_starts_with_two_tiles(game):
    s = game.new_initial_state()
    assert s.is_chance_node() and len(s.chance_outcomes()) == 32
    s.apply_action(0)
    assert s.is_chance_node() and len(s.chance_outcomes()) == 30
    s.apply_action(31)
    assert s.current_player() == 0
    assert board(s)[0][0] == 2 and board(s)[3][3] == 4
    assert "score 0" in str(s) and "max tile 4" in str(s)


def test_move_strings_and_board_parse_errors(game):
    s = game.state_from_board(". . . . / . 2 . . / . . . . / . . . .")
    for word, a in (("left", 0), ("d", 1), ("Right", 2), (" up ", 3)):
        assert s.string_to_action(word) == a
    with pytest.raises(IllegalMoveError, match="left, down, right or up"):
        s.string_to_action("north")
    with pytest.raises(SpecError, match="power of two"):
        game.state_from_board("3 . . . / . . . . / . . . . / . . . .")
    with pytest.raises(SpecError, match="4 rows of 4"):
        game.state_from_board("2 2 / 2 2")


def test_tables_equal_the_plain_rule_on_every_line(game):
    line = np.zeros(4, dtype=np.int64)
    mismatches = 0
    for packed in range(0, 65536, 7):  # a spread sample; the kernel builds all from the same rule
        for j in range(4):
            line[j] = (packed >> (4 * j)) & 15
        reward = k.slide_line(line)
        res = int(game.consts[k.C_MOVE + packed])
        if line.max() > 15:
            assert res == -1
            continue
        expect = sum(int(line[j]) << (4 * j) for j in range(4))
        mismatches += res != expect or int(game.consts[k.C_REWARD + packed]) != reward
    assert mismatches == 0


def test_big_tiles_merge_exactly_beyond_the_tables(game):
    s = game.state_from_board("32768 32768 . . / 2 . . . / . . . . / . . . .")
    s.apply_action(LEFT)
    assert board(s)[0] == [65536, 0, 0, 0] and s.returns() == [65536]
    s2 = game.state_from_board("65536 65536 4 4 / 2 . . . / . . . . / . . . .")
    s2.apply_action(RIGHT)
    assert board(s2)[0] == [0, 0, 131072, 8]


def test_bitboard_moves_equal_the_array_kernels(game):
    rnd = np.random.default_rng(3)
    for _ in range(300):
        cells = rnd.integers(0, 6, size=16)
        state = np.zeros(k.STATE_SIZE, dtype=np.int32)
        state[:16] = cells
        b, ok = k.pack(state)
        b = np.uint64(b)
        assert ok
        for a in range(4):
            nb, rw = k.board_move(game.consts, b, a)
            moved = state.copy()
            changed, reward = k.move_cells(game.consts, moved, a, True)
            out = np.zeros(k.STATE_SIZE, dtype=np.int32)
            k.unpack(nb, out)
            assert (out[:16] == moved[:16]).all() and rw == reward
            assert changed == (nb != b)


def test_fast_playout_matches_the_contract_loop_in_distribution(game):
    """Mean final score and length of the bitboard playout vs the generic contract loop."""
    kern = codegen.specialize(generic_template, game.kernels)
    n = 1500
    moves = np.empty(4 * 5000, dtype=np.int32)
    out = np.zeros(1)
    fast, slow, fast_len, slow_len = [], [], [], []
    rng_a, rng_b = seed_state(1), seed_state(2)
    actions = np.empty(4, dtype=np.int32)
    chance = np.empty(32, dtype=np.int32)
    for _ in range(n):
        s = game.new_initial_state().array
        m, rng_a = kern.contract_random_game(game.consts, s, rng_a, actions, chance, moves, out)
        rng_a = as_state(rng_a)
        slow.append(out[0])
        slow_len.append((m - 2) / 2)  # steps include the chance events
        s = game.new_initial_state().array
        m, rng_b = game.kernels.random_playout(game.consts, s, rng_b, moves, out)
        rng_b = as_state(rng_b)
        fast.append(out[0])
        fast_len.append(m)
    se = np.sqrt(np.var(fast) / n + np.var(slow) / n)
    assert abs(np.mean(fast) - np.mean(slow)) < 4 * se
    se_len = np.sqrt(np.var(fast_len) / n + np.var(slow_len) / n)
    assert abs(np.mean(fast_len) - np.mean(slow_len)) < 4 * se_len


def test_heuristic_prefers_an_ordered_board(game):
    ordered = game.state_from_board("256 128 64 32 / 2 4 8 16 / . . . . / . . . .")
    scrambled = game.state_from_board("2 128 8 32 / 256 4 64 16 / . . . . / . . . .")
    h = game.kernels.heuristic_value
    assert h(game.consts, ordered.array) > h(game.consts, scrambled.array)


def picks(policy, eps, acts, rws, draws=400):
    """The set of indices :func:`pick_move` returns over ``draws`` calls."""
    rng = seed_state(3)
    a = np.array(acts + [0] * (4 - len(acts)), dtype=np.int64)
    r = np.array(rws + [0] * (4 - len(rws)), dtype=np.int64)
    boards = np.zeros(4, dtype=np.uint64)  # read by the heuristic policy only
    consts = mctslab.load_game("2048").consts
    seen = set()
    for _ in range(draws):
        rng, i = k.pick_move(consts, rng, policy, eps, a, boards, r, len(acts))
        rng = as_state(rng)
        seen.add(int(i))
    return seen


def test_rollout_policies_pick_their_moves():
    # greedy: only the moves of the largest merge reward, ties at random
    assert picks(k.ROLLOUT_GREEDY, 0.0, [LEFT, DOWN, UP], [0, 8, 8]) == {1, 2}
    assert picks(k.ROLLOUT_GREEDY, 0.0, [LEFT, RIGHT], [4, 0]) == {0}
    # corner: left or down when either is legal, else right, else up
    assert picks(k.ROLLOUT_CORNER, 0.0, [LEFT, DOWN, RIGHT, UP], [0, 0, 64, 0]) == {0, 1}
    assert picks(k.ROLLOUT_CORNER, 0.0, [DOWN, UP], [0, 0]) == {0}
    assert picks(k.ROLLOUT_CORNER, 0.0, [RIGHT, UP], [0, 4]) == {0}
    # greedy_corner: the largest merge reward, ties as corner breaks them
    assert picks(k.ROLLOUT_GREEDY_CORNER, 0.0, [LEFT, DOWN, RIGHT, UP], [0, 4, 4, 4]) == {1}
    assert picks(k.ROLLOUT_GREEDY_CORNER, 0.0, [LEFT, DOWN, UP], [4, 4, 0]) == {0, 1}
    assert picks(k.ROLLOUT_GREEDY_CORNER, 0.0, [LEFT, RIGHT, UP], [0, 8, 8]) == {1}
    # eps = 1 and the random policy: every legal move
    assert picks(k.ROLLOUT_GREEDY, 1.0, [LEFT, DOWN, UP], [0, 8, 0]) == {0, 1, 2}
    assert picks(k.ROLLOUT_RANDOM, 0.0, [LEFT, DOWN, UP], [0, 8, 0]) == {0, 1, 2}


def test_greedy_rollouts_play_to_the_end_and_score_more_than_random(game):
    out = np.zeros(1)
    moves = np.empty(2 * 5000, dtype=np.int32)
    means = {}
    policies = (k.ROLLOUT_GREEDY, k.ROLLOUT_CORNER, k.ROLLOUT_GREEDY_CORNER, k.ROLLOUT_HEURISTIC)
    for policy in (k.ROLLOUT_RANDOM, *policies):
        rng = seed_state(5)
        scores = []
        for _ in range(300):
            s = game.new_initial_state().array
            if policy == k.ROLLOUT_RANDOM:
                _, rng = k.random_playout(game.consts, s, rng, moves, out)
            else:
                _, rng = k.policy_playout(game.consts, s, rng, policy, 0.0, out)
            rng = as_state(rng)
            assert s[k.S_OVER] == 1 and not k.any_move(game.consts, s)
            assert out[0] == s[k.S_SCORE]
            scores.append(out[0])
        means[policy] = np.mean(scores)
    for policy in policies:
        assert means[policy] > 1.5 * means[k.ROLLOUT_RANDOM]
    # the 1-ply heuristic player outscores the merge-greedy ones (measured 4,658 against 2,003
    # and 3,038 over 5,000 games)
    assert means[k.ROLLOUT_HEURISTIC] > 1.3 * means[k.ROLLOUT_GREEDY_CORNER]


def test_packed_heuristic_is_the_board_heuristic_rounded_per_line(game):
    rng = np.random.default_rng(4)
    for _ in range(200):
        cells = rng.integers(0, 16, size=16)
        state = game.new_initial_state().array.copy()
        state[:16] = cells
        b, ok = k.pack(state)
        assert ok
        exact = k.board_heuristic(state)
        assert abs(k.board_heuristic_packed(game.consts, np.uint64(b)) - exact) <= 8 * 0.5


def test_heuristic_rollout_picks_the_best_reward_plus_heuristic(game):
    state = game.state_from_board("2 2 4 8 / 16 32 64 128 / 4 . . 2 / . . 2 .")
    b = np.uint64(k.pack(state.array)[0])
    nbs, rws = np.zeros(4, dtype=np.uint64), np.zeros(4, dtype=np.int64)
    values = []
    for a in range(4):
        nbs[a], rws[a] = k.board_move(game.consts, b, a)
        values.append(rws[a] + k.board_heuristic_packed(game.consts, nbs[a]))
    assert len(set(values)) == 4  # no ties on this board
    rng = seed_state(2)
    _, i = k.heuristic_pick(game.consts, rng, nbs, rws, 4)
    assert i == int(np.argmax(values))
