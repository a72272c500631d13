"""Commands of the arena: ``match``, ``demo``, ``results`` (show, export) and ``experiment``
(list, run). Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import contextlib
import json
import shlex
import signal
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import mctslab
from mctslab.errors import MctslabError
from mctslab.harness.experiments.spec import SCALES
from mctslab.interfaces.cli.cores import available_cores

console = Console()

WORKERS_HELP = (
    "parallel games (processes, or Ray tasks in flight); default: the cores this process may use"
)


def _openings_help() -> str:
    from mctslab.harness.openings import describe_builtin

    return (
        "openings: a file with one move sequence per line (# comments), or a built-in set; "
        "each opening is played twice, colours swapped. Built-in: " + describe_builtin()
    )


def openings_option(f):
    """The ``--openings`` option of match and ladder."""
    return click.option("--openings", default=None, metavar="FILE|SET", help=_openings_help())(f)


def _workers(workers: int | None) -> int:
    return workers if workers else available_cores()


def _backend_options(f):
    f = click.option("--address", default=None, help="Ray cluster address (with --backend ray)")(f)
    f = click.option(
        "--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True
    )(f)
    return click.option("--workers", type=click.IntRange(1, 4096), default=None, help=WORKERS_HELP)(
        f
    )


@contextlib.contextmanager
def _stoppable(store):
    """Ctrl-C, SIGTERM, and SIGINT in a background job (which a non-interactive shell starts
    with SIGINT ignored: ``(nohup mctslab ... &)``) stop a long command the same way: the
    signals' handlers are restored, then :func:`_interrupted` reports the finished games kept in
    ``store`` and exits 130 (an experiment's export runs in its caller's ``finally``). A stop
    that arrives inside a library's callback can come back as another error (Ctrl-C during
    Numba's first compile: llvmlite drops the ``KeyboardInterrupt`` raised in its ctypes callback
    and Numba then fails with "no compiled object yet"), so any error raised after a stop signal
    is reported as the interruption it is."""
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        raise KeyboardInterrupt

    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        try:
            yield
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)
    except KeyboardInterrupt:
        _interrupted(store)
    except Exception:
        if not stopped:
            raise
        _interrupted(store)


def _interrupted(store) -> None:
    n = store.game_count() if store is not None else 0
    where = f" in {store.path}" if store is not None and store.path != ":memory:" else ""
    click.echo(
        f"\ninterrupted: {n} finished games are stored{where}; rerun the same command to resume"
        if where
        else "\ninterrupted (no --db: nothing kept)",
        err=True,
    )
    sys.exit(130)


# -- match ---------------------------------------------------------------------------------------
@click.command()
@click.argument("game_spec", metavar="GAME")
@click.argument("agent_a", metavar="AGENT_A")
@click.argument("agent_b", metavar="AGENT_B")
@click.option("--games", "n_games", default=20, show_default=True, type=click.IntRange(1, 10**7))
@click.option("--seed", default=0, show_default=True, type=int, help="run seed")
@click.option("--db", default=None, help="results database (SQLite); reruns resume from it")
@_backend_options
@click.option(
    "--sprt",
    default=None,
    metavar="ELO0,ELO1[,ALPHA,BETA]",
    help="stop early by SPRT (cutechess-cli bounds), e.g. 0,50 or 0,50,0.05,0.05",
)
@openings_option
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def match(
    game_spec,
    agent_a,
    agent_b,
    n_games,
    seed,
    db,
    workers,
    backend,
    address,
    sprt,
    openings,
    as_json,
):
    """Play AGENT_A against AGENT_B on GAME in colour-swapped pairs (A is player 0 in even games).

    Each game's seeds derive from (run seed, game index), so any game can be replayed; with --db
    every finished game is stored at once and rerunning the same command plays only the missing
    games. Prints A's score ± 2σ (the NoGo paper's form), the Wilson 95% interval, the Elo
    difference with its 95% interval and the likelihood of superiority. With --openings, games
    2k and 2k+1 start from opening k (cycling), A on each side once.
    """
    from mctslab.harness.schedule import run_match
    from mctslab.harness.store import ResultsStore

    test = _parse_sprt(sprt) if sprt else None
    store = ResultsStore(db) if db else None
    t0 = time.perf_counter()
    try:
        with _stoppable(store):
            result = run_match(
                game_spec,
                agent_a,
                agent_b,
                n_games,
                seed,
                store=store,
                workers=_workers(workers),
                backend=backend,
                address=address,
                sprt=test,
                progress=not as_json,
                openings=openings,
            )
    finally:
        if store is not None:
            store.close()
    game = result.rows[0]["game"] if result.rows else game_spec
    if as_json:
        out = {
            "game": game,
            "agent_a": agent_a,
            "agent_b": agent_b,
            "seed": seed,
            **result.summary.as_dict(),
            "resumed_games": result.resumed_games,
            "seconds": time.perf_counter() - t0,
        }
        if db:
            out["db"] = db
        if test is not None:
            out["sprt"] = result.sprt
        if openings:
            out["openings"] = openings
        click.echo(json.dumps(out))
        return
    print_match(game, agent_a, agent_b, result)


def _parse_sprt(text: str):
    from mctslab.harness.stats import Sprt

    try:
        parts = [float(x) for x in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) not in (2, 4) or (len(parts) == 4 and not all(0 < p < 0.5 for p in parts[2:])):
        raise MctslabError(
            f"--sprt {text!r}: expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA "
            "(e.g. 0,50 or 0,50,0.05,0.05; 0 < alpha, beta < 0.5)"
        )
    if parts[1] <= parts[0]:
        raise MctslabError(f"--sprt {text!r}: ELO1 must be greater than ELO0")
    return Sprt(*parts)


def print_match(game_name, agent_a, agent_b, result) -> None:
    s = result.summary
    lo, hi = s.ci95
    elo, elo_lo, elo_hi = s.elo
    table = Table(title=f"{game_name}: A = {agent_a} vs B = {agent_b} (results for A)")
    cols = (
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "win rate ± 2σ",
        "95% CI",
        "Elo (95%)",
        "LOS",
    )
    for col in cols:
        table.add_column(col, justify="right", no_wrap=True)
    table.add_row(
        str(s.games),
        str(s.wins_a),
        str(s.draws),
        str(s.losses_a),
        f"{s.score_a:g}",
        f"{100 * s.win_rate_a:.1f}% ± {100 * s.two_sigma:.1f}%",
        f"[{100 * lo:.1f}%, {100 * hi:.1f}%]",
        f"{round(elo) or 0:+d} [{elo_lo:+.0f}, {elo_hi:+.0f}]"
        if abs(elo) != float("inf")
        else f"{elo:+} [{elo_lo:+.0f}, {elo_hi:+.0f}]",
        f"{100 * s.los:.1f}%",
    )
    Console(width=max(console.width, 132)).print(table)  # nine columns: never truncate them
    notes = []
    if result.resumed_games:
        notes.append(f"{result.resumed_games} games resumed from the database")
    if result.sprt is not None:
        notes.append(f"SPRT: {result.sprt}")
    if notes:
        click.echo("; ".join(notes))


# -- demo ----------------------------------------------------------------------------------------
DEMO_GAME = "nogo(size=7)"
DEMO_A = "mcts(preset=strong,sims=1000)"
DEMO_B = "mcts(sims=1000)"
#: games of the demo's closing match (strong preset against plain UCT) unless --games says
DEMO_MATCH_GAMES = 20
DEMO_EXPERIMENT = "nogo_rave"
DEMO_DB = "results/demo.sqlite"


@click.command()
@click.option(
    "--games",
    "n_games",
    default=None,
    type=click.IntRange(2, 10**6),
    help=f"games per match (default: the experiment's quick scale, and {DEMO_MATCH_GAMES} for the "
    "closing match)",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--db", default=DEMO_DB, show_default=True, help="results database")
@click.option("--workers", type=click.IntRange(1, 4096), default=None, help=WORKERS_HELP)
def demo(n_games, seed, db, workers):
    """The main job on embedded defaults: the quick RAVE-vs-UCT experiment on 7x7 NoGo (the NoGo
    paper's §3.1) into a local database, then its table; then one printed game and a short match
    of the strong preset against plain UCT at equal simulations, through the
    same database. Rerunning resumes.
    """
    from mctslab.harness import experiments as ex
    from mctslab.harness.store import ResultsStore

    exp = ex.load(DEMO_EXPERIMENT, "quick")
    with ResultsStore(db) as store:
        try:
            _run_experiment(
                exp,
                store,
                db,
                Path(db).parent,
                _workers(workers),
                "local",
                None,
                n_games,
                seed,
                f"mctslab demo --db {db}",
            )
            _demo_match(store, n_games or DEMO_MATCH_GAMES, seed, _workers(workers))
        except KeyboardInterrupt:
            _interrupted(store)


def _demo_match(store, n_games, seed, workers) -> None:
    from mctslab.agents import make_agent
    from mctslab.harness.game import play_game
    from mctslab.harness.schedule import run_match

    game = mctslab.load_game(DEMO_GAME)
    console.rule(f"one game of {game.spec.spec_string}: {DEMO_A} (black) vs {DEMO_B} (white)")
    players = [make_agent(DEMO_A, game, seed=seed), make_agent(DEMO_B, game, seed=seed + 1)]
    moves: list[str] = []

    def note(state, player, action, agent):
        moves.append(state.action_to_string(action, player))

    record = play_game(game, players, rng_seed=seed, on_move=note)
    final = game.new_initial_state()
    for a in record.moves:
        final.apply_action(a)
    click.echo(" ".join(moves))
    click.echo(str(final))
    console.rule(f"match: {n_games} games, colours alternating, stored in {store.path}")
    result = run_match(
        DEMO_GAME,
        DEMO_A,
        DEMO_B,
        n_games,
        seed,
        store=store,
        workers=workers,
        progress=True,
        label="demo",
    )
    print_match(game.spec.spec_string, DEMO_A, DEMO_B, result)


# -- results -------------------------------------------------------------------------------------
@click.group()
def results():
    """Inspect and export a results database."""


@results.command("show")
@click.argument("db")
def results_show(db):
    """One line per run in DB: the agents, games stored and A's score."""
    from mctslab.harness.match import summarise_scores
    from mctslab.harness.store import ResultsStore

    with ResultsStore(db, readonly=True) as store:
        table = Table(title=f"{db}: runs")
        for col in ("run", "label", "game", "A", "B", "seed", "games", "A's score"):
            table.add_column(col)
        for run in store.runs():
            scores = [g["score_a"] for g in store.games(run.id)]
            s = summarise_scores(scores)
            if not run.agent_b:  # a single-player run: each game's score_a is its score
                text = f"mean score {sum(scores) / len(scores):,.0f}" if scores else ""
            else:
                text = s.score_text()
            game = run.games[0] if len(run.games) == 1 else f"{len(run.games)} specs"
            table.add_row(
                str(run.id),
                run.label,
                game,
                run.agent_a,
                run.agent_b,
                str(run.seed),
                str(s.games),
                text,
            )
        console.print(table)


@results.command("export")
@click.argument("db")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "jsonl", "pgn", "sgf"]),
    default="csv",
    show_default=True,
    help="pgn: result lines that Ordo and BayesElo read; sgf: one file per board game",
)
@click.option(
    "--out", default="-", show_default=True, help="output file ('-' = stdout); a folder for sgf"
)
@click.option("--run", "run_id", type=int, default=None, help="only this run")
def results_export(db, fmt, out, run_id):
    """Export the games in DB as CSV, JSON lines, PGN result lines (for Ordo / BayesElo), or
    SGF files (Go, NoGo, Hex) into a folder."""
    from mctslab.harness import export
    from mctslab.harness.store import ResultsStore

    if fmt == "sgf" and out == "-":
        raise MctslabError("--format sgf writes one file per game: give a folder with --out")
    with ResultsStore(db, readonly=True) as store:
        try:
            if fmt == "sgf":
                written, skipped = export.export_sgf(store, Path(out), run_id)
            else:
                with click.open_file(out, "w") as f:
                    n = export.EXPORTERS[fmt](store, f, run_id)
        except OSError as exc:  # a folder that does not exist, a read-only file, a full disk
            raise MctslabError(f"cannot write {exc.filename or out}: {exc.strerror}") from None
    if fmt == "sgf":
        click.echo(f"{written} SGF files written to {out} ({skipped} games without SGF skipped)")
    elif out != "-":
        click.echo(f"{n} games written to {out}", err=True)


