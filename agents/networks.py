"""Policy-value networks over the observation planes, with masked policies.

The network reads the planes of :mod:`checkers_env.observation`
(``float32[B, 8, N, N]``, mover's frame) and returns

* ``logits``: ``float32[B, num_actions]`` over the fixed leg encoding of
  :mod:`checkers_env.encoding` (896 on 8x8, 1800 on 10x10);
* ``value``: ``float32[B]`` in ``[-1, 1]``, the expected result for the
  player to move.

The policy head is convolutional: a 1x1 convolution gives ``4 * (N - 1)``
channels per board cell, one per (direction, distance), and the logit of
each action is read where :func:`checkers_env.encoding.policy_map_index`
says (the channel of its direction and distance at the cell of its start
square). This ties each action to the square it starts from, which a dense
head would have to learn.

Illegal actions get exactly zero probability: :func:`masked_softmax` and
:func:`masked_log_softmax` fill them with ``-inf`` before normalising.

The environment never imports torch; in this package the learned players,
their networks and checkpoints do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal, get_args

from checkers_env.core.extras import missing

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
except ImportError as exc:
    raise missing("torch", "the learned agents (agents.networks)", exc) from exc

from checkers_env.encoding import num_actions, policy_map_index
from checkers_env.observation import NUM_PLANES, PLANE_NAMES

__all__ = [
    "NetConfig",
    "PolicyValueNet",
    "masked_softmax",
    "masked_log_softmax",
    "pick_device",
    "InferenceDtype",
    "INFERENCE_DTYPES",
    "inference_dtype",
    "set_torch_threads",
    "cpu_state",
    "MOVE_NUMBER_PLANE",
]


MOVE_NUMBER_PLANE = PLANE_NAMES.index("move number")
"""The observation plane that a network with ``NetConfig.reads_move_number`` false skips."""


@dataclass(frozen=True)
class NetConfig:
    """Size of a :class:`PolicyValueNet`."""

    channels: int = 48
    """Convolution channels in the trunk."""
    blocks: int = 4
    """Residual blocks in the trunk (two 3x3 convolutions each)."""
    value_hidden: int = 64
    """Width of the hidden layer of the value head."""
    material_head: bool = False
    """An auxiliary head that predicts the material the player to move will have won or lost a few moves
    later (:meth:`PolicyValueNet.forward_with_material`). Only training reads it: play and search use
    ``forward``, whose cost it does not change."""
    reads_move_number: bool = True
    """The network reads the move-number plane (plane 7 of :mod:`checkers_env.observation`). False: it
    reads the first seven planes only, so its values cannot depend on how far the game has gone. Self-play
    stops its games at ``max_moves`` (120 whole moves), evaluation plays on to 200: a network that reads
    the move number learns that the game ends at 120 and values a position there by its material alone,
    and past 120 it sees move numbers it never learnt from (``benchmarks/value_by_move_number.py``). Yet
    a network that does not read it scored -0.020 [-0.128, +0.088] against minimax:4 paired, side by side
    with one that does (international, 40 minutes on one core each; docs/BENCHMARKS.md): so the default
    stays true, as every earlier checkpoint reads it."""

    def __post_init__(self) -> None:
        for name in ("material_head", "reads_move_number"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"NetConfig.{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("channels", "blocks", "value_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "blocks" else 1):
                raise ValueError(f"NetConfig.{name} must be a {'non-negative' if name == 'blocks' else 'positive'} "
                                 f"integer, got {value!r}")  # fmt: skip

    def as_dict(self) -> dict[str, int | bool]:
        """The fields as a plain dict (stored in checkpoints)."""
        return asdict(self)


class _Block(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    """Residual convolutional policy-value network for one board size.

    Args:
        board_size: 8 or 10.
        config: trunk and head sizes.

    ``forward(obs) -> (logits [B, num_actions], value [B])``; logits are not
    masked (use :func:`masked_softmax`).
    """

    def __init__(self, board_size: int, config: NetConfig | None = None):
        super().__init__()
        if board_size not in (8, 10):
            raise ValueError(f"board_size must be 8 or 10, got {board_size!r}")
        self.config = config or NetConfig()
        self.board_size = board_size
        self.num_actions = num_actions(board_size)
        c = self.config.channels
        read = [i for i in range(NUM_PLANES) if self.config.reads_move_number or i != MOVE_NUMBER_PLANE]
        self.stem = nn.Sequential(nn.Conv2d(len(read), c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.trunk = nn.Sequential(*[_Block(c) for _ in range(self.config.blocks)])
        per_cell = 4 * (board_size - 1)
        self.policy_conv = nn.Sequential(nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.policy_out = nn.Conv2d(c, per_cell, 1)
        self.value_conv = nn.Sequential(nn.Conv2d(c, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU())
        self.value_fc = nn.Sequential(
            nn.Linear(2 * board_size * board_size, self.config.value_hidden),
            nn.ReLU(),
            nn.Linear(self.config.value_hidden, 1),
        )
        if self.config.material_head:
            self.material_fc = nn.Sequential(
                nn.Linear(2 * board_size * board_size, self.config.value_hidden),
                nn.ReLU(),
                nn.Linear(self.config.value_hidden, 1),
            )
        index = torch.from_numpy(policy_map_index(board_size).copy())
        self.register_buffer("action_index", index, persistent=False)
        # the planes the stem reads (None: all of them); a buffer, so it moves with the network
        self.register_buffer("planes_read", None if len(read) == NUM_PLANES else torch.tensor(read), persistent=False)

    def _logits_and_value_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.planes_read is not None:
            obs = obs.index_select(1, self.planes_read)
        x = self.trunk(self.stem(obs))
        p = self.policy_out(self.policy_conv(x)).flatten(1)
        return p.index_select(1, self.action_index), self.value_conv(x).flatten(1)

    def _value(self, features: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.value_fc(features).squeeze(1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, features = self._logits_and_value_features(obs)
        return logits, self._value(features)

    def forward_with_material(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(logits, value, material)``: ``forward`` plus the material head's prediction (``float32[B]``
        in ``[-1, 1]``, see :func:`train.alphazero.replay.material_targets`), which reads the value
        head's features. Only for a network built with ``NetConfig.material_head``."""
        if not self.config.material_head:
            raise ValueError("this network has no material head (NetConfig.material_head is false)")
        logits, features = self._logits_and_value_features(obs)
        return logits, self._value(features), torch.tanh(self.material_fc(features).squeeze(1))


