"""AlphaZero as an agent: ``az(net=FILE,sims=200)``, PUCT guided by a trained policy/value network
(:mod:`mctslab.search.az`; the network is written by ``mctslab train az``).

Its keys come from the one declaration in :mod:`mctslab.search.az_options`. PyTorch (the ``az``
extra) is imported only when an ``az`` agent is made.
"""

from __future__ import annotations

from typing import Any

from mctslab.agents.base import STRICT, Agent, budget_of
from mctslab.errors import MctslabError
from mctslab.games.base import Game, State
from mctslab.search import options
from mctslab.search.az_options import AZ_KEYS, AzConfig
from mctslab.search.budget import Budget
from mctslab.search.result import SearchResult

#: The keys of ``az(...)``: made from :data:`mctslab.search.az_options.AZ_OPTIONS`.
AzParams = options.spec_model(
    "AzParams", STRICT, "The keys of an ``az(...)`` spec string.", __name__, AZ_KEYS
)


class AzAgent(Agent):
    NAME = "az"
    DESCRIPTION = (
        "AlphaZero: PUCT search guided by a policy/value network trained by self-play "
        "(net=FILE from mctslab train az; two-player games without chance)"
    )
    Params = AzParams
    DEFAULT_SIMS = 200

    def __init__(self, spec_string: str, game: Game, params: Any, seed: int):
        super().__init__(spec_string, game)
        try:
            from mctslab.search import az_net
            from mctslab.search.az import AzSearch, check_game
        except ImportError as exc:
            raise MctslabError(
                f"az needs PyTorch ({exc.name} is missing): pip install -e '.[az]'"
            ) from None
        check_game(game)
        if params.net is None:
            raise MctslabError(
                "az needs a network: net=FILE (mctslab train az GAME --out DIR writes DIR/model.pt)"
            )
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        net = az_net.load_net(params.net, game.spec.spec_string)
        self.searcher = AzSearch(game, AzConfig.from_keys(params), az_net.Evaluator(net), seed)
        # Gumbel plans its simulations and starts afresh each search: no slices
        self.live = self.searcher.config.reuse and not self.searcher.config.gumbel

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self.searcher.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self.searcher.reset()
