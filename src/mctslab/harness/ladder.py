"""A ladder: every pair of agents plays a match, and one Bradley–Terry fit rates them all.

Schedule: for agents ``1..m``, each pair ``i < j`` is one match of ``n`` games (agent ``i`` is A:
player 0 in even games, player 1 in odd ones) through :func:`mctslab.harness.schedule.run_match`,
so every game is stored in the results database as it ends and a rerun of the same ladder plays
only the missing games (each pair is one run, the same run as ``mctslab match`` of that pair).
Openings (:mod:`mctslab.harness.openings`) apply to every pair.

Fit (:func:`fit`): the Bradley–Terry model (Bradley & Terry, "Rank analysis of incomplete block
designs I", Biometrika 39, 1952; in Elo form as Hunter, "MM algorithms for generalized
Bradley–Terry models", Ann. Statist. 32, 2004, §1) gives agent ``i`` a strength ``θ_i`` with
``P(i beats j) = 1 / (1 + exp(θ_j − θ_i))``. A draw counts half a win to each side: every game
enters the likelihood twice (a win as two wins, a draw as one win each way), which doubles the
log-likelihood and leaves its maximum where it is. The maximum a-posteriori estimate is
``choix.opt_pairwise`` (Newton-CG) with the L2 penalty ``α·Σθ²`` on the doubled data (α =
:data:`ALPHA`, a Gaussian prior that keeps an undefeated agent's rating finite). Ratings are
Elo: ``400·log10(e)·(θ_i − θ_1)``, the first agent anchored at 0.

Intervals: 95% Wald intervals from the observed information, the Hessian of the negative
penalised log-likelihood at the estimate (``choix``'s, halved to undo the doubling)::

    H = Σ_games p_ij(1 − p_ij)·(e_i − e_j)(e_i − e_j)ᵀ + α·I,   Var(θ_i − θ_1) = cᵀ H⁺ c

with ``c = e_i − e_1`` and ``H⁺`` the pseudo-inverse (``H`` is singular without the penalty:
only differences are identified), ``Elo ± 1.96·173.7·sqrt(Var)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import choix
import numpy as np
from choix.opt import PairwiseFcts

from mctslab.errors import MctslabError
from mctslab.harness import openings as opening_sets
from mctslab.harness.openings import OpeningBook, for_run
from mctslab.harness.schedule import canonical_specs, run_match
from mctslab.harness.stats import Z95

#: the prior's strength α of the fit (see the module docstring)
ALPHA = 1e-3
#: Elo points per unit of θ: 400·log10(e)
ELO_PER_THETA = 400.0 / math.log(10.0)


class LadderError(MctslabError):
    """A ladder that cannot be run as asked (too few agents, a repeated agent, no games)."""


@dataclass(frozen=True)
class Rating:
    """One agent's Elo (the first agent = 0) with its 95% interval, and its results."""

    agent: str
    elo: float
    low: float
    high: float
    score: float
    games: int

    def as_dict(self) -> dict:
        return {
            "agent": self.agent,
            "elo": self.elo,
            "elo_ci95": [self.low, self.high],
            "score": self.score,
            "games": self.games,
        }


@dataclass
class LadderResult:
    """A ladder's ratings and its pairwise results: ``scores[i][j]`` is what agent ``i`` scored
    against agent ``j`` (wins + draws/2) in ``games[i][j]`` games."""

    game: str
    #: canonical agent specs, and the specs as given
    agents: list[str]
    given: list[str]
    ratings: list[Rating]
    scores: list[list[float]]
    games: list[list[int]]
    resumed_games: int

    def as_dict(self) -> dict:
        return {
            "game": self.game,
            "agents": self.agents,
            "given": self.given,
            "ratings": [r.as_dict() for r in self.ratings],
            "scores": self.scores,
            "games": self.games,
            "resumed_games": self.resumed_games,
            "method": "Bradley-Terry MAP (choix.opt_pairwise), Wald 95% from the Hessian",
        }


def fit(scores: np.ndarray, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Bradley–Terry strengths θ (θ_0 = 0) and their standard errors from a score matrix
    (``scores[i, j]`` what ``i`` scored against ``j``, in halves of a point); see the module
    docstring."""
    n = len(scores)
    data = []
    for i in range(n):
        for j in range(n):
            data += [(i, j)] * round(2 * scores[i, j])
    theta = choix.opt_pairwise(n, data, alpha=alpha) if data else np.zeros(n)
    theta = theta - theta[0]
    hessian = PairwiseFcts(data, alpha).hessian(theta) / 2
    cov = np.linalg.pinv(hessian)
    se = np.zeros(n)
    for i in range(1, n):
        c = np.zeros(n)
        c[i], c[0] = 1.0, -1.0
        se[i] = math.sqrt(max(float(c @ cov @ c), 0.0))
    return theta, se


def check_agents(game: str, specs: list[str]) -> tuple[str, list[str]]:
    """The canonical game spec and agent specs of a ladder; every spec is built once so a bad
    one fails before any game, and two specs that are the same agent are refused."""
    if len(specs) < 2:
        raise LadderError(f"a ladder needs at least two agents, got {len(specs)}")
    canon: list[str] = []
    name = ""
    for spec in specs:
        (name,), agent, _ = canonical_specs(game, spec, spec)
        if agent in canon:
            first = specs[canon.index(agent)]
            raise LadderError(
                f"agent {spec!r} is the same agent as {first!r} ({agent}); each agent once"
            )
        canon.append(agent)
    return name, canon


def run_ladder(
    game: str,
    specs: list[str],
    n_games: int,
    seed: int = 0,
    *,
    store=None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    openings: OpeningBook | str | None = None,
    progress: bool = False,
    alpha: float = ALPHA,
) -> LadderResult:
    """Play the round robin of ``specs`` on ``game`` (``n_games`` per pair, resuming what
    ``store`` holds) and fit the ratings (see the module docstring)."""
    if n_games < 1:
        raise LadderError(f"--games {n_games}: a ladder needs at least 1 game per pair")
    name, agents = check_agents(game, specs)
    if isinstance(openings, str):  # read once for every pair
        openings = opening_sets.load(openings)
    for_run(openings, [name])  # a bad opening fails before any game
    m = len(agents)
    scores = np.zeros((m, m))
    games = np.zeros((m, m), dtype=int)
    resumed = 0
    for i in range(m):
        for j in range(i + 1, m):
            result = run_match(
                name,
                agents[i],
                agents[j],
                n_games,
                seed,
                store=store,
                workers=workers,
                backend=backend,
                address=address,
                progress=progress,
                label=f"ladder {i + 1}-{j + 1}",
                description=f"{i + 1} vs {j + 1}",
                openings=openings,
            )
            s = result.summary
            scores[i, j], scores[j, i] = s.score_a, s.games - s.score_a
            games[i, j] = games[j, i] = s.games
            resumed += result.resumed_games
    theta, se = fit(scores, alpha)
    ratings = [
        Rating(
            agents[i],
            ELO_PER_THETA * theta[i],
            ELO_PER_THETA * (theta[i] - Z95 * se[i]),
            ELO_PER_THETA * (theta[i] + Z95 * se[i]),
            float(scores[i].sum()),
            int(games[i].sum()),
        )
        for i in range(m)
    ]
    return LadderResult(
        name, agents, list(specs), ratings, scores.tolist(), games.tolist(), resumed
    )
