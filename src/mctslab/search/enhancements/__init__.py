"""The search enhancements as compiled kernels of their own, one small module each.

None of these calls a game kernel, so each is an ordinary ``@njit(cache=True)`` module, compiled
once for every game (the per-game UCT template, :mod:`mctslab.search.uct_template`, keeps the
simulation loop and calls them as hooks). Each module owns its statistics (the fields of
:class:`mctslab.search.records.PolicyStats` or of the tree it reads and writes) and its
docstrings keep the formulas and their sources.

* :mod:`.selection` — the UCB formulas, the random tie-break, RAVE's beta schedules and the
  RAVE selection;
* :mod:`.amaf` — AMAF statistics (RAVE);
* :mod:`.lgrf` — Last Good Reply with Forgetting;
* :mod:`.poolrave` — PoolRAVE;
* :mod:`.qbr` — Quality-Based Rewards;
* :mod:`.solver` — MCTS-Solver's arithmetic of exact values;
* :mod:`.chance` — chance nodes in the tree (probability-weighted values and descent).

The enhancements that call game kernels stay in per-game templates: the exact search
(:func:`mctslab.search.uct_template.exact_search`) and flat Monte Carlo
(:mod:`mctslab.search.flat_template`).

Adding an enhancement: declare its option (:mod:`mctslab.search.options`), carry it in a record
field (:mod:`mctslab.search.records`), write its kernel module here, and call it once from the
template's loop.
"""
