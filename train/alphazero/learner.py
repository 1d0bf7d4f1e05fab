"""The AlphaZero learner: one iteration, top to bottom.

    self-play  ->  game log + replay buffer  ->  gradient steps  ->  gating  ->  best network

1. **Self-play** (:func:`~train.alphazero.selfplay.play_selfplay_games`): the
   current network plays ``games_per_iteration`` games against itself,
   searching every leg with batched MCTS, in the run's backend's pool
   (``workers`` local processes, :class:`~train.alphazero.workers.SelfPlayPool`;
   or Ray actors, :mod:`train.distributed`) or in this process. Each
   finished game is appended to the on-disk :class:`~train.alphazero.replay.GameLog`
   as it arrives, then its positions join the :class:`~train.alphazero.replay.ReplayBuffer`.
2. **Training** (:func:`~train.alphazero.loss.train_step`): about
   ``sample_reuse`` samples per new position, in minibatches drawn uniformly
   from the buffer.
3. **Gating** (optional, ``gate_games > 0``): the new network plays the best
   one in the arena (:func:`train.arena.play_match`) and replaces it only
   with a score of ``gate_threshold`` or more; without gating every new
   network becomes the best, as in AlphaZero. With ``ema_decay`` the new
   network is the moving average of the trained weights
   (:class:`WeightAverage`), while self-play goes on with the weights as
   trained.

The training state (:meth:`AlphaZeroLearner.state_dict`) holds the networks,
the optimiser, the counters and how many logged games have been trained
on; it does not hold the buffer, which is rebuilt from the log on resume.
An iteration interrupted during self-play resumes with the games already
logged and plays only the rest.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time

import numpy as np
import torch

from agents.base import Agent, make_agent
from agents.checkpoint import save_agent
from agents.learned import MCTSAgent
from agents.mcts import MCTSConfig
from agents.networks import PolicyValueNet, cpu_state
from agents.runtime import ThreadChooser, usable_cores
from checkers_env.core import Board, Rules
from checkers_env.core.pdn import game_to_pdn

from ..arena import paired_openings, play_match
from ..backend import LocalBackend
from ..progress import progress_bar
from ..targets import targets_of
from .config import AlphaZeroConfig
from .loss import train_step
from .replay import GameLog, ReplayBuffer
from .selfplay import PHASES, GameRecord, SelfPlayJob

__all__ = ["AlphaZeroLearner", "WeightAverage"]


class WeightAverage:
    """An exponential moving average of a network's state (parameters and batch-norm statistics).

    ``update(net)`` after each gradient step moves every floating-point tensor of the average towards
    the network's by ``1 - d``, where ``d = min(decay, (1 + n) / (10 + n))`` after ``n`` updates, so
    the first updates are not dominated by the random start; integer tensors (the batch-norm counters)
    are copied. The average lives on the network's device (a GPU run copies nothing to the host per
    step); ``weights()`` is a CPU state dict for ``load_state_dict``.
    """

    def __init__(self, net: torch.nn.Module, decay: float):
        if not 0.0 < decay < 1.0:
            raise ValueError(f"decay must be in (0, 1), got {decay!r}")
        self.decay = decay
        self.updates = 0
        self._state = {k: v.detach().clone() for k, v in net.state_dict().items()}

    @torch.no_grad()
    def update(self, net: torch.nn.Module) -> None:
        d = min(self.decay, (1 + self.updates) / (10 + self.updates))
        for key, value in net.state_dict().items():
            mine = self._state[key]
            if mine.is_floating_point():
                mine.mul_(d).add_(value.detach(), alpha=1.0 - d)
            else:
                mine.copy_(value)
        self.updates += 1

    def weights(self) -> dict[str, torch.Tensor]:
        return cpu_state(self._state)

    def state_dict(self) -> dict[str, object]:
        return {"weights": self.weights(), "updates": self.updates}

    def load_state_dict(self, state: dict[str, object]) -> None:
        self._state = {k: v.detach().to(self._state[k].device).clone() for k, v in state["weights"].items()}
        self.updates = int(state["updates"])


class AlphaZeroLearner:
    """AlphaZero on one variant (see the module docstring); a :class:`~train.learner.Learner`."""

    algo = "alphazero"

    def __init__(self, rules: Rules, cfg, device: torch.device, run_dir: str, backend=None):
        self.rules = rules
        self.cfg = cfg
        self.az: AlphaZeroConfig = cfg.alphazero
        self.device = device
        self.run_dir = run_dir
        torch.manual_seed(cfg.seed)
        for spec in self.az.selfplay.sparring:  # a bad spec fails here, not later in a self-play worker
            make_agent(spec, rules.name)
        self.net = PolicyValueNet(rules.board_size, cfg.net).to(device)
        self.best_weights = self.weights()
        self.average = WeightAverage(self.net, self.az.ema_decay) if self.az.ema_decay > 0 else None
        """The moving average of the trained weights (``ema_decay``), or None."""
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=self.az.learning_rate,
                                           weight_decay=self.az.weight_decay)  # fmt: skip
        self.buffer = self._new_buffer()
        self.log = GameLog(os.path.join(run_dir, "replay"))
        self.rng = np.random.default_rng(cfg.seed)
        self.iteration = 0
        self.games_trained = 0
        """Games of the log (from the first) that training has used; later ones are new."""
        self.train_steps = 0
        self._sizes: list[tuple[int, int]] = []  # (log index, positions) of the games in the buffer
        self._untrained = 0  # positions of logged games not yet trained on
        self._workers = self.az.workers or usable_cores()
        # torch threads of the training steps: chosen by timing, so a busy core does not stall them
        self._threads = ThreadChooser((1, cfg.threads or usable_cores()))
        self._own_backend = backend is None
        self.backend = backend if backend is not None else LocalBackend()
        """Where self-play games are played (:mod:`train.backend`); closed here only if made here."""
        if self.log.count:
            # a fresh run in a folder that has a log but no training state: start over from those games
            self._refill(0)

    # ------------------------------------------------------------ one iteration

    def iterate(self, progress: bool, budget_used: float = 0.0) -> dict[str, float]:
        stats: dict[str, float] = {}
        # 1. self-play: the games this iteration still needs (a resumed one keeps those already logged)
        logged = self.log.count - self.games_trained
        wanted = self.az.games_per_iteration - logged
        if wanted > 0:
            t0 = time.perf_counter()
            games = self._selfplay(wanted, progress)
            wall = time.perf_counter() - t0
            results = [g.winner for g in games]
            stats.update(
                selfplay_seconds=round(wall, 2),
                games=len(games),
                positions=sum(g.positions for g in games),
                mean_plies=float(np.mean([g.plies - g.start_move for g in games])),
                late_starts=sum(g.late_start for g in games),
                draws=results.count(-1) / len(games),
            )
            if self.az.selfplay.sparring_share > 0:  # how the network fares against its sparring partners
                scores = [s for s in (g.network_score for g in games) if s is not None]
                stats["sparring_games"] = len(scores)
                if scores:
                    stats["sparring_score"] = round(float(np.mean(scores)), 4)
            # where the self-play time went: the workers' network, search and play time; the rest of
            # the processes' wall time is waiting (start-up, hand-offs, a worker slower than another).
            # A game carried over from the iteration before brings its time with it, and games parked
            # for the next take theirs away: over a few iterations the two even out.
            spent = {phase: sum(g.seconds.get(phase, 0.0) for g in games) for phase in PHASES}
            processes = self._workers if self._workers > 1 and wanted > 1 else 1
            for phase, seconds in spent.items():
                stats[f"sp_{phase}_seconds"] = round(seconds, 2)
            stats["sp_waiting_seconds"] = round(max(0.0, processes * wall - sum(spent.values())), 2)
            self._write_samples(games[: self.cfg.sample_games])
        self.log.sync()

        # 2. training: about sample_reuse samples per new position, on as many threads as are fastest now
        t0 = time.perf_counter()
        lr = self._learning_rate(budget_used)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        stats["learning_rate"] = lr
        n_steps = max(1, math.ceil(self._untrained * self.az.sample_reuse / self.az.batch_size))
        losses: list[dict[str, float]] = []
        self._threads.reprobe()
        with progress_bar(n_steps, "training", progress, "step") as bar:
            for _ in range(n_steps):
                threads = self._threads.choose()
                torch.set_num_threads(threads)
                t_step = time.perf_counter()
                batch = self.buffer.sample(self.az.batch_size, self.rng)
                losses.append(
                    train_step(self.net, self.optimizer, batch, self.device, material_weight=self.az.material_weight)
                )
                self._threads.record(threads, time.perf_counter() - t_step)
                if self.average is not None:
                    self.average.update(self.net)
                bar.update(1)
        torch.set_num_threads(self._threads.choose())
        stats["train_threads"] = self._threads.choose()
        self.train_steps += n_steps
        for key in losses[0]:
            stats[key] = float(np.mean([x[key] for x in losses]))
        stats["train_seconds"] = round(time.perf_counter() - t0, 2)

        # 3. gating: the new network must beat the best one, or every new network is the best
        if self.az.gate_games > 0:
            score = self._gate(progress)
            stats["gate_score"] = score
            if score >= self.az.gate_threshold:
                self.best_weights = self.candidate_weights()
        else:
            self.best_weights = self.candidate_weights()

        # 4. bookkeeping: the logged games are trained on; the log keeps what the buffer holds
        self.games_trained = self.log.count
        self._untrained = 0
        self.iteration += 1
        self.log.prune(self._oldest_kept())
        stats["train_steps"] = self.train_steps
        stats["buffer"] = self.buffer.size
        stats["games_logged"] = self.log.count
        return stats

    def _selfplay(self, count: int, progress: bool) -> list[GameRecord]:
        """Play ``count`` games with the current network; each is logged and buffered as it arrives."""
        seed = int(np.random.SeedSequence([self.cfg.seed, self.iteration, self.log.count]).generate_state(1)[0])
        weights = self.weights()
        self.log.new_file()
        with progress_bar(count, f"self-play it {self.iteration}", progress, "game") as bar:

            def received(game: GameRecord) -> None:
                index = self.log.count
                self.log.append(game)  # on disk before anything else: a kill now loses no finished game
                self._add(index, game)
                bar.update(1)

            job = SelfPlayJob(weights, self.cfg.net, self.rules, self.az.mcts, self.az.selfplay, seed, count,
                              str(self.device))  # fmt: skip
            return self.backend.selfplay_pool(self._workers, count).play(job, on_game=received)

    def _learning_rate(self, budget_used: float) -> float:
        base = self.az.learning_rate
        if self.az.lr_schedule == "constant":
            return base
        low = base * self.az.final_lr_fraction
        return low + 0.5 * (base - low) * (1.0 + math.cos(math.pi * min(max(budget_used, 0.0), 1.0)))

    def _gate(self, progress: bool) -> float:
        new = self._player(self.candidate_weights(), "new network")
        best = self._player(self.best_weights, "previous best")
        starts = paired_openings(self.rules, 2 * max(1, self.az.gate_games // 2), self.cfg.seed + self.iteration)
        with progress_bar(len(starts), "gating", progress, "game") as bar:
            results = play_match(self.rules, new, best, starts, self.cfg.eval_max_moves,
                                 on_game=lambda k, r: bar.update(1))  # fmt: skip
        return float(np.mean([r.score for r in results]))

    # ------------------------------------------------------------ buffer and log

    def _add(self, index: int, game: GameRecord) -> None:
        self.buffer.add_game(game)
        self._sizes.append((index, game.positions))
        self._untrained += game.positions

    def _oldest_kept(self) -> int:
        """Log index of the oldest game with positions still in the buffer."""
        held = 0
        for k in range(len(self._sizes) - 1, -1, -1):
            held += self._sizes[k][1]
            if held >= self.buffer.capacity:
                self._sizes = self._sizes[k:]
                return self._sizes[0][0]
        return self._sizes[0][0] if self._sizes else self.log.count

    def _refill(self, trained: int) -> None:
        """Rebuild the buffer from the log; games from index ``trained`` on count as new."""
        if self.log.count < trained:
            raise ValueError(
                f"the game log in {self.log.folder!r} has {self.log.count} games but the training state has "
                f"trained on {trained}: the log was changed or removed; the run cannot resume"
            )
        self.buffer = self._new_buffer()
        self._sizes = []
        self._untrained = 0
        for index, game in self.log.read():
            self.buffer.add_game(game)
            self._sizes.append((index, game.positions))
            if index >= trained:
                self._untrained += game.positions
        self.games_trained = trained

    def _write_samples(self, games: list[GameRecord]) -> None:
        """Append a few self-play games to ``samples.pdn`` (a game stopped at max_moves has result ``*``)."""
        if not games:
            return
        texts = []
        for k, g in enumerate(games):
            board = Board(self.rules)
            for m in g.moves:
                board.push(m)
            result = board.result() if board.outcome() is not None else "*"
            tags = {"Event": f"self-play iteration {self.iteration}", "Round": str(k + 1)}
            texts.append(game_to_pdn(board, tags, result=result))
        with open(os.path.join(self.run_dir, "samples.pdn"), "a") as fh:
            fh.write("\n".join(texts) + "\n")

    # ------------------------------------------------------------ players and checkpoints

    @property
    def step(self) -> int:
        return self.train_steps

    def weights(self) -> dict[str, torch.Tensor]:
        """The network as trained: what self-play plays and the gradient steps continue."""
        return cpu_state(self.net.state_dict())

    def candidate_weights(self) -> dict[str, torch.Tensor]:
        """The network this iteration puts forward (to gating, or as the best): the moving average
        of the trained weights with ``ema_decay``, else the network as trained."""
        return self.average.weights() if self.average is not None else self.weights()

    def _eval_mcts(self) -> MCTSConfig:
        # the agent searches every move afresh whatever self-play does (keeping the subtree in play
        # scored -0.02 [-0.085, +0.045] at 128 simulations); a spec's reuse=1 asks for it
        return dataclasses.replace(self.az.mcts, simulations=self.az.eval_simulations, c_puct=self.az.eval_c_puct,
                                   reuse_tree=False)  # fmt: skip

    def _player(self, weights: dict[str, torch.Tensor], name: str, seed: int | None = None) -> MCTSAgent:
        net = PolicyValueNet(self.rules.board_size, self.cfg.net)
        net.load_state_dict(weights)
        return MCTSAgent(net, self.rules, self._eval_mcts(), seed=seed, device=str(self.device), name=name)

    def eval_agent(self, seed: int) -> Agent:
        return self._player(self.best_weights, "alphazero", seed)

    def default_opponents(self) -> list[str]:
        return []

    def _new_buffer(self) -> ReplayBuffer:
        """An empty replay buffer of this run's size and material horizon (at the start, and to resume)."""
        return ReplayBuffer(self.az.replay_capacity, self.rules.board_size, material_horizon=self.az.material_horizon)

    def curve_targets(self) -> list[tuple[str, float]]:
        return targets_of(self.rules.name)

    def save_agents(self, run_dir: str, meta: dict) -> None:
        best = PolicyValueNet(self.rules.board_size, self.cfg.net)
        best.load_state_dict(self.best_weights)
        save_agent(os.path.join(run_dir, "best.pt"), self.algo, self.rules, best, self._eval_mcts(), meta)
        save_agent(os.path.join(run_dir, "latest.pt"), self.algo, self.rules, self.net, self._eval_mcts(), meta)

    # ------------------------------------------------------------ resume

    def state_dict(self) -> dict[str, object]:
        return {
            "weights": self.weights(),
            "best_weights": self.best_weights,
            "optimizer": self.optimizer.state_dict(),
            "iteration": self.iteration,
            "games_trained": self.games_trained,
            "train_steps": self.train_steps,
            "rng": self.rng.bit_generator.state,
            "average": None if self.average is None else self.average.state_dict(),
        }

    def load_state_dict(self, state: dict[str, object]) -> None:
        self.net.load_state_dict(state["weights"])
        self.best_weights = state["best_weights"]
        self.optimizer.load_state_dict(state["optimizer"])
        self.iteration = int(state["iteration"])
        self.train_steps = int(state["train_steps"])
        self.rng.bit_generator.state = state["rng"]
        if self.average is not None:
            if state.get("average") is not None:
                self.average.load_state_dict(state["average"])
            else:
                # a run resumed with averaging newly on (or from a state saved before it existed) starts
                # its average from the network as trained
                self.average = WeightAverage(self.net, self.az.ema_decay)
        self._refill(int(state["games_trained"]))

    def close(self) -> None:
        if self._own_backend:
            self.backend.close()
        self.log.close()
