"""When a searching agent gives up a game: its chosen move's win value below a threshold.

One decision is *hopeless* (:func:`hopeless`) when the search had at least :data:`MIN_VISITS`
root visits, the chosen move is not a pass (after the opponent's pass a pass may end a won or a
scored game), and the chosen move's mean win value for the mover is below the threshold.

- ``mctslab gtp`` answers ``resign`` to the ``genmove`` of a colour whose last
  :data:`RESIGN_MOVES` ``genmove`` decisions were hopeless (``--resign``, default 0.05; one
  :class:`Resigner` per colour, reset when the position is set up anew or taken back).
- An ``mcts`` or ``az`` agent with ``resign=V`` (``V`` > 0) resigns in arena games (``match``,
  ``ladder``, ``tune``, ``play``) after :data:`RESIGN_MOVES` hopeless decisions in a row
  (:class:`Resigner`): it raises :class:`~mctslab.agents.base.Forfeit`, which the arena scores as
  a loss and stores with the reason, as cutechess-cli adjudicates a game after ``movecount``
  moves below a ``score``. Three in a row, because over the 967 committed Go games played to
  the end (both sides' win values replayed, docs/strength.md "Resigning") one hopeless
  decision at 0.05 would have resigned 3 games the resigning side went on to win, and three in
  a row none, while ending the games between two ``mcts`` agents after about a third of their
  moves.
"""

from __future__ import annotations

from mctslab.errors import SpecError
from mctslab.games.base import Game
from mctslab.search.options import RESIGN_MIN_VISITS as MIN_VISITS
from mctslab.search.options import RESIGN_MOVES
from mctslab.search.result import SearchResult


def hopeless(result: SearchResult, action: int, threshold: float, pass_action: int | None) -> bool:
    """Whether playing ``action`` after the search ``result`` is hopeless: ``threshold`` > 0, at
    least :data:`MIN_VISITS` root visits, ``action`` not the pass, and its mean win value
    (1 win, 0 loss) below ``threshold``."""
    if threshold <= 0 or action == pass_action or sum(result.visits) < MIN_VISITS:
        return False
    return result.values[result.actions.index(action)] < threshold


class Resigner:
    """Counts an agent's hopeless decisions in a row (``threshold`` 0: never resigns)."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self.run = 0

    def gives_up(
        self, result: SearchResult, pass_action: int | None, action: int | None = None
    ) -> bool:
        """Record the decision to play ``action`` (default: the search ``result``'s own choice)
        after ``result``; True once :data:`RESIGN_MOVES` in a row were hopeless."""
        if hopeless(result, result.action if action is None else action, self.threshold,
                    pass_action):  # fmt: skip
            self.run += 1
        else:
            self.run = 0
        return self.run >= RESIGN_MOVES

    def reason(self) -> str:
        return (
            f"resigned: its chosen move's win value was below resign={self.threshold:g} on "
            f"{RESIGN_MOVES} moves in a row"
        )

    def reset(self) -> None:
        self.run = 0


def resigner_for(threshold: float, game: Game) -> Resigner:
    """The :class:`Resigner` of an agent's ``resign`` key; refused (:class:`SpecError`) outside
    two-player games, where a search's values are not a player's chance to win."""
    if threshold > 0 and game.spec.num_players != 2:
        raise SpecError(
            f"resign={threshold:g}: resigning is for two-player games, and "
            f"{game.spec.spec_string} has {game.spec.num_players} player(s); allowed: resign=0"
        )
    return Resigner(threshold)
