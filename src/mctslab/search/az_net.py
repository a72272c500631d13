"""The AlphaZero policy/value network: a small residual network in PyTorch, its batched
evaluation, and its checkpoint file.

The shape is AlphaGo Zero's (Silver et al., "Mastering the game of Go without human knowledge",
Nature 2017, "Methods: Neural network architecture"), scaled down: a 3x3 convolution stem,
``blocks`` residual blocks of two 3x3 convolutions with batch normalisation, ``channels`` wide;
a policy head
(1x1 convolution to 2 planes, a linear layer to the game's actions) and a value head (1x1
convolution to 1 plane, a hidden linear layer of ``hidden`` units, a linear layer to one output,
tanh). The input is the game's ``observation`` (:mod:`mctslab.games.symmetry`); illegal actions are
masked out of the policy's softmax.

PyTorch is the optional extra ``az`` (``pip install -e .[az]``); this module imports it, so only the
AlphaZero code imports this module. Evaluation runs on the GPU when one is present, else on the
CPU. A checkpoint is one ``torch.save`` file written to a temporary name and renamed into place
(``os.replace``), so a killed writer never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from mctslab.errors import MctslabError

#: PyTorch threads for these small networks. Measured on a busy 2-core machine (2026-11-24), one
#: learner step of a 1-block, 8-channel net on a batch of 128: 0.018 s with 1 thread, 1.47 s with
#: 2 (the threads spin while they wait for a core). Parallelism comes from self-play processes.
TORCH_THREADS = 1
torch.set_num_threads(TORCH_THREADS)


@dataclass(frozen=True)
class NetShape:
    """The network's input planes and board, its actions, and its size."""

    planes: int
    height: int
    width: int
    actions: int
    blocks: int = 2
    channels: int = 32
    hidden: int = 64


def device() -> torch.device:
    """The GPU when one is present, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class _Block(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class AzNet(nn.Module):
    """The residual policy/value network of a :class:`NetShape` (module docstring)."""

    def __init__(self, shape: NetShape):
        super().__init__()
        s = shape
        self.shape = s
        cells = s.height * s.width
        self.stem = nn.Sequential(
            nn.Conv2d(s.planes, s.channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(s.channels),
            nn.ReLU(),
        )
        self.blocks = nn.Sequential(*(_Block(s.channels) for _ in range(s.blocks)))
        self.policy_conv = nn.Sequential(
            nn.Conv2d(s.channels, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU()
        )
        self.policy_fc = nn.Linear(2 * cells, s.actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(s.channels, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU()
        )
        self.value_fc = nn.Sequential(
            nn.Linear(cells, s.hidden), nn.ReLU(), nn.Linear(s.hidden, 1), nn.Tanh()
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-priors over the actions (illegal ones get a logit of -1e9, so a prior of 0) and
        values in [-1, 1], for a batch of observations and legal masks."""
        h = self.blocks(self.stem(x))
        logits = self.policy_fc(self.policy_conv(h).flatten(1))
        logits = logits.masked_fill(~mask, -1e9)
        value = self.value_fc(self.value_conv(h).flatten(1)).squeeze(1)
        return torch.log_softmax(logits, dim=1), value


class Evaluator:
    """Batched inference: observations and legal masks (NumPy) in, priors and values out."""

    def __init__(self, net: AzNet):
        self.net = net.to(device()).eval()
        self.evaluations = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dev = device()
        with torch.inference_mode():
            logp, value = self.net(torch.from_numpy(obs).to(dev), torch.from_numpy(mask).to(dev))
        self.evaluations += len(obs)
        return torch.exp(logp).cpu().numpy().astype(np.float64), value.cpu().numpy()


def save(path: str | Path, payload: dict[str, Any]) -> None:
    """Write a checkpoint atomically (a temporary file in the same folder, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    try:
        torch.save(payload, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def net_payload(net: AzNet, game_spec: str) -> dict[str, Any]:
    """What a model file holds: the game's spec string, the network shape and its weights."""
    return {"game": game_spec, "shape": asdict(net.shape), "weights": net.state_dict()}


def load_net(path: str | Path, game_spec: str) -> AzNet:
    """The network of a checkpoint or model file, for the game ``game_spec``; a clear error for a
    missing file, a file that is not one, or one trained on another game."""
    path = Path(path)
    if not path.is_file():
        raise MctslabError(f"no network file {str(path)!r}: train one with `mctslab train az`")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=False)
        shape = NetShape(**payload["shape"])
    except Exception as exc:
        raise MctslabError(f"{path}: not an az network file ({type(exc).__name__})") from None
    if payload["game"] != game_spec:
        raise MctslabError(f"{path}: a network for {payload['game']}, not for {game_spec}")
    net = AzNet(shape)
    net.load_state_dict(payload["weights"])
    return net


def shape_for(game: Any, blocks: int, channels: int, hidden: int = 64) -> NetShape:
    """The network shape a game's observation and actions give."""
    from mctslab.search.result import first_decision_state

    state = first_decision_state(game)
    if state is None:
        raise MctslabError(f"{game}: the game ends before anyone moves")
    planes, height, width = game.observation(state.array).shape
    return NetShape(planes, height, width, game.spec.num_distinct_actions, blocks, channels, hidden)
