"""Square names, FEN and move text (PDN 3.0).

Squares have two spellings, both read on the board as the variant's players
see it from White's side. Italian and spanish are played on the mirror image
of the board the other variants use: their near-left corner a1 is light and
h1 is dark (PDN ``GameType`` invert flag ``1``, see :func:`is_mirrored`).

* **numeric** (``1`` .. ``32`` or ``50``), counted the way the variant's
  community counts them (``Rules.numbering_origin`` says where square 1 lies
  on the a1-dark reference board of ``geometry.py``)::

      american, international, pool    italian (mirrored board)       spanish (mirrored board)
      square 1 = b8, left to right     square 1 = a8, left to right   square 1 = h1, right to left
      from the top                     from the top                   from the bottom
         .  1  .  2  .  3  .  4          1  .  2  .  3  .  4  .          32  . 31  . 30  . 29  .
         5  .  6  .  7  .  8  .          .  5  .  6  .  7  .  8           . 28  . 27  . 26  . 25
         ...                             ...                             ...
        29  . 30  . 31  . 32  .          . 29  . 30  . 31  . 32           .  4  .  3  .  2  .  1

* **algebraic** (``a1`` .. ``h8`` / ``j10``): files from White's left, ranks
  from White's side, on the board as it is drawn (``render/layout.py``), so
  the name of a square is the coordinate printed beside it. On the a1-dark
  boards the playable squares are a1, c1, ..., b2, ...; on the mirrored
  italian and spanish boards they are b1, d1, ..., h1, a2, .... Russian,
  brazilian and czech write squares this way; every variant accepts and can
  write it.

FEN is the PDN form ``W:W21,22,K30:B1,2`` (side to move, then each colour's
pieces, ``K`` marking kings, ranges such as ``1-12`` allowed on input). PDN
3.0 allows ``?`` for an unknown side to move: :func:`parse_fen` reads it as
``turn=None``, which a :class:`Board` refuses and a PDN game's replay infers
from its first move (see ``pdn.py``).
Optional trailing fields ``H<n>`` (plies since the last capture) and ``F<n>``
(move number) are read and, on request, written; ``H`` runs from 0 to
:data:`MAX_CLOCK` and ``F`` from 1 to :data:`MAX_MOVE_NUMBER`.

A FEN must describe a position that can arise: no man on the row where its
side is crowned (it would be a king: write ``K``), and no side with more
pieces than it starts with (12 on 8x8, 20 on 10x10).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .errors import CheckersError, InvalidFenError, InvalidSquareError
from .geometry import FILES, Geometry, geometry
from .variants import Rules

__all__ = [
    "is_mirrored",
    "square_name",
    "parse_square",
    "number_of_index",
    "index_of_number",
    "ParsedFen",
    "parse_fen",
    "write_fen",
    "start_fen",
    "MAX_CLOCK",
    "MAX_MOVE_NUMBER",
    "clip_text",
]

MAX_CLOCK = 99_999
"""Largest ``H`` (plies since the last capture) a FEN may give. Far beyond any
draw rule (80 plies) and any real game, and small enough that the state's
int64 counters can never wrap however long a game goes on from it."""

MAX_MOVE_NUMBER = 99_999
"""Largest ``F`` (move number) a FEN may give; the smallest is 1. Same reasoning
as :data:`MAX_CLOCK`: the ply count it sets stays far from int64 limits."""


def _numbering(rules: Rules) -> tuple[list[int], dict[int, int]]:
    """(number of each index, index of each number) for the variant's numbering."""
    g = geometry(rules.board_size)
    h = g.per_row
    rows = rules.board_size
    numbers = [0] * g.squares
    for index in range(g.squares):
        row, pos = divmod(index, h)  # row from the top, position from the left
        if rules.numbering_origin.startswith("bottom"):
            row = rows - 1 - row
        if rules.numbering_origin.endswith("right"):
            pos = h - 1 - pos
        numbers[index] = row * h + pos + 1
    return numbers, {n: i for i, n in enumerate(numbers)}


_NUMBERING_CACHE: dict[tuple[int, str], tuple[list[int], dict[int, int]]] = {}


def _cached_numbering(rules: Rules):
    key = (rules.board_size, rules.numbering_origin)
    if key not in _NUMBERING_CACHE:
        _NUMBERING_CACHE[key] = _numbering(rules)
    return _NUMBERING_CACHE[key]


def number_of_index(rules: Rules, index: int) -> int:
    """The variant's numeric square (1-based) of a square index."""
    return _cached_numbering(rules)[0][index]


def index_of_number(rules: Rules, number: int) -> int:
    """The square index of the variant's numeric square; raises InvalidSquareError."""
    table = _cached_numbering(rules)[1]
    if number not in table:
        raise InvalidSquareError(f"square {number} is off the board: {rules.name} squares are 1-{rules.squares}")
    return table[number]


def is_mirrored(rules: Rules) -> bool:
    """Whether the variant is played on the mirror image of the a1-dark reference
    board (h1 dark, a1 light): the PDN ``GameType`` invert flag, its last field,
    is ``1`` (italian, spanish)."""
    return rules.pdn_game_type.split(",")[-1].strip() == "1"


