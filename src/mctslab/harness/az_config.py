"""The configuration of an AlphaZero training run (``az_train``), in a module
of its own without PyTorch, so that ``mctslab train az --help`` takes every option's default from
:class:`TrainConfig`'s fields (one declaration) without loading the learner."""

from __future__ import annotations

from dataclasses import dataclass, fields

from mctslab.search.az_options import AzConfig

#: actions Gumbel self-play considers at the root (Danihelka et al. 2022; mctx's default)
SELF_PLAY_GUMBEL_M = 16


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run is made of; stored in its checkpoint (a resumed run keeps it)."""

    game: str
    blocks: int = 2
    channels: int = 32
    hidden: int = 64
    sims: int = 50
    games: int = 32
    temp_moves: int = 8
    buffer: int = 50_000
    batch: int = 128
    steps: int = 40
    lr: float = 1e-3
    #: iterations from which the learning rate is divided by 10 (a step schedule)
    lr_drops: tuple[int, ...] = ()
    #: the value target's weight of the search's value (``az_train``, step 1); 0: ``z``
    value_mix: float = 0.0
    #: playout cap randomization (``az_train``, step 1): the quick searches' simulations
    #: (0: every move searched in full) and the share of moves searched in full
    fast_sims: int = 0
    full_share: float = 0.25
    #: the share of self-play games that begin with 1..``random_moves`` uniformly random moves
    #: (``az_train``, step 1); 0: none
    random_openings: float = 0.0
    random_moves: int = 8
    weight_decay: float = 1e-4
    c_puct: float = 1.25
    noise_alpha: float = 0.3
    noise_frac: float = 0.25
    gumbel: bool = False
    #: keep the subtree of the move played for the game's next search (not with ``gumbel``)
    reuse: bool = True
    #: the next iteration's self-play runs while the learner learns (``az_train``)
    overlap: bool = False
    #: self-play evaluates the network in 8-bit integers (``az_train``, step 1)
    int8: bool = False
    #: Expert Iteration's start (``az_train``, step 1): the agent (canonical spec) whose
    #: games against itself are the samples of the first ``expert_iterations`` iterations
    expert: str = ""
    expert_iterations: int = 0
    seed: int = 0
    #: evaluation (:mod:`mctslab.harness.az_eval`): games per match, 0 for none
    eval_games: int = 0
    eval_every: int = 5
    eval_sims: int = 50
    eval_against: str = "mcts(sims=1000)"

    def search_config(self) -> AzConfig:
        """Self-play's search. With ``gumbel``, the paper's self-play root (Danihelka et al.
        2022, sections 3-4): Gumbel draws of scale 1, which are its exploration, over
        :data:`SELF_PLAY_GUMBEL_M` actions (the playing agent's defaults draw none and consider
        fewer)."""
        return AzConfig(
            c_puct=self.c_puct,
            batch=8,
            noise_alpha=self.noise_alpha,
            noise_frac=0.0 if self.gumbel else self.noise_frac,
            gumbel=self.gumbel,
            gumbel_m=SELF_PLAY_GUMBEL_M,
            gumbel_scale=1.0,
        )


def default(name: str):
    """The default of :class:`TrainConfig`'s field ``name`` (for the command line's options)."""
    return {f.name: f.default for f in fields(TrainConfig)}[name]  # KeyError names a typo
