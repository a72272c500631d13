"""One game between agents, and one game of a match as a self-contained, replayable task.

:func:`play_game` plays one game: ``agents[p]`` moves for player ``p`` through
``agent.step(state, budget)``, chance events are drawn by a seeded sampler. A match's game ``i``
is a :class:`GameTask`; every seed derives from (run seed, game index) by :func:`seed_for`, so any
game can be replayed exactly (:func:`replay`), whichever worker played it and in whatever order
games finished. :func:`play_task` is what a worker process or a Ray task runs; it returns the
game's database row (:mod:`mctslab.harness.store`).

An agent whose ``step`` raises :class:`~mctslab.agents.base.Forfeit` (it resigned, or an external
engine crashed, hung or answered an illegal move) loses the game there: its seat gets the game's
minimum utility, every other seat the maximum, and the record keeps the seat and the reason
(stored with the game's search statistics as ``"forfeit": {"player": p, "reason": "..."}``).

A game may start from an opening (:mod:`mctslab.harness.openings`): its moves are played before
the agents' first decision, so the agents see the position with its history, and the record's
``moves`` (and so :func:`replay` and the SGF export) begin with them; the row's ``opening`` keeps
them on their own. Opening moves are not decisions: they have no time or search statistics.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mctslab.agents.base import Forfeit
from mctslab.games.base import Game, State
from mctslab.search.budget import Budget


@dataclass
class GameRecord:
    """One finished game: who played which seat, the moves, the returns and the time used."""

    seats: tuple[str, ...]
    moves: list[int]
    returns: list[float]
    seconds: list[float] = field(default_factory=list)
    #: per decision: the mover and its search's statistics (see :data:`SEARCH_STAT_FIELDS`)
    search_stats: dict[str, list] = field(default_factory=dict)
    #: the state the game ended in (terminal unless ``max_moves`` stopped it)
    final: State | None = field(default=None, repr=False)
    #: the seat that resigned or lost by fault, and why (None when the game ended by its rules)
    forfeit: tuple[int, str] | None = None


#: the statistics of each decision kept with a game (from :class:`~mctslab.search.SearchResult`)
SEARCH_STAT_FIELDS = (
    "simulations",
    "win_ratio",
    "depth_mean",
    "depth_median",
    "depth_max",
    "nodes",
    "bytes",
)


def seed_for(run_seed: int, game_index: int, seat: int) -> int:
    """A seed derived from the run seed and a game index: seats 0 and 1 are the agents' seeds,
    2 the chance sampler's, 3 (with the pair's first index) the draw of the pair's game spec."""
    return (run_seed * 1_000_003 + game_index) * 7 + seat


def play_game(
    game: Game,
    agents: Sequence,
    rng_seed: int = 0,
    on_move: Callable[[State, int, int, object], None] | None = None,
    max_moves: int | None = None,
    budget: Budget | None = None,
    opening: Sequence[int] = (),
) -> GameRecord:
    """Play one game; ``agents[p]`` moves for player ``p``. Chance events use a seeded sampler.

    ``on_move(state, player, action, agent)`` is called after each decision move is applied;
    ``max_moves`` stops the game after that many decisions (the record's ``final`` state is then
    not terminal); ``budget`` is the budget of every decision's search (each agent's own, from
    its spec, by default): every move is ``agent.step(state, budget)``. A step that raises
    :class:`~mctslab.agents.base.Forfeit` ends the game as a loss for that player. The actions
    ``opening`` are played first (not decisions: no ``on_move``, no time, no statistics).
    """
    chance = random.Random(rng_seed)
    for agent in agents:
        agent.reset()
    state = game.new_initial_state()
    for a in opening:
        state.apply_action(a)
    seconds: list[float] = []
    searched: dict[str, list] = {"player": [], **{k: [] for k in SEARCH_STAT_FIELDS}}
    forfeit: tuple[int, str] | None = None
    while not state.is_terminal() and (max_moves is None or len(seconds) < max_moves):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            o = chance.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            state.apply_action(o)
            continue
        player = state.current_player()
        agent = agents[player]
        t0 = time.perf_counter()
        try:
            action = agent.step(state, budget)
        except Forfeit as exc:
            forfeit = (player, exc.reason)
        seconds.append(time.perf_counter() - t0)
        result = getattr(agent, "last_result", None) if forfeit is None else None
        searched["player"].append(player)
        for k in SEARCH_STAT_FIELDS:
            searched[k].append(getattr(result, k, 0) if result is not None else 0)
        if forfeit is not None:
            break
        state.apply_action(action)
        if on_move is not None:
            on_move(state, player, action, agent)
    names = tuple(a.spec_string for a in agents)
    returns = state.returns() if forfeit is None else forfeit_returns(game, forfeit[0])
    return GameRecord(names, list(state.history), returns, seconds, searched, state, forfeit)


