"""Network evaluations and self-play on a GPU, against the CPU in the same run: what the scaling rule rests on.

    python benchmarks/gpu_scaling.py [--device cuda] [--variant american] [--nets 32x3 64x6 128x10]
                                     [--batches 64 256 1024 4096] [--parallel 64 256] [--workers 1 4 8]
                                     [--dtype auto] [--seconds 1.0] [--rounds 3] [--json out.json]

Three measurements, each network freshly initialised (seed 0) and traced as
self-play traces it (:func:`agents.learned.make_evaluator`: host arrays in,
masked priors and values back as host arrays, so every figure includes the
transfers that self-play pays):

1. **The network alone**: evaluations a second of each ``--nets`` size
   (``CxB``: channels x residual blocks) at each ``--batches`` size, in
   float32 and bfloat16 on ``--device``, and the 32x3 network at a batch of
   64 on one CPU thread (the 2-core recipe's setting) as the reference,
   each timed for ``--seconds`` in turn, ``--rounds`` times; medians.
2. **Self-play in one process**
   (:func:`train.alphazero.selfplay.play_selfplay_games` with the
   ``train.selfplay`` search settings, the network in ``--dtype``):
   ``--parallel`` games at once on ``--device``, twice that many games in all; plies a second (the MCTS
   kernels and the rules run on one CPU core, the network on the device).
3. **Self-play processes sharing the device**
   (:class:`train.alphazero.workers.SelfPlayPool`, the pool ``train.selfplay``
   uses): ``--workers`` processes of one CPU thread each, each playing
   ``--parallel``'s largest value of games at once; one untimed warm-up
   iteration (process start, compilation, tracing), then ``--rounds`` timed
   iterations; games a minute and plies a second.

Networks in other sizes play other games, so plies a second, not games a
minute, compares them; a game of the untrained network is about as long as
one of a trained one early in a run. The GPU's figures are for a machine
with many cores: the self-play pool's scaling also depends on the cores
that drive it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import time

FORMATS = ("float32", "bfloat16")


def _net_sizes(specs: list[str]) -> list[tuple[int, int]]:
    sizes = []
    for spec in specs:
        channels, _, blocks = spec.partition("x")
        if not (channels.isdigit() and blocks.isdigit()):
            raise SystemExit(f"--nets takes CHANNELSxBLOCKS, like 64x6; got {spec!r}")
        sizes.append((int(channels), int(blocks)))
    return sizes


def _rate(evaluate, obs, masks, seconds: float) -> float:
    """Evaluations a second of ``evaluate`` on this batch, timed for ``seconds`` after one untimed call."""
    evaluate(obs, masks)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        evaluate(obs, masks)  # returns host arrays: each call waits for the device
        calls += 1
    return calls * len(obs) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--variant", default="american")
    parser.add_argument("--nets", nargs="+", default=["32x3", "64x6", "128x10"], help="CHANNELSxBLOCKS sizes")
    parser.add_argument("--batches", type=int, nargs="*", default=[64, 256, 1024, 4096], help="(none: skip)")
    parser.add_argument("--parallel", type=int, nargs="+", default=[64, 256], help="self-play games at once")
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 4, 8], help="self-play processes (none: skip)")
    parser.add_argument(
        "--dtype",
        default="auto",
        choices=["auto", "float32", "bfloat16"],
        help="number format of self-play's network (default: the run's, auto: float32 on a GPU)",
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="time per network timing")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    sizes = _net_sizes(args.nets)

    from agents.runtime import tune_process

    tune_process(torch_threads=1)

    import torch

    from agents.learned import make_evaluator
    from agents.networks import NetConfig, PolicyValueNet, pick_device
    from checkers_env.core import get_rules
    from checkers_env.game import random_observations
    from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games
    from train.alphazero.workers import SelfPlayPool
    from train.config import TrainConfig

    device = pick_device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    rules = get_rules(args.variant)
    cfg = TrainConfig(variant=args.variant)
    print(f"device {device} ({name}); torch {torch.__version__}; {os.cpu_count()} CPUs; {args.variant}", flush=True)
    figures: dict = {"device": name, "variant": args.variant, "cpus": os.cpu_count(), "network": [], "selfplay": []}

    # 1. the network alone
    torch.manual_seed(0)
    reference_net = PolicyValueNet(rules.board_size, NetConfig(channels=32, blocks=3))
    reference = make_evaluator(reference_net, "cpu", dtype="float32")
    ref_obs, ref_masks = random_observations(args.variant, 64, seed=0)
    cpu_rates = [_rate(reference, ref_obs, ref_masks, args.seconds) for _ in range(args.rounds)]
    cpu_rate = statistics.median(cpu_rates)
    print(f"reference: 32x3 at batch 64 on one CPU thread, float32: {cpu_rate:,.0f} evaluations/s", flush=True)
    figures["cpu_reference"] = cpu_rate
    batches = {b: random_observations(args.variant, b, seed=b) for b in args.batches}
    for channels, blocks in sizes:
        torch.manual_seed(0)
        net = PolicyValueNet(rules.board_size, NetConfig(channels=channels, blocks=blocks))
        evaluators = {f: make_evaluator(net, device, dtype=f) for f in FORMATS}
        for batch, (obs, masks) in batches.items():
            rates = {f: statistics.median(_rate(e, obs, masks, args.seconds) for _ in range(args.rounds))
                     for f, e in evaluators.items()}  # fmt: skip
            row = {"net": f"{channels}x{blocks}", "batch": batch, **rates}
            figures["network"].append(row)
            print(f"network {channels}x{blocks}, batch {batch:>5}: float32 {rates['float32']:>11,.0f}, "
                  f"bfloat16 {rates['bfloat16']:>11,.0f} evaluations/s "
                  f"({rates['bfloat16'] / cpu_rate:,.1f}x the CPU reference)", flush=True)  # fmt: skip

    # 2. self-play in one process, and 3. processes sharing the device
    search, play = cfg.alphazero.mcts, dataclasses.replace(cfg.alphazero.selfplay, inference_dtype=args.dtype)
    largest = max(args.parallel)
    pool_workers = [w for w in args.workers if w >= 1]
    pools = {w: SelfPlayPool(w, threads=1) for w in pool_workers}
    try:
        for channels, blocks in sizes:
            net_config = NetConfig(channels=channels, blocks=blocks)
            for parallel in args.parallel:
                job = SelfPlayJob(None, net_config, rules, search, play, seed=1, num_games=2 * parallel,
                                  device=str(device))  # fmt: skip
                play_selfplay_games(dataclasses.replace(job, num_games=4), parallel=4)  # compile, trace
                start = time.perf_counter()
                records = play_selfplay_games(job, parallel=parallel)
                seconds = time.perf_counter() - start
                plies = sum(g.plies for g in records)
                row = {"net": f"{channels}x{blocks}", "workers": 0, "parallel": parallel, "games": len(records),
                       "plies_per_second": plies / seconds, "games_per_minute": 60 * len(records) / seconds}  # fmt: skip
                figures["selfplay"].append(row)
                print(f"self-play {channels}x{blocks}, one process, {parallel} at once: {plies / seconds:,.0f} plies/s, "
                      f"{60 * len(records) / seconds:,.0f} games/min", flush=True)  # fmt: skip
            for workers, pool in pools.items():
                games = workers * largest
                job = SelfPlayJob(None, net_config, rules, search, dataclasses.replace(play, parallel_games=largest),
                                  seed=2, num_games=games, device=str(device))  # fmt: skip
                pool.play(job)  # warm-up: process start, compilation, tracing
                rates, minutes = [], []
                for r in range(args.rounds):
                    start = time.perf_counter()
                    records = pool.play(dataclasses.replace(job, seed=3 + r))
                    seconds = time.perf_counter() - start
                    rates.append(sum(g.plies for g in records) / seconds)
                    minutes.append(60 * len(records) / seconds)
                row = {"net": f"{channels}x{blocks}", "workers": workers, "parallel": largest, "games": games,
                       "plies_per_second": statistics.median(rates),
                       "games_per_minute": statistics.median(minutes)}  # fmt: skip
                figures["selfplay"].append(row)
                print(f"self-play {channels}x{blocks}, {workers} processes, {largest} at once each: "
                      f"{row['plies_per_second']:,.0f} plies/s, {row['games_per_minute']:,.0f} games/min", flush=True)  # fmt: skip
    finally:
        for pool in pools.values():
            pool.close()
    if args.json:
        tmp = f"{args.json}.tmp"
        with open(tmp, "w") as f:
            json.dump(figures, f, indent=1)
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
