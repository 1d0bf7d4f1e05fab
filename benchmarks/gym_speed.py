"""Speed of the library adapters, side by side with VectorEnv and OpenSpiel in the same run.

    NUMBA_NUM_THREADS=1 python benchmarks/gym_speed.py [--seconds 5] [--num-envs 4096] [--variant american]

Rows (one thread; compilation before timing):

* ``VectorEnv``: legs/s with random legal legs for both sides (the yardstick).
* ``GymVectorEnv`` (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``),
  learner against the random opponent (played inside the compiled step):
  learner steps/s, and legs/s counting the opponent's legs too; with copies of
  the arrays returned (the default) and with read-only views (``copy=False``).
* ``GymVectorEnv`` against ``minimax:1`` (called once per step with every
  game's board through ``select_moves``), on fewer games.
* The single-game ``SingleAgentEnv`` (``gymnasium.make``) against random.
* OpenSpiel random playouts: our ``checkers_env_<variant>`` Python game, and
  OpenSpiel's own C++ ``checkers`` (american) as the yardstick.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def timed(step, seconds: float, warmup: int = 3) -> tuple[float, float]:
    """(calls per second, seconds per call) of ``step()`` over about ``seconds``."""
    for _ in range(warmup):
        step()
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        calls += 1
    elapsed = time.perf_counter() - start
    return calls / elapsed, elapsed / calls


def vector_env(variant: str, num_envs: int, seconds: float) -> float:
    from checkers_env.vector import VectorEnv

    venv = VectorEnv(variant, num_envs=num_envs, seed=0)
    rate, _ = timed(lambda: venv.step(venv.sample_actions()), seconds)
    return rate * num_envs


def gym_vector(variant: str, num_envs: int, seconds: float, opponent: str = "random", copy: bool = True):
    """(learner steps/s, legs/s of both sides)."""
    import gymnasium

    import checkers_env  # noqa: F401

    envs = gymnasium.make_vec(f"checkers/{variant}-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                              opponent=opponent, agent="alternate", copy=copy)  # fmt: skip
    inner = envs.unwrapped
    envs.reset(seed=0)
    plies = [0]

    def step():
        envs.step(inner.sample_actions())

    # Legs of both sides: every game's generator advances by one golden-ratio increment per leg of
    # either side (gym_vector's docstring), so the advance divided by the increment counts them.
    golden = 0x9E3779B97F4A7C15
    inverse = np.uint64(pow(golden, -1, 2**64))

    def step_counting():
        before = inner._rng.copy()
        envs.step(inner.sample_actions())
        with np.errstate(over="ignore"):
            plies[0] += int(((inner._rng - before) * inverse).sum())

    rate, _ = timed(step, seconds)
    plies[0] = 0
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < min(seconds, 2.0):
        step_counting()
        n += 1
    legs_per_step = plies[0] / (n * num_envs)
    return rate * num_envs, rate * num_envs * legs_per_step


def single_env(variant: str, seconds: float) -> float:
    import gymnasium

    import checkers_env  # noqa: F401

    env = gymnasium.make(f"checkers/{variant}-v0", max_moves=150)
    rng = np.random.default_rng(0)
    state = {"info": env.reset(seed=0)[1]}

    def step():
        action = int(rng.choice(np.flatnonzero(state["info"]["action_mask"])))
        _, _, term, trunc, info = env.step(action)
        state["info"] = env.reset()[1] if term or trunc else info

    rate, _ = timed(step, seconds)
    return rate


def openspiel_playouts(name: str, seconds: float, params: dict | None = None) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    if name.startswith("checkers_env_"):
        import checkers_env.openspiel  # noqa: F401
    game = pyspiel.load_game(name, params or {})
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
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--minimax-envs", type=int, default=256, help="games in the minimax:1 row")
    parser.add_argument("--variant", default="american")
    args = parser.parse_args()
    v, n, s = args.variant, args.num_envs, args.seconds

    print(f"{'measurement':52} {'rate':>14}  unit            vs VectorEnv", flush=True)
    base = vector_env(v, n, s)

    def row(name: str, rate: float | None, unit: str) -> None:
        if rate is not None:
            print(f"{name:52} {rate:14,.0f}  {unit:15} {rate / base:8.3f}", flush=True)

    row(f"VectorEnv {v} x{n}, random legs both sides", base, "legs/s")
    steps, legs = gym_vector(v, n, s)
    row(f"GymVectorEnv {v} x{n} vs random (copies)", steps, "learner steps/s")
    row("  same, legs of both sides", legs, "legs/s")
    steps, legs = gym_vector(v, n, s, copy=False)
    row(f"GymVectorEnv {v} x{n} vs random (copy=False)", steps, "learner steps/s")
    row("  same, legs of both sides", legs, "legs/s")
    steps, legs = gym_vector(v, args.minimax_envs, s, opponent="minimax:1")
    row(f"GymVectorEnv {v} x{args.minimax_envs} vs minimax:1", steps, "learner steps/s")
    row("  same, legs of both sides", legs, "legs/s")
    row(f"SingleAgentEnv {v} vs random (gymnasium.make)", single_env(v, s), "learner steps/s")
    row(f"OpenSpiel checkers_env_{v} random playout", openspiel_playouts(f"checkers_env_{v}", s), "actions/s")
    if v == "american":
        row("OpenSpiel's own checkers (C++) random playout", openspiel_playouts("checkers", s), "actions/s")


if __name__ == "__main__":
    main()
