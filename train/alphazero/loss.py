"""AlphaZero's loss and one gradient step: value regression plus cross-entropy to the search policy."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from agents.networks import PolicyValueNet, masked_log_softmax

__all__ = ["train_step"]


def train_step(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    batch: dict[str, np.ndarray],
    device: torch.device | str = "cpu",
    value_weight: float = 1.0,
    material_weight: float = 0.0,
) -> dict[str, float]:
    """One gradient step on ``value_weight * MSE(value, z) + CE(search policy, masked policy)``, plus
    ``material_weight * MSE(material, batch["material"])`` when the network has a material head and
    the weight is positive.

    The mask of each position is the set of legs stored with it (every legal
    leg, up to :data:`~train.alphazero.selfplay.POLICY_SLOTS`), so the policy
    is normalised over legal legs only. Returns the losses and the policy entropy
    (and ``material_loss`` when that head learns).
    """
    net.train()
    obs = torch.from_numpy(batch["obs"]).to(device)
    acts = torch.from_numpy(batch["acts"].astype(np.int64)).to(device)
    probs = torch.from_numpy(batch["probs"]).to(device)
    z = torch.from_numpy(batch["values"]).to(device)
    valid = acts >= 0
    safe = acts.clamp(min=0)
    learn_material = material_weight > 0 and net.config.material_head
    if learn_material:
        logits, value, material = net.forward_with_material(obs)
    else:
        logits, value = net(obs)
    mask = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, safe, valid)
    logp = masked_log_softmax(logits, mask)
    logp_taken = logp.gather(1, safe).masked_fill(~valid, 0.0)
    policy_loss = -(probs * logp_taken).sum(1).mean()
    value_loss = F.mse_loss(value, z)
    loss = policy_loss + value_weight * value_loss
    if learn_material:
        material_loss = F.mse_loss(material, torch.from_numpy(batch["material"]).to(device))
        loss = loss + material_weight * material_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        p = logp_taken.exp()
        entropy = -(p * logp_taken).sum(1).mean()
    out = {
        "loss": loss.item(),
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
    }
    if learn_material:
        out["material_loss"] = material_loss.item()
    return out
