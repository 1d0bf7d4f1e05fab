"""Agent checkpoints: one ``.pt`` file holds a trained network and how it plays.

    >>> from agents.checkpoint import load_agent
    >>> agent = load_agent("runs/x/best.pt", "american")     # doctest: +SKIP
    >>> agent.select_move(Board("american"))                 # doctest: +SKIP

A checkpoint is a ``torch.save`` dict of plain values and tensors (it loads
with ``weights_only=True``)::

    format      "checkers-env-agent"
    version     2
    algo        "alphazero" (plays with its MCTS) or "ppo" (plays its policy)
    variant     the rules' name; board_size
    net         NetConfig fields (channels, blocks, value_hidden)
    weights     the network's state_dict
    mcts        MCTSConfig fields (alphazero)
    meta        free-form facts about the run (step, minutes, scores)
    digest      SHA-256 of the weights (tensor_digest): flipped bytes are caught

Files are written atomically (:func:`checkers_env.core.files.atomic_write`),
so an interrupted write never leaves a half file behind.
Loading checks everything a user can get wrong and raises
:class:`CheckpointError` naming it: a missing or corrupt file, a file that is
not an agent checkpoint, weights whose digest does not match (damaged
bytes) or that are not finite (NaN or infinite: such a network would play
nonsense), another variant, a network size other than the one asked for.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict, fields, replace

import numpy as np

from checkers_env.core.extras import missing

try:
    import torch
except ImportError as exc:
    raise missing("torch", "agent checkpoints (agents.checkpoint)", exc) from exc

from checkers_env.core.errors import UnknownVariantError
from checkers_env.core.files import atomic_write
from checkers_env.core.variants import Rules, get_rules

from .base import Agent, AgentSpecError, loader_usage, parse_flag, parse_options
from .mcts import MCTSConfig
from .networks import NetConfig, PolicyValueNet

__all__ = [
    "CheckpointError",
    "FORMAT",
    "VERSION",
    "save_agent",
    "read_checkpoint",
    "load_network",
    "load_agent",
    "load_agent_spec",
    "tensor_digest",
    "check_finite",
    "load_trusted",
]

FORMAT = "checkers-env-agent"
VERSION = 2
"""Version written; 2 added the weights' digest. Version 1 files (no digest) still load."""
ALGOS = ("alphazero", "ppo")


class CheckpointError(AgentSpecError):
    """A checkpoint that is missing, corrupt, or does not fit what was asked for."""


def tensor_digest(obj: object) -> str:
    """SHA-256 of every tensor and array in ``obj`` (nested dicts, lists and tuples), with their
    names, shapes and dtypes, in a fixed order: a checksum of a network's (or a state's) weights."""
    digest = hashlib.sha256()

    def walk(x: object, name: str) -> None:
        if isinstance(x, torch.Tensor):
            t = x.detach().cpu().contiguous()
            digest.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
            digest.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        elif isinstance(x, np.ndarray):
            digest.update(f"{name}|{x.dtype}|{x.shape}|".encode())
            digest.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, dict):
            for key in sorted(x, key=str):
                walk(x[key], f"{name}/{key}")
        elif isinstance(x, (list, tuple)):
            for i, item in enumerate(x):
                walk(item, f"{name}[{i}]")

    walk(obj, "")
    return digest.hexdigest()


def check_finite(weights: dict[str, torch.Tensor], path: str) -> None:
    """Raise :class:`CheckpointError` naming ``path`` and the first tensor with a NaN or infinite value."""
    for key, value in weights.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point() and not torch.isfinite(value).all():
            raise CheckpointError(
                f"checkpoint {path!r} has non-finite weights (NaN or infinite values in {key!r}): "
                "the network would play nonsense; use an earlier checkpoint"
            )


