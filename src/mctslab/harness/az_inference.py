"""``mctslab bench az-inference``: the AlphaZero network's batched evaluation timed by each
backend of :class:`mctslab.search.az_net.Evaluator` (plain PyTorch, TorchScript, ONNX Runtime, and
ONNX Runtime in 8-bit integers, which approximates the others).

An untrained network of the given shape evaluates batches of positions from uniformly random games
(the search sends 8 leaves a tree per call when it plays, up to 8 per game of a self-play round:
256 for 32 games). Each timing is the mean of ``reps`` calls of the whole ``Evaluator`` call (NumPy
in and out, as the search calls it), ``reps`` set by a first call so that a timing lasts about
``seconds``. The backends are timed in turn, in a rotated order, in each of ``rounds`` rounds, so
that a change of the machine's load falls on all of them alike; each backend's time is the median
of its rounds, and its speed-up the median of plain PyTorch's over its own. Every backend's
priors and values are also compared with plain PyTorch's on the same batches.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

import numpy as np
import torch

from mctslab.games.registry import load_game
from mctslab.search import az_net
from mctslab.search.az import check_game

#: the largest difference from plain PyTorch's priors and values taken as agreement
AGREE = 1e-4


def _seconds_per_call(evaluate: az_net.Evaluator, obs: np.ndarray, mask: np.ndarray, reps: int):
    t0 = time.perf_counter()
    for _ in range(reps):
        evaluate(obs, mask)
    return (time.perf_counter() - t0) / reps


def measure(
    game_spec: str, blocks: int, channels: int, batches: tuple[int, ...], rounds: int,
    seconds: float, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """Every backend that can run here timed on each batch size (module docstring)."""
    game = load_game(game_spec)
    check_game(game)
    load_before = os.getloadavg()[0]
    torch.manual_seed(seed)
    net = az_net.AzNet(az_net.shape_for(game, blocks, channels))
    obs, masks = az_net.random_positions(game, max(batches), seed)
    evaluators, backends, skipped = {}, {}, {}
    for name in (*az_net.BACKENDS, az_net.INT8):
        missing = az_net.backend_missing(name)
        if missing is not None:
            skipped[name] = missing
            continue
        t0 = time.perf_counter()
        evaluators[name] = az_net.Evaluator(net, name, game)
        backends[name] = {"build_seconds": time.perf_counter() - t0}
    for name, evaluate in evaluators.items():  # agreement, and the warm-up calls
        d_priors = d_values = 0.0
        for b in batches:
            for _ in range(3):  # TorchScript's profiling executor optimises after two calls
                priors, values = evaluate(obs[:b], masks[:b])
            ref_priors, ref_values = evaluators["eager"](obs[:b], masks[:b])
            d_priors = max(d_priors, float(np.abs(priors - ref_priors).max()))
            d_values = max(d_values, float(np.abs(values - ref_values).max()))
        backends[name].update(max_diff_priors=d_priors, max_diff_values=d_values,
                              agrees=max(d_priors, d_values) < AGREE,
                              exact=name in az_net.BACKENDS)  # fmt: skip
    names = list(evaluators)
    times: dict[tuple[int, str], list[float]] = {(b, n): [] for b in batches for n in names}
    reps = {}
    for b in batches:
        for n in names:
            once = _seconds_per_call(evaluators[n], obs[:b], masks[:b], 1)
            reps[b, n] = max(1, round(seconds / max(once, 1e-9)))
    for r in range(rounds):
        for b in batches:
            for n in names[r % len(names) :] + names[: r % len(names)]:
                times[b, n].append(_seconds_per_call(evaluators[n], obs[:b], masks[:b], reps[b, n]))
    rows = []
    for b in batches:
        eager = float(np.median(times[b, "eager"]))
        for n in names:
            t = float(np.median(times[b, n]))
            rows.append({"batch": b, "backend": n, "us_per_batch": 1e6 * t,
                         "us_per_position": 1e6 * t / b, "speedup": eager / t})  # fmt: skip
    return {
        "game": game.spec.spec_string,
        "network": dataclasses.asdict(net.shape),
        "threads": torch.get_num_threads(),
        "rounds": rounds,
        "default_backend": az_net.default_backend(),
        "backends": backends,
        "skipped": skipped,
        "rows": rows,
        "load_average": [load_before, os.getloadavg()[0]],
    }
