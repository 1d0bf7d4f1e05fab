"""The board as an RGB array (PettingZoo's ``"rgb_array"`` render mode), drawn with Pillow.

The picture matches the SVG drawing (same palette and orientation, see
``layout.py``): squares, men and crowned kings, coordinates in a margin, the
last move's squares shaded with its route and the captured pieces' squares
crossed, and the pieces that must capture ringed. Pillow draws without
anti-aliasing, so the board is drawn at twice the size and scaled down.

Pillow is optional (``pip install checkers-env[render]``); it is imported
when a board is drawn, not when this module is.
"""

from __future__ import annotations

import numpy as np

from ..core import WHITE, Board
from ..core.extras import missing
from .layout import (
    COLORS,
    CROWN,
    board_layout,
    must_capture_squares,
    resolve_last_move,
    resolve_squares,
)

__all__ = ["board_to_rgb"]

_SUPERSAMPLE = 2


def _pillow():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise missing("PIL", "drawing boards as images", exc) from exc
    return Image, ImageDraw, ImageFont


def _font(image_font, size: int):
    try:
        return image_font.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the fixed bitmap font
        return image_font.load_default()


def board_to_rgb(
    board: Board,
    size: int = 400,
    last_move=None,
    flipped: bool = False,
    coordinates: bool = True,
    highlight=(),
    mirrored: bool | None = None,
    must_capture: bool = True,
) -> np.ndarray:
    """Draw ``board`` as an image array.

    Args:
        board: the position to draw.
        size: width and height of the image in pixels (at least 16).
        last_move: the move to mark: ``None`` for the board's last move (if
            any), ``False`` for none, a ``Move``, or a sequence of squares
            (indices or names).
        flipped: draw from Black's side.
        coordinates: draw file letters and rank numbers in a margin.
        highlight: squares (indices or names) to shade.
        mirrored: draw the mirror image of the reference board; by default as
            the variant is played (italian and spanish mirrored).
        must_capture: ring the pieces that must capture.

    Returns:
        ``uint8`` array of shape ``[size, size, 3]`` (rows from the top).
    """
    if int(size) < 16:
        raise ValueError(f"image size must be at least 16 pixels, got {size}")
    size = int(size)
    image_mod, draw_mod, font_mod = _pillow()
    rules = board.rules
    layout = board_layout(rules, flipped, mirrored)
    n = rules.board_size
    marked = resolve_last_move(board, last_move)
    highlighted = set(resolve_squares(board, highlight))
    ringed = set(must_capture_squares(board)) if must_capture else set()

    big = size * _SUPERSAMPLE
    # The margin takes a fixed share of the picture so coordinates scale with it.
    margin = round(big * 0.045) if coordinates else 0
    sq = (big - 2 * margin) / n
    image = image_mod.new("RGB", (big, big), COLORS["margin"] if coordinates else COLORS["light"])
    draw = draw_mod.Draw(image)

    def box(row: int, col: int) -> tuple[float, float, float, float]:
        x, y = margin + col * sq, margin + row * sq
        return x, y, x + sq, y + sq

    def centre(index: int) -> tuple[float, float]:
        x0, y0, x1, y1 = box(*layout.cell(index))
        return (x0 + x1) / 2, (y0 + y1) / 2

    for row in range(n):
        for col in range(n):
            x0, y0, x1, y1 = box(row, col)
            color = COLORS["dark" if layout.is_dark(row, col) else "light"]
            draw.rectangle((round(x0), round(y0), round(x1), round(y1)), fill=color)

    if marked:
        for index in dict.fromkeys(marked.squares):
            x0, y0, x1, y1 = box(*layout.cell(index))
            draw.rectangle((round(x0), round(y0), round(x1), round(y1)), fill=COLORS["last_move"])
    for index in highlighted:
        x0, y0, x1, y1 = box(*layout.cell(index))
        draw.rectangle((round(x0), round(y0), round(x1), round(y1)), fill=COLORS["highlight"])
    if marked and len(marked.squares) > 1:
        draw.line(
            [centre(i) for i in marked.squares], fill=COLORS["path"], width=max(1, round(sq * 0.1)), joint="curve"
        )

    radius = sq * 0.38
    edge = max(1, round(sq * 0.035))
    for index in range(rules.squares):
        piece = board.piece_at(index)
        if piece is None:
            continue
        color, king = piece
        side = "white" if color == WHITE else "black"
        cx, cy = centre(index)
        if index in ringed:
            r = radius + 3 * edge
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=COLORS["must_capture"])
        draw.ellipse(
            (cx - radius, cy - radius, cx + radius, cy + radius),
            fill=COLORS[f"{side}_piece"],
            outline=COLORS[f"{side}_edge"],
            width=edge,
        )
        r = radius * 0.72
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=COLORS[f"{side}_ring"], width=edge)
        if king:
            draw.polygon(
                [(cx + px * radius, cy + py * radius) for px, py in CROWN],
                fill=COLORS["crown"],
                outline=COLORS["crown_edge"],
            )

    if marked:
        arm = sq * 0.18
        for index in marked.captures:
            if board.piece_at(index) is not None:
                continue  # the marked move was not played on this board: its victim is still there
            cx, cy = centre(index)
            width = max(1, round(sq * 0.09))
            draw.line((cx - arm, cy - arm, cx + arm, cy + arm), fill=COLORS["captured"], width=width)
            draw.line((cx - arm, cy + arm, cx + arm, cy - arm), fill=COLORS["captured"], width=width)

    if coordinates and margin >= 8:
        font = _font(font_mod, max(8, round(margin * 0.7)))
        for i in range(n):
            mid = margin + i * sq + sq / 2
            for label, xy in (
                (layout.file_label(i), (mid, margin / 2)),
                (layout.file_label(i), (mid, big - margin / 2)),
                (layout.rank_label(i), (margin / 2, mid)),
                (layout.rank_label(i), (big - margin / 2, mid)),
            ):
                draw.text(xy, label, fill=COLORS["coord"], font=font, anchor="mm")

    image = image.resize((size, size), image_mod.Resampling.LANCZOS)
    return np.asarray(image, dtype=np.uint8).copy()
