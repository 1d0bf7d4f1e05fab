"""Self-play training from the command line: AlphaZero or masked PPO, on any variant.

    python -m train.selfplay --variant american --algo alphazero --minutes 10
    python -m train.selfplay --variant russian --algo ppo --minutes 30 --run-dir runs/ru-ppo
    python -m train.selfplay --help                        # every option

A run folder (``--run-dir``, default ``runs/<variant>-<algo>-<timestamp>``) gets:

    config.json          the full configuration
    best.pt              the agent to play (python -m train.evaluate --a RUN/best.pt --b minimax:4)
    latest.pt            the newest network (alphazero with gating: may differ from best.pt)
    train_state.pt       everything needed to resume (optimiser, replay buffer, counters, generators)
    train.csv, eval.csv  one row per iteration / per evaluation; tensorboard/ when TensorBoard is installed
    learning_curve.png   score against each evaluation opponent over training minutes
    samples.pdn          sample self-play games
    results.json         the final evaluation table

Running the command again with the same ``--run-dir`` resumes where the run
stopped: from the last iteration written, with every finished self-play game
(Ctrl-C or SIGTERM saves the games finished so far, then exits with status
130). Every file is written atomically. The budget ``--minutes`` counts
self-play and training time, not the evaluations.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import tempfile
import time
from datetime import datetime

import numpy as np
import torch

from agents.alphazero import (
    GameRecord,
    NetPlayer,
    ReplayBuffer,
    make_evaluator,
    play_match,
    play_selfplay_games,
    train_step,
)
from agents.base import Agent, make_agent
from agents.checkpoint import CheckpointError, atomic_torch_save, save_agent
from agents.mcts import MCTSConfig
from agents.networks import PolicyValueNet, pick_device, set_torch_threads
from agents.ppo import PolicyAgent, PPOTrainer
from checkers_env.core.pdn import game_to_pdn
from checkers_env.core.variants import Rules, get_rules

from .config import TrainConfig
from .logging_utils import RunLogger, plot_learning_curve
from .openings import ballot
from .ratings import match_stats
from .workers import SelfPlayPool, usable_cores

__all__ = ["main", "run", "evaluate_agent", "Trainer"]

STATE_FORMAT = "checkers-env-train-state"


def _bar(total: int | None, desc: str, enabled: bool, unit: str = "it"):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False, unit=unit, dynamic_ncols=True)


def _atomic_text(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def default_run_dir(cfg: TrainConfig) -> str:
    """``runs/<variant>-<algo>-<YYYYmmdd-HHMMSS>`` (a suffix is added if it exists)."""
    base = os.path.join("runs", f"{cfg.variant}-{cfg.algo}-{datetime.now():%Y%m%d-%H%M%S}")
    path, k = base, 1
    while os.path.exists(path):
        k += 1
        path = f"{base}-{k}"
    return path


# ---------------------------------------------------------------- evaluation


def evaluate_agent(
    rules: Rules,
    player: NetPlayer | Agent,
    opponent_spec: str,
    games: int,
    seed: int,
    max_moves: int = 200,
    progress: bool = False,
) -> tuple[dict, list]:
    """Play ``games`` games (pairs from balloted openings, colours reversed) of ``player`` against
    ``opponent_spec``; returns the match statistics (from the player's side) and the final boards."""
    pairs = max(1, math.ceil(games / 2))
    openings = ballot(rules, pairs, seed)
    first = 0 if rules.first_player == "white" else 1
    boards, colours = [], []
    for op in openings:
        for a_first in (True, False):
            if len(boards) == games:
                break
            boards.append(op.board(rules))
            colours.append(first if a_first else 1 - first)
    opponent = make_agent(opponent_spec, rules.name, seed=seed)
    with _bar(len(boards), f"eval vs {opponent_spec}", progress, "game") as bar:
        results = play_match(rules, player, opponent, boards, colours, max_moves, seed, progress=bar.update)
    wins = sum(1 for s, _ in results if s == 1.0)
    draws = sum(1 for s, _ in results if s == 0.5)
    losses = len(results) - wins - draws
    stats = match_stats(wins, draws, losses)
    doc = {
        "opponent": opponent_spec,
        "games": stats.games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": stats.score,
        "score_ci": list(stats.score_ci),
        "elo": stats.elo,
        "elo_ci": list(stats.elo_ci),
    }
    return doc, [b for _, b in results]


def results_table(rows: list[dict], title: str) -> str:
    """The final evaluation table as text."""
    lines = [title, f"{'opponent':<14}{'games':>6}{'W':>5}{'D':>5}{'L':>5}{'score':>8}  {'95% CI':<14}{'Elo':>7}"]
    for r in rows:
        lo, hi = r["score_ci"]
        elo = r["elo"]
        elo_text = f"{elo:+.0f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")
        lines.append(
            f"{r['opponent']:<14}{r['games']:>6}{r['wins']:>5}{r['draws']:>5}{r['losses']:>5}"
            f"{r['score']:>8.3f}  [{lo:.2f}, {hi:.2f}]  {elo_text:>6}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- trainer


class Trainer:
    """One training run in one folder; :meth:`run` trains until the budget is spent, then evaluates."""

    def __init__(self, cfg: TrainConfig):
        cfg.validate()
        self.cfg = cfg
        self.rules = get_rules(cfg.variant)
        self.device = pick_device(cfg.device)
        set_torch_threads(cfg.threads or usable_cores())
        self.workers = cfg.selfplay_workers or usable_cores()
        self._pool: SelfPlayPool | None = None
        self.run_dir = cfg.run_dir or default_run_dir(cfg)
        self.state_path = os.path.join(self.run_dir, "train_state.pt")
        self.resumed = os.path.exists(self.state_path)
        if self.resumed:
            self._check_resume()
        os.makedirs(self.run_dir, exist_ok=True)
        self.logger = RunLogger(self.run_dir)
        self.train_seconds = 0.0
        self.iteration = 0
        self.last_eval_minutes = -1.0
        self.eval_history: list[dict] = []
        self.pending: list[GameRecord] = []
        torch.manual_seed(cfg.seed)
        if cfg.algo == "alphazero":
            self.net = PolicyValueNet(self.rules.board_size, cfg.net).to(self.device)
            self.best_weights = self._weights()
            self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=cfg.learning_rate,
                                               weight_decay=cfg.weight_decay)  # fmt: skip
            self.buffer = ReplayBuffer(cfg.replay_capacity, self.rules.board_size)
            self.rng = np.random.default_rng(cfg.seed)
            self.games_played = 0
            self.untrained_positions = 0
            self.train_steps = 0
        else:
            self.ppo = PPOTrainer(self.rules, cfg.net, cfg.ppo, seed=cfg.seed, device=str(self.device))
        if self.resumed:
            self._load_state()
        else:
            _atomic_text(os.path.join(self.run_dir, "config.json"), json.dumps(cfg.to_dict(), indent=2))

    # ------------------------------------------------------------ state
    def _weights(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    def _check_resume(self) -> None:
        path = os.path.join(self.run_dir, "config.json")
        if not os.path.exists(path):
            raise CheckpointError(f"{self.run_dir!r} has train_state.pt but no config.json; it is not a run folder")
        stored = json.load(open(path))
        for key in ("variant", "algo", "net"):
            mine = self.cfg.to_dict()[key]
            if stored.get(key) != mine:
                raise CheckpointError(
                    f"run folder {self.run_dir!r} was made with {key}={stored.get(key)!r}, not {mine!r}; "
                    "resume it with the same settings or choose another --run-dir (nothing was overwritten)"
                )

    def _save_state(self) -> None:
        state = {
            "format": STATE_FORMAT,
            "algo": self.cfg.algo,
            "variant": self.rules.name,
            "train_seconds": self.train_seconds,
            "iteration": self.iteration,
            "last_eval_minutes": self.last_eval_minutes,
            "eval_history": self.eval_history,
        }
        if self.cfg.algo == "alphazero":
            for g in self.pending:
                self.buffer.add_game(g)
                self.untrained_positions += len(g.colours)
            self.pending = []
            state.update(
                {
                    "weights": self._weights(),
                    "best_weights": self.best_weights,
                    "optimizer": self.optimizer.state_dict(),
                    "buffer": {
                        k: (torch.from_numpy(v) if isinstance(v, np.ndarray) else v)
                        for k, v in self.buffer.state_dict().items()
                    },  # fmt: skip
                    "games_played": self.games_played,
                    "untrained_positions": self.untrained_positions,
                    "train_steps": self.train_steps,
                    "rng": self.rng.bit_generator.state,
                }
            )
        else:
            state["ppo"] = self.ppo.state_dict()
        atomic_torch_save(state, self.state_path)

    def _load_state(self) -> None:
        try:
            state = torch.load(self.state_path, map_location="cpu", weights_only=False)
        except Exception as exc:
            raise CheckpointError(
                f"cannot resume: {self.state_path!r} is corrupt ({exc}); nothing was overwritten"
            ) from None
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise CheckpointError(f"cannot resume: {self.state_path!r} is not a training state file")
        self.train_seconds = float(state["train_seconds"])
        self.iteration = int(state["iteration"])
        self.last_eval_minutes = float(state["last_eval_minutes"])
        self.eval_history = list(state["eval_history"])
        if self.cfg.algo == "alphazero":
            self.net.load_state_dict(state["weights"])
            self.best_weights = state["best_weights"]
            self.optimizer.load_state_dict(state["optimizer"])
            buf = {k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in state["buffer"].items()}
            self.buffer = ReplayBuffer.from_state_dict(buf, self.cfg.replay_capacity)
            self.games_played = int(state["games_played"])
            self.untrained_positions = int(state["untrained_positions"])
            self.train_steps = int(state["train_steps"])
            self.rng.bit_generator.state = state["rng"]
        else:
            self.ppo.load_state_dict(state["ppo"])

    @property
    def step(self) -> int:
        """Training progress counter: gradient steps (alphazero) or PPO iterations."""
        return self.train_steps if self.cfg.algo == "alphazero" else self.ppo.iteration

    # ------------------------------------------------------------ agents
    def _eval_player(self, best: bool = True) -> NetPlayer | Agent:
        if self.cfg.algo == "alphazero":
            net = PolicyValueNet(self.rules.board_size, self.cfg.net)
            net.load_state_dict(self.best_weights if best else self._weights())
            sims = MCTSConfig(**{**self.cfg.mcts.__dict__, "simulations": self.cfg.eval_simulations})
            return NetPlayer(make_evaluator(net, self.device), sims, name="alphazero")
        net = PolicyValueNet(self.rules.board_size, self.cfg.net)
        net.load_state_dict(self.ppo.net.state_dict())
        return PolicyAgent(net, self.rules, seed=self.cfg.seed, name="ppo")

    def _opponents(self) -> list[str]:
        ops = list(self.cfg.eval_opponents)
        if self.cfg.algo == "ppo" and "random" not in ops:
            ops.insert(0, "random")
        return ops

    def _save_agents(self) -> None:
        meta = {"train_minutes": self.train_seconds / 60, "iteration": self.iteration, "step": self.step}
        sims = MCTSConfig(**{**self.cfg.mcts.__dict__, "simulations": self.cfg.eval_simulations})
        if self.cfg.algo == "alphazero":
            best = PolicyValueNet(self.rules.board_size, self.cfg.net)
            best.load_state_dict(self.best_weights)
            save_agent(os.path.join(self.run_dir, "best.pt"), "alphazero", self.rules, best, sims, meta)
            save_agent(os.path.join(self.run_dir, "latest.pt"), "alphazero", self.rules, self.net, sims, meta)
        else:
            save_agent(os.path.join(self.run_dir, "best.pt"), "ppo", self.rules, self.ppo.net, None, meta)

    # ------------------------------------------------------------ loop
    def _alphazero_iteration(self) -> dict:
        cfg = self.cfg
        stats: dict = {}
        if self.untrained_positions == 0:
            t0 = time.perf_counter()
            seed = cfg.seed * 1_000_003 + self.iteration
            with _bar(cfg.games_per_iteration, f"self-play it {self.iteration}", cfg.progress, "game") as bar:

                def received(game: GameRecord) -> None:
                    self.pending.append(game)
                    bar.update(1)

                if self.workers > 1 and cfg.games_per_iteration > 1:
                    if self._pool is None:
                        self._pool = SelfPlayPool(self.workers)
                    games = self._pool.play(self._weights(), cfg.net, self.rules, cfg.mcts, cfg.selfplay, seed,
                                            cfg.games_per_iteration, str(self.device), on_game=received)  # fmt: skip
                    self.pending = list(games)  # the pool's reproducible order, not the arrival order
                else:
                    games = play_selfplay_games(
                        self._weights(), cfg.net, self.rules, cfg.mcts, cfg.selfplay, seed, cfg.games_per_iteration,
                        str(self.device), on_game=received,
                    )  # fmt: skip
            self.games_played += len(games)
            self._write_samples(games[: cfg.sample_games])
            self._save_state()  # games are safe before training starts
            self.train_seconds += time.perf_counter() - t0
            results = [g.winner for g in games]
            stats.update(
                selfplay_seconds=round(time.perf_counter() - t0, 2),
                games=len(games),
                positions=sum(len(g.colours) for g in games),
                mean_plies=float(np.mean([g.plies for g in games])),
                draws=results.count(-1) / len(games),
            )
        t0 = time.perf_counter()
        n_steps = max(1, math.ceil(self.untrained_positions * cfg.sample_reuse / cfg.batch_size))
        losses: list[dict] = []
        with _bar(n_steps, "training", cfg.progress, "step") as bar:
            for _ in range(n_steps):
                batch = self.buffer.sample(cfg.batch_size, self.rng)
                losses.append(train_step(self.net, self.optimizer, batch, self.device))
                bar.update(1)
        self.train_steps += n_steps
        self.untrained_positions = 0
        for key in losses[0]:
            stats[key] = float(np.mean([x[key] for x in losses]))
        if cfg.gate_games > 0:
            doc = self._gate()
            stats["gate_score"] = doc
            if doc >= cfg.gate_threshold:
                self.best_weights = self._weights()
        else:
            self.best_weights = self._weights()
        self.train_seconds += time.perf_counter() - t0
        stats["train_steps"] = self.train_steps
        stats["buffer"] = self.buffer.size
        return stats

    def _gate(self) -> float:
        cfg = self.cfg
        new = self._eval_player(best=False)
        old = self._eval_player(best=True)
        old.name = "previous best"
        pairs = max(1, cfg.gate_games // 2)
        openings = ballot(self.rules, pairs, cfg.seed + self.iteration)
        first = 0 if self.rules.first_player == "white" else 1
        boards, colours = [], []
        for op in openings:
            for c in (first, 1 - first):
                boards.append(op.board(self.rules))
                colours.append(c)
        with _bar(len(boards), "gating", cfg.progress, "game") as bar:
            res = play_match(self.rules, new, old, boards, colours, cfg.eval_max_moves, cfg.seed, bar.update)
        return float(np.mean([s for s, _ in res]))

    def _write_samples(self, games: list[GameRecord]) -> None:
        if not games:
            return
        from checkers_env.core.board import Board

        texts = []
        for k, g in enumerate(games):
            board = Board(self.rules)
            for m in g.moves:
                board.push(m)
            # a game stopped at max_moves has no result by the rules: PDN's "*"
            result = board.result() if board.outcome() is not None else "*"
            tags = {"Event": f"self-play iteration {self.iteration}", "Round": str(k + 1)}
            texts.append(game_to_pdn(board, tags, result=result))
        path = os.path.join(self.run_dir, "samples.pdn")
        old = open(path).read() if os.path.exists(path) else ""
        _atomic_text(path, old + "\n".join(texts) + "\n")

    def _periodic_eval(self, force: bool = False) -> None:
        cfg = self.cfg
        minutes = self.train_seconds / 60
        if cfg.eval_games <= 0:
            return
        if not force and minutes - self.last_eval_minutes < cfg.eval_every_minutes:
            return
        player = self._eval_player()
        for spec in self._opponents():
            doc, _ = evaluate_agent(self.rules, player, spec, cfg.eval_games, cfg.seed + 7919 * (self.iteration + 1),
                                    cfg.eval_max_moves, cfg.progress)  # fmt: skip
            self.logger.eval_row(minutes, spec, doc["games"], doc["score"], self.step)
            self.eval_history.append({"train_minutes": minutes, **doc})
            self._say(f"  eval at {minutes:.1f} min vs {spec}: score {doc['score']:.3f} over {doc['games']} games")
        self.last_eval_minutes = minutes
        self._plot()

    def _plot(self) -> None:
        targets = [("75% target vs minimax:2", 0.75), ("50% target vs minimax:4", 0.5)]
        if self.cfg.algo == "ppo":
            targets = [("95% target vs random", 0.95)]
        plot_learning_curve(
            os.path.join(self.run_dir, "eval.csv"),
            os.path.join(self.run_dir, "learning_curve.png"),
            f"{self.cfg.algo} on {self.rules.name}",
            targets,
        )

    def _say(self, text: str) -> None:
        from tqdm.auto import tqdm

        tqdm.write(text, file=sys.stderr)

    def run(self) -> dict:
        """Train until the budget is spent, then evaluate; returns the final results document."""
        cfg = self.cfg
        budget = cfg.minutes * 60
        verb = "resuming" if self.resumed else "training"
        workers = f", {self.workers} self-play processes" if cfg.algo == "alphazero" and self.workers > 1 else ""
        self._say(f"{verb} {cfg.algo} on {self.rules.name} in {self.run_dir} (device {self.device}{workers}, "
                  f"{self.train_seconds / 60:.1f} of {cfg.minutes} minutes done)")  # fmt: skip
        if self.last_eval_minutes < 0:
            self._periodic_eval(force=True)
        while self.train_seconds < budget:
            if cfg.algo == "alphazero":
                stats = self._alphazero_iteration()
            else:
                t0 = time.perf_counter()
                with _bar(cfg.ppo.rollout_steps, f"rollout {self.ppo.iteration}", cfg.progress, "step") as bar:
                    stats = self.ppo.iterate(progress=bar.update)
                self.train_seconds += time.perf_counter() - t0
                stats["games"] = self.ppo.games_finished
            self.iteration += 1
            row = {"iteration": self.iteration, "train_minutes": round(self.train_seconds / 60, 3), **stats}
            self.logger.train_row(row, self.step)
            self._say("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
            self._save_agents()
            self._save_state()
            self._periodic_eval()
            self._save_state()
        self._periodic_eval(force=self.last_eval_minutes < self.train_seconds / 60 - 1e-9)
        self._save_state()
        return self.final_evaluation()

    def close(self) -> None:
        """End the self-play worker processes, if any were started."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def final_evaluation(self) -> dict:
        """Evaluate best.pt against every opponent and write results.json; print the table."""
        cfg = self.cfg
        rows = []
        if cfg.final_games > 0:
            player = self._eval_player()
            for spec in self._opponents():
                doc, boards = evaluate_agent(self.rules, player, spec, cfg.final_games, cfg.seed + 104729,
                                             cfg.eval_max_moves, cfg.progress)  # fmt: skip
                rows.append(doc)
        result = {
            "variant": self.rules.name,
            "algo": cfg.algo,
            "run_dir": self.run_dir,
            "train_minutes": self.train_seconds / 60,
            "iterations": self.iteration,
            "step": self.step,
            "final": rows,
            "curve": self.eval_history,
        }
        if cfg.algo == "alphazero":
            result["games_played"] = self.games_played
            result["eval_simulations"] = cfg.eval_simulations
        _atomic_text(os.path.join(self.run_dir, "results.json"), json.dumps(result, indent=2, default=float))
        title = (f"{cfg.algo} on {self.rules.name} after {self.train_seconds / 60:.1f} training minutes "
                 f"({self.run_dir}/best.pt)")  # fmt: skip
        print(results_table(rows, title) if rows else title)
        self.logger.close()
        return result


def run(cfg: TrainConfig) -> dict:
    """Train with ``cfg`` (see :class:`Trainer`); Ctrl-C or SIGTERM saves the finished games and re-raises."""
    trainer = Trainer(cfg)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term) if hasattr(signal, "SIGTERM") else None
    try:
        return trainer.run()
    except KeyboardInterrupt:
        trainer._save_state()
        trainer._say(f"interrupted: state saved; resume with --run-dir {trainer.run_dir}")
        raise
    finally:
        trainer.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def parse_args(argv: list[str] | None = None) -> TrainConfig:
    """The configuration from the command line (tyro; every field has its --help)."""
    import tyro

    return tyro.cli(TrainConfig, args=argv, prog="python -m train.selfplay", description=__doc__.split("\n\n")[0])


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m train.selfplay``; returns the exit status."""
    cfg = parse_args(argv)
    try:
        run(cfg)
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:  # bad input: unknown variant, mismatched run folder, ...
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
