"""The learning benchmark: train on american, then measure against minimax and random.

    python -m train.benchmark                                   # the full benchmark (60 + 10 minutes, 100 games)
    python -m train.benchmark --az-minutes 20 --ppo-minutes 5 --games 40   # a shorter run

Steps:

1. AlphaZero trains for ``--az-minutes`` (``train.selfplay`` defaults, run
   folder ``RUN/alphazero``), then its ``best.pt``, searching with its MCTS
   (``--simulations`` per searched leg), plays ``--games`` games against
   minimax depth 2 and depth 4, in pairs from balloted openings (the ACF
   three-move deck) with colours reversed.
2. PPO trains for ``--ppo-minutes`` (``RUN/ppo``) and plays ``--games`` games
   against the random player.

Targets: AlphaZero at least 75% against minimax:2 and 50% against
minimax:4; PPO at least 95% against random. The summary (``RUN/benchmark.json``
and ``RUN/benchmark.md``) gives each score with its 95% interval, whether the
target was met, and where the learning curves are. A finished step is not
run again when the command is repeated with the same ``--run-dir``
(training resumes where it stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from checkers_env.core.files import atomic_write

__all__ = ["main"]

TARGETS = {("alphazero", "minimax:2"): 0.75, ("alphazero", "minimax:4"): 0.50, ("ppo", "random"): 0.95}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--run-dir", default="runs/benchmark", help="folder of the benchmark (default: runs/benchmark)")
    p.add_argument("--az-minutes", type=float, default=60.0, help="AlphaZero training minutes (default: 60)")
    p.add_argument("--ppo-minutes", type=float, default=10.0, help="PPO training minutes (default: 10; 0 skips PPO)")
    p.add_argument("--games", type=int, default=100, help="games per measured pairing (default: 100)")
    p.add_argument("--simulations", type=int, default=128, help="MCTS simulations per searched leg in the match")
    p.add_argument("--seed", type=int, default=0, help="seed of training and openings (default: 0)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    return p


def _train(algo: str, minutes: float, run_dir: str, seed: int, progress: bool) -> str:
    from agents.checkpoint import read_checkpoint

    from .config import TrainConfig
    from .run import train

    # about five points on the learning curve: evaluations are not counted in the budget but cost wall time
    cfg = TrainConfig(variant="american", algo=algo, minutes=minutes, run_dir=run_dir, seed=seed, final_games=0,
                      progress=progress, eval_every_minutes=max(2.5, minutes / 5), eval_games=10,
                      eval_opponents=("minimax:2", "minimax:4") if algo == "alphazero" else ("minimax:2",))  # fmt: skip
    best = os.path.join(run_dir, "best.pt")
    done = os.path.exists(best) and read_checkpoint(best)["meta"].get("train_minutes", 0) >= minutes
    if not done:
        train(cfg)
    return best


def main(argv: list[str] | None = None) -> int:
    from agents.runtime import tune_process

    tune_process()
    args = build_parser().parse_args(argv)
    from agents.checkpoint import load_agent, read_checkpoint

    from .arena import evaluate
    from .run import results_table

    if args.games < 2 or args.az_minutes <= 0 or args.ppo_minutes < 0 or args.simulations < 2:
        print("error: --games >= 2, --az-minutes > 0, --ppo-minutes >= 0, --simulations >= 2", file=sys.stderr)
        return 2
    os.makedirs(args.run_dir, exist_ok=True)
    progress = not args.no_progress
    rows: list[dict] = []
    started = time.time()
    try:
        az_dir = os.path.join(args.run_dir, "alphazero")
        best = _train("alphazero", args.az_minutes, az_dir, args.seed, progress)
        agent = load_agent(best, "american", simulations=args.simulations)
        for spec in ("minimax:2", "minimax:4"):
            doc, _ = evaluate(agent.rules, agent, spec, args.games, args.seed + 1, progress=progress)
            rows.append({"agent": "alphazero", "checkpoint": best, "simulations": args.simulations,
                         "train_minutes": read_checkpoint(best)["meta"]["train_minutes"], **doc})  # fmt: skip
        if args.ppo_minutes > 0:
            ppo_dir = os.path.join(args.run_dir, "ppo")
            best = _train("ppo", args.ppo_minutes, ppo_dir, args.seed, progress)
            agent = load_agent(best, "american", seed=args.seed)
            doc, _ = evaluate(agent.rules, agent, "random", args.games, args.seed + 1, progress=progress)
            rows.append({"agent": "ppo", "checkpoint": best, "train_minutes": read_checkpoint(best)["meta"]["train_minutes"],
                         **doc})  # fmt: skip
    except KeyboardInterrupt:
        return 130
    for r in rows:
        target = TARGETS.get((r["agent"], r["opponent"]))
        r["target"] = target
        r["met"] = None if target is None else r["score"] >= target
    summary = {
        "variant": "american",
        "az_minutes": args.az_minutes,
        "ppo_minutes": args.ppo_minutes,
        "games": args.games,
        "simulations": args.simulations,
        "wall_minutes": (time.time() - started) / 60,
        "results": rows,
        "curves": [os.path.join(args.run_dir, a, "learning_curve.png") for a in ("alphazero", "ppo")],
    }
    atomic_write(os.path.join(args.run_dir, "benchmark.json"), json.dumps(summary, indent=2, default=float))
    lines = [
        "| agent | training minutes | opponent | games | W-D-L | score [95% CI] | target | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        minutes = r["train_minutes"]
        lo, hi = r["score_ci"]
        lines.append(
            f"| {r['agent']} | {minutes:.1f} | {r['opponent']} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} "
            f"| {r['score']:.3f} [{lo:.2f}, {hi:.2f}] | {r['target']:.2f} | {'yes' if r['met'] else 'no'} |"
        )
    atomic_write(os.path.join(args.run_dir, "benchmark.md"), "\n".join(lines) + "\n")
    print(results_table(rows, f"learning benchmark (american), {summary['wall_minutes']:.0f} wall minutes"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
