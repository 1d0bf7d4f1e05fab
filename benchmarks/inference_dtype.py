"""The network's forward passes in float32 and in bfloat16: evaluations a second, and self-play speed.

    python benchmarks/inference_dtype.py [--variants american international] [--batch 64] [--rounds 5]
                                         [--games 32]

For each variant, the ``train.selfplay`` network (32 channels, 3 blocks,
freshly initialised, seed 0), traced as self-play traces it
(:func:`agents.learned.make_evaluator`), on one torch thread:

1. evaluations a second on a batch of ``--batch`` positions (real
   positions from a few random plies of play), each number format timed
   for 0.5 s in turn, ``--rounds`` times; the median and the ratio, with
   the largest difference between the two formats' priors and values;
2. self-play (:func:`train.alphazero.selfplay.play_selfplay_games` with
   the ``train.selfplay`` defaults): ``--games`` games at once, each
   format in turn, ``--rounds`` times; the median plies a second
   (networks in the two formats play slightly different games, so plies a
   second, not games a minute, is the fair figure) and the ratio.

Timing the formats in turn, in one process, puts both under the same load
on a shared machine. ``auto`` (``alphazero.selfplay.inference_dtype``) is bfloat16 only
where the CPU computes it natively (AVX-512 BF16 or AMX): the script says
what this CPU has.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

FORMATS = ("float32", "bfloat16")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["american", "international"])
    parser.add_argument("--batch", type=int, default=64, help="positions per network call (default 64)")
    parser.add_argument("--rounds", type=int, default=5, help="timings of each format (default 5)")
    parser.add_argument("--games", type=int, default=32, help="self-play games at once, per round (0: skip)")
    args = parser.parse_args(argv)

    from agents.runtime import tune_process

    tune_process(torch_threads=1)

    import numpy as np
    import torch

    from agents.learned import make_evaluator
    from agents.networks import PolicyValueNet, inference_dtype
    from checkers_env.core import get_rules
    from checkers_env.game import random_observations
    from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games
    from train.config import TrainConfig

    print(f"this CPU: auto is {inference_dtype('auto', 'cpu')} (torch {torch.__version__}, one thread)")
    for variant in args.variants:
        rules = get_rules(variant)
        cfg = TrainConfig(variant=variant)
        torch.manual_seed(0)
        net = PolicyValueNet(rules.board_size, cfg.net)
        obs, masks = random_observations(variant, args.batch, seed=0)
        evaluators = {f: make_evaluator(net, dtype=f) for f in FORMATS}
        (p32, v32), (p16, v16) = (evaluators[f](obs, masks) for f in FORMATS)
        print(f"{variant}: largest difference bfloat16 - float32: priors {np.abs(p16 - p32).max():.4f}, "
              f"values {np.abs(v16 - v32).max():.4f}")  # fmt: skip
        rates: dict[str, list[float]] = {f: [] for f in FORMATS}
        for _ in range(args.rounds):
            for f, evaluate in evaluators.items():
                evaluate(obs, masks)
                calls, start = 0, time.perf_counter()
                while time.perf_counter() - start < 0.5:
                    evaluate(obs, masks)
                    calls += 1
                rates[f].append(calls * args.batch / (time.perf_counter() - start))
        median = {f: statistics.median(r) for f, r in rates.items()}
        print(f"  network, batch {args.batch}: " + ", ".join(f"{f} {median[f]:,.0f} evaluations/s" for f in FORMATS)
              + f"; bfloat16 / float32 {median['bfloat16'] / median['float32']:.2f}")  # fmt: skip
        if not args.games:
            continue
        plies: dict[str, list[float]] = {f: [] for f in FORMATS}
        games_min: dict[str, list[float]] = {f: [] for f in FORMATS}
        for r in range(args.rounds + 1):  # the first round warms up (compilation, tracing) and is not kept
            for f in FORMATS:
                play = dataclasses.replace(cfg.alphazero.selfplay, inference_dtype=f)
                job = SelfPlayJob(None, cfg.net, rules, cfg.alphazero.mcts, play, seed=r, num_games=args.games)
                start = time.perf_counter()
                records = play_selfplay_games(job, parallel=args.games)
                seconds = time.perf_counter() - start
                if r:
                    plies[f].append(sum(g.plies for g in records) / seconds)
                    games_min[f].append(60 * len(records) / seconds)
        median = {f: statistics.median(p) for f, p in plies.items()}
        print(f"  self-play, {args.games} games at once: "
              + ", ".join(f"{f} {median[f]:.0f} plies/s ({statistics.median(games_min[f]):.0f} games/min)"
                          for f in FORMATS)
              + f"; bfloat16 / float32 {median['bfloat16'] / median['float32']:.2f}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