def forfeit_returns(game: Game, loser: int) -> list[float]:
    """The returns of a game that player ``loser`` forfeited: the least utility for it, the
    most for every other player."""
    returns = [game.spec.max_utility] * game.spec.num_players
    returns[loser] = game.spec.min_utility
    return returns


def score_of(returns: Sequence[float], seat: int) -> float:
    """1 if ``seat`` has the strictly best return, ½ if it ties for best, else 0."""
    mine = returns[seat]
    best_other = max(r for p, r in enumerate(returns) if p != seat)
    return 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0


@dataclass(frozen=True)
class GameTask:
    """Everything needed to play (and replay) game ``index`` of a match."""

    index: int
    game: str
    spec_a: str
    #: empty for a single-player run (A alone at seat 0)
    spec_b: str
    run_seed: int
    #: the actions played before the agents' first decision (an opening; none by default)
    opening: tuple[int, ...] = ()

    @property
    def seat_a(self) -> int:
        return self.index % 2 if self.spec_b else 0

    @property
    def players(self) -> tuple[str, ...]:
        if not self.spec_b:
            return (self.spec_a,)
        return (self.spec_a, self.spec_b) if self.seat_a == 0 else (self.spec_b, self.spec_a)


_GAMES: dict[str, Game] = {}


def _load(spec: str) -> Game:
    if spec not in _GAMES:
        import mctslab

        _GAMES[spec] = mctslab.load_game(spec)
    return _GAMES[spec]


def play_task(task: GameTask) -> dict:
    """Play one game of a match (or of a single-player run) and return its database row (see
    :mod:`mctslab.harness.store`); a single-player game's ``score_a`` is its return."""
    from mctslab.agents import make_agent

    game = _load(task.game)
    seeds = [seed_for(task.run_seed, task.index, p) for p in range(len(task.players))]
    agents = [make_agent(sp, game, seed=s) for sp, s in zip(task.players, seeds, strict=True)]
    chance_seed = seed_for(task.run_seed, task.index, 2)
    try:
        record = play_game(game, agents, rng_seed=chance_seed, opening=task.opening)
    finally:
        for agent in agents:
            agent.close()
    stats = dict(record.search_stats)
    if record.forfeit is not None:
        stats["forfeit"] = {"player": record.forfeit[0], "reason": record.forfeit[1]}
    return {
        "game_index": task.index,
        "game": task.game,
        "seat_a": task.seat_a,
        "players": list(record.seats),
        "agent_seeds": seeds,
        "chance_seed": chance_seed,
        "moves": [int(m) for m in record.moves],
        "opening": [int(m) for m in task.opening],
        "returns": [float(r) for r in record.returns],
        "score_a": (
            score_of(record.returns, task.seat_a) if task.spec_b else float(record.returns[0])
        ),
        "move_seconds": record.seconds,
        "search_stats": stats,
    }


def play_pair(tasks: Sequence[GameTask]) -> list[dict]:
    """Play the games of one colour-swapped pair (the Ray backend's unit of work)."""
    return [play_task(t) for t in tasks]


def replay(row: dict) -> State:
    """The final state of a stored game, rebuilt from its spec and history."""
    state = _load(row["game"]).new_initial_state()
    for a in row["moves"]:
        state.apply_action(a)
    return state
