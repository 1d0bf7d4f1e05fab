"""The PPO learner: masked PPO in self-play on :class:`~checkers_env.vector.VectorEnv` against a pool of past selves.

The learner controls ``player_0`` in even-numbered games and ``player_1`` in
odd ones; the other side of every game is played by one opponent drawn per
rollout from the pool: frozen copies of the learner's past weights, and the
uniform random player (which keeps the learner honest early on). The policy
is the masked softmax of the same :class:`~agents.networks.PolicyValueNet`
that AlphaZero uses, so illegal legs are never sampled.

Rewards arrive at the end of a game (+1/-1/0 for the learner), possibly on
the opponent's step; they are credited to the learner's last decision.
Advantages are GAE over the learner's own decisions; a game cut by
``max_moves`` counts as a draw. The value of a rollout's last observation
bootstraps the unfinished games (negated when the opponent is to move: the
game is zero-sum).

Its checkpoint plays with :class:`~agents.learned.PolicyAgent`: the most
probable legal leg, leg after leg, until its move is complete.

One iteration, top to bottom (:meth:`PPOLearner.iterate`): draw the
rollout's opponent, collect ``rollout_steps`` env steps in every game,
bootstrap the unfinished games, compute GAE over the learner's own
decisions, then ``epochs`` passes of clipped PPO updates; every
``snapshot_every`` iterations the learner's weights join the pool.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import torch

from agents.base import Agent
from agents.checkpoint import save_agent
from agents.learned import PolicyAgent
from agents.networks import PolicyValueNet, cpu_state, masked_log_softmax
from checkers_env.core.variants import Rules
from checkers_env.vector import VectorEnv

from .progress import progress_bar
from .targets import targets_of

__all__ = ["PPOConfig", "PPOLearner", "learner_advantages"]


@dataclass(frozen=True)
class PPOConfig:
    """PPO hyperparameters."""

    num_envs: int = 64
    """Games stepped together in the VectorEnv."""
    rollout_steps: int = 128
    """Env steps (legs of either side) per rollout; about half are the learner's."""
    epochs: int = 4
    """Passes over each rollout."""
    minibatch_size: int = 512
    """Learner decisions per gradient step."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.99
    """Discount per learner decision."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip: float = 0.2
    """PPO ratio clip."""
    entropy_coef: float = 0.01
    """Weight of the entropy bonus."""
    value_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    max_moves: int = 150
    """Whole moves after which a game is cut (a draw)."""
    pool_size: int = 8
    """Past checkpoints kept as opponents."""
    snapshot_every: int = 5
    """Rollouts between snapshots of the learner added to the pool."""
    random_opponent_share: float = 0.25
    """Chance that a rollout's opponent is the uniform random player."""

    def __post_init__(self) -> None:
        if self.num_envs < 2 or self.num_envs % 2:
            raise ValueError(f"num_envs must be an even number >= 2, got {self.num_envs}")
        if min(self.rollout_steps, self.epochs, self.minibatch_size, self.pool_size, self.snapshot_every) < 1:
            raise ValueError(f"invalid PPOConfig {self}")
        if not 0.0 <= self.random_opponent_share <= 1.0:
            raise ValueError(f"random_opponent_share must be in [0, 1], got {self.random_opponent_share}")


def _sample_masked(logits: torch.Tensor, masks: torch.Tensor, generator: torch.Generator) -> tuple:
    logp_all = masked_log_softmax(logits, masks)
    probs = logp_all.exp()
    actions = torch.multinomial(probs, 1, generator=generator).squeeze(1)
    return actions, logp_all.gather(1, actions[:, None]).squeeze(1)


