"""Resignation (``mcts(resign=V)``, ``az(resign=V)``, ``mctslab gtp --resign``): the hopeless rule
on hand-made search results, three hopeless decisions in a row before an agent gives up, the
arena scoring a resignation as a loss with its reason, and a real search resigning a lost Go
position while the same agent without the key plays on."""

import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.agents.base import Agent, Forfeit
from mctslab.agents.resign import MIN_VISITS, RESIGN_MOVES, Resigner, hopeless
from mctslab.errors import SpecError
from mctslab.harness.game import play_game
from mctslab.search.result import SearchResult

PASS = 99


def result(value: float, visits: int = MIN_VISITS, action: int = 3) -> SearchResult:
    """A search whose chosen move ``action`` (of moves 3 and PASS) has mean win value ``value``;
    ``visits`` root visits in all."""
    return SearchResult(
        action=action, actions=[3, PASS], visits=[visits - 1, 1], values=[value, 0.9]
    )


def test_a_decision_is_hopeless_only_below_the_threshold_with_enough_visits_and_no_pass():
    assert hopeless(result(0.04), 3, 0.05, PASS)
    assert not hopeless(result(0.05), 3, 0.05, PASS)  # not below
    assert not hopeless(result(0.04, visits=MIN_VISITS - 1), 3, 0.05, PASS)
    assert not hopeless(result(0.04), 3, 0.0, PASS)  # 0: never
    # the value read is the given action's (the pass here has 0.9), and a pass never resigns
    assert not hopeless(result(0.04, action=PASS), PASS, 0.95, PASS)
    assert hopeless(result(0.04), 3, 0.05, None)  # a game without a pass


def test_an_agent_gives_up_after_three_hopeless_decisions_in_a_row():
    assert RESIGN_MOVES == 3
    r = Resigner(0.05)
    trace = [r.gives_up(result(v), PASS) for v in (0.01, 0.01, 0.5, 0.01, 0.02)]
    assert trace == [False, False, False, False, False]  # the 0.5 broke the run
    assert r.gives_up(result(0.03), PASS)
    r.reset()
    assert not r.gives_up(result(0.01), PASS)
    assert not Resigner(0.0).gives_up(result(0.0), PASS)


class Scripted(Agent):
    """Plays the first legal move, reporting the win values of ``values`` in turn."""

    NAME = "scripted"

    def __init__(self, game, values, resign):
        super().__init__(f"scripted(resign={resign})", game)
        self.values = list(values)
        self.resigner = Resigner(resign)

    def search(self, state, budget=None):
        a = state.legal_actions()[0]
        v = self.values.pop(0) if self.values else 0.5
        return SearchResult(action=a, actions=[a], visits=[MIN_VISITS], values=[v])


def test_the_arena_scores_a_resignation_as_a_loss_and_keeps_the_reason():
    game = mctslab.load_game("nim(n=30,k=3)")
    quitter = Scripted(game, [0.5, 0.01, 0.01, 0.01, 0.9], resign=0.05)
    other = Scripted(game, [], resign=0.0)
    record = play_game(game, [other, quitter])
    assert record.forfeit is not None
    seat, reason = record.forfeit
    assert seat == 1 and "resign=0.05 on 3 moves in a row" in reason
    assert record.returns[1] < record.returns[0]
    # four decisions of the quitter, the fourth (the third hopeless one) not played
    assert record.search_stats["player"] == [0, 1, 0, 1, 0, 1, 0, 1]
    assert len(record.moves) == 7
    # the same values without the key: the game is played to its end
    calm = Scripted(game, [0.5, 0.01, 0.01, 0.01, 0.9], resign=0.0)
    assert play_game(game, [other, calm]).forfeit is None


def lost_go_position():
    """5x5, komi 0.5, Black owns everything but a corner; White to move (as in test_gtp)."""
    game = mctslab.load_game("go(size=5,komi=0.5)")
    state = game.new_initial_state()
    for i, v in enumerate(("B2", "B4", "D2", "D4", "C3", "C1", "A3", "E3", "C5")):
        if i:
            state.apply_action(game.pass_action)  # White
        state.apply_action(state.string_to_action(v))
    assert state.current_player() == 1
    return game, state


def test_mcts_with_resign_gives_up_a_lost_go_position_and_without_it_plays_on():
    game, state = lost_go_position()
    agent = make_agent("mcts(sims=1500,resign=0.2)", game, seed=1)
    assert agent.spec_string.endswith("resign=0.2)")
    with pytest.raises(Forfeit, match="resigned"):
        for _ in range(RESIGN_MOVES):
            # each search is of the same lost position (the move is never played)
            agent.step(state.clone())
    agent.reset()
    agent.step(state.clone())  # the run starts again after reset
    plain = make_agent("mcts(sims=1500)", game, seed=1)
    assert "resign" not in plain.spec_string
    for _ in range(RESIGN_MOVES + 1):
        plain.step(state.clone())


@pytest.mark.parametrize("spec", ["mcts(resign=0.6)", "mcts(resign=-0.1)"])
def test_a_resign_threshold_outside_its_range_is_refused(spec):
    game = mctslab.load_game("nim")
    with pytest.raises(SpecError, match="resign"):
        make_agent(spec, game)


def test_resigning_is_refused_outside_two_player_games():
    with pytest.raises(SpecError, match=r"two-player games.*allowed: resign=0"):
        make_agent("mcts(resign=0.05,sims=10)", mctslab.load_game("2048"))


def test_az_accepts_the_same_key():
    from mctslab.agents.az import AzParams

    assert AzParams(resign=0.05).resign == 0.05
