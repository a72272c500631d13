"""OpenSpiel's C++ MCTS as the search reference, measured in the same run as ours.

Source: google-deepmind/open_spiel, ``open_spiel/algorithms/mcts.{h,cc}``, through the
``pyspiel`` bindings of the ``open_spiel==2.0.2`` wheel (``pip install 'mctslab[bench]'``). The
bot is ``pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), uct_c, max_simulations,
max_memory_mb, solve, seed, verbose)``: plain UCT (``Q + c·sqrt(ln N / n)``), one uniform random
rollout per simulation, all children created when a node is first expanded (shuffled), no RAVE, no
tree reuse. One :meth:`step` from the initial state is one search; it runs entirely in C++.

Bytes per node (:data:`SEARCH_NODE_BYTES`). ``SearchNode`` in ``mcts.h`` (2.0.2) is::

    Action action;                   // int64_t           8 bytes, offset  0
    double prior;                    //                   8        offset  8
    Player player;                   // int               4        offset 16
    int explore_count;               //                   4        offset 20
    double total_reward;             //                   8        offset 24
    std::vector<double> outcome;     // 3 pointers       24        offset 32
    std::vector<SearchNode> children;  // 3 pointers     24        offset 56

so ``sizeof(SearchNode) == 80`` on x86-64 Linux (LP64, libstdc++; no padding, alignment 8) —
the figure OpenSpiel itself uses (``MemoryUsedMb = nodes * sizeof(SearchNode)``). Nodes live by
value in their parent's ``children`` vector, reserved to the exact number of legal moves, so
each expansion is one heap block of ``80 * branching`` bytes plus the allocator's ~16-byte
header; ``outcome`` allocates (2 doubles + header) only on solved nodes, and the ``State`` clones
are freed after each simulation. Hence ~80 bytes per node, and, since a whole child array is
created per expansion, ~80 x branching bytes per simulation that expands a node (Hex 11x11: up
to ~9.7 kB).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time

from mctslab.errors import MctslabError, SpecError

#: sizeof(open_spiel::algorithms::SearchNode) on x86-64 Linux; see the module docstring
SEARCH_NODE_BYTES = 80
#: the games our benchmarks compare against
GAMES = ("hex(board_size=11)", "hex(board_size=7)", "go(board_size=9)")
#: OpenSpiel's own default (``open_spiel/examples/mcts.cc``: ``--uct_c=2``)
DEFAULT_UCT_C = 2.0

_VERBOSE_LINE = re.compile(r"Finished (\d+) sims in ([\d.]+) secs.*tree size: (\d+) nodes")


class OpenSpielNotInstalledError(MctslabError, ImportError):
    """``pyspiel`` (the ``open_spiel`` package) is not installed."""


def _pyspiel():
    try:
        import pyspiel
    except ImportError as exc:
        raise OpenSpielNotInstalledError(
            "OpenSpiel is not installed; the search reference needs it: "
            "pip install 'mctslab[bench]'  (open_spiel==2.0.2)"
        ) from exc
    return pyspiel


def _bot(pyspiel, game, sims: int, seed: int, uct_c: float, max_memory_mb: int, verbose: bool):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, uct_c, sims, max_memory_mb, False, seed, verbose)


def _count_nodes(pyspiel, game, sims, seed, uct_c, max_memory_mb) -> int | None:
    """Tree size as OpenSpiel counts it, from a verbose rerun of the same seeded (deterministic)
    search: its ``std::cerr`` line "Finished N sims ... tree size: M nodes" is captured at the
    file-descriptor level."""
    bot = _bot(pyspiel, game, sims, seed, uct_c, max_memory_mb, verbose=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            bot.step(game.new_initial_state())
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    m = _VERBOSE_LINE.search(text)
    return int(m.group(3)) if m else None


def openspiel_search(
    game: str,
    sims: int,
    seed: int = 0,
    *,
    uct_c: float = DEFAULT_UCT_C,
    max_memory_mb: int = 4096,
    count_nodes: bool = False,
) -> dict:
    """One ``pyspiel.MCTSBot.step`` of ``sims`` simulations from the initial state of ``game``.

    ``game`` is an OpenSpiel game string (see :data:`GAMES`). ``max_memory_mb`` is OpenSpiel's
    tree cap (when reached it prunes little-visited subtrees); the default is large enough that
    10,000 simulations never reach it on these games. The timing is wall-clock around ``step``
    (search plus choosing the best child, all in C++).

    Returns ``game``, ``sims``, ``seconds``, ``sims_per_second``, ``action`` (chosen, as a
    string), ``bytes_per_node`` (:data:`SEARCH_NODE_BYTES`) and, with ``count_nodes``, ``nodes``
    (OpenSpiel's tree size, from a second, identical seeded search) and ``tree_bytes``
    (``nodes * bytes_per_node``); otherwise those two are None.
    """
    pyspiel = _pyspiel()
    if sims < 2:
        raise SpecError("openspiel_search: sims must be >= 2 (OpenSpiel samples the prior below)")
    try:
        g = pyspiel.load_game(game)
    except pyspiel.SpielError as exc:
        raise SpecError(f"OpenSpiel cannot load {game!r}: {exc}") from exc
    bot = _bot(pyspiel, g, sims, seed, uct_c, max_memory_mb, verbose=False)
    state = g.new_initial_state()
    t = time.perf_counter()
    action = bot.step(state)
    seconds = time.perf_counter() - t
    nodes = _count_nodes(pyspiel, g, sims, seed, uct_c, max_memory_mb) if count_nodes else None
    return {
        "game": game,
        "sims": sims,
        "seconds": seconds,
        "sims_per_second": sims / seconds,
        "action": state.action_to_string(state.current_player(), action),
        "bytes_per_node": SEARCH_NODE_BYTES,
        "nodes": nodes,
        "tree_bytes": None if nodes is None else nodes * SEARCH_NODE_BYTES,
        "open_spiel_version": _version(),
    }


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("open_spiel")
    except PackageNotFoundError:
        return None
