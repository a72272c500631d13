"""``mctslab bench presets``: every search enhancement's speed relative to plain UCT."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table


@click.command("presets")
@click.option("--game", "games", multiple=True, help="game spec (repeatable)")
@click.option("--seconds", default=1.0, show_default=True, help="seconds per search")
@click.option("--rounds", default=3, show_default=True, help="interleaved rounds (best kept)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON list")
@click.option("--list", "list_only", is_flag=True, help="list the presets and their keys, no runs")
def bench_presets(games, seconds, rounds, as_json, list_only):
    """Simulations per second of every mcts preset (and the other NoGo playouts), each relative
    to plain UCT measured in the same run (default games: NoGo 9x9, Hex 11x11)."""
    from mctslab.harness import bench
    from mctslab.search import options

    if list_only:
        click.echo(options.describe_presets())
        return

    rows = bench.presets(tuple(games) or ("nogo(size=9)", "hex(size=11)"), seconds, rounds)
    if as_json:
        click.echo(json.dumps(rows))
        return
    table = Table(title=f"enhancements vs plain UCT ({seconds:g} s searches, best of {rounds})")
    for col in ("game", "agent", "sims/s", "relative"):
        table.add_column(col, justify="left" if col in ("game", "agent") else "right")
    for r in rows:
        table.add_row(r["game"], r["agent"], f"{r['sims_per_second']:,.0f}", f"{r['relative']:.3f}")
    Console().print(table)