@functools.cache
def _algebraic_tables(board_size: int, mirrored: bool) -> tuple[tuple[str, ...], dict[str, int]]:
    """(algebraic name of each index, index of each name) on the board as drawn."""
    g = geometry(board_size)
    names = []
    for index in range(g.squares):
        file = int(g.file[index])
        # A mirrored board shows the reference board's file f in column size-1-f.
        if mirrored:
            file = board_size - 1 - file
        names.append(f"{FILES[file]}{board_size - int(g.row[index])}")
    return tuple(names), {name: i for i, name in enumerate(names)}


def _algebraic_file(rules: Rules, index: int) -> int:
    """File (0 = a) of a square on the board as drawn."""
    file = int(geometry(rules.board_size).file[index])
    return rules.board_size - 1 - file if is_mirrored(rules) else file


def square_name(rules: Rules, index: int, notation: str | None = None) -> str:
    """Text of a square: the variant's own notation, or ``"numeric"`` / ``"algebraic"``."""
    notation = notation or rules.notation
    if notation == "algebraic":
        return _algebraic_tables(rules.board_size, is_mirrored(rules))[0][index]
    if notation == "numeric":
        return str(number_of_index(rules, index))
    raise CheckersError(f"notation must be 'numeric' or 'algebraic', got {notation!r}")


_SQUARE_RE = re.compile(r"^\s*(?:([0-9]+)|([a-jA-J])([0-9]+))\s*$", re.ASCII)


def parse_square(rules: Rules, text: str) -> int:
    """Index of a square written as a number (the variant's numbering) or algebraically."""
    m = _SQUARE_RE.match(str(text))
    if not m:
        raise InvalidSquareError(f"{clip_text(str(text))} is not a square: expected a number or a name such as 'c3'")
    digits = m.group(1) if m.group(1) is not None else m.group(3)
    # Thousands of digits would make int() raise ValueError: no square has more than two.
    significant = digits.lstrip("0") or "0"
    if len(significant) > 3:
        raise InvalidSquareError(
            f"square {clip_text(str(text).strip())} is off the board: {rules.name} squares are 1-{rules.squares}"
        )
    if m.group(1) is not None:
        return index_of_number(rules, int(significant))
    mirrored = is_mirrored(rules)
    name = m.group(2).lower() + significant
    table = _algebraic_tables(rules.board_size, mirrored)[1]
    if name not in table:
        n = rules.board_size
        corner = f"{FILES[n - 1]}1" if mirrored else "a1"
        raise InvalidSquareError(
            f"{m.group(2) + m.group(3)!r} is not a playable square of the {rules.name} board "
            f"(files a-{FILES[n - 1]}, ranks 1-{n}, dark squares with {corner} dark)"
        )
    return table[name]


@dataclass(frozen=True)
class ParsedFen:
    """The contents of a FEN: square indices of each colour's men and kings."""

    turn: int | None  # 0 White, 1 Black, None for '?' (unknown, allowed by PDN 3.0)
    white_men: frozenset[int]
    white_kings: frozenset[int]
    black_men: frozenset[int]
    black_kings: frozenset[int]
    clock: int | None = None
    move_number: int | None = None


def _parse_piece_list(rules: Rules, g: Geometry, text: str, fen: str) -> tuple[set[int], set[int]]:
    men: set[int] = set()
    kings: set[int] = set()
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        is_king = item[0] in "Kk"
        if is_king:
            item = item[1:].strip()
        try:
            if "-" in item:
                lo_text, hi_text = item.split("-", 1)
                if not (lo_text.strip().isascii() and lo_text.strip().isdigit()) or not (
                    hi_text.strip().isascii() and hi_text.strip().isdigit()
                ):
                    raise InvalidFenError(
                        f"bad range {raw.strip()!r} in FEN {fen!r}: expected two square numbers such as '21-32'"
                    )
                lo, hi = int(lo_text), int(hi_text)
                if lo > hi:
                    raise InvalidFenError(f"range {raw.strip()!r} runs backwards in FEN {fen!r}")
                squares = [index_of_number(rules, n) for n in range(lo, hi + 1)]
            else:
                squares = [parse_square(rules, item)]
        except InvalidFenError:
            raise
        except (InvalidSquareError, ValueError) as exc:
            raise InvalidFenError(f"bad square {raw.strip()!r} in FEN {fen!r}: {exc}") from None
        for sq in squares:
            if sq in men or sq in kings:
                raise InvalidFenError(f"square {raw.strip()!r} listed twice in FEN {fen!r}")
            (kings if is_king else men).add(sq)
    return men, kings