def load_trusted(path: str, what: str) -> object:
    """``torch.load(path, weights_only=True)``: tensors and plain values only, never code.

    A file that needs anything else (a pickled class or function, which
    loading would run) is refused with :class:`CheckpointError`, as is a
    missing, truncated or corrupt file; ``what`` names the kind of file.
    """
    if not os.path.isfile(path):
        raise CheckpointError(f"{what} {path!r} not found")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        text = str(exc)
        found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
        if found:
            raise CheckpointError(
                f"{what} {path!r} holds an object other than tensors and plain values ({found.group(1)}); refusing "
                "to load it (unpickling it could run any code). Only open such files from a source you trust."
            ) from None
        reason = re.search(r"WeightsUnpickler error: \s*(.+)", text)
        detail = reason.group(1).strip() if reason else text.splitlines()[0]
        raise CheckpointError(f"{what} {path!r} is corrupt or not a torch file ({detail[:200]})") from None


def save_agent(
    path: str | os.PathLike,
    algo: str,
    rules: Rules,
    net: PolicyValueNet,
    mcts_config: MCTSConfig | None = None,
    meta: dict | None = None,
) -> None:
    """Write an agent checkpoint (atomically)."""
    if algo not in ALGOS:
        raise ValueError(f"algo must be one of {ALGOS}, got {algo!r}")
    data = {
        "format": FORMAT,
        "version": VERSION,
        "algo": algo,
        "variant": rules.name,
        "board_size": rules.board_size,
        "net": net.config.as_dict(),
        "weights": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "mcts": asdict(mcts_config) if mcts_config is not None else None,
        "meta": dict(meta or {}),
    }
    data["digest"] = tensor_digest(data["weights"])
    atomic_write(path, lambda fh: torch.save(data, fh))


def read_checkpoint(path: str | os.PathLike) -> dict:
    """The checked contents of an agent checkpoint file.

    Raises :class:`CheckpointError` if the file is missing, unreadable, or not
    an agent checkpoint of a known version.
    """
    path = os.fspath(path)
    data = load_trusted(path, "checkpoint")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(
            f"{path!r} is not an agent checkpoint (expected format {FORMAT!r}, "
            f"got {data.get('format') if isinstance(data, dict) else type(data).__name__!r}); "
            "training-state files (train_state.pt) are not agents: use best.pt or a checkpoint under agents/"
        )
    if data.get("version") not in (1, VERSION):
        raise CheckpointError(
            f"checkpoint {path!r} has version {data.get('version')!r}, this code reads 1 and {VERSION}"
        )
    if data["version"] >= 2 and "digest" not in data:
        raise CheckpointError(f"checkpoint {path!r} lacks the digest of its weights")
    for key in ("algo", "variant", "board_size", "net", "weights"):
        if key not in data:
            raise CheckpointError(f"checkpoint {path!r} lacks the field {key!r}")
    if data["algo"] not in ALGOS:
        raise CheckpointError(f"checkpoint {path!r} has unknown algo {data['algo']!r} (known: {', '.join(ALGOS)})")
    if not isinstance(data["weights"], dict):
        raise CheckpointError(f"checkpoint {path!r} has no weights dict")
    if "digest" in data and data["digest"] != tensor_digest(data["weights"]):
        raise CheckpointError(
            f"checkpoint {path!r} is damaged: its weights do not match the digest stored with them "
            "(flipped or altered bytes)"
        )
    check_finite(data["weights"], path)
    return data


def load_network(data: dict, path: str = "checkpoint", **net_overrides: int) -> PolicyValueNet:
    """The network of checked checkpoint ``data``.

    ``net_overrides`` (``channels``, ``blocks``, ``value_hidden``) state the size
    the caller expects; a different stored size raises :class:`CheckpointError`.
    """
    stored = data["net"]
    known = {f.name for f in fields(NetConfig)}
    for key, value in net_overrides.items():
        if key not in known:
            raise CheckpointError(f"unknown network size field {key!r} (known: {', '.join(sorted(known))})")
        if value is not None and stored.get(key) != value:
            raise CheckpointError(
                f"checkpoint {path!r} holds a network with {key}={stored.get(key)}, but {key}={value} was asked for"
            )
    try:
        defaults = NetConfig()
        config = NetConfig(**{k: type(getattr(defaults, k))(v) for k, v in stored.items() if k in known})
        net = PolicyValueNet(int(data["board_size"]), config)
        net.load_state_dict(data["weights"])
    except Exception as exc:
        raise CheckpointError(
            f"checkpoint {path!r} has weights that do not fit its network description: {exc}"
        ) from None
    return net.eval()


