"""The run loop: one training run in one folder, for any learner.

    cfg = TrainConfig(variant="russian", algo="alphazero", minutes=30)
    result = train(cfg)             # or: python -m train.selfplay --variant russian --minutes 30

What a run does, whatever the algorithm (:mod:`train.learner`):

1. Set up the folder (``runs/<variant>-<algo>-<timestamp>`` by default):
   ``config.json``; or, when the folder has a ``train_state.pt``, resume:
   check that it was made with the same variant, algorithm and network,
   load the state (tensors and plain values only), verify its digest, make
   the CSV logs match it and clear the temporary files a kill left behind.
   Other settings may change on resuming (a longer budget, another search):
   the run says which changed, ``config.json`` takes the new ones and the
   old file is kept as ``config-to-iteration-N.json`` (N: the iterations
   trained with it; ``.2``, ``.3``, ... before ``.json`` when no iteration
   ran in between), so the folder always tells what each part was trained with.
2. Iterate until the budget (training minutes; evaluations are not counted)
   is spent: one learner iteration; every ``eval_every_minutes`` an
   evaluation against each opponent for the learning curve; the playable
   checkpoints; then the state, once per iteration; then the log rows.
3. Evaluate ``best.pt`` against every opponent (``final_games`` each), write
   ``results.json`` and print the table.

Games other than training are played by the run's backend
(:mod:`train.backend`, ``cfg.backend``): local processes, or actors on a
Ray cluster. The learner gets it for its self-play and the evaluations go
through it; the loop does not ask which one it is.

Ctrl-C or SIGTERM stops the run; what the learner had finished is on disk
(AlphaZero logs each self-play game as it ends), and running the same
command again resumes from the last iteration's state. Every file is written
atomically (:func:`checkers_env.core.files.atomic_write`).

Files of a run folder::

    config.json          the full configuration (of the latest resumption)
    config-to-iteration-N.json  the configuration iterations up to N were trained with, when a
                         resumption changed it
    best.pt              the agent to play (python -m train.evaluate --a RUN/best.pt --b minimax:4)
    latest.pt            the newest network as trained (alphazero with gating or ema_decay: may differ
                         from best.pt)
    train_state.pt       everything needed to resume (networks, optimiser, counters, generators, log rows)
    replay/              alphazero's append-only self-play game log
    train.csv, eval.csv  one row per iteration / per evaluation; tensorboard/ when TensorBoard is installed
    learning_curve.png   score against each evaluation opponent over training minutes
    samples.pdn          sample self-play games (alphazero)
    results.json         the final evaluation table
    curve/step-N.pt      the agent of each learning-curve point (``keep_curve_checkpoints``), N its
                         gradient step as in eval.csv; python -m train.curve RUN measures them again
"""

from __future__ import annotations

import json
import math
import os
import time
from datetime import datetime

from agents.checkpoint import CheckpointError, load_trusted, tensor_digest
from agents.networks import pick_device
from agents.runtime import sigterm_as_interrupt, tune_process, usable_cores
from checkers_env.core.files import atomic_write, remove_stale_temporaries
from checkers_env.core.variants import get_rules

from .backend import make_backend
from .config import TrainConfig
from .learner import Learner, learner_class
from .logs import RunLogger, eval_row, plot_learning_curve
from .progress import say

__all__ = ["Run", "train", "changed_settings", "results_table", "default_run_dir", "curve_checkpoint_name", "CURVE_FOLDER",
           "STATE_FORMAT", "STATE_VERSION"]  # fmt: skip

STATE_FORMAT = "checkers-env-train-state"
STATE_VERSION = 2
_STATE_KEYS = ("format", "version", "algo", "variant", "train_seconds", "iteration", "last_eval_minutes",
               "history", "learner", "digest")  # fmt: skip


CURVE_FOLDER = "curve"
"""Folder of a run that keeps the agent of each learning-curve point (``TrainConfig.keep_curve_checkpoints``)."""


def curve_checkpoint_name(step: int) -> str:
    """File name of the curve checkpoint taken at gradient step ``step`` (names sort in step order)."""
    return f"step-{step:07d}.pt"


def default_run_dir(cfg: TrainConfig) -> str:
    """``runs/<variant>-<algo>-<YYYYmmdd-HHMMSS>`` (a suffix is added if it exists)."""
    base = os.path.join("runs", f"{cfg.variant}-{cfg.algo}-{datetime.now():%Y%m%d-%H%M%S}")
    path, k = base, 1
    while os.path.exists(path):
        k += 1
        path = f"{base}-{k}"
    return path


