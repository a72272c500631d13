"""The conformance suite: every registered game, through the wrapper and the compiled kernels.

A game class may list small instances to test in ``EXAMPLE_SPECS``; otherwise its defaults run.
"""

import random

import numpy as np
import pytest

import mctslab
from mctslab.errors import IllegalMoveError
from mctslab.games import generic_template
from mctslab.games.contract import provides
from mctslab.kernels import codegen
from mctslab.kernels.rng import seed_state
from mctslab.search.result import first_decision_state


def _specs():
    for name, cls in mctslab.registered_games().items():
        yield from getattr(cls, "EXAMPLE_SPECS", (name,))


SPECS = sorted(set(_specs()))
GAMES_PER_SPEC = 30


def random_game(game, rnd: random.Random):
    """Play one random game through the wrapper, checking invariants at every step."""
    spec = game.spec
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        assert steps < spec.max_game_length, "game longer than max_game_length"
        player = state.current_player()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes, "chance node without outcomes"
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert all(0 <= o < spec.num_chance_outcomes and p > 0 for o, p in outcomes)
            assert state.legal_actions() == []
            o = rnd.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            state.apply_action(o)
        else:
            assert 0 <= player < spec.num_players
            legal = state.legal_actions()
            assert legal, "non-terminal decision state without legal moves"
            assert legal == sorted(set(legal))
            assert all(0 <= a < spec.num_distinct_actions for a in legal)
            for a in legal:
                text = state.action_to_string(a)
                assert state.string_to_action(text) == a, text
            state.apply_action(rnd.choice(legal))
        steps += 1
    returns = state.returns()
    assert len(returns) == spec.num_players
    assert all(spec.min_utility <= r <= spec.max_utility for r in returns)
    if spec.utility_sum is not None:
        assert sum(returns) == pytest.approx(spec.utility_sum)
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    return state


@pytest.fixture(params=SPECS)
def game(request):
    return mctslab.load_game(request.param)


def test_spec_is_consistent(game):
    spec = game.spec
    assert mctslab.load_game(spec.spec_string).spec == spec
    assert spec.num_players >= 1 and spec.num_distinct_actions >= 1
    assert spec.min_utility < spec.max_utility
    assert spec.max_game_length >= 1 and spec.state_size == game.new_initial_state().array.size
    assert game.consts.dtype == np.int32


def test_random_games_respect_the_contract(game):
    rnd = random.Random(1234)
    for _ in range(GAMES_PER_SPEC):
        final = random_game(game, rnd)
        assert str(final)


def test_clones_are_independent(game):
    rnd = random.Random(7)
    state = game.new_initial_state()
    for _ in range(3):
        if state.is_terminal():
            break
        clone = state.clone()
        before = state.array.copy()
        legal = clone.legal_actions() or [o for o, _ in clone.chance_outcomes()]
        clone.apply_action(rnd.choice(legal))
        assert (state.array == before).all()
        assert len(clone.history) == len(state.history) + 1
        state = clone


def test_illegal_actions_are_refused_without_change(game):
    state = game.new_initial_state()
    before = state.array.copy()
    # a game may start at a chance node (2048): its outcomes are legal there
    legal = set(state.legal_actions()) | {o for o, _ in state.chance_outcomes()}
    illegal = [a for a in (-1, game.spec.num_distinct_actions, 10**6) if a not in legal]
    for a in illegal:
        with pytest.raises(IllegalMoveError):
            state.apply_action(a)
    assert (state.array == before).all() and state.history == []


def _buffers(game):
    spec = game.spec
    actions = np.empty(spec.num_distinct_actions, dtype=np.int32)
    chance = np.empty(max(1, spec.num_chance_outcomes), dtype=np.int32)
    moves = np.empty(2 * spec.max_game_length + 2, dtype=np.int32)
    out = np.zeros(spec.num_players, dtype=np.float64)
    return actions, chance, moves, out


