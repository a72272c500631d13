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
from mctslab.interfaces.cli.cores import threads_option
from mctslab.interfaces.messages import clip

console = Console()

GAME_HELP = "a game spec such as 'nogo(size=9)', 'hex(size=11,swap=true)' or 'nim(n=30,k=3)'"


class _Group(click.Group):
    """Turns mctslab's own errors into a one-line message and exit status 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MctslabError as exc:
            click.echo(f"error: {clip(str(exc))}", err=True)
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


@main.command()
def agents():
    """List the agents and their keys (types, ranges, defaults)."""
    from mctslab.agents import describe_agents

    click.echo(describe_agents())


@main.command()
def models():
    """List the trained AlphaZero networks that ship (az without net= plays its game's)."""
    from mctslab.models import shipped_models
    from mctslab.specstr import format_spec

    table = Table(title="shipped az networks (az(...) without net= plays its game's)")
    for column in ("game", "file", "network", "training", "plays with", "measured"):
        table.add_column(column)
    for m in shipped_models():
        card, net = m.card, m.card.get("network", {})
        table.add_row(
            m.game,
            f"{m.path.name} ({m.path.stat().st_size / 1e6:.1f} MB)",
            f"{net.get('blocks')} blocks x {net.get('channels')} channels, "
            f"{card.get('parameters', 0):,} parameters",
            f"{card.get('games', 0):,} games, {card.get('training_seconds', 0) / 60:.0f} min",
            format_spec("az", card["play"]) if card.get("play") else "the defaults",
            # a line ending in ":" introduces the ones after it
            "; ".join(card.get("evaluation", [])).replace(":; ", ": "),
        )
    console.print(table)


# -- play ----------------------------------------------------------------------------------------
class _Human:
    """A person at the terminal; re-prompts on malformed or illegal input, never crashes."""

    spec_string = "human"
    last_result = None

    def reset(self) -> None:
        pass

    def step(self, state, budget=None) -> int:
        player = state.current_player()
        while True:
            try:
                text = click.prompt(f"player {player} move ('moves' lists them, 'quit' stops)")
            except (click.Abort, EOFError):
                raise click.ClickException("input closed: game abandoned") from None
            text = text.strip()
            if text == "quit":
                raise click.ClickException("game abandoned by the player")
            legal = state.legal_actions()
            if text == "moves":
                click.echo(" ".join(state.action_to_string(a) for a in legal))
                continue
            try:
                action = state.string_to_action(text)
            except MctslabError as exc:
                click.echo(f"not a move: {exc}")
                continue
            if action not in legal:
                click.echo(f"illegal move {text!r} here; type 'moves' for the legal ones")
                continue
            return action


def _make_player(spec: str, game, seed: int, threads: int):
    if spec.strip() == "human":
        return _Human()
    from mctslab.agents.warmup import make_announced

    return make_announced(spec, game, seed=seed, threads=threads)


@main.command()
@click.argument("game_spec", metavar="GAME")
@click.option("--black", "first", default="human", show_default=True, help="player 0's agent")
@click.option("--white", "second", default="best", show_default=True, help="player 1's agent")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--agent", "solo", default=None, help="the agent of a one-player game (2048)")
@threads_option
def play(game_spec, first, second, seed, solo, threads):
    """Play one game of GAME; an agent spec or 'human' for each side.

    Agents are specs such as 'random', 'flat(sims=1000)' or 'mcts(sims=10000,c=0.7)'
    (see `mctslab agents`); 'best' (or 'best(time=T)') is the strongest agent measured for
    the game at T seconds a move (default 1). A one-player game (2048) takes --agent
    (default: as --black).
    """
    from mctslab.harness.game import play_game

    game = mctslab.load_game(game_spec)
    if game.spec.num_players == 1:
        players = [_make_player(solo or first, game, seed, threads)]
    else:
        players = [
            _make_player(first, game, seed, threads),
            _make_player(second, game, seed + 1, threads),
        ]
    click.echo(str(game.new_initial_state()))

    def show(state, player, action, agent):
        line = f"player {player} ({agent.spec_string}): {state.action_to_string(action, player)}"
        result = agent.last_result
        if result is not None and result.simulations:
            label = "value" if game.spec.num_players == 1 else "win ratio"
            line += f"  [{result.simulations} sims, {label} {result.win_ratio:.2f}]"
        click.echo(line)
        click.echo(str(state))

    record = play_game(game, players, rng_seed=seed, on_move=show)
    if game.spec.num_players == 1:  # the final board, after the last tile appeared
        final = game.new_initial_state()
        for a in record.moves:
            final.apply_action(a)
        click.echo(str(final))
    if record.forfeit is not None:
        seat, reason = record.forfeit
        click.echo(f"player {seat} ({players[seat].spec_string}) lost: {reason}")
    click.echo(f"returns: {record.returns}")


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
    from mctslab.harness import bench as b

    result = b.playouts(mctslab.load_game(game_spec), seconds=seconds)
    if as_json:
        click.echo(json.dumps(result))
        return
    _print_dict(f"random playouts: {result['game']}", result)


@bench.command("all")
@click.option("--seconds", default=2.0, show_default=True, type=click.FloatRange(0.05, 600))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_all(seconds, as_json):
    """Every benchmark, each with a reference measured in the same run and the ratio."""
    from mctslab.harness import bench as b

    rows = b.run_all(seconds=seconds)
    rows.append({"what": "start-up (nogo 9x9 first playout)", **b.startup("nogo(size=9)")})
    if as_json:
        click.echo(json.dumps(rows))
        return
    table = Table(title="mctslab benchmarks (reference = careful C or OpenSpiel, same run)")
    for col in ("benchmark", "ours", "reference", "ratio", "target", "meets"):
        table.add_column(col, justify="left" if col == "benchmark" else "right")
    for r in rows[:-1]:
        table.add_row(
            r["what"],
            f"{r['ours']:,.0f} {r['unit']}",
            "n/a" if r["reference"] is None else f"{r['reference']:,.0f}",
            "n/a" if r["ratio"] is None else f"{r['ratio']:.2f}x",
            r["target"] or "",
            {True: "yes", False: "NO", None: ""}[r["meets"]],
        )
    # Piped output (a log, CI) gets a wide table rather than wrapped cells.
    (console if console.is_terminal else Console(width=130)).print(table)
    st = rows[-1]
    click.echo(
        f"start-up to first NoGo 9x9 playout: {st['cold_seconds']:.2f} s with an empty cache, "
        f"{st['warm_seconds']:.2f} s warm"
    )


@bench.command("search")
@click.argument("game_spec", metavar="GAME")
@click.option("--agent", "agent_spec", default="mcts(sims=10000)", show_default=True)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_search(game_spec, agent_spec, seed, as_json):
    """One search from GAME's initial state: simulations per second, nodes, bytes per node."""
    from mctslab.harness import bench as b

    result = b.search(mctslab.load_game(game_spec), agent_spec, seed=seed)
    if as_json:
        click.echo(json.dumps(result))
        return
    _print_dict(f"search: {result['agent']} on {result['game']}", result)


@bench.command("startup")
@click.argument("game_spec", metavar="GAME", default="nogo(size=9)")
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="time this agent's first search instead (e.g. 'mcts(preset=strong,sims=1)')",
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_startup(game_spec, agent_spec, as_json):
    """Seconds from a fresh process to the first playout (or AGENT's first search), with an
    empty and a warm compile cache."""
    from mctslab.agents import resolve_agent
    from mctslab.harness import bench as b

    game = mctslab.load_game(game_spec)  # fail fast on a bad spec
    if agent_spec is not None:  # and on a bad agent, before the timed processes
        agent_spec = resolve_agent(agent_spec, game)[2]
    result = b.startup(game_spec, agent_spec)
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


# -- commands defined in their own modules (``cli_<area>.py``): one add_command line each ---------
from mctslab.interfaces.cli.g2048 import bench_2048, bench_coin_nim  # noqa: E402

bench.add_command(bench_2048)
bench.add_command(bench_coin_nim)
from mctslab.interfaces.cli.presets import bench_presets  # noqa: E402

bench.add_command(bench_presets)
from mctslab.interfaces.cli.arena import demo, experiment, match, results  # noqa: E402

main.add_command(match)
main.add_command(demo)
main.add_command(results)
main.add_command(experiment)
from mctslab.interfaces.cli.ladder import ladder  # noqa: E402

main.add_command(ladder)
from mctslab.interfaces.cli.gtp import gtp, replay  # noqa: E402

main.add_command(gtp)
main.add_command(replay)
from mctslab.interfaces.cli.web import serve, tree  # noqa: E402

main.add_command(serve)
main.add_command(tree)
from mctslab.interfaces.cli.train import train  # noqa: E402

main.add_command(train)
from mctslab.interfaces.cli.az import (  # noqa: E402
    bench_az,
    bench_az_inference,
    bench_connect_four,
    train_az,
)

train.add_command(train_az)
bench.add_command(bench_connect_four)
bench.add_command(bench_az)
bench.add_command(bench_az_inference)
from mctslab.interfaces.cli.tune import tune  # noqa: E402

main.add_command(tune)
from mctslab.interfaces.cli.compile import compile_command  # noqa: E402

main.add_command(compile_command)


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
            f"internal error: {clip(f'{type(exc).__name__}: {exc}')} "
            "(please report it; MCTSLAB_DEBUG=1 shows the traceback)",
            err=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    run()
