"""Kernel pieces that several games share (imported into each ``<game>_kernels`` module).

* ``chance_outcomes`` / ``apply_chance`` for games without chance events.
* :func:`two_player_win_returns` for two-player win/loss games: +1 to the winner, -1 to the
  loser, 0 to both while the game goes on (``winner`` -1).
"""

from numba import njit


@njit(cache=True)
def chance_outcomes(consts, state, outcomes, probs):
    """No chance events: never any outcome."""
    return 0


@njit(cache=True)
def apply_chance(consts, state, outcome):
    """No chance events: nothing to apply."""


@njit(cache=True)
def two_player_win_returns(winner, out):
    """Write per-player returns for ``winner`` (0 or 1, or -1 while the game goes on)."""
    if winner < 0:
        out[0] = 0.0
        out[1] = 0.0
    else:
        out[winner] = 1.0
        out[1 - winner] = -1.0
