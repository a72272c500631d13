"""The game contract: what every game provides, as compiled kernels and as a frozen spec.

A game is two files (the pgx layout):

* ``<game>_kernels.py`` — compiled functions over a flat small-integer state array, with these
  exact names, so that a search can be specialised for any game (see
  :mod:`mctslab.kernels.codegen`)::

      STATE_DTYPE                              numpy integer type of the state array
      init_state(consts, state)                write the initial position into ``state``
      current_player(consts, state) -> int     0..P-1, CHANCE_PLAYER or TERMINAL_PLAYER
      legal_actions(consts, state, out) -> n   write the n legal actions (ascending) into ``out``
      apply_action(consts, state, action)      play a decision action (at a decision node)
      chance_outcomes(consts, state, outcomes, probs) -> n
                                               the n chance outcomes and their probabilities
      apply_chance(consts, state, outcome)     apply a chance outcome (at a chance node)
      returns(consts, state, out)              per-player returns so far (float64, final at the end)
      random_playout(consts, state, rng, moves, out) -> (n, rng)
                                               play uniformly random moves (chance by its
                                               probabilities) to the end, in place; record the
                                               n decision moves as pairs (player, action) in
                                               ``moves``; write the final returns into ``out``

  ``consts`` is an int32 array built once per game instance (sizes, neighbour tables...).
  Kernels never allocate in hot loops: callers pass every buffer. Actions and chance outcomes are
  separate index spaces (``0..num_distinct_actions-1`` and ``0..num_chance_outcomes-1``).
  Returns are per player, never sign-flipped. For a single-player MDP, ``returns`` is the
  cumulative reward so far; a step's reward is the difference of returns across the step.

* ``<game>.py`` — a thin :class:`mctslab.games.base.Game` subclass: the parameter schema, the spec,
  the constants, move strings and the ASCII board.

**Optional hooks.** A game may offer more, each piece optional; what it provides is checked when
it is registered (:func:`mctslab.games.registry.register`), so that a search or an interface can
rely on the declaration instead of probing. Optional kernels (:data:`OPTIONAL_KERNELS`), compiled
(``@njit``) with exactly these parameter names, read by the MDP search
(:mod:`mctslab.search.mdp_template`, specialised per game by :mod:`mctslab.kernels.codegen`)::

      heuristic_value(consts, state) -> float  a static estimate of the return still to come
                                               from a decision state (single-player games);
                                               ``mdp(leaf=heuristic)`` scales it by h_weight
      network_value(consts, w, fs, state) -> float
                                               a learned estimate of the return still to come
                                               from a decision state, with the weights ``w`` and
                                               feature table ``fs`` of the game's
                                               ``load_network``; ``mdp(leaf=network)``
      policy_playout(consts, state, rng, policy, eps, out) -> (n, rng)
                                               play to the end in place by the rollout policy
                                               ``policy`` (an id of ``ROLLOUT_POLICIES``), a
                                               share ``eps`` of the moves uniformly random;
                                               write the final returns into ``out``

Optional members of the game class (:data:`GAME_HOOKS`)::

      picture(state) -> Picture | None         the SVG board (:mod:`mctslab.games.picture`;
                                               usually ``<game>_render.py``); None or absent:
                                               drawn generically
      board(state) -> ndarray                  of a raw state array: a square int array, 0
                                               empty, 1 and 2 the two players' stones (read by
                                               the generic picture)
      load_network(path=None) -> (w, fs)       the trained network ``network_value`` reads
                                               (``path`` None: the default file); a game has
                                               both or neither
      ROLLOUT_POLICIES: dict[str, int]         rollout policy name -> id for ``policy_playout``
                                               (ids >= 1; 0 is ``random``, the contract's
                                               ``random_playout``, always available); a game
                                               has a non-empty table iff it has the kernel
      AGENTS: tuple[str, ...]                  agents the game offers beyond the generic ones,
                                               as ``"module:Class"`` paths resolved by the agent
                                               registry (:mod:`mctslab.agents`); a path, since
                                               the games layer never imports agents
      observation(state) -> ndarray            of a raw decision state: float32 planes
                                               [C, H, W] for a policy/value network, from the
                                               mover's point of view where that is the
                                               convention (:mod:`mctslab.games.symmetry`)
      symmetries() -> tuple[Symmetry, ...]     the symmetries of the rules as forward maps of
                                               the observation's cells and of the actions, the
                                               identity first (:mod:`mctslab.games.symmetry`);
                                               a game has both or neither, and every built-in
                                               game has them (the conformance suite checks
                                               them; with the legal-action mask of
                                               :meth:`Game.legal_mask` they are what an
                                               AlphaZero network reads and learns from)
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

#: ``current_player`` at a chance node (OpenSpiel's kChancePlayerId).
CHANCE_PLAYER = -1
#: ``current_player`` at a terminal state (OpenSpiel's kTerminalPlayerId).
TERMINAL_PLAYER = -4

#: The kernel names every ``<game>_kernels`` module defines.
KERNEL_NAMES = (
    "init_state",
    "current_player",
    "legal_actions",
    "apply_action",
    "chance_outcomes",
    "apply_chance",
    "returns",
    "random_playout",
)

#: Optional kernels a ``<game>_kernels`` module may define: name -> its parameters, in order
#: (module docstring).
OPTIONAL_KERNELS: dict[str, tuple[str, ...]] = {
    "heuristic_value": ("consts", "state"),
    "network_value": ("consts", "w", "fs", "state"),
    "policy_playout": ("consts", "state", "rng", "policy", "eps", "out"),
}

#: Optional members of a game class: name -> the parameters of a method after ``self``, or None
#: for a class attribute (module docstring).
GAME_HOOKS: dict[str, tuple[str, ...] | None] = {
    "picture": ("state",),
    "board": ("state",),
    "load_network": ("path",),
    "ROLLOUT_POLICIES": None,
    "AGENTS": None,
    "observation": ("state",),
    "symmetries": (),
}


def default_hook(fn: Any) -> Any:
    """Mark a base-class method as the stand-in of an optional hook (a game that does not
    override it does not provide the hook; see :func:`provides`)."""
    fn.__contract_default__ = True
    return fn


def parameters(fn: Any) -> tuple[str, ...]:
    """The parameter names of a function or of a compiled kernel (its Python function)."""
    return tuple(inspect.signature(getattr(fn, "py_func", fn)).parameters)


def optional_kernel(kernels: Any, name: str, default: Any = None) -> Any:
    """The game's optional kernel ``name`` (one of :data:`OPTIONAL_KERNELS`), else ``default``
    (a compiled template binds a stand-in it never calls, the driver having refused the case)."""
    if name not in OPTIONAL_KERNELS:
        raise KeyError(f"{name!r} is not an optional kernel of the game contract")
    fn = getattr(kernels, name, None)
    return fn if callable(fn) else default


def provides(game: Any, hook: str) -> bool:
    """Whether a game (class or instance) provides an optional hook of this contract: a kernel
    of :data:`OPTIONAL_KERNELS` or a member of :data:`GAME_HOOKS` (a non-empty table for the
    class attributes, a method that is not the base class's stand-in)."""
    if hook in OPTIONAL_KERNELS:
        return optional_kernel(getattr(game, "kernels", None), hook) is not None
    if hook not in GAME_HOOKS:
        raise KeyError(f"{hook!r} is not an optional hook of the game contract")
    value = getattr(game, hook, None)
    if GAME_HOOKS[hook] is None:
        return bool(value)
    return callable(value) and not getattr(value, "__contract_default__", False)


@dataclass(frozen=True)
class GameSpec:
    """Everything a search or a harness needs to know about a game instance, fixed at load time.

    ``spec_string`` is canonical (every parameter spelled out): ``load_game(spec.spec_string)``
    rebuilds the same game.
    """

    name: str
    version: int
    spec_string: str
    num_players: int
    num_distinct_actions: int
    num_chance_outcomes: int
    min_utility: float
    max_utility: float
    #: the sum of returns at every terminal state, or None when it is not constant
    utility_sum: float | None
    #: an upper bound on the number of decision moves plus chance events in a game
    max_game_length: int
    #: length of the flat state array
    state_size: int
