"""SPSA tuning of an agent's numeric keys from game results, every game stored, resumable.

Method: simultaneous perturbation stochastic approximation (J. C. Spall, *Implementation of the
simultaneous perturbation algorithm for stochastic optimization*, IEEE Transactions on Aerospace
and Electronic Systems 34(3), 1998, the step-by-step guidelines: gains α = 0.602, γ = 0.101 and
A ≈ 10% of the iterations), in the form Fishtest uses to tune Stockfish (the SPSA handler of the
official-stockfish/fishtest server: per parameter a start value, a range, ``c_end`` and
``r_end``; a report's result is wins − losses):

- Schedule for a plan of N iterations: ``A = 0.1·N``, ``c = c_end·N^γ``,
  ``a = r_end·c_end²·(A + N)^α``; iteration ``k`` (from 0) uses ``c_k = c/(k+1)^γ`` and
  ``a_k = a/(A+k+1)^α``, so that the last one (``k = N−1``) has ``c_k = c_end`` and
  ``a_k/c_k² = r_end`` (:class:`Schedule`).
- Iteration ``k`` draws ``Δ ∈ {−1, +1}^d`` (Rademacher, from the run seed and ``k``), plays
  θ⁺ = θ + c_k·Δ against θ⁻ = θ − c_k·Δ (both clipped to the ranges) and takes the result
  ``r`` = θ⁺'s wins − losses over the colour-swapped pair (−2..2); the update is
  ``θ ← clip(θ + a_k/c_k · r · Δ)`` (Fishtest's ``θ + R·c·r·flip`` with ``R = a_k/c_k²``): a
  step along Spall's gradient estimate ``(y⁺ − y⁻)/(2c_kΔ)`` of the score.
- With an opponent (``against``), θ⁺ and θ⁻ each play one game against it, on the same seat
  (seat ``k mod 2``), and ``r = 2·(score⁺ − score⁻)``, on the same −2..2 scale.

The pair mode is the default, as in Fishtest: one game pair measures θ⁺ against θ⁻ directly, while
against an opponent the two independent games each add their own noise to the difference (use it
when the aim is strength against one fixed reference).

A parameter is tuned on a log scale (θ is ``ln(value)``) when ``lo > 0`` and ``hi/lo >= 20``
(scale-like keys such as ``c`` and ``rave_k``), else linearly; ``c_end`` and ``r_end`` are given
for the parameter's range in its tuned scale (``c_end = 0.1`` is a tenth of the range), so one
pair of values fits every key. Integer keys are rounded when an agent is built.

Games: iteration ``k`` plays games ``2k`` and ``2k+1`` (pair mode: θ⁺ is agent A, on seat 0 then
1) or ``4k+s`` and ``4k+2+s`` with ``s = k mod 2`` (against mode: the tuned agent is A, on seat
``s`` in both); their seeds derive from the run seed and the game index
(:func:`mctslab.harness.game.seed_for`), the Rademacher draw from the run seed and ``k``, so a
rerun of the same command replays nothing and continues with the same iterates. Each game goes to
the results database (:mod:`mctslab.harness.store`) as it ends, and each iteration's state
(θ, ``c_k``, ``a_k``, Δ, result, the next θ) to the table ``tune_steps`` when its batch ends; the
table ``tune`` holds the run's identity (one tune per database: another command is refused) and
its schedule, fixed by the first run's plan (a rerun with more games continues it).

Openings (:mod:`mctslab.harness.openings`, as in matches): every game of iteration ``k`` starts
from opening ``k mod len(openings)``, so a colour-swapped pair plays one opening from both sides
(against mode: θ⁺ and θ⁻ play it from the same seat), which keeps a game whose first move decides
(Hex without the swap rule) from measuring only the colour. The openings are part of the run's
identity.

Batches (Fishtest's workers): ``batch`` iterations use the same θ, their games are played
together (``workers`` processes or Ray tasks play them concurrently), then their updates are
applied in iteration order. ``workers`` never changes the iterates, ``batch`` does (it is part of
the run's identity).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from mctslab import specstr
from mctslab.errors import MctslabError
from mctslab.harness.progress import PlainProgress

#: Spall's gains (§III): the step exponent α and the perturbation exponent γ
ALPHA = 0.602
GAMMA = 0.101
#: Spall's stability constant A as a fraction of the planned iterations
A_FRACTION = 0.1
#: a parameter with ``lo > 0`` and ``hi/lo`` at least this is tuned on a log scale
LOG_RATIO = 20.0
#: default ``c_end`` and ``r_end``, for a parameter's range in its tuned scale
C_END = 0.1
R_END = 0.1


class TuneError(MctslabError):
    """A tuning command that cannot run: a bad ``--param``, a key the agent does not have or that
    is not a number, or a database that holds another tuning run."""


# -- parameters ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One tuned key: its range ``lo..hi``, start value, scale, and whether the key is an int."""

    name: str
    lo: float
    hi: float
    start: float
    log: bool
    integer: bool = False

    def tuned(self, value: float) -> float:
        """The value on the tuned scale (``ln`` on a log scale)."""
        return math.log(value) if self.log else float(value)

    def value(self, u: float) -> float | int:
        """The key's value for a tuned-scale point (clipped to the range; rounded for an int)."""
        v = min(max(math.exp(u) if self.log else float(u), self.lo), self.hi)
        return round(v) if self.integer else v

    @property
    def bounds(self) -> tuple[float, float]:
        return self.tuned(self.lo), self.tuned(self.hi)

    def format(self, v: float | int) -> str:
        """The value as written in a spec string (6 significant digits; an int as is)."""
        return str(round(v)) if self.integer else f"{v:.6g}"


