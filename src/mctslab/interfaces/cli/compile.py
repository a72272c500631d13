"""``mctslab compile``: compile the search of each game's default agents ahead of the first move
(:mod:`mctslab.agents.warmup`). Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import concurrent.futures as cf

import click
from rich.console import Console
from rich.table import Table

from mctslab.errors import MctslabError
from mctslab.interfaces.cli.cores import available_cores

console = Console()


def _jobs(games: tuple[str, ...], agents: tuple[str, ...]) -> list[tuple[str, str]]:
    """(game spec, agent spec) pairs, one per compiled code (``warmup.compiled_key``); every spec
    is checked here, so a bad one fails before anything compiles."""
    import mctslab
    from mctslab import models
    from mctslab.agents import resolve_agent
    from mctslab.agents.warmup import DEFAULT_AGENTS, compiled_key

    if not games:
        games = (*mctslab.registered_games(), *(m.game for m in models.shipped_models()))
    out: dict[str, tuple[str, str]] = {}
    for spec in games:
        game = mctslab.load_game(spec)
        for agent in agents or DEFAULT_AGENTS:
            key = compiled_key(resolve_agent(agent, game)[2], game)
            out.setdefault(key, (game.spec.spec_string, agent))
    return list(out.values())


@click.command("compile")
@click.argument("games", nargs=-1)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    help="an agent spec to compile, repeatable [default: best and mcts(preset=strong)]",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=available_cores,
    help="agents compiled in parallel, one process each [default: the cores this process may "
    f"use, here {available_cores()}]",
)
def compile_command(games, agents, workers):
    """Compile the search of each game's default agents now, so that the first move after
    installing or upgrading does not wait (up to two minutes an agent with an empty cache).

    GAMES are game specs [default: every registered game, and each game a shipped network plays];
    each gets every --agent. What is already compiled takes a second or two. The compiled code
    goes to the cache folder (~/.cache/mctslab/, or $MCTSLAB_CACHE_DIR), as on a first move.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from mctslab.agents.warmup import warm
    from mctslab.harness.pools import process_pool
    from mctslab.harness.progress import PlainProgress

    jobs = _jobs(tuple(games), tuple(agents))
    table = Table(title="compiled")
    for name in ("game", "agent", "", "seconds"):
        table.add_column(name, justify="right" if name == "seconds" else "left")
    failed = 0
    columns = (
        TextColumn("[bold]compiling"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as bar, process_pool(workers, "spawn") as pool:
        task = bar.add_task("compile", total=len(jobs))
        plain = PlainProgress(bar.console, "compiling", len(jobs))
        futures = {pool.submit(warm, game, agent): (game, agent) for game, agent in jobs}
        for done, future in enumerate(cf.as_completed(futures), start=1):
            game, agent = futures[future]
            try:
                row = future.result()
            except MctslabError as exc:
                failed += 1
                table.add_row(game, agent, "failed", str(exc))
            else:
                state = "was compiled" if row["was_warm"] else "compiled now"
                table.add_row(row["game"], agent, state, f"{row['seconds']:.1f}")
            bar.update(task, completed=done)
            plain.update(done, f"{game} {agent}")
    console.print(table)
    if failed:
        raise MctslabError(f"{failed} of {len(jobs)} agents could not be made (table above)")
