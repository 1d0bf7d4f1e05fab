"""Speed of the library adapters, side by side with VectorEnv and OpenSpiel in the same run.

    NUMBA_NUM_THREADS=1 python benchmarks/gym_speed.py [--rounds 7] [--slice 1.0] [--num-envs 4096] [--variant american]

Rows (one thread; compilation and warm-up before timing):

* ``VectorEnv``: legs/s with random legal legs for both sides (the yardstick).
* ``GymVectorEnv`` (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``),
  learner against the random opponent (played inside the compiled step):
  learner steps/s, and legs/s counting the opponent's legs too; with copies of
  the arrays returned (the default) and with read-only views (``copy=False``).
* ``GymVectorEnv`` against ``minimax:1`` (called once per round with the boards
  of every game waiting on it, through ``select_moves``), on fewer games.
* The single-game ``SingleAgentEnv`` (``gymnasium.make``) against random.
* OpenSpiel random playouts: our ``checkers_env_<variant>`` Python game, and
  OpenSpiel's own C++ ``checkers`` (american) as the yardstick.

Every row is measured in ``--rounds`` slices of ``--slice`` seconds, the rows
taking turns, and the median slice is reported: on a shared machine the
speed drifts within seconds, and taking turns exposes every row to the same
drift, so the ratios hold even when the rates do not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

GOLDEN = 0x9E3779B97F4A7C15
INVERSE = np.uint64(pow(GOLDEN, -1, 2**64))


def rate_of(step: Callable[[], float], seconds: float) -> float:
    """Units per second of ``step()`` (which returns the units it did) over about ``seconds``."""
    units = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        units += step()
    return units / (time.perf_counter() - start)


def vector_env(variant: str, num_envs: int) -> dict[str, Callable[[], float]]:
    from checkers_env.vector import VectorEnv

    venv = VectorEnv(variant, num_envs=num_envs, seed=0)

    def step() -> float:
        venv.step(venv.sample_actions())
        return num_envs

    return {"legs": step}


def gym_vector(variant: str, num_envs: int, opponent: str = "random", copy: bool = True):
    """Learner steps, and legs of both sides: every game's generator advances by one golden-ratio
    increment per leg of either side (gym_vector's docstring), so the advance counts them."""
    import gymnasium

    import checkers_env  # noqa: F401

    envs = gymnasium.make_vec(f"checkers/{variant}-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                              opponent=opponent, agent="alternate", copy=copy)  # fmt: skip
    inner = envs.unwrapped
    envs.reset(seed=0)
    legs = [0.0, 0.0]  # learner steps, legs

    def step() -> float:
        before = inner._rng.copy()
        envs.step(inner.sample_actions())
        with np.errstate(over="ignore"):
            legs[1] += float(((inner._rng - before) * INVERSE).sum())
        legs[0] += num_envs
        return num_envs

    return step, legs


def single_env(variant: str) -> Callable[[], float]:
    import gymnasium

    import checkers_env  # noqa: F401

    env = gymnasium.make(f"checkers/{variant}-v0", max_moves=150)
    rng = np.random.default_rng(0)
    state = {"info": env.reset(seed=0)[1]}

    def step() -> float:
        action = int(rng.choice(np.flatnonzero(state["info"]["action_mask"])))
        _, _, term, trunc, info = env.step(action)
        state["info"] = env.reset()[1] if term or trunc else info
        return 1

    return step


def openspiel_playout(name: str) -> Callable[[], float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    if name.startswith("checkers_env_"):
        import checkers_env.openspiel  # noqa: F401
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)

    def playout() -> float:
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            actions += 1
        return actions

    return playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="slices per row, rows taking turns")
    parser.add_argument("--slice", type=float, default=1.0, help="seconds per slice")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--minimax-envs", type=int, default=256, help="games in the minimax:1 row")
    parser.add_argument("--variant", default="american")
    args = parser.parse_args()
    v, n = args.variant, args.num_envs

    gym_copy, gym_copy_legs = gym_vector(v, n)
    gym_view, gym_view_legs = gym_vector(v, n, copy=False)
    gym_mm, gym_mm_legs = gym_vector(v, args.minimax_envs, opponent="minimax:1")
    rows: dict[str, tuple[Callable[[], float] | None, str, list | None]] = {
        f"VectorEnv {v} x{n}, random legs both sides": (vector_env(v, n)["legs"], "legs/s", None),
        f"GymVectorEnv {v} x{n} vs random (copies)": (gym_copy, "learner steps/s", gym_copy_legs),
        f"GymVectorEnv {v} x{n} vs random (copy=False)": (gym_view, "learner steps/s", gym_view_legs),
        f"GymVectorEnv {v} x{args.minimax_envs} vs minimax:1": (gym_mm, "learner steps/s", gym_mm_legs),
        f"SingleAgentEnv {v} vs random (gymnasium.make)": (single_env(v), "learner steps/s", None),
        f"OpenSpiel checkers_env_{v} random playout": (openspiel_playout(f"checkers_env_{v}"), "actions/s", None),
    }
    if v == "american":
        rows["OpenSpiel's own checkers (C++) random playout"] = (openspiel_playout("checkers"), "actions/s", None)
    rows = {name: row for name, row in rows.items() if row[0] is not None}
    for step, _, _ in rows.values():  # warm-up (and any compilation) outside the timing
        rate_of(step, 0.2)
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, (step, _, _) in rows.items():
            rates[name].append(rate_of(step, args.slice))

    medians = {name: statistics.median(r) for name, r in rates.items()}
    base = next(iter(medians.values()))
    print(f"{'measurement':52} {'median rate':>14}  {'unit':15} {'vs VectorEnv':>12}")
    for name, (_, unit, legs) in rows.items():
        print(f"{name:52} {medians[name]:14,.0f}  {unit:15} {medians[name] / base:12.3f}")
        if legs is not None and legs[0]:
            both = medians[name] * legs[1] / legs[0]
            print(f"{'  same, legs of both sides':52} {both:14,.0f}  {'legs/s':15} {both / base:12.3f}")


if __name__ == "__main__":
    main()
