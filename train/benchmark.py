"""The learning benchmark: train on each variant for a fixed budget, then measure against minimax.

    python -m train.benchmark                                            # american, russian, international
    python -m train.benchmark --variants american --minutes 20 --games 40  # a shorter run
    python -m train.benchmark --variants american --minutes 12 --tag gumbel16 \\
        --set alphazero.mcts.root=gumbel --set alphazero.mcts.simulations=16  # one setting of a sweep

For each variant:

1. AlphaZero trains for ``--minutes`` with the ``train.selfplay`` defaults
   (plus any ``--set`` overrides) in ``RUN/<variant>[-tag]``, measuring its
   learning curve every ``--curve-every`` training minutes with
   ``--curve-games`` games against each of ``--curve-opponents``.
2. Its ``best.pt``, searching with its MCTS at ``--simulations`` per searched
   leg, plays ``--games`` games against each of ``--opponents``, in pairs
   from balloted openings with colours reversed.

``--ppo-minutes`` adds masked PPO on american against the random player.
The summary (``RUN/benchmark.json`` and ``RUN/benchmark.md``) gives each
score with its 95% Wilson interval (the JSON also game by game, in the
order of the openings, so that runs with the same ``--seed`` pair up), the target and whether it was met, the
run's games, positions and gradient steps, and where the learning curves
are. A finished training is not run again when the command is repeated
with the same ``--run-dir`` (an unfinished one resumes).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

from agents.base import parse_flag
from checkers_env.core.files import atomic_write

from .targets import TARGETS

__all__ = ["main", "TARGETS", "apply_overrides"]

CURVE_OPPONENTS = {"american": ("minimax:4", "minimax:6")}
"""Learning-curve opponents where they differ from the default (minimax:2 and minimax:4)."""


def apply_overrides(cfg, overrides: list[str]):
    """``cfg`` with ``path.to.field=value`` overrides applied (frozen dataclasses are replaced); the value
    is parsed as the field's current type. ``ValueError`` names an unknown field or a bad value."""
    for item in overrides:
        path, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"--set takes FIELD=VALUE, got {item!r}")
        cfg = _set(cfg, path.strip().split("."), text.strip(), item)
    return cfg


