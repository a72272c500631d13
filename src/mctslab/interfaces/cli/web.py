"""Commands ``mctslab tree`` (a picture of the top of a search tree) and ``mctslab serve`` (the
web app). Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import click

import mctslab
from mctslab.errors import SpecError

GAME_HELP = "a game spec such as 'nogo(size=9)', 'hex(size=7)' or 'nim(n=20)'"


def _parse_moves(state, text: str) -> None:
    for word in text.replace(",", " ").split():
        state.apply_move(word)


@click.command()
@click.argument("game_spec", metavar="GAME")
@click.option("--agent", "agent_spec", default="mcts(sims=2000)", show_default=True,
              help="an mcts agent spec")  # fmt: skip
@click.option("--moves", default="", help="moves to play first, e.g. 'D4 C3'")
@click.option("--depth", default=2, show_default=True, type=click.IntRange(0, 6),
              help="levels below the root")  # fmt: skip
@click.option("--width", default=4, show_default=True, type=click.IntRange(1, 20),
              help="children shown per node (most visited first)")  # fmt: skip
@click.option("--seed", default=1, show_default=True, type=int, help="random seed")
@click.option("--dot", "fmt", flag_value="dot", default=True, help="Graphviz DOT (default)")
@click.option("--svg", "fmt", flag_value="svg", help="SVG laid out by Graphviz's dot")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="write to this file instead of standard output")  # fmt: skip
def tree(game_spec, agent_spec, moves, depth, width, seed, fmt, output):
    """Search GAME's position once and draw the top of the tree (like the book's Figure 9.4)."""
    from mctslab.agents import make_agent
    from mctslab.interfaces import treeviz

    game = mctslab.load_game(game_spec)
    state = game.new_initial_state()
    _parse_moves(state, moves)
    if state.current_player() < 0:
        raise SpecError("no player is to move after those moves: nothing to search")
    agent = make_agent(agent_spec, game, seed)
    search_tree = treeviz.require_tree(agent)  # before searching: a clear error without a tree
    result = agent.search(state)  # the agent's own search and budget, every key honoured
    title = (
        f"{game.spec.spec_string}\n{agent.spec_string}\n{result.simulations:,} simulations, "
        f"move {state.action_to_string(result.action)}"
    )
    text = treeviz.to_dot(treeviz.tree_top(search_tree, state, depth, width), title)
    if fmt == "svg":
        text = treeviz.to_svg(text)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on (localhost by default: the app has no login)")  # fmt: skip
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--results", "results_dir", default="results", show_default=True,
              type=click.Path(file_okay=False),
              help="folder of results databases, reports and plots to browse")  # fmt: skip
def serve(host, port, results_dir):
    """Play and watch games in the browser: live search view, tree pictures, results. The page
    opens on a board ready to play (NoGo 9x9 against the strongest agent, or your last game)."""
    import uvicorn

    from mctslab.interfaces.web import create_app

    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: listening on {host}: anyone who can reach it can use it", err=True)
    click.echo(f"mctslab web app on http://{host}:{port}/ (Ctrl-C stops it)", err=True)
    uvicorn.run(create_app(results_dir=results_dir), host=host, port=port, log_level="warning")
