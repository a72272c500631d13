"""AlphaZero as an agent: ``az(net=FILE,sims=200)``, PUCT guided by a trained policy/value network
(:mod:`mctslab.search.az`; the network is written by ``mctslab train az``; without ``net`` the
network that ships for the game, :mod:`mctslab.models`).

Its keys come from the one declaration in :mod:`mctslab.search.az_options`. PyTorch (the ``az``
extra) is imported only when an ``az`` agent is made.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from mctslab import models, specstr
from mctslab.agents.base import STRICT, Agent, budget_of
from mctslab.agents.resign import resigner_for
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
    model = models.shipped(game_spec)
    if model is None:
        have = ", ".join(m.game for m in models.shipped_models()) or "none"
        raise MctslabError(
            f"az needs a network: no network ships for {game_spec} (shipped: {have}); "
            "give net=FILE (mctslab train az GAME --out DIR writes DIR/model.pt)"
        )
    return str(model.path)


def _int8_missing() -> str | None:
    """Why ``az(int8=true)`` cannot run here (:func:`mctslab.search.az_net.backend_missing`;
    without PyTorch the agent itself names what is missing when it is made)."""
    try:
        from mctslab.search import az_net
    except ImportError as exc:
        return f"{exc.name} is not installed"
    return az_net.backend_missing(az_net.INT8)


def _int8_slow() -> bool:
    """Whether this CPU is known to lack 8-bit dot products
    (:func:`mctslab.search.az_net.int8_dot_products` False), so that 8-bit evaluation would be
    no faster than floats here."""
    from mctslab.search import az_net

    return az_net.int8_dot_products() is False


@functools.cache
def _say_int8_slow() -> None:
    """Say once per process (cached), on stderr, that a spec's own ``int8=true`` runs on a CPU
    known to lack 8-bit dot products (:func:`_int8_slow`), where it measured slower than
    floats."""
    print(
        "mctslab: az(int8=true) on a CPU without 8-bit dot products (no VNNI, AMX or ARM "
        "dot product among its flags): 8-bit evaluation ran at 0.86x the floats' speed on "
        "such a CPU (docs/alphazero.md); drop int8=true, or measure it here with "
        "`mctslab bench az --int8`",
        file=sys.stderr,
        flush=True,
    )


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
        if params.int8 and _int8_slow():  # a card's int8 is never applied there: the spec's
            _say_int8_slow()
        self.searcher = AzSearch(game, AzConfig.from_keys(params), evaluator, seed)
        self.endgame = params.endgame
        self.resigner = resigner_for(params.resign, game)
        #: the MCTS agent that searches once the mover has at most ``endgame`` legal moves, made
        #: now: making it loads its compiled search (0.6 s the first time in a process), which
        #: inside a timed move would be taken from that move's time
        self.late: Agent | None = None
        if self.endgame:
            from mctslab.agents import make_agent

            self.late = make_agent("mcts(preset=strong)", game, seed=seed)
        # Gumbel plans its simulations and starts afresh each search: no slices
        self.live = self.searcher.config.reuse and not self.searcher.config.gumbel

    @staticmethod
    def _card_play(params: Any, game: Game | None) -> tuple[dict[str, Any], str]:
        """The shipped network's card's ``play`` object (e.g. NoGo 7x7's ``endgame``, Hex 7x7's
        ``int8``, each measured stronger at equal time: docs/alphazero.md) and the card's name;
        empty where the spec names a network of its own. A card's ``int8`` applies only where
        the 8-bit backend can run (ONNX Runtime installed, no GPU) and the CPU is not known to
        lack 8-bit dot products (:func:`_int8_slow`), so that elsewhere the network plays in
        floats."""
        model = None if game is None or params.net else models.shipped(game.spec.spec_string)
        if model is None:
            return {}, ""
        play = dict(model.card.get("play", {}))
        if play.get("int8") and (_int8_missing() or _int8_slow()):
            del play["int8"]
        return play, model.path.name

    @classmethod
    def prepare(cls, params: Any, game: Game | None = None) -> Any:
        """The card's play keys filled in where the spec does not give them; a ``net`` that is
        not a file is an error here, before anything is made."""
        if params.net:
            models.require_network_file(params.net)
        play, name = cls._card_play(params, game)
        keys = {k: v for k, v in play.items() if k not in params.model_fields_set}
        if not keys:
            return params
        what = f"the play keys of the card of {name}"
        return specstr.validate(cls.Params, what, {**params.model_dump(), **keys})

    @classmethod
    def canonical(cls, params: Any, game: Game | None = None) -> dict[str, Any]:
        """The base class's keys, less those declared ``canonical="changed"`` at their default
        (so that keys added later leave older agents' strings as they were) unless the card's
        play keys name them (``az(int8=false)`` on Hex 7x7 must not read back as the card's
        ``int8=true``), and those of a mode that is off (``only_with``: the Gumbel keys of a
        PUCT agent)."""
        keys = super().canonical(params, game)
        play, _ = cls._card_play(params, game)
        return {k: v for k, v in keys.items() if k in play or not AZ_KEYS[k].omitted(v, keys)}

    def search(self, state: State, budget: Budget | None = None) -> SearchResult:
        """PUCT with the network; under a time budget, from the endgame on (``endgame``: the
        mover has at most that many legal moves) the game's strongest pure MCTS agent instead,
        with the same time, where its many cheap simulations read the few moves left better
        than the network's value does. (A budget of simulations alone always searches with the
        network: an MCTS simulation costs tens of times less, so equal simulations would not
        be a fair share.)"""
        budget = budget or self.budget
        if (
            self.late is not None
            and budget.seconds is not None
            and len(state.legal_actions()) <= self.endgame
        ):
            return self.late.search(state, budget)
        return self.searcher.search(state, budget)

    def reset(self) -> None:
        super().reset()
        self.searcher.reset()
        if self.late is not None:
            self.late.reset()