def cpu_state(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A copy of a state dict (``module.state_dict()``) on the CPU, detached, sharing no storage with
    it: weights to save, send to another process or keep while the network trains on."""
    return {k: v.detach().cpu().clone() for k, v in state.items()}


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the legal actions; ``-inf`` where ``mask`` is 0.

    A row with no legal action gives all ``-inf`` (its probabilities are all 0).
    """
    legal = mask.bool()
    filled = logits.masked_fill(~legal, float("-inf"))
    out = torch.log_softmax(filled, dim=-1)
    # a row with no legal action is all nan after log_softmax of all -inf
    return torch.where(legal, out, torch.full_like(out, float("-inf")))


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Probabilities over the legal actions: exactly 0 where ``mask`` is 0, rows sum to 1
    (a row with no legal action is all 0)."""
    # One softmax rather than exp(masked_log_softmax): every MCTS leaf batch goes through here, and on
    # 64 x 1800 logits the exp of the log-probabilities took a fifth of the network call's time (CPU)
    filled = logits.masked_fill(~mask.bool(), float("-inf"))
    return torch.softmax(filled, dim=-1).nan_to_num_(0.0)  # an all -inf row is all nan


def pick_device(name: str = "auto") -> torch.device:
    """``"auto"``: CUDA when present, else the CPU; otherwise the named device."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as exc:
        raise ValueError(f"unknown torch device {name!r}: {exc}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} was asked for but CUDA is not available")
    return device


InferenceDtype = Literal["auto", "float32", "bfloat16"]
"""Number formats of a network's forward passes in search (:func:`inference_dtype`)."""
INFERENCE_DTYPES: tuple[str, ...] = get_args(InferenceDtype)


def _native_bfloat16() -> bool:
    """Whether this CPU computes in bfloat16 natively (AVX-512 BF16 or AMX); elsewhere it is emulated and
    slower than float32."""
    try:
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except Exception:  # private torch functions: absent means unknown, and unknown means float32
        return False


def inference_dtype(name: str, device: torch.device | str = "cpu") -> torch.dtype:
    """The torch dtype of ``name`` (one of :data:`INFERENCE_DTYPES`) for forward passes on ``device``.

    ``"auto"``: bfloat16 on a CPU that computes it natively, else float32. A search needs its priors
    and values to two or three digits, which bfloat16 keeps (about 3 significant digits: the 32x3
    network's priors move by 1e-4, its values by 5e-4). On such a CPU (one thread, AMX) the 32x3
    network, laid out channels last as :func:`~agents.learned.make_evaluator` lays out bfloat16,
    evaluates batches of 64 positions 2.0 times as fast as in float32 on 8x8 and 2.1 times on 10x10
    (channels first, 1.2 and 1.3 times; ``benchmarks/inference_dtype.py``). Training always runs in
    float32.
    """
    if name not in INFERENCE_DTYPES:
        raise ValueError(f"inference dtype must be one of {', '.join(INFERENCE_DTYPES)}, got {name!r}")
    if name == "auto":
        cpu = torch.device(device).type == "cpu"
        return torch.bfloat16 if cpu and _native_bfloat16() else torch.float32
    return torch.bfloat16 if name == "bfloat16" else torch.float32


def set_torch_threads(threads: int) -> None:
    """Set torch's intra-op threads (1 by default in this project: small nets on a
    shared 2-core machine run many times slower with 2 threads while another
    process is busy)."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    torch.set_num_threads(threads)
