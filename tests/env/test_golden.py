"""Golden playthroughs: any change of behaviour shows as a text diff.

Each transcript is a seeded random game played through the AEC env: per
step the FEN, the agent, its legal actions, the action and the rewards, and
the board text after every whole move. Regenerate after an intended change
with ``CHECKERS_REGEN_GOLDEN=1 pytest tests/env/test_golden.py`` and review
the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from checkers_env.aec import raw_env

from .conftest import CONFIG_IDS, CONFIGS

GOLDEN = Path(__file__).parent / "golden"
SEEDS = (1, 2)
MAX_MOVES = 50


def transcript(variant: str, overrides: dict, seed: int) -> str:
    e = raw_env(variant, max_moves=MAX_MOVES, **overrides)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"variant {variant} {overrides or ''} seed {seed} max_moves {MAX_MOVES}".rstrip()]
    while not (any(e.terminations.values()) or any(e.truncations.values())):
        agent = e.agent_selection
        legal = e.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        lines.append(f"{e.board.fen()} | {agent} legs {e.legs_taken} legal {legal} -> {action}")
        e.step(action)
        if not e.move_in_progress:
            lines.append(f"  {e.last_move}  rewards {[e.rewards[a] for a in e.possible_agents]}")
            lines.extend("  " + row for row in str(e.board).splitlines())
    ended = "terminated" if any(e.terminations.values()) else "truncated"
    lines.append(f"{ended} after {e.episode_plies} moves; result {e.board.result()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_golden_playthrough(variant, overrides, seed):
    name = "-".join([variant, *(f"{k}={v}" for k, v in overrides.items())])
    path = GOLDEN / f"{name}_seed{seed}.txt"
    text = transcript(variant, overrides, seed)
    if os.environ.get("CHECKERS_REGEN_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing {path}; run with CHECKERS_REGEN_GOLDEN=1 to create it"
    assert text == path.read_text(), f"playthrough differs from {path.name}"
