"""The network's forward passes in float32 and in bfloat16, channels first and last: evaluations a second,
and self-play speed.

    python benchmarks/inference_dtype.py [--variants american international] [--batch 64] [--rounds 5]
                                         [--games 32]

For each variant, the ``train.selfplay`` network (32 channels, 3 blocks,
freshly initialised, seed 0), traced as self-play traces it
(:func:`agents.learned.make_evaluator`), on one torch thread:

1. evaluations a second on a batch of ``--batch`` positions (real
   positions from a few random plies of play), each setting timed for
   0.5 s in turn, ``--rounds`` times; the median and the ratio to float32,
   with the largest difference from float32's priors and values. The
   settings: ``float32``; ``bfloat16-nchw``, bfloat16 with the batch and
   weights channels first, as self-play ran before 2026-12-06;
   ``bfloat16``, channels last, as self-play runs now (the ``channels_last``
   of :func:`~agents.learned.make_evaluator`);
2. self-play (:func:`train.alphazero.selfplay.play_selfplay_games` with
   the ``train.selfplay`` defaults): ``--games`` games at once, each
   setting in turn, ``--rounds`` times; the median plies a second
   (networks in other formats play slightly different games, so plies a
   second, not games a minute, is the fair figure) and the ratio.

Timing the settings in turn, in one process, puts all under the same load
on a shared machine. ``auto`` (``alphazero.selfplay.inference_dtype``) is bfloat16 only
where the CPU computes it natively (AVX-512 BF16 or AMX): the script says
what this CPU has.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import time

SETTINGS = {"float32": ("float32", None), "bfloat16-nchw": ("bfloat16", False), "bfloat16": ("bfloat16", None)}
"""Each timed setting: the number format and ``make_evaluator``'s ``channels_last`` (None: its default)."""


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
    from train.alphazero import selfplay
    from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games
    from train.config import TrainConfig

    print(f"this CPU: auto is {inference_dtype('auto', 'cpu')} (torch {torch.__version__}, one thread)")
    for variant in args.variants:
        rules = get_rules(variant)
        cfg = TrainConfig(variant=variant)
        torch.manual_seed(0)
        net = PolicyValueNet(rules.board_size, cfg.net)
        obs, masks = random_observations(variant, args.batch, seed=0)
        evaluators = {k: make_evaluator(net, dtype=f, channels_last=cl) for k, (f, cl) in SETTINGS.items()}
        results = {k: evaluate(obs, masks) for k, evaluate in evaluators.items()}
        p32, v32 = results["float32"]
        print(f"{variant}: largest difference from float32: "
              + ", ".join(f"{k} priors {np.abs(p - p32).max():.4f}, values {np.abs(v - v32).max():.4f}"
                          for k, (p, v) in results.items() if k != "float32"))  # fmt: skip
        rates: dict[str, list[float]] = {k: [] for k in SETTINGS}
        for _ in range(args.rounds):
            for k, evaluate in evaluators.items():
                evaluate(obs, masks)
                calls, start = 0, time.perf_counter()
                while time.perf_counter() - start < 0.5:
                    evaluate(obs, masks)
                    calls += 1
                rates[k].append(calls * args.batch / (time.perf_counter() - start))
        median = {k: statistics.median(r) for k, r in rates.items()}
        print(f"  network, batch {args.batch}: "
              + ", ".join(f"{k} {median[k]:,.0f} evaluations/s ({median[k] / median['float32']:.2f})"
                          for k in SETTINGS))  # fmt: skip
        if not args.games:
            continue
        plies: dict[str, list[float]] = {k: [] for k in SETTINGS}
        games_min: dict[str, list[float]] = {k: [] for k in SETTINGS}
        for r in range(args.rounds + 1):  # the first round warms up (compilation, tracing) and is not kept
            for k, (f, cl) in SETTINGS.items():
                play = dataclasses.replace(cfg.alphazero.selfplay, inference_dtype=f)
                job = SelfPlayJob(None, cfg.net, rules, cfg.alphazero.mcts, play, seed=r, num_games=args.games)
                # self-play has no setting for the layout (it takes make_evaluator's default): time the
                # channels-first one by handing self-play an evaluator maker that asks for it
                selfplay.make_evaluator = functools.partial(make_evaluator, channels_last=cl)
                try:
                    start = time.perf_counter()
                    records = play_selfplay_games(job, parallel=args.games)
                    seconds = time.perf_counter() - start
                finally:
                    selfplay.make_evaluator = make_evaluator
                if r:
                    plies[k].append(sum(g.plies for g in records) / seconds)
                    games_min[k].append(60 * len(records) / seconds)
        median = {k: statistics.median(p) for k, p in plies.items()}
        print(f"  self-play, {args.games} games at once: "
              + ", ".join(f"{k} {median[k]:.0f} plies/s ({statistics.median(games_min[k]):.0f} games/min; "
                          f"{median[k] / median['float32']:.2f})" for k in SETTINGS), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
