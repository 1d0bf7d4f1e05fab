"""Minimax strength ladder: depth d+2 against depth d, and depth 2 against random, per variant.

    python benchmarks/minimax_strength.py [--variants american ...] [--games 40] [--depths 1 2 3 4 5]
        [--workers 2] [--json ladder.json]

Each rung is an arena match (:func:`train.evaluate.run_arena`: balloted
openings, pairs of games with colours reversed, seeded). Targets: depth d+2
scores at least 65% against depth d for d = 1..5; depth 2 scores at least
95% against random. Prints a Markdown table with 95% intervals.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from checkers_env.core import VARIANTS  # noqa: E402
from train.evaluate import run_arena, summarize, write_json  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--games", type=int, default=40, help="games per rung (pairs of games)")
    parser.add_argument("--depths", nargs="+", type=int, default=[1, 2, 3, 4, 5], help="the d of each d+2 vs d rung")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", help="write every rung's results here")
    args = parser.parse_args()
    rows = []
    print("| variant | A | B | games | A +/=/- | A score [95% CI] | target | met |")
    print("|---|---|---|---|---|---|---|---|")
    for variant in args.variants:
        rungs = [("minimax:2", "random", 0.95)] + [(f"minimax:{d + 2}", f"minimax:{d}", 0.65) for d in args.depths]
        for a, b, target in rungs:
            start = time.perf_counter()
            records, interrupted = run_arena([a, b], variant, args.games, args.seed, args.workers, progress=False)
            doc = summarize([a, b], variant, args.games, args.seed, records, interrupted)
            doc["seconds"] = time.perf_counter() - start
            doc["target"] = target
            doc.pop("game_records")
            rows.append(doc)
            lo, hi = doc["score_ci"]
            met = "yes" if doc["score"] >= target else "no"
            print(
                f"| {variant} | {a} | {b} | {doc['games']} | {doc['wins']}/{doc['draws']}/{doc['losses']} "
                f"| {doc['score']:.3f} [{lo:.2f}, {hi:.2f}] | {target:.0%} | {met} |",
                flush=True,
            )
            if args.json:
                write_json(args.json, {"rungs": rows})
            if interrupted:
                return


if __name__ == "__main__":
    main()