# -- experiments ---------------------------------------------------------------------------------
@click.group()
def experiment():
    """Declarative experiments (experiments/*.toml) that reproduce the sources' tables."""


@experiment.command("list")
def experiment_list():
    """The experiments, and whether each can run with the agents and games available now."""
    from mctslab.harness import experiments as ex

    table = Table(title="experiments")
    for col in ("name", "title", "runnable"):
        table.add_column(col)
    for name in ex.list_names():
        try:
            exp = ex.load(name, "quick")
            miss = ex.missing(exp)
            table.add_row(name, exp.title, "yes" if not miss else f"no: needs {exp.needs}")
        except MctslabError as exc:
            table.add_row(name, "", f"no: {exc}")
    console.print(table)


@experiment.command("run")
@click.argument("name")
@click.option(
    "--scale",
    type=click.Choice(SCALES),
    default="quick",
    show_default=True,
    help="quick: minutes; decide: enough games that each cell decides (docs/reproduction.md), "
    "its games exported to experiments/games/NAME.jsonl.gz; paper: the source's budgets",
)
@click.option("--db", default=None, help="results database (default results/NAME.sqlite)")
@click.option("--out", default="results", show_default=True, help="report and plot folder")
@click.option(
    "--games",
    "n_games",
    type=click.IntRange(1, 10**7),
    default=None,
    help="games per cell (default: the scale's)",
)
@click.option("--seed", type=int, default=None, help="run seed (default: the experiment's)")
@_backend_options
def experiment_run(name, scale, db, out, n_games, seed, workers, backend, address):
    """Run experiment NAME into its database (resuming) and write its Markdown report and plots."""
    from mctslab.harness import experiments as ex
    from mctslab.harness.experiments import archive
    from mctslab.harness.store import ResultsStore

    exp = ex.load(name, scale)
    ex.check_available(exp)
    db = db or str(Path(out) / f"{exp.name}.sqlite")
    command = "mctslab experiment run " + shlex.join([name, "--scale", scale])
    export = archive.path_for(exp.name, archive.FOLDER) if scale == "decide" else None
    fresh = not Path(db).is_file()
    with ResultsStore(db) as store:
        if export is not None and fresh and export.is_file():
            archive.read(export, store)
            click.echo(f"resuming from the committed games of {export}")
        try:
            with _stoppable(store):
                _run_experiment(
                    exp, store, db, Path(out), _workers(workers), backend, address, n_games,
                    seed, command,
                )  # fmt: skip
        finally:
            if export is not None:
                n = archive.write(store, export)
                click.echo(f"{n} games exported to {export}")


