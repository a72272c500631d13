"""Play games between agents and run matches: seeded, resumable, local or on Ray.

A match plays games ``0..n−1`` between agent specs A and B. Games come in colour-swapped pairs:
A is player 0 in even games and player 1 in odd ones. Every seed derives from (run seed, game
index) by :func:`seed_for`, so any game can be replayed exactly, whichever worker played it and in
whatever order games finished. When the match draws its game from several specs (the Nim report's
random start N in 20..50), a pair's spec is drawn from the run seed and the pair's index, and both
games of the pair use it.

Finished games go to a :class:`~mctslab.harness.store.ResultsStore`; a rerun of the same match
finds them
and plays only the missing ones (``resumed_games``).

A single-player run (2048; :mod:`mctslab.harness.single_player`) is a task list with no agent B:
its one
agent sits at seat 0 in every game and the stored ``score_a`` is the game's return (the score).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mctslab.errors import MctslabError
from mctslab.games.base import Game, State
from mctslab.harness import stats


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
) -> GameRecord:
    """Play one game; ``agents[p]`` moves for player ``p``. Chance events use a seeded sampler.

    ``on_move(state, player, action, agent)`` is called after each decision move is applied;
    ``max_moves`` stops the game after that many decisions (the record's ``final`` state is then
    not terminal).
    """
    chance = random.Random(rng_seed)
    for agent in agents:
        agent.reset()
    state = game.new_initial_state()
    seconds: list[float] = []
    searched: dict[str, list] = {"player": [], **{k: [] for k in SEARCH_STAT_FIELDS}}
    while not state.is_terminal() and (max_moves is None or len(seconds) < max_moves):
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
        result = getattr(agent, "last_result", None)
        searched["player"].append(player)
        for k in SEARCH_STAT_FIELDS:
            searched[k].append(getattr(result, k, 0) if result is not None else 0)
        state.apply_action(action)
        if on_move is not None:
            on_move(state, player, action, agent)
    names = tuple(a.spec_string for a in agents)
    return GameRecord(names, list(state.history), state.returns(), seconds, searched, state)


def score_of(returns: Sequence[float], seat: int) -> float:
    """1 if ``seat`` has the strictly best return, ½ if it ties for best, else 0."""
    mine = returns[seat]
    best_other = max(r for p, r in enumerate(returns) if p != seat)
    return 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0


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
        return stats.wilson_interval(self.score_a, self.games)

    @property
    def two_sigma(self) -> float:
        return stats.two_sigma(self.score_a, self.games)

    @property
    def elo(self) -> tuple[float, float, float]:
        """A's Elo advantage with its 95% interval (see
        :func:`mctslab.harness.stats.elo_interval`)."""
        return stats.elo_interval(self.wins_a, self.draws, self.losses_a)

    @property
    def los(self) -> float:
        return stats.likelihood_of_superiority(self.wins_a, self.losses_a)

    def as_dict(self) -> dict:
        lo, hi = self.ci95
        elo, elo_lo, elo_hi = self.elo
        return {
            "games": self.games,
            "wins_a": self.wins_a,
            "draws": self.draws,
            "losses_a": self.losses_a,
            "score_a": self.score_a,
            "win_rate_a": self.win_rate_a,
            "ci95": [lo, hi],
            "two_sigma": self.two_sigma,
            "elo": _finite(elo),
            "elo_ci95": [_finite(elo_lo), _finite(elo_hi)],
            "los": self.los,
        }

    def score_text(self) -> str:
        """``A 63.0% ± 4.8 [58.1, 67.6] Elo +92`` — the progress bar's and the report's line."""
        if not self.games:
            return ""
        lo, hi = self.ci95
        elo = self.elo[0]
        elo_s = f"{round(elo) or 0:+d}" if abs(elo) != float("inf") else f"{elo:+}"
        return (
            f"A {100 * self.win_rate_a:.1f}% ± {100 * self.two_sigma:.1f} "
            f"[{100 * lo:.1f}, {100 * hi:.1f}] Elo {elo_s}"
        )


def _finite(x: float) -> float | None:
    """JSON has no infinity: an infinite Elo bound is reported as null."""
    return None if abs(x) == float("inf") else x


def summarise_scores(scores: Sequence[float]) -> MatchSummary:
    """Count A's wins (1), draws (½) and losses (0)."""
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    return MatchSummary(len(scores), wins, draws, len(scores) - wins - draws)


def summarise(records: Sequence[GameRecord], seat_of_a: Sequence[int]) -> MatchSummary:
    """Count A's wins, draws and losses; ``seat_of_a[i]`` is A's player index in game i."""
    return summarise_scores(
        [score_of(r.returns, s) for r, s in zip(records, seat_of_a, strict=True)]
    )


