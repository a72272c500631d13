"""Quality-Based Rewards (Pepels, Tak, Lanctot, Winands 2014, *Quality-based Rewards for
Monte-Carlo Tree Search Simulations*, ECAI). Its statistics are ``PolicyStats.qbr``
(:mod:`mctslab.search.records`, :data:`N_QSTATS` per player), kept for one search."""

import math

from numba import njit

from mctslab.search.records import N_QSTATS


@njit(inline="always")
def sigmoid_bonus(lam, k):
    """The squashing ``b(λ) = -1 + 2 / (1 + exp(-k λ))``, in (-1, 1)."""
    return -1.0 + 2.0 / (1.0 + math.exp(-k * lam))


@njit(cache=True)
def qbr_adjust(qstats, w, length, quality, a, k, num_players):
    """For a decided two-player simulation won by ``τ`` (win value 1), with the reward ``r = ±1``
    (winner, loser):

    * relative bonus: ``λ_r = (D̄_τ - D) / σ_D,τ``, ``D`` the simulation's length (moves from the
      root), ``D̄_τ`` and ``σ_D,τ`` the mean and standard deviation of the lengths of the earlier
      simulations that ``τ`` won (a short win is a good win);
    * qualitative bonus: ``λ_q = (q - Q̄_τ) / σ_Q,τ``, ``q`` the game's ``quality`` of the final
      state for ``τ`` (e.g. NoGo: the winner's legal moves left);
    * each squashed by ``b(λ) = -1 + 2 / (1 + exp(-k λ))`` and added as
      ``r + sgn(r) a (b(λ_r) + b(λ_q))`` (a bonus is 0 while its σ is 0 or fewer than two
      samples exist). The paper estimates ``a`` online; here it is a constant (Ludii's 0.25 and
      k = 1.4 by default). On the win-value scale ``w = (r + 1) / 2`` the winner gets
      ``1 + a B / 2`` and the loser ``-a B / 2``.

    Then ``D`` and ``q`` join ``τ``'s statistics (Welford's running mean and variance).
    """
    winner = -1
    for p in range(num_players):
        if w[p] == 1.0:
            winner = p
    if winner < 0:
        return
    s = N_QSTATS * winner
    bonus = 0.0
    for h in range(2):
        x = length if h == 0 else quality
        o = s + 3 * h
        cnt = qstats[o]
        if cnt >= 2.0:
            sd = math.sqrt(qstats[o + 2] / cnt)
            if sd > 0.0:
                lam = (qstats[o + 1] - x) / sd if h == 0 else (x - qstats[o + 1]) / sd
                bonus += sigmoid_bonus(lam, k)
        cnt += 1.0
        delta = x - qstats[o + 1]
        qstats[o] = cnt
        qstats[o + 1] += delta / cnt
        qstats[o + 2] += delta * (x - qstats[o + 1])
    for p in range(num_players):
        w[p] += (0.5 if p == winner else -0.5) * a * bonus
