"""Single-player games (2048): one game by one agent, a resumable run of many into the results
database, and their summary — shared by ``mctslab bench 2048`` and the experiments' ``score``
tables.

A game is :func:`mctslab.harness.game.play_game` with one agent; the chance events are drawn
from their own seeded sampler, so a game is replayed exactly from (agent spec, agent seed, chance
seed). A run (:func:`run_score`) is a :func:`mctslab.harness.schedule.play_run` without agent B:
game ``i`` uses the agent seed ``seed_for(run seed, i, 0)`` and the chance seed
``seed_for(run seed, i, 2)``, every finished game is committed at once, and a rerun plays only the
missing games.

The summary (:func:`summarise`) counts, for each tile ``t``, the games whose largest tile is at
least ``t`` (``reached``; the share is that count over the games, its Wilson 95% interval from
:func:`mctslab.harness.stats.wilson_interval`), and gives the median and mean score and the
moves per second of thinking (decisions over the seconds the agent searched).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from mctslab.harness.stats import wilson_interval

#: the tiles whose reach ``bench 2048`` reports: 128 .. 131072
TILES = [2**e for e in range(7, 18)]
#: the keys of a game as :func:`play_one` reports it
GAME_FIELDS = ("seed", "score", "max_tile", "moves", "seconds", "slowest_move", "finished")


def play_one(
    agent_spec: str,
    seed: int,
    max_moves: int | None = None,
    *,
    game: str = "2048",
    chance_seed: int | None = None,
) -> dict:
    """One game of ``game`` by ``agent_spec`` (agent seeded with ``seed``, chance with
    ``chance_seed``, by default ``seed`` too). Returns score, max tile, moves, the seconds the
    agent thought and its slowest move, and whether the game ended (``max_moves`` may stop it)."""
    from mctslab.agents import make_agent
    from mctslab.harness.game import _load, play_game

    g = _load(game)
    agent = make_agent(agent_spec, g, seed=seed)
    chance = seed if chance_seed is None else chance_seed
    record = play_game(g, [agent], rng_seed=chance, max_moves=max_moves)
    return _game(seed, record.final, record.seconds)


def _game(seed: int, final, seconds: list[float]) -> dict:
    """A game as :func:`play_one` reports it, from its final state and seconds per move."""
    return {
        "seed": seed,
        "score": int(final.returns()[0]),
        "max_tile": max_tile(final),
        "moves": len(seconds),
        "seconds": sum(seconds),
        "slowest_move": max(seconds, default=0.0),
        "finished": final.is_terminal(),
    }


def max_tile(state) -> int:
    """The largest tile on a 2048 board (0 for a state of another game)."""
    if state.game.spec.name != "2048":
        return 0
    from mctslab.games.g2048 import max_tile as tile

    return tile(state.array)


def from_row(row: dict) -> dict:
    """A stored single-player game (a results-database row) as :func:`play_one` reports it; the
    max tile comes from replaying the stored history (:func:`mctslab.harness.game.replay`)."""
    from mctslab.harness.game import replay

    return _game(row["agent_seeds"][0], replay(row), row["move_seconds"])


def reached_counts(games: Iterable[dict], tiles: Iterable[int] = TILES) -> dict[int, int]:
    """For each tile, the number of games whose largest tile is at least it."""
    games = list(games)
    return {t: sum(g["max_tile"] >= t for g in games) for t in tiles}


def summarise(agent_spec: str, seconds: float | None, games: list[dict]) -> dict:
    """``reached`` (tile -> share of games whose largest tile is at least it), ``reached_games``
    (the counts) and ``reached_interval`` (the share's Wilson 95% interval, ``[low, high]``),
    scores, speed (``moves_per_second`` = decisions / seconds thought), the slowest move and
    the load average."""
    n = len(games)
    scores = [g["score"] for g in games]
    moves = sum(g["moves"] for g in games)
    thinking = sum(g["seconds"] for g in games)
    counts = reached_counts(games)
    return {
        "game": "2048",
        "agent": agent_spec,
        "time_per_move": seconds,
        "games": n,
        "reached": {str(t): c / n for t, c in counts.items()} if n else {},
        "reached_games": {str(t): c for t, c in counts.items()},
        "reached_interval": {str(t): list(wilson_interval(c, n)) for t, c in counts.items()},
        "median_score": statistics.median(scores) if n else 0,
        "mean_score": statistics.fmean(scores) if n else 0.0,
        "max_score": max(scores, default=0),
        "mean_moves": moves / n if n else 0.0,
        "moves_per_second": moves / thinking if thinking > 0 else 0.0,
        "slowest_move": max((g["slowest_move"] for g in games), default=0.0),
        "load_average": os.getloadavg()[0],
    }


def score_text(rows: Iterable[dict]) -> str:
    """The progress bar's figure of a single-player run: median and mean score so far."""
    scores = [r["score_a"] for r in rows]
    if not scores:
        return ""
    return f"median {statistics.median(scores):,.0f}, mean {statistics.fmean(scores):,.0f}"


@dataclass
class ScoreResult:
    """A single-player run: its stored games (as :func:`from_row` reports them) by index."""

    agent: str
    game: str
    games: list[dict]
    #: games found already finished in the database when the run started
    resumed_games: int
    run_id: int


def run_score(
    game: str,
    agent_spec: str,
    n_games: int,
    seed: int = 0,
    *,
    store,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = False,
    label: str = "",
    description: str = "games",
) -> ScoreResult:
    """Play games ``0..n_games−1`` of one-player ``game`` by ``agent_spec`` into ``store``
    (resuming: stored games are not played again) and return them all. A game with more than
    one player is refused (:class:`~mctslab.errors.MctslabError`)."""
    from mctslab.harness.schedule import canonical_specs, play_run

    names, spec, _ = canonical_specs(game, agent_spec, "")
    run_id, done, resumed, _ = play_run(
        store,
        names,
        spec,
        "",
        n_games,
        seed,
        workers=workers,
        backend=backend,
        address=address,
        progress=progress,
        label=label,
        description=description,
        score_text=score_text,
    )
    return ScoreResult(spec, names[0], [from_row(done[i]) for i in sorted(done)], resumed, run_id)
