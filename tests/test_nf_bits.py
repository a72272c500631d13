"""The bitboard normal-form scores (``games/nogo_nf_bits.py``) against the from-scratch
``nf_scores`` at every position of random games: fresh, and kept through ``nfb_place`` with
cached complex scores; the drawn move against the from-scratch argmax."""

import numpy as np
import pytest

import mctslab
from mctslab.games import nogo_nf_bits, nogo_policies
from mctslab.kernels.rng import seed_state
from mctslab.search.playouts import common
from test_nf_incremental import _random_game, _scores, _scratch


def _bits(game, state, player, two_sided):
    """``nfb_scores`` of ``player`` in ``state`` as ``{action: score}``, like ``_scratch``."""
    return _scores(nogo_nf_bits.nfb_scores, game, state, player, two_sided)


@pytest.mark.parametrize("size", [3, 5, 7, 9, 10])
@pytest.mark.parametrize("two_sided", [False, True])
def test_kept_bitboard_scores_equal_the_from_scratch_scores(size, two_sided):
    game = mctslab.load_game(f"nogo(size={size})")
    rng = np.random.default_rng(size * 5 + two_sided)
    n = game.spec.num_distinct_actions
    checked = 0
    for g in range(8):
        actions = _random_game(game, rng)
        state = game.new_initial_state()
        assert nogo_nf_bits.nfb_kept_errors(
            game.consts, state.array.copy(), np.array(actions, dtype=np.int64)
        ) == 0  # fmt: skip
        out = np.zeros((len(actions) + 1, 2, n), dtype=np.int64)
        args = (game.consts, state.array.copy(), np.array(actions, dtype=np.int64), two_sided, out)
        nogo_nf_bits.nfb_tracked_scores(*args)
        for i in range(len(actions) + 1):
            for player in range(2):
                expected = _scratch(game, state, player, two_sided)
                kept = {a: int(v) for a, v in enumerate(out[i, player]) if v != -99}
                assert kept == expected, (g, i, player)
                assert _bits(game, state, player, two_sided) == expected
                checked += len(kept)
            if i < len(actions):
                state.apply_action(actions[i])
    assert checked > 100


@pytest.mark.parametrize("two_sided", [False, True])
def test_the_drawn_move_is_uniform_among_the_best(two_sided):
    game = mctslab.load_game("nogo(size=7)")
    rng = np.random.default_rng(11)
    pad = game.consts[8 : 8 + 49].tolist()
    for _ in range(6):
        actions = _random_game(game, rng)
        state = game.new_initial_state()
        for a in actions[: len(actions) // 2]:
            state.apply_action(a)
        player = int(state.array[0])
        scores = _scratch(game, state, player, two_sided)
        best = {a for a, v in scores.items() if v == max(scores.values())}
        seen = {}
        g = seed_state(3)
        for _ in range(60 * len(best)):
            g, p = nogo_nf_bits.nfb_first(game.consts, state.array, player, two_sided, g)
            g = np.uint64(g)
            a = pad.index(p)
            seen[a] = seen.get(a, 0) + 1
        assert set(seen) == best
        assert min(seen.values()) >= 20  # each about 60 times


def test_boards_larger_than_ten_play_the_kept_scores():
    # nogo_normal_form's kept scores serve boards the two-word bitboards cannot hold
    assert nogo_nf_bits.fits(10) and not nogo_nf_bits.fits(11)
    game = mctslab.load_game("nogo(size=11)")
    state = game.new_initial_state()
    for a in _random_game(game, np.random.default_rng(5))[:60]:
        state.apply_action(a)
    scores = _scratch(game, state, state.current_player(), True)
    best = {a for a, v in scores.items() if v == max(scores.values())}
    params = common.playout_params(base=nogo_policies.BASE_NF2, num_actions=121)
    stats = common.policy_stats(2, 121)
    for seed in range(20):
        moves = np.zeros(2 * 122, dtype=np.int64)
        nogo_policies.policy_playout(
            game.consts, state.array.copy(), seed_state(seed), moves, np.zeros(2), -1, params,
            stats,
        )  # fmt: skip
        assert int(moves[1]) in best


# A move next to one stone of an opponent group with two liberties puts it in atari at its other
# liberty y; the closed form (0 in each board below: m is legal for O and no neighbour of m has
# m as its only empty neighbour) is corrected by what y does (games/nogo_nf_bits._atari_one).
# Columns: board (X to move), m, y, who may play y before and after m, a - b of m.
ATARI_ONE = [
    # -1: X loses y (it would capture), O keeps it (empty neighbours)
    (". . . . .\n. . X . .\n. X O . .\n. . . . .\n. . . . .", "D3", "C2", "XO", "O", -1),
    # +1: O loses y (its last liberty, no empty neighbour left), X never could (captures B1)
    (". . . . .\n. . . . .\n. . . . .\nO X . . .\n. O X . .", "A3", "A1", "O", "", 1),
    # 0: both lose y
    (". . . . .\n. . . . .\nX X . . .\nO O X . .\n. . . . .", "B1", "A1", "XO", "", 0),
    # 0: O keeps y through its group B1 outside atari; X never could (suicide)
    (". . . . .\n. . . . .\n. . . . .\nO X . . .\n. O . . .", "A3", "A1", "O", "O", 0),
]


@pytest.mark.parametrize("board, m, y, was, now, score", ATARI_ONE)
def test_the_other_liberty_corrects_a_move_that_gives_atari(board, m, y, was, now, score):
    game = mctslab.load_game("nogo(size=5)")
    before = {p: game.state_from_ascii(board, p) for p in "XO"}
    move = before["X"].string_to_action(m)
    after = {"O": before["X"].clone()}
    after["O"].apply_action(move)
    after["X"] = game.state_from_ascii(str(after["O"]), "X")
    legal = {
        (p, when): {s.action_to_string(a) for a in s.legal_actions()}
        for when, states in ((0, before), (1, after))
        for p, s in states.items()
    }  # fmt: skip
    assert ["".join(p for p in "XO" if y in legal[p, when]) for when in (0, 1)] == [was, now]
    lost = {p: len(legal[p, 0]) - len(legal[p, 1]) for p in "XO"}
    assert lost["O"] - lost["X"] == score  # a - b by definition
    for two_sided in (False, True):
        bits = _bits(game, before["X"], 0, two_sided)
        assert bits == _scratch(game, before["X"], 0, two_sided)
        if not two_sided:
            assert bits[move] == score
