"""Perft speed of the rules core, with OpenSpiel's checkers as the yardstick.

Usage::

    python benchmarks/perft_speed.py [--repeats 5] [--markdown]

For every variant: start-position perft nodes per second with bulk counting
at the leaves (count the moves without making them) and without, the median
of ``--repeats`` runs on one thread after compilation. In the same run:
OpenSpiel's american checkers perft (whole moves: its multi-jump actions are
followed to the end of the move), and the cold (empty numba cache) and warm
(cached) start time of a fresh process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from checkers_env import Board, perft  # noqa: E402

DEPTHS = {
    "american": 10,
    "russian": 9,
    "brazilian": 9,
    "spanish": 9,
    "italian": 9,
    "czech": 9,
    "pool": 9,
    "international": 8,
}


def _timed(fn, repeats: int) -> tuple[int, float]:
    times = []
    result = 0
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def openspiel_perft(depth: int) -> tuple[int, float] | None:
    """Whole-move perft of OpenSpiel's checkers, or None when it is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("checkers")

    def count(state, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        player = state.current_player()
        for action in state.legal_actions():
            child = state.child(action)
            if not child.is_terminal() and child.current_player() == player:
                total += count(child, depth)  # the same move goes on (multi-jump)
            else:
                total += count(child, depth - 1)
        return total

    start = time.perf_counter()
    nodes = count(game.new_initial_state(), depth)
    return nodes, time.perf_counter() - start


def start_time(cache_dir: str) -> float:
    """Seconds for a fresh process to import the core and run a depth-3 perft of every variant."""
    code = (
        "import time; t = time.perf_counter()\n"
        "from checkers_env import Board, perft\n"
        f"[perft(Board(v), 3) for v in {list(DEPTHS)!r}]\n"
        "print(time.perf_counter() - t)\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--openspiel-depth", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as cache:
        cold = start_time(cache)
        warm = start_time(cache)

    rows = []
    for variant, depth in DEPTHS.items():
        board = Board(variant)
        perft(board, 3)  # compile
        nodes, bulk_s = _timed(lambda b=board, d=depth: perft(b, d, bulk=True), args.repeats)
        _, plain_s = _timed(lambda b=board, d=depth: perft(b, d, bulk=False), args.repeats)
        rows.append((variant, depth, nodes, nodes / bulk_s / 1e6, nodes / plain_s / 1e6))

    print("| variant | depth | nodes | Mnodes/s bulk | Mnodes/s no bulk |")
    print("|---|---|---|---|---|")
    for variant, depth, nodes, bulk, plain in rows:
        print(f"| {variant} | {depth} | {nodes:,} | {bulk:.1f} | {plain:.1f} |")

    spiel = openspiel_perft(args.openspiel_depth)
    american = next(r for r in rows if r[0] == "american")
    if spiel is None:
        print("\nOpenSpiel not installed (pip install open-spiel): no yardstick this run.")
    else:
        nodes, seconds = spiel
        rate = nodes / seconds / 1e6
        print(f"\nOpenSpiel checkers perft({args.openspiel_depth}) = {nodes:,} in {seconds:.2f}s: {rate:.2f} Mnodes/s")
        print(f"american bulk / OpenSpiel: {american[3] / rate:.0f}x")
    print(f"\nfresh process, import + depth-3 perft of every variant: cold (empty cache) {cold:.1f}s, warm {warm:.2f}s")


if __name__ == "__main__":
    main()