def results_table(rows: list[dict], title: str) -> str:
    """The final evaluation table as text."""
    lines = [title, f"{'opponent':<14}{'games':>6}{'W':>5}{'D':>5}{'L':>5}{'score':>8}  {'95% CI':<14}{'Elo':>7}"]
    for r in rows:
        lo, hi = r["score_ci"]
        elo = r["elo"]
        elo_text = "n/a" if elo is None else (f"{elo:+.0f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf"))
        lines.append(
            f"{r['opponent']:<14}{r['games']:>6}{r['wins']:>5}{r['draws']:>5}{r['losses']:>5}"
            f"{r['score']:>8.3f}  [{lo:.2f}, {hi:.2f}]  {elo_text:>6}"
        )
    return "\n".join(lines)


def changed_settings(before: dict, after: dict, prefix: str = "") -> dict[str, tuple]:
    """The settings whose values differ between two configuration dicts (as :meth:`TrainConfig.to_dict`
    makes them), by dotted name (``alphazero.mcts.simulations``), each as ``(before, after)``; a setting
    one of them lacks counts as ``None`` there. ``run_dir`` is not a setting: a folder may be moved."""
    changes: dict[str, tuple] = {}
    for key in sorted(set(before) | set(after)):
        name = f"{prefix}{key}"
        if name == "run_dir":
            continue
        old, new = before.get(key), after.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            changes.update(changed_settings(old, new, f"{name}."))
        elif old != new:
            changes[name] = (old, new)
    return changes


