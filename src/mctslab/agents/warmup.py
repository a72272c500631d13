"""Compiling an agent's search before its first move, and saying so when a first move will wait.

An agent's search is compiled machine code that Numba caches on disk, in a folder named by a hash
of the sources (:mod:`mctslab.kernels.cache`). With that folder empty, after installing or
upgrading, making one of the strong agents compiles for one to two minutes (`mctslab bench
startup "go(size=9)" --agent "mcts(preset=strong,sims=1)"`: 96 s for NoGo 9x9, 84 s for Go 9x9);
later processes load the code in about a second. An interface that makes an agent (a GTP engine a
GUI starts, ``mctslab play``, a match's first game) would otherwise wait in silence.

Each agent made to the end here (:func:`build_marked`) leaves a marker file in the cache folder,
named by the game's name and the agent's name (:func:`compiled_key`); :func:`is_warm` reads it,
so an interface can say before the wait that a wait is coming (:func:`announce`). The marker is a
hint, never a condition: a missing one only adds a message, and a wiped cache takes its markers
with it. ``mctslab compile`` runs :func:`warm` for each game's default agents, so that no first
move waits.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mctslab import specstr
from mctslab.agents import Agent, build, resolve_for
from mctslab.games.base import Game
from mctslab.kernels import cache
from mctslab.search.budget import Budget

#: the agents whose compiled code ``mctslab compile`` prepares by default, for every game
DEFAULT_AGENTS = ("best", "mcts(preset=strong)")
#: simulations of the search that :func:`warm` runs once the agent is made
WARM_SIMULATIONS = 2


def compiled_key(spec_string: str, game: Game) -> str:
    """What decides an agent's compiled code: the game's name and the agent's name. Every
    configuration of an agent shares its game's specialised template (its keys are read at run
    time): on an empty cache ``mcts(preset=strong)`` took 56 s on Hex 5x5, then ``mcts()``,
    ``mcts(formula=ucb1tuned)``, ``mcts(preset=decisive)`` and ``mcts(lgrf=true,pool=5)`` in the
    same process 0.0-0.1 s each."""
    return f"{game.NAME}:{specstr.parse(spec_string)[0]}"


def _marker(spec_string: str, game: Game) -> Path:
    folder = Path(os.environ.get("NUMBA_CACHE_DIR") or cache.compiled_dir()) / "mctslab-warm"
    digest = hashlib.sha256(compiled_key(spec_string, game).encode()).hexdigest()[:20]
    return folder / digest


def is_warm(spec_string: str, game: Game) -> bool:
    """Whether an agent of this name was made to the end on ``game`` with this cache."""
    return _marker(spec_string, game).exists()


def mark_warm(spec_string: str, game: Game) -> None:
    """Leave the marker of :func:`is_warm` (nothing when the cache folder cannot be written)."""
    path = _marker(spec_string, game)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(compiled_key(spec_string, game) + "\n")
    except OSError:
        pass


def to_stderr(message: str) -> None:
    """A line for the user on stderr, flushed: the terminal of ``play``, ``match`` and ``serve``,
    the engine console of a GUI running ``gtp`` (whose stdout carries only protocol replies)."""
    print(message, file=sys.stderr, flush=True)


def cold_notice(spec_string: str) -> str:
    """The message an interface prints before making an agent that :func:`is_warm` says is not."""
    return (
        f"mctslab: compiling the search of {spec_string} for this installation (once; up to two "
        "minutes; `mctslab compile` does it ahead of time)"
    )


Resolved = tuple[type[Agent], Any, str]


#: the compiled keys announced in this process (a GTP engine remakes its agent at each
#: ``clear_board``, maybe while the first one still compiles: one notice is enough)
_announced: set[str] = set()


def announce(
    spec: str,
    game: Game,
    threads: int | None = None,
    say: Callable[[str], None] | None = to_stderr,
) -> Resolved:
    """:func:`~mctslab.agents.resolve_for` (nothing is compiled yet), telling ``say`` (stderr
    unless given; None: nobody) :func:`cold_notice` when the agent compiles a search
    (``COMPILED``) that is not warm, once a process."""
    resolved = resolve_for(spec, game, threads)
    key = compiled_key(resolved[2], game)
    if say is None or not resolved[0].COMPILED or key in _announced:
        return resolved
    if not is_warm(resolved[2], game):
        _announced.add(key)
        say(cold_notice(resolved[2]))
    return resolved


def build_marked(resolved: Resolved, game: Game, seed: int | None = None) -> Agent:
    """:func:`~mctslab.agents.build` (where the search compiles), then the marker of
    :func:`is_warm`."""
    agent = build(*resolved, game, seed)
    mark_warm(resolved[2], game)
    return agent


def make_announced(
    spec: str,
    game: Game,
    seed: int | None = None,
    threads: int | None = None,
    say: Callable[[str], None] | None = to_stderr,
) -> Agent:
    """:func:`~mctslab.agents.make_agent` with :func:`announce` before and the marker after."""
    return build_marked(announce(spec, game, threads, say), game, seed)


class PendingAgent:
    """An agent being made in a background thread, so that an interface answers what needs no
    search (a GTP engine: ``name``, ``version``, ``boardsize``...) while a cold cache compiles.

    The spec is resolved, checked (a bad one raises here) and announced (:func:`announce`) at
    once, so ``spec_string`` is known at once. :meth:`get` waits for the agent and raises what
    making it raised (told to ``say`` as soon as it happens); :meth:`ready` wraps an agent
    already made."""

    def __init__(
        self,
        spec: str,
        game: Game,
        seed: int | None = None,
        threads: int | None = None,
        say: Callable[[str], None] | None = to_stderr,
    ):
        resolved = announce(spec, game, threads, say)
        self.spec_string, self.game = resolved[2], game
        self._made: Future[Agent] = Future()

        def make() -> None:
            try:
                self._made.set_result(build_marked(resolved, game, seed))
            except BaseException as exc:  # handed to get(), which raises it in the caller
                if say is not None:
                    say(f"mctslab: cannot make {self.spec_string}: {exc}")
                self._made.set_exception(exc)

        threading.Thread(target=make, name="make-agent", daemon=True).start()

    @classmethod
    def ready(cls, agent: Agent, game: Game) -> PendingAgent:
        """``agent``, already made for ``game``."""
        pending = cls.__new__(cls)
        pending.spec_string, pending.game = agent.spec_string, game
        pending._made = Future()
        pending._made.set_result(agent)
        return pending

    def get(self) -> Agent:
        """The agent, once made."""
        return self._made.result()


def warm(game_spec: str, agent_spec: str) -> dict[str, Any]:
    """Make ``agent_spec`` for ``game_spec`` and search its first position with a player to move
    (:data:`WARM_SIMULATIONS` simulations), so that everything the agent compiles is cached.
    Returns the game, the agent's canonical spec, whether it was warm before, and the seconds."""
    import mctslab

    game = mctslab.load_game(game_spec)
    resolved = resolve_for(agent_spec, game)
    was_warm = is_warm(resolved[2], game)
    start = time.perf_counter()
    agent = build_marked(resolved, game, seed=0)
    state = game.new_initial_state()
    while state.is_chance_node():  # 2048 starts by placing its tiles
        state.apply_action(state.chance_outcomes()[0][0])
    agent.search(state, Budget(sims=WARM_SIMULATIONS))
    agent.close()
    return {
        "game": game.spec.spec_string,
        "agent": agent.spec_string,
        "was_warm": was_warm,
        "seconds": time.perf_counter() - start,
    }
