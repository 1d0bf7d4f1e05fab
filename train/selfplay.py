"""Self-play training from the command line: AlphaZero or masked PPO, on any variant.

    python -m train.selfplay --variant american --algo alphazero --minutes 10     # or: checkers-train ...
    python -m train.selfplay --variant russian --algo ppo --minutes 30 --run-dir runs/ru-ppo
    python -m train.selfplay --variant american --minutes 60 --backend ray --ray-address HEAD:6379
    python -m train.selfplay --help                        # every option

Running the command again with the same ``--run-dir`` resumes where the run
stopped. See :mod:`train.run` for what a run does and the files of its
folder. Exit status: 0 done, 2 bad input (an unknown variant, a run folder
made with other settings, a damaged state file), 130 interrupted (Ctrl-C or
SIGTERM; resumable).
"""

from __future__ import annotations

import sys

__all__ = ["main", "parse_args"]


def parse_args(argv: list[str] | None = None):
    """The :class:`~train.config.TrainConfig` from the command line (tyro; every field has its --help)."""
    from agents.runtime import tune_process

    tune_process()  # before torch loads (the configuration imports it)
    from checkers_env.core.extras import require

    tyro = require("tyro", "the training command line")
    require("torch", "training")
    from .config import TrainConfig

    return tyro.cli(TrainConfig, args=argv, prog="python -m train.selfplay", description=__doc__.split("\n\n")[0])


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m train.selfplay`` and ``checkers-train``; returns the exit status."""
    from checkers_env.core.extras import MissingDependencyError

    try:
        cfg = parse_args(argv)
    except MissingDependencyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from .run import train

    try:
        train(cfg)
    except KeyboardInterrupt:
        return 130
    except (ValueError, MissingDependencyError) as exc:  # bad input: unknown variant, mismatched or damaged
        print(f"error: {exc}", file=sys.stderr)  # run folder, --backend ray without Ray installed, ...
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
