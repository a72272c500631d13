"""Run many games: a match or a single-player run, seeded, resumable, local or on Ray, with an
optional SPRT.

A match plays games ``0..n−1`` between agent specs A and B. Games come in colour-swapped pairs:
A is player 0 in even games and player 1 in odd ones. Every seed derives from (run seed, game
index) by :func:`mctslab.harness.game.seed_for`, so any game can be replayed exactly. When the
match draws its game from several specs (the Nim report's random start N in 20..50), a pair's spec
is drawn from the run seed and the pair's index, and both games of the pair use it.

With openings (:mod:`mctslab.harness.openings`), games ``2k`` and ``2k+1`` start from opening
``k`` (cycling), so each opening is played once with A on each side.

Finished games go to a :class:`~mctslab.harness.store.ResultsStore`; a rerun of the same match
finds them and plays only the missing ones (``resumed_games``).

A single-player run (2048; :mod:`mctslab.harness.single_player`) is a task list with no agent B:
its one agent sits at seat 0 in every game and the stored ``score_a`` is the game's return (the
score).

Backends (:data:`_RUNNERS`): ``local`` (this process, or a process pool) and ``ray``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from mctslab.errors import MctslabError
from mctslab.games.base import Game
from mctslab.harness import stats
from mctslab.harness.game import _GAMES, GameTask, _load, play_pair, play_task, seed_for
from mctslab.harness.match import MatchResult, summarise_scores
from mctslab.harness.openings import OpeningBook, for_run, opening_for
from mctslab.harness.progress import PlainProgress


def canonical_specs(games: str | Sequence[str], spec_a: str, spec_b: str) -> tuple[list, str, str]:
    """Load every game and agent spec once (a bad spec fails before any game is played) and
    return their canonical strings. An empty ``spec_b`` means a single-player run: every game
    must then have one player, and otherwise two. Making the agents here compiles their search
    once, before the workers load it; a cold one is announced on stderr
    (:mod:`mctslab.agents.warmup`)."""
    from mctslab.agents.warmup import make_announced

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
    a = make_announced(spec_a, loaded[0], seed=0).spec_string
    b = make_announced(spec_b, loaded[0], seed=0).spec_string if spec_b else ""
    return canon, a, b


def match_tasks(
    games: list[str],
    spec_a: str,
    spec_b: str,
    n_games: int,
    seed: int,
    openings: Sequence[tuple[int, ...]] = (),
):
    """The tasks of games ``0..n_games−1``; a pair's game spec is drawn from ``games``, and its
    opening is ``openings[pair index mod len(openings)]`` (actions; none by default)."""
    tasks = []
    for i in range(n_games):
        pair_first = i - i % 2
        g = games[0]
        if len(games) > 1:
            g = games[random.Random(seed_for(seed, pair_first, 3)).randrange(len(games))]
        tasks.append(GameTask(i, g, spec_a, spec_b, seed, opening_for(list(openings), i)))
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
    openings: OpeningBook | str | None = None,
) -> MatchResult:
    """Play ``n_games`` between two agent specs (see the module docstring) and summarise them.

    ``store`` (a :class:`~mctslab.harness.store.ResultsStore`; an in-memory one by default) keeps
    every finished game the moment it ends; games already in it are not played again. ``workers``
    processes play games in parallel (``backend='local'``), or one Ray task per colour-swapped
    pair (``backend='ray'``, at ``address`` or on a local Ray instance). With ``sprt``, the match
    stops once the test decides on the games finished so far in index order (so the verdict does
    not depend on which worker was fastest). ``progress`` shows a bar: games done, A's score with
    its intervals, and the time left. ``openings`` (an :class:`OpeningBook`, a built-in set's
    name or an openings file) start each colour-swapped pair from the next opening; a bad
    opening fails before any game, and a stored run with other openings is refused.
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
            openings=openings,
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
    openings: OpeningBook | str | None = None,
) -> tuple[int, dict[int, dict], int, str | None]:
    """Play the games ``0..n_games−1`` of the run (``names``, canonical ``spec_a``, ``spec_b``
    (empty: single-player), ``seed``) that ``store`` does not hold yet, storing each as it ends.

    Returns the run id, the stored rows by game index, how many were found already finished,
    and the SPRT verdict (None without SPRT). ``score_text(rows)`` is the progress bar's
    figure. ``openings`` as for :func:`run_match`."""
    lines, openings_key = for_run(openings, names)
    run_id = store.run_id(names, spec_a, spec_b, seed, label, openings_key)
    done = {r["game_index"]: r for r in store.games(run_id) if r["game_index"] < n_games}
    resumed = len(done)
    tasks = match_tasks(names, spec_a, spec_b, n_games, seed, lines)
    todo = [t for t in tasks if t.index not in done]
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
        plain = PlainProgress(bar.console, what, n_games) if progress else None

        def finished(row: dict) -> bool:
            """Store one game; True to stop early (SPRT decided)."""
            if store.add_game(run_id, row):
                done[row["game_index"]] = row
            score = text(done.values())
            bar.update(task, completed=len(done), score=score)
            if plain is not None:
                plain.update(len(done), score)
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

    from mctslab.harness.pools import abandon, process_pool

    pool = process_pool(workers, "forkserver")
    try:
        futures = [pool.submit(play_task, t) for t in todo]
        for fut in cf.as_completed(futures):
            if finished(fut.result()):
                break
    finally:
        abandon(pool)


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
