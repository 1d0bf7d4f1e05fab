"""The arena: matches and round robins between any agents, in any variant.

    python -m train.evaluate --variant american --a minimax:4 --b random --games 20 --seed 0 \\
        [--json out.json] [--pdn games.pdn] [--plot out.png]            # or: checkers-arena ...
    python -m train.evaluate --variant russian --agents random minimax:2 minimax:4 --games 10 --seed 0

Games come in pairs from one balloted opening (:func:`train.arena.paired_openings`),
A taking the first player's side in the first game of a pair and the second
player's side in the other. Each game is played by the arena's match loop
(:func:`train.arena.play_match`). Games run in parallel worker processes
(``--workers``, default: every core), each agent reseeded per game from
``--seed``, so a match replays exactly whatever the number of workers (with
depth- or node-limited agents). A game ends by the rules (no legal move, the
draw counter) or, as a safety net, is scored a draw after ``--max-plies`` (the
arena's :data:`~train.arena.MATCH_MOVE_CAP`, 200, unless given).

Reports, from A's side: wins, draws and losses with Wilson 95% intervals, the
score with its interval, the Elo difference with its interval
(:mod:`train.arena.ratings`), and how the games ended (:func:`train.arena.endings`: by
A's result, the median plies, the terminations and A's pieces minus B's at the
end); a round robin (``--agents``) also fits an Elo table.
``--json`` writes the numbers (keys ``games``, ``wins``, ``draws``,
``losses``, ``score``, ``elo``, ``elo_ci``, ``endings``, ``game_records``
and more; atomically), ``--pdn``
every game, ``--plot`` a PNG. ``--paired-with FILE`` scores a match against an
earlier one on the same openings with the same colours against the same B,
game by game (a ``--json`` file of this command, or a ``benchmark.json`` of
``train.benchmark``, whose games against B it takes, played with the
arena's cap of 200): A's score minus the
earlier A's, with its 95% interval (:func:`train.arena.paired_difference`).
The openings' share of the noise cancels, so one changed search setting of a
checkpoint (``RUN/best.pt:c_puct=1.0`` against ``RUN/best.pt``) is measured
in far fewer games than two separate scores would need.

Ctrl-C (or SIGTERM) stops the match and still writes the games already
finished (exit status 130). Bad input (an unknown variant or
agent spec, a missing checkpoint, an output folder that cannot be made, a
``--paired-with`` file of other games) prints a
message and exits with status 2 before any game is played.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from agents import AgentSpecError, agent_kinds, make_agent
from agents.runtime import run_in_workers, sigterm_as_interrupt, tune_process, usable_cores
from checkers_env.core import get_rules, variant_names
from checkers_env.core.files import atomic_write
from checkers_env.core.pdn import game_to_pdn, pdn_result, write_pdn

from .arena import (
    DECISIVE_MARGIN,
    MATCH_MOVE_CAP,
    endings,
    fit_elo,
    game_ending,
    match_stats,
    paired_difference,
    paired_openings,
    play_match,
)
from .arena.openings import Opening
from .progress import progress_bar

__all__ = ["GameJob", "play_game", "run_arena", "summarize", "report", "write_json", "earlier_scores", "main"]


@dataclass(frozen=True)
class GameJob:
    """One game to play: who, from which opening, with which seeds."""

    index: int
    pairing: int
    """Index of the (A, B) pairing in the round robin (0 for a match)."""
    a: str
    b: str
    a_first: bool
    """A plays the side that moves first (in the variant's start position)."""
    opening: Opening
    a_seed: int
    b_seed: int


_AGENT_CACHE: dict = {}


def _agent(spec: str, variant: str, seed: int):
    key = (spec, variant)
    agent = _AGENT_CACHE.get(key)
    if agent is None:
        agent = make_agent(spec, variant, seed)
        _AGENT_CACHE[key] = agent
    agent.reset(seed)
    return agent


def play_game(job: GameJob, variant: str, max_plies: int) -> dict:
    """Play one game; return its record (score from A's side, PDN text, ...)."""
    a = _agent(job.a, variant, job.a_seed)
    # the same spec on both sides needs two agents (each keeps its own table)
    b = _agent(job.b, variant, job.b_seed) if job.b != job.a else make_agent(job.b, variant, job.b_seed)
    game = play_match(variant, a, b, [(job.opening, job.a_first)], max_plies)[0]
    board = game.board
    names = {game.a_colour: job.a, game.a_colour.other: job.b}
    result = pdn_result(variant, game.winner)  # the first player's score first, as the variant's PDN writes
    white, black = (names[c] for c in sorted(names, key=int))
    tags = {
        "Event": "checkers-env arena",
        "Round": str(job.index + 1),
        "White": white,
        "Black": black,
        "Opening": job.opening.name,
        "Termination": game.termination,
    }
    return {
        "index": job.index,
        "pairing": job.pairing,
        "a": job.a,
        "b": job.b,
        "a_colour": game.a_colour.name.lower(),
        "opening": job.opening.name,
        **game_ending(game),
        "result": result,
        "pdn": game_to_pdn(board, tags, result),
    }


def _run_job(args) -> dict:
    job, variant, max_plies = args
    return play_game(job, variant, max_plies)


def _jobs(specs: list[str], variant: str, games: int, seed: int) -> list[GameJob]:
    starts = paired_openings(variant, games, seed)
    jobs = []
    for pairing, (i, j) in enumerate(combinations(range(len(specs)), 2)):
        for g, (opening, a_first) in enumerate(starts):
            a_seed, b_seed = (int(x) for x in np.random.SeedSequence([seed, pairing, g]).generate_state(2))
            jobs.append(GameJob(len(jobs), pairing, specs[i], specs[j], a_first, opening, a_seed, b_seed))
    return jobs


def run_arena(
    specs: list[str],
    variant: str,
    games: int,
    seed: int,
    workers: int = 1,
    max_plies: int = MATCH_MOVE_CAP,
    progress: bool = True,
) -> tuple[list[dict], bool]:
    """Play every pairing of ``specs`` (``games`` games each); return ``(records, interrupted)``.

    Records come back in job order, without the games an interruption
    (Ctrl-C) prevented.
    """
    jobs = _jobs(specs, variant, games, seed)
    records: list[dict] = []
    interrupted = False
    bar = progress_bar(len(jobs), variant, progress, "game")
    tally = [0, 0, 0]

    def done(record: dict) -> None:
        records.append(record)
        tally[{1.0: 0, 0.5: 1, 0.0: 2}[record["score"]]] += 1
        bar.update(1)
        if len(specs) == 2:
            bar.set_postfix_str(f"A +{tally[0]} ={tally[1]} -{tally[2]}")

    try:
        if workers <= 1:
            for job in jobs:
                done(play_game(job, variant, max_plies))
        else:
            run_in_workers(_run_job, [(job, variant, max_plies) for job in jobs], workers, lambda k, rec: done(rec))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    records.sort(key=lambda r: r["index"])
    return records, interrupted


def summarize(
    specs: list[str],
    variant: str,
    games: int,
    seed: int,
    records: list[dict],
    interrupted: bool,
    max_plies: int | None = None,
) -> dict:
    """The JSON document of a match (two specs) or round robin (more); ``max_plies``, the cap the games
    were played with, is recorded when given (``--paired-with`` compares it)."""
    pairings = []
    results = []
    for pairing, (i, j) in enumerate(combinations(range(len(specs)), 2)):
        mine = [r for r in records if r["pairing"] == pairing]
        w = sum(r["score"] == 1.0 for r in mine)
        d = sum(r["score"] == 0.5 for r in mine)
        lo = sum(r["score"] == 0.0 for r in mine)
        stats = match_stats(w, d, lo)
        pairings.append({"a": specs[i], "b": specs[j], **stats.as_dict(), "endings": endings(mine)})
        if mine:
            results.append((i, j, w + 0.5 * d, len(mine)))
    doc: dict = {
        "variant": variant,
        "seed": seed,
        "games_per_pairing": games,
        "interrupted": interrupted,
        **({"max_plies": max_plies} if max_plies is not None else {}),
        "opening_ballot": "ACF 3-move" if variant == "american" else "random 2-3 plies",
    }
    if len(specs) == 2:
        doc.update(pairings[0])
    else:
        ratings, half = fit_elo(len(specs), results)
        doc["agents"] = specs
        doc["pairings"] = pairings
        doc["elo_table"] = [
            {"agent": s, "elo": float(r), "elo_ci": [float(r - h), float(r + h)]}
            for s, r, h in zip(specs, ratings, half)
        ]
    doc["game_records"] = [{k: v for k, v in r.items() if k != "pdn"} for r in records]
    return doc


def earlier_scores(path: str, variant: str, seed: int, games: int, b: str, max_plies: int) -> list[float]:
    """A's scores, game by game in the order of the openings, of an earlier match against ``b`` that
    played the same openings as a match of ``games`` games with ``seed`` in ``variant`` would, with
    the same cap of ``max_plies`` (a game past it is a draw, so another cap is other games).

    ``path`` is a two-agent ``--json`` file of this command, or a ``benchmark.json`` of
    :mod:`train.benchmark` (its games against ``b`` in ``variant``). ``ValueError`` says why the
    file cannot be paired: unreadable, another variant, opponent, seed, number of games or cap, or an
    interrupted match.
    """
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise ValueError(f"--paired-with {path!r}: cannot read it ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"--paired-with {path!r}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(doc, dict):
        doc = {}  # neither kind: the last branch below says so
    if "game_records" in doc:
        if "pairings" in doc:
            raise ValueError(f"--paired-with {path!r}: a round robin; pair with a match of two agents")
        if doc.get("interrupted") or len(doc["game_records"]) != doc.get("games_per_pairing"):
            raise ValueError(f"--paired-with {path!r}: an interrupted match; its games are not all there")
        found = _describe(*(doc.get(k) for k in ("variant", "games_per_pairing", "seed", "max_plies", "b")))
        scores = [float(r["score"]) for r in sorted(doc["game_records"], key=lambda r: r["index"])]
    elif "results" in doc:
        rows = [r for r in doc["results"] if r.get("variant") == variant and r.get("opponent") == b]
        if not rows:
            raise ValueError(f"--paired-with {path!r}: the benchmark has no games of {variant} against {b}")
        row = rows[0]
        if "openings_seed" not in row or "game_scores" not in row or "max_plies" not in row:
            raise ValueError(f"--paired-with {path!r}: written before benchmarks recorded their openings game by game")
        found = _describe(variant, row["games"], row["openings_seed"], row["max_plies"], b)
        scores = [float(x) for x in row["game_scores"]]
    else:
        raise ValueError(f"--paired-with {path!r}: neither a train.evaluate nor a train.benchmark JSON file")
    want = _describe(variant, games, seed, max_plies, b)
    if found != want:
        raise ValueError(f"--paired-with {path!r}: played {found}; this match is {want}")
    return scores


def _describe(variant, games, seed, max_plies, b) -> str:
    """The games a match played, as a pairing compares them."""
    return f"{variant}, {games} games, --seed {seed}, --max-plies {max_plies}, B = {b}"


def _fmt_elo(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def report(doc: dict) -> str:
    """Human-readable summary of :func:`summarize`'s document."""
    lines = []
    for p in [doc] if "pairings" not in doc else doc["pairings"]:
        n = p["games"]
        lines.append(f"{doc['variant']}: A={p['a']} vs B={p['b']}: {n} games")
        if n == 0:
            continue
        for key in ("wins", "draws", "losses"):
            lo, hi = p[key[:-1] + "_ci"] if key != "losses" else p["loss_ci"]
            lines.append(f"  A {key:<6} {p[key]:>4}  {p[key] / n:6.1%}  [{lo:.1%}, {hi:.1%}]")
        lo, hi = p["score_ci"]
        lines.append(f"  A score  {p['score']:.3f}  [{lo:.3f}, {hi:.3f}]")
        lo, hi = p["elo_ci"]
        clipped = " (a perfect score: Elo taken at half a game from it)" if p["score"] in (0.0, 1.0) else ""
        lines.append(f"  Elo A-B  {_fmt_elo(p['elo'])}  [{_fmt_elo(lo)}, {_fmt_elo(hi)}]{clipped}")
        for key, e in p.get("endings", {}).items():
            if e["games"]:
                how = ", ".join(f"{t} {c}" for t, c in e["terminations"].items())
                lines.append(f"  A {key:<6} ended after {e['median_plies']:g} plies (median, "
                             f"A {e['median_piece_margin']:+g} pieces): {how}")  # fmt: skip
                for side in ("behind", "ahead"):
                    held = e[f"{side}_for_good"]
                    if held["games"]:
                        lines.append(f"           {held['games']} of them {side} by {DECISIVE_MARGIN} pieces or more "
                                     f"from ply {held['median_from']:g} (median) to the end")  # fmt: skip
    if "elo_table" in doc:
        lines.append(f"Elo table ({doc['variant']}, anchored at {doc['agents'][0]} = 0, 95% intervals):")
        for row in sorted(doc["elo_table"], key=lambda r: -r["elo"]):
            lo, hi = row["elo_ci"]
            lines.append(f"  {row['agent']:<28} {row['elo']:+7.0f}  [{lo:+.0f}, {hi:+.0f}]")
    if "paired_with" in doc:
        p = doc["paired_with"]
        lo, hi = p["ci"]
        lines.append(
            f"  paired with {p['path']}: A's score minus that match's {p['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
            f"over {p['games']} games (better {p['better']}, worse {p['worse']})"
        )
    if doc["interrupted"]:
        lines.append("interrupted: the results above cover the games finished before Ctrl-C")
    return "\n".join(lines)


def write_json(path: str, doc: dict) -> None:
    """Write JSON atomically (see :func:`checkers_env.core.files.atomic_write`)."""
    text = json.dumps(doc, indent=1, allow_nan=False, default=_json_default) + "\n"
    atomic_write(path, text)


def _json_default(x):
    raise TypeError(f"cannot write {type(x).__name__} to JSON")


def plot(doc: dict, records: list[dict], path: str) -> None:
    """A PNG: W/D/L rates with intervals and the running score (match), or the Elo table (round robin)."""
    # A Figure without pyplot: no global backend switch, so notebooks keep inline plots.
    from matplotlib.figure import Figure

    if "elo_table" in doc:
        rows = sorted(doc["elo_table"], key=lambda r: r["elo"])
        fig = Figure(figsize=(7, 0.5 * len(rows) + 1.5))
        ax = fig.subplots()
        elos = [r["elo"] for r in rows]
        err = [[r["elo"] - r["elo_ci"][0] for r in rows], [r["elo_ci"][1] - r["elo"] for r in rows]]
        ax.barh([r["agent"] for r in rows], elos, xerr=err, color="tab:blue", capsize=4)
        ax.set_xlabel(f"Elo (anchored at {doc['agents'][0]} = 0, 95% intervals)")
        ax.set_title(f"{doc['variant']}: round robin, {doc['games_per_pairing']} games per pairing")
    else:
        fig = Figure(figsize=(10, 4))
        ax1, ax2 = fig.subplots(1, 2)
        n = max(doc["games"], 1)
        labels = ["A wins", "draws", "A losses"]
        rates = [doc["wins"] / n, doc["draws"] / n, doc["losses"] / n]
        cis = [doc["win_ci"], doc["draw_ci"], doc["loss_ci"]]
        err = [[r - c[0] for r, c in zip(rates, cis)], [c[1] - r for r, c in zip(rates, cis)]]
        ax1.bar(labels, rates, yerr=err, capsize=5, color=["tab:green", "tab:gray", "tab:red"])
        ax1.set_ylim(0, 1)
        ax1.set_ylabel("rate (95% Wilson interval)")
        ax1.set_title(f"{doc['a']} vs {doc['b']} ({doc['variant']})")
        scores = np.cumsum([r["score"] for r in records]) / np.arange(1, len(records) + 1) if records else []
        ax2.plot(np.arange(1, len(records) + 1), scores, color="tab:blue")
        ax2.axhline(0.5, color="gray", lw=0.8, ls="--")
        ax2.set_ylim(-0.03, 1.03)
        ax2.set_xlabel("games")
        ax2.set_ylabel("A's running score")
        ax2.set_title(f"score {doc['score']:.3f}, Elo {_fmt_elo(doc['elo'])}")
    fig.tight_layout()
    atomic_write(path, lambda fh: fig.savefig(fh, dpi=100, format="png"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m train.evaluate",
        description="Play matches between agents and report results with confidence intervals and Elo.",
        epilog="agent specs: " + "; ".join(agent_kinds()),
    )
    parser.add_argument("--variant", default="american", help=f"rule variant, one of {', '.join(variant_names())}")
    parser.add_argument("--a", help="agent A (the results are from its side)")
    parser.add_argument("--b", help="agent B")
    parser.add_argument("--agents", nargs="+", metavar="SPEC", help="round robin of these agents (instead of --a/--b)")
    parser.add_argument("--games", type=int, default=20, help="games per pairing, in pairs with colours reversed")
    parser.add_argument("--seed", type=int, default=0, help="seeds the openings and every agent")
    parser.add_argument("--workers", type=int, default=usable_cores(), help="parallel games (processes)")
    parser.add_argument(
        "--max-plies",
        type=int,
        default=MATCH_MOVE_CAP,
        help="score a game still going after this many plies past the opening a draw (default: the arena's "
        f"cap, {MATCH_MOVE_CAP}, which benchmarks and training evaluations use)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--pdn", metavar="PATH", help="write every game as PDN")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG plot")
    parser.add_argument(
        "--paired-with",
        metavar="FILE",
        help="score A against an earlier match on the same openings and B, game by game "
        "(a --json file of this command or a train.benchmark benchmark.json)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _check_output(path: str | None, flag: str) -> None:
    """Make the folder of an output file now, so a bad path fails before the match, not after it."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{flag} {path!r}: cannot make its folder ({exc.strerror})") from None
    if os.path.isdir(path) or not os.access(folder, os.W_OK):
        raise ValueError(f"{flag} {path!r}: cannot write a file there")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m train.evaluate`` and ``checkers-arena``; returns the exit status."""
    tune_process()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.agents and (args.a or args.b):
            raise ValueError("give either --a and --b, or --agents, not both")
        specs = list(args.agents) if args.agents else [args.a, args.b]
        if any(s is None for s in specs):
            raise ValueError("name both agents with --a SPEC --b SPEC (or several with --agents)")
        if len(specs) < 2:
            raise ValueError("a round robin needs at least two agents")
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        if args.max_plies < 1:
            raise ValueError(f"--max-plies must be at least 1, got {args.max_plies}")
        variant = get_rules(args.variant).name
        for flag, path in (("--json", args.json), ("--pdn", args.pdn), ("--plot", args.plot)):
            _check_output(path, flag)
        for spec in dict.fromkeys(specs):
            make_agent(spec, variant, args.seed)  # fail now, not inside a worker
        earlier = None
        if args.paired_with:
            if len(specs) != 2:
                raise ValueError("--paired-with pairs a match of two agents (--a, --b), not a round robin")
            earlier = earlier_scores(args.paired_with, variant, args.seed, args.games, specs[1], args.max_plies)
    except (ValueError, AgentSpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # SIGTERM (a kill, a job timeout) stops the match like Ctrl-C: the pool is
    # shut down and the finished games are still written.
    with sigterm_as_interrupt():
        records, interrupted = run_arena(
            specs,
            variant,
            args.games,
            args.seed,
            workers=args.workers,
            max_plies=args.max_plies,
            progress=not args.quiet,
        )
    doc = summarize(specs, variant, args.games, args.seed, records, interrupted, args.max_plies)
    if earlier is not None:
        if interrupted:
            print("not paired with the earlier match: this one was interrupted", file=sys.stderr)
        else:
            d = paired_difference(earlier, [r["score"] for r in records])
            doc["paired_with"] = {"path": args.paired_with, **d.as_dict()}
    print(report(doc))
    if args.json:
        write_json(args.json, doc)
    if args.pdn:
        write_pdn(args.pdn, [r["pdn"] for r in records])
    if args.plot:
        plot(doc, records, args.plot)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