def test_compiled_contract_game_agrees_with_the_wrapper(game):
    """A game played by the compiled contract loop replays step by step through the wrapper."""
    kern = codegen.specialize(generic_template, game.kernels)
    for seed in range(10):
        actions, chance, moves, out = _buffers(game)
        state = game.new_initial_state()
        n, _ = kern.contract_random_game(
            game.consts, state.array, seed_state(seed), actions, chance, moves, out
        )
        assert 1 <= n <= game.spec.max_game_length
        replay = game.new_initial_state()
        for i in range(n):
            player, action = int(moves[2 * i]), int(moves[2 * i + 1])
            assert replay.current_player() == player
            replay.apply_action(action)
        assert replay.is_terminal()
        assert replay.returns() == pytest.approx(list(out))


def test_a_seed_gives_the_same_game(game):
    kern = codegen.specialize(generic_template, game.kernels)
    runs = []
    for _ in range(2):
        actions, chance, moves, out = _buffers(game)
        state = game.new_initial_state()
        n, rng = kern.contract_random_game(
            game.consts, state.array, seed_state(99), actions, chance, moves, out
        )
        runs.append((n, int(rng), moves[: 2 * n].tolist(), out.tolist()))
    assert runs[0] == runs[1]


def test_fast_playout_is_deterministic_and_in_bounds(game):
    spec = game.spec
    results = []
    for _ in range(2):
        _, _, moves, out = _buffers(game)
        totals = np.zeros(spec.num_players)
        kern = codegen.specialize(generic_template, game.kernels)
        total, rng = kern.run_playouts(
            game.consts, game.new_initial_state().array, 200, seed_state(5), moves, out, totals
        )
        assert 200 <= total <= 200 * spec.max_game_length
        assert (out >= spec.min_utility).all() and (out <= spec.max_utility).all()
        results.append((total, int(rng), totals.tolist()))
    assert results[0] == results[1]


def test_every_game_gives_a_network_its_observation_and_symmetries(game):
    """The AlphaZero hooks (games/contract.py): float32 planes [C, H, W] of one shape at every
    decision state, a legal mask that is the legal moves, and symmetries that are permutations
    with the identity first."""
    assert provides(game, "observation") and provides(game, "symmetries")
    syms = game.symmetries()
    obs = game.observation(first_decision_state(game).array)
    assert obs.dtype == np.float32 and obs.ndim == 3
    cells, actions = obs.shape[1] * obs.shape[2], game.spec.num_distinct_actions
    assert syms[0].name == "identity"
    assert (syms[0].cells == np.arange(cells)).all()
    assert (syms[0].actions == np.arange(actions)).all()
    for sym in syms:
        assert sorted(sym.cells.tolist()) == list(range(cells)), sym.name
        assert sorted(sym.actions.tolist()) == list(range(actions)), sym.name
    if game.spec.num_chance_outcomes:
        assert len(syms) == 1, "a symmetry of a game with chance would have to map its outcomes"


def test_a_symmetry_maps_legal_moves_to_legal_moves_and_observations_consistently(game):
    """Play a random game and, beside it, its image under each symmetry (every move mapped): at
    every decision state the image's observation and legal mask are the mapped ones."""
    rnd = random.Random(5)
    syms = game.symmetries()
    for _ in range(3):
        state = game.new_initial_state()
        images = [game.new_initial_state() for _ in syms]
        while not state.is_terminal():
            if state.is_chance_node():
                outcome = rnd.choices(*zip(*state.chance_outcomes(), strict=True))[0]
                for s in (state, *images):
                    s.apply_action(outcome)
                continue
            obs, mask = game.observation(state.array), game.legal_mask(state.array)
            assert mask.tolist() == [a in state.legal_actions() for a in range(mask.size)]
            assert obs.shape == game.observation(first_decision_state(game).array).shape
            for sym, image in zip(syms, images, strict=True):
                assert image.current_player() == state.current_player(), sym.name
                assert (game.legal_mask(image.array) == sym.policy(mask)).all(), sym.name
                assert (game.observation(image.array) == sym.observation(obs)).all(), sym.name
            action = rnd.choice(state.legal_actions())
            state.apply_action(action)
            for sym, image in zip(syms, images, strict=True):
                image.apply_action(int(sym.actions[action]))
        for sym, image in zip(syms, images, strict=True):
            assert image.is_terminal() and image.returns() == state.returns(), sym.name