def parse_param(text: str) -> Param:
    """``name=lo..hi``, ``name=lo..hi@start``, optionally ending in ``:log`` or ``:lin``.

    The start is the geometric mean of the range on a log scale, else the arithmetic mean; the
    scale is log when ``lo > 0`` and ``hi/lo >= 20`` unless ``:log``/``:lin`` says otherwise."""
    form = "expected NAME=LO..HI[@START][:log|:lin], e.g. c=0.05..2 or rave_k=10..3000@300"
    name, eq, rest = text.partition("=")
    name = name.strip()
    scale = None
    if rest.endswith((":log", ":lin")):
        rest, scale = rest[:-4], rest[-3:]
    body, at, start_text = rest.partition("@")
    lo_text, dots, hi_text = body.partition("..")
    try:
        lo, hi = float(lo_text), float(hi_text)
        start = float(start_text) if at else None
    except ValueError:
        lo = hi = start = None
    if not eq or not dots or not name.isidentifier() or lo is None:
        raise TuneError(f"--param {text!r}: {form}")
    if not all(math.isfinite(x) for x in (lo, hi, start if at else 0.0)):
        raise TuneError(f"--param {text!r}: values must be finite numbers")
    if not lo < hi:
        raise TuneError(f"--param {text!r}: LO must be less than HI")
    log = lo > 0 and hi / lo >= LOG_RATIO if scale is None else scale == "log"
    if log and lo <= 0:
        raise TuneError(f"--param {text!r}: a log scale needs LO > 0")
    if start is None:
        start = math.sqrt(lo * hi) if log else (lo + hi) / 2
    if not lo <= start <= hi:
        raise TuneError(f"--param {text!r}: START {start:g} is outside {lo:g}..{hi:g}")
    return Param(name, lo, hi, start, log)


def with_keys(spec: str, keys: dict[str, str]) -> str:
    """The agent spec string with ``keys`` set (replacing a key the spec already gives)."""
    name, raw = specstr.parse(spec)
    return specstr.format_spec(name, {**raw, **keys})


