"""How a trained network's value depends on the move-number plane: the same positions, valued with the
plane set to each of a range of move numbers.

    python benchmarks/value_by_move_number.py RUN_DIR [--games 300] [--positions 3000] [--seed 0]

``RUN_DIR`` is an AlphaZero run (``train.selfplay``'s ``--run-dir``, or
``RUN/<variant>`` of a benchmark): its ``best.pt`` and the self-play games in
its ``replay/`` log. From the last ``--games`` logged games, ``--positions``
stored positions are drawn; the network values each one with its own plane
(``as played``) and then with the plane set to every value of
:data:`PLANE_VALUES` (the move number over the 200 plies that fill the plane:
self-play stops its games at ``max_moves`` = 120 whole moves, 0.6, and
evaluation plays on to 200, 1.0). For each it prints the mean absolute value,
the correlation of the value with the positions' learnt targets and with
their material lead (man 1, king 1.5), and the mean absolute change from
the value as played.

A network that reads the move number (``NetConfig.reads_move_number``, the
default before 2026-12-06) learns from its targets when self-play's games
stop; one that does not gives the same row for every plane value.
The log is only read (:func:`train.alphazero.replay.read_game_log`), so a
run still training may be measured too.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

PLANE_VALUES = (0.0, 0.1, 0.3, 0.5, 0.6, 0.7, 0.85, 1.0)
"""Move-number plane values tried: plies over 200."""


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", help="an AlphaZero run: best.pt and replay/")
    p.add_argument("--games", type=int, default=300, help="logged games to draw positions from (the last)")
    p.add_argument("--positions", type=int, default=3000, help="positions valued")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.games < 1 or args.positions < 2:
        p.error("--games must be at least 1 and --positions at least 2")

    import torch

    from agents.checkpoint import load_network, read_checkpoint
    from agents.networks import MOVE_NUMBER_PLANE
    from checkers_env.observation import material_lead
    from train.alphazero.replay import read_game_log

    torch.set_num_threads(1)
    net = load_network(read_checkpoint(os.path.join(args.run_dir, "best.pt")))
    replay = os.path.join(args.run_dir, "replay")
    if not os.path.isdir(replay):
        p.error(f"{replay} not found: is {args.run_dir} an AlphaZero run directory?")
    games = read_game_log(replay, args.games)
    if not games:
        p.error(f"no logged games in {replay}")
    obs = np.concatenate([g.observations for g in games]).astype(np.float32)
    targets = np.concatenate([g.value_targets for g in games])
    pick = np.random.default_rng(args.seed).choice(len(obs), min(args.positions, len(obs)), replace=False)
    obs, targets = obs[pick], targets[pick]
    lead = material_lead(obs)
    played = obs[:, MOVE_NUMBER_PLANE, 0, 0]
    print(f"{args.run_dir}: {len(games)} games, {len(obs)} positions valued; move-number plane as played "
          f"{played.min():.2f} to {played.max():.2f} (median {np.median(played):.2f}); "
          f"the network {'reads' if net.config.reads_move_number else 'does not read'} it")  # fmt: skip
    batch = torch.from_numpy(obs)
    with torch.no_grad():
        base = net(batch)[1].numpy()
        rows = [("as played", base)]
        for value in PLANE_VALUES:
            batch[:, MOVE_NUMBER_PLANE] = value
            rows.append((f"{value:.2f}", net(batch)[1].numpy()))
    print(f"{'plane':>10} {'mean |v|':>9} {'corr(v, target)':>16} {'corr(v, material)':>18} {'mean |v - played|':>18}")
    for name, v in rows:
        print(f"{name:>10} {np.abs(v).mean():9.3f} {np.corrcoef(v, targets)[0, 1]:16.3f} "
              f"{np.corrcoef(v, lead)[0, 1]:18.3f} {np.abs(v - base).mean():18.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
