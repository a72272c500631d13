"""What every playout-policy module shares (see :mod:`mctslab.search.playouts` for the mechanism).

A policies module's ``policy_playout`` is given two records (:mod:`mctslab.search.records`):

* :class:`~mctslab.search.records.PlayoutParams` ``params``: ``base`` (the base policy id, as the
  module itself numbers its base policies in ``BASES``), ``decisive``, ``anti``, ``lgrf``,
  ``pool_k``, ``pool_p``, ``num_actions``, ``num_players``, and ``length`` (the playout's length
  is used, by QBR, so it must stop when the game is decided: a game whose fast playout plays on
  past the decision must not use it), and ``nf_empty`` (read by NoGo's normal-form playouts
  only);
* :class:`~mctslab.search.records.PolicyStats` ``stats``: the tables the search learns, read
  through :func:`lgr_reply` (Last Good Reply, :mod:`mctslab.search.enhancements.lgrf`) and
  :func:`pool_move` (PoolRAVE, :mod:`mctslab.search.enhancements.poolrave`).

This module holds no knowledge of any game: each policies module declares the base policies it
implements (``BASES``, name -> id); ``uniform`` is :data:`BASE_UNIFORM` in every one.
"""

from mctslab.search.enhancements.lgrf import lgr_reply
from mctslab.search.enhancements.poolrave import pool_move
from mctslab.search.records import PlayoutParams, PolicyStats, playout_params, policy_stats

#: The id of the uniform base policy (uniform over the legal moves), which every policies module
#: implements (the generic one, :mod:`mctslab.search.playouts.policy_template`, only it).
BASE_UNIFORM = 0

__all__ = [
    "BASE_UNIFORM",
    "PlayoutParams",
    "PolicyStats",
    "lgr_reply",
    "playout_params",
    "policy_stats",
    "pool_move",
]
