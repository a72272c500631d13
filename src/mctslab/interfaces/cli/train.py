"""``mctslab train`` (``az`` comes from :mod:`mctslab.interfaces.cli.az`, added in
:mod:`mctslab.interfaces.cli.main`).

``mctslab train 2048``: train (or go on training) the 2048 n-tuple network by TD(0)
(:mod:`mctslab.games.g2048_ntuple`) that the ``network`` agent and ``mdp(leaf=network)`` use;
``mctslab train pack-2048``: write a network as a packed file
(:mod:`mctslab.games.g2048_ntuple_pack`), the form shipped with the package."""

from __future__ import annotations

import click


@click.group()
def train():
    """Train a learned evaluation: an AlphaZero network by self-play (az) or 2048's n-tuple
    network (2048, pack-2048)."""


@train.command("2048")
@click.option(
    "--games", default=300_000, show_default=True, type=click.IntRange(1, 10**9),
    help="training games to play (added to those the file has had)",
)  # fmt: skip
@click.option(
    "--alpha", default=0.1, show_default=True, type=click.FloatRange(0, 1, min_open=True),
    help="TD(0) step size, split over the 32 features",
)  # fmt: skip
@click.option(
    "--seed", default=0, show_default=True, type=int,
    help="seed of the spawns (a resumed run also mixes in the games already played)",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False),
    help="the network file (default: the cache folder's, where agents look)",
)  # fmt: skip
@click.option("--fresh", is_flag=True, help="start from zero even if the file exists")
def train_2048(games, alpha, seed, out, fresh):
    """TD(0) afterstate learning of the 4x6-tuple network, the network playing greedily; saves
    every 10,000 games, so an interrupted run keeps most of its work and a rerun goes on."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from mctslab.games import g2048_ntuple as nt
    from mctslab.harness.progress import PlainProgress

    path = out or str(nt.default_path())
    columns = (
        TextColumn("[bold]training"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[stats]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns) as bar:
        task = bar.add_task("train", total=games, stats="")
        plain = PlainProgress(bar.console, "training", games)

        def report(row: dict) -> None:
            stats = (
                f"last 1,000: mean {row['mean_score']:,.0f}, 2048 {row['reached_2048']:.0%}, "
                f"4096 {row['reached_4096']:.0%}"
            )
            bar.update(task, completed=row["this_run"], stats=stats)
            plain.update(row["this_run"], stats)

        record = nt.train_network(
            games, path, alpha=alpha, seed=seed, resume=not fresh, report=report
        )
    click.echo(f"{path}: {record['games']:,} training games in all")


@train.command("pack-2048")
@click.option(
    "--network", type=click.Path(dir_okay=False),
    help="the network to pack (default: the one `mctslab train 2048` writes)",
)  # fmt: skip
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="the packed file")
def pack_2048(network, out):
    """Pack a 2048 n-tuple network: its zeros as a bit mask, each other weight as a code of a
    1023-level codebook per table, compressed by LZMA (268 MB of float32 to about 14 MB)."""
    from pathlib import Path

    import numpy as np

    from mctslab.games import g2048_ntuple as nt
    from mctslab.games import g2048_ntuple_pack as pack

    w = nt.load(network or nt.default_path())
    pack.write(w, out)
    err = np.abs(pack.read(out, w.shape) - w)
    click.echo(
        f"{out}: {Path(out).stat().st_size / 1e6:.1f} MB, {np.count_nonzero(w):,} non-zero "
        f"weights, largest error {err.max():.3g} (mean {err[w != 0].mean():.3g})"
    )