def check_params(params: Sequence[Param], agent: str, game) -> list[Param]:
    """The parameters with their int flags, after checking each is a numeric key of ``agent``
    that accepts both ends of its range (by building the agent on ``game``); raises
    :class:`TuneError` naming the agent's numeric keys. A cold agent is announced before its
    first build compiles (:mod:`mctslab.agents.warmup`)."""
    from mctslab.agents.warmup import make_announced

    names = [p.name for p in params]
    if not params:
        raise TuneError("give at least one --param NAME=LO..HI to tune")
    if len(set(names)) != len(names):
        raise TuneError(f"--param: a key is given twice ({', '.join(names)})")
    model = type(make_announced(agent, game, seed=0)).Params
    numeric = {
        k: t
        for k, f in model.model_fields.items()
        if k != "seed" and (t := _number_type(f.annotation))
    }
    allowed = ", ".join(numeric) or "none"
    out = []
    for p in params:
        if p.name not in model.model_fields:
            raise TuneError(
                f"--param {p.name}: {agent!r} has no key {p.name!r}; its numeric keys: {allowed}"
            )
        if p.name not in numeric:
            raise TuneError(
                f"--param {p.name}: key {p.name!r} of {agent!r} is not a number; "
                f"its numeric keys: {allowed}"
            )
        q = Param(p.name, p.lo, p.hi, p.start, p.log, numeric[p.name] is int)
        for end in (q.lo, q.hi):
            try:
                make_announced(with_keys(agent, {q.name: q.format(end)}), game, seed=0)
            except MctslabError as exc:
                raise TuneError(f"--param {p.name}={p.lo:g}..{p.hi:g}: {exc}") from None
        out.append(q)
    return out


def _number_type(annotation) -> type | None:
    """``int`` or ``float`` for a key annotated so (or optional), else None (bool is not)."""
    import typing

    args = typing.get_args(annotation) or (annotation,)
    kinds = [a for a in args if a is not type(None)]
    return kinds[0] if len(kinds) == 1 and kinds[0] in (int, float) else None


