"""Self-play games per minute: the local process pool against Ray actors, and what Ray costs per game.

    python benchmarks/selfplay_scaling.py [--games N] [--rounds 3] [--json out.json]

Plays the same AlphaZero self-play iterations (the ``train.selfplay``
defaults: the 32-channel, 3-block network, 64 simulations on a quarter of
the legs and 16 on the others, iterations of ``alphazero.games_per_iteration``
games unless ``--games`` says otherwise, each worker playing three quarters
of its share at once, games capped at 120 moves) with the same weights and
seeds, in one process and one run:

* the local pool (:class:`~train.alphazero.workers.SelfPlayPool`) with its
  default workers (one per usable core);
* Ray (:class:`~train.distributed.RayBackend`, a local Ray with one CPU per
  usable core) with 1 and with 2 actors.

Each setting plays one untimed warm-up iteration (process and actor start,
compilation, tracing), then ``--rounds`` timed iterations of ``--games``
games, the settings taking turns round by round (all three stay up, idle
while the others play), so that a change in the load of a shared machine
falls on all of them alike. Ray's overhead per game is the difference of wall time per game
between Ray and the local pool with the same number of workers. It also
times the learner's share of an iteration (the gradient steps the run makes
for those games, in this process) and projects games per minute for N
machines like this one: each machine's cores play ``1 / N`` of the games,
Ray's overhead per game is paid as measured, and the learner, which stays
in the driver, trains on every game after the self-play phase.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

from agents.runtime import tune_process, usable_cores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None, help="games per timed iteration (default: the run's)")
    parser.add_argument("--rounds", type=int, default=3, help="timed iterations per setting (default 3)")
    parser.add_argument("--variant", default="american")
    parser.add_argument("--simulations", type=int, default=None, help="MCTS simulations a leg (default: the run's)")
    parser.add_argument("--machines", type=int, nargs="+", default=[1, 2, 4, 8, 16], help="N for the projection")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    tune_process(torch_threads=usable_cores())

    import numpy as np
    import ray
    import torch

    from agents.networks import PolicyValueNet
    from checkers_env.core import get_rules
    from train.alphazero.loss import train_step
    from train.alphazero.replay import ReplayBuffer
    from train.alphazero.selfplay import SelfPlayJob
    from train.alphazero.workers import SelfPlayPool
    from train.config import TrainConfig
    from train.distributed import RayBackend, project_root

    cfg = TrainConfig(variant=args.variant)
    az = cfg.alphazero
    if args.simulations:
        az.mcts = dataclasses.replace(az.mcts, simulations=args.simulations)
    args.games = args.games or az.games_per_iteration
    rules = get_rules(args.variant)
    torch.manual_seed(0)
    weights = PolicyValueNet(rules.board_size, cfg.net).state_dict()
    cores = usable_cores()

    def play(pool, seed):
        return pool.play(SelfPlayJob(weights, cfg.net, rules, az.mcts, az.selfplay, seed, args.games))

    local_name = f"local pool, {cores} workers"
    pools = {local_name: (cores, SelfPlayPool(cores))}
    # logical CPUs for both Ray settings at once (idle actors take no time): 1 + 2
    ray.init(address="local", num_cpus=3, include_dashboard=False,
             runtime_env={"env_vars": {"PYTHONPATH": project_root()}})  # fmt: skip
    rows = {}
    try:
        for workers in (1, 2):
            backend = RayBackend(max_workers=workers)
            backend.wait_for_workers(workers, timeout=300)
            pools[f"Ray, {workers} worker{'s' if workers > 1 else ''}"] = (workers, backend)
        for _, pool in pools.values():
            play(pool, 10_000)  # warm-up: starts, compiles, traces
        seconds = {name: [] for name in pools}
        for r in range(args.rounds):
            for name, (_, pool) in pools.items():
                t0 = time.perf_counter()
                games = play(pool, r)
                seconds[name].append(time.perf_counter() - t0)
                if name == local_name:
                    local_games = games
        rows = {name: (workers, float(np.median(seconds[name]))) for name, (workers, _) in pools.items()}
    finally:
        for _, pool in pools.values():
            pool.close()
        ray.shutdown()

    # the learner's share: the gradient steps an iteration makes for these games, in this process
    games = local_games
    buffer = ReplayBuffer(az.replay_capacity, rules.board_size)
    for g in games:
        buffer.add_game(g)
    net = PolicyValueNet(rules.board_size, cfg.net)
    optimizer = torch.optim.AdamW(net.parameters(), lr=az.learning_rate, weight_decay=az.weight_decay)
    steps = max(1, math.ceil(sum(g.positions for g in games) * az.sample_reuse / az.batch_size))
    rng = np.random.default_rng(0)
    train_step(net, optimizer, buffer.sample(az.batch_size, rng), "cpu")
    t0 = time.perf_counter()
    for _ in range(steps):
        train_step(net, optimizer, buffer.sample(az.batch_size, rng), "cpu")
    learner = (time.perf_counter() - t0) / len(games)

    print(f"self-play of {args.games} games an iteration, median of {args.rounds} iterations "
          f"({cfg.net.channels} channels x {cfg.net.blocks} blocks, {az.mcts.simulations} simulations a leg, "
          f"{cores} usable cores)\n")  # fmt: skip
    print("| setting | games per minute | seconds per game (wall) | worker seconds per game |")
    print("|---|---|---|---|")
    per_game = {}
    for name, (workers, seconds) in rows.items():
        per_game[name] = seconds / args.games
        print(f"| {name} | {60 * args.games / seconds:.1f} | {per_game[name]:.3f} | {workers * per_game[name]:.3f} |")
    local = per_game[local_name]
    overhead = per_game[f"Ray, {min(2, cores)} worker{'s' if min(2, cores) > 1 else ''}"] - local
    worker_cost = cores * local  # core-seconds of self-play per game on this machine
    print(
        f"\nRay overhead per game (Ray minus the local pool, {min(2, cores)} workers each): {overhead * 1000:+.0f} ms"
    )
    print(f"learner (gradient steps for those games, this process): {learner * 1000:.0f} ms per game\n")
    print("| machines like this one | self-play games per minute | with the learner's steps |")
    print("|---|---|---|")
    projection = {}
    for n in args.machines:
        play = worker_cost / (cores * n) + max(overhead, 0.0)
        projection[n] = (60 / play, 60 / (play + learner))
        print(f"| {n} | {projection[n][0]:.0f} | {projection[n][1]:.0f} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"games": args.games, "rounds": args.rounds, "cores": cores,
                       "seconds_per_game": per_game, "ray_overhead_per_game": overhead,
                       "learner_seconds_per_game": learner,
                       "projection": {str(n): {"selfplay": a, "with_learner": b} for n, (a, b) in projection.items()}},
                      fh, indent=2)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
