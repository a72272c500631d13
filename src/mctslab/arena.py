"""Play games between agents and summarise matches (the arena issue extends this)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mctslab.games.base import Game, State
from mctslab.stats import two_sigma, wilson_interval


@dataclass
class GameRecord:
    """One finished game: who played which seat, the moves, the returns and the time used."""

    seats: tuple[str, ...]
    moves: list[int]
    returns: list[float]
    seconds: list[float] = field(default_factory=list)


def seed_for(run_seed: int, game_index: int, seat: int) -> int:
    """The seed of one agent in one game, derived from the run seed so any game can be replayed."""
    return (run_seed * 1_000_003 + game_index) * 7 + seat


def play_game(
    game: Game,
    agents: Sequence,
    rng_seed: int = 0,
    on_move: Callable[[State, int, int, object], None] | None = None,
) -> GameRecord:
    """Play one game; ``agents[p]`` moves for player ``p``. Chance events use a seeded sampler.

    ``on_move(state, player, action, agent)`` is called after each decision move is applied.
    """
    chance = random.Random(rng_seed)
    for agent in agents:
        agent.reset()
    state = game.new_initial_state()
    seconds: list[float] = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            o = chance.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            state.apply_action(o)
            continue
        player = state.current_player()
        agent = agents[player]
        t0 = time.perf_counter()
        action = agent.step(state)
        seconds.append(time.perf_counter() - t0)
        state.apply_action(action)
        if on_move is not None:
            on_move(state, player, action, agent)
    names = tuple(a.spec_string for a in agents)
    return GameRecord(names, list(state.history), state.returns(), seconds)


@dataclass
class MatchSummary:
    """Agent A's result over a match: score = wins + draws/2."""

    games: int
    wins_a: int
    draws: int
    losses_a: int

    @property
    def score_a(self) -> float:
        return self.wins_a + 0.5 * self.draws

    @property
    def win_rate_a(self) -> float:
        return self.score_a / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.score_a, self.games)

    @property
    def two_sigma(self) -> float:
        return two_sigma(self.score_a, self.games)

    def as_dict(self) -> dict:
        lo, hi = self.ci95
        return {
            "games": self.games,
            "wins_a": self.wins_a,
            "draws": self.draws,
            "losses_a": self.losses_a,
            "score_a": self.score_a,
            "win_rate_a": self.win_rate_a,
            "ci95": [lo, hi],
            "two_sigma": self.two_sigma,
        }


def summarise(records: Sequence[GameRecord], seat_of_a: Sequence[int]) -> MatchSummary:
    """Count A's wins, draws and losses; ``seat_of_a[i]`` is A's player index in game i."""
    wins = draws = losses = 0
    for record, seat in zip(records, seat_of_a, strict=True):
        mine = record.returns[seat]
        best_other = max(r for p, r in enumerate(record.returns) if p != seat)
        if mine > best_other:
            wins += 1
        elif mine == best_other:
            draws += 1
        else:
            losses += 1
    return MatchSummary(len(records), wins, draws, losses)


def run_match(
    game: Game, spec_a: str, spec_b: str, n_games: int, seed: int = 0, progress: bool = False
) -> MatchSummary:
    """Play ``n_games`` between two agent specs; A is player 0 in even games, player 1 in odd.

    Each game's agent seeds derive from (run seed, game index), so any game can be replayed.
    With ``progress``, a progress bar shows games done and A's score with its 95% interval.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from mctslab.agents import make_agent

    for spec in (spec_a, spec_b):  # a bad spec fails before any game starts
        make_agent(spec, game)
    records: list[GameRecord] = []
    seats: list[int] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[score]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, disable=not progress, transient=False) as bar:
        task = bar.add_task("games", total=n_games, score="")
        for i in range(n_games):
            seat_a = i % 2
            specs = (spec_a, spec_b) if seat_a == 0 else (spec_b, spec_a)
            agents = [make_agent(sp, game, seed=seed_for(seed, i, p)) for p, sp in enumerate(specs)]
            records.append(play_game(game, agents, rng_seed=seed_for(seed, i, 2)))
            seats.append(seat_a)
            s = summarise(records, seats)
            lo, hi = s.ci95
            bar.update(
                task,
                advance=1,
                score=f"A {100 * s.win_rate_a:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]",
            )
    return summarise(records, seats)