def parse_fen(rules: Rules, fen: str) -> ParsedFen:
    """Read a PDN FEN; raises :class:`InvalidFenError` naming what was wrong."""
    if not isinstance(fen, str):
        raise InvalidFenError(f"FEN must be a string, got {type(fen).__name__}")
    g = geometry(rules.board_size)
    text = fen.strip().strip('"').rstrip(".").strip()
    if text.startswith("[FEN"):
        text = text[4:].strip().rstrip("]").strip().strip('"')
    fields = [f.strip() for f in text.split(":")]
    if len(fields) < 1 or fields[0].upper() not in ("W", "B", "?"):
        raise InvalidFenError(f"FEN {fen!r} must start with the side to move, 'W', 'B' or '?' (unknown)")
    turn = {"W": 0, "B": 1}.get(fields[0].upper())
    pieces: dict[str, tuple[set[int], set[int]]] = {}
    clock = None
    move_number = None
    for field in fields[1:]:
        if not field:
            continue
        head = field[0].upper()
        if head in ("W", "B"):
            if head in pieces:
                raise InvalidFenError(f"colour {head!r} appears twice in FEN {fen!r}")
            pieces[head] = _parse_piece_list(rules, g, field[1:], fen)
        elif head in ("H", "F") and field[1:].strip():
            if head == "H":
                clock = _counter(field, 0, MAX_CLOCK, "plies since the last capture", fen)
            else:
                move_number = _counter(field, 1, MAX_MOVE_NUMBER, "move number", fen)
        else:
            raise InvalidFenError(f"unexpected field {field!r} in FEN {fen!r}: expected 'W...' or 'B...'")
    wm, wk = pieces.get("W", (set(), set()))
    bm, bk = pieces.get("B", (set(), set()))
    both = (wm | wk) & (bm | bk)
    if both:
        names = ", ".join(square_name(rules, i) for i in sorted(both))
        raise InvalidFenError(f"square(s) {names} hold pieces of both colours in FEN {fen!r}")
    _check_position(rules, g, wm, wk, bm, bk, fen)
    return ParsedFen(turn, frozenset(wm), frozenset(wk), frozenset(bm), frozenset(bk), clock, move_number)


def clip_text(text: str, limit: int = 40) -> str:
    """``repr`` of some text, shortened so that a huge input is not echoed whole."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def _counter(field: str, low: int, high: int, what: str, fen: str) -> int:
    """The number of an ``H``/``F`` field, range-checked before it reaches the int64 state."""
    digits = field[1:].strip()
    # ASCII digits only: str.isdigit() accepts superscripts that int() refuses.
    if not re.fullmatch(r"[0-9]+", digits):
        raise InvalidFenError(
            f"bad field {clip_text(field)} in FEN {clip_text(fen, 120)}: {field[0]} ({what}) must be a whole number"
        )
    # Compare lengths first: int() of thousands of digits is refused or slow.
    significant = digits.lstrip("0") or "0"
    value = int(significant) if len(significant) <= len(str(high)) else high + 1
    if not low <= value <= high:
        raise InvalidFenError(
            f"bad field {clip_text(field)} in FEN {clip_text(fen, 120)}: {field[0]} ({what}) must be at least {low} "
            f"and at most {high}"
        )
    return value


def _check_position(rules: Rules, g: Geometry, wm, wk, bm, bk, fen: str) -> None:
    """Refuse positions no game can reach: a man on its own crowning row, or more
    pieces than a side starts with."""
    # White's men are crowned on the top row (indices 0..H-1), Black's on the bottom row.
    for colour, men, row in (("White", wm, range(g.per_row)), ("Black", bm, range(g.squares - g.per_row, g.squares))):
        crowned = sorted(men & set(row))
        if crowned:
            name = square_name(rules, crowned[0])
            raise InvalidFenError(
                f"{colour} man on {name!r} in FEN {fen!r} stands on the row where {colour}'s men are crowned: "
                f"it would be a king (write K{name})"
            )
    limit = rules.men_per_side
    for colour, pieces in (("White", wm | wk), ("Black", bm | bk)):
        if len(pieces) > limit:
            raise InvalidFenError(
                f"{colour} has {len(pieces)} pieces in FEN {fen!r}; a side has at most {limit}, "
                f"the men it starts with on {rules.board_size}x{rules.board_size}"
            )


def write_fen(
    rules: Rules,
    turn: int,
    white_men,
    white_kings,
    black_men,
    black_kings,
    notation: str | None = None,
    clock: int | None = None,
    move_number: int | None = None,
) -> str:
    """A PDN FEN; squares in the variant's notation unless ``notation`` says otherwise."""
    notation = notation or rules.notation

    def listing(men, kings) -> str:
        items = [(i, False) for i in men] + [(i, True) for i in kings]
        if notation == "numeric":
            items.sort(key=lambda it: number_of_index(rules, it[0]))
        else:
            items.sort(key=lambda it: (_algebraic_file(rules, it[0]), -it[0]))
        return ",".join(("K" if k else "") + square_name(rules, i, notation) for i, k in items)

    fen = f"{'W' if turn == 0 else 'B'}:W{listing(white_men, white_kings)}:B{listing(black_men, black_kings)}"
    if clock is not None:
        fen += f":H{clock}"
    if move_number is not None:
        fen += f":F{move_number}"
    return fen


def start_fen(rules: Rules, notation: str | None = None) -> str:
    """FEN of the variant's start position."""
    g = geometry(rules.board_size)
    n = rules.men_per_side
    return write_fen(
        rules,
        int(rules.first_player),
        range(g.squares - n, g.squares),
        (),
        range(n),
        (),
        notation,
    )
