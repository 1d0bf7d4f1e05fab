"""How far the weights of trained networks have grown from their initial size: the norm of each
convolution's weights, against a freshly initialised network of the same shape.

    python benchmarks/weight_norms.py CHECKPOINT [CHECKPOINT ...]

Each ``CHECKPOINT`` is an agent file (``RUN/best.pt``, ``RUN/latest.pt``). For every
4-dimensional weight (the convolutions) it prints the Frobenius norm of the
trained weights, that of a fresh network's (seed 0: at this size the
initial norm hardly depends on the seed) and their ratio; then the mean
ratio over the trunk's convolutions (``stem`` and the residual blocks).

Why it matters: each trunk convolution is followed by batch normalisation,
so its output does not depend on the scale of its weights, and an Adam step
of a given size moves them by a share that falls as their norm grows. A
trunk whose weights have grown k times from their start learns, for the
same step size, about as if the step were k times smaller. Weight decay
(``alphazero.weight_decay``) holds that growth back.
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="agent checkpoint files (best.pt, latest.pt)")
    args = parser.parse_args(argv)

    import torch

    from agents.checkpoint import load_network, read_checkpoint
    from agents.networks import PolicyValueNet

    for path in args.checkpoints:
        trained = load_network(read_checkpoint(path), path)
        torch.manual_seed(0)
        fresh = PolicyValueNet(trained.board_size, trained.config).state_dict()
        print(f"{path} ({trained.config.channels} channels, {trained.config.blocks} blocks)")
        trunk = []
        for name, weight in trained.state_dict().items():
            if weight.dim() != 4:
                continue
            now, start = weight.float().norm().item(), fresh[name].float().norm().item()
            print(f"  {name:<24} {start:7.2f} -> {now:7.2f}  x{now / start:.2f}")
            if name.startswith(("stem.", "trunk.")):
                trunk.append(now / start)
        if trunk:
            print(f"  trunk convolutions: mean growth x{sum(trunk) / len(trunk):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
