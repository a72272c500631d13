"""Playout policies: how a game plugs its own simulation policies into the compiled UCT search.

**The mechanism.** :func:`mctslab.search.uct_template.uct` is specialised by
:func:`mctslab.kernels.codegen.specialize` against the game's kernels module (its contract, as
``game``) and a *policies module* for the game (as ``policies``). A policies module

1. defines ``policy_playout(consts, state, rng, moves, out, last, params, stats) -> (n, rng)``:
   ``random_playout``'s contract (play to the end in place, record ``(player, action)`` pairs in
   ``moves``, write the returns into ``out``), plus ``last`` (the action played just before the
   playout, -1 if none) and two records (:mod:`mctslab.search.records`, described in
   :mod:`mctslab.search.playouts.common`): ``params``, a :class:`PlayoutParams` (``base`` the
   base policy id, ``decisive``, ``anti``, ``lgrf``, ``pool_k``, ...), and ``stats``, a
   :class:`PolicyStats` (the LGRF and PoolRAVE tables, read through :func:`common.lgr_reply` and
   :func:`common.pool_move`);
2. defines ``quality(consts, state, winner) -> float``, QBR's qualitative measure of a final
   state for the winner (a constant turns the qualitative bonus off);
3. sets ``BASES``, a dict from the names of the base policies it implements to the ids it gives
   them (``uniform`` is :data:`common.BASE_UNIFORM`, 0, in every module; the others are the
   module's own); the agent rejects any other name with a message naming these.

A game's policies module is ``mctslab.games.<game>_policies`` next to
``mctslab.games.<game>_kernels`` (found by that name; :data:`MODULES` can map any other kernels
module). A game without one gets :mod:`mctslab.search.playouts.policy_template` specialised for it:
uniform,
decisive, anti-decisive, LGRF and PoolRAVE through the contract alone. A game module
implements fast versions of what pays and hands the rest to the generic module specialised for
its game (``codegen.specialize(generic, <game>_kernels)``, whose ``policy_playout`` it calls).

The uniform playout with every strategy off is the game's own ``random_playout``: UCT with no
enhancement runs exactly the code it ran before policies existed.

The LGRF and PoolRAVE tables are learnt by the template (after each simulation, through the
enhancement kernels :mod:`mctslab.search.enhancements.lgrf` and
:mod:`mctslab.search.enhancements.poolrave`) and only read by ``policy_playout`` through
:func:`common.lgr_reply` and :func:`common.pool_move`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mctslab.errors import SpecError
from mctslab.kernels import codegen
from mctslab.search.playouts import policy_template as generic

#: kernels module name -> policies module name, for modules that do not follow the naming rule
MODULES: dict[str, str] = {}


def _game_module_name(kernels: ModuleType) -> str | None:
    name = kernels.__name__
    if name in MODULES:
        return MODULES[name]
    if name.endswith("_kernels"):
        return name[: -len("_kernels")] + "_policies"
    return None


def policies_for(kernels: ModuleType) -> ModuleType:
    """The policies module to specialise the UCT template against, for a game's kernels."""
    name = _game_module_name(kernels)
    if name is not None:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
    return codegen.specialize(generic, kernels)


def check_base(policies: ModuleType, base: str, game_spec: str) -> int:
    """The id of the base policy ``base`` in ``policies``; :class:`SpecError` unless it
    implements it."""
    if base not in policies.BASES:
        raise SpecError(
            f"playout={base} is not available for {game_spec}; "
            f"allowed: {', '.join(sorted(policies.BASES))}"
        )
    return int(policies.BASES[base])
