"""Measure a run's learning curve again, from the agents it kept at each point.

    python -m train.curve runs/benchmark/international --opponents minimax:4 --games 100 --options sims=128

A run keeps the agent of each learning-curve point as ``curve/step-N.pt``
(``TrainConfig.keep_curve_checkpoints``). During training each point is a
few games (``eval_games``; the benchmark's 20 give intervals about ±0.2
wide), because every game played there is wall time the run waits for.
Afterwards the same agents can be measured with as many games and as much
search as the question needs, without training again.

Every point plays the same balloted openings with the same colours against
the same opponent (``--seed``), so consecutive points pair up game by game:
the table gives each point's score with its 95% Wilson interval and its
score minus the point before, paired, with its 95% interval
(:func:`train.arena.paired_difference`); the openings' share of the noise
cancels, which is what "does the curve still rise?" needs. The last point
is the run's final ``best.pt``: with the benchmark's settings (``--seed 1``,
``--options sims=128``) every point plays the benchmark's openings with its
colours, so the benchmark's own match pairs with each of them.

The pairings (a point against an opponent) are played ``--workers`` at a
time (default: one per usable core), each in its own process with one torch
thread, every game's search of a pairing in one network batch; the games are
the same whatever the number of workers (this process also runs torch on one
thread: another thread count can round a network's outputs differently, and a
near tie in a search then goes the other way).

Writes ``RUN/curve/remeasured.json`` (every point, game by game) and
``RUN/curve/remeasured.png`` (the curve with its intervals and the
benchmark's target lines) unless ``--json`` / ``--plot`` say where. Ctrl-C
or SIGTERM stops after writing the points already measured (exit status
130). Bad input (a folder without curve checkpoints, an unknown opponent,
bad options) prints a message and exits with status 2 before any game.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from dataclasses import dataclass

from agents import AgentSpecError, make_agent
from agents.checkpoint import CheckpointError, read_checkpoint
from agents.runtime import run_in_workers, sigterm_as_interrupt, tune_process, usable_cores
from checkers_env.core.files import atomic_write

from .arena import MATCH_MOVE_CAP, evaluate, paired_difference
from .logs import eval_row, plot_curve_rows
from .progress import progress_bar
from .run import CURVE_FOLDER
from .targets import TARGETS

__all__ = ["CurvePoint", "curve_checkpoints", "remeasure", "curve_table", "main"]


@dataclass(frozen=True)
class CurvePoint:
    """One kept agent of a learning curve."""

    path: str
    variant: str
    train_minutes: float
    """Training minutes when it was measured (from the checkpoint's meta)."""
    step: int
    """Gradient step when it was measured (the ``step`` of its ``eval.csv`` rows)."""

    def spec(self, options: str = "") -> str:
        """Its agent spec, ``PATH`` or ``PATH:OPTIONS``."""
        return self.path + (f":{options}" if options else "")


def curve_checkpoints(run_dir: str) -> list[CurvePoint]:
    """The curve checkpoints of a run folder, in training order. ``ValueError`` when there are none, or
    they are not all agents of one variant."""
    paths = sorted(glob.glob(os.path.join(glob.escape(run_dir), CURVE_FOLDER, "step-*.pt")))
    if not paths:
        raise ValueError(
            f"{run_dir!r} has no {CURVE_FOLDER}/step-*.pt: it is not a run folder, or its run did not keep "
            "the agents of its curve (runs keep them since keep_curve_checkpoints; a benchmark's run folder "
            "is RUN/<variant>)"
        )
    points = []
    for path in paths:
        data = read_checkpoint(path)
        meta = data.get("meta", {})
        minutes, step = float(meta.get("train_minutes", 0.0)), int(meta.get("step", 0))
        points.append(CurvePoint(path, data["variant"], minutes, step))
    variants = {p.variant for p in points}
    if len(variants) != 1:
        raise ValueError(f"{run_dir!r}: its curve checkpoints are of several variants ({', '.join(sorted(variants))})")
    return sorted(points, key=lambda p: (p.step, p.train_minutes))


def _pairing_scores(task: tuple[str, str, str, int, int, int, bool]) -> list[float]:
    """A's score game by game of one pairing: ``(spec, variant, opponent, games, seed, max_plies,
    progress)``. The agent is made afresh for each pairing, so a pairing's games do not depend on
    which pairings were played before it, or in which process."""
    spec, variant, opponent, games, seed, max_plies, progress = task
    agent = make_agent(spec, variant, seed)
    # one process, every game's search in one network batch (as the benchmark's own match)
    _, games_played = evaluate(variant, agent, opponent, games, seed, max_plies, progress)
    return [float(g.score) for g in games_played]


def remeasure(
    points: list[CurvePoint],
    opponents: list[str],
    games: int,
    seed: int,
    options: str = "",
    max_plies: int = MATCH_MOVE_CAP,
    progress: bool = True,
    workers: int = 1,
) -> tuple[list[dict], bool]:
    """Play ``games`` games of each point's agent (its spec ``PATH:OPTIONS``) against each opponent, on
    the same openings for every point; returns ``(rows, interrupted)``. Each row is an
    :func:`~train.logs.eval_row` plus ``agent``, ``game_scores`` (game by game, in the order of the
    openings) and ``minus_previous`` (the paired difference from the point before against the same
    opponent, None for the first). With ``workers`` above 1 the pairings are played that many at a
    time, each in its own process with one torch thread; the games are the same as with one worker in
    a process whose torch runs one thread (as ``main`` sets). An interruption stops the measure; the
    rows of the pairings played to the end are returned (each paired with the point before it that
    was measured)."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    pairings = [(point, opponent) for point in points for opponent in opponents]
    alone = workers == 1 or len(pairings) == 1  # here, with a bar of games; else a bar of pairings
    tasks = [(p.spec(options), p.variant, o, games, seed, max_plies, progress and alone) for p, o in pairings]
    scores: dict[int, list[float]] = {}
    interrupted = False
    try:
        if alone:
            for k, task in enumerate(tasks):
                scores[k] = _pairing_scores(task)
        else:
            with progress_bar(len(tasks), "pairings", progress, "pairing") as bar:

                def finished(k: int, played: list[float]) -> None:
                    scores[k] = played
                    bar.update(1)

                run_in_workers(_pairing_scores, tasks, workers, finished)
    except KeyboardInterrupt:
        interrupted = True
    rows: list[dict] = []
    previous: dict[str, list[float]] = {}
    for k, (point, opponent) in enumerate(pairings):
        if k not in scores:
            continue
        played = scores[k]
        wins, draws = played.count(1.0), played.count(0.5)
        row = eval_row(point.train_minutes, opponent, wins, draws, len(played) - wins - draws, point.step)
        row["agent"] = point.spec(options)
        row["game_scores"] = played
        before = previous.get(opponent)
        row["minus_previous"] = None if before is None else paired_difference(before, played).as_dict()
        previous[opponent] = played
        rows.append(row)
    return rows, interrupted


def curve_table(rows: list[dict]) -> str:
    """The re-measured curve as a Markdown table, one line per point and opponent."""
    lines = [
        "| training minutes | gradient step | opponent | W-D-L | score [95% CI] | minus the point before, paired [95% CI] "
        "| better | worse |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["opponent"], r["step"])):
        d = r["minus_previous"]
        diff = "" if d is None else f"{d['mean']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]"
        lines.append(
            f"| {r['train_minutes']:.1f} | {r['step']} | {r['opponent']} | {r['wins']}-{r['draws']}-{r['losses']} "
            f"| {r['score']:.3f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}] | {diff} "
            f"| {'' if d is None else d['better']} | {'' if d is None else d['worse']} |"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.curve", description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", help="a run folder with curve/step-*.pt (a benchmark's: RUN/<variant>)")
    p.add_argument("--opponents", nargs="+", default=["minimax:4"], help="agent specs to measure against")
    p.add_argument("--games", type=int, default=100, help="games per point and opponent, in pairs (default 100)")
    p.add_argument("--options", default="sims=128",
                   help="checkpoint options of every point's agent, as in PATH:OPTIONS (default sims=128; '' for "
                        "the checkpoint's own search)")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="seed of the openings and agents (default 1, the benchmark's)")
    p.add_argument("--workers", type=int, default=usable_cores(),
                   help="pairings (point and opponent) played at once, each in its own process with one torch "
                        "thread (default: one per usable core; the games are the same whatever the number)")  # fmt: skip
    p.add_argument("--min-minutes", type=float, default=0.0, help="skip points measured before this training minute")
    p.add_argument(
        "--max-plies", type=int, default=MATCH_MOVE_CAP, help=f"draw cap of a game (default {MATCH_MOVE_CAP})"
    )
    p.add_argument("--json", metavar="PATH", help="where to write the points (default RUN/curve/remeasured.json)")
    p.add_argument("--plot", metavar="PATH", help="where to draw the curve (default RUN/curve/remeasured.png)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m train.curve``; returns the exit status."""
    tune_process(torch_threads=1)  # as in each worker: the same games whatever --workers
    args = build_parser().parse_args(argv)
    try:
        if args.games < 2 or args.games % 2:
            raise ValueError(f"--games must be an even number of at least 2 (pairs of colours), got {args.games}")
        if args.max_plies < 1:
            raise ValueError(f"--max-plies must be at least 1, got {args.max_plies}")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        points = [p for p in curve_checkpoints(args.run_dir) if p.train_minutes >= args.min_minutes]
        if not points:
            raise ValueError(f"no curve point of {args.run_dir!r} was measured at or after {args.min_minutes} minutes")
        variant = points[0].variant
        make_agent(points[0].spec(args.options), variant, args.seed)  # bad options fail now, not after a match
        for opponent in args.opponents:
            make_agent(opponent, variant, args.seed)
        json_path = args.json or os.path.join(args.run_dir, CURVE_FOLDER, "remeasured.json")
        plot_path = args.plot or os.path.join(args.run_dir, CURVE_FOLDER, "remeasured.png")
    except (ValueError, AgentSpecError, CheckpointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with sigterm_as_interrupt():
        rows, interrupted = remeasure(points, args.opponents, args.games, args.seed, args.options, args.max_plies,
                                      not args.quiet, args.workers)  # fmt: skip
    doc = {
        "run_dir": args.run_dir,
        "variant": variant,
        "games": args.games,
        "seed": args.seed,
        "options": args.options,
        "max_plies": args.max_plies,
        "interrupted": interrupted,
        "points": rows,
    }
    atomic_write(json_path, json.dumps(doc, indent=2))
    targets = [
        (f"{score:.0%} vs {op}", score) for (v, op), score in TARGETS.items() if v == variant and op in args.opponents
    ]
    title = f"{variant}: {os.path.normpath(args.run_dir)}, {args.games} games a point" + (
        f", {args.options}" if args.options else ""
    )
    plot_curve_rows(rows, plot_path, title, targets)
    print(curve_table(rows))
    print(f"wrote {json_path} and {plot_path}" + (" (interrupted: the points measured so far)" if interrupted else ""))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
