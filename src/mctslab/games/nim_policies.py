"""Nim playout policies: the Nim report's strategic playout, the rest generic.

``strategic`` (the report's "strategic" MCTS in the Nim report, *MCTS for Nim*): the mover takes
``n mod (K+1)``
counters, which leaves a multiple of ``K+1`` (the losing positions for the player to move), and a
uniformly random legal number when ``n`` already is a multiple (no winning move exists). With
the coin, chance follows its probabilities. ``uniform`` with modifiers (decisive, anti-decisive,
LGRF, PoolRAVE) is the generic contract version (:mod:`mctslab.search.playouts.policy_template`).
"""

from numba import njit

from mctslab.games import nim_kernels
from mctslab.kernels import codegen
from mctslab.search.playouts import policy_template as generic
from mctslab.search.playouts.common import BASE_UNIFORM

_generic = codegen.specialize(generic, nim_kernels)
#: the report's strategic playout (leave a multiple of K + 1)
BASE_STRATEGIC = 1
#: the base policies this module implements, name -> id (``PlayoutParams.base``)
BASES = {"uniform": BASE_UNIFORM, "strategic": BASE_STRATEGIC}


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """The strategic playout for ``params.base == BASE_STRATEGIC``, else the generic one."""
    if params.base != BASE_STRATEGIC:
        return _generic.policy_playout(consts, state, rng, moves, out, last, params, stats)
    return nim_kernels.playout(consts, state, rng, moves, out, True)


@njit(cache=True)
def quality(consts, state, winner):
    """No qualitative measure for Nim (the qualitative bonus stays off)."""
    return 0.0


#: no prior knowledge for Nim yet (``mcts(prior=...)``): the generic one, every count 0
prior = _generic.prior
