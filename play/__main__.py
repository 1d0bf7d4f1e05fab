"""``python -m play``: serve the page where a person plays draughts against the computer."""

from __future__ import annotations

import argparse
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    """Start the server and block until Ctrl+C; print its address first."""
    parser = argparse.ArgumentParser(
        prog="python -m play",
        description="Play checkers and draughts (every variant) against the computer in your browser.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    parser.add_argument(
        "--move-time", type=float, default=2.0, help="seconds the computer may think over one move (default: 2)"
    )
    parser.add_argument(
        "--checkpoints",
        default="runs",
        metavar="DIR",
        help="folder of trained agent checkpoints (*.pt, searched recursively) the page offers as opponents "
        "(default: runs); no other file can be chosen",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the page may be opened by (repeatable); localhost, 127.0.0.1, [::1] and --host "
        "always are. Requests naming any other host are refused, so that a web page cannot reach this server "
        "through DNS rebinding",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be from 0 to 65535, got {args.port}")
    if args.move_time <= 0:
        parser.error(f"--move-time must be positive, got {args.move_time}")

    from agents.runtime import tune_process

    tune_process(torch_threads=1)  # a checkpoint opponent: one thread per request keeps the server responsive
    try:
        from werkzeug.serving import make_server

        from .server import create_app
    except ImportError as exc:  # the server's MissingDependencyError names the extra to install
        print(f"error: {exc}", file=sys.stderr)
        return 2

    try:
        server = make_server(
            args.host,
            args.port,
            create_app(
                move_time=args.move_time, allowed_hosts=[args.host, *args.allowed_host], checkpoints=args.checkpoints
            ),
            threaded=True,
        )
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    from .opponents import warm_up

    # The first search compiles numba kernels (tens of seconds on a fresh install): do it before anyone waits.
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Playing checkers at http://{host}:{server.server_port}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