class Run:
    """One training run in one folder; :meth:`train` trains until the budget is spent, then evaluates."""

    def __init__(self, cfg: TrainConfig):
        cfg.validate()
        self.cfg = cfg
        self.rules = get_rules(cfg.variant)
        self.device = pick_device(cfg.device)
        self.run_dir = cfg.run_dir or default_run_dir(cfg)
        self.state_path = os.path.join(self.run_dir, "train_state.pt")
        self.resumed = os.path.exists(self.state_path)
        state = self._read_state() if self.resumed else None
        os.makedirs(self.run_dir, exist_ok=True)
        if self.resumed:
            remove_stale_temporaries(self.run_dir)
        self.logger = RunLogger(self.run_dir)
        self.train_seconds = 0.0
        self.iteration = 0
        self.last_eval_minutes = -1.0
        self.history: dict[str, list] = {"train": [], "eval": [], "curve": []}
        self.backend = make_backend(cfg)  # where games are played (cfg.backend); started on first use
        self.learner: Learner = learner_class(cfg.algo)(self.rules, cfg, self.device, self.run_dir, self.backend)
        if state is not None:
            self._restore(state)
        else:
            self._write_config("config.json", cfg.to_dict())

    # ------------------------------------------------------------ state

    def _read_state(self) -> dict:
        """The checked training state of the folder, or :class:`CheckpointError` saying what is wrong."""
        config_path = os.path.join(self.run_dir, "config.json")
        if not os.path.exists(config_path):
            raise CheckpointError(f"{self.run_dir!r} has train_state.pt but no config.json; it is not a run folder")
        try:
            with open(config_path) as fh:
                stored = json.load(fh)
            if not isinstance(stored, dict):
                raise ValueError("it is not a JSON object")
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot resume: {config_path!r} is not a readable configuration ({exc})") from None
        self._stored_config = stored
        mine = self.cfg.to_dict()
        for key in ("variant", "algo", "net"):
            if stored.get(key) != mine[key]:
                raise CheckpointError(
                    f"run folder {self.run_dir!r} was made with {key}={stored.get(key)!r}, not {mine[key]!r}; "
                    "resume it with the same settings or choose another --run-dir (nothing was overwritten)"
                )
        state = load_trusted(self.state_path, "training state")
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise CheckpointError(f"cannot resume: {self.state_path!r} is not a training state file")
        if state.get("version") != STATE_VERSION:
            raise CheckpointError(
                f"cannot resume: {self.state_path!r} has state version {state.get('version')!r}; this code resumes "
                f"version {STATE_VERSION} (start a new run folder)"
            )
        missing = [k for k in _STATE_KEYS if k not in state]
        if missing:
            raise CheckpointError(f"cannot resume: {self.state_path!r} lacks {', '.join(missing)}; it is damaged")
        if state["digest"] != tensor_digest(state["learner"]):
            raise CheckpointError(
                f"cannot resume: {self.state_path!r} is damaged (its tensors do not match the digest stored with them)"
            )
        return state

    def _write_config(self, name: str, config: dict) -> None:
        """Write a configuration dict (:meth:`TrainConfig.to_dict`) as the run folder's JSON file ``name``."""
        atomic_write(os.path.join(self.run_dir, name), json.dumps(config, indent=2))

    def _record_changed_settings(self) -> None:
        """When this resumption runs with other settings than ``config.json`` holds: say which, keep that
        file as ``config-to-iteration-N.json`` and write the new settings to ``config.json``."""
        mine = json.loads(json.dumps(self.cfg.to_dict()))  # tuples as the JSON file has them: lists
        changes = changed_settings(self._stored_config, mine)
        if not changes:
            return
        kept, copies = f"config-to-iteration-{self.iteration}.json", 1
        while os.path.exists(os.path.join(self.run_dir, kept)):  # resumed again before another iteration
            copies += 1
            kept = f"config-to-iteration-{self.iteration}.{copies}.json"
        self._write_config(kept, self._stored_config)
        self._write_config("config.json", mine)
        self._stored_config = mine
        listed = "; ".join(f"{name}: {old!r} -> {new!r}" for name, (old, new) in changes.items())
        say(f"settings changed after iteration {self.iteration}: {listed} (config.json holds the new ones, "
            f"{kept} the old)")  # fmt: skip

    def _restore(self, state: dict) -> None:
        self.train_seconds = float(state["train_seconds"])
        self.iteration = int(state["iteration"])
        self.last_eval_minutes = float(state["last_eval_minutes"])
        self.history = {k: list(v) for k, v in state["history"].items()}
        try:
            self.learner.load_state_dict(state["learner"])
        except (KeyError, TypeError, RuntimeError, ValueError) as exc:
            raise CheckpointError(f"cannot resume from {self.state_path!r}: {exc}") from None
        # the logs say exactly what the state knows: rows of an iteration lost to a kill are dropped
        self.logger.rewrite(self.history["train"], self.history["eval"])
        # and so do the curve's agents: one kept by an iteration the kill lost has no row in eval.csv
        measured = {curve_checkpoint_name(int(row["step"])) for row in self.history["eval"]}
        folder = os.path.join(self.run_dir, CURVE_FOLDER)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.startswith("step-") and name not in measured:
                os.remove(os.path.join(folder, name))

    def save_state(self) -> None:
        """Write the training state (once per iteration)."""
        learner = self.learner.state_dict()
        state = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "algo": self.cfg.algo,
            "variant": self.rules.name,
            "train_seconds": self.train_seconds,
            "iteration": self.iteration,
            "last_eval_minutes": self.last_eval_minutes,
            "history": self.history,
            "learner": learner,
            "digest": tensor_digest(learner),
        }
        import torch

        atomic_write(self.state_path, lambda fh: torch.save(state, fh))

    # ------------------------------------------------------------ evaluation

    def _opponents(self) -> list[str]:
        ops = list(self.cfg.eval_opponents)
        for spec in reversed(self.learner.default_opponents()):
            if spec not in ops:
                ops.insert(0, spec)
        return ops

    def _evaluate_now(self, force: bool = False) -> list[dict]:
        """The periodic evaluation, when due: one row per opponent (also kept in the history)."""
        cfg = self.cfg
        minutes = self.train_seconds / 60
        if cfg.eval_games <= 0 or (not force and minutes - self.last_eval_minutes < cfg.eval_every_minutes):
            return []
        seed = cfg.seed + 7919 * (self.iteration + 1)
        agent = self.learner.eval_agent(seed)
        rows = []
        for spec in self._opponents():
            doc, _ = self.backend.evaluate(self.rules, agent, spec, cfg.eval_games, seed, cfg.eval_max_moves,
                                           cfg.progress)  # fmt: skip
            row = eval_row(minutes, spec, doc["wins"], doc["draws"], doc["losses"], self.learner.step)
            rows.append(row)
            self.history["curve"].append({"train_minutes": minutes, **doc})
            say(f"  eval at {minutes:.1f} min vs {spec}: score {doc['score']:.3f} over {doc['games']} games")
        self.history["eval"].extend(rows)
        self.last_eval_minutes = minutes
        return rows

    def _plot(self) -> None:
        plot_learning_curve(
            os.path.join(self.run_dir, "eval.csv"),
            os.path.join(self.run_dir, "learning_curve.png"),
            f"{self.cfg.algo} on {self.rules.name}",
            self.curve_target_lines(),
        )

    def curve_target_lines(self) -> list[tuple[str, float]]:
        """The target lines of the learning curve, ``(label, score)``: the learner's benchmark targets
        against the opponents this run is measured against."""
        ops = self._opponents()
        return [(f"{score:.0%} vs {spec}", score) for spec, score in self.learner.curve_targets() if spec in ops]

    def _log(self, train_rows: list[dict], eval_rows: list[dict]) -> None:
        for row in train_rows:
            self.logger.train_row(row, self.learner.step)
        for row in eval_rows:
            self.logger.eval_row(row)
        if eval_rows:
            self._plot()

    def _meta(self) -> dict:
        """What the playable checkpoints record of the run's progress."""
        return {"train_minutes": self.train_seconds / 60, "iteration": self.iteration, "step": self.learner.step}

    def _keep_curve_checkpoint(self) -> None:
        """Copy ``best.pt``, the agent the curve point just measured, to ``curve/step-NNNNNNN.pt``."""
        with open(os.path.join(self.run_dir, "best.pt"), "rb") as fh:
            data = fh.read()
        atomic_write(os.path.join(self.run_dir, CURVE_FOLDER, curve_checkpoint_name(self.learner.step)), data)

    # ------------------------------------------------------------ the loop

    def train(self) -> dict:
        """Train until the budget is spent, then evaluate; returns the final results document."""
        cfg = self.cfg
        budget = cfg.minutes * 60
        verb = "resuming" if self.resumed else "training"
        say(f"{verb} {cfg.algo} on {self.rules.name} in {self.run_dir} (device {self.device}, "
            f"{self.train_seconds / 60:.1f} of {cfg.minutes} minutes done)")  # fmt: skip
        if self.resumed:
            self._record_changed_settings()
        self.backend.start()  # a cluster's workers start outside the training budget
        if self.last_eval_minutes < 0:
            evals = self._evaluate_now(force=True)
            if evals and cfg.keep_curve_checkpoints:
                self.learner.save_agents(self.run_dir, self._meta())  # the untrained agent the first point measured
                self._keep_curve_checkpoint()
            self._log([], evals)
        while self.train_seconds < budget:
            t0 = time.perf_counter()
            stats = self.learner.iterate(cfg.progress, min(1.0, self.train_seconds / budget))
            self.train_seconds += time.perf_counter() - t0
            self.iteration += 1
            row = {"iteration": self.iteration, "train_minutes": round(self.train_seconds / 60, 3), **stats}
            self.history["train"].append(row)
            say("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
            last = self.train_seconds >= budget
            evals = self._evaluate_now(force=last and self.last_eval_minutes < self.train_seconds / 60 - 1e-9)
            self.learner.save_agents(self.run_dir, self._meta())
            if evals and cfg.keep_curve_checkpoints:
                self._keep_curve_checkpoint()
            self.save_state()
            self._log([row], evals)
        return self.final_evaluation()

    def final_evaluation(self) -> dict:
        """Evaluate best.pt against every opponent and write results.json; print the table."""
        cfg = self.cfg
        rows = []
        if cfg.final_games > 0:
            agent = self.learner.eval_agent(cfg.seed + 104729)
            for spec in self._opponents():
                doc, _ = self.backend.evaluate(self.rules, agent, spec, cfg.final_games, cfg.seed + 104729,
                                               cfg.eval_max_moves, cfg.progress)  # fmt: skip
                rows.append(doc)
        result = {
            "variant": self.rules.name,
            "algo": cfg.algo,
            "run_dir": self.run_dir,
            "train_minutes": self.train_seconds / 60,
            "iterations": self.iteration,
            "step": self.learner.step,
            "final": rows,
            "curve": self.history["curve"],
            "last_iteration": self.history["train"][-1] if self.history["train"] else {},
        }
        atomic_write(os.path.join(self.run_dir, "results.json"), json.dumps(result, indent=2, default=float))
        title = (f"{cfg.algo} on {self.rules.name} after {self.train_seconds / 60:.1f} training minutes "
                 f"({self.run_dir}/best.pt)")  # fmt: skip
        print(results_table(rows, title) if rows else title)
        return result

    def close(self) -> None:
        """End worker processes (local or Ray) and close the logs."""
        self.learner.close()
        self.backend.close()
        self.logger.close()


def train(cfg: TrainConfig) -> dict:
    """Train with ``cfg`` (see :class:`Run`); Ctrl-C or SIGTERM stops the run (resumable) and re-raises
    ``KeyboardInterrupt``. Sets this process's threads (``cfg.threads``, default one per usable core)."""
    tune_process(torch_threads=cfg.threads or usable_cores())
    run = Run(cfg)
    try:
        with sigterm_as_interrupt():
            return run.train()
    except KeyboardInterrupt:
        say(f"interrupted: finished work is saved; resume with --run-dir {run.run_dir}")
        raise
    finally:
        run.close()
