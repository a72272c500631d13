"""``mctslab train az`` (AlphaZero self-play training, :mod:`mctslab.harness.az_train`),
``mctslab bench az`` (its self-play throughput), ``mctslab bench az-inference`` (the network's
evaluation by each backend, :mod:`mctslab.harness.az_inference`) and ``mctslab bench connect-four``
(value-keeping moves on the solved positions, :mod:`mctslab.harness.connect_four_positions`)."""

from __future__ import annotations

import json
import os

import click

from mctslab.errors import MctslabError
from mctslab.harness.az_config import TrainConfig, default


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError:
        raise MctslabError("mctslab train az needs PyTorch: pip install -e '.[az]'") from None


def config_option(field: str, *param_decls: str, **attrs):
    """A click option whose default, shown in ``--help``, is :class:`TrainConfig`'s field
    ``field`` (declared once, there)."""
    return click.option(*param_decls, default=default(field), show_default=True, **attrs)


def _apply(fn, options):
    for option in reversed(options):
        fn = option(fn)
    return fn


def net_options(fn):
    """The network's size, shared by ``train az``, ``bench az`` and ``bench az-inference``."""
    return _apply(fn, (
        config_option("blocks", "--blocks", type=click.IntRange(0, 40),
                      help="residual blocks of the network"),
        config_option("channels", "--channels", type=click.IntRange(1, 512),
                      help="channels per block"),
    ))  # fmt: skip


def self_play_options(fn):
    """The options of a self-play set-up, shared by ``train az`` (where they set a new run; a
    resumed run keeps its own) and ``bench az``: network size, simulations, games together,
    PUCT or Gumbel."""
    return net_options(_apply(fn, (
        config_option("sims", "--sims", type=click.IntRange(2, 100_000),
                      help="self-play simulations per move"),
        config_option("games", "--games", type=click.IntRange(1, 100_000),
                      help="self-play games played together (an iteration's)"),
        click.option("--gumbel", is_flag=True,
                     help="Gumbel AlphaZero self-play with completed-Q policy targets"),
        click.option("--int8/--no-int8", default=None,
                     help="self-play evaluates the network in 8-bit integers, az(int8=true)'s "
                     "backend calibrated on each new network (CPU only; 2.3x the positions "
                     "a second on a CPU with 8-bit dot products (VNNI), 0.86x on one without: "
                     "mctslab bench az --int8 tells); a resumed run keeps its own unless given  "
                     "[default: floats]"),
    )))  # fmt: skip


