"""Self-play games per minute of one worker by how many games it plays at once (its network batch).

    python benchmarks/selfplay_batch.py [--variant american] [--parallel 24 48] [--games-per-slot 2]

One self-play worker (:func:`train.alphazero.selfplay.play_selfplay_games`,
in this process, one torch thread) with the ``train.selfplay`` defaults (the
32-channel, 3-block network, freshly initialised; 64 simulations on a
quarter of the legs and 16 on the others; games capped at 120 moves) plays
``parallel * games-per-slot`` games ``parallel`` at a time, for each
``--parallel`` setting in turn, after one small untimed warm-up (compilation,
tracing). It prints games a minute, stored positions, plies a game and the
network's share of the time. This is the figure behind the default of
``alphazero.selfplay.parallel_games``: a pool worker carrying games between
iterations keeps that many going (:func:`train.alphazero.workers.worker_batch`).

To compare two versions of the code, run it with ``PYTHONPATH`` pointing at
each checkout in turn (the script imports the project from there).
"""

from __future__ import annotations

import argparse
import dataclasses
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="american")
    parser.add_argument("--parallel", type=int, nargs="+", default=[24, 48], help="games at once (default 24 48)")
    parser.add_argument("--games-per-slot", type=int, default=2, help="games played per slot (default 2)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    from agents.runtime import tune_process

    tune_process(torch_threads=1)

    from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games
    from train.config import TrainConfig

    cfg = TrainConfig(variant=args.variant)
    az = cfg.alphazero
    job = SelfPlayJob(None, cfg.net, args.variant, az.mcts, az.selfplay, seed=1, num_games=2)
    play_selfplay_games(job, parallel=2)  # warm-up
    for parallel in args.parallel:
        games = parallel * args.games_per_slot
        start = time.perf_counter()
        records = play_selfplay_games(dataclasses.replace(job, seed=args.seed, num_games=games), parallel=parallel)
        seconds = time.perf_counter() - start
        positions = sum(r.positions for r in records)
        plies = sum(r.plies for r in records) / games
        network = sum(r.seconds["network"] for r in records) / seconds
        print(f"{args.variant}, {parallel} games at once, {games} games: {seconds:.1f} s, "
              f"{games / seconds * 60:.1f} games/min, {positions} positions, {plies:.0f} plies a game, "
              f"network {network:.0%} of the time")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
