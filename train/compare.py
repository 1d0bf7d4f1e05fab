"""Settings of the training recipe compared side by side: equal time, equal cores, the same games.

    python -m train.compare --variant american --minutes 30 --opponents minimax:4 \\
        --setting defaults \\
        --setting q-mix alphazero.selfplay.search_value_weight=0.5 \\
        --setting cosine alphazero.lr_schedule=cosine alphazero.sample_reuse=8

Every ``--setting NAME [FIELD=VALUE ...]`` is one :mod:`train.benchmark` run
(the ``train.selfplay`` defaults plus those overrides, and any ``--set``
given to all), in ``RUN/<variant>-NAME``. The runs train *at the same time*,
each on one core (one process: ``alphazero.workers=1``, ``threads=1``), so
that whatever else the machine does falls on all of them alike; then each
plays ``--games`` games against each of ``--opponents`` from the same
balloted openings with colours reversed (the same ``--seed``), searching at
``--simulations``. At most ``--parallel`` runs go at once (default: one per
usable core); with more settings than that, the later ones train after the
first have finished and no longer share their load, which the table says.

The table gives, for each setting, its iterations, games and gradient
steps, its W-D-L and score with the 95% Wilson interval, and, for every
setting after the first, its score minus the first setting's game by game
(:func:`~train.arena.ratings.paired_difference`): the same opening with the
same colours against the same opponent, so the openings' share of the noise
cancels, and where its losses were decided: of the games it lost, how many
it ended two pieces or more behind (:data:`~train.arena.DECISIVE_MARGIN`),
having stayed so from which ply (the median of :func:`~train.arena.endings`'
``behind_for_good``). ``RUN/compare.json`` and ``RUN/compare.md`` keep it.
A finished run is not trained again when the command is repeated with the
same ``--run-dir`` (its evaluation is played again). Ctrl-C or SIGTERM stops
the comparison and every run it started (exit status 130).

On one core each, a run plays about half the games of the two-core
``train.benchmark``: compare settings with it, then confirm the winner with
the full benchmark.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import time

from checkers_env.core.files import atomic_write

__all__ = ["main", "build_parser"]

ONE_CORE = ["alphazero.workers=1", "threads=1"]
"""Overrides that keep a run to one process on one core."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="american", help="rule variant (default american)")
    p.add_argument(
        "--setting",
        dest="settings",
        action="append",
        nargs="+",
        required=True,
        metavar="ITEM",
        help="a setting: NAME [FIELD=VALUE ...], its name, then TrainConfig overrides (none: the defaults); "
        "repeat for each setting; the first is the reference",
    )
    p.add_argument("--minutes", type=float, default=30.0, help="training minutes of each setting (default 30)")
    p.add_argument("--games", type=int, default=100, help="games per setting and opponent (default 100)")
    p.add_argument("--simulations", type=int, default=128, help="MCTS simulations per searched leg when measured")
    p.add_argument("--opponents", nargs="+", default=["minimax:4"])
    p.add_argument("--set", dest="common", action="append", default=[], metavar="FIELD=VALUE",
                   help="an override for every setting (repeatable)")  # fmt: skip
    p.add_argument("--parallel", type=int, default=0, help="runs at once (default 0: one per usable core)")
    p.add_argument("--run-dir", default="runs/compare", help="folder of the comparison (default: runs/compare)")
    p.add_argument("--seed", type=int, default=0, help="seed of training and openings, the same for all (default 0)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress line")
    return p


def _check(args) -> list[tuple[str, list[str]]]:
    """The settings as (name, overrides), every override checked against TrainConfig before anything runs."""
    from .benchmark import apply_overrides
    from .config import TrainConfig

    if args.games < 2 or args.minutes <= 0 or args.simulations < 2 or args.parallel < 0:
        raise ValueError("--games >= 2, --minutes > 0, --simulations >= 2, --parallel >= 0")
    settings = [(s[0], s[1:]) for s in args.settings]
    names = [name for name, _ in settings]
    for name, overrides in settings:
        if not name or "=" in name or os.sep in name or name.startswith("-"):
            raise ValueError(f"a setting starts with its name (no '=' or '{os.sep}'), got {name!r}")
        cfg = apply_overrides(TrainConfig(variant=args.variant), _run_overrides(args, overrides))
        cfg.validate()
        if apply_overrides(copy.deepcopy(cfg), ONE_CORE) != cfg:
            # the comparison's premise is one process on one core each; a setting that changes it
            # would be compared on unequal terms, and quietly so; the one-core overrides come first, so
            # a later change to them shows as a config that applying them again would change
            raise ValueError(f"setting {name!r}: the comparison keeps every run to one core ({', '.join(ONE_CORE)}); "
                             "compare core counts with train.benchmark instead")  # fmt: skip
    if len(set(names)) != len(names):
        raise ValueError(f"setting names must differ, got {names}")
    return settings


def _command(args, name: str, overrides: list[str]) -> list[str]:
    cmd = [sys.executable, "-m", "train.benchmark", "--variants", args.variant, "--minutes", str(args.minutes),
           "--games", str(args.games), "--simulations", str(args.simulations), "--opponents", *args.opponents,
           "--curve-games", "0", "--tag", name, "--run-dir", args.run_dir, "--seed", str(args.seed), "--no-progress"]  # fmt: skip
    for item in _run_overrides(args, overrides):
        cmd += ["--set", item]
    return cmd


