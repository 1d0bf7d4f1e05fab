"""The board as SVG, for notebooks (``Board._repr_svg_``) and documents.

In the style of python-chess's ``chess.svg``: a self-contained ``<svg>`` with
light and dark squares, men as discs and kings as discs with a crown,
coordinates in a dark margin, the last move's squares shaded with its route
drawn over them and the captured pieces' squares crossed, and the pieces that
must capture ringed in red. Orientation (White at the bottom; italian and
spanish drawn on their mirrored board) is explained in ``layout.py``.

    >>> from checkers_env.core import Board
    >>> svg = board_to_svg(Board("international"), size=300)
    >>> svg.startswith("<svg")
    True

Every element carries a class, so a drawing can be checked or restyled:
``square light``/``square dark``, ``lastmove``, ``highlight``, ``route``,
``captured``, ``piece white man`` (``black``, ``king``), ``ring``, ``crown``,
``must-capture``, ``coord``, ``number``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..core import WHITE, Board
from .layout import (
    COLORS,
    CROWN,
    board_layout,
    must_capture_squares,
    resolve_last_move,
    resolve_squares,
    square_number,
)

__all__ = ["board_to_svg", "boards_to_svg", "SvgImage"]

SQUARE_SIZE = 45
"""Side of one square in SVG user units (as in python-chess)."""
MARGIN = 20
"""Width of the coordinate margin in SVG user units."""


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def board_to_svg(
    board: Board,
    size: int | None = 400,
    last_move=None,
    flipped: bool = False,
    coordinates: bool = True,
    highlight=(),
    numbers: bool | None = None,
    mirrored: bool | None = None,
    must_capture: bool = True,
) -> str:
    """Draw ``board`` as an SVG document.

    Args:
        board: the position to draw.
        size: width and height in pixels (``None``: scalable, no size set).
        last_move: the move to mark: ``None`` for the board's last move
            (``board.peek()``, if any move was played), ``False`` for none, a
            ``Move``, or a sequence of squares (indices or names).
        flipped: draw from Black's side.
        coordinates: draw file letters and rank numbers in a margin.
        highlight: squares (indices or names) to shade, e.g. legal
            destinations of a picked piece.
        numbers: print the variant's square number in a corner of each dark
            square; by default when the variant writes squares as numbers.
        mirrored: draw the mirror image of the reference board; by default as
            the variant is played (italian and spanish mirrored).
        must_capture: ring the pieces that must capture (when capturing is
            compulsory and the side to move has a capture).

    Returns:
        The SVG document as a string (no XML declaration).
    """
    return ET.tostring(
        _board_element(board, size, last_move, flipped, coordinates, highlight, numbers, mirrored, must_capture),
        encoding="unicode",
    )


def _board_element(board, size, last_move, flipped, coordinates, highlight, numbers, mirrored, must_capture):
    rules = board.rules
    layout = board_layout(rules, flipped, mirrored)
    n = rules.board_size
    sq = SQUARE_SIZE
    margin = MARGIN if coordinates else 0
    full = n * sq + 2 * margin
    if numbers is None:
        numbers = rules.notation == "numeric"
    marked = resolve_last_move(board, last_move)
    highlighted = set(resolve_squares(board, highlight))
    ringed = set(must_capture_squares(board)) if must_capture else set()

    attrs = {
        "xmlns": "http://www.w3.org/2000/svg",
        "version": "1.1",
        "viewBox": f"0 0 {full} {full}",
    }
    if size is not None:
        attrs["width"] = str(int(size))
        attrs["height"] = str(int(size))
    svg = ET.Element("svg", attrs)
    ET.SubElement(svg, "desc").text = f"{rules.name} {board.fen()}"

    def corner(row: int, col: int) -> tuple[float, float]:
        return margin + col * sq, margin + row * sq

    def centre(index: int) -> tuple[float, float]:
        x, y = corner(*layout.cell(index))
        return x + sq / 2, y + sq / 2

    if coordinates:
        ET.SubElement(
            svg, "rect", {"x": "0", "y": "0", "width": str(full), "height": str(full), "fill": COLORS["margin"]}
        )

    for row in range(n):
        for col in range(n):
            x, y = corner(row, col)
            dark = layout.is_dark(row, col)
            ET.SubElement(
                svg,
                "rect",
                {
                    "class": "square dark" if dark else "square light",
                    "x": _fmt(x),
                    "y": _fmt(y),
                    "width": str(sq),
                    "height": str(sq),
                    "fill": COLORS["dark" if dark else "light"],
                    "stroke": "none",
                },
            )

    def shade(index: int, css: str, color: str, opacity: float) -> None:
        x, y = corner(*layout.cell(index))
        ET.SubElement(
            svg,
            "rect",
            {
                "class": css,
                "x": _fmt(x),
                "y": _fmt(y),
                "width": str(sq),
                "height": str(sq),
                "fill": color,
                "opacity": _fmt(opacity),
            },
        )

    if marked:
        for index in dict.fromkeys(marked.squares):
            shade(index, "lastmove", COLORS["last_move"], 0.9)
    for index in sorted(highlighted):
        shade(index, "highlight", COLORS["highlight"], 0.75)

    if numbers:
        for index in range(rules.squares):
            x, y = corner(*layout.cell(index))
            text = ET.SubElement(
                svg,
                "text",
                {
                    "class": "number",
                    "x": _fmt(x + 2.5),
                    "y": _fmt(y + 9),
                    "font-size": "8",
                    "font-family": "sans-serif",
                    "fill": COLORS["number"],
                    "opacity": "0.8",
                },
            )
            text.text = str(square_number(rules, index))

    if marked and len(marked.squares) > 1:
        points = " ".join(f"{_fmt(cx)},{_fmt(cy)}" for cx, cy in (centre(i) for i in marked.squares))
        ET.SubElement(
            svg,
            "polyline",
            {
                "class": "route",
                "points": points,
                "fill": "none",
                "stroke": COLORS["path"],
                "stroke-width": _fmt(sq * 0.12),
                "stroke-linecap": "round",
                "stroke-linejoin": "round",
                "opacity": "0.55",
            },
        )

    radius = sq * 0.38
    for index in range(rules.squares):
        piece = board.piece_at(index)
        if piece is None:
            continue
        color, king = piece
        side = "white" if color == WHITE else "black"
        cx, cy = centre(index)
        ET.SubElement(
            svg,
            "circle",
            {
                "class": f"piece {side} {'king' if king else 'man'}",
                "cx": _fmt(cx),
                "cy": _fmt(cy),
                "r": _fmt(radius),
                "fill": COLORS[f"{side}_piece"],
                "stroke": COLORS[f"{side}_edge"],
                "stroke-width": "1.5",
            },
        )
        ET.SubElement(
            svg,
            "circle",
            {
                "class": "ring",
                "cx": _fmt(cx),
                "cy": _fmt(cy),
                "r": _fmt(radius * 0.72),
                "fill": "none",
                "stroke": COLORS[f"{side}_ring"],
                "stroke-width": "1.5",
            },
        )
        if king:
            points = " ".join(f"{_fmt(cx + px * radius)},{_fmt(cy + py * radius)}" for px, py in CROWN)
            ET.SubElement(
                svg,
                "polygon",
                {
                    "class": "crown",
                    "points": points,
                    "fill": COLORS["crown"],
                    "stroke": COLORS["crown_edge"],
                    "stroke-width": "1",
                    "stroke-linejoin": "round",
                },
            )
        if index in ringed:
            ET.SubElement(
                svg,
                "circle",
                {
                    "class": "must-capture",
                    "cx": _fmt(cx),
                    "cy": _fmt(cy),
                    "r": _fmt(radius + 2.5),
                    "fill": "none",
                    "stroke": COLORS["must_capture"],
                    "stroke-width": "3",
                },
            )

    if marked:
        arm = sq * 0.18
        for index in marked.captures:
            if board.piece_at(index) is not None:
                continue  # the piece is still there: the marked move was not played on this board
            cx, cy = centre(index)
            ET.SubElement(
                svg,
                "path",
                {
                    "class": "captured",
                    "d": (
                        f"M{_fmt(cx - arm)},{_fmt(cy - arm)} L{_fmt(cx + arm)},{_fmt(cy + arm)} "
                        f"M{_fmt(cx - arm)},{_fmt(cy + arm)} L{_fmt(cx + arm)},{_fmt(cy - arm)}"
                    ),
                    "stroke": COLORS["captured"],
                    "stroke-width": "4",
                    "stroke-linecap": "round",
                    "fill": "none",
                },
            )

    if coordinates:
        for i in range(n):
            for css, label, x, y in (
                ("coord file", layout.file_label(i), margin + i * sq + sq / 2, margin * 0.7),
                ("coord file", layout.file_label(i), margin + i * sq + sq / 2, full - margin * 0.3),
                ("coord rank", layout.rank_label(i), margin / 2, margin + i * sq + sq / 2 + 4),
                ("coord rank", layout.rank_label(i), full - margin / 2, margin + i * sq + sq / 2 + 4),
            ):
                text = ET.SubElement(
                    svg,
                    "text",
                    {
                        "class": css,
                        "x": _fmt(x),
                        "y": _fmt(y),
                        "font-size": "12",
                        "font-family": "sans-serif",
                        "text-anchor": "middle",
                        "fill": COLORS["coord"],
                    },
                )
                text.text = label

    return svg


class SvgImage(str):
    """SVG text that Jupyter draws as a picture (it has ``_repr_svg_``) and that is still a ``str``."""

    def _repr_svg_(self) -> str:
        return str(self)


def boards_to_svg(
    boards,
    captions=None,
    columns: int = 4,
    size: int = 200,
    caption_height: int = 22,
    **options,
) -> SvgImage:
    """Several boards side by side in one SVG, each with an optional caption below it.

    For notebooks: ``boards_to_svg([Board(v) for v in variant_names()], variant_names())``
    shows every start position in one cell, and a game replay is
    ``boards_to_svg(positions, [str(m) for m in moves])``.

    Args:
        boards: the positions to draw, in reading order.
        captions: a text under each board (``None``: no captions).
        columns: boards per row (at least 1).
        size: width of each board in pixels.
        caption_height: pixels reserved under each board for its caption.
        **options: passed to :func:`board_to_svg` for every board
            (``coordinates``, ``flipped``, ``last_move``, ...).

    Returns:
        An :class:`SvgImage` (a ``str``).
    """
    allowed = {"last_move", "flipped", "coordinates", "highlight", "numbers", "mirrored", "must_capture"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"boards_to_svg() got unknown option(s) {unknown}; board options are {sorted(allowed)}")
    boards = list(boards)
    if captions is not None:
        captions = [str(c) for c in captions]
        if len(captions) != len(boards):
            raise ValueError(f"got {len(captions)} captions for {len(boards)} boards")
    if int(columns) < 1:
        raise ValueError(f"columns must be at least 1, got {columns}")
    columns = min(int(columns), max(1, len(boards)))
    rows = -(-len(boards) // columns)
    gap = 8
    cell_h = size + (caption_height if captions is not None else 0)
    width = columns * size + (columns - 1) * gap
    height = rows * cell_h + max(0, rows - 1) * gap
    outer = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "version": "1.1",
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
        },
    )
    for i, board in enumerate(boards):
        row, col = divmod(i, columns)
        x, y = col * (size + gap), row * (cell_h + gap)
        element = _board_element(
            board,
            size,
            options.get("last_move"),
            options.get("flipped", False),
            options.get("coordinates", True),
            options.get("highlight", ()),
            options.get("numbers"),
            options.get("mirrored"),
            options.get("must_capture", True),
        )
        element.set("x", str(x))
        element.set("y", str(y))
        outer.append(element)
        if captions is not None:
            text = ET.SubElement(
                outer,
                "text",
                {
                    "class": "caption",
                    "x": _fmt(x + size / 2),
                    "y": _fmt(y + size + caption_height * 0.7),
                    "font-size": "13",
                    "font-family": "sans-serif",
                    "text-anchor": "middle",
                },
            )
            text.text = captions[i]
    return SvgImage(ET.tostring(outer, encoding="unicode"))
