"""The PettingZoo AEC loop, with rendering: two random players on a registered id.

    python examples/pettingzoo_loop.py --id checkers/russian-v0 --render-mode ansi
    python examples/pettingzoo_loop.py --render-mode human       # a pygame window
    python examples/pettingzoo_loop.py --smoke                   # the test suite runs this

``import checkers_env`` registers ``checkers/<variant>-v0`` in PettingZoo's
registry; ``pettingzoo.make("aec", id, **kwargs)`` passes keyword arguments
(rule overrides such as ``forced_capture=False``, ``max_moves``,
``render_mode``) to the env. Each ``step`` is one leg: during a multi-capture
the same agent is selected again until its move is complete.
"""

from __future__ import annotations

import argparse
import os


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--id", default="checkers/russian-v0")
    parser.add_argument("--render-mode", default="ansi", choices=["ansi", "rgb_array", "human"])
    parser.add_argument("--max-moves", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a short game, drawn to no screen")
    args = parser.parse_args(argv)
    if args.smoke:
        args.max_moves = 10
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # an entry point may set this; pygame reads it

    import pettingzoo

    import checkers_env  # noqa: F401  (registers checkers/<variant>-v0)

    env = pettingzoo.make("aec", args.id, render_mode=args.render_mode, max_moves=args.max_moves)
    env.reset(seed=args.seed)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
            print(f"{agent}: reward {float(reward):+g}" + (" (move cap)" if truncation else ""))
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
        frame = env.render()
        if args.render_mode == "ansi" and action is not None and not env.unwrapped.move_in_progress:
            print(frame, end="\n\n")
        elif args.render_mode == "rgb_array" and frame is not None:
            print(f"frame {frame.shape}")
    env.close()


if __name__ == "__main__":
    main()
