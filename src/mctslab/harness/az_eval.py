"""Periodic evaluation of an AlphaZero training run (:mod:`mctslab.harness.az_train`).

Every ``eval_every`` iterations the run's network is frozen into ``models/iter-NNNNN.pt`` and
plays two matches with the usual arena (:func:`mctslab.harness.schedule.run_match`,
colour-swapped pairs, seeded per game, from the game's built-in openings when it has a set,
:func:`mctslab.harness.openings.builtin_for`: without them two ``az`` networks at fixed
simulations, both deterministic, play only two distinct games however many are asked), stored
in the run's results database ``eval.sqlite`` (``mctslab results show DIR/eval.sqlite``):
``eval_games`` games of ``az(net=...,sims=eval_sims)`` against ``eval_against`` (a pure MCTS
agent by default), and as many against the best network so far. Each record keeps the
opponent's spec as given and as resolved (``resolved``: a preset's keys as they were then, so
runs of different dates can be compared). A network that scores more
than half against the best becomes the best (the first is best at once). ``eval.png`` plots
the Elo against ``eval_against`` (with its 95% interval) over the training time. A run killed
during an evaluation redoes its iteration on resuming (the checkpoint is written after the
evaluation) and the database resumes the finished games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mctslab.games.base import Game
from mctslab.harness.openings import builtin_for
from mctslab.harness.schedule import run_match
from mctslab.harness.store import ResultsStore

EVAL_DB = "eval.sqlite"
MODELS = "models"
PLOT = "eval.png"


def evaluate(
    out: Path, game: Game, iteration: int, seconds: float, snapshot: Path, best: str | None,
    games: int, sims: int, against: str,
) -> dict[str, Any]:  # fmt: skip
    """The two matches of ``snapshot`` (module docstring); returns the evaluation's record."""
    me = f"az(net={snapshot},sims={sims})"
    entry: dict[str, Any] = {"iteration": iteration, "seconds": seconds, "model": str(snapshot)}
    store = ResultsStore(out / EVAL_DB)
    openings = builtin_for(game)
    try:
        opponents = {"against": against}
        if best is not None:
            opponents["best"] = f"az(net={best},sims={sims})"
        for key, spec in opponents.items():
            result = run_match(
                game, me, spec, games, seed=iteration, store=store,
                label=f"az iteration {iteration} vs {key}", openings=openings,
            )  # fmt: skip
            # the spec as given, and as the match resolved it (a preset's keys at the time)
            run = next(r for r in store.runs() if r.id == result.run_id)
            entry[key] = {"spec": spec, "resolved": run.agent_b, **result.summary.as_dict()}
    finally:
        store.close()
    entry["promoted"] = best is None or entry["best"]["win_rate_a"] > 0.5
    return entry


def plot(evaluations: list[dict[str, Any]], path: Path) -> None:
    """Elo against ``eval_against`` over training time (minutes), with the 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, ys, lo, hi = [], [], [], []
    for e in evaluations:
        elo, (a, b) = e["against"]["elo"], e["against"]["elo_ci95"]
        if elo is None:  # all won or all lost: no finite Elo
            continue
        xs.append(e["seconds"] / 60)
        ys.append(elo)
        lo.append(elo - a if a is not None else 0.0)
        hi.append(b - elo if b is not None else 0.0)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3)
    if evaluations:
        ax.set_title(f"az against {evaluations[-1]['against']['spec']}")
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("Elo (95% interval)")
    ax.axhline(0, color="grey", lw=0.5)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
