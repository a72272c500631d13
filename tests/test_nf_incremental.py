"""The normal-form scores, legality and safe flags kept up to date through a playout
(``games/nogo_normal_form.py``) against the from-scratch ``nf_scores`` and ``legal_safe`` at
every position of random games, and the ``nf`` playout's first move against the from-scratch
argmax."""

import numpy as np
import pytest

import mctslab
from mctslab.games import nogo_normal_form, nogo_policies
from mctslab.kernels.rng import seed_state
from mctslab.search.playouts import common


def _scores(kernel, game, state, player, two_sided):
    """{action: score} of ``player``'s legal moves by ``kernel`` (``nf_scores``' signature)."""
    n = game.spec.num_distinct_actions
    points = np.zeros(n, dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    k = kernel(game.consts, state.array, player, two_sided, points, scores)
    return dict(zip(points[:k].tolist(), scores[:k].tolist(), strict=True))


def _scratch(game, state, player, two_sided):
    """{action: score} of ``player``'s legal moves from scratch."""
    return _scores(nogo_normal_form.nf_scores, game, state, player, two_sided)


def _random_game(game, rng, policy_weights=None):
    """Actions of a random game to the end, from a random start of 0 to 20 moves (uniform
    moves; half the games prefer moves next to stones, which makes groups short of liberties)."""
    state = game.new_initial_state()
    size = game.consts[0]
    actions = []
    near = rng.random() < 0.5
    while not state.is_terminal():
        legal = state.legal_actions()
        if near and actions:
            board = np.asarray(game.board(state.array)).reshape(-1)
            touching = [
                a for a in legal
                if any(
                    0 <= r < size and 0 <= c < size and board[r * size + c]
                    for r, c in ((a // size + dr, a % size + dc)
                                 for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))
                )
            ]  # fmt: skip
            legal = touching or legal
        actions.append(int(rng.choice(legal)))
        state.apply_action(actions[-1])
    return actions


@pytest.mark.parametrize("size", [3, 5, 7, 9])
@pytest.mark.parametrize("two_sided", [False, True])
def test_kept_scores_equal_the_from_scratch_scores_after_every_move(size, two_sided):
    game = mctslab.load_game(f"nogo(size={size})")
    rng = np.random.default_rng(size * 2 + two_sided)
    n = game.spec.num_distinct_actions
    checked = 0
    for g in range(12):
        actions = _random_game(game, rng)
        start = int(rng.integers(0, min(20, len(actions))))
        state = game.new_initial_state()
        for a in actions[:start]:
            state.apply_action(a)
        rest = np.array(actions[start:], dtype=np.int64)
        out = np.zeros((len(rest) + 1, 2, n), dtype=np.int64)
        args = (game.consts, state.array.copy(), rest, two_sided, out)
        assert nogo_normal_form.tracked_nf_scores(*args) == 0  # kept legality and safe flags
        for i in range(len(rest) + 1):
            for player in range(2):
                kept = {a: int(v) for a, v in enumerate(out[i, player]) if v != -99}
                assert kept == _scratch(game, state, player, two_sided), (g, start + i, player)
                checked += len(kept)
            if i < len(rest):
                state.apply_action(int(rest[i]))
    assert checked > 100


def test_nf_playout_draws_uniformly_among_the_best_scores():
    game = mctslab.load_game("nogo(size=5)")
    rng = np.random.default_rng(3)
    actions = _random_game(game, rng)[:8]
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    player = state.current_player()
    for base, two in ((nogo_policies.BASE_NF, False), (nogo_policies.BASE_NF2, True)):
        scores = _scratch(game, state, player, two)
        best = {a for a, v in scores.items() if v == max(scores.values())}
        params = common.playout_params(base=base, num_actions=25)
        stats = common.policy_stats(2, 25)
        firsts = []
        for seed in range(400):
            moves = np.zeros(2 * 26, dtype=np.int64)
            nogo_policies.policy_playout(
                game.consts, state.array.copy(), seed_state(seed), moves, np.zeros(2), -1,
                params, stats,
            )  # fmt: skip
            firsts.append(int(moves[1]))
        assert set(firsts) == best
        counts = np.bincount(firsts, minlength=25)[sorted(best)]
        assert counts.min() > 400 / len(best) * 0.5


def test_nf_empty_plays_contested_moves_until_few_points_are_empty_then_scores():
    # nf_empty=E: contested moves while more than E points are empty, the normal form after.
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()
    for a in _random_game(game, np.random.default_rng(3))[:8]:
        state.apply_action(a)
    player = state.current_player()
    mine = _scratch(game, state, player, False)
    contested = set(mine) & set(_scratch(game, state, 1 - player, False))
    scores = _scratch(game, state, player, True)
    best = {a for a, v in scores.items() if v == max(scores.values())}
    assert contested != best  # the test tells the two policies apart
    empty = 25 - 8
    params = common.playout_params(base=nogo_policies.BASE_NF2, num_actions=25, nf_empty=empty - 1)
    stats = common.policy_stats(2, 25)
    firsts = []
    for seed in range(300):
        moves = np.zeros(2 * 26, dtype=np.int64)
        n, _ = nogo_policies.policy_playout(
            game.consts, state.array.copy(), seed_state(seed), moves, np.zeros(2), -1,
            params, stats,
        )  # fmt: skip
        firsts.append(int(moves[1]))
        if n >= 2:  # the second move is the normal form's, scored after the first
            after = state.clone()
            after.apply_action(firsts[-1])
            second = _scratch(game, after, 1 - player, True)
            assert second[int(moves[3])] == max(second.values()), seed
    assert set(firsts) == contested


@pytest.mark.parametrize("size", [4, 7, 9])
def test_kept_legal_counts_equal_the_legal_moves_after_every_move(size):
    # The decisive playout looks for a winning move only while the opponent has at most ten
    # legal moves, counted as stones are placed (nogo_policies._recount_around).
    game = mctslab.load_game(f"nogo(size={size})")
    rng = np.random.default_rng(size)
    for _ in range(10):
        actions = _random_game(game, rng)
        state = game.new_initial_state()
        out = np.zeros((len(actions) + 1, 2), dtype=np.int64)
        nogo_policies.tracked_legal_counts(
            game.consts, state.array.copy(), np.array(actions, dtype=np.int64), out
        )
        for i in range(len(actions) + 1):
            for player in range(2):
                assert out[i, player] == len(_scratch(game, state, player, False)), (i, player)
            if i < len(actions):
                state.apply_action(actions[i])


NO_JIT_PLAYOUTS = """
import numpy as np, mctslab
from mctslab.games import nogo_policies as P
from mctslab.search.playouts import common
from mctslab.kernels.rng import seed_state
game = mctslab.load_game("nogo(size=5)")
for base, decisive, late in ((0, False, 0), (0, True, 0), (P.BASE_NF, False, 0),
                            (P.BASE_NF2, True, 0), (P.BASE_NF2, False, 12)):
    s = game.new_initial_state().array.copy()
    params = common.playout_params(base=base, decisive=decisive, num_actions=25, nf_empty=late)
    moves = np.zeros(60, dtype=np.int64)
    n, _ = P.policy_playout(
        game.consts, s, seed_state(3), moves, np.zeros(2), -1, params, common.policy_stats(2, 25)
    )
    print(moves[: 2 * n].tolist())
"""


def test_policy_playouts_play_the_same_moves_compiled_and_as_plain_python():
    # The playouts' hot loops work on views without reference counts (mctslab.kernels.views
    # .borrow, a Numba intrinsic); as plain Python the view is the array itself.
    import os
    import subprocess
    import sys

    def run(env):
        return subprocess.run(
            [sys.executable, "-c", NO_JIT_PLAYOUTS], env={**os.environ, **env},
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    compiled = run({})
    assert len(compiled.splitlines()) == 5
    assert run({"NUMBA_DISABLE_JIT": "1"}) == compiled