# -- the SPSA arithmetic -------------------------------------------------------------------------
@dataclass(frozen=True)
class Schedule:
    """Fishtest's SPSA gains for a plan of ``iterations``: ``A``, and per parameter ``a`` and
    ``c`` (module docstring)."""

    iterations: int
    A: float
    a: tuple[float, ...]
    c: tuple[float, ...]
    alpha: float = ALPHA
    gamma: float = GAMMA

    @classmethod
    def plan(
        cls, params: Sequence[Param], iterations: int, c_end: float = C_END, r_end: float = R_END
    ) -> Schedule:
        """``A = 0.1·N``, ``c = c_end·N^γ``, ``a = r_end·c_end²·(A+N)^α`` with ``c_end`` and
        ``r_end`` scaled to each parameter's tuned range (``c_end·w`` and ``r_end/w``)."""
        n = iterations
        big_a = A_FRACTION * n
        cs, as_ = [], []
        for p in params:
            lo, hi = p.bounds
            width = hi - lo
            ce, re = c_end * width, r_end / width
            cs.append(ce * n**GAMMA)
            as_.append(re * ce**2 * (big_a + n) ** ALPHA)
        return cls(n, big_a, tuple(as_), tuple(cs))

    def gains(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(a_k, c_k)`` of iteration ``k`` (from 0): ``a/(A+k+1)^α`` and ``c/(k+1)^γ``."""
        a_k = np.asarray(self.a) / (self.A + k + 1) ** self.alpha
        c_k = np.asarray(self.c) / (k + 1) ** self.gamma
        return a_k, c_k


def rademacher(seed: int, k: int, n: int) -> np.ndarray:
    """Iteration ``k``'s perturbation directions: ``n`` independent ±1, from the run seed and
    ``k`` alone."""
    rng = random.Random(f"spsa:{seed}:{k}")
    return np.array([rng.choice((-1, 1)) for _ in range(n)], dtype=float)


def perturb(theta, delta, c_k, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """θ⁺ = clip(θ + c_k·Δ) and θ⁻ = clip(θ − c_k·Δ)."""
    step = np.asarray(c_k) * np.asarray(delta)
    return np.clip(theta + step, lo, hi), np.clip(theta - step, lo, hi)


def spsa_update(theta, delta, a_k, c_k, result: float, lo, hi) -> np.ndarray:
    """θ ← clip(θ + a_k/c_k · result · Δ) (Fishtest's update, result = θ⁺'s wins − losses)."""
    return np.clip(
        np.asarray(theta) + np.asarray(a_k) / np.asarray(c_k) * result * np.asarray(delta), lo, hi
    )


@dataclass
class Trial:
    """What an iteration asks the objective: θ⁺'s and θ⁻'s key values."""

    iteration: int
    plus: dict[str, float | int]
    minus: dict[str, float | int]


@dataclass
class Step:
    """One iteration's record: θ before the update (tuned scale), the gains, Δ, the result,
    θ after. In a batch, every trial perturbs the batch's first θ and the updates follow one
    another."""

    iteration: int
    theta: list[float]
    a_k: list[float]
    c_k: list[float]
    delta: list[int]
    result: float
    theta_next: list[float]


def spsa(
    objective: Callable[[list[Trial]], Sequence[float]],
    params: Sequence[Param],
    schedule: Schedule,
    iterations: int,
    seed: int,
    *,
    batch: int = 1,
    done: Sequence[Step] = (),
    on_batch: Callable[[list[Step]], None] | None = None,
) -> list[Step]:
    """Run SPSA to ``iterations`` iterations, continuing after the steps ``done``.

    ``objective(trials)`` returns each trial's result (θ⁺'s wins − losses, or any noisy
    difference of θ⁺'s and θ⁻'s objective); ``on_batch(steps)`` gets each batch's steps once its
    updates are made (to store them)."""
    lo, hi = _bounds(params)
    steps = list(done)
    theta = (
        np.array(steps[-1].theta_next)
        if steps
        else np.array([p.tuned(p.start) for p in params], dtype=float)
    )
    while len(steps) < iterations:
        ks = range(len(steps), min(len(steps) + batch, iterations))
        base = theta
        plans, trials = [], []
        for k in ks:
            a_k, c_k = schedule.gains(k)
            delta = rademacher(seed, k, len(params))
            plus, minus = perturb(base, delta, c_k, lo, hi)
            plans.append((k, a_k, c_k, delta))
            trials.append(Trial(k, _values(params, plus), _values(params, minus)))
        results = objective(trials)
        new = []
        for (k, a_k, c_k, delta), r in zip(plans, results, strict=True):
            nxt = spsa_update(theta, delta, a_k, c_k, float(r), lo, hi)
            new.append(
                Step(
                    k,
                    theta.tolist(),
                    a_k.tolist(),
                    c_k.tolist(),
                    [int(d) for d in delta],
                    float(r),
                    nxt.tolist(),
                )
            )
            theta = nxt
        if on_batch is not None:
            on_batch(new)
        steps.extend(new)
    return steps


def _bounds(params: Sequence[Param]) -> tuple[np.ndarray, np.ndarray]:
    """The parameters' lower and upper bounds on their tuned scales."""
    lo, hi = zip(*(p.bounds for p in params), strict=True)
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


def _values(params: Sequence[Param], point) -> dict[str, float | int]:
    return {p.name: p.value(u) for p, u in zip(params, point, strict=True)}


# -- the stored run ------------------------------------------------------------------------------
_DDL = """
CREATE TABLE IF NOT EXISTS tune (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key TEXT NOT NULL,
    command TEXT NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    schedule TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tune_steps (
    iteration INTEGER PRIMARY KEY,
    theta TEXT NOT NULL,
    value TEXT NOT NULL,
    a_k TEXT NOT NULL,
    c_k TEXT NOT NULL,
    delta TEXT NOT NULL,
    result REAL NOT NULL,
    theta_next TEXT NOT NULL,
    games TEXT NOT NULL
);
"""