def load_agent(
    path: str | os.PathLike,
    variant: str | Rules | None = None,
    *,
    seed: int | None = None,
    simulations: int | None = None,
    time: float = 0.0,
    root: str | None = None,
    c_puct: float | None = None,
    fpu_reduction: float | None = None,
    reuse_tree: bool | None = None,
    material_mix: float | None = None,
    minimax_weight: float | None = None,
    prior_temperature: float | None = None,
    device: str = "cpu",
    dtype: str = "float32",
    **net_overrides: int,
) -> Agent:
    """The arena agent stored in ``path``.

    Args:
        path: an agent checkpoint (``best.pt`` of a run).
        variant: the variant to play; must be the one the network was trained
            on (``None``: that one).
        seed: the agent's random generator seed (tie-breaking).
        simulations: MCTS simulations per searched leg (alphazero; default: as trained).
        time: seconds a move may take (alphazero; 0: no bound).
        root: how the root is searched, ``"puct"`` or ``"gumbel"`` (alphazero; default: as trained).
        c_puct: exploration constant of the search's PUCT rule (alphazero; default: as trained).
        fpu_reduction: how far below its parent's value an unvisited leg is valued (alphazero;
            default: as trained).
        reuse_tree: whether a search keeps the subtree of the position it reaches from the last
            search's tree (alphazero, :attr:`~agents.mcts.MCTSConfig.reuse_tree`; default: as stored,
            which is off: the learner writes its checkpoints to search afresh).
        material_mix: weight of the material estimate in the search's leaf values (alphazero,
            :attr:`~agents.mcts.MCTSConfig.material_mix`; default: as trained).
        minimax_weight: weight of the implicit minimax value in the search's PUCT choices (alphazero,
            :attr:`~agents.mcts.MCTSConfig.minimax_weight`; default: as trained).
        prior_temperature: temperature of the network's prior in the search (alphazero,
            :attr:`~agents.mcts.MCTSConfig.prior_temperature`; default: as trained).
        device: torch device of the network.
        dtype: number format of the search's forward passes (alphazero; ``float32``,
            ``bfloat16`` or ``auto``, see :func:`~agents.networks.inference_dtype`).
        **net_overrides: the expected network size (``channels=``, ``blocks=``);
            a mismatch raises :class:`CheckpointError`.

    AlphaZero checkpoints play with their MCTS (:class:`~agents.learned.MCTSAgent`),
    PPO checkpoints with their policy (:class:`~agents.learned.PolicyAgent`).
    Torch's thread count is the caller's to set (entry points do).
    """
    from .learned import MCTSAgent, PolicyAgent

    path = os.fspath(path)
    data = read_checkpoint(path)
    if variant is None:
        rules = get_rules(data["variant"])
    else:
        try:
            rules = get_rules(variant)
        except UnknownVariantError as exc:
            raise CheckpointError(str(exc)) from None
    if rules.name != data["variant"] or rules.board_size != data["board_size"]:
        raise CheckpointError(
            f"checkpoint {path!r} was trained on variant {data['variant']!r}, not {rules.name!r}; "
            f"pass --variant {data['variant']} or use a checkpoint trained on {rules.name!r}"
        )
    net = load_network(data, path, **net_overrides)
    name = os.path.basename(path)
    # the MCTSConfig fields asked for (None: as stored)
    chosen = {"simulations": None if simulations is None else int(simulations), "root": root,
              "c_puct": c_puct, "fpu_reduction": fpu_reduction, "reuse_tree": reuse_tree,
              "material_mix": material_mix, "minimax_weight": minimax_weight,
              "prior_temperature": prior_temperature}  # fmt: skip
    if data["algo"] == "alphazero":
        stored = data.get("mcts") or {}
        known = {f.name for f in fields(MCTSConfig)}
        mcts = MCTSConfig(**{k: v for k, v in stored.items() if k in known})
        try:
            mcts = replace(mcts, **{k: v for k, v in chosen.items() if v is not None})  # validated again
        except ValueError as exc:
            raise CheckpointError(f"checkpoint {path!r}: {exc}") from None
        try:
            return MCTSAgent(net, rules, mcts, seed=seed, device=device, name=name, time=time, dtype=dtype)
        except ValueError as exc:  # an unknown dtype
            raise CheckpointError(f"checkpoint {path!r}: {exc}") from None
    if any(v is not None for v in chosen.values()) or time or dtype != "float32":
        raise CheckpointError(f"checkpoint {path!r} is a {data['algo']} policy: it does not search "
                              f"(no sims, time, {', '.join(_SPEC_SEARCH_FIELDS)} or dtype)")  # fmt: skip
    return PolicyAgent(net, rules, seed=seed, device=device, name=name)


