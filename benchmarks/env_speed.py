"""Environment speed, side by side with its yardsticks (PettingZoo's connect_four, OpenSpiel's checkers).

    NUMBA_NUM_THREADS=1 python benchmarks/env_speed.py [--seconds 3] [--num-envs 4096]

Rows:

* AEC random-legal loop (wrapped ``checkers_env.aec.env``: ``agent_iter``,
  ``last``, sample from the mask, ``step``) against PettingZoo's
  ``connect_four_v3`` running the same loop. Target: 1.5x connect four.
* ``VectorEnv`` steps/s with ``num_envs`` games on one thread (random legal
  actions from ``sample_actions``; one step = one leg in every game) against
  OpenSpiel's ``checkers`` random playouts (actions/s). Targets: 10M steps/s
  american, 3M international.

Compilation happens before timing (numba caches it on disk).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def aec_loop_rate(make_env, seconds: float) -> float:
    """Agent steps per second of the standard random-legal AEC loop."""
    env = make_env()
    env.reset(seed=0)
    steps = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        env.reset(seed=steps)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(observation["action_mask"])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def vector_rate(variant: str, num_envs: int, seconds: float, observations: bool = True) -> float:
    from checkers_env.vector import VectorEnv

    venv = VectorEnv(variant, num_envs=num_envs, seed=0, observations=observations)
    for _ in range(5):
        venv.step(venv.sample_actions())
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            venv.step(venv.sample_actions())
        steps += 10 * num_envs
    return steps / (time.perf_counter() - start)


def openspiel_rate(seconds: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("checkers")
    rng = np.random.default_rng(0)
    actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            actions += 1
    return actions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=4096, help="games in the VectorEnv")
    parser.add_argument(
        "--variants", default="american,international", help="comma-separated VectorEnv variants to measure"
    )
    args = parser.parse_args()

    from checkers_env.aec import env as checkers_aec

    rows = []
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        connect_four_v3 = None
    # The two loops are measured in alternation, one second at a time, and the
    # medians compared: a shared machine's speed drifts within seconds.
    ours, theirs = [], []
    for _ in range(max(1, round(args.seconds))):
        ours.append(aec_loop_rate(lambda: checkers_aec("american"), 1.0))
        if connect_four_v3 is not None:
            theirs.append(aec_loop_rate(connect_four_v3.env, 1.0))
    aec = statistics.median(ours)
    c4 = statistics.median(theirs) if theirs else None
    rows.append(("AEC loop, american (steps/s)", aec, "connect_four_v3", c4, 1.5))
    spiel = openspiel_rate(args.seconds)
    targets = {"american": 10e6, "international": 3e6}
    for variant in args.variants.split(","):
        rate = vector_rate(variant, args.num_envs, args.seconds)
        bare = vector_rate(variant, args.num_envs, args.seconds, observations=False)
        rows.append((f"VectorEnv {variant} x{args.num_envs} (steps/s)", rate, "OpenSpiel checkers", spiel, None))
        rows.append((f"  target {targets.get(variant, 0) / 1e6:g}M", rate, "target", targets.get(variant), 1.0))
        rows.append(("  same, observations=False", bare, "target", targets.get(variant), 1.0))

    print(f"{'measurement':44} {'rate':>12} {'yardstick':>20} {'its rate':>12} {'ratio':>8} {'goal':>6}")
    for name, rate, other, other_rate, goal in rows:
        ratio = f"{rate / other_rate:8.2f}" if other_rate else "     n/a"
        other_text = f"{other_rate:12,.0f}" if other_rate else "         n/a"
        goal_text = f"{goal:6.1f}" if goal else "      "
        print(f"{name:44} {rate:12,.0f} {other:>20} {other_text} {ratio} {goal_text}")


if __name__ == "__main__":
    main()