class TuneLog:
    """The tuner's tables in a results store: the run's identity and schedule, and its steps."""

    def __init__(self, store, key: dict, command: str, run_id: int, schedule: Schedule):
        self._con = store.extension(_DDL)
        key_text = json.dumps(key, sort_keys=True)
        row = self._con.execute("SELECT key, command, schedule FROM tune").fetchone()
        if row is None:
            with self._con:
                self._con.execute(
                    "INSERT INTO tune VALUES (1, ?, ?, ?, ?, ?)",
                    (key_text, command, run_id, json.dumps(asdict(schedule)), _now()),
                )
            row = (key_text, command, json.dumps(asdict(schedule)))
        if row[0] != key_text:
            raise TuneError(
                f"{store.path} holds another tuning run ({row[1]}); rerun that command to "
                "resume it, or pass another --db"
            )
        saved = json.loads(row[2])
        saved["a"], saved["c"] = tuple(saved["a"]), tuple(saved["c"])
        #: the schedule of the first run (a rerun with another --games keeps it)
        self.schedule = Schedule(**saved)

    def steps(self) -> list[Step]:
        cur = self._con.execute(
            "SELECT iteration, theta, a_k, c_k, delta, result, theta_next FROM tune_steps "
            "ORDER BY iteration"
        )
        out = []
        for k, theta, a_k, c_k, delta, result, nxt in cur:
            out.append(
                Step(
                    k,
                    json.loads(theta),
                    json.loads(a_k),
                    json.loads(c_k),
                    json.loads(delta),
                    result,
                    json.loads(nxt),
                )
            )
        return out

    def add(self, steps: Sequence[Step], params: Sequence[Param], games: Callable) -> None:
        """Store a batch's steps in one transaction; ``games(k)`` are iteration k's game
        indices."""
        with self._con:
            self._con.executemany(
                "INSERT INTO tune_steps VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    (
                        s.iteration,
                        json.dumps(s.theta),
                        json.dumps(_values(params, s.theta)),
                        json.dumps(s.a_k),
                        json.dumps(s.c_k),
                        json.dumps(s.delta),
                        s.result,
                        json.dumps(s.theta_next),
                        json.dumps(games(s.iteration)),
                    )
                    for s in steps
                ],
            )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# -- games ---------------------------------------------------------------------------------------
def game_indices(k: int, against: bool) -> list[int]:
    """Iteration ``k``'s game indices: ``2k, 2k+1`` (pair mode: colours swapped) or
    ``4k+s, 4k+2+s`` with ``s = k mod 2`` (against an opponent: θ⁺ and θ⁻ on the same seat)."""
    if not against:
        return [2 * k, 2 * k + 1]
    s = k % 2
    return [4 * k + s, 4 * k + 2 + s]


class _Players:
    """Plays a batch's games: in this process (one worker), in a process pool kept for the whole
    run, or as Ray tasks through the match scheduler's Ray backend."""

    def __init__(self, workers: int, backend: str, address: str | None):
        from mctslab.harness.schedule import _RUNNERS

        if backend not in _RUNNERS:
            raise MctslabError(f"unknown backend {backend!r}; known: {', '.join(_RUNNERS)}")
        if backend != "ray" and address is not None:
            raise MctslabError("--address is for --backend ray")
        self._ray = _RUNNERS["ray"] if backend == "ray" else None
        self.workers, self.address = workers, address
        self._pool = None

    def play(self, tasks, finished: Callable[[dict], object]) -> None:
        from mctslab.harness.game import play_task

        if self._ray is not None:
            self._ray(tasks, finished, self.workers, self.address)
        elif self.workers <= 1 or len(tasks) <= 1:
            for t in tasks:
                finished(play_task(t))
        else:
            import concurrent.futures as cf

            from mctslab.harness.pools import process_pool

            if self._pool is None:
                self._pool = process_pool(self.workers, "forkserver")
            for fut in cf.as_completed([self._pool.submit(play_task, t) for t in tasks]):
                finished(fut.result())

    def close(self) -> None:
        if self._pool is not None:
            from mctslab.harness.pools import abandon

            abandon(self._pool)


