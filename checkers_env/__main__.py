"""Command line: ``python -m checkers_env perft --variant V --depth D [--fen F] [--divide]``."""

from __future__ import annotations

import argparse
import sys
import time

from .core import Board, CheckersError, divide, perft, variant_names
from .core.jit import use_workqueue_threading


def _perft_command(args: argparse.Namespace) -> int:
    board = Board(args.variant, fen=args.fen)
    start = time.perf_counter()
    if args.divide:
        rows = divide(board, args.depth, bulk=not args.no_bulk)
        for text, count in rows:
            print(f"{text} {count}")
        total = sum(c for _, c in rows)
        print(f"moves {len(rows)}", file=sys.stderr)
    else:
        total = perft(board, args.depth, bulk=not args.no_bulk)
    elapsed = time.perf_counter() - start
    print(f"depth {args.depth} nodes {total} time {elapsed:.3f}s", file=sys.stderr)
    print(total)
    return 0


def main(argv: list[str] | None = None) -> int:
    use_workqueue_threading()
    parser = argparse.ArgumentParser(prog="python -m checkers_env", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count leaf positions of the move tree (last line: the count alone)")
    p.add_argument("--variant", default="american", help=f"one of {', '.join(variant_names())} (or an alias)")
    p.add_argument("--depth", type=int, required=True, help="plies to search (>= 0)")
    p.add_argument("--fen", default=None, help="start from this FEN instead of the start position")
    p.add_argument("--divide", action="store_true", help="print the count below each legal move first")
    p.add_argument("--no-bulk", action="store_true", help="make every leaf move instead of counting them")
    args = parser.parse_args(argv)
    try:
        if args.command == "perft":
            if args.depth < 0:
                parser.error(f"--depth must be >= 0, got {args.depth}")
            return _perft_command(args)
    except CheckersError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
