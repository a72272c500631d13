"""The web session searches through the agent itself: every key of the spec (``workers``
included) is honoured, and the session's stop and cancel end a search early through the budget's
stop event."""

from __future__ import annotations

import time

import pytest

from mctslab.interfaces.web.session import ConflictError, Session
from mctslab.search import ROOT
from mctslab.search.parallel import RootParallel
from mctslab.search.uct import Uct


def wait(session: Session, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while session.thinking:
        assert time.monotonic() < deadline, "the search did not end"
        time.sleep(0.01)


def searcher(session: Session, seat: int):
    agent = session.seats[seat].agent
    return agent.searcher


def test_workers_are_honoured_in_the_web_session():
    session = Session("t", "nogo(size=5)", ["mcts(workers=2,sims=600)", "human"], seed=3)
    try:
        search = searcher(session, 0)
        assert isinstance(search, RootParallel) and len(search.workers) == 2
        session.begin()
        wait(session)
        info = session.view()["search"]
        assert info["simulations"] == 600 and info["has_tree"]
        assert not info["running"]
        # both workers searched (the sims are shared between them), and the tree shown is the
        # agent's own (the first worker's)
        visits = [int(w.tree.visits[ROOT]) for w in search.workers]
        assert all(v > 0 for v in visits) and sum(visits) >= 600
        assert session.seats[0].tree is search.tree
        assert "digraph" in session.tree_dot(1, 3)
        assert len(session.moves) == 1  # the agent moved
    finally:
        session.close()


def test_a_single_worker_session_uses_the_agents_own_uct():
    session = Session("t", "nogo(size=5)", ["mcts(sims=300)", "human"], seed=3)
    try:
        assert isinstance(searcher(session, 0), Uct)
        session.begin()
        wait(session)
        assert session.view()["search"]["simulations"] == 300
    finally:
        session.close()


@pytest.mark.parametrize(
    "spec",
    [
        "mcts(sims=100000000)",  # searched in slices on the agent's tree
        "mcts(sims=100000000,reuse=false)",  # one search
        "mcts(sims=100000000,workers=2)",
        "flat(sims=100000000)",  # no tree: one search
    ],
)
def test_stop_ends_a_search_early(spec):
    session = Session("t", "nogo(size=5)", [spec, "human"], seed=1)
    try:
        session.begin()
        time.sleep(0.3)
        assert session.thinking
        t0 = time.monotonic()
        session.stop()
        wait(session, 10.0)
        assert time.monotonic() - t0 < 5.0
        view = session.view()
        assert 0 < view["search"]["simulations"] < 100_000_000
        assert len(session.moves) == 1  # the agent played the best move found so far
    finally:
        session.close()


def test_a_stop_before_the_search_begins_still_plays_one_move():
    """Stop pressed before the worker thread has taken the lock (a loaded machine): the agent
    still plays one move, from a search ended at once, and the game between agents pauses."""
    session = Session("t", "nogo(size=5)", ["mcts(sims=100000000)", "mcts(sims=200)"], seed=3)
    with session.lock:  # the worker blocks on the lock until stop has been pressed
        session.begin()
        assert session.thinking
        session.stop()
    wait(session)
    view = session.view()
    assert len(view["moves"]) == 1 and view["paused"]
    assert 0 < view["search"]["simulations"] < 100000000


def test_cancel_abandons_a_search_without_playing():
    session = Session("t", "nogo(size=5)", ["mcts(sims=100000000,workers=2)", "human"], seed=1)
    session.begin()
    time.sleep(0.3)
    t0 = time.monotonic()
    session.close()  # cancels through the same stop event
    assert time.monotonic() - t0 < 5.0
    assert not session.thinking and session.moves == []


def test_an_alphazero_search_shows_its_priors_and_network_value(tiny_az_model):
    """Issue 18: during an az search the page gets each move's prior beside its visits (the
    table and the board's dashed rings) and the network's value; an mcts search has none."""
    import mctslab
    from mctslab.agents import make_agent

    game = mctslab.load_game("nogo(size=5)")
    model = tiny_az_model(game)
    session = Session("t", "nogo(size=5)", [f"az(net={model},sims=40)", "human"], seed=3)
    try:
        session.begin()
        wait(session)
        view = session.view()
        info = view["search"]
        assert info["simulations"] == 40 and 0.0 <= info["network_value"] <= 1.0  # a win rate
        priors = [m["prior"] for m in info["moves"]]
        assert len(priors) == min(12, 25) and all(0.0 <= p <= 1.0 for p in priors)
        fresh = make_agent(f"az(net={model},sims=1)", game, seed=0)
        result = fresh.search(game.new_initial_state())  # the root's priors: the network's
        expected = dict(zip(result.actions, result.priors, strict=True))
        for m in info["moves"]:
            assert m["prior"] == pytest.approx(expected[m["action"]], abs=1e-4)
        assert info["network_value"] == pytest.approx((1 + result.network_value) / 2, abs=1e-4)
        # drawn on the 24 points still legal after the agent's move
        assert view["board_svg"].count('class="prior"') == 24
    finally:
        session.close()
    plain = Session("u", "nogo(size=5)", ["mcts(sims=200)", "human"], seed=3)
    try:
        plain.begin()
        wait(plain)
        view = plain.view()
        assert view["search"]["network_value"] is None
        assert all("prior" not in m for m in view["search"]["moves"])
        assert 'class="prior"' not in view["board_svg"]
    finally:
        plain.close()


def _human_plays(session: Session) -> None:
    """The human plays its first legal stone (not a pass)."""
    state = session.state
    session.play(min(a for a in state.legal_actions() if a != session.game.pass_action))


def test_an_agent_with_resign_resigns_and_undo_takes_it_back():
    """Komi 30 on 5x5: Black cannot win, so each of its decisions is hopeless; with resign=0.2
    it plays two and resigns on the third, as in a match, and the game is over, lost by it."""
    spec = "mcts(sims=1500,resign=0.2)"
    session = Session("t", "go(size=5,komi=30)", [spec, "human"], seed=1)
    session.begin()
    for _ in range(2):
        wait(session)
        assert session.resigned is None and not session.view()["terminal"]
        _human_plays(session)
    wait(session)
    view = session.view()
    assert view["resigned"] == 0 and view["terminal"] and view["returns"] == [-1.0, 1.0]
    assert len(view["moves"]) == 4  # the resignation plays nothing
    assert "resigned" in view["status"] and "resign=0.2" in view["message"]
    with pytest.raises(ConflictError, match="over"):
        _human_plays(session)
    session.undo()  # back to the human's last turn: the resignation is taken back
    view = session.view()
    assert view["resigned"] is None and not view["terminal"] and len(view["moves"]) == 3
    _human_plays(session)
    wait(session)
    assert session.resigned is None and len(session.moves) == 5  # its run starts again


def test_without_resign_the_agent_plays_on():
    session = Session("t", "go(size=5,komi=30)", ["mcts(sims=1500)", "human"], seed=1)
    session.begin()
    for _ in range(3):
        wait(session)
        _human_plays(session)
    wait(session)
    assert session.resigned is None and len(session.moves) == 7
