"""AlphaZero training by self-play: actors, a replay buffer, a learner, atomic checkpoints.

One iteration (Silver et al. 2018, "Methods"; the loop of alpha-zero-general, made synchronous):

1. **Self-play.** ``games`` games advance together, the current network guiding
   :class:`~mctslab.search.az.AzSearch` (``sims`` simulations a move, root Dirichlet noise). Each
   position yields a sample: the observation, the legal mask, the search's policy (root visit
   counts, normalised) and, once the game ends, the outcome ``z`` for the player who was to move;
   with ``value_mix`` = λ > 0 the value target is ``(1 - λ) z + λ q``, ``q`` the search's value
   of the position (:func:`~mctslab.search.az.root_value`; ±1 where MCTS-Solver proved it):
   Oracle Developers' "Lessons from AlphaZero (part 4): Improving the training target" (2018)
   found the average of ``z`` and ``q`` (λ = 1/2) better than ``z`` on Connect Four, as did
   Willemsen, Baier and Kaisers ("Value targets in off-policy AlphaZero: a new greedy backup",
   Neural Computing and Applications 2021) for their soft-Z and greedy-backup targets.
   With ``fast_sims`` > 0, *playout cap randomization* (Wu, "Accelerating Self-Play Learning in
   Go", 2019, section 3.1): each move is searched in full (``sims`` simulations, root noise)
   with probability ``full_share``, otherwise quickly (``fast_sims``, no noise), and only the
   full searches' positions become samples, so that a game costs fewer simulations and the
   value targets come from more games, less correlated with each other (KataGo: p = 0.25,
   600 and 100 simulations).
   With ``random_openings`` = p > 0 a game starts, with probability p, with k uniformly random
   legal moves, k drawn uniformly from 1 to ``random_moves``; those moves are not searched and
   give no sample. Self-play from the empty board sees few of the positions that weaker or
   careless play reaches, and the network's values of such early positions are what a
   value-keeping benchmark of mixed-strength games finds wrong (docs/alphazero.md, Connect
   Four). A simpler form of KataGo's game branching (Wu, "Accelerating Self-Play Learning in
   Go", 2019, appendix D: a few per cent of positions branch to a move drawn from the policy at
   temperature 1, 2 or infinity, so that the network has experience of "positions where both
   sides have played highly suboptimally").
   A move is drawn in proportion to the visit counts for the first ``temp_moves`` moves of a game
   (temperature 1), then the most visited (MCTS-Solver's verdicts applied to the visits:
   :func:`mctslab.search.az.playable_visits`). With ``reuse`` a game's next search starts in the
   subtree of the move played, its root noised again (AlphaZero's self-play keeps the subtree
   too). With ``gumbel`` the search is Gumbel AlphaZero's
   (no Dirichlet noise), the move the one it chose and the policy target its completed-Q
   improved policy (:mod:`mctslab.search.gumbel`); the games' sequential halvings run together,
   their leaves batched (:meth:`~mctslab.search.az.AzSearch.gumbel_many`). With ``workers`` > 1
   the games are shared among that many processes (spawned once), each with its own seed.
   With ``overlap`` the worker processes play the *next* iteration's games while the learner
   (step 3) learns from this one's, so self-play and learning share the cores instead of
   taking turns; those games are played by the network as it was before this iteration's
   learning, one iteration behind (the actors of Silver et al. 2018 play whatever network the
   learner last published; here the lag is fixed, so a seeded run stays reproducible). The
   games in flight are described in the checkpoint (their seed and network), so a resumed run
   plays them again exactly.
   With ``expert`` (an agent spec), the first ``expert_iterations`` iterations' games are
   played by that agent against itself instead of by the network: Expert Iteration's start
   (Anthony, Tian and Barber, "Thinking Fast and Slow with Deep Learning and Tree Search",
   NeurIPS 2017: a tree search is the expert, the network the apprentice that learns to
   imitate its moves, and then guides the search; their first expert, on Hex, was MCTS without
   a network). Each position's policy target is the expert's root visit counts, normalised, its
   value target the outcome (mixed with the expert's value of the move it would choose with
   ``value_mix``); moves are drawn as above, in proportion to the visits for the first
   ``temp_moves`` moves, then the expert's own choice (:func:`expert_play`). Whether a strong
   pure MCTS as the expert (``mcts(preset=strong)``) makes a stronger network in the same time
   than self-play from a random network is not measured yet.
   With ``int8`` self-play evaluates the network by ONNX Runtime with its convolutions
   quantised to 8-bit integers, calibrated anew on each iteration's network (the backend of
   ``az(int8=true)``, :func:`mctslab.search.az_net._onnxruntime_int8`): on a CPU with fast
   integer arithmetic the games cost about half the time (Connect Four, 3 x 64: 2.3 times the
   positions a second, docs/alphazero.md), their moves those of an approximation of the
   network; the learner, the evaluations' own agents and the saved network stay in floats.
2. **Replay buffer.** The last ``buffer`` samples; a sample drawn for learning is mapped by one of
   the game's symmetries, drawn uniformly (data augmentation, :mod:`mctslab.games.symmetry`).
3. **Learner.** ``steps`` steps of Adam on minibatches of ``batch`` samples, loss
   ``(z - v)^2 - pi . log p`` (weight decay ``weight_decay`` as the L2 term), learning rate
   ``lr``, divided by 10 from each iteration of ``lr_drops`` on (the step schedule of Silver
   et al. 2018). A resumed run may also be given another learning rate (a drop by hand) or
   another schedule of the drops still ahead; each change of the rate is kept in the checkpoint
   and the card (``lr_schedule``: the iteration from which each rate applies).
4. **Evaluation** every ``eval_every`` iterations when ``eval_games`` > 0: matches against a
   pure MCTS agent and the best network so far, in the run's results database
   (:mod:`mctslab.harness.az_eval`).
5. **Checkpoint.** ``checkpoint.pt`` (network, optimiser, buffer, counters, every random state)
   and ``model.pt`` (the network alone, for ``az(net=...)``) are written to a temporary file and
   renamed into place (so is ``model.json``, the model card: game, network shape, training time
   and counts, configuration), so a run killed at any moment (``kill -9``) resumes from the last
   finished iteration, exactly as if it had not stopped. A seeded run is reproducible on one
   machine (the same thread count; ``torch.use_deterministic_algorithms``). The buffer is kept
   in the checkpoint losslessly compressed (:func:`pack_buffer`: NumPy's zip deflate, the
   observation planes and masks of 0s and 1s a few per cent of their size), so that a run's
   folder is small enough to commit and a run goes on in another session or on another machine.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mctslab.errors import MctslabError
from mctslab.games.base import Game
from mctslab.games.registry import load_game
from mctslab.harness.az_config import TrainConfig
from mctslab.harness.pools import abandon, process_pool
from mctslab.search import az_net, az_tree
from mctslab.search.az import (
    AzSearch,
    check_game,
    playable_visits,
    root_children,
    root_value,
)

CHECKPOINT = "checkpoint.pt"
MODEL = "model.pt"
#: the model card beside the model (JSON)
CARD = "model.json"


def self_play(
    game: Game, net: az_net.AzNet, cfg: TrainConfig, n_games: int, seed: int
) -> dict[str, np.ndarray]:
    """Play ``n_games`` games together; return their samples (module docstring, step 1)."""
    rng = np.random.default_rng(seed)
    backend = az_net.INT8 if cfg.int8 else None
    search = AzSearch(game, cfg.search_config(), az_net.Evaluator(net, backend, game), seed)
    capped = cfg.fast_sims > 0 and not cfg.gumbel
    quick = search  # playout cap randomization's quick searches: no root noise
    if capped:
        quick_cfg = dataclasses.replace(cfg.search_config(), noise_frac=0.0)
        quick = AzSearch(game, quick_cfg, search.evaluate, seed + 1)
    a = game.spec.num_distinct_actions
    states = [game.new_initial_state() for _ in range(n_games)]
    for state in states:
        _random_opening(state, cfg, rng)
    records: list[list[tuple]] = [[] for _ in range(n_games)]
    active = [i for i in range(n_games) if not states[i].is_terminal()]
    reuse = cfg.reuse and not cfg.gumbel
    kept: dict[int, az_tree.AzTree] = {}  # game -> the subtree of the move it played (reuse)
    while active:
        full = [not capped or rng.random() < cfg.full_share for _ in active]
        trees = [kept.pop(i, None) or search.new_tree(cfg.sims) for i in active]
        for tree, f in zip(trees, full, strict=True):
            if f:  # a reused root; a fresh one gets its noise when expanded
                search.noise_root(tree)
        roots = [states[i].array.copy() for i in active]
        if cfg.gumbel:  # every game's sequential halving together, leaves batched
            chosen = search.gumbel_many(trees, roots, cfg.sims)
        else:
            for searcher, sims, group in ((search, cfg.sims, True), (quick, cfg.fast_sims, False)):
                sel = [j for j, f in enumerate(full) if f is group]
                if sel:
                    searcher.run([trees[j] for j in sel], [roots[j] for j in sel], sims)
        for j, (tree, i) in enumerate(zip(trees, active, strict=True)):
            state = states[i]
            actions, _, _, priors = root_children(tree)
            visits = playable_visits(tree)  # MCTS-Solver's verdicts applied
            weights = visits if visits.sum() > 0 else priors
            pi = np.zeros(a, dtype=np.float32)
            if cfg.gumbel:  # the completed-Q improved policy, and the move Gumbel chose
                pi[actions] = chosen[j][1]
                move = int(tree.action[chosen[j][0]])
            else:
                pi[actions] = weights / weights.sum()
                if len(state.history) < cfg.temp_moves:
                    move = int(rng.choice(actions, p=weights / weights.sum()))
                else:
                    move = int(actions[np.lexsort((-priors, -weights))[0]])
            if full[j]:
                records[i].append(
                    (game.observation(state.array), game.legal_mask(state.array), pi,
                     state.current_player(), root_value(tree))
                )  # fmt: skip
            state.apply_action(move)
            child = az_tree.child_by_action(tree, 0, move) if reuse else -1
            if child >= 0 and tree.first_child[child] >= 0 and not state.is_terminal():
                kept[i] = search.subtree(tree, child, search.capacity(cfg.sims))[0]
        active = [i for i in active if not states[i].is_terminal()]
    return _samples(game, states, records, cfg.value_mix)


def _random_opening(state, cfg: TrainConfig, rng: np.random.Generator) -> None:
    """With probability ``random_openings``, 1 to ``random_moves`` uniformly random legal moves
    from ``state`` (module docstring, step 1)."""
    if cfg.random_openings > 0 and rng.random() < cfg.random_openings:
        for _ in range(int(rng.integers(1, cfg.random_moves + 1))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


def _samples(game: Game, states: list, records: list[list[tuple]], mix: float):
    """The samples of finished games: ``records[i]`` holds game ``i``'s positions as
    ``(observation, legal mask, policy target, player to move, search value q)``, ``states[i]``
    its final state; the value target is ``(1 - mix) z + mix q``."""
    a = game.spec.num_distinct_actions
    obs, masks, pis, zs = [], [], [], []
    for state, rec in zip(states, records, strict=True):
        returns = state.returns()
        for o, m, p, player, q in rec:
            obs.append(o)
            masks.append(m)
            pis.append(p)
            zs.append((1 - mix) * returns[player] + mix * q)
    if not obs:  # every move searched quickly (playout cap randomization): no sample
        first = game.new_initial_state().array
        o, m = game.observation(first), game.legal_mask(first)
        return {
            "obs": np.zeros((0, *o.shape), o.dtype),
            "mask": np.zeros((0, *m.shape), m.dtype),
            "pi": np.zeros((0, a), np.float32),
            "z": np.zeros(0, np.float32),
        }
    return {
        "obs": np.stack(obs),
        "mask": np.stack(masks),
        "pi": np.stack(pis),
        "z": np.asarray(zs, dtype=np.float32),
    }


def expert_play(game: Game, cfg: TrainConfig, n_games: int, seed: int) -> dict[str, np.ndarray]:
    """Play ``n_games`` games of ``cfg.expert`` against itself, one agent a seat, and return
    their samples (module docstring, step 1: Expert Iteration's start)."""
    from mctslab.agents import make_agent

    rng = np.random.default_rng(seed)
    a = game.spec.num_distinct_actions
    seats = [
        make_agent(cfg.expert, game, seed=int(rng.integers(2**62)))
        for _ in range(game.num_players())
    ]
    states, records = [], []
    try:
        for _ in range(n_games):
            for agent in seats:
                agent.reset()
            state = game.new_initial_state()
            _random_opening(state, cfg, rng)
            rec = []
            while not state.is_terminal():
                player = state.current_player()
                res = seats[player].search(state)
                actions = np.asarray(res.actions, dtype=np.int64)
                visits = np.asarray(res.visits, dtype=np.float64)
                pi = np.zeros(a, dtype=np.float32)
                if visits.sum() > 0:
                    pi[actions] = visits / visits.sum()
                else:  # a search that ran no simulation (a forced move)
                    pi[res.action] = 1.0
                move = res.action
                if len(state.history) < cfg.temp_moves and visits.sum() > 0:
                    move = int(rng.choice(actions, p=visits / visits.sum()))
                chosen = np.flatnonzero(actions == res.action)
                q = 2.0 * res.values[chosen[0]] - 1.0 if len(chosen) else 0.0
                rec.append(
                    (game.observation(state.array), game.legal_mask(state.array), pi, player, q)
                )
                state.apply_action(move)
            states.append(state)
            records.append(rec)
    finally:
        for agent in seats:
            agent.close()
    return _samples(game, states, records, cfg.value_mix)


def cpu_weights(net: az_net.AzNet) -> dict[str, torch.Tensor]:
    """A copy of ``net``'s weights on the CPU (what a worker process is sent)."""
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


def worker_jobs(
    cfg: TrainConfig, net: az_net.AzNet, workers: int, seed: int,
    weights: dict[str, torch.Tensor] | None = None, expert: bool = False,
) -> list[tuple]:  # fmt: skip
    """The self-play of ``cfg.games`` games shared among ``workers`` processes: one job per
    worker for :func:`_worker_play`, worker ``w`` seeded ``seed + w``, playing ``weights``
    (by default ``net``'s own), or with ``expert`` the expert's games (:func:`expert_play`)."""
    weights = cpu_weights(net) if weights is None else weights
    shares = [cfg.games // workers + (w < cfg.games % workers) for w in range(workers)]
    shape = dataclasses.asdict(net.shape)
    return [(cfg, shape, weights, n, seed + w, expert) for w, n in enumerate(shares) if n]


def merge_samples(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The samples of several self-play jobs (:func:`_worker_play`), in order, as one set."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _worker_play(args: tuple) -> dict[str, np.ndarray]:
    """Self-play in a worker process (the network arrives as its state dict)."""
    cfg, shape, weights, n_games, seed, expert = args
    torch.set_num_threads(1)
    game = load_game(cfg.game)
    if expert:
        return expert_play(game, cfg, n_games, seed)
    net = az_net.AzNet(az_net.NetShape(**shape))
    net.load_state_dict(weights)
    return self_play(game, net, cfg, n_games, seed)


class Buffer:
    """The last ``capacity`` samples, in arrays (a ring)."""

    def __init__(self, capacity: int, data: dict[str, np.ndarray] | None = None, at: int = 0):
        """``data``: the filled rows of a saved buffer (:meth:`filled`), ``at`` its count."""
        self.capacity = capacity
        self.data = {}
        self.at = at  # samples ever added
        for k, v in (data or {}).items():
            self.data[k] = np.zeros((capacity, *v.shape[1:]), v.dtype)
            self.data[k][: len(v)] = v

    def filled(self) -> dict[str, np.ndarray]:
        """The rows in use (what a checkpoint keeps)."""
        return {k: v[: len(self)] for k, v in self.data.items()}

    def __len__(self) -> int:
        return min(self.at, self.capacity)

    def add(self, samples: dict[str, np.ndarray]) -> None:
        n = len(samples["z"])
        if not self.data:
            self.data = {
                k: np.zeros((self.capacity, *v.shape[1:]), v.dtype) for k, v in samples.items()
            }
        idx = (self.at + np.arange(n)) % self.capacity
        for k, v in samples.items():
            self.data[k][idx] = v
        self.at += n

    def sample(self, rng: np.random.Generator, n: int, symmetries) -> dict[str, np.ndarray]:
        """``n`` samples drawn uniformly, each mapped by a uniformly drawn symmetry."""
        idx = rng.integers(0, len(self), size=n)
        out = {k: v[idx].copy() for k, v in self.data.items()}
        which = rng.integers(0, len(symmetries), size=n)
        for s, sym in enumerate(symmetries):
            sel = which == s
            if s == 0 or not sel.any():
                continue
            out["obs"][sel] = sym.observation(out["obs"][sel])
            out["mask"][sel] = sym.policy(out["mask"][sel])
            out["pi"][sel] = sym.policy(out["pi"][sel])
        return out


def pack_buffer(data: dict[str, np.ndarray]) -> bytes:
    """The buffer's arrays as one compressed ``.npz`` (lossless: :func:`unpack_buffer` gives
    them back bit for bit)."""
    out = io.BytesIO()
    np.savez_compressed(out, **data)
    return out.getvalue()


def unpack_buffer(blob: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def learn_step(net, opt, batch: dict[str, np.ndarray]) -> tuple[float, float]:
    """One Adam step on a minibatch; returns the policy and value losses."""
    dev = az_net.device()
    net.train()
    logp, v = net(torch.from_numpy(batch["obs"]).to(dev), torch.from_numpy(batch["mask"]).to(dev))
    pi = torch.from_numpy(batch["pi"]).to(dev)
    z = torch.from_numpy(batch["z"]).to(dev)
    policy_loss = -(pi * logp.clamp(min=-30)).sum(1).mean()
    value_loss = ((z - v) ** 2).mean()
    opt.zero_grad()
    (policy_loss + value_loss).backward()
    opt.step()
    return float(policy_loss.detach()), float(value_loss.detach())


def _replan_drops(old: tuple[int, ...], new: tuple[int, ...], iteration: int) -> tuple[int, ...]:
    """A resumed run's drop schedule: the drops it has taken (before ``iteration``, the next
    iteration's number, the first a drop at ``iteration`` would apply to) and ``new`` instead of
    the ones still ahead; a drop of ``new`` already passed is an error."""
    passed = [d for d in new if d < iteration]
    if passed:
        raise MctslabError(
            f"--lr-drop {passed[0]}: the run is at iteration {iteration}; a resumed run's drops "
            f"must be at {iteration} or later (or give --lr for a drop now)"
        )
    return tuple(sorted({d for d in old if d < iteration} | set(new)))


class Trainer:
    """A training run in a folder: starts fresh, or resumes from its checkpoint."""

    def __init__(
        self, cfg: TrainConfig, out: str | Path, workers: int = 1, lr: float | None = None,
        overlap: bool | None = None, lr_drops: tuple[int, ...] | None = None,
        int8: bool | None = None, expert_iterations: int | None = None, keep_every: int = 0,
    ):  # fmt: skip
        """``lr``: the learning rate from now on (a new run's ``cfg.lr``, or a resumed run's
        new rate); None keeps ``cfg.lr`` for a new run and the run's own for a resumed one.
        ``overlap``, ``int8`` and ``expert_iterations`` likewise (how self-play runs, like
        ``workers``: a resumed run may change them). ``lr_drops`` given to a resumed run
        replaces the drops still ahead of it (each at its next iteration or later,
        :func:`_replan_drops`); None keeps them. ``keep_every``: besides the evaluated
        networks, freeze the network of every ``keep_every``-th iteration into
        ``models/iter-N.pt`` (0: none), a setting of this process like ``workers``."""
        how = {
            k: v
            for k, v in (
                ("overlap", overlap), ("int8", int8), ("expert_iterations", expert_iterations)
            )
            if v is not None
        }  # fmt: skip
        self.out = Path(out)
        self.workers = workers
        self.keep_every = keep_every
        path = self.out / CHECKPOINT
        torch.use_deterministic_algorithms(True)
        self.game = load_game(cfg.game)
        check_game(self.game)
        spec = self.game.spec.spec_string
        if path.exists():
            try:
                ck = torch.load(path, map_location="cpu", weights_only=False)
                unknown = set(ck["config"]) - {f.name for f in dataclasses.fields(TrainConfig)}
            except Exception as exc:
                raise MctslabError(
                    f"{path}: not a checkpoint of mctslab train az ({type(exc).__name__}); "
                    "use another --out folder"
                ) from None
            if unknown:
                raise MctslabError(
                    f"{path}: written by a newer mctslab (settings {', '.join(sorted(unknown))})"
                )
            if ck["config"]["game"] != spec:
                raise MctslabError(
                    f"{path}: a run for {ck['config']['game']}, not {spec}; "
                    "use another --out folder"
                )
            self.cfg = dataclasses.replace(TrainConfig(**ck["config"]), **how)
            if lr_drops is not None:
                self.cfg = dataclasses.replace(
                    self.cfg, lr_drops=_replan_drops(self.cfg.lr_drops, lr_drops, ck["iteration"])
                )
        else:
            ck = None
            self.cfg = dataclasses.replace(
                cfg, game=spec, lr=cfg.lr if lr is None else lr, **how
            )  # fmt: skip
            if self.cfg.expert:
                # a bad spec fails here; the run keeps the spec as resolved now, since a preset
                # may change before the run resumes
                from mctslab.agents import make_agent

                expert = make_agent(self.cfg.expert, self.game, seed=0)
                expert.close()
                self.cfg = dataclasses.replace(self.cfg, expert=expert.spec_string)
        if self.cfg.expert_iterations and not self.cfg.expert:
            raise MctslabError(
                f"{self.cfg.expert_iterations} expert iterations need an expert agent "
                "(--expert, given to a new run)"
            )
        torch.manual_seed(self.cfg.seed)
        shape = az_net.shape_for(self.game, self.cfg.blocks, self.cfg.channels, self.cfg.hidden)
        self.net = az_net.AzNet(shape).to(az_net.device())
        self.opt = torch.optim.Adam(
            self.net.parameters(), lr=self.cfg.lr, weight_decay=self.cfg.weight_decay
        )
        self.rng = np.random.default_rng(self.cfg.seed)
        self.buffer = Buffer(self.cfg.buffer)
        self.iteration = self.games = self.steps = 0
        self.seconds = 0.0
        self.last: dict[str, float] = {}
        self.evaluations: list[dict[str, Any]] = []
        self.best: str | None = None
        self.lr_schedule = [{"iteration": 0, "lr": self.cfg.lr}]
        if ck is not None:
            az_net.check_weights(self.net, ck["net"], path)
            self.net.load_state_dict(ck["net"])
            self.opt.load_state_dict(ck["optimizer"])
            data = ck["buffer"]  # a dict of arrays in checkpoints written before pack_buffer
            data = unpack_buffer(data) if isinstance(data, bytes) else data
            self.buffer = Buffer(self.cfg.buffer, data, ck["buffer_at"])
            self.rng.bit_generator.state = ck["rng"]
            torch.set_rng_state(ck["torch_rng"])
            self.iteration, self.games, self.steps = ck["iteration"], ck["games"], ck["steps"]
            self.seconds, self.last = ck["seconds"], ck["last"]
            self.evaluations, self.best = ck["evaluations"], ck["best"]
            if self.best is not None:  # the run's folder may have moved since: find it in there
                from mctslab.harness.az_eval import MODELS

                self.best = str(self.out / MODELS / Path(self.best).name)
                if self.cfg.eval_games and not Path(self.best).is_file():
                    raise MctslabError(
                        f"{path}: the run's best network so far, {self.best}, is missing (the "
                        "next evaluation plays against it): put the file back before resuming"
                    )
            self.lr_schedule = ck.get("lr_schedule", self.lr_schedule)
            if lr is not None and lr != self.cfg.lr:
                self._set_lr(lr)
        #: with ``overlap``: the seed and network of the next iteration's self-play (in flight)
        self.ahead: dict[str, Any] | None = None if ck is None else ck.get("ahead")
        self._pending: list[Future] | None = None
        self.symmetries = self.game.symmetries()
        self._pool: ProcessPoolExecutor | None = None

    def expert_plays(self, iteration: int) -> bool:
        """Whether the expert plays iteration ``iteration``'s games (module docstring)."""
        return bool(self.cfg.expert) and iteration < self.cfg.expert_iterations

    def _self_play(self, seed: int) -> dict[str, np.ndarray]:
        cfg = self.cfg
        expert = self.expert_plays(self.iteration)
        if self.workers == 1:
            if expert:
                return expert_play(self.game, cfg, cfg.games, seed)
            return self_play(self.game, self.net.eval(), cfg, cfg.games, seed)
        jobs = self._submit(seed, cpu_weights(self.net), expert)
        return merge_samples([f.result() for f in jobs])

    def _submit(self, seed: int, weights: dict[str, torch.Tensor], expert: bool) -> list[Future]:
        """Start an iteration's self-play, seeded by ``seed`` and playing ``weights`` (or the
        expert's games), in the worker processes (started on first use)."""
        if self._pool is None:
            self._pool = process_pool(self.workers, "spawn")
        jobs = worker_jobs(self.cfg, self.net, self.workers, seed * 1000, weights, expert)
        return [self._pool.submit(_worker_play, job) for job in jobs]

    def _plan_ahead(self, iteration: int) -> None:
        """Draw the seed of iteration ``iteration``'s self-play and keep the network as it is
        now for it."""
        self.ahead = {
            "seed": int(self.rng.integers(2**62)),
            "net": cpu_weights(self.net),
            "iteration": iteration,
        }

    def _submit_ahead(self) -> list[Future]:
        """Start the planned self-play (a checkpoint written before 2026-12-02 names no
        iteration: it is the one about to run)."""
        at = self.ahead.get("iteration", self.iteration)
        return self._submit(self.ahead["seed"], self.ahead["net"], self.expert_plays(at))

    def _overlapped_self_play(self) -> dict[str, np.ndarray]:
        """This iteration's samples, played while the last iteration learnt (started now if
        nothing is in flight: a run's first iteration, or a resumed one), and the next
        iteration's self-play started with the network as it is before this learning."""
        if self.ahead is None:
            self._plan_ahead(self.iteration)
        pending = self._pending or self._submit_ahead()
        parts = [f.result() for f in pending]
        self._plan_ahead(self.iteration + 1)
        self._pending = self._submit_ahead()
        return merge_samples(parts)

    def _set_lr(self, lr: float) -> None:
        """The learning rate from this iteration on, recorded in ``lr_schedule``."""
        self.cfg = dataclasses.replace(self.cfg, lr=lr)
        for group in self.opt.param_groups:
            group["lr"] = lr
        self.lr_schedule.append({"iteration": self.iteration, "lr": lr})

    def iterate(self) -> dict[str, float]:
        """One iteration (module docstring), checkpointed at its end."""
        if self.iteration in self.cfg.lr_drops:
            self._set_lr(self.cfg.lr / 10)
        t0 = time.perf_counter()
        if self.cfg.overlap:
            samples = self._overlapped_self_play()
        else:
            samples = self._self_play(int(self.rng.integers(2**62)))
        t1 = time.perf_counter()
        self.buffer.add(samples)
        losses = [
            learn_step(self.net, self.opt, self.buffer.sample(self.rng, self.cfg.batch,
                                                              self.symmetries))
            for _ in range(self.cfg.steps)
        ]  # fmt: skip
        self.iteration += 1
        self.games += self.cfg.games
        self.steps += self.cfg.steps
        t2 = time.perf_counter()
        self.seconds += t2 - t0
        # self-play's positions a second: over its own time, or (overlapped with learning) over
        # the iteration's
        played = (t2 if self.cfg.overlap else t1) - t0
        self.last = {
            "positions": float(len(samples["z"])),
            "positions_per_second": len(samples["z"]) / max(played, 1e-9),
            "policy_loss": float(np.mean([p for p, _ in losses])),
            "value_loss": float(np.mean([v for _, v in losses])),
        }
        if self.cfg.eval_games and self.iteration % self.cfg.eval_every == 0:
            self._evaluate()
        elif self.keep_every and self.iteration % self.keep_every == 0:
            self._snapshot()
        self.save()
        return self.last

    def _snapshot(self) -> Path:
        """Freeze the network into ``models/iter-N.pt`` (N: the iterations done)."""
        from mctslab.harness.az_eval import MODELS

        snapshot = self.out / MODELS / f"iter-{self.iteration:05d}.pt"
        az_net.save(snapshot, az_net.net_payload(self.net, self.cfg.game))
        return snapshot

    def _evaluate(self) -> None:
        """Freeze the network and play the evaluation matches (:mod:`mctslab.harness.az_eval`)."""
        from mctslab.harness import az_eval

        cfg = self.cfg
        snapshot = self._snapshot()
        entry = az_eval.evaluate(
            self.out, self.game, self.iteration, self.seconds, snapshot, self.best,
            cfg.eval_games, cfg.eval_sims, cfg.eval_against,
        )  # fmt: skip
        if entry["promoted"]:
            self.best = str(snapshot)
        self.evaluations.append(entry)
        az_eval.plot(self.evaluations, self.out / az_eval.PLOT)

    def save(self) -> None:
        payload = {
            "config": dataclasses.asdict(self.cfg),
            "net": self.net.state_dict(),
            "optimizer": self.opt.state_dict(),
            "buffer": pack_buffer(self.buffer.filled()),
            "buffer_at": self.buffer.at,
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "iteration": self.iteration,
            "games": self.games,
            "steps": self.steps,
            "seconds": self.seconds,
            "last": self.last,
            "evaluations": self.evaluations,
            "best": self.best,
            "lr_schedule": self.lr_schedule,
            "ahead": self.ahead,
        }
        az_net.save(self.out / CHECKPOINT, payload)
        az_net.save(
            self.out / MODEL,
            {**az_net.net_payload(self.net, self.cfg.game), "iteration": self.iteration},
        )
        card = self.out / CARD
        tmp = card.with_name(card.name + ".tmp")
        tmp.write_text(json.dumps(self.model_card(), indent=1) + "\n")
        os.replace(tmp, card)
        # a run killed while writing (kill -9) leaves that write's temporary file behind; every
        # write of this run is finished now, so any temporary file left is such a leftover
        from mctslab.harness.az_eval import MODELS

        for folder in (self.out, self.out / MODELS):
            for stale in folder.glob("*.tmp"):
                stale.unlink(missing_ok=True)

    def model_card(self) -> dict[str, Any]:
        """What ``model.json`` says of ``model.pt``: the game, the network's shape and size,
        the training so far and its configuration, the last iteration's figures."""
        return {
            "game": self.cfg.game,
            "network": dataclasses.asdict(self.net.shape),
            "parameters": sum(p.numel() for p in self.net.parameters()),
            "iterations": self.iteration,
            "games": self.games,
            "learner_steps": self.steps,
            "training_seconds": round(self.seconds, 1),
            "device": str(az_net.device()),
            "torch": torch.__version__,
            "config": dataclasses.asdict(self.cfg),
            "lr_schedule": self.lr_schedule,
            "last_iteration": self.last,
            "best": self.best,
            "evaluations": self.evaluations,
        }

    def run(
        self,
        steps: int | None = None,
        minutes: float | None = None,
        report: Callable[[Trainer], Any] | None = None,
    ) -> None:
        """Iterate until ``steps`` learner steps in all, or ``minutes`` more minutes, have
        passed (whichever first)."""
        start = time.perf_counter()
        try:
            while (steps is None or self.steps < steps) and (
                minutes is None or time.perf_counter() - start < 60 * minutes
            ):
                self.iterate()
                if report is not None:
                    report(self)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker processes; self-play in flight is dropped (the checkpoint describes
        it, so a resumed run plays it again)."""
        if self._pool is not None:
            abandon(self._pool)
            self._pool = None
        self._pending = None


def throughput(cfg: TrainConfig, workers: int = 1) -> dict[str, Any]:
    """Self-play speed with an untrained network of ``cfg``'s shape: one round of ``cfg.games``
    games (in ``workers`` processes), timed after a warm-up (a game in this process; with
    workers, a first round) that compiles and loads.
    Positions per second and network evaluations per second (counted in this process)."""
    game = load_game(cfg.game)
    check_game(game)
    torch.manual_seed(cfg.seed)
    net = az_net.AzNet(az_net.shape_for(game, cfg.blocks, cfg.channels, cfg.hidden))
    self_play(game, net.eval(), dataclasses.replace(cfg, sims=2), 1, cfg.seed)  # warm-up
    t0 = time.perf_counter()
    if workers == 1:
        samples = self_play(game, net, cfg, cfg.games, cfg.seed)
    else:
        jobs = worker_jobs(cfg, net, workers, cfg.seed)
        with process_pool(workers, "spawn") as p:
            list(p.map(_worker_play, jobs))  # a first round: the workers compile and load
            t0 = time.perf_counter()
            parts = list(p.map(_worker_play, jobs))
        samples = merge_samples(parts)
    seconds = time.perf_counter() - t0
    positions = len(samples["z"])
    return {
        "game": game.spec.spec_string,
        "network": dataclasses.asdict(net.shape),
        "sims": cfg.sims,
        "games": cfg.games,
        "int8": cfg.int8,
        "workers": workers,
        "positions": positions,
        "seconds": seconds,
        "positions_per_second": positions / seconds,
        "simulations_per_second": positions * cfg.sims / seconds,
    }
