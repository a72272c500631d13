"""Commands of the protocols: ``gtp`` (a GTP/HTP engine on stdin/stdout) and ``replay`` (an SGF
file move by move). Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import sys

import click

from mctslab.errors import MctslabError
from mctslab.harness.sgf import read_sgf_file
from mctslab.interfaces.cli.cores import threads_option
from mctslab.interfaces.gtp import DEFAULT_AGENT, DEFAULT_RESIGN, GAMES, Engine
from mctslab.search.options import RESIGN_MOVES


@click.command()
@click.option("--game", type=click.Choice(GAMES), default="go", show_default=True)
@click.option(
    "--agent",
    default=DEFAULT_AGENT,
    show_default=True,
    help="agent spec string (best: the strongest agent measured for the game and size, 1 s a move)",
)
@click.option("--size", type=int, default=None, help="initial board size (9; hex 11)")
@click.option("--komi", type=float, default=None, help="initial komi (Go; 7.5)")
@click.option(
    "--resign",
    type=click.FloatRange(0, 1),
    default=DEFAULT_RESIGN,
    show_default=True,
    help=f"resign after {RESIGN_MOVES} genmove decisions of a colour in a row whose chosen "
    "move's win value is below this (0: never)",
)
@click.option("--seed", type=int, default=None, help="random seed of the agent")
@threads_option
@click.option(
    "--swap/--no-swap",
    default=None,
    help="hex: play with the swap (pie) rule; off unless given, as in MoHex "
    "(HTP's param_game allow_swap 0|1 changes it)",
)
def gtp(game, agent, size, komi, resign, seed, threads, swap):
    """Speak GTP v2 (go, nogo) or HTP (hex) on stdin/stdout, for GUIs and referees.

    Commands: the GTP required set plus undo, showboard, time_settings, time_left,
    kgs-time_settings, loadsgf, printsgf, is_legal, query_boardsize, echo, reg_genmove, cputime,
    gomill-describe_engine, live analysis (lz-analyze, lz-genmove_analyze, gogui-interrupt) and
    gogui-analyze_commands (visits, win rates, principal variation); go adds final_score and
    final_status_list (dead stones by playout ownership), the handicap commands, get_komi and
    kgs-genmove_cleanup; hex adds param_game (allow_swap), all_legal_moves and final_score
    (B+/W+). `list_commands` lists them. Errors are GTP replies (`? message`); the engine never
    stops on bad input. An mcts agent searches on --threads root-parallel trees (`version`
    shows its spec, with workers=N).
    """
    if komi is not None and game != "go":
        raise click.UsageError(f"--komi is for go: {game} has no komi")
    try:
        engine = Engine(
            game,
            agent,
            size=size,
            komi=komi,
            resign=resign,
            seed=seed,
            allow_swap=swap,
            threads=threads,
        )
    except MctslabError as exc:
        raise click.UsageError(str(exc)) from None
    engine.serve(sys.stdin, sys.stdout)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--boards/--no-boards", default=False, help="print the board after every move")
def replay(path, boards):
    """Replay an SGF file (Go, NoGo, Hex): every move is checked; prints the moves, the final
    board and the result by the rules next to the file's RE. A file that cannot be read or
    replayed is an input error (one line naming the move, exit status 2)."""
    sgf = read_sgf_file(path)
    game = sgf.game
    state = sgf.start()
    click.echo(f"{game.spec.spec_string}: {len(sgf.moves)} moves")
    if sgf.setup is not None:
        click.echo(f"set-up stones (AB/AW), {'BW'[state.current_player()]} to move:\n{state}")
    for i, (player, action) in enumerate(sgf.moves, 1):
        text = state.action_to_string(action, player)
        state.apply_action(action)  # read_sgf replayed it: in turn and legal
        click.echo(f"{i:4d}. {'BW'[player]} {text}")
        if boards:
            click.echo(str(state))
    click.echo(str(state))
    if state.is_terminal():
        r = state.returns()
        verdict = "draw" if r[0] == r[1] else f"{'Black' if r[0] > r[1] else 'White'} wins"
        click.echo(f"result by the rules: {verdict}")
    else:
        click.echo("result by the rules: the game did not finish")
    if "RE" in sgf.properties:
        click.echo(f"result in the file: {sgf.properties['RE']}")