@dataclass
class TuneResult:
    """A tuning run as stored: its parameters, steps, and the games' scores in iteration order
    (θ⁺'s against θ⁻, or the tuned agent's against the opponent)."""

    game: str
    agent: str
    against: str
    params: list[Param]
    schedule: Schedule
    steps: list[Step]
    scores: list[float]
    resumed: int = 0
    interrupted: bool = False
    run_id: int = 0
    db: str = ""

    @property
    def theta(self) -> list[float]:
        """The current θ (tuned scale): after the last step, or the start."""
        if self.steps:
            return self.steps[-1].theta_next
        return [p.tuned(p.start) for p in self.params]

    @property
    def values(self) -> dict[str, float | int]:
        return _values(self.params, self.theta)

    @property
    def spec(self) -> str:
        """The agent spec string with the current θ."""
        return with_keys(self.agent, {p.name: p.format(self.values[p.name]) for p in self.params})

    def as_dict(self) -> dict:
        score = sum(self.scores) / len(self.scores) if self.scores else None
        return {
            "game": self.game,
            "agent": self.agent,
            "against": self.against or None,
            "spec": self.spec,
            "theta": self.values,
            "iterations": len(self.steps),
            "games": len(self.scores),
            "score": score,
            "resumed_iterations": self.resumed,
            "interrupted": self.interrupted,
            "db": self.db,
        }


def run_tune(
    game: str,
    agent: str,
    params: Sequence[str | Param],
    n_games: int,
    store,
    *,
    against: str = "",
    seed: int = 0,
    c_end: float = C_END,
    r_end: float = R_END,
    batch: int = 1,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = False,
    command: str = "",
    openings=None,
) -> TuneResult:
    """Tune ``params`` (``name=lo..hi[@start]`` texts or :class:`Param`) of the agent spec
    ``agent`` on ``game`` by SPSA over ``n_games`` games (``n_games/2`` iterations), storing every
    game and step in ``store`` (a :class:`~mctslab.harness.store.ResultsStore`), resuming what it
    holds. ``openings`` (an :class:`~mctslab.harness.openings.OpeningBook`, a built-in set's name
    or an openings file; none by default): iteration ``k`` starts from opening ``k`` (cycling).
    Ctrl-C loses only the games in flight: the result is then what is stored
    (``interrupted``). Raises :class:`TuneError` before any game for a bad parameter, an agent
    without the key, or a store that holds another tuning run, and
    :class:`~mctslab.harness.openings.OpeningError` for a bad opening."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from mctslab.harness.game import GameTask, _load
    from mctslab.harness.openings import for_run, opening_for
    from mctslab.harness.schedule import canonical_specs

    if n_games < 2 or n_games % 2:
        raise TuneError(f"--games {n_games}: an even number of at least 2 (a pair per iteration)")
    if not (0 < c_end <= 1 and r_end > 0 and batch >= 1):
        raise TuneError("c_end must be in (0, 1], r_end > 0 and batch >= 1")
    (name,), canonical, opponent = canonical_specs(game, agent, against or agent)
    params = check_params(
        [parse_param(p) if isinstance(p, str) else p for p in params], agent, _load(name)
    )
    lines, openings_key = for_run(openings, [name])
    iterations = n_games // 2
    key = {
        "game": name,
        "agent": canonical,
        "params": [asdict(p) for p in params],
        "against": opponent if against else "",
        "seed": seed,
        "c_end": c_end,
        "r_end": r_end,
        "batch": batch,
    }
    if openings_key:  # (absent without openings: a run started before openings existed resumes)
        key["openings"] = openings_key
    label = "tune " + ",".join(p.name for p in params)
    plus_name = f"theta+/- of {agent}" if against else f"theta+ of {agent}"
    run_id = store.run_id(
        [name], plus_name, opponent if against else f"theta- of {agent}", seed, label, openings_key
    )
    log = TuneLog(
        store,
        key,
        command or json.dumps(key),
        run_id,
        Schedule.plan(params, iterations, c_end, r_end),
    )
    done = log.steps()
    resumed = min(len(done), iterations)
    stored = {r["game_index"]: r for r in store.games(run_id)}

    def objective(trials: list[Trial]) -> list[float]:
        tasks = []
        for t in trials:
            specs = [
                with_keys(agent, {p.name: p.format(v[p.name]) for p in params})
                for v in (t.plus, t.minus)
            ]
            idx = game_indices(t.iteration, bool(against))
            opening = opening_for(lines, 2 * t.iteration)  # opening k, as a match's pair k
            if against:
                tasks += [
                    GameTask(i, name, s, opponent, seed, opening)
                    for i, s in zip(idx, specs, strict=True)
                ]
            else:
                tasks += [GameTask(i, name, specs[0], specs[1], seed, opening) for i in idx]

        def finished(row: dict) -> None:
            store.add_game(run_id, row)
            stored[row["game_index"]] = row

        players.play([t for t in tasks if t.index not in stored], finished)
        out = []
        for t in trials:
            s = [stored[i]["score_a"] for i in game_indices(t.iteration, bool(against))]
            out.append(2 * (s[0] - s[1]) if against else (2 * s[0] - 1) + (2 * s[1] - 1))
        return out

    players = _Players(workers, backend, address)
    columns = (
        TextColumn("[bold]SPSA"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[theta]}"),
        TimeRemainingColumn(),
    )
    interrupted = False
    steps = done[:iterations]
    try:
        with Progress(*columns, disable=not progress) as bar:
            task = bar.add_task("tune", total=iterations, completed=resumed, theta="")
            plain = PlainProgress(bar.console, "SPSA", iterations) if progress else None

            def on_batch(new: list[Step]) -> None:
                log.add(new, params, lambda k: game_indices(k, bool(against)))
                done.extend(new)
                theta = _values(params, new[-1].theta_next)
                text = " ".join(f"{p.name}={p.format(theta[p.name])}" for p in params)
                bar.update(task, completed=len(done), theta=text)
                if plain is not None:
                    plain.update(len(done), text)

            steps = spsa(
                objective,
                params,
                log.schedule,
                iterations,
                seed,
                batch=batch,
                done=done[:iterations],
                on_batch=on_batch,
            )
    except KeyboardInterrupt:
        interrupted = True
        steps = done[:iterations]
    finally:
        players.close()
    scores = [
        stored[i]["score_a"]
        for s in steps
        for i in game_indices(s.iteration, bool(against))
        if i in stored
    ]
    return TuneResult(
        name,
        agent,
        key["against"],
        list(params),
        log.schedule,
        steps,
        scores,
        resumed,
        interrupted,
        run_id,
        store.path,
    )


def trajectory(result: TuneResult) -> tuple[list[int], dict[str, list], list[float]]:
    """Iterations ``0..n``, each parameter's value there (θ before the step; the last is the
    current θ) and the running score after each iteration's two games (NaN before the first)."""
    points = [s.theta for s in result.steps] + [result.theta]
    values = {p.name: [p.value(t[i]) for t in points] for i, p in enumerate(result.params)}
    games = np.arange(1, len(result.scores) + 1)
    running = [math.nan, *(np.cumsum(result.scores) / games)[1::2].tolist()]
    return list(range(len(points))), values, running


