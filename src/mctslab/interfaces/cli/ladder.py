"""``mctslab ladder``: a round robin of agents with Bradley–Terry ratings
(:mod:`mctslab.harness.ladder`). Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from mctslab.interfaces.cli.arena import (
    _backend_options,
    _stoppable,
    _workers,
    console,
    openings_option,
)


@click.command()
@click.argument("game_spec", metavar="GAME")
@click.argument("agents", metavar="AGENT...", nargs=-1, required=True)
@click.option(
    "--games",
    "n_games",
    default=20,
    show_default=True,
    type=click.IntRange(1, 10**7),
    help="games per pair of agents (colours alternating)",
)
@click.option("--seed", default=0, show_default=True, type=int, help="run seed")
@click.option("--db", default=None, help="results database (SQLite); reruns resume from it")
@_backend_options
@openings_option
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def ladder(game_spec, agents, n_games, seed, db, workers, backend, address, openings, as_json):
    """Round robin of the AGENTs on GAME: every pair plays --games games (the first of the pair
    is player 0 in even games), each stored in --db at once (rerunning resumes), then
    Bradley–Terry ratings as Elo, the first agent at 0, with 95% intervals from the likelihood's
    Hessian (draws count half a win to each side), each agent's score, and the score matrix.
    """
    from mctslab.harness.ladder import run_ladder
    from mctslab.harness.store import ResultsStore

    store = ResultsStore(db) if db else None
    try:
        with _stoppable(store):
            result = run_ladder(
                game_spec,
                list(agents),
                n_games,
                seed,
                store=store,
                workers=_workers(workers),
                backend=backend,
                address=address,
                openings=openings,
                progress=not as_json,
            )
    finally:
        if store is not None:
            store.close()
    if as_json:
        out = {**result.as_dict(), "games_per_pair": n_games, "seed": seed}
        if db:
            out["db"] = db
        if openings:
            out["openings"] = openings
        click.echo(json.dumps(out))
        return
    print_ladder(result)


def print_ladder(result) -> None:
    """The ratings (strongest first) and the pairwise score matrix."""
    table = Table(title=f"{result.game}: Bradley–Terry Elo (agent 1 = 0)")
    for col in ("rank", "#", "agent", "Elo", "95% interval", "score", "games", "score %"):
        table.add_column(col, justify="left" if col == "agent" else "right", no_wrap=True)
    order = sorted(range(len(result.ratings)), key=lambda i: -result.ratings[i].elo)
    for rank, i in enumerate(order, 1):
        r = result.ratings[i]
        table.add_row(
            str(rank),
            str(i + 1),
            result.given[i],
            f"{r.elo:+.0f}",
            "anchor" if i == 0 else f"[{r.low:+.0f}, {r.high:+.0f}]",
            f"{r.score:g}",
            str(r.games),
            f"{100 * r.score / r.games:.1f}%" if r.games else "",
        )
    Console(width=max(console.width, 132)).print(table)  # never truncate an agent
    click.echo(
        "agents (canonical specs): "
        + "; ".join(f"{i + 1} = {a}" for i, a in enumerate(result.agents))
    )
    matrix = Table(title="score of row against column (games)")
    matrix.add_column("#", justify="right")
    for j in range(len(result.agents)):
        matrix.add_column(str(j + 1), justify="right")
    for i, row in enumerate(result.scores):
        cells = ["" if i == j else f"{s:g}/{result.games[i][j]}" for j, s in enumerate(row)]
        matrix.add_row(str(i + 1), *cells)
    console.print(matrix)
    if result.resumed_games:
        click.echo(f"{result.resumed_games} games resumed from the database")
