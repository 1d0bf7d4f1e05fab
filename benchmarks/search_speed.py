"""Minimax search speed: nodes per second and depth reached in a fixed time, per variant.

    python benchmarks/search_speed.py [--variants american russian ...] [--seconds 1.0]

For each variant, searches the start position and a middlegame position
(seeded minimax:1 self-play, at least 12 plies in and with a free choice of
moves, so it is the same on every run) for ``--seconds`` on one core, after a warm-up search that
loads the compiled kernel. Prints a Markdown table. Target for american:
at least 2 million nodes/s.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from agents import MinimaxAgent  # noqa: E402
from checkers_env.core import VARIANTS, Board  # noqa: E402


def middlegame(variant: str, plies: int = 12) -> Board:
    """At least ``plies`` plies in, at the first position with 3+ moves and no capture to make."""
    board = Board(variant)
    players = MinimaxAgent(depth=1, seed=1), MinimaxAgent(depth=1, seed=2)
    while board.outcome() is None:
        moves = board.legal_moves()
        if len(board.move_stack) >= plies and len(moves) >= 3 and not any(m.captures for m in moves):
            break
        board.push(players[len(board.move_stack) % 2].select_move(board))
    return board


def measure(board: Board, seconds: float) -> tuple[int, int, float]:
    agent = MinimaxAgent(time=seconds, seed=0, tt_bits=20)
    agent.select_move(board)
    info = agent.last_search
    return info.depth, info.nodes, info.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    MinimaxAgent(depth=2).select_move(Board("american"))  # load the kernel
    print(f"| variant | position | depth in {args.seconds:g} s | nodes | nodes/s |")
    print("|---|---|---|---|---|")
    for variant in args.variants:
        for label, board in (("start", Board(variant)), ("middlegame", middlegame(variant))):
            depth, nodes, secs = measure(board, args.seconds)
            print(f"| {variant} | {label} | {depth} | {nodes:,} | {nodes / secs / 1e6:.2f} M |", flush=True)
            if label == "middlegame":
                print(f"<!-- {variant} middlegame: {board.fen()} -->", flush=True)


if __name__ == "__main__":
    main()
