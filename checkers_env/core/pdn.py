"""Reading and writing PDN game files (Portable Draughts Notation, PDN 3.0).

A PDN file holds any number of games. Each game is a tag section of lines
``[Key "Value"]`` followed by move text and a result token::

    [Event "Club match"]
    [GameType "21"]
    1. 11-15 23-19 {a comment} 2. 8-11 ( 9-14 22x17 ) 22-17 $1 1-0

Read text, a path or a file with :func:`read_pdn`, replay (every move checked
against the rules) with :meth:`PdnGame.replay`, write a played
:class:`~checkers_env.core.board.Board` with :func:`game_to_pdn`, several
games with :func:`games_to_pdn`, and whole files (a path, atomically, or a
file object) with ``write_pdn(games, target)``::

    >>> from checkers_env.core import Board
    >>> board = Board("american")
    >>> _ = board.push("11-15"); _ = board.push("23-19")
    >>> text = game_to_pdn(board, tags={"Event": "demo"})
    >>> print(text, end="")
    [Event "demo"]
    [GameType "21,B,8,8,N1,0"]
    [Result "*"]
    <BLANKLINE>
    1. 11-15 23-19 *
    >>> read_pdn(text)[0].replay().fen() == board.fen()
    True

What the reader accepts: comments ``{...}`` and ``;`` to the end of the line,
``%`` escape lines, variations ``( ... )`` (nested, skipped), move numbers
``1.`` and ``1...``, NAGs ``$1``, move suffixes ``!`` and ``?``, and the result
tokens ``1-0 0-1 1/2-1/2 2-0 0-2 1-1 *``. The ``GameType`` tag's first
number chooses the variant (PDN's default, 21, when the tag is absent); the
numbers come from ``Rules.pdn_game_type`` of the named variants.

Real archives also hold two things this reader accepts:

* squares padded with spaces after a separator, ``1- 7`` or ``28x 17`` (some
  exporters, Turbo Dambase among them, pad squares to two columns). Not PDN
  3.0, so ``strict=True`` refuses them; moves are stored without the spaces.
* a ``FEN`` tag whose side to move is ``?`` (PDN 3.0: unknown). Replaying
  gives the move to the side whose piece stands on the first move's start
  square, or, in a game without moves, to the variant's first player.

The reader goes game by game: a game it cannot read is left out and
reported in the ``errors`` of the returned list (:class:`PdnGames`), each an
:class:`InvalidPdnError` with the game's number in the file and the line,
and the following games are still read; ``read_pdn(text, strict=True)``
raises at the first such error instead::

    >>> games = read_pdn('[Event "a"] 1. 11-15 oops 23-19 *\\n[Event "b"]\\n1. 9-13 *')
    >>> [g.tags["Event"] for g in games], [(e.game_number, e.line) for e in games.errors]
    (['b'], [(1, 1)])

Results are written with the score of the side that moves first first, as
each variant's PDN files do: in american and pool, where Black moves first,
``1-0`` means Black won (English-checkers PDN: CheckerBoard's files, the ACF
archives; pool follows its ``GameType`` "23,B,...", which names Black as the
first colour); in every other variant ``1-0`` means White won. Reading uses
the same convention (:attr:`PdnGame.winner`), and :func:`pdn_result` /
:func:`winner_of_result` convert between winners and tokens.

Rule overrides of a board (e.g. ``forced_capture=False``) have no PDN tag: pass
the same :class:`Rules` to :meth:`PdnGame.replay` to replay such games.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .board import Board
from .colors import Color
from .errors import IllegalMoveError, InvalidFenError, InvalidPdnError, InvalidSquareError
from .files import atomic_write
from .notation import clip_text, parse_fen, parse_square
from .variants import VARIANTS, Rules, get_rules

__all__ = [
    "PdnGame",
    "PdnGames",
    "read_pdn",
    "game_to_pdn",
    "write_pdn",
    "games_to_pdn",
    "variant_of_game_type",
    "pdn_result",
    "winner_of_result",
    "RESULTS",
]

RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*")
"""Result tokens PDN 3.0 allows (``2-0``/``0-2``/``1-1`` count tournament points)."""

DEFAULT_GAME_TYPE = 21
"""The GameType PDN assumes when a game has no ``GameType`` tag (American checkers)."""

LINE_WIDTH = 80
"""Move text lines written by :func:`game_to_pdn` are at most this wide."""


def _game_type_number(value: str) -> int | None:
    head = value.split(",", 1)[0].strip()
    # ASCII digits, few of them: str.isdigit() accepts superscripts that int() refuses,
    # and int() refuses thousands of digits.
    return int(head) if re.fullmatch(r"[0-9]{1,6}", head) else None


def _game_types() -> dict[int, str]:
    # First number of each named variant's GameType: the only place the
    # mapping comes from, so a new variant in variants.py is read here too.
    table: dict[int, str] = {}
    for name, rules in VARIANTS.items():
        number = _game_type_number(rules.pdn_game_type)
        if number is not None:
            table.setdefault(number, name)
    return table


def variant_of_game_type(value: str | int | None) -> str:
    """The variant name of a ``GameType`` tag value (``"20"``, ``"21,B,8,8,N1,0"``, ``25``).

    ``None`` gives PDN's default, 21. Raises :class:`InvalidPdnError` for a
    number no named variant has.
    """
    number = DEFAULT_GAME_TYPE if value is None else _game_type_number(str(value))
    table = _game_types()
    if number not in table:
        known = ", ".join(f"{n} ({v})" for n, v in sorted(table.items()))
        raise InvalidPdnError(
            f"GameType {clip_text(str(value))} is not a supported variant; supported GameTypes: {known}"
        )
    return table[number]


def pdn_result(variant: str | Rules, winner: Color | None) -> str:
    """The PDN result token of a finished game: the first player's score first.

    ``pdn_result("american", BLACK) == "1-0"``, ``pdn_result("russian", WHITE)
    == "1-0"``; ``None`` (a draw) gives ``"1/2-1/2"``.
    """
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == get_rules(variant).first_player else "0-1"


def winner_of_result(variant: str | Rules, result: str) -> Color | None:
    """The winner a result token names in a variant's PDN, or None (a draw or ``"*"``).

    ``1-0`` and ``2-0`` are wins for the side that moves first (Black in
    american and pool). Raises :class:`InvalidPdnError` for a token not in
    :data:`RESULTS`.
    """
    if result not in RESULTS:
        raise InvalidPdnError(f"result must be one of {', '.join(RESULTS)}, got {clip_text(str(result))}")
    if result in ("1-0", "2-0"):
        return get_rules(variant).first_player
    if result in ("0-1", "0-2"):
        return get_rules(variant).first_player.other
    return None


@dataclass
class PdnGame:
    """One game of a PDN file.

    ``tags`` keeps the order of the file; ``moves`` is the main line's move
    text as written (``"11-15"``, ``"c3:e5"``), without move numbers,
    comments, NAGs or variations; ``result`` is one of :data:`RESULTS`.
    """

    tags: dict[str, str] = field(default_factory=dict)
    """Tag pairs in file order, e.g. ``{"Event": "...", "GameType": "20"}``."""
    moves: list[str] = field(default_factory=list)
    """Move text of the main line, one entry per ply."""
    result: str = "*"
    """The result token that ends the move text."""
    number: int = 1
    """Position of the game in its file (1-based), used in error messages."""
    line: int | None = None
    """Line of the file where the game begins (1-based), when read from a file."""
    move_lines: list[int] = field(default_factory=list, repr=False, compare=False)
    """Line of the file of each entry of :attr:`moves`, when read from a file."""

    @property
    def winner(self) -> Color | None:
        """The winner :attr:`result` names, read in the variant's convention (``1-0``
        is a win for Black in american and pool); None for a draw or ``"*"``."""
        return winner_of_result(self.variant, self.result)

    @property
    def variant(self) -> str:
        """The variant named by the ``GameType`` tag (21, american, when absent)."""
        try:
            return variant_of_game_type(self.tags.get("GameType"))
        except InvalidPdnError as exc:
            raise self._error(f"{self._name()}: {exc}") from None

    def _error(self, message: str, ply: int | None = None) -> InvalidPdnError:
        """An error about this game, carrying its number and the line of ``ply`` (or of the game)."""
        line = self.line
        if ply is not None and 0 < ply <= len(self.move_lines):
            line = self.move_lines[ply - 1]
        return InvalidPdnError(message, game_number=self.number, line=line)

    def _name(self) -> str:
        who = " vs ".join(self.tags[k] for k in ("White", "Black") if self.tags.get(k))
        return f"game {self.number}" + (f" ({who})" if who else "")

    def _start_board(self, variant: str | Rules | None) -> Board:
        rules = get_rules(self.variant if variant is None else variant)
        fen = self.tags.get("FEN")
        try:
            if fen is not None and parse_fen(rules, fen).turn is None:
                # '?' (PDN 3.0: side to move unknown) is the first "?" of the text.
                fen = fen.replace("?", "WB"[_side_to_move(rules, parse_fen(rules, fen), self.moves)], 1)
            return Board(rules, fen=fen)
        except InvalidFenError as exc:
            raise self._error(f"{self._name()}: bad FEN tag: {exc}") from None

    def replay(self, variant: str | Rules | None = None) -> Board:
        """A board with every move of the game played, each checked for legality.

        ``variant`` (a name or :class:`Rules`) overrides the ``GameType`` tag.
        The game starts from the ``FEN`` tag when there is one. Raises
        :class:`InvalidPdnError` naming the game, the ply and the move when a
        move is malformed, ambiguous or illegal.
        """
        board = self._start_board(variant)
        for ply, text in enumerate(self.moves, start=1):
            try:
                move = _parse_move(board, text)
            except IllegalMoveError as exc:
                raise self._error(f"{self._name()}, ply {ply}, move {clip_text(text)}: {exc}", ply) from None
            board.push(move)
        return board

    def to_pdn(self) -> str:
        """The game as PDN text: tags, a blank line, numbered move text wrapped at
        :data:`LINE_WIDTH` columns, and the result."""
        lines = [f'[{key} "{_escape(value)}"]' for key, value in self.tags.items()]
        number, second_first = self._numbering()
        units: list[str] = []
        for i, text in enumerate(self.moves):
            # A "move" is one ply of each side; the first player's ply carries
            # its number, a game that starts with the second player uses "n...".
            by_first = (i % 2 == 0) != second_first
            if by_first:
                units.append(f"{number}. {text}")
            elif i == 0:
                units.append(f"{number}... {text}")
            else:
                units.append(text)
            if not by_first:
                number += 1
        units.append(self.result)
        text = "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(_wrap(units, LINE_WIDTH))
        return text + "\n"

    def _numbering(self) -> tuple[int, bool]:
        """(number of the first move, whether the second player makes the first ply)."""
        fen = self.tags.get("FEN")
        if not fen:
            return 1, False
        try:
            rules = get_rules(self.variant)
            parsed = parse_fen(rules, fen)
        except (InvalidFenError, InvalidPdnError):
            return 1, False
        turn = parsed.turn if parsed.turn is not None else _side_to_move(rules, parsed, self.moves)
        return (parsed.move_number or 1), turn != rules.first_player


def _side_to_move(rules: Rules, parsed, moves: list[str]) -> int:
    """The side to move (0 White, 1 Black) of a FEN that gives '?': the owner of the
    piece on the first move's start square, else the variant's first player."""
    if moves:
        head = re.split(r"[-x:×]", moves[0], maxsplit=1)[0].strip()
        try:
            start = parse_square(rules, head)
        except InvalidSquareError:
            start = None
        if start in parsed.white_men or start in parsed.white_kings:
            return 0
        if start in parsed.black_men or start in parsed.black_kings:
            return 1
    return int(rules.first_player)


def _parse_move(board: Board, text: str):
    """``board.parse_move`` with PDN move suffixes (``!``, ``?``, ``+``) removed."""
    return board.parse_move(text.rstrip("!?+").strip())


def _escape(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def _wrap(units: list[str], width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > width:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    if line:
        lines.append(line)
    return lines


# ------------------------------------------------------------------ reading

_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_RESULT_RE = re.compile(r"(1/2-1/2|1-0|0-1|2-0|0-2|1-1|\*)(?=[\s\[{(;]|$)")
_NUMBER_RE = re.compile(r"\d+\s*\.+")
_NAG_RE = re.compile(r"\$\d+")
_MOVE_RE = re.compile(r"[a-jA-J]?\d+(?:[-x:×][a-jA-J]?\d+)+[!?+]*(?=[\s\[{(;)$]|$)")
# Not PDN 3.0 but common in exports (Turbo Dambase pads squares to two columns):
# spaces after a separator, "1- 7", "28x 17". Read unless strict.
_PADDED_MOVE_RE = re.compile(r"[a-jA-J]?\d+(?:[-x:×][ \t]*[a-jA-J]?\d+)+[!?+]*(?=[\s\[{(;)$]|$)")
_DOTS_RE = re.compile(r"\.+")
_WORD_RE = re.compile(r"\S+")


class PdnGames(list):
    """The games :func:`read_pdn` read (a ``list`` of :class:`PdnGame`), with
    :attr:`errors`: one :class:`InvalidPdnError` per game that could not be
    read, in file order, each with ``game_number`` and ``line`` set."""

    def __init__(self, games=(), errors=()):
        super().__init__(games)
        self.errors: list[InvalidPdnError] = list(errors)


class _Unreadable(Exception):
    """Raised inside :func:`read_pdn` at a token it cannot read: ``at`` is its
    offset, ``game_number`` the game's, ``in_moves`` whether the game's move
    text had begun (where to resume depends on it)."""

    def __init__(self, at: int, what: str):
        super().__init__(what)
        self.at = at
        self.what = what
        self.game_number = 0
        self.in_moves = False


def read_pdn(source, *, strict: bool = False, encoding: str | None = None) -> PdnGames:
    """Every game of a PDN file, in order, read game by game.

    ``source`` is PDN text (a ``str``), a path (``os.PathLike``, e.g.
    :class:`pathlib.Path`), a file object opened in text or binary mode, or
    ``bytes``. A ``str`` is always the text itself: pass a path as a
    :class:`pathlib.Path`. Bytes are decoded with ``encoding``; by default as
    UTF-8 (a byte order mark is dropped), and, when they are not UTF-8, as
    Windows-1252, the encoding of older archives.

    A game that cannot be read (a bad tag, an unclosed comment or variation,
    a token that is neither a move, a move number, a NAG nor a result, such
    as a comment written without braces) is left out and reported in the
    returned list's ``errors``: an :class:`InvalidPdnError` naming the game's
    number in the file and the line, also as its ``game_number`` and
    ``line`` attributes. The rest of a bad game, up to the next line that
    begins a tag section after its move text, is skipped, and reading goes
    on with the next game; a bad game keeps its number, so the numbers of the
    games read are their positions in the file. ``strict=True`` raises the
    first such error instead, and reads PDN 3.0 only (no squares padded with
    spaces, see the module docstring).

    Games are not replayed here (see :meth:`PdnGame.replay`), so this reads
    games of any variant, and a move that is illegal is found only then.
    """
    text = _pdn_text(source, encoding)
    games = PdnGames()
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(at: int) -> int:
        return bisect.bisect_left(newlines, at) + 1

    number = 1
    pos = 0
    while True:
        try:
            pos = _read_games(text, pos, number, games, line_of, strict)
            return games
        except _Unreadable as bad:
            line = line_of(bad.at)
            number = bad.game_number
            error = InvalidPdnError(f"game {number}, line {line}: {bad.what}", game_number=number, line=line)
            if strict:
                raise error from None
            games.errors.append(error)
            pos = _next_game(text, bad.at, bad.in_moves)
            number += 1


def _pdn_text(source, encoding: str | None) -> str:
    """The text of whatever :func:`read_pdn` was given."""
    if isinstance(source, str):
        name = source.strip()
        if name and "\n" not in name and not name.startswith("[") and os.path.isfile(name):
            # A file name read as PDN text would be one bad game: say what was meant.
            raise InvalidPdnError(
                f"read_pdn reads a str as PDN text, and {clip_text(name)} names a file: "
                f"to read the file, pass Path({name!r}) or an open file"
            )
        return source
    if isinstance(source, os.PathLike):
        with open(source, "rb") as fh:
            data = fh.read()
    elif hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            return data
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        raise InvalidPdnError(f"read_pdn reads PDN text, a path, a file object or bytes, got {type(source).__name__}")
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidPdnError(f"the PDN file object's read() gave {type(data).__name__}, not str or bytes")
    if encoding is not None:
        try:
            return bytes(data).decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise InvalidPdnError(f"PDN bytes are not {encoding}: {exc}") from None
    try:
        return bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError:
        return bytes(data).decode("cp1252", errors="replace")


def _read_games(text: str, pos: int, number: int, games: list, line_of, strict: bool) -> int:
    """Read games from ``pos`` to the end, appending them; raise :class:`_Unreadable`
    (with the game's number and whether its move text had begun) at the first bad token."""
    game = PdnGame(number=number)
    in_moves = False  # whether the current game's move text has begun
    n = len(text)

    def fail(at: int, what: str, in_move_text: bool = False):
        bad = _Unreadable(at, what)
        bad.game_number = game.number
        bad.in_moves = in_moves or in_move_text
        raise bad

    def begin(at: int) -> None:
        if game.line is None:
            game.line = line_of(at)

    def finish(result: str | None) -> None:
        nonlocal game, in_moves
        game.result = result if result is not None else game.tags.get("Result", "*")
        games.append(game)
        game = PdnGame(number=game.number + 1)
        in_moves = False

    while pos < n:
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif ch == "%" and (pos == 0 or text[pos - 1] == "\n"):
            pos = _end_of_line(text, pos)
        elif ch == ";":
            pos = _end_of_line(text, pos)
        elif ch == "{":
            end = text.find("}", pos)
            if end < 0:
                fail(pos, "comment '{' is never closed")
            pos = end + 1
        elif ch == "(":
            pos = _skip_variation(text, pos, lambda at, what: fail(at, what, True))
        elif ch == ")":
            fail(pos, "')' closes no variation", True)
        elif ch == "[":
            m = _TAG_RE.match(text, pos)
            if not m:
                snippet = text[pos : _end_of_line(text, pos)].strip()
                fail(pos, f'bad tag {clip_text(snippet)}: expected [Key "Value"]')
            if in_moves:  # a tag after move text without a result starts the next game
                finish(None)
            begin(pos)
            game.tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
            pos = m.end()
        else:
            kind, m = _match_token(text, pos, strict)
            if m is None:
                token = _WORD_RE.match(text, pos).group(0)
                fail(
                    pos,
                    f"unexpected {clip_text(token)}: expected a move such as '11-15', a move number, or a result",
                    True,
                )
            begin(pos)
            if kind == "result":
                finish(m.group(1))
            elif kind == "move":
                game.moves.append(re.sub(r"[ \t]+", "", m.group(0)))
                game.move_lines.append(line_of(pos))
                in_moves = True
            elif kind != "dots":
                in_moves = True
            pos = m.end()
    if in_moves or game.tags:
        finish(None)
    return pos


def _next_game(text: str, at: int, in_moves: bool) -> int:
    """Where reading resumes after an unreadable token at ``at``: the next line that
    begins with a tag once the bad game's move text has been passed."""
    pos = _end_of_line(text, at)
    seen_moves = in_moves
    while pos < len(text):
        end = _end_of_line(text, pos)
        line = text[pos:end].strip()
        if line.startswith("[") and seen_moves and _TAG_RE.match(line):
            return pos + (len(text[pos:end]) - len(text[pos:end].lstrip()))
        if line and not line.startswith(("[", "%", ";")):
            seen_moves = True
        pos = end
    return len(text)


_TOKENS = (("result", _RESULT_RE), ("number", _NUMBER_RE), ("nag", _NAG_RE), ("move", _MOVE_RE), ("dots", _DOTS_RE))
_LENIENT_TOKENS = tuple((kind, _PADDED_MOVE_RE if kind == "move" else regex) for kind, regex in _TOKENS)


def _match_token(text: str, pos: int, strict: bool = True):
    """``(kind, match)`` of the move-text token at ``pos``, or ``(None, None)``.

    Results are tried before moves and numbers before moves, so ``1-0`` is a
    result and ``12.`` a move number, never a move. Unless ``strict``, moves
    may have spaces after a separator.
    """
    for kind, regex in _TOKENS if strict else _LENIENT_TOKENS:
        m = regex.match(text, pos)
        if m:
            return kind, m
    return None, None


def _end_of_line(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end + 1


def _skip_variation(text: str, pos: int, fail) -> int:
    """Position just after the variation that opens at ``pos`` (nested, with comments)."""
    depth = 0
    start = pos
    while pos < len(text):
        ch = text[pos]
        if ch == "{":
            end = text.find("}", pos)
            if end < 0:
                fail(pos, "comment '{' is never closed")
            pos = end + 1
            continue
        if ch == ";":
            pos = _end_of_line(text, pos)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    fail(start, "variation '(' is never closed")
    return pos


# ------------------------------------------------------------------ writing


def game_to_pdn(board: Board, tags: dict[str, str] | None = None, result: str | None = None) -> str:
    """The game played on ``board`` (its move stack) as PDN text.

    ``tags`` come first, in their order; ``GameType`` (from the board's rules),
    ``FEN`` (only when the game did not begin at the start position) and
    ``Result`` are set from the board. ``result`` defaults to
    ``board.result()`` (``"*"`` for a game still going on); one given is
    written as it is, so it must follow the variant's convention (the first
    player's score first: see :func:`pdn_result`).
    """
    if result is None:
        result = board.result()
    if result not in RESULTS:
        raise InvalidPdnError(f"result must be one of {', '.join(RESULTS)}, got {result!r}")
    start = board.copy()
    while start.move_stack:
        start.pop()
    out = dict(tags or {})
    out["GameType"] = board.rules.pdn_game_type
    if start == Board(board.rules) and start.halfmove_clock == 0 and start.ply == 0:
        out.pop("FEN", None)
    else:
        with_clock = start.halfmove_clock != 0 or start.ply != 0
        out["FEN"] = start.fen(clock=with_clock)
    out["Result"] = result
    game = PdnGame(tags=out, moves=[str(m) for m in board.move_stack], result=result)
    return game.to_pdn()


def games_to_pdn(games: Iterable[PdnGame | Board | str] | PdnGame | Board | str) -> str:
    """Games as the text of a PDN file: each game's PDN, a blank line between games.

    ``games`` holds :class:`PdnGame`, played :class:`Board` (as
    :func:`game_to_pdn` writes it) or PDN text, or is a single one of them.
    """
    if isinstance(games, (PdnGame, Board, str)):
        games = [games]
    parts = []
    for game in games:
        if isinstance(game, PdnGame):
            parts.append(game.to_pdn())
        elif isinstance(game, Board):
            parts.append(game_to_pdn(game))
        elif isinstance(game, str):
            parts.append(game if game.endswith("\n") else game + "\n")
        else:
            raise TypeError(f"write_pdn takes PdnGame, Board or str games, got {type(game).__name__}")
    return "\n".join(parts)


def write_pdn(games, target, *, encoding: str = "utf-8") -> None:
    """Write games to ``target``: a path (``str`` or ``os.PathLike``) or a text file object.

    ``games`` is what :func:`games_to_pdn` takes. A path is written through a
    temporary file in the same folder, flushed to disk and moved into place
    with :func:`os.replace`: readers see the old file or the whole new one,
    and an error leaves no half-written file (and the old file as it was).
    The new file keeps the permissions of the one it replaces (a new one
    gets the usual ``0o666`` less the umask). The text is built before
    anything is written, so a game that cannot be written (``TypeError``)
    changes nothing.

    The older form ``write_pdn(path, games)`` is still accepted.
    """
    if _is_path(games) and not _is_path(target) and not hasattr(target, "write"):
        games, target = target, games  # write_pdn(path, games), the form before games came first
    text = games_to_pdn(games)
    if hasattr(target, "write"):
        target.write(text)
        return
    if not _is_path(target):
        raise TypeError(f"write_pdn writes to a path or a text file object, got {type(target).__name__}")
    atomic_write(target, text.encode(encoding))


def _is_path(thing) -> bool:
    return isinstance(thing, (str, os.PathLike))