#: where ``mctslab experiment report`` writes the page of every experiment
REPRODUCTION_PAGE = "docs/reproduction.md"


@experiment.command("report")
@click.argument("names", nargs=-1)
@click.option(
    "--scale",
    type=click.Choice(SCALES),
    default="decide",
    show_default=True,
    help="the scale whose games each cell counts",
)
@click.option("--results", default="results", show_default=True, help="folder of the databases")
@click.option(
    "--out",
    default=None,
    help=f"the page's file, - for standard output [default: {REPRODUCTION_PAGE} for all "
    "experiments, - when NAMES are given, so that a page of some never replaces the whole]",
)
def experiment_report(names, scale, results, out):
    """Write the reproduction page: every source table beside ours with a verdict per cell,
    from the games in RESULTS/NAME.sqlite, else the committed experiments/games/NAME.jsonl.gz
    (NAMES: the experiments, default all), with each played experiment's figures in the folder
    named like the page (docs/reproduction/). Plays nothing."""
    from mctslab.harness.experiments import archive, reproduction, spec

    if out is None:
        out = "-" if names else REPRODUCTION_PAGE
    chosen = list(names) or spec.list_names()
    for name in chosen:
        spec.find(name)
    figures = None
    if out != "-":  # the figures go beside the page, in a folder named like it
        figures = Path(out).with_suffix("")
        for old in figures.glob(f"*-{scale}-*.png") if not names else ():
            old.unlink()  # the whole page: figures of experiments no longer listed go too
    text, counts = reproduction.page(
        chosen,
        scale,
        Path(results),
        archive.FOLDER,
        archive.FOLDER.parent / "reproduction-notes.md",
        figures,
    )
    verdicts = (
        f"{counts['agrees']} cells agree, {counts['same direction']} same direction, "
        f"{counts['differs']} differ"
    )
    if out == "-":
        click.echo(text)
        click.echo(verdicts, err=True)
        return
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text + "\n")
    click.echo(f"{out}: {verdicts}")


def _run_experiment(exp, store, db, out_dir, workers, backend, address, n_games, seed, command):
    from mctslab.harness import experiments as ex
    from mctslab.harness.experiments.report import describe_run, markdown

    t0 = time.perf_counter()
    console.rule(f"experiment {exp.name} ({exp.scale}): {exp.title}")
    res = ex.run(
        exp,
        store,
        workers=workers,
        backend=backend,
        address=address,
        games=n_games,
        seed=seed,
        progress=True,
    )
    meta = {"what": describe_run(exp, db, time.perf_counter() - t0, command)}
    path = ex.write_report(exp, res, out_dir, meta)
    click.echo(markdown(exp, res, {**meta, "plots": []}))
    click.echo(f"report: {path}")
