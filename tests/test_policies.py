"""Playout policies: normal-form scores checked by hand and against a brute-force count, Hex
one-move wins taken and blocked, the LGRF table, PoolRAVE pools, QBR bonuses by hand."""

import math

import numpy as np
import pytest

import mctslab
from mctslab.errors import SpecError
from mctslab.games import hex_policies, nogo_normal_form, nogo_policies
from mctslab.kernels.rng import seed_state
from mctslab.search import Uct, UctConfig
from mctslab.search.budget import Budget
from mctslab.search.enhancements.lgrf import lgrf_update
from mctslab.search.enhancements.poolrave import pool_rebuild
from mctslab.search.enhancements.qbr import qbr_adjust
from mctslab.search.playouts import common
from mctslab.search.records import N_QSTATS


def nf(game, text, player, two_sided=False):
    """{action: score} of the legal moves of ``player`` (0 Black, 1 White)."""
    state = game.state_from_ascii(text, to_move=player)
    n = game.spec.num_distinct_actions
    points = np.zeros(n, dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    k = nogo_normal_form.nf_scores(game.consts, state.array, player, two_sided, points, scores)
    return dict(zip(points[:k].tolist(), scores[:k].tolist(), strict=True))


def test_nf_scores_by_hand():
    game = mctslab.load_game("nogo(size=3)")
    # White at b3 (action 1) with liberties a3, c3, b2. Black at a3 (action 0): a3 is then
    # Black's with the single liberty a2, so White loses a3 and a2 (a2 would capture): a = 2;
    # Black loses only a3: b = 1; a - b = 1. c3 likewise. Anywhere else only the point itself
    # goes for both: a - b = 0.
    board = ". O .\n. . .\n. . ."
    assert nf(game, board, 0) == {0: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0}
    # a - b - a' + b': if White played at a2 (action 3), a3 would be surrounded by White
    # stones of two groups with three liberties each: suicide for Black. So b' = 2 (a2, a3),
    # a' = 1 (a2 only; White could still play a3): a2 scores 0 + 1 = 1, c2 (5) likewise. At a3
    # White would remove a3 from both (a' = b' = 1): still 1. Elsewhere 0.
    assert nf(game, board, 0, two_sided=True) == {0: 1, 2: 1, 3: 1, 4: 0, 5: 1, 6: 0, 7: 0, 8: 0}
    # Black at a3 and c3, White at b3 in atari (its one liberty is b2); White to move.
    scores = nf(game, "X O X\n. . .\n. . .", 1)
    assert 3 not in scores and 5 not in scores  # a2, c2 would capture a3, c3: illegal
    # White b2 (action 4): b2 was already illegal for Black (it would capture b3), so a = 0;
    # White loses b2 itself, and a2/c2 stay illegal for White: b = 1; a - b = -1.
    assert scores[4] == -1
    # White a1 (6): Black keeps every move (a2 still has a3's liberty a1? no: a1 is taken, but
    # a2 still has b2), White loses a1: a = 1 (a1 was legal for Black), b = 1: 0.
    assert scores[6] == 0


def _legal_count(game, grid, player):
    text = "\n".join(" ".join(".XO"[v] for v in row) for row in grid)
    return len(game.state_from_ascii(text, to_move=player).legal_actions())


def _brute_nf(game, grid, player, two_sided):
    size = len(grid)
    other = 1 - player
    base_me, base_other = _legal_count(game, grid, player), _legal_count(game, grid, other)
    text = "\n".join(" ".join(".XO"[v] for v in row) for row in grid)
    mine = game.state_from_ascii(text, to_move=player).legal_actions()
    theirs = set(game.state_from_ascii(text, to_move=other).legal_actions())
    out = {}
    for m in mine:
        r, c = divmod(m, size)
        after = [row[:] for row in grid]
        after[r][c] = player + 1
        a = base_other - _legal_count(game, after, other)
        b = base_me - _legal_count(game, after, player)
        score = a - b
        if two_sided and m in theirs:
            after[r][c] = other + 1
            a2 = base_other - _legal_count(game, after, other)
            b2 = base_me - _legal_count(game, after, player)
            score += -a2 + b2
        out[m] = score
    return out


@pytest.mark.parametrize("seed", range(8))
def test_nf_scores_match_brute_force_counts(seed):
    game = mctslab.load_game("nogo(size=5)")
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(int(rng.integers(4, 18))):
        moves = state.legal_actions()
        if state.is_terminal() or not moves:
            break
        state.apply_action(int(rng.choice(moves)))
    if state.is_terminal():
        pytest.skip("game over")
    text = str(state)
    grid = np.asarray(game.board(state.array)).reshape(5, 5).tolist()
    player = state.current_player()
    for two in (False, True):
        assert nf(game, text, player, two) == _brute_nf(game, grid, player, two)


def hex_state(game, moves):
    state = game.new_initial_state()
    for m in moves:
        state.apply_action(m)
    return state


def first_playout_move(game, state, seed, **keys):
    na = game.spec.num_distinct_actions
    params = common.playout_params(num_actions=na, num_players=2, **keys)
    s = state.array.copy()
    moves = np.zeros(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    stats = common.policy_stats(2, na)
    _, _ = hex_policies.policy_playout(
        game.consts, s, seed_state(seed), moves, out, -1, params, stats
    )
    return int(moves[1]), out


def test_hex_one_move_win_is_taken():
    game = mctslab.load_game("hex(size=4)")
    # Black b1 b2 b3 (column b, rows 1-3; actions 1, 5, 9); White d1 d2 d3. Black to move wins
    # at a4 (12) or b4 (13).
    state = hex_state(game, [1, 3, 5, 7, 9, 11])
    assert hex_policies.winning_cell(game.consts, state.array.copy(), 0) == 12
    for seed in range(20):
        move, out = first_playout_move(game, state, seed, decisive=True)
        assert move in (12, 13) and out[0] == 1.0
    moves = {first_playout_move(game, state, seed)[0] for seed in range(40)}
    assert len(moves) > 2  # uniform playouts do not always take it


def test_hex_opponent_one_move_win_is_blocked():
    game = mctslab.load_game("hex(size=4)")
    # Black b1 b2 b3, White a4 and d1: Black threatens only b4 (13); White to move blocks.
    state = hex_state(game, [1, 12, 5, 3, 9])
    assert state.current_player() == 1
    assert hex_policies.winning_cell(game.consts, state.array.copy(), 1) == -1
    for seed in range(20):
        assert first_playout_move(game, state, seed, decisive=True, anti=True)[0] == 13


def test_lgrf_table_after_a_won_and_a_lost_playout():
    na = 10
    ptab = np.full(2 * na, -1, dtype=np.int32)
    action = np.array([-1, 3], dtype=np.int16)  # tree: the root's child 1 is action 3
    path = np.array([0, 1], dtype=np.int32)
    path_player = np.array([0, 1], dtype=np.int32)
    # won by Black: Black 3 (tree), White 5, Black 7, White 2 (playout)
    moves = np.array([1, 5, 0, 7, 1, 2], dtype=np.int32)
    lgrf_update(ptab, na, path, path_player, action, 1, moves, 3, np.array([1.0, 0.0]))
    expect = np.full(2 * na, -1)
    expect[0 * na + 5] = 7  # Black's good reply to White's 5
    assert ptab.tolist() == expect.tolist()  # White lost: nothing stored for White
    # lost by Black: Black 1, White 5, Black 7 (all playout): White's reply 5 to 1 is stored,
    # Black's reply 7 to 5 lost and is forgotten
    moves = np.array([0, 1, 1, 5, 0, 7], dtype=np.int32)
    lgrf_update(ptab, na, path, path_player, action, 0, moves, 3, np.array([0.0, 1.0]))
    expect[0 * na + 5] = -1
    expect[1 * na + 1] = 5
    assert ptab.tolist() == expect.tolist()


def test_pool_contents_are_the_best_root_amaf_moves():
    na, k = 5, 2
    stats = common.policy_stats(2, na, pool_k=k)
    pstat = stats.pool_amaf
    pstat[:na] = [1, 1, 1, 0, 2]  # Black's counts and means
    pstat[2 * na : 3 * na] = [0.2, 0.9, 0.5, 0.0, 0.7]
    pstat[na + 2] = 1  # White played only action 2
    pstat[3 * na + 2] = 0.3
    pool_rebuild(pstat, stats.pools, stats.pool_sizes, na, k, 2)
    pools = stats.pools
    assert pools[:k].tolist() == [1, 4]  # Black's best two means among played moves
    assert stats.pool_sizes.tolist() == [2, 1] and pools[k] == 2  # White: 1 move

    # In a search, the pool statistics are the AMAF statistics of the root for the root player.
    game = mctslab.load_game("nogo(size=5)")
    uct = Uct(game, UctConfig(rave="paper", pool=3), seed=4)
    uct.search(game.new_initial_state(), Budget(sims=16 * 20))
    kids = list(uct.tree.children(0))
    acts = uct.tree.action[kids]
    assert uct.stats.pool_amaf[acts].tolist() == uct.tree.amaf_n[kids].tolist()
    means = uct.stats.pool_amaf[2 * 25 + acts]
    np.testing.assert_allclose(means, uct.tree.amaf_v[kids], atol=1e-6)
    best = sorted(range(len(acts)), key=lambda j: (-means[j], acts[j]))[:3]
    assert uct.stats.pools[:3].tolist() == [int(acts[j]) for j in best]


def test_qbr_bonuses_by_hand():
    q = np.zeros(2 * N_QSTATS)
    q[0:3] = [4, 10.0, 16.0]  # Black's won lengths: 4 samples, mean 10, sigma sqrt(16/4) = 2
    q[3:6] = [4, 5.0, 4.0]  # Black's qualities: mean 5, sigma 1
    w = np.array([1.0, 0.0])
    qbr_adjust(q, w, 8.0, 6.0, 0.25, 1.4, 2)
    b = -1 + 2 / (1 + math.exp(-1.4 * 1.0))  # lambda_r = (10 - 8) / 2 = 1, lambda_q = 1
    assert w[0] == pytest.approx(1 + 0.25 * 2 * b / 2)
    assert w[1] == pytest.approx(-0.25 * 2 * b / 2)
    assert q[0:3].tolist() == pytest.approx([5, 9.6, 16 + (8 - 10) * (8 - 9.6)])
    # a draw changes nothing
    w = np.array([0.5, 0.5])
    qbr_adjust(q, w, 8.0, 6.0, 0.25, 1.4, 2)
    assert w.tolist() == [0.5, 0.5] and q[0] == 5


def test_policies_allocated_only_when_used_and_bad_base_named():
    game = mctslab.load_game("hex(size=5)")
    plain = Uct(game, UctConfig(), seed=1)
    assert all(a.shape == (0,) for a in plain.stats)
    assert not plain.params.policy
    with pytest.raises(SpecError, match=r"playout=nf is not available.*allowed: bridge, uniform"):
        Uct(game, UctConfig(playout="nf"), seed=1)


@pytest.mark.parametrize(
    "spec",
    ["nim(n=20)", "nogo(size=5)", "hex(size=5)"],
)
def test_every_preset_searches(spec):
    from mctslab.agents import PRESETS, make_agent

    game = mctslab.load_game(spec)
    for preset in PRESETS:
        if preset == "nf" and not spec.startswith("nogo"):
            continue
        agent = make_agent(f"mcts(preset={preset},sims=200)", game, seed=1)
        result = agent.search(game.new_initial_state())
        assert result.action in game.new_initial_state().legal_actions()
        assert sum(result.visits) == 200


@pytest.mark.parametrize("seed", range(6))
def test_nogo_decisive_move_ends_the_game(seed):
    game = mctslab.load_game("nogo(size=4)")
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    seen = 0
    while not state.is_terminal():
        player = state.current_player()
        winning = set()
        for m in state.legal_actions():
            after = state.clone()
            after.apply_action(m)
            if after.is_terminal():
                winning.add(m)
        point = nogo_policies.decisive_point(game.consts, state.array.copy(), player)
        action = -1 if point < 0 else int(game.consts[8 + 16 + point])
        assert (action in winning) if winning else action == -1
        seen += bool(winning)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert seen > 0 or seed != 0


def test_hex_fill_playout_plays_the_stored_reply_and_finds_the_winner():
    game = mctslab.load_game("hex(size=5)")
    state = hex_state(game, [12])  # Black in the centre; White to move
    na = game.spec.num_distinct_actions
    params = common.playout_params(lgrf=True, num_actions=na, num_players=2)
    stats = common.policy_stats(2, na, lgrf=True)
    ptab = stats.replies
    ptab[1 * na + 12] = 7  # White's stored reply to 12
    ptab[0 * na + 7] = 17  # Black's stored reply to 7
    for seed in range(10):
        s = state.array.copy()
        moves = np.zeros(2 * game.spec.max_game_length + 2, dtype=np.int32)
        out = np.zeros(2)
        n, _ = hex_policies.policy_playout(
            game.consts, s, seed_state(seed), moves, out, 12, params, stats
        )
        assert n == 24 and moves[1] == 7 and moves[3] == 17
        replay = state.clone()  # the same moves one by one: the same winner
        for i in range(n):
            if replay.is_terminal():
                break
            replay.apply_action(int(moves[2 * i + 1]))
        assert replay.returns() == out.tolist()


def _contested_first_moves(game, text, seeds):
    """The first move of ``playout=contested`` playouts from ``text`` (Black to move)."""
    params = common.playout_params(base=nogo_policies.BASE_CONTESTED, num_actions=25)
    stats = common.policy_stats(2, 25)
    firsts = []
    for seed in seeds:
        state = game.state_from_ascii(text, to_move=0).array.copy()
        moves = np.zeros(2 * 26, dtype=np.int64)
        out = np.zeros(2)
        n, _ = nogo_policies.policy_playout(
            game.consts, state, seed_state(seed), moves, out, -1, params, stats
        )
        assert n >= 1
        firsts.append(int(moves[1]))
    return firsts


def test_contested_playout_keeps_the_movers_own_points_for_later():
    game = mctslab.load_game("nogo(size=5)")
    # a5, c5 and e5 are Black's own: a White stone there would have no liberty (suicide). Every
    # point of rows 3 to 1 is legal for both: the playout's first move is always one of those,
    # and each of the 15 comes up (uniform among them).
    text = ". X . X .\nX X X X X\n. . . . .\n. . . . .\n. . . . ."
    firsts = _contested_first_moves(game, text, range(600))
    assert set(firsts) == set(range(10, 25))
    counts = np.bincount(firsts, minlength=25)[10:]
    assert counts.min() > 600 / 15 * 0.5
    # With nothing contested left, Black plays one of its own points (and White, with no
    # legal move, loses).
    text = ". X . X .\nX X X X X\nX X X X X\nX X X X X\nX X X X ."
    assert set(_contested_first_moves(game, text, range(200))) == {0, 2, 4, 24}


def _bridge_replies(game, actions, intruder, colour, seeds=range(20)):
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return {
        int(hex_policies.bridge_reply(game.consts, state.array, intruder, colour, seed_state(s))[0])
        for s in seeds
    }


def test_hex_bridge_intrusions_are_answered_by_hand():
    game = mctslab.load_game("hex(size=5,swap=false)")
    # Black b2 (6) and c3 (12) form a bridge over c2 (7) and b3 (11); White intrudes at c2.
    assert _bridge_replies(game, [6, 20, 12, 7], 7, 1) == {11}
    assert _bridge_replies(game, [6, 20, 12, 7], 7, 2) == {-1}  # White has no bridge there
    # Black c2 (7) reaches the top edge over c1 (2) and d1 (3); White intrudes at c1.
    assert _bridge_replies(game, [7, 2], 2, 1) == {3}
    # The same shape for White, whose edges are left and right: White b3 (11) over a3 (10) and
    # a4 (15) to the left edge; Black intrudes at a3.
    assert _bridge_replies(game, [24, 11, 10], 10, 2) == {15}
    # Two bridges intruded at once: either reply, each for some seed.
    assert _bridge_replies(game, [6, 20, 12, 23, 2, 24, 8, 7], 7, 1, range(60)) == {11, 3}


@pytest.mark.parametrize("size", [4, 5, 7])
def test_nogo_decisive_moves_are_only_skipped_where_none_exists(size):
    # The playout looks for a decisive move only while the opponent has at most ten legal
    # moves (no move can take more from them): over random games, whenever a move exists that
    # leaves the opponent without a legal move, the filter lets the search run.
    game = mctslab.load_game(f"nogo(size={size})")
    rng = np.random.default_rng(size)
    filtered = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            wins = False
            for m in state.legal_actions():
                after = state.clone()
                after.apply_action(m)
                wins = wins or after.is_terminal()
            look = nogo_policies.may_lose_all(game.consts, state.array.copy(), 1 - player)
            assert look or not wins
            filtered += not look
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert filtered > 0 or size == 4  # on larger boards the filter does skip positions


@pytest.mark.parametrize("size", [3, 5, 8])
def test_hex_tracked_winning_cells_agree_with_a_full_scan(size):
    # The decisive and anti-decisive playouts keep each player's winning cells as stones are
    # placed; at every position of random games (from the empty board and from a middle game)
    # a player has a tracked winning cell exactly when a full scan finds one, and it is one.
    game = mctslab.load_game(f"hex(size={size})")
    rng = np.random.default_rng(size)
    for g in range(20):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, size * size // 2)) if g % 2 else 0):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        start = state.clone()
        actions = []
        while not state.is_terminal():
            actions.append(int(rng.choice(state.legal_actions())))
            state.apply_action(actions[-1])
        out = np.zeros(2 * len(actions) + 2, dtype=np.int64)
        hex_policies.tracked_winning_cells(
            game.consts, start.array.copy(), np.array(actions, dtype=np.int64), out
        )
        replay = start.clone()
        for i in range(len(actions)):
            for p in range(2):
                scan = hex_policies.winning_cell(game.consts, replay.array.copy(), p)
                tracked = int(out[2 * i + p])
                assert (tracked >= 0) == (scan >= 0), (g, i, p)
                if tracked >= 0:
                    board = replay.array[4 : 4 + size * size].copy()
                    assert board[tracked] == 0
                    board[tracked] = p + 1
                    assert _hex_connects(board, size, p)
            replay.apply_action(actions[i])


@pytest.mark.parametrize(
    "keys", [{"decisive": True, "anti": True}, {"decisive": True}, {"anti": True}]
)
def test_hex_policy_playouts_take_and_block_one_move_wins(keys):
    # Replays decisive / anti-decisive playouts from random positions and checks every move
    # against full scans: with a winning cell the mover (decisive) wins at once; else, with one
    # of the opponent's, the mover (anti-decisive) plays one of those. The playout ends at the
    # win, its returns are the winner's, and a seed always gives the same playout.
    size = 7
    game = mctslab.load_game(f"hex(size={size},swap=false)")
    na = game.spec.num_distinct_actions
    params = common.playout_params(num_actions=na, num_players=2, **keys)
    rng = np.random.default_rng(7)
    taken = blocked = 0
    for g in range(60):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, size * size // 2))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        records = []
        for _ in range(2):
            s = state.array.copy()
            moves = np.zeros(2 * game.spec.max_game_length + 2, dtype=np.int32)
            out = np.zeros(2)
            n, _ = hex_policies.policy_playout(
                game.consts, s, seed_state(g), moves, out, -1, params, common.policy_stats(2, na)
            )
            records.append((moves[: 2 * n].tolist(), out.tolist(), s.tolist()))
        assert records[0] == records[1]
        moves, out, _ = records[0]
        replay = state.clone()
        for i in range(0, len(moves), 2):
            p, a = moves[i], moves[i + 1]
            assert p == replay.current_player()
            mine = hex_policies.winning_cell(game.consts, replay.array.copy(), p)
            theirs = hex_policies.winning_cell(game.consts, replay.array.copy(), 1 - p)
            board = replay.array[4 : 4 + size * size].copy()
            board[a] = 2 - p  # the opponent's stone at a
            if keys.get("decisive") and mine >= 0:
                taken += 1
                board[a] = p + 1
                assert _hex_connects(board, size, p)
            elif keys.get("anti") and theirs >= 0:
                blocked += 1
                assert _hex_connects(board, size, 1 - p)  # a was a winning cell of theirs
            replay.apply_action(a)
        assert replay.is_terminal()
        assert out[replay.returns().index(1.0)] == 1.0
    assert taken + blocked > 30


def _hex_connects(board, size, p):
    """Whether player ``p``'s stones join their two edges (a breadth-first search)."""
    cells = [(r, c) for r in range(size) for c in range(size) if board[r * size + c] == p + 1]
    start = [(r, c) for r, c in cells if (r if p == 0 else c) == 0]
    seen, todo = set(start), list(start)
    while todo:
        r, c = todo.pop()
        if (r if p == 0 else c) == size - 1:
            return True
        for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
            q = (r + dr, c + dc)
            if q in set(cells) and q not in seen:
                seen.add(q)
                todo.append(q)
    return False
