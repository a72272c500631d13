"""Go knowledge: the self-atari test against a flood-fill oracle, self-atari avoidance in
playouts (``go_sa`` and ``go_fuego``), Fuego's prior knowledge, and priors in the tree's AMAF
statistics."""

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.errors import SpecError
from mctslab.games import go_kernels as K
from mctslab.games import go_policies
from mctslab.games.go_fuego import fuego_playout
from mctslab.games.go_playouts import go_style_playout, safe_go_playout, self_atari
from mctslab.kernels.rng import seed_state
from mctslab.search.records import playout_params


def _flood_self_atari(game, state, action):
    """The oracle: play ``action`` on a copy and flood-fill the new group's liberties."""
    size = game.size
    before = game.board(state.array).copy()
    mover = int(state.array[K.S_TO_MOVE]) + 1
    after = state.clone()
    after.apply_action(action)
    board = game.board(after.array)
    if (board == 3 - mover).sum() < (before == 3 - mover).sum():
        return 0  # it captured
    r0, c0 = divmod(action, size)
    group, libs, todo = {(r0, c0)}, set(), [(r0, c0)]
    while todo:
        r, c = todo.pop()
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < size and 0 <= cc < size:
                if board[rr, cc] == 0:
                    libs.add((rr, cc))
                elif board[rr, cc] == mover and (rr, cc) not in group:
                    group.add((rr, cc))
                    todo.append((rr, cc))
    return len(group) if len(libs) == 1 else 0


