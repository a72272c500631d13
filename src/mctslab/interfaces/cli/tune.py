"""``mctslab tune``: SPSA tuning of an agent's numeric keys (:mod:`mctslab.harness.tune`), every
game stored. Registered in :mod:`mctslab.interfaces.cli.main`."""

from __future__ import annotations

import hashlib
import json
import math
import shlex
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mctslab.harness import tune as tn
from mctslab.interfaces.cli.arena import _backend_options, _workers, openings_option

console = Console()


@click.command()
@click.argument("game_spec", metavar="GAME")
@click.argument("agent", metavar="AGENT")
@click.option(
    "--param", "params", multiple=True, required=True, metavar="NAME=LO..HI[@START][:log|:lin]",
    help="a numeric key of AGENT to tune, its range and start (default: the middle of the range, "
    "geometric on a log scale); repeat for each key. A key with LO > 0 and HI/LO >= 20 (c, "
    "rave_k) is tuned as log(value) unless :lin is given",
)  # fmt: skip
@click.option(
    "--games", "n_games", default=200, show_default=True, type=click.IntRange(2, 10**7),
    help="games to play, two per SPSA iteration (even); the first run's count plans the "
    "schedule, a rerun with more games continues it",
)  # fmt: skip
@click.option(
    "--against", default="", metavar="AGENT",
    help="θ+ and θ− each play one game against this fixed agent (default: θ+ plays θ− in a "
    "colour-swapped pair, as Fishtest does: less noise per game)",
)  # fmt: skip
@click.option(
    "--db", default=None,
    help="results database (default: results/tune-GAME-HASH.sqlite from the command); a rerun "
    "of the same command resumes from it, another tuning command is refused",
)  # fmt: skip
@_backend_options
@click.option("--seed", default=0, show_default=True, type=int, help="run seed")
@click.option(
    "--batch", default=1, show_default=True, type=click.IntRange(1, 10**5),
    help="iterations played with the same θ before their updates (Fishtest's batching); "
    "--workers plays a batch's games concurrently and never changes the result",
)  # fmt: skip
@click.option(
    "--c-end", default=tn.C_END, show_default=True, type=click.FloatRange(0, 1, min_open=True),
    help="Fishtest's c_end, the perturbation at the end, as a fraction of each key's range on "
    "its tuned scale",
)  # fmt: skip
@click.option(
    "--r-end", default=tn.R_END, show_default=True, type=click.FloatRange(0, min_open=True),
    help="Fishtest's r_end, the learning rate at the end, for a range of 1 on the tuned scale",
)  # fmt: skip
@openings_option
@click.option("--plot", default=None, help="PNG of the trajectory (default: beside the database)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def tune(
    game_spec,
    agent,
    params,
    n_games,
    against,
    db,
    workers,
    backend,
    address,
    seed,
    batch,
    c_end,
    r_end,
    openings,
    plot,
    as_json,
):
    """Tune numeric keys of AGENT on GAME by SPSA (Spall 1998, as Fishtest tunes Stockfish).

    Each iteration plays θ+ = θ + c_k·Δ against θ− = θ − c_k·Δ (Δ = ±1 per key at random) in a
    colour-swapped pair and moves θ by a_k/c_k · (θ+'s wins − losses) · Δ, clipped to the
    ranges; c_k and a_k shrink as Fishtest's schedule says (α = 0.602, γ = 0.101, A = 10% of the
    iterations). Every game goes to the results database, every iteration's θ, c_k, a_k, Δ and
    result to its table tune_steps; seeds derive from the run seed and the iteration, so a rerun
    of the same command (after Ctrl-C, say) continues with the same iterates. With --openings,
    iteration k's pair starts from opening k (cycling). Prints the tuned
    agent as a spec string and the trajectory, and writes a plot (docs/experiments.md, Tuning).
    Example:

    \b
      mctslab tune 'nogo(size=7)' 'mcts(preset=rave,sims=1000)' --param c=0.05..2
      --param rave_k=10..3000 --games 2000
    """
    from mctslab.harness.store import ResultsStore

    identity = [game_spec, agent, *[f"--param={p}" for p in params]]
    if against:
        identity.append(f"--against={against}")
    identity += [f"--seed={seed}", f"--batch={batch}", f"--c-end={c_end}", f"--r-end={r_end}"]
    if openings:
        identity.append(f"--openings={openings}")
    command = "mctslab tune " + shlex.join(identity)
    if db is None:
        digest = hashlib.sha256(command.encode()).hexdigest()[:10]
        name = "".join(ch for ch in game_spec.split("(")[0] if ch.isalnum()) or "game"
        db = f"results/tune-{name}-{digest}.sqlite"
    plot = plot or str(Path(db).with_suffix(".png"))
    with ResultsStore(db) as store:
        result = tn.run_tune(
            game_spec,
            agent,
            params,
            n_games,
            store,
            against=against,
            seed=seed,
            c_end=c_end,
            r_end=r_end,
            batch=batch,
            workers=_workers(workers),
            backend=backend,
            address=address,
            progress=not as_json,
            command=command,
            openings=openings,
        )
    if result.steps:
        tn.write_plot(result, plot)
    if as_json:
        click.echo(json.dumps({**result.as_dict(), "plot": plot if result.steps else None}))
    else:
        print_tune(result, plot)
    if result.interrupted:
        click.echo(
            f"\ninterrupted after {len(result.steps)} iterations, stored in {db}; rerun the same "
            "command to resume",
            err=True,
        )
        sys.exit(130)


def print_tune(result: tn.TuneResult, plot: str) -> None:
    """The trajectory at about ten iterations, the tuned spec string and where things are."""
    _, values, running = tn.trajectory(result)
    n = len(result.steps)
    shown = sorted({round(i * n / 10) for i in range(11)})
    vs = "opponent" if result.against else "θ−"
    table = Table(title=f"SPSA on {result.game}: θ by iteration (score: θ+ against {vs})")
    for col in ("iteration", *(p.name for p in result.params), "c_k (tuned scale)", "score so far"):
        table.add_column(col, justify="right")
    for k in shown:
        c_k = result.steps[k].c_k if k < n else result.schedule.gains(k)[1].tolist()
        table.add_row(
            str(k),
            *(p.format(values[p.name][k]) for p in result.params),
            " ".join(f"{c:.3g}" for c in c_k),
            "" if math.isnan(running[k]) else f"{running[k]:.3f}",
        )
    console.print(table)
    click.echo(f"tuned: {result.spec}")
    notes = [f"{n} iterations, {len(result.scores)} games in {result.db}"]
    if result.resumed:
        notes.append(f"{result.resumed} iterations resumed")
    if result.schedule.iterations != n:
        notes.append(f"schedule planned for {result.schedule.iterations} iterations")
    if n:
        notes.append(f"plot: {plot}")
    click.echo("; ".join(notes))