def _set(obj, names: list[str], text: str, item: str):
    name = names[0].replace("-", "_")
    if not dataclasses.is_dataclass(obj) or name not in {f.name for f in dataclasses.fields(obj)}:
        raise ValueError(f"--set {item!r}: {type(obj).__name__} has no field {name!r}")
    current = getattr(obj, name)
    if len(names) > 1:
        value = _set(current, names[1:], text, item)
    elif isinstance(current, bool):
        try:
            value = parse_flag(text)
        except ValueError:
            raise ValueError(f"--set {item!r}: expected true or false") from None
    elif isinstance(current, (int, float)):
        value = type(current)(float(text)) if isinstance(current, float) else int(text)
    elif isinstance(current, tuple):
        # the items take the type of the current ones (plies are ints, opponents strings)
        item_type = type(current[0]) if current and isinstance(current[0], (int, float)) else str
        try:
            value = tuple(item_type(x.strip()) for x in text.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"--set {item!r}: expected {item_type.__name__} values separated by commas") from None
    else:
        value = text
    if type(obj).__dataclass_params__.frozen:
        return dataclasses.replace(obj, **{name: value})
    setattr(obj, name, value)
    return obj


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--variants", nargs="+", default=["american", "russian", "international"])
    p.add_argument("--minutes", type=float, default=60.0, help="AlphaZero training minutes per variant (default 60)")
    p.add_argument("--games", type=int, default=100, help="games per measured pairing (default 100)")
    p.add_argument("--simulations", type=int, default=128, help="MCTS simulations per searched leg in the measure")
    p.add_argument("--opponents", nargs="+", default=["minimax:2", "minimax:4", "minimax:6"])
    p.add_argument(
        "--curve-opponents",
        nargs="*",
        default=None,
        help="learning-curve opponents (default: minimax:4 and :6 on american, :2 and :4 elsewhere)",
    )
    p.add_argument("--curve-games", type=int, default=20, help="games per opponent and point of the curve")
    p.add_argument("--curve-every", type=float, default=12.0, help="training minutes between points of the curve")
    p.add_argument("--ppo-minutes", type=float, default=0.0, help="PPO training minutes on american (0: none)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override a TrainConfig field, e.g. alphazero.mcts.root=gumbel (repeatable)",
    )
    p.add_argument("--tag", default="", help="suffix of the run folders (one per setting of a sweep)")
    p.add_argument("--run-dir", default="runs/benchmark", help="folder of the benchmark (default: runs/benchmark)")
    p.add_argument("--seed", type=int, default=0, help="seed of training and openings (default: 0)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    return p  # fmt: skip


def _train(cfg, minutes: float) -> str:
    from agents.checkpoint import read_checkpoint

    from .run import train

    best = os.path.join(cfg.run_dir, "best.pt")
    done = os.path.exists(best) and read_checkpoint(best)["meta"].get("train_minutes", 0) >= minutes
    if not done:
        train(cfg)
    return best


def main(argv: list[str] | None = None) -> int:
    from agents.runtime import tune_process

    tune_process()
    args = build_parser().parse_args(argv)
    from agents.checkpoint import load_agent, read_checkpoint

    from .arena import LOSSES_TURN_HEADING, evaluate, losses_turn, losses_turn_text
    from .config import TrainConfig
    from .run import results_table

    if args.games < 2 or args.minutes <= 0 or args.ppo_minutes < 0 or args.simulations < 2:
        print("error: --games >= 2, --minutes > 0, --ppo-minutes >= 0, --simulations >= 2", file=sys.stderr)
        return 2
    os.makedirs(args.run_dir, exist_ok=True)
    progress = not args.no_progress
    rows: list[dict] = []
    runs: list[dict] = []
    started = time.time()
    suffix = f"-{args.tag}" if args.tag else ""
    try:
        for variant in args.variants:
            curve = args.curve_opponents or CURVE_OPPONENTS.get(variant, ("minimax:2", "minimax:4"))
            cfg = TrainConfig(variant=variant, algo="alphazero", minutes=args.minutes, seed=args.seed,
                              run_dir=os.path.join(args.run_dir, variant + suffix), final_games=0, progress=progress,
                              eval_every_minutes=args.curve_every, eval_games=args.curve_games,
                              eval_opponents=tuple(curve))  # fmt: skip
            cfg = apply_overrides(cfg, args.overrides)
            cfg.validate()
            best = _train(cfg, args.minutes)
            with open(os.path.join(cfg.run_dir, "results.json")) as fh:
                trained = json.load(fh)
            last = trained.get("last_iteration", {})
            runs.append({"variant": variant, "run_dir": cfg.run_dir, "train_minutes": trained["train_minutes"],
                         "iterations": trained["iterations"], "gradient_steps": trained["step"],
                         "games": last.get("games_logged"), "curve": os.path.join(cfg.run_dir, "learning_curve.png"),
                         "overrides": args.overrides})  # fmt: skip
            agent = load_agent(best, variant, simulations=args.simulations, seed=args.seed)
            openings_seed, cap = args.seed + 1, cfg.eval_max_moves
            for spec in args.opponents:
                doc, games = evaluate(variant, agent, spec, args.games, openings_seed, cap, progress)
                # game by game, in the order of the openings: runs with the same seed pair up (train.compare),
                # and `train.evaluate --seed SEED+1 --max-plies CAP --paired-with benchmark.json` pairs with them
                # (CAP is the run's eval_max_moves, 200 by default)
                rows.append({"variant": variant, "agent": "alphazero", "simulations": args.simulations,
                             "train_minutes": read_checkpoint(best)["meta"]["train_minutes"], **doc,
                             "openings_seed": openings_seed, "max_plies": cap,
                             "game_scores": [g.score for g in games]})  # fmt: skip
        if args.ppo_minutes > 0:
            cfg = TrainConfig(variant="american", algo="ppo", minutes=args.ppo_minutes, seed=args.seed,
                              run_dir=os.path.join(args.run_dir, "ppo" + suffix), final_games=0, progress=progress,
                              eval_every_minutes=max(2.5, args.ppo_minutes / 5), eval_games=10,
                              eval_opponents=("minimax:2",))  # fmt: skip
            best = _train(cfg, args.ppo_minutes)
            agent = load_agent(best, "american", seed=args.seed)
            doc, _ = evaluate("american", agent, "random", args.games, args.seed + 1, progress=progress)
            rows.append({"variant": "american", "agent": "ppo", "simulations": None,
                         "train_minutes": read_checkpoint(best)["meta"]["train_minutes"], **doc})  # fmt: skip
    except KeyboardInterrupt:
        return 130
    for r in rows:
        target = TARGETS.get((r["variant"] if r["agent"] == "alphazero" else r["agent"], r["opponent"]))
        r["target"] = target
        r["met"] = None if target is None else r["score"] >= target
    summary = {
        "minutes": args.minutes,
        "games": args.games,
        "simulations": args.simulations,
        "overrides": args.overrides,
        "wall_minutes": (time.time() - started) / 60,
        "runs": runs,
        "results": rows,
    }
    name = f"benchmark{suffix}"
    atomic_write(os.path.join(args.run_dir, f"{name}.json"), json.dumps(summary, indent=2, default=float))
    lines = [
        f"| variant | agent | training minutes | opponent | games | W-D-L | score [95% CI] | target | met "
        f"| {LOSSES_TURN_HEADING} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r["score_ci"]
        target = "" if r["target"] is None else f"{r['target']:.2f}"
        met = "" if r["met"] is None else ("yes" if r["met"] else "no")
        lines.append(
            f"| {r['variant']} | {r['agent']} | {r['train_minutes']:.1f} | {r['opponent']} | {r['games']} "
            f"| {r['wins']}-{r['draws']}-{r['losses']} | {r['score']:.2f} [{lo:.2f}, {hi:.2f}] | {target} | {met} "
            f"| {losses_turn_text(losses_turn(r))} |"
        )
    lines += ["", "| variant | iterations | games | gradient steps | learning curve |", "|---|---|---|---|---|"]
    for run in runs:
        lines.append(f"| {run['variant']} | {run['iterations']} | {run['games']} | {run['gradient_steps']} "
                     f"| {run['curve']} |")  # fmt: skip
    atomic_write(os.path.join(args.run_dir, f"{name}.md"), "\n".join(lines) + "\n")
    print(results_table(rows, f"learning benchmark, {summary['wall_minutes']:.0f} wall minutes"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
