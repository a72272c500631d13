"""Go playout policies (:mod:`mctslab.search.playouts`): ``go``, the MoGo-style playout of
:mod:`mctslab.games.go_playouts`; ``uniform`` with modifiers (decisive, anti-decisive, LGRF,
PoolRAVE) is the generic contract version (:mod:`mctslab.search.playouts.policy_template`), whose
uniform moves
include passes and eye fills. The ``go`` base takes no modifier: combined with one it stops the
search with an error rather than silently ignoring it."""

from numba import njit

from mctslab.games import go_kernels
from mctslab.games.go_playouts import go_style_playout
from mctslab.kernels import codegen
from mctslab.search.playouts import policy_template as generic
from mctslab.search.playouts.common import BASE_UNIFORM

_generic = codegen.specialize(generic, go_kernels)
#: the MoGo-style playout
BASE_GO = 1
#: the base policies this module implements, name -> id (``PlayoutParams.base``)
BASES = {"uniform": BASE_UNIFORM, "go": BASE_GO}


@njit(cache=True)
def policy_playout(consts, state, rng, moves, out, last, params, stats):
    """The Go-style playout for ``params.base == BASE_GO``, else the generic one."""
    if params.base != BASE_GO:
        return _generic.policy_playout(consts, state, rng, moves, out, last, params, stats)
    if params.decisive or params.anti or params.lgrf or params.pool_k:
        raise ValueError("playout=go takes no decisive, antidecisive, lgrf or pool modifier")
    return go_style_playout(consts, state, rng, moves, out)


@njit(cache=True)
def quality(consts, state, winner):
    """No qualitative measure for Go yet (the qualitative bonus stays off)."""
    return 0.0
