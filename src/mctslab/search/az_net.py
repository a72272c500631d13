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
CPU, by one of three backends (:data:`BACKENDS`): plain PyTorch, TorchScript (traced, frozen and
optimised for inference), or ONNX Runtime (the network exported with ``torch.onnx.export``, run by
the CPU execution provider on one thread). On the CPU the default is ONNX Runtime when it is
installed (the ``az`` extra has it): ``mctslab bench az-inference`` measured it 1.4 to 4.6 times
faster than plain PyTorch on batches of 8 to 256 positions, TorchScript 1.1 to 1.7 times
(docs/alphazero.md, "Network inference"). A checkpoint is one ``torch.save`` file written to a
temporary name and renamed into place (``os.replace``), so a killed writer never leaves half a file.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.util
import io
import os
import tempfile
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
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


#: The evaluation backends, plain PyTorch first (the reference the others are checked against).
BACKENDS = ("eager", "torchscript", "onnxruntime")
#: The 8-bit integer backend (:func:`_onnxruntime_int8`): approximate, so not one of
#: :data:`BACKENDS`, whose outputs equal plain PyTorch's; ``az(int8=true)`` chooses it.
INT8 = "onnxruntime-int8"
#: Positions of uniformly random games (:func:`random_positions`, seed 0) that the int8
#: backend's activation ranges are calibrated on.
CALIBRATION_POSITIONS = 512
#: The environment variable that chooses the backend of every :class:`Evaluator` (one of
#: :data:`BACKENDS` or :data:`INT8`); unset, :func:`default_backend` chooses.
BACKEND_ENV = "MCTSLAB_AZ_BACKEND"

#: (observations, legal masks) -> (priors, values), NumPy in and out
Runner = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

#: the compiled runners made so far, per network: backend -> (the weights it was made from, it)
_compiled: weakref.WeakKeyDictionary[AzNet, dict[str, tuple[list[torch.Tensor], Runner]]] = (
    weakref.WeakKeyDictionary()
)
#: the quantised models made so far, by (the weights' digest, the game's spec string), so that a
#: second agent loading the same network file skips the quantisation (about 1.6 s on Hex 7x7);
#: the newest :data:`INT8_MODELS_KEPT` (training quantises each iteration's new weights)
_int8_models: OrderedDict[tuple[str, str], bytes] = OrderedDict()
INT8_MODELS_KEPT = 4


#: CPU feature flags (Linux ``/proc/cpuinfo``) of 8-bit integer dot-product instructions, with
#: which ONNX Runtime's quantised convolutions are fast: x86's AVX-512 VNNI, AVX-VNNI and AMX,
#: ARM's dot product (``asimddp``)
INT8_DOT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "asimddp"})