def learner_advantages(
    rewards: np.ndarray,
    dones: np.ndarray,
    valid: np.ndarray,
    values: np.ndarray,
    next_value: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE over the learner's own decisions, ``float32[T, E]`` (0 where ``valid`` is False).

    ``rewards[t, e]`` is the learner's reward at env step ``t`` (either side's
    step), ``dones[t, e]`` whether the game ended there, ``valid[t, e]``
    whether the learner acted there (``values`` holds its value estimates),
    ``next_value[e]`` the bootstrap value after the last step. A reward that
    arrives on the opponent's step is credited to the learner's last
    decision before it; nothing crosses the end of a game.
    """
    t_count, e_count = rewards.shape
    adv = np.zeros((t_count, e_count), dtype=np.float32)
    pending = np.zeros(e_count, dtype=np.float32)
    gae = np.zeros(e_count, dtype=np.float32)
    nxt = np.asarray(next_value, dtype=np.float32).copy()
    for t in range(t_count - 1, -1, -1):
        d = dones[t]
        pending = np.where(d, rewards[t], pending + rewards[t])
        nxt = np.where(d, 0.0, nxt)
        gae = np.where(d, 0.0, gae)
        v = valid[t]
        delta = pending + gamma * nxt - values[t]
        new_gae = delta + gamma * lam * gae
        adv[t] = np.where(v, new_gae, 0.0)
        gae = np.where(v, new_gae, gae)
        nxt = np.where(v, values[t], nxt)
        pending = np.where(v, 0.0, pending)
    return adv


class PPOLearner:
    """Masked PPO self-play for one variant; a :class:`~train.learner.Learner`.

    ``iterate()`` collects one rollout and updates the network; ``state_dict()``
    / ``load_state_dict()`` save and restore everything needed to resume
    (weights, optimiser, pool, counters, random generators).
    """

    algo = "ppo"

    def __init__(self, rules: Rules, cfg, device: torch.device | str = "cpu", run_dir: str | None = None,
                 backend=None):  # fmt: skip
        # backend (train.backend): PPO's rollouts run in this process on VectorEnv; only the run's
        # evaluations use the backend, through the run loop
        self.rules = rules
        config: PPOConfig = cfg.ppo
        seed = cfg.seed
        net_config = cfg.net
        self.config = config
        self.device = torch.device(device)
        torch.manual_seed(seed)
        self.net = PolicyValueNet(self.rules.board_size, net_config).to(self.device)
        self.opponent = PolicyValueNet(self.rules.board_size, net_config).to(self.device).eval()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate)
        self.venv = VectorEnv(self.rules, config.num_envs, seed=seed, max_moves=config.max_moves)
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed)
        self.pool: list[dict[str, torch.Tensor]] = []
        self.iteration = 0
        self.learner_steps = 0
        self.games_finished = 0
        self.learner_player = (np.arange(config.num_envs) % 2).astype(np.int8)
        obs, masks, to_move = self.venv.reset(seed=seed)
        self._obs, self._masks, self._to_move = obs.copy(), masks.copy(), to_move.copy()
        self.recent_results: list[float] = []

    # ------------------------------------------------------------ rollout
    def _policy(self, net: PolicyValueNet, obs: np.ndarray, masks: np.ndarray):
        with torch.inference_mode():
            logits, values = net(torch.from_numpy(obs).to(self.device))
            m = torch.from_numpy(masks).to(self.device)
            actions, logp = _sample_masked(logits.cpu(), m.cpu(), self.generator)
        return actions.numpy(), logp.numpy(), values.cpu().numpy()

    def iterate(self, progress: bool = False, budget_used: float = 0.0) -> dict[str, float]:
        """One rollout and PPO update; returns statistics (``budget_used`` is not used: a constant rate)."""
        with progress_bar(self.config.rollout_steps, f"rollout {self.iteration}", progress, "step") as bar:
            stats = self._rollout_and_update(bar.update)
        stats["games"] = self.games_finished
        return stats

    def _rollout_and_update(self, progress) -> dict[str, float]:
        c = self.config
        e_count = c.num_envs
        opp_random = not self.pool or self.rng.random() < c.random_opponent_share
        if not opp_random:
            self.opponent.load_state_dict(self.pool[int(self.rng.integers(len(self.pool)))])
        t_count = c.rollout_steps
        shape = self._obs.shape[1:]
        obs_buf = np.zeros((t_count, e_count, *shape), dtype=np.float32)
        mask_buf = np.zeros((t_count, e_count, self._masks.shape[1]), dtype=np.int8)
        act_buf = np.zeros((t_count, e_count), dtype=np.int64)
        logp_buf = np.zeros((t_count, e_count), dtype=np.float32)
        val_buf = np.zeros((t_count, e_count), dtype=np.float32)
        rew_buf = np.zeros((t_count, e_count), dtype=np.float32)
        done_buf = np.zeros((t_count, e_count), dtype=np.bool_)
        valid = np.zeros((t_count, e_count), dtype=np.bool_)
        self.net.eval()
        for t in range(t_count):
            mine = self._to_move == self.learner_player
            actions = np.zeros(e_count, dtype=np.int64)
            idx = np.flatnonzero(mine)
            if idx.size:
                a, lp, v = self._policy(self.net, self._obs[idx], self._masks[idx])
                actions[idx] = a
                obs_buf[t, idx] = self._obs[idx]
                mask_buf[t, idx] = self._masks[idx]
                act_buf[t, idx] = a
                logp_buf[t, idx] = lp
                val_buf[t, idx] = v
                valid[t, idx] = True
            other = np.flatnonzero(~mine)
            if other.size:
                if opp_random:
                    actions[other] = self.venv.sample_actions()[other]
                else:
                    actions[other] = self._policy(self.opponent, self._obs[other], self._masks[other])[0]
            out = self.venv.step(actions)
            rew_buf[t] = out.rewards[np.arange(e_count), self.learner_player]
            done = out.terminations | out.truncations
            done_buf[t] = done
            for e in np.flatnonzero(done):
                self.recent_results.append(0.5 + 0.5 * float(rew_buf[t, e]))
            self.games_finished += int(done.sum())
            self._obs, self._masks, self._to_move = (
                out.observations.copy(),
                out.action_masks.copy(),
                out.agent_to_move.copy(),
            )
            progress(1)
        self.recent_results = self.recent_results[-500:]
        # bootstrap: the learner's value of the final observation, negated when the opponent is to move
        with torch.inference_mode():
            _, v_last = self.net(torch.from_numpy(self._obs).to(self.device))
        v_last = v_last.cpu().numpy()
        next_value = np.where(self._to_move == self.learner_player, v_last, -v_last).astype(np.float32)
        adv = learner_advantages(rew_buf, done_buf, valid, val_buf, next_value, c.gamma, c.gae_lambda)
        returns = adv + val_buf
        sel = valid.reshape(-1)
        b_obs = torch.from_numpy(obs_buf.reshape(-1, *shape)[sel]).to(self.device)
        b_mask = torch.from_numpy(mask_buf.reshape(-1, mask_buf.shape[2])[sel]).to(self.device)
        b_act = torch.from_numpy(act_buf.reshape(-1)[sel]).to(self.device)
        b_logp = torch.from_numpy(logp_buf.reshape(-1)[sel]).to(self.device)
        b_adv = torch.from_numpy(adv.reshape(-1)[sel]).to(self.device)
        b_ret = torch.from_numpy(returns.reshape(-1)[sel]).to(self.device)
        n = int(sel.sum())
        self.learner_steps += n
        stats = self._update(b_obs, b_mask, b_act, b_logp, b_adv, b_ret, n)
        self.iteration += 1
        if self.iteration % c.snapshot_every == 0:
            self.pool.append(cpu_state(self.net.state_dict()))
            self.pool = self.pool[-c.pool_size :]
        stats.update(
            {
                "learner_decisions": float(n),
                "opponent_random": float(opp_random),
                "recent_score": float(np.mean(self.recent_results)) if self.recent_results else float("nan"),
            }
        )
        return stats

    def _update(self, obs, masks, acts, old_logp, adv, ret, n: int) -> dict[str, float]:
        c = self.config
        self.net.train()
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_frac": 0.0}
        steps = 0
        for _ in range(c.epochs):
            perm = torch.from_numpy(self.rng.permutation(n)).to(self.device)
            for start in range(0, n, c.minibatch_size):
                mb = perm[start : start + c.minibatch_size]
                logits, values = self.net(obs[mb])
                logp_all = masked_log_softmax(logits, masks[mb])
                logp = logp_all.gather(1, acts[mb][:, None]).squeeze(1)
                a = adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
                ratio = (logp - old_logp[mb]).exp()
                pg = -torch.min(ratio * a, ratio.clamp(1 - c.clip, 1 + c.clip) * a).mean()
                vl = 0.5 * (values - ret[mb]).pow(2).mean()
                p = logp_all.exp()
                ent = -(p * logp_all.masked_fill(p == 0, 0.0)).sum(1).mean()
                loss = pg + c.value_coef * vl - c.entropy_coef * ent
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                self.optimizer.step()
                totals["policy_loss"] += pg.item()
                totals["value_loss"] += vl.item()
                totals["entropy"] += ent.item()
                totals["clip_frac"] += ((ratio - 1).abs() > c.clip).float().mean().item()
                steps += 1
        return {k: v / max(steps, 1) for k, v in totals.items()}

    # ------------------------------------------------------------ agents and resume
    @property
    def step(self) -> int:
        return self.iteration

    def weights(self) -> dict[str, torch.Tensor]:
        return cpu_state(self.net.state_dict())

    def eval_agent(self, seed: int) -> Agent:
        net = PolicyValueNet(self.rules.board_size, self.net.config)
        net.load_state_dict(self.weights())
        return PolicyAgent(net, self.rules, seed=seed, name="ppo")

    def default_opponents(self) -> list[str]:
        return ["random"]

    def curve_targets(self) -> list[tuple[str, float]]:
        return targets_of("ppo")

    def save_agents(self, run_dir: str, meta: dict) -> None:
        save_agent(os.path.join(run_dir, "best.pt"), self.algo, self.rules, self.net, None, meta)

    def state_dict(self) -> dict:
        """Everything needed to continue training (the env restarts its games on load)."""
        return {
            "weights": self.weights(),
            "optimizer": self.optimizer.state_dict(),
            "pool": self.pool,
            "iteration": self.iteration,
            "learner_steps": self.learner_steps,
            "games_finished": self.games_finished,
            "rng": self.rng.bit_generator.state,
            "torch_rng": self.generator.get_state(),
            "recent_results": list(self.recent_results),
        }

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict` output."""
        self.net.load_state_dict(state["weights"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.pool = list(state["pool"])
        self.iteration = int(state["iteration"])
        self.learner_steps = int(state["learner_steps"])
        self.games_finished = int(state["games_finished"])
        self.rng.bit_generator.state = state["rng"]
        self.generator.set_state(state["torch_rng"])
        self.recent_results = list(state["recent_results"])

    def close(self) -> None:
        pass
