"""The ``mctslab`` command line. Errors in user input print one clear line, never a traceback."""

from __future__ import annotations

import json
import os
import sys

import click
from rich.console import Console
from rich.table import Table

import mctslab
from mctslab.errors import MctslabError

console = Console()

GAME_HELP = "a game spec such as 'nogo(size=9)', 'hex(size=11,swap=true)' or 'nim(n=30,k=3)'"


class _Group(click.Group):
    """Turns mctslab's own errors into a one-line message and exit status 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MctslabError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(mctslab.__version__, prog_name="mctslab")
def main():
    """mctslab — a fast, honest Monte-Carlo Tree Search laboratory."""


@main.command()
def games():
    """List the registered games and their parameters."""
    table = Table(title="games")
    table.add_column("game")
    table.add_column("parameters (type, range, default)")
    table.add_column("description")
    from mctslab import specstr

    for name, cls in mctslab.registered_games().items():
        table.add_row(name, specstr.describe_fields(cls.Params), cls.DESCRIPTION)
    console.print(table)


# -- bench ---------------------------------------------------------------------------------------
@main.group()
def bench():
    """Speed benchmarks (printed, never asserted)."""


@bench.command("playouts")
@click.argument("game_spec", metavar="GAME")
@click.option("--seconds", default=2.0, show_default=True, type=click.FloatRange(0.01, 3600))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_playouts(game_spec, seconds, as_json):
    """Uniform random playouts per second on one core from GAME's initial state."""
    from mctslab import bench as b

    result = b.playouts(mctslab.load_game(game_spec), seconds=seconds)
    if as_json:
        click.echo(json.dumps(result))
        return
    _print_dict(f"random playouts: {result['game']}", result)


@bench.command("startup")
@click.argument("game_spec", metavar="GAME", default="nogo(size=9)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_startup(game_spec, as_json):
    """Seconds from a fresh process to the first playout, with an empty and a warm cache."""
    from mctslab import bench as b

    mctslab.load_game(game_spec)  # fail fast on a bad spec
    result = b.startup(game_spec)
    if as_json:
        click.echo(json.dumps(result))
        return
    _print_dict(f"start-up: {game_spec}", result)


def _print_dict(title: str, data: dict) -> None:
    table = Table(title=title, show_header=False)
    for key, value in data.items():
        if isinstance(value, float):
            value = f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
        table.add_row(key, str(value))
    console.print(table)


def run() -> None:
    """Console-script entry point: an unexpected failure prints one line, not a traceback.

    ``MCTSLAB_DEBUG=1`` shows the traceback (for bug reports).
    """
    try:
        main(standalone_mode=True)
    except Exception as exc:
        if os.environ.get("MCTSLAB_DEBUG"):
            raise
        click.echo(
            f"internal error: {type(exc).__name__}: {exc} "
            "(please report it; MCTSLAB_DEBUG=1 shows the traceback)",
            err=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    run()
