"""``mctslab bench 2048``: many 2048 games by one agent at a fixed time per move; and
``mctslab bench coin-nim``: how often a search finds the DP-optimal move in Nim with a coin.

Reports the share of games reaching each tile (``reached``: "2048" -> 0.97 ...), the median and
mean score, and moves per second. Games run in ``--workers`` processes (one game per task, each
with its own seeds, so any game can be replayed with ``--seed``); ``--out FILE`` appends one JSON
line per finished game, so a long run that is interrupted keeps what it finished, and a rerun
with the same agent and budget plays only the seeds the file does not hold yet (so a run is
extended by asking for more games). The game and its summary are
:mod:`mctslab.harness.single_player`'s, which the experiments' ``score`` tables share.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import as_completed

import click

from mctslab.harness.pools import process_pool
from mctslab.harness.single_player import GAME_FIELDS, TILES, play_one, summarise

#: the agent ``bench 2048`` measures without ``--agent``: the strongest MCTS agent for 2048 found
#: here (docs/chance-and-mdp.md): the book's MDP MCTS at depth 2, each leaf valued by the trained
#: n-tuple network (the one ``mctslab train 2048`` writes, else the shipped one), 1,000
#: simulations a move
NETWORK_AGENT = "mdp(d=2,c=200,leaf=network,sims=1000)"
#: the default when there is no network (none trained, the shipped one removed): MDP MCTS at
#: depth 1 (UCB over the moves, c = 1000), each leaf valued by a greedy rollout to the end of
#: the game (the score it still makes)
ROLLOUT_AGENT = "mdp(d=1,c=1000,rollout_depth=0,rollout=greedy)"


def default_agent() -> str:
    """:data:`NETWORK_AGENT` when there is a network (trained or shipped), else
    :data:`ROLLOUT_AGENT`."""
    from mctslab.games.g2048_ntuple import find_network

    return NETWORK_AGENT if find_network() else ROLLOUT_AGENT


def agent_with_time(spec: str, seconds: float) -> str:
    """``spec`` with ``time=seconds`` added when it has a ``time`` key and no budget of its own."""
    from mctslab import specstr
    from mctslab.agents import _AGENTS

    name, raw = specstr.parse(spec)
    cls = _AGENTS.get(name.lower())
    if cls is None or "time" not in cls.Params.model_fields or "sims" in raw or "time" in raw:
        return spec
    raw = dict(raw, time=repr(seconds))
    return specstr.format_spec(name, raw)


def finished_games(path: str, spec: str, seconds: float | None, seeds: list[int]) -> list[dict]:
    """The games of ``path`` (a ``--out`` file) played by ``spec`` at ``seconds`` a move with a
    seed in ``seeds``, the first line of each seed; a missing file holds none. A line that is not
    a JSON object of a game (a write cut short, an edit) is skipped; one warning names them."""
    if not os.path.exists(path):
        return []
    wanted, found, bad = set(seeds), {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                game = {k: row[k] for k in GAME_FIELDS}
                mine = row["agent"] == spec and row["time_per_move"] == seconds
            except (ValueError, KeyError, TypeError):
                bad.append(number)
                continue
            if mine and game["finished"] and game["seed"] in wanted:
                found.setdefault(game["seed"], game)
    if bad:
        where = ", ".join(map(str, bad[:5])) + (", ..." if len(bad) > 5 else "")
        click.echo(
            f"warning: {path}: {len(bad)} line(s) are not games (line {where}); skipped", err=True
        )
    return list(found.values())


def append_line(path: str, row: dict) -> None:
    """Append ``row`` as one JSON line to ``path``, first ending a line a cut-short write left
    open (so a new game never joins a broken one)."""
    with open(path, "a+b") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(row) + "\n").encode())


@click.command("2048")
@click.option("--games", "n_games", default=10, show_default=True, type=click.IntRange(1, 10**6))
@click.option(
    "--time-per-move", "seconds", default=0.1, show_default=True,
    type=click.FloatRange(0.001, 3600),
    help="seconds per move, for an agent with a time key and no budget of its own (otherwise "
    "time_per_move is null in the output)",
)  # fmt: skip
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 256))
@click.option(
    "--agent", "agent_spec",
    help=f"agent spec (default: {NETWORK_AGENT} over the trained or the shipped network, "
    f"else {ROLLOUT_AGENT})",
)  # fmt: skip
@click.option("--seed", default=0, show_default=True, type=int, help="game i uses seed + i")
@click.option(
    "--out", type=click.Path(dir_okay=False),
    help="append one JSON line per game; games of the same agent and budget already in the file "
    "are not played again",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_2048(n_games, seconds, workers, agent_spec, seed, out, as_json):
    """Play 2048 games with one agent at a fixed time per move: tiles reached, scores, speed."""
    import mctslab
    from mctslab.agents import make_agent

    if agent_spec is None:
        agent_spec = default_agent()
        if agent_spec == ROLLOUT_AGENT:
            click.echo(
                "no 2048 network (none trained, none shipped): measuring the rollout agent; "
                "`mctslab train 2048` (about 30 minutes on one core) makes the stronger default",
                err=True,
            )
    spec = agent_with_time(agent_spec, seconds)
    if spec == agent_spec:  # the agent keeps its own budget (sims= or time=) or has no time key
        seconds = None
    make_agent(spec, mctslab.load_game("2048"))  # a bad spec fails before any game starts
    seeds = [seed + i for i in range(n_games)]
    results = finished_games(out, spec, seconds, seeds) if out else []
    if results:
        click.echo(f"{len(results)} of the {n_games} games are already in {out}", err=True)
        kept = {r["seed"] for r in results}
        seeds = [s for s in seeds if s not in kept]

    def done(r: dict) -> None:
        results.append(r)
        if out:
            append_line(out, {"agent": spec, "time_per_move": seconds, **r})
        if not as_json:
            click.echo(
                f"game {len(results)}/{n_games} (seed {r['seed']}): score {r['score']}, "
                f"max tile {r['max_tile']}, {r['moves']} moves",
                err=True,
            )

    if workers == 1:
        for s in seeds:
            done(play_one(spec, s))
    else:
        with process_pool(workers) as pool:
            for fut in as_completed([pool.submit(play_one, spec, s) for s in seeds]):
                done(fut.result())
    summary = summarise(spec, seconds, sorted(results, key=lambda r: r["seed"]))
    if as_json:
        click.echo(json.dumps(summary))
        return
    reached = ", ".join(
        f"{t} {100 * p:.0f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
        for t, p in summary["reached"].items()
        if p > 0
        for lo, hi in [summary["reached_interval"][t]]
    )
    budget = "the agent's own budget" if seconds is None else f"{seconds} s/move"
    click.echo(f"2048 with {spec}, {n_games} games at {budget}")
    click.echo(f"reached (Wilson 95% interval): {reached or f'no game reached {TILES[0]}'}")
    click.echo(
        f"median score {summary['median_score']:,.0f}, mean {summary['mean_score']:,.0f}; "
        f"{summary['moves_per_second']:.1f} moves/s; slowest move "
        f"{summary['slowest_move']:.3f} s; load average {summary['load_average']:.2f}"
    )


# -- coin Nim: does the search find the DP-optimal move? ----------------------------------------
def coin_nim_q(n_max: int, k: int) -> dict[int, list[float]]:
    """``q[n][j - 1]``: the exact expected return (+1 win, -1 loss) for the player who takes
    ``j`` counters from ``n`` in Nim with a coin (the Nim report, section on the coin variant), by
    dynamic programming over ``n``:

    ``q(n, j) = 1`` if ``j = n``; else, with ``m = n - j`` left, tails (1/2) leaves the opponent
    to move at ``m`` and heads (1/2) takes one more, a win for the mover if ``m = 1`` and the
    opponent to move at ``m - 1`` otherwise: ``q = ½ (−V(m)) + ½ (m = 1 ? 1 : −V(m − 1))``,
    with ``V(n) = max_j q(n, j)``.
    """
    value: dict[int, float] = {}
    q: dict[int, list[float]] = {}
    for n in range(1, n_max + 1):
        row = []
        for j in range(1, min(k, n) + 1):
            m = n - j
            if m == 0:
                row.append(1.0)
            else:
                row.append(0.5 * -value[m] + 0.5 * (1.0 if m == 1 else -value[m - 1]))
        q[n] = row
        value[n] = max(row)
    return q


#: the agent ``bench coin-nim`` measures without ``--agent``: MCTS-Solver with exact values
#: through chance nodes and a 1,000-node exact search where the tree grows (docs/chance-and-mdp.md)
COIN_NIM_AGENT = "mcts(exact=1000)"


@click.command("coin-nim")
@click.option(
    "--time-per-move", "seconds", default=0.1, show_default=True,
    type=click.FloatRange(0.001, 3600), help="seconds per move (agents with a time key)",
)  # fmt: skip
@click.option("--agent", "agent_spec", default=COIN_NIM_AGENT, show_default=True)
@click.option("--max-n", default=50, show_default=True, type=click.IntRange(1, 1000))
@click.option("--k", default=3, show_default=True, type=click.IntRange(1, 100))
@click.option("--runs", default=1, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_coin_nim(seconds, agent_spec, max_n, k, runs, as_json):
    """Share of coin-Nim positions n = 1..MAX_N where the agent plays a DP-optimal move (without
    --agent, MCTS-Solver with exact values and a bounded exact search where the tree grows)."""
    import mctslab
    from mctslab.agents import make_agent

    spec = agent_with_time(agent_spec, seconds)
    q = coin_nim_q(max_n, k)
    wrong: dict[int, int] = {}
    total = 0
    for run in range(runs):
        for n in range(1, max_n + 1):
            game = mctslab.load_game(f"nim(n={n},k={k},coin=true)")
            action = make_agent(spec, game, seed=1000 * run + n).step(game.new_initial_state())
            best = max(q[n])
            total += 1
            if q[n][action] < best - 1e-12:
                wrong[n] = wrong.get(n, 0) + 1
    share = 1.0 - sum(wrong.values()) / total
    gaps = {
        n: best - max((x for x in q[n] if x < best - 1e-12), default=best)
        for n, best in ((n, max(q[n])) for n in wrong)
    }
    result = {
        "agent": spec,
        "positions": total,
        "optimal_share": share,
        "wrong": {str(n): c for n, c in sorted(wrong.items())},
        "gap_at_wrong": {str(n): g for n, g in sorted(gaps.items())},
        "load_average": os.getloadavg()[0],
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"coin Nim (k={k}), n = 1..{max_n}, {runs} run(s), {spec}")
    click.echo(f"DP-optimal moves: {100 * share:.1f}% of {total} positions")
    if wrong:
        click.echo(
            "wrong at n (times, value gap to the best move): "
            + ", ".join(f"{n} ({c}, {gaps[n]:.1e})" for n, c in sorted(wrong.items()))
        )
