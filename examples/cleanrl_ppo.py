"""Single-file PPO in the style of CleanRL's ppo.py, with action masks, on ``gymnasium.make_vec``.

    python examples/cleanrl_ppo.py --variant american --total-timesteps 2000000
    python examples/cleanrl_ppo.py --smoke              # a few seconds: the test suite runs this

The env is the batched single-agent view: every game has the learner on one
side (``player_0`` in even games, ``player_1`` in odd ones) and the opponent
on the other, here the random player, whose legs are played inside the
compiled step. Observations are the eight planes; ``infos["action_mask"]``
is the learner's legal legs, and illegal logits are set to -1e8 before the
softmax (a masked categorical). Autoreset is same-step, which is what this
loop assumes: a finished game's ``done`` comes with the next game's first
observation. The draw rule and the move cap are both treated as the end of
the episode, as CleanRL's ppo.py does.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np


@dataclass
class Args:
    variant: str = "american"
    """the rule variant (checkers/<variant>-v0)"""
    opponent: str = "random"
    """the opponent: random, or an agent spec such as minimax:1"""
    seed: int = 1
    total_timesteps: int = 1_000_000
    learning_rate: float = 2.5e-4
    num_envs: int = 64
    num_steps: int = 128
    """steps per game per rollout"""
    max_moves: int = 150
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    smoke: bool = False
    """a tiny budget: every line runs once"""


def parse_args(argv=None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in vars(Args()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(default), default=default)
    args = Args(**vars(parser.parse_args(argv)))
    if args.smoke:
        args.total_timesteps, args.num_envs, args.num_steps = 256, 8, 16
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    import gymnasium as gym
    import torch
    import torch.nn as nn
    from torch.distributions.categorical import Categorical

    import checkers_env  # noqa: F401  (registers checkers/<variant>-v0)

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    # env setup
    envs = gym.make_vec(f"checkers/{args.variant}-v0", num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                        opponent=args.opponent, agent="alternate", max_moves=args.max_moves)  # fmt: skip
    obs_shape = envs.single_observation_space.shape
    n_actions = int(envs.single_action_space.n)

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Flatten(), nn.Linear(int(np.prod(obs_shape)), 256), nn.Tanh(),
                                      nn.Linear(256, 256), nn.Tanh())  # fmt: skip
            self.actor = nn.Linear(256, n_actions)
            self.critic = nn.Linear(256, 1)

        def get_value(self, x):
            return self.critic(self.body(x))

        def get_action_and_value(self, x, mask, action=None):
            hidden = self.body(x)
            logits = self.actor(hidden).masked_fill(~mask, -1e8)  # illegal legs get no probability
            probs = Categorical(logits=logits)
            if action is None:
                action = probs.sample()
            return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)

    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: storage setup
    obs = torch.zeros((args.num_steps, args.num_envs, *obs_shape))
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.from_numpy(next_obs)
    next_mask = torch.from_numpy(infos["action_mask"]).bool()
    next_done = torch.zeros(args.num_envs)
    wins = games = 0

    for iteration in range(1, num_iterations + 1):
        frac = 1.0 - (iteration - 1.0) / num_iterations  # annealing the rate
        optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done

            # ALGO LOGIC: action logic
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob

            # TRY NOT TO MODIFY: execute the game and log data.
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            done = np.logical_or(terminations, truncations)
            rewards[step] = torch.from_numpy(reward)
            next_obs = torch.from_numpy(next_obs)
            next_mask = torch.from_numpy(infos["action_mask"]).bool()
            next_done = torch.from_numpy(done.astype(np.float32))
            games += int(done.sum())
            wins += int((reward > 0).sum())

        # bootstrap value if not done
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1, *obs_shape))
        b_masks = masks.reshape((-1, n_actions))
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)

        # Optimizing the policy and value network
        b_inds = np.arange(batch_size)
        for _epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, batch_size, minibatch_size):
                mb = b_inds[start : start + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef))
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss.mean() - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - start_time))
        print(f"iteration {iteration}/{num_iterations}: step {global_step}, {sps} steps/s, "
              f"learner won {wins}/{games} games")  # fmt: skip
        wins = games = 0
    envs.close()


if __name__ == "__main__":
    main()