def _run_overrides(args, overrides: list[str]) -> list[str]:
    """A setting's run's overrides, in the order they apply: the one-core terms first (so ``_check``
    sees a setting that changes them), then the common ones, then the setting's own."""
    return ONE_CORE + args.common + overrides


def _run_all(args, settings: list[tuple[str, list[str]]], parallel: int) -> dict[str, int]:
    """Run every setting's benchmark, at most ``parallel`` at once; their exit codes by name."""
    from .progress import progress_bar

    waiting = list(settings)
    running: dict[str, tuple[subprocess.Popen, object]] = {}
    codes: dict[str, int] = {}
    try:
        with progress_bar(len(settings), f"compare on {args.variant}", not args.no_progress, "setting") as bar:
            while waiting or running:
                while waiting and len(running) < parallel:
                    name, overrides = waiting.pop(0)
                    log = open(os.path.join(args.run_dir, f"{name}.log"), "w")
                    running[name] = (subprocess.Popen(_command(args, name, overrides), stdout=log,
                                                      stderr=subprocess.STDOUT), log)  # fmt: skip
                for name, (proc, log) in list(running.items()):
                    if proc.poll() is not None:
                        log.close()
                        codes[name] = proc.returncode
                        del running[name]
                        bar.update(1)
                time.sleep(0.5)
    finally:
        for proc, log in running.values():  # interrupted: no run is left behind
            proc.terminate()
            proc.wait()
            log.close()
    return codes


def _table(args, settings, docs: dict[str, dict], parallel: int) -> tuple[dict, str]:
    from .arena import LOSSES_TURN_HEADING, losses_turn, losses_turn_text, paired_difference

    reference = settings[0][0]
    rows = []
    for name, overrides in settings:
        doc = docs[name]
        run = doc["runs"][0]
        for r in doc["results"]:
            base = next(x for x in docs[reference]["results"] if x["opponent"] == r["opponent"])
            diff = None
            if name != reference:
                d = paired_difference(base["game_scores"], r["game_scores"])
                diff = d.as_dict()
            rows.append({"setting": name, "overrides": overrides, "iterations": run["iterations"],
                         "games_played": run["games"], "gradient_steps": run["gradient_steps"],
                         "opponent": r["opponent"], "games": r["games"], "wins": r["wins"], "draws": r["draws"],
                         "losses": r["losses"], "score": r["score"], "score_ci": r["score_ci"],
                         "minus_reference": diff, "losses_turn": losses_turn(r)})  # fmt: skip
    later = len(settings) > parallel
    summary = {"variant": args.variant, "minutes": args.minutes, "games": args.games,
               "simulations": args.simulations, "seed": args.seed, "common": args.common, "parallel": parallel,
               "shared_load": not later, "reference": reference, "rows": rows}  # fmt: skip
    lines = [
        f"{args.variant}, {args.minutes:g} training minutes each on one core, {parallel} at once; "
        f"{args.games} games a pairing at {args.simulations} simulations, seed {args.seed}",
        "",
        f"| setting | overrides | iterations | games | gradient steps | opponent | W-D-L | score [95% CI] "
        f"| minus {reference}, paired [95% CI] | {LOSSES_TURN_HEADING} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r["score_ci"]
        d = r["minus_reference"]
        diff = (
            ""
            if d is None
            else f"{d['mean']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}] (better in {d['better']}, worse in {d['worse']})"
        )
        lines.append(f"| {r['setting']} | {' '.join(r['overrides']) or '(defaults)'} | {r['iterations']} "
                     f"| {r['games_played']} | {r['gradient_steps']} | {r['opponent']} "
                     f"| {r['wins']}-{r['draws']}-{r['losses']} | {r['score']:.3f} [{lo:.2f}, {hi:.2f}] | {diff} "
                     f"| {losses_turn_text(r['losses_turn'])} |")  # fmt: skip
    if later:
        lines += [
            "",
            f"More settings than runs at once ({parallel}): the later ones did not share the first ones' load.",
        ]
    return summary, "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = _check(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from agents.runtime import sigterm_as_interrupt, usable_cores

    parallel = args.parallel or usable_cores()
    os.makedirs(args.run_dir, exist_ok=True)
    try:
        # SIGTERM (a kill, a job timeout) stops the comparison as Ctrl-C does: its runs are stopped with
        # it (Ctrl-C reaches them through the terminal; a SIGTERM to this process alone would orphan them)
        with sigterm_as_interrupt():
            codes = _run_all(args, settings, parallel)
    except KeyboardInterrupt:
        return 130
    failed = [name for name, code in codes.items() if code != 0]
    if failed:
        for name in failed:
            print(f"error: setting {name} exited with {codes[name]}; see {os.path.join(args.run_dir, name + '.log')}",
                  file=sys.stderr)  # fmt: skip
        return 1
    docs = {}
    for name, _ in settings:
        with open(os.path.join(args.run_dir, f"benchmark-{name}.json")) as fh:
            docs[name] = json.load(fh)
    summary, text = _table(args, settings, docs, parallel)
    atomic_write(os.path.join(args.run_dir, "compare.json"), json.dumps(summary, indent=2, default=float))
    atomic_write(os.path.join(args.run_dir, "compare.md"), text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
