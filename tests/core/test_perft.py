"""Start-position perft for every variant against the published table.

The table is ``tests/data/perft.json`` (the "drop duplicates" convention, see
its ``source`` field). A mismatch prints the per-move divide of the failing
depth so it can be compared with another generator move by move.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkers_env.core import Board, divide, perft, variant_names

TABLE = json.loads((Path(__file__).parents[1] / "data" / "perft.json").read_text())
EXPECTED: dict[str, list[int]] = TABLE["variants"]

# Depths that run in well under a second each by default; the deeper ones are
# slow (seconds to tens of seconds each).
FAST_DEPTH = {"international": 7}
FAST_DEPTH_8X8 = 8
SLOW_DEPTH = {"international": 9}
SLOW_DEPTH_8X8 = 11


def _cases(slow: bool) -> list:
    cases = []
    for variant in variant_names():
        lo = 1 if not slow else FAST_DEPTH.get(variant, FAST_DEPTH_8X8) + 1
        hi = (SLOW_DEPTH if slow else FAST_DEPTH).get(variant, SLOW_DEPTH_8X8 if slow else FAST_DEPTH_8X8)
        for depth in range(lo, hi + 1):
            marks = [pytest.mark.slow] if slow else []
            cases.append(pytest.param(variant, depth, id=f"{variant}-{depth}", marks=marks))
    return cases


def _check(variant: str, depth: int) -> None:
    board = Board(variant)
    expected = EXPECTED[variant][depth - 1]
    got = perft(board, depth)
    if got != expected:
        rows = "\n".join(f"  {text} {count}" for text, count in divide(board, depth))
        pytest.fail(f"{variant} perft({depth}) = {got}, expected {expected}; divide:\n{rows}")


def test_table_covers_every_variant():
    assert set(EXPECTED) == set(variant_names())
    assert TABLE["convention"] == "drop" and TABLE["source"]


@pytest.mark.parametrize(("variant", "depth"), _cases(slow=False))
def test_perft(variant, depth):
    _check(variant, depth)


@pytest.mark.parametrize(("variant", "depth"), _cases(slow=True))
def test_perft_deep(variant, depth):
    _check(variant, depth)


@pytest.mark.parametrize("variant", ["american", "russian", "international"])
def test_bulk_counting_agrees_with_making_every_move(variant):
    board = Board(variant)
    assert perft(board, 4, bulk=False) == perft(board, 4, bulk=True) == EXPECTED[variant][3]


def test_divide_sums_to_perft_and_leaves_board_unchanged():
    board = Board("russian")
    before = board.fen()
    rows = divide(board, 5)
    assert len(rows) == 7
    assert sum(count for _, count in rows) == EXPECTED["russian"][4]
    assert board.fen() == before and board.move_stack == []


def test_perft_from_fen_and_depth_zero():
    # One white king against one black man (american, short kings): the king on 14 has
    # four steps, one of them next to the man.
    board = Board("american", fen="W:WK14:B1")
    assert perft(board, 0) == 1
    assert perft(board, 1) == len(board.legal_moves()) == 4


def test_perft_rejects_negative_depth():
    with pytest.raises(ValueError, match="depth"):
        perft(Board(), -1)


# ------------------------------------------------------------------ command line


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "checkers_env", "perft", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_prints_the_count_alone_on_the_last_line():
    proc = _cli("--variant", "russian", "--depth", "5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == str(EXPECTED["russian"][4])


def test_cli_divide_lists_each_move_then_the_total():
    proc = _cli("--variant", "international", "--depth", "3", "--divide")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    rows = [line.rsplit(" ", 1) for line in lines[:-1]]
    assert len(rows) == EXPECTED["international"][0]
    assert sum(int(count) for _, count in rows) == int(lines[-1]) == EXPECTED["international"][2]
    assert dict(rows) == {text: str(count) for text, count in divide(Board("international"), 3)}


def test_cli_fen():
    fen = "W:WK14,21:B1,6,K30"
    proc = _cli("--variant", "american", "--depth", "4", "--fen", fen)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip().splitlines()[-1]) == perft(Board("american", fen=fen), 4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--variant", "nosuchvariant", "--depth", "2"), "unknown variant 'nosuchvariant'"),
        (("--variant", "american", "--depth", "2", "--fen", "W:W99:B1"), "99"),
        (("--variant", "american", "--depth", "-1"), "--depth"),
    ],
    ids=["variant", "fen", "depth"],
)
def test_cli_bad_input_exits_non_zero_with_a_message(args, message):
    proc = _cli(*args)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
