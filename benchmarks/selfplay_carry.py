"""Self-play games per minute of the local pool with games carried between iterations, and without.

    python benchmarks/selfplay_carry.py [--variant american] [--rounds 4] [--games N]

Two local pools (:class:`~train.alphazero.workers.SelfPlayPool`, one worker
per usable core) play the same AlphaZero self-play iterations with the
``train.selfplay`` defaults (the 32-channel, 3-block network, freshly
initialised; 64 simulations on a quarter of the legs and 16 on the others;
``alphazero.games_per_iteration`` games an iteration unless ``--games`` says
otherwise), one with ``selfplay.carry_over`` on (the default: slots freed
at the end of an iteration play on for the next one) and one with it off
(each iteration plays its games from their start, and its network batch
shrinks as the last games end). Each pool plays one untimed warm-up
iteration (which, carrying, also fills its carry), then the two take turns
for ``--rounds`` timed iterations each, so that a change in the load of a
shared machine falls on both alike. Games of a carrying iteration were
partly played in the iteration before, so the fair figures are those of
many iterations in a row: games a minute and stored positions a minute,
over all timed rounds, and the median of the rounds' games a minute.
"""

from __future__ import annotations

import argparse
import dataclasses
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="american")
    parser.add_argument("--rounds", type=int, default=4, help="timed iterations of each setting (default 4)")
    parser.add_argument("--games", type=int, default=None, help="games an iteration (default: the run's)")
    parser.add_argument(
        "--parallel",
        type=int,
        default=None,
        help="selfplay.parallel_games: most games a worker plays at once (default: the run's)",
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    from agents.runtime import tune_process, usable_cores

    tune_process(torch_threads=1)

    import numpy as np
    import torch

    from agents.networks import PolicyValueNet
    from checkers_env.core import get_rules
    from train.alphazero.selfplay import SelfPlayJob
    from train.alphazero.workers import SelfPlayPool
    from train.config import TrainConfig

    cfg = TrainConfig(variant=args.variant)
    az = cfg.alphazero
    games = args.games or az.games_per_iteration
    rules = get_rules(args.variant)
    torch.manual_seed(0)
    weights = PolicyValueNet(rules.board_size, cfg.net).state_dict()
    cores = usable_cores()
    base = dataclasses.replace(az.selfplay, parallel_games=args.parallel or az.selfplay.parallel_games)
    settings = {
        "carried": dataclasses.replace(base, carry_over=True),
        "not carried": dataclasses.replace(base, carry_over=False),
    }
    pools = {name: SelfPlayPool(cores) for name in settings}
    rows: dict[str, list[tuple[float, int, int]]] = {name: [] for name in settings}
    try:
        for name, pool in pools.items():
            pool.play(SelfPlayJob(weights, cfg.net, rules, az.mcts, settings[name], args.seed, games))  # warm-up
        for r in range(args.rounds):
            for name, pool in pools.items():
                start = time.perf_counter()
                records = pool.play(
                    SelfPlayJob(weights, cfg.net, rules, az.mcts, settings[name], args.seed + 1 + r, games)
                )
                seconds = time.perf_counter() - start
                rows[name].append((seconds, len(records), sum(g.positions for g in records)))
                print(f"  round {r + 1} {name}: {len(records)} games in {seconds:.1f} s "
                      f"({60 * len(records) / seconds:.1f} games/min)", flush=True)  # fmt: skip
    finally:
        for pool in pools.values():
            pool.close()

    print(f"\n{args.variant}, {games} games an iteration, {cores} workers, {args.rounds} timed iterations each\n")
    print("| setting | games/min (all rounds) | median of rounds | stored positions/min |")
    print("|---|---|---|---|")
    rate = {}
    for name, timed in rows.items():
        seconds = sum(t for t, _, _ in timed)
        rate[name] = 60 * sum(n for _, n, _ in timed) / seconds
        median = float(np.median([60 * n / t for t, n, _ in timed]))
        positions = 60 * sum(p for _, _, p in timed) / seconds
        print(f"| {name} | {rate[name]:.1f} | {median:.1f} | {positions:.0f} |")
    print(f"\ncarried / not carried: {rate['carried'] / rate['not carried']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