@click.command("az")
@click.argument("game_spec", metavar="GAME")
@click.option(
    "--minutes",
    type=click.FloatRange(0, 10_000, min_open=True),
    help="train this many more minutes (stops after the iteration running then)",
)
@click.option(
    "--steps",
    type=click.IntRange(1, 10**9),
    help="train until this many learner steps in all (a resumed run counts its own)",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="self-play processes",
)
@click.option(
    "--out",
    default="az-run",
    show_default=True,
    type=click.Path(file_okay=False),
    help="the run's folder: checkpoint.pt (resumed when present) and model.pt",
)
@self_play_options
@config_option(
    "steps", "--learn-steps",
    type=click.IntRange(1, 10**6), help="learner steps an iteration (a new run only)",
)  # fmt: skip
@config_option(
    "batch", "--batch", type=click.IntRange(1, 65_536),
    help="samples in one learner step's minibatch (a new run only)",
)  # fmt: skip
@config_option(
    "buffer", "--buffer", type=click.IntRange(1, 10**8),
    help="the replay buffer: the last this many samples (a new run only)",
)  # fmt: skip
@config_option(
    "temp_moves", "--temp-moves", type=click.IntRange(0, 10_000),
    help="the first this many moves of a self-play game are drawn in proportion to the "
    "visits, the later ones are the most visited (not with --gumbel, whose root draws each "
    "move; a new run only)",
)  # fmt: skip
@click.option(
    "--lr", type=click.FloatRange(0, 1, min_open=True),
    help=f"Adam's learning rate [new run: {default('lr')}]; given to a resumed run, its "
    "rate from now on (recorded in the card's lr_schedule)",
)  # fmt: skip
@config_option(
    "value_mix", "--value-mix", type=click.FloatRange(0, 1),
    help="the value target (1 - MIX) z + MIX q: the game's outcome z mixed with the search's "
    "value q of the position (0.5: Connect Four's 'average of z and q'; a new run only)",
)  # fmt: skip
@config_option(
    "fast_sims", "--fast-sims", type=click.IntRange(0, 100_000),
    help="playout cap randomization (KataGo): moves not searched in full get this many "
    "simulations, no root noise, and no sample; 0: every move in full (a new run only)",
)  # fmt: skip
@config_option(
    "full_share", "--full-share", type=click.FloatRange(0, 1, min_open=True),
    help="with --fast-sims: the share of moves searched in full (a new run only)",
)  # fmt: skip
@config_option(
    "random_openings", "--random-openings", type=click.FloatRange(0, 1),
    help="the share of self-play games that begin with 1 to --random-moves uniformly random "
    "moves, which give no sample (a new run only)",
)  # fmt: skip
@config_option(
    "random_moves", "--random-moves", type=click.IntRange(1, 1000),
    help="with --random-openings: the most random moves a game begins with (a new run only)",
)  # fmt: skip
@click.option(
    "--expert", default=default("expert"), metavar="AGENT",
    help="Expert Iteration's start: this agent (e.g. 'mcts(preset=strong,sims=2000)') plays "
    "the games of the first --expert-iterations iterations against itself, its root visits "
    "the policy targets (a new run only; kept as resolved then)",
)  # fmt: skip
@click.option(
    "--expert-iterations", type=click.IntRange(0, 10**9),
    help="how many first iterations the --expert plays; given to a resumed run, replaces its "
    f"number  [new run: {default('expert_iterations')}]",
)  # fmt: skip
@click.option(
    "--lr-drop", "lr_drops", multiple=True, type=click.IntRange(1, 10**9),
    help="divide the learning rate by 10 from this iteration on (repeat for more drops); "
    "given to a resumed run, replaces the drops still ahead of it",
)  # fmt: skip
@click.option(
    "--keep-every", default=0, show_default=True, type=click.IntRange(0, 10**9), metavar="K",
    help="also keep the network of every K-th iteration in DIR/models/iter-N.pt without "
    "evaluating it, e.g. to benchmark it later (0: only the evaluated ones; like --workers, "
    "for this invocation)",
)  # fmt: skip
@config_option(
    "eval_games",
    "--eval-games",
    type=click.IntRange(0, 100_000),
    help="games per evaluation match, stored in DIR/eval.sqlite; 0: no evaluation",
)
@config_option(
    "eval_every", "--eval-every", type=click.IntRange(1, 10**6),
    help="iterations between two evaluations",
)  # fmt: skip
@config_option(
    "eval_sims", "--eval-sims", type=click.IntRange(1, 10**6),
    help="simulations a move of the evaluated networks",
)  # fmt: skip
@config_option(
    "eval_against", "--eval-against",
    help="the agent each network is measured against (besides the best network so far)",
)  # fmt: skip
@config_option(
    "reuse",
    "--reuse/--no-reuse",
    help="self-play keeps the subtree of the move played for the next search, root noise "
    "added again (not with --gumbel; a new run only)",
)
@click.option(
    "--overlap/--no-overlap",
    default=None,
    help="the worker processes play the next iteration's games while the learner learns, "
    "with the network one iteration behind (--workers 1 on 2 cores); a resumed run keeps "
    "its own unless given  [new run: no overlap]",
)
@config_option(
    "seed",
    "--seed",
    type=click.IntRange(0, 2**62),
    help="random seed (a new run only)",
)
def train_az(
    game_spec, minutes, steps, workers, out, blocks, channels, sims, games, learn_steps, batch,
    buffer, temp_moves, lr, value_mix, fast_sims, full_share, random_openings, random_moves,
    expert, expert_iterations, lr_drops, keep_every, eval_games, eval_every, eval_sims,
    eval_against, gumbel, int8, reuse, overlap, seed,
):  # fmt: skip
    """AlphaZero training by self-play for GAME (two players, no chance): self-play games,
    a replay buffer, a learner; after each iteration the checkpoint is written atomically,
    so a killed run resumes from it, keeping the settings it started with (all but --minutes,
    --steps, --workers, --lr, --lr-drop, --overlap, --int8, --expert-iterations and
    --keep-every). Without --minutes or --steps it trains 10 minutes."""
    _require_torch()
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from mctslab.harness.az_train import MODEL, Trainer
    from mctslab.harness.progress import PlainProgress

    if minutes is None and steps is None:
        minutes = 10.0
    if fast_sims and (gumbel or fast_sims >= sims):
        raise click.BadParameter(
            f"{fast_sims} quick simulations need PUCT self-play (no --gumbel) and fewer than "
            f"--sims ({sims})", param_hint="--fast-sims",
        )  # fmt: skip
    if expert and not expert_iterations:
        raise click.BadParameter(
            "an expert needs --expert-iterations N (N > 0): the iterations whose games it plays",
            param_hint="--expert",
        )
    cfg = TrainConfig(
        game=game_spec,
        blocks=blocks,
        channels=channels,
        sims=sims,
        games=games,
        steps=learn_steps,
        batch=batch,
        buffer=buffer,
        temp_moves=temp_moves,
        lr_drops=tuple(sorted(set(lr_drops))),
        value_mix=value_mix,
        fast_sims=fast_sims,
        full_share=full_share,
        random_openings=random_openings,
        random_moves=random_moves,
        expert=expert,
        gumbel=gumbel,
        reuse=reuse,
        seed=seed,
        eval_games=eval_games,
        eval_every=eval_every,
        eval_sims=eval_sims,
        eval_against=eval_against,
    )
    trainer = Trainer(
        cfg,
        out,
        workers=workers,
        lr=lr,
        overlap=overlap,
        lr_drops=cfg.lr_drops or None,
        int8=int8,
        expert_iterations=expert_iterations,
        keep_every=keep_every,
    )
    if trainer.iteration:
        click.echo(
            f"resuming {out}: iteration {trainer.iteration}, {trainer.games:,} games, "
            f"{trainer.steps:,} steps"
        )
    total = steps if steps is not None else None
    columns = (
        TextColumn("[bold]az"),
        BarColumn(),
        TextColumn("{task.fields[stats]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns) as bar:
        task = bar.add_task("train", total=total, completed=trainer.steps, stats="")
        plain = PlainProgress(bar.console, "az", total)

        def report(t: Trainer) -> None:
            last = t.last
            played_by = " (the expert's)" if t.expert_plays(t.iteration - 1) else ""
            stats = (
                f"it {t.iteration}, {t.games:,} games{played_by}, {t.steps:,} steps, "
                f"{last['positions_per_second']:,.0f} pos/s, policy loss "
                f"{last['policy_loss']:.3f}, value loss {last['value_loss']:.3f}"
            )
            if t.evaluations and t.evaluations[-1]["iteration"] == t.iteration:
                score = t.evaluations[-1]["against"]["win_rate_a"]
                stats += f", {score:.0%} vs {t.cfg.eval_against}"
            bar.update(task, completed=t.steps, stats=stats)
            plain.update(t.steps, stats)

        trainer.run(steps=steps, minutes=minutes, report=report)
    click.echo(f"{out}/{MODEL}: play it with az(net={out}/{MODEL})")


@click.command("connect-four")
@click.argument("agent_spec", metavar="AGENT")
@click.option(
    "--positions",
    default=1000,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="the first N positions of the shipped set",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_connect_four(agent_spec, positions, seed, as_json):
    """How often AGENT plays a value-keeping move (by the bitbully solver) in the shipped set of
    Connect Four positions where some move loses value; with its Wilson 95% interval."""
    import mctslab
    from mctslab.agents import make_agent
    from mctslab.harness import connect_four_positions as c4

    agent = make_agent(agent_spec, mctslab.load_game("connect_four"), seed=seed)
    result = {"agent": agent.spec_string, **c4.keep_rate(agent, c4.load()[:positions])}
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(
        f"{result['agent']}: kept the value in {result['kept']} of {result['positions']} "
        f"positions ({result['rate']:.1%}, Wilson 95% [{result['wilson_low']:.1%}, "
        f"{result['wilson_high']:.1%}])"
    )


@click.command("az")
@click.argument("game_spec", metavar="GAME")
@self_play_options
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_az(game_spec, blocks, channels, sims, games, gumbel, int8, workers, as_json):
    """Self-play throughput of mctslab train az: positions and simulations per second of one
    round of GAMES games with an untrained network (after a warm-up game)."""
    _require_torch()
    from mctslab.harness.az_train import throughput

    cfg = TrainConfig(
        game=game_spec,
        blocks=blocks,
        channels=channels,
        sims=sims,
        games=games,
        gumbel=gumbel,
        int8=bool(int8),
    )
    result = throughput(cfg, workers)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(
        f"{result['game']}: {result['positions']} positions in {result['seconds']:.1f} s, "
        f"{result['positions_per_second']:,.0f} positions/s, "
        f"{result['simulations_per_second']:,.0f} simulations/s ({sims} sims a move"
        f"{', Gumbel' if gumbel else ''}{', int8' if int8 else ''}, "
        f"{workers} worker(s), {blocks} blocks x {channels} channels)"
    )


@click.command("az-inference")
@click.argument("game_spec", metavar="GAME", default="connect_four")
@net_options
@click.option(
    "--batch",
    "batches",
    multiple=True,
    default=(1, 8, 64, 256),
    show_default=True,
    type=click.IntRange(1, 4096),
    help="a batch size to time (repeat the option)",
)
@click.option(
    "--rounds",
    default=5,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="interleaved rounds (each backend's time is the median)",
)
@click.option(
    "--seconds",
    default=0.2,
    show_default=True,
    type=click.FloatRange(0.001, 60),
    help="about this long for each timing",
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def bench_az_inference(game_spec, blocks, channels, batches, rounds, seconds, as_json):
    """Time the az network's batched evaluation (one thread, an untrained network, positions of
    random GAME games; GAME defaults to connect_four) by each backend: plain PyTorch (eager),
    TorchScript, ONNX Runtime, and ONNX Runtime in 8-bit integers (az(int8=true)); microseconds
    per batch and per position, the speed-up against eager, and each backend's largest
    difference from eager's priors and values."""
    _require_torch()
    from rich.console import Console
    from rich.table import Table

    from mctslab.harness.az_inference import AGREE, measure

    r = measure(game_spec, blocks, channels, tuple(sorted(set(batches))), rounds, seconds)
    if as_json:
        click.echo(json.dumps(r))
        return
    net = r["network"]
    click.echo(
        f"{r['game']}: {net['blocks']} blocks x {net['channels']} channels, {r['threads']} "
        f"thread, medians of {rounds} interleaved rounds"
    )
    table = Table()
    for col in ("batch", "backend", "us/batch", "us/position", "vs eager"):
        table.add_column(col, justify="left" if col == "backend" else "right")
    for row in r["rows"]:
        table.add_row(str(row["batch"]), row["backend"], f"{row['us_per_batch']:,.0f}",
                      f"{row['us_per_position']:,.1f}", f"{row['speedup']:.2f}x")  # fmt: skip
    (Console() if Console().is_terminal else Console(width=130)).print(table)
    for name, b in list(r["backends"].items())[1:]:  # eager first, the reference
        verdict = f"agree, < {AGREE:g}" if b["agrees"] else f"DIFFER, >= {AGREE:g}"
        verdict += "" if b["exact"] else "; approximate by design: 8-bit integers"
        click.echo(
            f"{name}: made in {b['build_seconds']:.2f} s; largest difference from eager: priors "
            f"{b['max_diff_priors']:.1e}, values {b['max_diff_values']:.1e} ({verdict})"
        )
    for name, why in r["skipped"].items():
        click.echo(f"{name}: skipped: {why}")
    before, after = r["load_average"]
    click.echo(
        f"the az Evaluator's backend here: {r['default_backend']}; load average {before:.2f} "
        f"at the start, {after:.2f} at the end ({os.cpu_count()} cores)"
    )
