"""Every option of the AlphaZero search, declared once (:data:`AZ_OPTIONS`), with the same
:class:`~mctslab.search.options.Option` records as the UCT family's: from them come
:class:`AzConfig` (the search's record), the ``az(...)`` spec-string model
(:class:`mctslab.agents.az.AzParams`) and ``mctslab agents``' description.

Options without ``spec`` are the self-play ones (root Dirichlet noise): ``mctslab train az`` sets
them, a playing agent never adds noise.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field

from mctslab.search.budget import MAX_SECONDS
from mctslab.search.options import RESIGN, Option

_AZ = "Silver et al. 2018, *A general reinforcement learning algorithm that masters chess, shogi and Go through self-play*"  # noqa: E501
_GUMBEL = "Danihelka et al. 2022, *Policy improvement by planning with Gumbel*, sections 3-5"
_ALPHAGO = "Silver et al. 2016, *Mastering the game of Go with deep neural networks and tree search*, Methods"  # noqa: E501
_SOLVER = "Winands, Björnsson and Saito 2008, *Monte-Carlo Tree Search Solver*, section 3"
_MCTX = "mctx (DeepMind), `gumbel_muzero_policy`: gumbel_scale 0 for evaluation in perfect-information games"  # noqa: E501
_ORT = "ONNX Runtime, *Quantize ONNX models* (static quantisation, QDQ format)"
_LEELA = "Leela Zero (Pascutto et al.), first-play urgency reduction"

AZ_OPTIONS: tuple[Option, ...] = (
    Option("sims", int, None, "simulations per move (200 without time)", ge=1, optional=True),
    Option("time", float, None, "seconds per move", gt=0, le=MAX_SECONDS, optional=True),
    Option("net", str, None, "the network file (checkpoint or model) of mctslab train az; "
           "default: the network that ships for the game (mctslab models)",
           optional=True),
    Option("int8", bool, False, "evaluate the network with its convolutions in 8-bit integers "
           "(ONNX Runtime static quantisation, calibrated on random games' positions): faster, "
           "slightly less exact (docs/alphazero.md)", source=_ORT, canonical="changed"),
    Option("c_puct", float, 1.25, "PUCT exploration constant", gt=0, source=_AZ,
           attr="c_puct"),
    Option("c_base", float, 0.0, "PUCT growth: c = c_puct + log((N + c_base + 1) / c_base); "
           "0 off (AlphaZero: 19652)", ge=0, source=_AZ, attr="c_base"),
    Option("fpu", float, 0.25, "first-play urgency: an unvisited child's Q is the parent's "
           "network value minus fpu * sqrt(prior mass of the visited children)", ge=0, le=2,
           source=_LEELA, attr="fpu"),
    Option("batch", int, 8, "leaves per network call within one search (virtual loss)", ge=1,
           le=256, attr="batch"),
    Option("mix", float, 0.0, "leaf value (1 - mix) * network + mix * random playout's outcome "
           "(AlphaGo: 0.5)", ge=0, le=1, source=_ALPHAGO, attr="mix"),
    Option("reuse", bool, True, "keep the subtree of the position reached between moves",
           attr="reuse"),
    Option("solver", bool, True, "MCTS-Solver: proven wins and losses steer the search and the "
           "move (two-player zero-sum games)", source=_SOLVER, attr="solver"),
    Option("gumbel", bool, False, "Gumbel AlphaZero at the root: Gumbel-top-k and sequential "
           "halving (needs sims)", source=_GUMBEL, attr="gumbel"),
    Option("gumbel_m", int, 8, "gumbel: actions considered at the root (the paper's 16 in "
           "self-play; 8 measured stronger when playing at 16 simulations, docs/alphazero.md)",
           ge=1, source=_GUMBEL, attr="gumbel_m", only_with="gumbel"),
    Option("c_visit", float, 50.0, "gumbel: sigma(q) = (c_visit + max N) * c_scale * q", ge=0,
           source=_GUMBEL, attr="c_visit", only_with="gumbel"),
    Option("c_scale", float, 1.0, "gumbel: the scale of sigma", gt=0, source=_GUMBEL,
           attr="c_scale", only_with="gumbel"),
    Option("gumbel_scale", float, 0.0, "gumbel: the scale of the root's Gumbel draws (0: "
           "the top logits, no sampling, measured stronger when playing; self-play always 1)",
           ge=0, source=_MCTX, attr="gumbel_scale", only_with="gumbel"),
    Option("endgame", int, 0, "with a time budget, hand the search to the game's strongest "
           "MCTS agent (mcts(preset=strong), the same time) once the mover has at most this "
           "many legal moves; 0 never (the shipped NoGo 7x7 network's card sets 28, measured "
           "stronger at equal time: docs/alphazero.md)", ge=0, canonical="changed"),
    RESIGN,
    Option("seed", int, None, "random seed", ge=0, optional=True),
    Option("noise_alpha", float, 0.3, "self-play: Dirichlet alpha of the root noise", gt=0,
           source=_AZ, attr="noise_alpha", spec=False),
    Option("noise_frac", float, 0.0, "self-play: share of the root prior replaced by noise "
           "(AlphaZero 0.25; 0 when playing)", ge=0, le=1, source=_AZ, attr="noise_frac",
           spec=False),
)  # fmt: skip
#: spec key -> option (the keys of ``az(...)``)
AZ_KEYS: dict[str, Option] = {o.name: o for o in AZ_OPTIONS if o.spec}


class _AzConfigMethods:
    """One AlphaZero search: every option of :data:`AZ_OPTIONS` that has an ``attr``, checked."""

    def __post_init__(self) -> None:
        for o in AZ_OPTIONS:
            if o.attr:
                o.check(getattr(self, o.attr))

    @classmethod
    def from_keys(cls, keys):
        """The configuration of validated ``az(...)`` keys (a model's fields)."""
        return cls(**{o.attr: getattr(keys, o.name) for o in AZ_OPTIONS if o.attr and o.spec})


AzConfig = dataclasses.make_dataclass(
    "AzConfig",
    [(o.attr, o.annotation(), field(default=o.default)) for o in AZ_OPTIONS if o.attr],
    bases=(_AzConfigMethods,),
    namespace={"__doc__": _AzConfigMethods.__doc__},
    frozen=True,
    kw_only=True,
)
AzConfig.__module__ = __name__
