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
"""

from __future__ import annotations

from dataclasses import dataclass

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