def _positions(game, count, seed):
    """Positions from random games cut at random lengths."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(5, 3 * game.size * game.size // 2))):
            legal = [a for a in state.legal_actions() if a != game.pass_action]
            if state.is_terminal() or not legal:
                break
            state.apply_action(int(rng.choice(legal)))
        if not state.is_terminal():
            out.append(state)
    return out


@pytest.mark.parametrize("size", [5, 9])
def test_self_atari_agrees_with_a_flood_fill_on_every_legal_move(size):
    game = mctslab.load_game(f"go(size={size},komi=0.5)")
    w, pp = int(game.consts[K.C_W]), int(game.consts[K.C_P])
    seen = set()
    for state in _positions(game, 40, seed=size):
        col = int(state.array[K.S_TO_MOVE]) + 1
        for a in state.legal_actions():
            if a == game.pass_action:
                continue
            p = int(game.consts[K.C_TABLES + a])
            got = self_atari(state.array, p, col, w, pp)
            assert got == _flood_self_atari(game, state, a), (state, a)
            seen.add(min(got, 2))
    assert seen == {0, 1, 2}  # the positions met all three cases


def test_self_atari_by_hand():
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.state_from_ascii(
        """
        . . . . .
        . . . . .
        . O . . .
        O X O . .
        X . . O .
        """,
        to_move="X",
    )
    w, pp = int(game.consts[K.C_W]), int(game.consts[K.C_P])

    def sa(move):
        p = int(game.consts[K.C_TABLES + state.string_to_action(move)])
        return self_atari(state.array, p, 1, w, pp)

    assert sa("B1") == 3  # A1, B2 and B1 joined keep one liberty, C1
    assert sa("C1") == 1  # a lone stone with one liberty, B1
    assert sa("E5") == 0  # two liberties


def _strings(game, state, actions):
    return sorted(state.action_to_string(int(a)) for a in actions)


def test_prior_favours_the_capture_and_shuns_pass_and_self_atari():
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.new_initial_state()
    for m in ("B4", "E1", "D4", "E2", "C5", "C4"):  # White's C4 is left with one liberty, C3
        state.apply_move(m)
    legal = np.array(state.legal_actions(), dtype=np.int32)
    counts = np.zeros(len(legal))
    values = np.zeros(len(legal))
    go_policies.prior(game.consts, state.array, legal, len(legal), counts, values, playout_params())
    by_move = {
        state.action_to_string(int(a)): (c, v)
        for a, c, v in zip(legal, counts, values, strict=True)
    }
    assert by_move["C3"] == (9.0, 1.0)  # the capture
    assert by_move["pass"] == (9.0, 0.0)
    assert all(c == 9.0 and v in (0.0, 0.4, 0.6, 1.0) for c, v in by_move.values())


def _priors(game, state, edge):
    legal = np.array(state.legal_actions(), dtype=np.int32)
    counts, values = np.zeros(len(legal)), np.zeros(len(legal))
    params = playout_params(edge_prior=edge)
    go_policies.prior(game.consts, state.array, legal, len(legal), counts, values, params)
    return {
        state.action_to_string(int(a)): (float(c), float(v))
        for a, c, v in zip(legal, counts, values, strict=True)
    }


def test_edge_prior_shuns_the_first_two_lines_and_favours_the_next_two_in_empty_areas():
    # 13x13 after B G7 (the centre) and W B12 (X Black, O White, * the points checked):
    #  13 . . . . . . * . . . . . .     G13, E1, A5, N9 (first line), B4, M9 (second):
    #  12 * O . . . . . . . . . . .       empty 5x5 around: 0.0
    #  11 . . * . . . . . . . . . .     A12, C11: beside O (not an empty area): unchanged
    #  ...
    #   7 . . . . . . X . . . . . .     E5, G9: fifth line and beyond: unchanged
    #  ...
    #   4 . * . * . . . . . . . . .     D4, J10 (fourth line), C3, E3, L3 (third), empty
    #   3 . . * . * . . . . . * . .       5x5 around: 1.0
    #   1 . . . . * . . . . . . . .
    #     A B C D E F G H J K L M N
    game = mctslab.load_game("go(size=13,komi=7.5)")
    state = game.new_initial_state()
    for m in ("G7", "B12"):
        state.apply_move(m)
    plain, edge = _priors(game, state, 0.0), _priors(game, state, 20.0)
    for move in ("C3", "E3", "L3", "D4", "J10"):
        n, v = plain[move]
        assert edge[move] == (n + 20.0, pytest.approx((n * v + 20.0) / (n + 20.0)))
    for move in ("G13", "E1", "A5", "N9", "B4", "M9"):
        n, v = plain[move]
        assert edge[move] == (n + 20.0, pytest.approx(n * v / (n + 20.0)))
    for move in ("A12", "C11", "E5", "G9", "pass"):
        assert edge[move] == plain[move]


@pytest.mark.parametrize(
    ("playout", "safe"),
    [(safe_go_playout, True), (fuego_playout, True), (go_style_playout, False)],
)
def test_safe_playouts_never_self_atari_two_stones(playout, safe):
    game = mctslab.load_game("go(size=7,komi=0.5)")
    w, pp = int(game.consts[K.C_W]), int(game.consts[K.C_P])
    moves = np.empty(2 * game.spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(2)
    big = 0
    for seed in range(30):
        state = game.new_initial_state()
        n, _ = playout(game.consts, state.clone().array, seed_state(seed), moves, out)
        replay = game.new_initial_state()
        for i in range(n):
            a = int(moves[2 * i + 1])
            assert a in replay.legal_actions()
            if a != game.pass_action:
                col = int(replay.array[K.S_TO_MOVE]) + 1
                p = int(game.consts[K.C_TABLES + a])
                big += self_atari(replay.array, p, col, w, pp) >= 2
            replay.apply_action(a)
        assert replay.is_terminal() and replay.returns() == list(out)
    # captures and escapes are never self-ataris; patterns and random moves are checked
    assert (big == 0) if safe else (big > 0)


def test_prior_starts_the_amaf_statistics_of_new_children():
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()
    agent = make_agent("mcts(preset=rave,prior=2,sims=1,reuse=false)", game, seed=3)
    agent.search(state)
    tree = agent.searcher.tree
    fc, k = int(tree.first_child[0]), int(tree.num_children[0])
    n = tree.amaf_n[fc : fc + k]
    # 2 x 3 prior simulations, plus one AMAF update for each move the root player made
    assert set(n.tolist()) <= {6, 7} and 6 in n.tolist()
    assert set(np.round(tree.amaf_v[fc : fc + k][n == 6].astype(float), 3).tolist()) <= {0.6, 0.4}


def test_prior_needs_rave():
    game = mctslab.load_game("nogo(size=5)")
    with pytest.raises(SpecError, match="prior=1: needs rave"):
        make_agent("mcts(prior=1)", game, seed=1)