_SPEC_SEARCH_FIELDS = {"root": ("root", str), "c_puct": ("c_puct", float), "fpu": ("fpu_reduction", float),
                       "reuse": ("reuse_tree", parse_flag), "mix": ("material_mix", float),
                       "minimax": ("minimax_weight", float), "ptemp": ("prior_temperature", float)}  # fmt: skip
"""Spec options that set an :class:`~agents.mcts.MCTSConfig` field of the same meaning: by option name,
the field and the parser of the option's value."""
_SPEC_OPTIONS = {"sims": int, "simulations": int, "time": float, "dtype": str,
                 **{option: parse for option, (_, parse) in _SPEC_SEARCH_FIELDS.items()}}  # fmt: skip


def load_agent_spec(path: str, options: str, variant: str, seed: int | None) -> Agent:
    """The ``.pt`` agent-spec loader (see :mod:`agents.base`):
    ``PATH.pt[:sims=N,time=S,root=R,c_puct=C,fpu=F,reuse=1|0,mix=W,minimax=M,ptemp=T,dtype=D]``.

    ``sims`` sets the MCTS simulations per searched leg, ``time`` the seconds
    a move may take, ``root`` the root search (``puct`` or ``gumbel``),
    ``c_puct`` the PUCT exploration constant, ``fpu`` the first-play
    urgency reduction (an unvisited leg's value below its parent's),
    ``reuse=1`` keeps each search's subtree for the next search (the position
    after the agent's leg and the opponent's reply; ``reuse=0``: every
    search starts afresh), ``mix`` the weight of the material estimate in
    the search's leaf values (:attr:`~agents.mcts.MCTSConfig.material_mix`),
    ``minimax`` the weight of the implicit minimax value in its PUCT choices
    (:attr:`~agents.mcts.MCTSConfig.minimax_weight`), ``ptemp`` the temperature
    of the network's prior in the search
    (:attr:`~agents.mcts.MCTSConfig.prior_temperature`), ``dtype`` the number
    format of the network in the search (``float32``, the default,
    ``bfloat16`` or ``auto``); without them the checkpoint plays as it was
    trained, in float32.
    """
    spec = f"{path}:{options}" if options else path
    opts = parse_options(options, _SPEC_OPTIONS, spec, loader_usage(".pt"))  # registered in agents/__init__.py
    sims = opts.get("sims", opts.get("simulations"))
    if sims is not None and sims < 2:
        raise AgentSpecError(f"sims must be at least 2 in {spec!r}")
    if opts.get("time", 0.0) < 0:
        raise AgentSpecError(f"time must not be negative in {spec!r}")
    try:
        agent = load_agent(
            path,
            variant,
            seed=seed,
            simulations=sims,
            time=opts.get("time", 0.0),
            dtype=opts.get("dtype", "float32"),
            **{field: opts.get(option) for option, (field, _) in _SPEC_SEARCH_FIELDS.items()},
        )
    except AgentSpecError:
        raise
    except Exception as exc:  # a corrupt or mismatched file: report it as bad input
        raise AgentSpecError(f"cannot load checkpoint {path!r} for variant {variant!r}: {exc}") from exc
    agent.name = spec
    return agent
