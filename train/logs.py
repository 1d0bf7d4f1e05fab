"""Run logs: CSV files (always), TensorBoard (when installed), and the learning-curve PNG.

``train.csv`` gets one row per training iteration and ``eval.csv`` one row
per (evaluation, opponent). The run loop keeps the same rows in its saved
state and, when a run resumes, rewrites both files from them
(:meth:`RunLogger.rewrite`), so the logs always match the state the run
continues from: no row of an iteration that was lost to a kill, none
missing. ``learning_curve.png`` plots the score against each opponent over
training minutes with its 95% Wilson interval (:func:`train.arena.ratings.score_interval`,
the same interval as the results table).
"""

from __future__ import annotations

import csv
import io
import os
import textwrap
from collections.abc import Sequence

from checkers_env.core.files import atomic_write

from .arena.ratings import score_interval

__all__ = ["RunLogger", "eval_row", "read_eval_csv", "plot_learning_curve", "plot_curve_rows"]


def eval_row(minutes: float, opponent: str, wins: int, draws: int, losses: int, step: int) -> dict:
    """One ``eval.csv`` row: the score against ``opponent`` with its 95% interval."""
    games = wins + draws + losses
    lo, hi = score_interval(wins, draws, losses)
    return {
        "train_minutes": round(minutes, 3),
        "step": step,
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": (wins + 0.5 * draws) / games if games else 0.5,
        "ci_low": round(lo, 4),
        "ci_high": round(hi, 4),
    }


def _header(rows: Sequence[dict]) -> list[str]:
    header: list[str] = []
    for row in rows:
        header.extend(k for k in row if k not in header)
    return header


def _csv_text(rows: Sequence[dict]) -> str:
    header = _header(rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, restval="")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


class RunLogger:
    """Appends rows to ``train.csv``/``eval.csv`` in ``run_dir`` and mirrors scalars to TensorBoard."""

    def __init__(self, run_dir: str, tensorboard: bool = True):
        self.run_dir = run_dir
        self._tb = None
        self._headers: dict[str, list[str]] = {}
        if tensorboard:
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
        header = self._headers.get(name)
        if header is None and os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, newline="") as fh:
                header = next(csv.reader(fh), None)
        if header is None or any(k not in header for k in row):
            # a new file, or a row with a field the header lacks: write the file again with all fields
            rows = [*(_read_csv(path) if os.path.exists(path) else []), row]
            atomic_write(path, _csv_text(rows), fsync=False)
            self._headers[name] = _header(rows)
            return
        self._headers[name] = header
        with open(path, "a", newline="") as fh:
            csv.DictWriter(fh, fieldnames=header, restval="").writerow(row)

    def train_row(self, row: dict, step: int) -> None:
        """One iteration's statistics."""
        self._append("train.csv", row)
        if self._tb is not None:
            for key, value in row.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    self._tb.add_scalar(f"train/{key}", value, step)

    def eval_row(self, row: dict) -> None:
        """One evaluation result (see :func:`eval_row`)."""
        self._append("eval.csv", row)
        if self._tb is not None:
            self._tb.add_scalar(f"eval/score_vs_{row['opponent'].replace(':', '_')}", row["score"], row["step"])

    def rewrite(self, train_rows: Sequence[dict], eval_rows: Sequence[dict]) -> None:
        """Make ``train.csv`` and ``eval.csv`` hold exactly these rows (atomically)."""
        for name, rows in (("train.csv", train_rows), ("eval.csv", eval_rows)):
            path = os.path.join(self.run_dir, name)
            if rows:
                atomic_write(path, _csv_text(rows), fsync=False)
            elif os.path.exists(path):
                os.unlink(path)
        self._headers.clear()

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()


def _read_csv(path: str) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def read_eval_csv(path: str) -> list[dict]:
    """Rows of an ``eval.csv`` with numeric fields converted."""
    if not os.path.exists(path):
        return []
    rows = _read_csv(path)
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
    return plot_curve_rows(read_eval_csv(eval_csv), out_png, title, extra)


def plot_curve_rows(rows: Sequence[dict], out_png: str, title: str, extra: Sequence[tuple[str, float]] = ()) -> bool:
    """Plot rows of :func:`eval_row` (``train_minutes``, ``opponent``, ``score``, ``ci_low``, ``ci_high``), as
    :func:`plot_learning_curve` does those of an ``eval.csv``; False when there is nothing to plot or
    matplotlib is missing."""
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
        # x in axes fractions, y in data: the label stays inside the axes whatever minute the curve starts at
        ax.text(0.01, level, label, transform=ax.get_yaxis_transform(), va="bottom", fontsize=8, color="grey")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training minutes")
    ax.set_ylabel("score (win 1, draw 0.5; 95% Wilson interval)")
    ax.set_title(textwrap.fill(title, 70), fontsize=10)  # a run folder's path can outrun the figure's width
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    atomic_write(out_png, lambda fh: fig.savefig(fh, dpi=110, format="png"), fsync=False)
    return True