def write_plot(result: TuneResult, path: str | Path) -> str:
    """One panel per parameter (its value by iteration in a band θ ± c_k, a log axis on a log
    scale) and one of the running score (θ⁺ against θ⁻, or the tuned
    agent against the opponent), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, values, running = trajectory(result)
    bands = [
        perturb(np.array(s.theta), np.ones(len(s.theta)), s.c_k, *_bounds(result.params))
        for s in result.steps
    ]
    n = len(result.params)
    fig, axes = plt.subplots(n + 1, 1, sharex=True, figsize=(7, 1.8 * (n + 1) + 0.6))
    for i, (ax, p) in enumerate(zip(axes, result.params, strict=False)):
        ax.plot(xs, values[p.name], lw=1)
        if bands:
            hi, lo = ([p.value(b[j][i]) for b in bands] for j in (0, 1))
            ax.fill_between(xs[:-1], lo, hi, color="tab:blue", alpha=0.15, lw=0)
        if p.log:
            ax.set_yscale("log")
        ax.set_ylim(p.lo, p.hi)
        ax.set_ylabel(p.name)
    ax = axes[-1]
    ax.plot(xs, running, lw=1, color="tab:green")
    ax.axhline(0.5, color="grey", lw=0.5, ls="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel("score vs opponent" if result.against else "score θ+ vs θ−")
    ax.set_xlabel("iteration")
    fig.suptitle(f"SPSA on {result.game}: {result.spec}"[:110], fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)
