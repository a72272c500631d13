"""AlphaZero as an agent: ``az(net=FILE,sims=200)``, PUCT guided by a trained policy/value network
(:mod:`mctslab.search.az`; the network is written by ``mctslab train az``; without ``net`` the
network that ships for the game, :mod:`mctslab.models`).

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


def _shipped_net(game_spec: str) -> str:
    """The network that ships for ``game_spec`` (:mod:`mctslab.models`); a clear error naming
    the games that have one when it has none."""
    from mctslab.models import shipped, shipped_models

    model = shipped(game_spec)
    if model is None:
        have = ", ".join(m.game for m in shipped_models()) or "none"
        raise MctslabError(
            f"az needs a network: no network ships for {game_spec} (shipped: {have}); "
            "give net=FILE (mctslab train az GAME --out DIR writes DIR/model.pt)"
        )
    return str(model.path)


class AzAgent(Agent):
    NAME = "az"
    DESCRIPTION = (
        "AlphaZero: PUCT search guided by a policy/value network trained by self-play "
        "(net=FILE from mctslab train az, else the network that ships for the game: mctslab "
        "models; two-player games without chance)"
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
        path = params.net or _shipped_net(game.spec.spec_string)
        self.budget = budget_of(params, self.DEFAULT_SIMS)
        net = az_net.load_net(path, game.spec.spec_string)
        az_net.check_shape(net, game, path)
        evaluator = az_net.Evaluator(net, az_net.INT8 if params.int8 else None, game)
        self.searcher = AzSearch(game, AzConfig.from_keys(params), evaluator, seed)
        # Gumbel plans its simulations and starts afresh each search: no slices
        self.live = self.searcher.config.reuse and not self.searcher.config.gumbel

    @classmethod
    def canonical(cls, params: Any, game: Game | None = None) -> dict[str, Any]:
        """The base class's keys, less those declared ``canonical="changed"`` at their default
        (so that keys added later leave older agents' strings as they were) and those of a mode
        that is off (``only_with``: the Gumbel keys of a PUCT agent)."""
        keys = super().canonical(params, game)
        return {k: v for k, v in keys.items() if not AZ_KEYS[k].omitted(v, keys)}

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        return self.searcher.search(state, budget or self.budget)

    def reset(self) -> None:
        super().reset()
        self.searcher.reset()
