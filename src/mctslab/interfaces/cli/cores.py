"""How many cores a command uses by default: games in parallel (``--workers`` of match, ladder,
tune, demo and experiments) and threads of one search (``--threads`` of gtp and play)."""

from __future__ import annotations

import os

import click

from mctslab.search.options import BY_KEY

#: the most threads one search takes (the ``workers`` key's upper bound)
MAX_THREADS = int(BY_KEY["workers"].le)


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, which
    ``taskset`` and container limits narrow), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def default_threads() -> int:
    """``--threads`` when not given: every available core, up to :data:`MAX_THREADS`."""
    return min(available_cores(), MAX_THREADS)


def threads_option(f):
    """``--threads N``: the threads of an agent that has them (``mcts``: ``workers=N``, root
    parallelism, Chaslot et al. 2008), unless its spec gives them; one game at a time uses the
    machine's cores this way, where the arena uses them for games in parallel."""
    return click.option(
        "--threads",
        type=click.IntRange(1, MAX_THREADS),
        default=default_threads,
        help="threads of the search: mcts agents get workers=N (root-parallel trees) unless "
        "their spec gives workers; az, gtp and random agents use one "
        f"[default: the cores this process may use, here {default_threads()}]",
    )(f)
