"""Agent checkpoints: one ``.pt`` file holds a trained network and how it plays.

    >>> from agents.checkpoint import load_agent
    >>> agent = load_agent("runs/x/best.pt", "american")     # doctest: +SKIP
    >>> agent.select_move(Board("american"))                 # doctest: +SKIP

A checkpoint is a ``torch.save`` dict of plain values and tensors (it loads
with ``weights_only=True``)::

    format      "checkers-env-agent"
    version     1
    algo        "alphazero" (plays with its MCTS) or "ppo" (plays its policy)
    variant     the rules' name; board_size
    net         NetConfig fields (channels, blocks, value_hidden)
    weights     the network's state_dict
    mcts        MCTSConfig fields (alphazero)
    meta        free-form facts about the run (step, minutes, scores)

Files are written atomically (a temporary file in the same folder, then
``os.replace``), so an interrupted write never leaves a half file behind.
Loading checks everything a user can get wrong and raises
:class:`CheckpointError` naming it: a missing or corrupt file, a file that is
not an agent checkpoint, another variant, a network size other than the one
asked for.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, fields
from typing import Any

import torch

from checkers_env.core.errors import UnknownVariantError
from checkers_env.core.variants import Rules, get_rules

from .base import Agent, AgentSpecError
from .mcts import MCTSConfig
from .networks import NetConfig, PolicyValueNet

__all__ = ["CheckpointError", "FORMAT", "VERSION", "save_agent", "read_checkpoint", "load_network", "load_agent"]

FORMAT = "checkers-env-agent"
VERSION = 1
ALGOS = ("alphazero", "ppo")


class CheckpointError(AgentSpecError):
    """A checkpoint that is missing, corrupt, or does not fit what was asked for."""


def atomic_torch_save(obj: Any, path: str | os.PathLike) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename it over ``path``."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pt", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
    atomic_torch_save(data, path)


def read_checkpoint(path: str | os.PathLike) -> dict:
    """The checked contents of an agent checkpoint file.

    Raises :class:`CheckpointError` if the file is missing, unreadable, or not
    an agent checkpoint of a known version.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint {path!r} not found")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {path!r} is corrupt or not a torch file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(
            f"{path!r} is not an agent checkpoint (expected format {FORMAT!r}, "
            f"got {data.get('format') if isinstance(data, dict) else type(data).__name__!r}); "
            "training-state files (train_state.pt) are not agents: use best.pt or a checkpoint under agents/"
        )
    if data.get("version") != VERSION:
        raise CheckpointError(f"checkpoint {path!r} has version {data.get('version')!r}, this code reads {VERSION}")
    for key in ("algo", "variant", "board_size", "net", "weights"):
        if key not in data:
            raise CheckpointError(f"checkpoint {path!r} lacks the field {key!r}")
    if data["algo"] not in ALGOS:
        raise CheckpointError(f"checkpoint {path!r} has unknown algo {data['algo']!r} (known: {', '.join(ALGOS)})")
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
        config = NetConfig(**{k: int(v) for k, v in stored.items() if k in known})
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
    device: str = "cpu",
    threads: int | None = 1,
    **net_overrides: int,
) -> Agent:
    """The arena agent stored in ``path``.

    Args:
        path: an agent checkpoint (``best.pt`` of a run).
        variant: the variant to play; must be the one the network was trained
            on (``None``: that one).
        seed: the agent's random generator seed (tie-breaking).
        simulations: MCTS simulations per searched leg (alphazero; default: as trained).
        device: torch device of the network.
        threads: torch CPU threads to use (``None`` leaves torch's setting): 1 by default,
            since the arena runs one game per core and small nets slow down badly when
            their threads compete.
        **net_overrides: the expected network size (``channels=``, ``blocks=``);
            a mismatch raises :class:`CheckpointError`.

    AlphaZero checkpoints play with their MCTS (:class:`~agents.alphazero.MCTSAgent`),
    PPO checkpoints with their policy (:class:`~agents.ppo.PolicyAgent`).
    """
    path = os.fspath(path)
    data = read_checkpoint(path)
    if variant is None:
        rules = get_rules(data["variant"])
    else:
        try:
            rules = variant if isinstance(variant, Rules) else get_rules(variant)
        except UnknownVariantError as exc:
            raise CheckpointError(str(exc)) from None
    if rules.name != data["variant"] or rules.board_size != data["board_size"]:
        raise CheckpointError(
            f"checkpoint {path!r} was trained on variant {data['variant']!r}, not {rules.name!r}; "
            f"pass --variant {data['variant']} or use a checkpoint trained on {rules.name!r}"
        )
    net = load_network(data, path, **net_overrides)
    if threads is not None:
        torch.set_num_threads(int(threads))
    name = os.path.basename(path)
    if data["algo"] == "alphazero":
        from .alphazero import MCTSAgent

        stored = data.get("mcts") or {}
        known = {f.name for f in fields(MCTSConfig)}
        mcts = MCTSConfig(**{k: v for k, v in stored.items() if k in known})
        if simulations is not None:
            mcts = MCTSConfig(**{**asdict(mcts), "simulations": int(simulations)})
        return MCTSAgent(net, rules, mcts, seed=seed, device=device, name=name)
    from .ppo import PolicyAgent

    return PolicyAgent(net, rules, seed=seed, device=device, name=name)
