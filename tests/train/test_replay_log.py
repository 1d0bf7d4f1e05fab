"""Reading a run's game log without opening it for writing."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from train.alphazero.replay import GameLog, read_game_log  # noqa: E402
from train.alphazero.selfplay import POLICY_SLOTS, GameRecord  # noqa: E402


def _game(k: int) -> GameRecord:
    return GameRecord(
        observations=np.full((2, 8, 8, 8), k, dtype=np.float16),
        policy_actions=np.zeros((2, POLICY_SLOTS), dtype=np.int16),
        policy_probs=np.zeros((2, POLICY_SLOTS), dtype=np.float16),
        colours=np.array([0, 1], dtype=np.int8),
        value_targets=np.array([k, -k], dtype=np.float32),
        winner=-1,
        plies=k,
    )


def test_read_game_log_gives_the_last_games_and_leaves_a_torn_tail_alone(tmp_path):
    log = GameLog(tmp_path)
    for k in range(5):
        if k in (0, 3):
            log.new_file()
        log.append(_game(k))
    log.close()
    assert [g.plies for g in read_game_log(tmp_path)] == [0, 1, 2, 3, 4]
    assert [g.plies for g in read_game_log(tmp_path, last=2)] == [3, 4]
    assert [g.plies for g in read_game_log(tmp_path, last=9)] == [0, 1, 2, 3, 4]
    last_file = sorted(tmp_path.glob("games-*.bin"))[-1]
    whole = last_file.stat().st_size
    with open(last_file, "ab") as fh:  # a record being written when the log is read
        fh.write(b"\x00" * 7)
    assert [g.plies for g in read_game_log(tmp_path, last=2)] == [3, 4]
    assert last_file.stat().st_size == whole + 7  # not repaired: the writer owns the file
    with pytest.raises(FileNotFoundError, match="no game log"):
        read_game_log(tmp_path / "missing")