# -- one game as a self-contained task (what a worker process or a Ray task runs) ---------------
@dataclass(frozen=True)
class GameTask:
    """Everything needed to play (and replay) game ``index`` of a match."""

    index: int
    game: str
    spec_a: str
    #: empty for a single-player run (A alone at seat 0)
    spec_b: str
    run_seed: int

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
    record = play_game(game, agents, rng_seed=chance_seed)
    return {
        "game_index": task.index,
        "game": task.game,
        "seat_a": task.seat_a,
        "players": list(record.seats),
        "agent_seeds": seeds,
        "chance_seed": chance_seed,
        "moves": [int(m) for m in record.moves],
        "returns": [float(r) for r in record.returns],
        "score_a": (
            score_of(record.returns, task.seat_a) if task.spec_b else float(record.returns[0])
        ),
        "move_seconds": record.seconds,
        "search_stats": record.search_stats,
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


# -- matches -------------------------------------------------------------------------------------
@dataclass
class MatchResult:
    summary: MatchSummary
    #: games found already finished in the database when the match started
    resumed_games: int
    #: the rows of the games counted in ``summary``, by game index
    rows: list[dict]
    #: the SPRT's verdict ('H0', 'H1', 'continue') or None without SPRT
    sprt: str | None = None
    run_id: int | None = None


def canonical_specs(games: str | Sequence[str], spec_a: str, spec_b: str) -> tuple[list, str, str]:
    """Load every game and agent spec once (a bad spec fails before any game is played) and
    return their canonical strings. An empty ``spec_b`` means a single-player run: every game
    must then have one player, and otherwise two."""
    from mctslab.agents import make_agent

    names = [games] if isinstance(games, str) else list(games)
    if not names:
        raise MctslabError("a match needs at least one game spec")
    loaded = [_load(g) for g in names]
    canon = [g.spec.spec_string for g in loaded]
    players = 2 if spec_b else 1
    for g, s in zip(loaded, canon, strict=True):
        _GAMES.setdefault(s, g)
        if g.num_players() != players:
            raise MctslabError(
                f"{s} has {g.num_players()} player(s); "
                + (
                    "a match needs a two-player game (2048 is played by one agent: "
                    "mctslab bench 2048, or an experiment of kind score)"
                    if spec_b
                    else "a single-player run needs a one-player game (two agents play a match)"
                )
            )
    a = make_agent(spec_a, loaded[0], seed=0).spec_string
    b = make_agent(spec_b, loaded[0], seed=0).spec_string if spec_b else ""
    return canon, a, b


def match_tasks(games: list[str], spec_a: str, spec_b: str, n_games: int, seed: int):
    """The tasks of games ``0..n_games−1``; a pair's game spec is drawn from ``games``."""
    tasks = []
    for i in range(n_games):
        pair_first = i - i % 2
        g = games[0]
        if len(games) > 1:
            g = games[random.Random(seed_for(seed, pair_first, 3)).randrange(len(games))]
        tasks.append(GameTask(i, g, spec_a, spec_b, seed))
    return tasks


def run_match(
    games: Game | str | Sequence[str],
    spec_a: str,
    spec_b: str,
    n_games: int,
    seed: int = 0,
    *,
    store=None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    sprt: stats.Sprt | None = None,
    progress: bool = False,
    label: str = "",
    description: str = "games",
) -> MatchResult:
    """Play ``n_games`` between two agent specs (see the module docstring) and summarise them.

    ``store`` (a :class:`~mctslab.harness.store.ResultsStore`; an in-memory one by default) keeps
    every
    finished game the moment it ends; games already in it are not played again. ``workers``
    processes play games in parallel (``backend='local'``), or one Ray task per colour-swapped
    pair (``backend='ray'``, at ``address`` or on a local Ray instance). With ``sprt``, the match
    stops once the test decides on the games finished so far in index order (so the verdict does
    not depend on which worker was fastest). ``progress`` shows a bar: games done, A's score with
    its intervals, and the time left.
    """
    from mctslab.harness.store import ResultsStore

    if isinstance(games, Game):
        games = games.spec.spec_string
    names, spec_a, spec_b = canonical_specs(games, spec_a, spec_b)
    own_store = store is None
    if own_store:
        store = ResultsStore(":memory:")
    try:
        run_id, done, resumed, verdict = play_run(
            store,
            names,
            spec_a,
            spec_b,
            n_games,
            seed,
            workers=workers,
            backend=backend,
            address=address,
            sprt=sprt,
            progress=progress,
            label=label,
            description=description,
        )
        rows = [done[i] for i in sorted(done)]
        if sprt is not None:
            rows = _prefix(rows)
            n_decided = _sprt_prefix(rows, sprt)
            rows = rows[:n_decided] if n_decided else rows
            verdict = _sprt_status(rows, sprt)
        summary = summarise_scores([r["score_a"] for r in rows])
        return MatchResult(summary, resumed, rows, verdict, run_id)
    finally:
        if own_store:
            store.close()


def _score_text(rows) -> str:
    """The progress bar's score field of a match: A's score with both intervals and Elo."""
    return summarise_scores([r["score_a"] for r in rows]).score_text()


def play_run(
    store,
    names: list[str],
    spec_a: str,
    spec_b: str,
    n_games: int,
    seed: int,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    sprt: stats.Sprt | None = None,
    progress: bool = False,
    label: str = "",
    description: str = "games",
    score_text: Callable[[list[dict]], str] = _score_text,
) -> tuple[int, dict[int, dict], int, str | None]:
    """Play the games ``0..n_games−1`` of the run (``names``, canonical ``spec_a``, ``spec_b``
    (empty: single-player), ``seed``) that ``store`` does not hold yet, storing each as it ends.

    Returns the run id, the stored rows by game index, how many were found already finished,
    and the SPRT verdict (None without SPRT). ``score_text(rows)`` is the progress bar's
    figure."""
    run_id = store.run_id(names, spec_a, spec_b, seed, label)
    done = {r["game_index"]: r for r in store.games(run_id) if r["game_index"] < n_games}
    resumed = len(done)
    todo = [t for t in match_tasks(names, spec_a, spec_b, n_games, seed) if t.index not in done]
    verdict = _play(
        todo,
        done,
        store,
        run_id,
        n_games,
        workers,
        backend,
        address,
        sprt,
        progress,
        description,
        score_text,
    )
    return run_id, done, resumed, verdict


def _prefix(rows: list[dict]) -> list[dict]:
    """The rows of games 0, 1, 2, … up to the first missing index."""
    out = []
    for i, r in enumerate(rows):
        if r["game_index"] != i:
            break
        out.append(r)
    return out


def _sprt_status(rows: list[dict], sprt: stats.Sprt) -> str:
    s = summarise_scores([r["score_a"] for r in rows])
    return sprt.status(s.wins_a, s.draws, s.losses_a)


def _sprt_prefix(rows: list[dict], sprt: stats.Sprt) -> int:
    """The length of the shortest prefix on which the SPRT decides (0 if none)."""
    w = d = lo = 0
    for i, r in enumerate(rows):
        s = r["score_a"]
        w, d, lo = w + (s == 1.0), d + (s == 0.5), lo + (s == 0.0)
        if sprt.status(w, d, lo) != "continue":
            return i + 1
    return 0


def _play(
    todo, done, store, run_id, n_games, workers, backend, address, sprt, progress, what, text
):
    """Run the tasks, storing each finished game; returns the SPRT verdict (or None).
    ``text(rows)`` is the progress bar's score field."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    def verdict():
        return (
            None if sprt is None else _sprt_status(_prefix([done[i] for i in sorted(done)]), sprt)
        )

    if not todo or (sprt is not None and verdict() != "continue"):
        return verdict()
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[score]}"),
        TimeRemainingColumn(),
    )
    runner = _RUNNERS.get(backend)
    if runner is None:
        raise MctslabError(f"unknown backend {backend!r}; known: {', '.join(_RUNNERS)}")
    with Progress(*columns, disable=not progress, transient=False) as bar:
        task = bar.add_task(what, total=n_games, completed=len(done), score=text(done.values()))

        def finished(row: dict) -> bool:
            """Store one game; True to stop early (SPRT decided)."""
            if store.add_game(run_id, row):
                done[row["game_index"]] = row
            bar.update(task, completed=len(done), score=text(done.values()))
            return sprt is not None and verdict() != "continue"

        runner(todo, finished, workers, address)
    return verdict()


def _run_local(todo, finished, workers, address) -> None:
    """In this process (``workers == 1``) or a process pool; games are submitted in index order
    and stored as they finish."""
    if address is not None:
        raise MctslabError("--address is for --backend ray")
    if workers <= 1:
        for t in todo:
            if finished(play_task(t)):
                return
        return
    import concurrent.futures as cf
    import multiprocessing

    pool = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"))
    try:
        futures = [pool.submit(play_task, t) for t in todo]
        for fut in cf.as_completed(futures):
            if finished(fut.result()):
                break
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _run_ray(todo, finished, workers, address) -> None:
    """One Ray task per colour-swapped pair; only this (driver) process writes the database.
    Connects to ``address``, or starts a local Ray instance unless one is already running."""
    try:
        import ray
    except ImportError:
        raise MctslabError(
            "--backend ray needs Ray: pip install 'mctslab[ray]' (or make install)"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(play_pair)
    pairs: dict[int, list[GameTask]] = {}
    for t in todo:
        pairs.setdefault(t.index // 2, []).append(t)
    pending = [remote.remote(p) for p in pairs.values()]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for row in ray.get(ready[0]):
                if finished(row):
                    return
    finally:
        for ref in pending:
            ray.cancel(ref)


_RUNNERS = {"local": _run_local, "ray": _run_ray}
