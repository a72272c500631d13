"""Every option of the UCT family, declared once (:data:`OPTIONS`), and what is made from it.

One :class:`Option` per key gives its name, type or allowed values, range, default (per formula
where it depends on one, like ``c``), description, source (author, title, section) and the tree
statistics it needs when on, as Ludii's strategy roles declare theirs. From :data:`OPTIONS` come:

* :class:`UctConfig`, the search's own record (its attributes, their defaults and checks; ``c``
  left out takes the formula's default here, in the search layer);
* :func:`spec_model`, the strict pydantic model of the ``mcts(...)`` spec string
  (:class:`mctslab.agents.mcts.MctsParams`);
* :func:`canonical_keys`, the keys of an agent's canonical spec string;
* :data:`PRESETS`, named bundles of keys (:data:`PRESET_LIST`);
* :func:`markdown_options` and :func:`markdown_presets`, the tables of ``docs/enhancements.md``.

The walk of ``c`` from a spec string to the kernel: ``mcts(c=0.5)`` -> the generated model
(:func:`mctslab.specstr.validate`) -> :class:`UctConfig` (:meth:`UctConfig.from_keys`, one step)
-> the kernel's record (built by :mod:`mctslab.search.uct`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mctslab.errors import SpecError
from mctslab.search.budget import MAX_SECONDS
from mctslab.search.enhancements import selection

FORMULAS = tuple(selection.FORMULA_CODES)


@dataclass(frozen=True)
class Needs:
    """Statistics an option needs while it is on: the value ``when`` (if given), else any value
    but ``unless``. ``node`` lists per-node arrays of :class:`mctslab.search.tree.Tree` (they set
    its bytes per node); ``other`` names tables that are not per node."""

    node: tuple[str, ...] = ()
    other: tuple[str, ...] = ()
    when: Any = None
    unless: Any = None
    note: str = ""

    def on(self, value: Any) -> bool:
        return value == self.when if self.when is not None else value != self.unless

    def text(self, key: str) -> str:
        """``value_sq`` (``formula=ucb1tuned``) and the like, for the docs."""
        names = ", ".join([*(f"`{n}`" for n in self.node), *self.other])
        if self.when is not None:
            cond = f"{key}={_fmt(self.when)}"
        elif self.unless is False:
            cond = f"{key}=true"
        elif self.unless == 0:
            cond = f"{key}>0"
        else:
            cond = f"{key}≠{_fmt(self.unless)}"
        return f"{names} (with `{cond}`{'; ' + self.note if self.note else ''})"


@dataclass(frozen=True)
class Option:
    """One key of ``mcts(...)``.

    ``name`` is the spec-string key (``spec`` false: there is none, the option exists for
    measurements from Python); ``attr`` the :class:`UctConfig` attribute it sets (None: an
    agent-level key, such as the budget). ``default`` is a value, or a mapping formula ->
    value (:data:`FORMULAS`).
    ``canonical``: ``always`` in the canonical spec string, or only when ``changed`` from the
    default (the enhancement keys, so that the strings of older agents stay as they were).
    ``only_with``: the key of the mode this key belongs to, a boolean key (``gumbel`` for the
    Gumbel keys of ``az``) or, with ``only_values``, the values of that key that turn the mode
    on (``nf_empty`` is read by ``playout`` ``nf`` and ``nf2`` only); the canonical string lists
    the key only while that mode is on, so agents without the mode keep their strings when the
    mode's defaults (or a preset's value) change.
    """

    name: str
    kind: type
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    optional: bool = False
    source: str = ""
    needs: Needs | None = None
    attr: str | None = None
    spec: bool = True
    canonical: Literal["always", "changed"] = "always"
    only_with: str = ""
    only_values: tuple[Any, ...] = ()
    shown_default: str = ""

    @property
    def per_formula(self) -> bool:
        return isinstance(self.default, Mapping)

    def omitted(self, value: Any, keys: Mapping[str, Any]) -> bool:
        """Whether a canonical spec string leaves this key out: ``changed`` and at its default,
        or its mode (``only_with``, read from ``keys``) off."""
        return self.at_default(value) or self.mode_off(keys)

    def at_default(self, value: Any) -> bool:
        """Whether a ``changed`` key has its default value."""
        return self.canonical == "changed" and value == self.default

    def mode_off(self, keys: Mapping[str, Any]) -> bool:
        """Whether the mode this key belongs to (``only_with``) is off in ``keys``."""
        if not self.only_with:
            return False
        mode = keys[self.only_with]
        return mode not in self.only_values if self.only_values else not mode

    def default_for(self, formula: str) -> Any:
        return self.default[formula] if self.per_formula else self.default

    def annotation(self) -> Any:
        ann = Literal[self.choices] if self.choices else self.kind
        return ann | None if self.optional or self.per_formula else ann

    def range_text(self) -> str:
        """``>=0``, ``>0 <=86400``, ``slides|paper``, ``true|false``..."""
        if self.choices:
            return "|".join(self.choices)
        if self.kind is bool:
            return "true|false"
        parts = [f"{s}{_fmt(v)}" for s, v in ((">=", self.ge), (">", self.gt), ("<=", self.le))]
        parts = [
            p for p, v in zip(parts, (self.ge, self.gt, self.le), strict=True) if v is not None
        ]
        finite = " finite" if self.kind is float else ""
        return f"{self.kind.__name__} {' '.join(parts)}{finite}".strip()

    def default_text(self) -> str:
        if self.shown_default:
            return self.shown_default
        if self.per_formula:
            return ", ".join(f"{k} {_fmt(v)}" for k, v in self.default.items())
        return _fmt(self.default)

    def check(self, value: Any) -> None:
        """Raise :class:`SpecError` naming the allowed values unless ``value`` is one."""
        if value is None and (self.optional or self.per_formula):
            return
        name = self.attr or self.name
        allowed = f"{name} takes {self.range_text()}"
        if self.choices:
            ok = value in self.choices
        elif self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is int:
            ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        elif self.kind is float:
            ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
        else:
            ok = isinstance(value, self.kind)
        if ok and self.kind in (int, float) and not self.choices:
            ok = (
                (self.ge is None or value >= self.ge)
                and (self.gt is None or value > self.gt)
                and (self.le is None or value <= self.le)
            )
        if not ok:
            raise SpecError(f"{name}={_fmt(value)}: not allowed; {allowed}")


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return f"{v:g}" if abs(v) < 1e6 else str(int(v))
    return str(v)


_NOGO = "Chou, Teytaud, Yen 2011, *Revisiting Monte-Carlo Tree Search on a Normal Form Game: NoGo*"
_HEX = "the Hex article series"
_SURVEY = "Browne et al. 2012, *A Survey of Monte Carlo Tree Search Methods*"

#: root visits before a decision can be hopeless (a few simulations say little)
RESIGN_MIN_VISITS = 500
#: hopeless decisions in a row after which an agent with ``resign`` gives up
RESIGN_MOVES = 3
#: ``resign``, a key of ``mcts(...)`` and of ``az(...)`` (the agent's, not the search's; the rule
#: is :mod:`mctslab.agents.resign`)
RESIGN = Option(
    "resign", float, 0.0,
    f"two-player games: resign (lose the game) after {RESIGN_MOVES} moves in a row whose chosen "
    f"move's win value is below this, each searched with at least {RESIGN_MIN_VISITS} root "
    "visits and none a pass; 0 never (mctslab gtp resigns by its --resign)",
    ge=0, le=0.5, canonical="changed",
    source="cutechess-cli's resign adjudication (movecount, score); the 3 moves measured on "
    "the committed Go games (docs/strength.md)",
)  # fmt: skip

# fmt: off
#: Every option of ``mcts(...)``, in the order of the canonical spec string.
OPTIONS: tuple[Option, ...] = (
    Option("sims", int, None, "simulations per move (10000 when neither sims nor time is given)",
           ge=1, optional=True, shown_default="10000 without time"),
    Option("time", float, None, "seconds per move (whichever of sims and time ends first)",
           gt=0, le=int(MAX_SECONDS), optional=True),
    Option("formula", str, "slides",
           "selection formula: `slides` Q + c·sqrt(2 ln N/n); `paper` W/(n+1) + "
           "C·sqrt(ln(t+1)/(n+1)); `paper_pm1` the same with rewards ±1, (2W−n)/(n+1) + "
           "C·sqrt(ln(t+1)/(n+1)); `book` Q + c·sqrt(ln N/n); `ucb1tuned` "
           "Q + c·sqrt(ln N/n · min(1/4, V))",
           choices=FORMULAS, attr="formula",
           source="slides: lecture slides *Deep Learning 12 — MCTS*, the UCT slide; paper: "
           f"{_NOGO}, §3.4; paper_pm1: the same, rewards ±1 (the paper does not give its "
           "reward scale); book: Kocsis and Szepesvári 2006, *Bandit based Monte-Carlo "
           f"planning*, as in {_SURVEY}; ucb1tuned: Auer, Cesa-Bianchi, Fischer 2002, "
           "*Finite-time analysis of the multiarmed bandit problem*, §4",
           needs=Needs(node=("value_sq",), when="ucb1tuned")),
    Option("c", float,
           {"slides": 0.7, "paper": 0.4, "paper_pm1": 0.4, "book": 1.0, "ucb1tuned": 1.0},
           "exploration constant, for win values in [0, 1] (paper_pm1: in [-1, 1]; default: "
           "the formula's)",
           ge=0, attr="c",
           source="slides 0.7 ≈ 1/sqrt(2), the constant of Kocsis and Szepesvári's analysis "
           "(0.7·sqrt(2 ln N/n) ≈ sqrt(ln N/n)); paper 0.4, the NoGo paper's best C against "
           f"C = 0 at 2,000 simulations per move ({_NOGO}, §3.4), also for paper_pm1; book "
           "1.0, the same bonus as slides; ucb1tuned 1.0 as in Auer et al. 2002, where the "
           "variance term scales the bonus"),
    Option("expand", int, 1, "visits before a node is expanded (slow node creation, z)",
           ge=1, le=1_000_000, attr="z", source=f"{_NOGO}, §3.2"),
    Option("expand_all", bool, True,
           "all children at once when a node is expanded, else one child per simulation",
           attr="expand_all", source=f"one child per simulation: {_SURVEY}"),
    Option("final", str, "robust",
           "final move: `robust` the most visits (ties: the better mean); `mean` the best mean "
           "win value, a draw counting half (ties: more visits)",
           choices=("robust", "mean"), attr="final",
           source=f"robust child and max child: {_SURVEY}; `mean` is the slides' greedy policy "
           "argmax Q(s0, a)"),
    Option("reuse", bool, True, "keep the subtree of the moves played between searches",
           attr="reuse"),
    Option("solver", bool, True, "MCTS-Solver: proven wins and losses (two-player games)",
           attr="solver",
           source="Winands, Björnsson, Saito 2008, *Monte-Carlo Tree Search Solver*"),
    Option("max_nodes", int, 2_000_000,
           "node pool size, the memory cap (the tree stops growing, the search goes on); "
           "refused when it does not fit in the available memory",
           ge=2, le=2**31 - 1, attr="max_nodes"),
    Option("leaf", str, "playout", "leaf evaluation: a uniform playout, or `coin` (a random "
           "winner, no playout)", choices=("playout", "coin"), attr="leaf",
           source=f"coin: {_NOGO}"),
    Option("preset", str, "uct", "a named bundle of the keys below (keys given explicitly win)",
           canonical="changed"),  # choices: the names of PRESET_LIST, filled in below
    Option("rave", str, "off",
           "RAVE/AMAF: the value is (1−β)·Q + β·Q̃ with the AMAF mean Q̃; `paper` β = K/(K+n); "
           "`gelly_silver` β = ñ/(n + ñ + 4b²nñ); `article` β = max(0, (K−n)/K) (the article "
           "mixes the whole UCT score, here the value only)",
           choices=tuple(selection.RAVE_CODES), attr="rave", canonical="changed",
           source=f"paper: {_NOGO}, §3.1; gelly_silver: Gelly and Silver 2011, *Monte-Carlo tree "
           f"search and rapid action value estimation in computer Go*; article: {_HEX}' RAVE "
           "agent", needs=Needs(node=("amaf_n", "amaf_v"), unless="off")),
    Option("rave_k", float, 300.0, "RAVE K (paper and article schedules)",
           gt=0, attr="rave_k", canonical="changed", source=f"{_NOGO}, §3.1"),
    Option("rave_b", float, 0.1, "RAVE bias b (gelly_silver schedule)",
           ge=0, attr="rave_b", canonical="changed", source="Gelly and Silver 2011"),
    Option("prior", float, 0.0,
           "prior knowledge at expansion: a new child's AMAF statistics start as the game's "
           "prior, a win value worth `prior` × its count of simulations (Go: Fuego's priors; "
           "NoGo: points both players may play first); 0 off; needs rave",
           ge=0, le=1000, attr="prior", canonical="changed",
           source="Gelly and Silver 2007, *Combining online and offline knowledge in UCT* "
           "(ICML), §4; Go: Enzenberger, Müller, Arneson, Segal 2010, *Fuego — An Open-Source "
           "Framework for Board Games and Go Engine Based on Monte Carlo Tree Search*, prior "
           "knowledge"),
    Option("edge_prior", float, 0.0,
           "Go: in an empty area (no stone within two points either way) a move on the first "
           "two lines gets the prior value 0 and one on the third and fourth 1, worth "
           "`edge_prior` simulations, added to the game's prior; 0 off",
           ge=0, le=1000, attr="edge_prior", canonical="changed", only_with="prior",
           source="after Pachi's edge-distance prior Q_b19 (Baudiš and Gailly 2011, *Pachi: State "
           "of the Art Open Source Go Program*, Advances in Computer Games 13), which gives "
           "lines 1 and 3 only; lines 2 and 4 are ours (docs/strength.md)"),
    Option("playout", str, "uniform",
           "base playout policy, per game: NoGo `naive`, `nf`, `nf2`, `contested`, `go`, "
           "`go_unadapted` (Go's playout by Go's rules, its captures losing); Nim `strategic`; "
           "Go `go`, `go_sa` (with self-atari avoidance), `go_fuego` (`go_sa` with Fuego's "
           "escapes by capture, low-liberty moves and captures anywhere); Hex `bridge`",
           choices=("uniform", "naive", "nf", "nf2", "contested", "bridge", "strategic", "go",
                    "go_sa", "go_fuego", "go_unadapted"),
           attr="playout",
           canonical="changed",
           source=f"naive: {_NOGO}, §3.3; nf and nf2: §3.5 (the normal form a − b); contested: "
           "§3.5's principle in its cheapest form (points legal for both first); bridge: Arneson, "
           "Hayward, Henderson 2010, *Monte Carlo Tree Search in Hex*, §IV-B; go_sa: Fuego's "
           "self-atari test (Enzenberger et al. 2010); go_fuego: the same paper's playout "
           "policy (GoUctDefaultPlayoutPolicy)"),
    Option("nf_empty", int, 0,
           "NoGo's `nf` and `nf2` playouts score moves only once at most this many points are "
           "empty, and play `contested` moves before (where most legal moves tie for the best "
           "score); 0: from the first move",
           ge=0, le=10000, attr="nf_empty", canonical="changed", only_with="playout",
           only_values=("nf", "nf2"),
           source=f"{_NOGO}, §3.5 (the normal form); the switch is ours (docs/strength.md)"),
    Option("decisive", bool, False, "playouts take a move that wins at once",
           attr="decisive", canonical="changed",
           source="Teytaud and Teytaud 2010, *On the huge benefit of decisive moves in "
           "Monte-Carlo Tree Search algorithms*"),
    Option("antidecisive", bool, False,
           "playouts never leave the opponent a move that wins at once (Hex: block its winning "
           "cell; NoGo: legal-only playouts already are)",
           attr="antidecisive", canonical="changed", source="Teytaud and Teytaud 2010"),
    Option("lgrf", bool, False, "Last Good Reply with Forgetting (LGRF-1): playouts answer the "
           "previous move with the stored last good reply",
           attr="lgrf", canonical="changed",
           source="Baier and Drake 2010, *The Power of Forgetting: Improving the "
           "Last-Good-Reply Policy in Monte Carlo Go*",
           needs=Needs(other=("reply table",), unless=False)),
    Option("pool", int, 0, "PoolRAVE: each player's pool is the `pool` moves with the best "
           "AMAF mean at the root (0 off)",
           ge=0, le=1000, attr="pool", canonical="changed",
           source=f"Hoock et al. 2010 (PoolRAVE), as in {_HEX}",
           needs=Needs(other=("root AMAF statistics per player",), unless=0)),
    Option("pool_p", float, 0.5, "PoolRAVE: probability that a playout move is drawn from the "
           "pool (played if legal)",
           ge=0, le=1, attr="pool_p", canonical="changed", source="Hoock et al. 2010"),
    Option("qbr", bool, False, "Quality-Based Rewards on playout results",
           attr="qbr", canonical="changed",
           source="Pepels, Tak, Lanctot, Winands 2014, *Quality-based Rewards for Monte-Carlo "
           "Tree Search Simulations* (ECAI)",
           needs=Needs(other=("length and quality statistics per player",), unless=False)),
    Option("qbr_a", float, 0.25, "QBR bonus weight a", ge=0, attr="qbr_a", canonical="changed",
           source="Pepels et al. 2014 (a constant here, Ludii's 0.25)"),
    Option("qbr_k", float, 1.4, "QBR sigmoid constant k", gt=0, attr="qbr_k",
           canonical="changed", source="Pepels et al. 2014 (Ludii's 1.4)"),
    RESIGN,
    Option("workers", int, 1, "root-parallel searches on threads, root statistics merged",
           ge=1, le=64, canonical="changed",
           source="Chaslot, Winands, van den Herik 2008, *Parallel Monte-Carlo Tree Search*"),
    Option("chance", str, "sampled",
           "chance events: nodes in the tree (outcomes sampled, or expanded: visited in "
           "proportion and probability-weighted), or left to playouts",
           choices=("sampled", "expanded", "playout"), attr="chance", canonical="changed",
           source="expanded: Antonoglou et al. 2022, *Planning in Stochastic Environments with a "
           "Learned Model* (Stochastic MuZero), §3",
           needs=Needs(node=("prob", "exact"), unless="playout",
                       note="in games with chance events; `exact` with the solver")),
    Option("exact", int, 0,
           "node budget of an exact (expectimax) search where the tree grows, 0 off; needs the "
           "solver", ge=0, le=10**9, attr="exact", canonical="changed",
           source="Baier and Winands 2015, *MCTS-Minimax Hybrids* (IEEE TCIAIG 7(2))"),
    Option("seed", int, None, "random seed", ge=0, optional=True),
    Option("transpositions", bool, True,
           "MCTS-Solver's table of solved positions (no spec key: off, it measures the table)",
           attr="transpositions", spec=False,
           needs=Needs(other=("solved-positions table, 8 to 16 bytes per node",),
                       unless=False, note="with the solver")),
)
# fmt: on

#: ``max_nodes``' bytes per node beyond the tree: the solved-positions table has the power of two
#: at or above ``max_nodes / 2`` slots, 16 bytes each (:mod:`mctslab.search.transpositions`).
TABLE_BYTES_PER_SLOT = 16


@dataclass(frozen=True)
class Preset:
    """A named bundle of keys (keys given explicitly in a spec override the preset's).

    ``games`` maps a game's name to the keys the preset sets in that game (the measured
    strongest configuration differs per game); ``keys`` are those of every other game."""

    name: str
    keys: Mapping[str, Any]
    what: str
    source: str = ""
    games: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def keys_for(self, game: str | None) -> dict[str, Any]:
        """The keys this preset sets in the game named ``game`` (None: in any other game)."""
        return dict(self.games.get(game, self.keys)) if game else dict(self.keys)


# fmt: off
#: ``mcts(preset=strong)``: game name -> the keys of the strongest configuration measured there
#: (the evidence for each key is in docs/strength.md).
STRONG: dict[str, dict[str, Any]] = {
    "nogo": {"rave": "paper", "c": 0.0, "rave_k": 1119.0, "playout": "nf2", "nf_empty": 20},
    "hex": {"rave": "paper", "c": 0.0, "playout": "bridge"},
    "go": {"rave": "paper", "c": 0.0, "playout": "go_sa", "prior": 1.0},
    "nim": {"playout": "strategic"},
}

#: ``mcts(preset=...)``.
PRESET_LIST: tuple[Preset, ...] = (
    Preset("uct", {}, "plain UCT"),
    Preset("rave", {"rave": "paper"}, "RAVE/AMAF, α·r + (1−α)·r′, α = n/(K+n)",
           f"{_NOGO}, §3.1"),
    Preset("pool_rave", {"rave": "paper", "pool": 10}, "RAVE plus PoolRAVE playouts",
           f"Hoock et al. 2010, as in {_HEX}"),
    Preset("lgrf", {"lgrf": True}, "Last Good Reply with Forgetting (LGRF-1)",
           f"Baier and Drake 2010, as in {_HEX}"),
    Preset("decisive", {"decisive": True, "antidecisive": True},
           "decisive and anti-decisive playout moves", f"Teytaud and Teytaud 2010; {_NOGO}, §3.3"),
    Preset("nf", {"playout": "nf"}, "the normal-form heuristic a − b (NoGo)", f"{_NOGO}, §3.5"),
    Preset("qbr", {"qbr": True}, "Quality-Based Rewards", "Pepels, Tak, Lanctot, Winands 2014"),
    Preset("strong", {}, "the strongest configuration measured for each game, by matches at "
           "equal time (docs/strength.md); plain UCT in the games without one",
           "the matches in docs/strength.md", games=STRONG),
)
# fmt: on

#: preset name -> the preset
BY_NAME: dict[str, Preset] = {p.name: p for p in PRESET_LIST}
#: preset name -> the keys it sets in a game it has no keys of its own for
PRESETS: dict[str, dict[str, Any]] = {p.name: dict(p.keys) for p in PRESET_LIST}

OPTIONS = tuple(
    dataclasses.replace(o, choices=tuple(PRESETS)) if o.name == "preset" else o for o in OPTIONS
)
#: spec key -> option (the keys of ``mcts(...)``)
BY_KEY: dict[str, Option] = {o.name: o for o in OPTIONS if o.spec}
#: UctConfig attribute -> option
BY_ATTR: dict[str, Option] = {o.attr: o for o in OPTIONS if o.attr}

#: The default exploration constant of each formula (the ``c`` option's default).
DEFAULT_C: dict[str, float] = dict(BY_ATTR["c"].default)


def _check_presets() -> None:
    for p in PRESET_LIST:
        for keys in (p.keys, *p.games.values()):
            for k, v in keys.items():
                BY_KEY[k].check(v)


_check_presets()


class _UctConfigMethods:
    """One UCT-family search: every option of :data:`OPTIONS` that has an ``attr``.

    Built from Python (``UctConfig(formula="paper")``) or from a validated spec string
    (:meth:`from_keys`), it gets the same defaults: ``c`` left out (None) is the formula's
    (:data:`DEFAULT_C`), set here. Every value is checked against its option (choices, range,
    finite floats); a bad one raises :class:`SpecError` naming the allowed values.
    ``dataclasses.replace`` keeps ``c`` as resolved: give ``c=None`` with a new formula to get
    its default.

    ``final`` picks the move played once the search ends, among the root's children (a child
    proven lost is never picked while another is not; a proven win is always picked; once every
    child is solved, the best exact value is picked, ties by this rule):

    * ``robust``: the most visits (the "robust child"); ties go to the better mean.
    * ``mean``: the best mean win value among visited children (the slides' greedy policy
      ``argmax Q(s0, a)``, the "max child"); ties go to more visits. A draw counts half a win.

    ``transpositions`` gives MCTS-Solver its table of solved positions
    (:mod:`mctslab.search.transpositions`), sized from the memory cap: the power of two at or
    above ``max_nodes / 2`` slots, 16 bytes each (8 to 16 bytes per node of ``max_nodes`` beside
    the tree's 21). It is kept across searches until :meth:`Uct.reset`. Off, the solver is the
    tree-only one of Winands et al. (2008); there is no agent key for that, it is there to
    measure the table.
    """

    def __post_init__(self) -> None:
        if self.c is None:
            object.__setattr__(self, "c", DEFAULT_C.get(self.formula))
        for attr, option in BY_ATTR.items():
            option.check(getattr(self, attr))
        if self.prior > 0 and self.rave == "off":
            raise SpecError(
                f"prior={_fmt(self.prior)}: needs rave (the prior starts a child's AMAF "
                "statistics); add rave=paper, or prior=0"
            )

    @classmethod
    def from_keys(cls, keys: Mapping[str, Any]) -> UctConfig:
        """The configuration of validated spec keys (a model's fields or a dict): every key
        that has an attribute goes to it, the others (budget, workers, seed) are left out."""
        get = keys.get if isinstance(keys, Mapping) else lambda k: getattr(keys, k)
        return cls(**{o.attr: get(o.name) for o in OPTIONS if o.attr and o.spec})

    @property
    def uses_policy(self) -> bool:
        """Whether playouts need the policies module's ``policy_playout``."""
        return (
            self.playout != "uniform"
            or self.decisive
            or self.antidecisive
            or self.lgrf
            or self.pool > 0
            or self.qbr
        )

    def node_statistics(self, chance_tree: bool = False, solver: bool = True) -> tuple[str, ...]:
        """The optional per-node arrays of the tree this search allocates (:class:`Needs`):
        ``chance_tree`` the game has chance events in the tree, ``solver`` the solver applies."""
        names: list[str] = []
        for attr, option in BY_ATTR.items():
            if option.needs and option.needs.on(getattr(self, attr)):
                names += option.needs.node
        if not chance_tree:
            names = [n for n in names if n not in ("prob", "exact")]
        elif not solver:
            names = [n for n in names if n != "exact"]
        return tuple(dict.fromkeys(names))


UctConfig = dataclasses.make_dataclass(
    "UctConfig",
    [
        (o.attr, o.annotation(), field(default=None if o.per_formula else o.default))
        for o in OPTIONS
        if o.attr
    ],
    bases=(_UctConfigMethods,),
    namespace={"__doc__": _UctConfigMethods.__doc__},
    frozen=True,
    kw_only=True,
)
UctConfig.__module__ = __name__


def canonical_keys(values: Mapping[str, Any], game: str | None = None) -> dict[str, Any]:
    """The keys of the canonical ``mcts(...)`` string from validated keys (preset applied for
    the game named ``game``), in declaration order: ``c`` spelled out (the formula's default when
    not given); the keys marked ``changed`` only where they differ from their default and the
    preset does not set them; no key of a mode that is off (``only_with``)."""
    preset = BY_NAME[values["preset"]].keys_for(game)
    keys: dict[str, Any] = {}
    for key, option in BY_KEY.items():
        value = values[key]
        if option.per_formula and value is None:
            value = option.default_for(values["formula"])
        if option.mode_off(values) or (option.at_default(value) and key not in preset):
            continue
        keys[key] = value
    return keys


def apply_preset(
    values: Mapping[str, Any], given: set[str], game: str | None = None
) -> dict[str, Any]:
    """The preset's keys (for the game named ``game``) filled in where the spec did not give
    them (``given``)."""
    preset = BY_NAME[values["preset"]].keys_for(game)
    return {k: v for k, v in preset.items() if k not in given}


def spec_model(
    name: str, config: Any, doc: str, module: str, keys: Mapping[str, Option] | None = None
) -> Any:
    """The strict pydantic model of the spec keys (``config``: the agents' model config, which
    forbids unknown keys and non-finite floats); ``keys`` another agent's options (default the
    UCT family's :data:`BY_KEY`)."""
    import pydantic

    fields = {}
    for key, o in (BY_KEY if keys is None else keys).items():
        bounds = {k: v for k, v in (("ge", o.ge), ("gt", o.gt), ("le", o.le)) if v is not None}
        extra = {"shown_default": o.default_text()} if o.shown_default or o.per_formula else None
        default = None if o.per_formula else o.default
        fields[key] = (
            o.annotation(),
            pydantic.Field(default, description=o.description, json_schema_extra=extra, **bounds),
        )
    return pydantic.create_model(name, __config__=config, __doc__=doc, __module__=module, **fields)


def solver_applies(config: Any, spec: Any) -> bool:
    """Whether MCTS-Solver runs: it reasons about wins and losses of two players whose utilities
    sum to a constant; in other games there is nothing it could prove."""
    return bool(config.solver) and spec.num_players == 2 and spec.utility_sum is not None


def tree_bytes_per_node(config: Any, spec: Any) -> int:
    """Bytes per node of the tree of ``config`` in the game ``spec``
    (:attr:`mctslab.search.tree.Tree.bytes_per_node`, with the arrays its options need)."""
    from mctslab.search.tree import Tree

    chance_tree = config.chance != "playout" and spec.num_chance_outcomes > 0
    stats = config.node_statistics(chance_tree, solver_applies(config, spec))
    return Tree(
        1,
        with_squares="value_sq" in stats,
        with_amaf="amaf_n" in stats,
        with_prob="prob" in stats,
        with_exact="exact" in stats,
    ).bytes_per_node


def table_bytes(max_nodes: int, on: bool) -> int:
    """The solved-positions table's bytes for a pool of ``max_nodes`` (0 when not ``on``)."""
    return TABLE_BYTES_PER_SLOT * (1 << ((max_nodes - 1) // 2).bit_length()) if on else 0


def memory_needed(config: Any, spec: Any, workers: int = 1, max_nodes: int | None = None) -> int:
    """Bytes of the trees and tables of ``workers`` searches of ``config`` (with ``max_nodes``
    in place of its own, if given) in the game ``spec``."""
    n = config.max_nodes if max_nodes is None else max_nodes
    table = solver_applies(config, spec) and config.transpositions
    return workers * (n * tree_bytes_per_node(config, spec) + table_bytes(n, table))


def available_memory() -> int | None:
    """Bytes that can be allocated without swapping (Linux ``MemAvailable``; else the free
    physical pages), None where neither is known."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(config: Any, spec: Any, workers: int = 1) -> None:
    """Refuse a ``max_nodes`` whose trees and tables (one per worker) do not fit in the
    available memory, naming the most that fits."""
    free = available_memory()
    need = memory_needed(config, spec, workers)
    if free is None or need <= free:
        return
    lo, hi = 1, config.max_nodes  # the most that fits is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if memory_needed(config, spec, workers, mid) <= free else (lo, mid)
    per_node = need / (workers * config.max_nodes)
    times = f" x {workers} workers" if workers > 1 else ""
    raise SpecError(
        f"max_nodes={config.max_nodes}: needs {need / 1e6:,.0f} MB ({per_node:.1f} bytes per "
        f"node with the solved-positions table{times}), but {free / 1e6:,.0f} MB of memory is "
        f"available; at most max_nodes={max(lo, 2)} fits"
    )


def describe_presets() -> str:
    """One line per preset: the keys it sets (per game where they differ) and what it is."""
    lines = []
    for p in PRESET_LIST:
        lines.append(f"    {p.name}: {_keys_text(p.keys) or '(no keys)'} — {p.what}")
        lines += [f"      {game}: {_keys_text(keys)}" for game, keys in p.games.items()]
    return "\n".join(lines)


def _keys_text(keys: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={_fmt(v)}" for k, v in keys.items())


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_options() -> str:
    """The Markdown table of every ``mcts(...)`` key (``docs/enhancements.md``)."""
    rows = ["| key | values | default | meaning | needs | source |", "|" + " --- |" * 6]
    for k, o in BY_KEY.items():
        needs = o.needs.text(k) if o.needs else ""
        rows.append(
            f"| `{k}` | {_md(o.range_text())} | {_md(o.default_text())} | {_md(o.description)} "
            f"| {_md(needs)} | {_md(o.source)} |"
        )
    t = BY_ATTR["transpositions"]
    rows.append(
        f"| (`transpositions`, Python only) | {_md(t.range_text())} | {_fmt(t.default)} "
        f"| {_md(t.description)} | {_md(t.needs.text('transpositions'))} | |"
    )
    return "\n".join(rows)


def markdown_presets() -> str:
    """The Markdown table of the presets (``docs/enhancements.md``)."""
    rows = ["| preset | keys it sets | what it is | source |", "| --- | --- | --- | --- |"]
    for p in PRESET_LIST:
        keys = f"`{_keys_text(p.keys)}`" if p.keys else "(none)"
        if p.games:
            per_game = "; ".join(f"{g}: `{_keys_text(k)}`" for g, k in p.games.items())
            keys = f"{per_game}; other games: {keys}"
        rows.append(f"| `{p.name}` | {keys} | {_md(p.what)} | {_md(p.source)} |")
    return "\n".join(rows)
