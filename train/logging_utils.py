"""Run logs: CSV files (always), TensorBoard (when installed), and the learning-curve PNG.

``train.csv`` gets one row per training iteration and ``eval.csv`` one row per
(evaluation, opponent); both are appended to, so a resumed run continues
them. ``learning_curve.png`` plots the score against each opponent over
training minutes with 95% intervals.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Sequence

__all__ = ["RunLogger", "plot_learning_curve", "score_interval"]


def score_interval(score: float, games: int) -> tuple[float, float]:
    """95% normal-approximation interval of a match score over ``games`` games, clipped to [0, 1]."""
    if games <= 0:
        return 0.0, 1.0
    half = 1.96 * math.sqrt(max(score * (1 - score), 0.25 / games) / games)
    return max(0.0, score - half), min(1.0, score + half)


class RunLogger:
    """Appends rows to ``train.csv``/``eval.csv`` in ``run_dir`` and mirrors scalars to TensorBoard."""

    def __init__(self, run_dir: str):
        self.run_dir = run_dir
        self._tb = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self._tb = SummaryWriter(os.path.join(run_dir, "tensorboard"))
        except Exception:  # tensorboard is optional
            self._tb = None

    @property
    def tensorboard(self) -> bool:
        """Whether TensorBoard events are written."""
        return self._tb is not None

    def _append(self, name: str, row: dict) -> None:
        path = os.path.join(self.run_dir, name)
        new = not os.path.exists(path)
        with open(path, "a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)

    def train_row(self, row: dict, step: int) -> None:
        """One iteration's statistics (the same keys every time)."""
        self._append("train.csv", row)
        if self._tb is not None:
            for key, value in row.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    self._tb.add_scalar(f"train/{key}", value, step)

    def eval_row(self, minutes: float, opponent: str, games: int, score: float, step: int) -> None:
        """One evaluation result."""
        lo, hi = score_interval(score, games)
        self._append(
            "eval.csv",
            {"train_minutes": round(minutes, 3), "opponent": opponent, "games": games, "score": score,
             "ci_low": round(lo, 4), "ci_high": round(hi, 4)},
        )  # fmt: skip
        if self._tb is not None:
            self._tb.add_scalar(f"eval/score_vs_{opponent.replace(':', '_')}", score, step)

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()


def read_eval_csv(path: str) -> list[dict]:
    """Rows of an ``eval.csv`` with numeric fields converted."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for key in ("train_minutes", "score", "ci_low", "ci_high"):
            r[key] = float(r[key])
        r["games"] = int(r["games"])
    return rows


def plot_learning_curve(eval_csv: str, out_png: str, title: str, extra: Sequence[tuple[str, float]] = ()) -> bool:
    """Plot score against training minutes per opponent from ``eval_csv`` into ``out_png``.

    ``extra`` draws horizontal target lines ``(label, score)``. Returns False
    when there is nothing to plot or matplotlib is missing.
    """
    rows = read_eval_csv(eval_csv)
    if not rows:
        return False
    try:
        # A Figure without pyplot: no global backend switch, so notebooks keep inline plots.
        from matplotlib.figure import Figure
    except ImportError:
        return False
    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        x = [r["train_minutes"] for r in mine]
        y = [r["score"] for r in mine]
        lo = [r["ci_low"] for r in mine]
        hi = [r["ci_high"] for r in mine]
        (line,) = ax.plot(x, y, marker="o", label=f"vs {opponent}")
        ax.fill_between(x, lo, hi, alpha=0.15, color=line.get_color())
    for label, level in extra:
        ax.axhline(level, linestyle="--", linewidth=0.8, color="grey")
        ax.text(0, level, f" {label}", va="bottom", fontsize=8, color="grey")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training minutes")
    ax.set_ylabel("score (win 1, draw 0.5)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    tmp = out_png + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out_png)
    return True