@functools.cache
def int8_dot_products(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool | None:
    """Whether this CPU has 8-bit dot-product instructions (:data:`INT8_DOT_FLAGS`); None where
    ``cpuinfo`` cannot be read (not Linux). Without them 8-bit evaluation is no faster than
    floats: on an AMD EPYC of the first Zen generation (AVX2 only) Connect Four self-play ran at
    0.86 times the floats' positions a second, on an Intel Xeon with VNNI at 2.3 times
    (docs/alphazero.md). Read once per process and file: each game of a match makes its
    agents anew."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    return any(w in INT8_DOT_FLAGS for line in text.splitlines() for w in line.split())


def backend_missing(backend: str) -> str | None:
    """Why ``backend`` cannot run here, or None when it can."""
    if backend in ("onnxruntime", INT8):
        for module in ("onnxruntime", "onnx"):  # onnx: torch.onnx.export writes with it
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed (pip install -e '.[az]')"
        if device().type != "cpu":
            return "it runs on the CPU here, and a GPU is present"
    return None


def default_backend() -> str:
    """``$MCTSLAB_AZ_BACKEND`` when set, else ONNX Runtime when it can run, else plain PyTorch."""
    chosen = os.environ.get(BACKEND_ENV)
    if chosen:
        if chosen not in (*BACKENDS, INT8):
            raise MctslabError(
                f"{BACKEND_ENV}={chosen!r}: not a backend; allowed: {', '.join(BACKENDS)}, {INT8}"
            )
        return chosen
    return "onnxruntime" if backend_missing("onnxruntime") is None else "eager"


def _example(shape: NetShape) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of two zero observations with every action legal, for tracing and export."""
    dev = device()
    return (
        torch.zeros(2, shape.planes, shape.height, shape.width, device=dev),
        torch.ones(2, shape.actions, dtype=torch.bool, device=dev),
    )


def _torch_runner(module: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> Runner:
    dev = device()

    def run(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logp, value = module(torch.from_numpy(obs).to(dev), torch.from_numpy(mask).to(dev))
        return torch.exp(logp).cpu().numpy(), value.cpu().numpy()

    return run


def _torchscript(net: AzNet) -> Runner:
    """``torch.jit.trace``, ``torch.jit.freeze`` (weights become constants, batch normalisation
    folded into the convolutions) and ``torch.jit.optimize_for_inference``."""
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TorchScript is, for torch.compile
        # a copy: the frozen module would share tensors with ``net``
        traced = torch.jit.trace(copy.deepcopy(net), _example(net.shape))
        return _torch_runner(torch.jit.optimize_for_inference(torch.jit.freeze(traced)))


def _onnx_model(net: AzNet) -> bytes:
    """The network exported by ``torch.onnx.export`` (its TorchScript-based exporter: about 0.3 s;
    the torch.export-based one took 8 s for the same net) with a dynamic batch dimension."""
    buf = io.BytesIO()
    names = {"obs": {0: "batch"}, "mask": {0: "batch"}, "logp": {0: "batch"}, "value": {0: "batch"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript-based exporter's
        torch.onnx.export(
            net, _example(net.shape), buf, input_names=["obs", "mask"],
            output_names=["logp", "value"], dynamic_axes=names, opset_version=18, dynamo=False,
        )  # fmt: skip
    return buf.getvalue()


def _ort_runner(model: bytes) -> Runner:
    """ONNX Runtime's CPU execution provider on :data:`TORCH_THREADS` threads running ``model``,
    its graph optimised (batch normalisation folded, convolutions fused with their activations)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = TORCH_THREADS
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # errors only
    session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])

    def run(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logp, value = session.run(None, {"obs": obs, "mask": mask})
        return np.exp(logp), value

    return run


def _onnxruntime(net: AzNet) -> Runner:
    """The exported network (:func:`_onnx_model`) run by ONNX Runtime (:func:`_ort_runner`)."""
    return _ort_runner(_onnx_model(net))


def _int8_model(net: AzNet, calibration: tuple[np.ndarray, np.ndarray]) -> bytes:
    """The exported network with its convolutions quantised to 8-bit integers, run by ONNX
    Runtime: ONNX Runtime's static quantisation (``quantize_static``, QDQ format, weights
    ``int8`` per output channel, activations ``uint8`` with ranges from the minimum and maximum
    seen on ``calibration``, the observations and masks of some positions; batch normalisation
    folded first by ``quant_pre_process``). The linear heads stay in floating point. On a CPU
    with VNNI instructions ONNX Runtime runs such convolutions with integer dot products."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            obs, mask = calibration
            self.batches = iter(
                [{"obs": obs[i : i + 64], "mask": mask[i : i + 64]} for i in range(0, len(obs), 64)]
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        fp32, pre, int8 = (os.path.join(tmp, n) for n in ("fp32.onnx", "pre.onnx", "int8.onnx"))
        Path(fp32).write_bytes(_onnx_model(net))
        quant_pre_process(fp32, pre)
        quantize_static(
            pre, int8, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
            op_types_to_quantize=["Conv"],
        )  # fmt: skip
        return Path(int8).read_bytes()


def _onnxruntime_int8(net: AzNet, game: Any) -> Runner:
    """:func:`_int8_model` calibrated on positions of ``game``, run by ONNX Runtime; made once
    per weights and game in a process (:data:`_int8_models`)."""
    digest = hashlib.sha256()
    for w in net.state_dict().values():
        digest.update(w.detach().cpu().contiguous().numpy().tobytes())
    key = (digest.hexdigest(), game.spec.spec_string)
    model = _int8_models.get(key)
    if model is None:
        model = _int8_model(net, random_positions(game, CALIBRATION_POSITIONS, seed=0))
        _int8_models[key] = model
        while len(_int8_models) > INT8_MODELS_KEPT:
            _int8_models.popitem(last=False)
    _int8_models.move_to_end(key)
    return _ort_runner(model)


_MAKERS: dict[str, Callable[[AzNet], Runner]] = {
    "torchscript": _torchscript,
    "onnxruntime": _onnxruntime,
}


def _runner(net: AzNet, backend: str, game: Any) -> Runner:
    """The runner of ``net`` by ``backend``; a compiled one is made again only when the weights
    changed since it was made (a learner step, a loaded state dict). The int8 backend is
    calibrated on positions of ``game``."""
    if backend == "eager":
        return _torch_runner(net)
    weights = list(net.state_dict().values())
    made = _compiled.setdefault(net, {}).get(backend)
    if made is not None and all(torch.equal(a, b) for a, b in zip(made[0], weights, strict=True)):
        return made[1]
    run = _onnxruntime_int8(net, game) if backend == INT8 else _MAKERS[backend](net)
    _compiled[net][backend] = ([w.detach().clone() for w in weights], run)
    return run


class Evaluator:
    """Batched inference: observations and legal masks (NumPy) in, priors and values out, by
    ``backend`` (one of :data:`BACKENDS` or :data:`INT8`; None: :func:`default_backend`). A
    compiled backend (TorchScript, ONNX Runtime) evaluates the weights the network had when the
    evaluator was made; plain PyTorch the network as it is at each call. ``game``, the network's
    game, is needed by the int8 backend (its calibration positions)."""

    def __init__(self, net: AzNet, backend: str | None = None, game: Any = None):
        self.net = net.to(device()).eval()
        self.backend = backend or default_backend()
        if self.backend not in (*BACKENDS, INT8):
            raise MctslabError(
                f"{self.backend!r}: not a backend; allowed: {', '.join(BACKENDS)}, {INT8}"
            )
        missing = backend_missing(self.backend)
        if missing is not None:
            raise MctslabError(f"the {self.backend} backend cannot run: {missing}")
        if self.backend == INT8 and game is None:
            raise MctslabError(f"the {INT8} backend needs the game, to calibrate on its positions")
        self._run = _runner(self.net, self.backend, game)
        self.evaluations = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self._run(obs, mask)
        self.evaluations += len(obs)
        return priors.astype(np.float64), values


def random_positions(game: Any, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of ``n`` decision positions of uniformly random games."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while len(obs) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and len(obs) < n:
            obs.append(game.observation(state.array))
            masks.append(game.legal_mask(state.array))
            state.apply_action(int(rng.choice(state.legal_actions())))
    return np.stack(obs), np.stack(masks)


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


def check_shape(net: AzNet, game: Any, path: str | Path) -> None:
    """Raise :class:`MctslabError` unless ``net`` reads ``game``'s observation (planes and board)
    and writes its actions: a network trained before an observation changed (for example NoGo's
    legality planes) names what it expects instead of failing inside PyTorch."""
    s = net.shape
    want = shape_for(game, s.blocks, s.channels, s.hidden)
    have = (s.planes, s.height, s.width, s.actions)
    need = (want.planes, want.height, want.width, want.actions)
    if have != need:
        raise MctslabError(
            f"{path}: a network for {have} (planes, height, width, actions), but "
            f"{game.spec.spec_string} gives {need}: train one with `mctslab train az`"
        )


def check_weights(net: AzNet, weights: dict[str, Any], path: str | Path) -> None:
    """Raise :class:`MctslabError` unless ``weights`` (a state dict, as a training checkpoint
    keeps) fit ``net`` tensor by tensor: a run started before the game's observation changed
    names the first tensor that differs instead of failing inside PyTorch."""
    for name, tensor in net.state_dict().items():
        have = tuple(weights[name].shape) if name in weights else None
        if have != tuple(tensor.shape):
            raise MctslabError(
                f"{path}: its network's {name} is {have}, the game's observation needs "
                f"{tuple(tensor.shape)} (an older observation?): use another --out folder"
            )


def shape_for(game: Any, blocks: int, channels: int, hidden: int = 64) -> NetShape:
    """The network shape a game's observation and actions give."""
    from mctslab.search.result import first_decision_state

    state = first_decision_state(game)
    if state is None:
        raise MctslabError(f"{game}: the game ends before anyone moves")
    planes, height, width = game.observation(state.array).shape
    return NetShape(planes, height, width, game.spec.num_distinct_actions, blocks, channels, hidden)
