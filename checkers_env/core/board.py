"""``Board`` and ``Move``: the object people use, in the style of python-chess.

    >>> from checkers_env.core import Board
    >>> board = Board("american")
    >>> len(board.legal_moves())
    7
    >>> board.push("11-15")
    Move('11-15')
    >>> board.fen()
    'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15'
    >>> board.pop()
    Move('11-15')

Squares in code are 0-based indices (see geometry.py); text uses each
variant's notation (see notation.py).
"""

from __future__ import annotations

import enum
import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import movegen as mg
from .colors import BLACK, WHITE, Color
from .errors import AmbiguousMoveError, EmptyMoveStackError, IllegalMoveError, InvalidFenError, InvalidSquareError
from .geometry import geometry
from .notation import clip_text, parse_fen, parse_square, square_name, start_fen, write_fen
from .variants import Rules, get_rules

__all__ = ["Board", "Move", "Color", "Outcome", "Termination", "WHITE", "BLACK"]


class Termination(enum.Enum):
    """Why a game ended."""

    NO_LEGAL_MOVES = "no legal moves"
    """The side to move has no piece that can move: it loses."""
    DRAW_RULE = "draw rule"
    """``Rules.draw_plies`` plies in a row without capture (or promotion)."""
    REPETITION = "repetition"
    """The same position occurred ``Rules.repetition_draw`` times (optional rule)."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` is None for a draw."""

    termination: Termination
    winner: Color | None
    first_player: Color = field(default=WHITE, compare=False)
    """The side that moves first in the variant, whose score PDN writes first
    (Black in american and pool). :meth:`Board.outcome` sets it."""

    def result(self) -> str:
        """PDN result text, the first player's score first: ``"1-0"`` (the first
        player won), ``"0-1"`` or ``"1/2-1/2"``.

        English-checkers PDN (american, and pool, where Black moves first)
        writes ``1-0`` for a win by Black; every other variant for a win by White.
        """
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == self.first_player else "0-1"


@dataclass(frozen=True, eq=False)
class Move:
    """A whole move: one step, or a capture of one or more legs.

    Two moves are equal when they have the same start, end, captured set and
    promotion, whatever route they take (the "drop duplicates" convention).
    """

    start: int
    """Index of the square the piece leaves."""
    end: int
    """Index of the square where it stops."""
    path: tuple[int, ...]
    """Indices where each leg lands; ``path[-1] == end``."""
    captures: tuple[int, ...]
    """Indices of the captured pieces, in the order they are jumped."""
    promotes: bool
    """Whether a man ends the move as a king."""
    text: str = field(default="", compare=False)
    """PDN text in the board's notation, with intermediate squares only where
    needed to tell two legal moves apart."""

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    def key(self) -> tuple:
        """What makes a move unique: (start, end, captured set, promotes)."""
        return (self.start, self.end, frozenset(self.captures), self.promotes)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __str__(self) -> str:
        return self.text or f"{self.start}{'x' if self.captures else '-'}{self.end}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


class Board:
    """A draughts position with its move history.

    ``Board(variant="american", fen=None, **rule_overrides)``: ``variant`` is a
    name (see :func:`~checkers_env.core.variants.get_rules`) or a
    :class:`Rules`; keyword arguments override rule fields, e.g.
    ``forced_capture=False``. ``fen`` defaults to the start position.
    """

    def __init__(self, variant: str | Rules = "american", fen: str | None = None, **rule_overrides):
        self.rules: Rules = get_rules(variant, **rule_overrides)
        """The rules in force (a frozen :class:`Rules`)."""
        self._geometry = geometry(self.rules.board_size)
        self._params = _params_of(self.rules)
        self._stack: list[tuple[Move, np.ndarray]] = []
        self._legal: list[Move] | None = None
        if fen is None:
            self._state = _start_state(self.rules).copy()
            self._repetitions: Counter = Counter([self._position_key()])
        else:
            self.set_fen(fen)

    # ------------------------------------------------------------------ state

    def set_fen(self, fen: str) -> None:
        """Set up the position of a FEN and clear the move stack."""
        parsed = parse_fen(self.rules, fen)
        if parsed.turn is None:
            raise InvalidFenError(
                f"FEN {fen!r} leaves the side to move unknown ('?'); a board needs 'W' or 'B' "
                "(PdnGame.replay infers it from the game's first move)"
            )
        g = self._geometry
        state = np.zeros(mg.STATE_SIZE, dtype=np.int64)
        state[mg.S_WHITE] = g.bits(parsed.white_men | parsed.white_kings)
        state[mg.S_BLACK] = g.bits(parsed.black_men | parsed.black_kings)
        state[mg.S_KINGS] = g.bits(parsed.white_kings | parsed.black_kings)
        state[mg.S_TURN] = parsed.turn
        state[mg.S_CLOCK] = parsed.clock or 0
        if parsed.move_number:
            state[mg.S_PLY] = 2 * (parsed.move_number - 1) + (1 if parsed.turn != self.rules.first_player else 0)
        self._state = state
        self._stack.clear()
        self._legal = None
        self._repetitions = Counter([self._position_key()])

    @classmethod
    def from_state(cls, variant: str | Rules, state: np.ndarray, **rule_overrides) -> Board:
        """A board holding a copy of a raw ``state`` array (see movegen.py)."""
        board = cls(variant, **rule_overrides)
        state = np.asarray(state)
        if state.shape != (mg.STATE_SIZE,):
            raise ValueError(f"a state is int64[{mg.STATE_SIZE}] (movegen.py), got shape {state.shape}")
        board._state = np.array(state, dtype=np.int64, copy=True)
        board._repetitions = Counter([board._position_key()])
        return board

    @property
    def state(self) -> np.ndarray:
        """A copy of the raw state array (``int64[8]``, layout in movegen.py)."""
        return self._state.copy()

    @property
    def params(self) -> np.ndarray:
        """The rule parameters array the numba kernels read."""
        return self._params

    @property
    def turn(self) -> Color:
        """The side to move."""
        return Color(int(self._state[mg.S_TURN]))

    @property
    def ply(self) -> int:
        """Plies played since the start position (or as the FEN's move number says)."""
        return int(self._state[mg.S_PLY])

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture (or promotion, on 8x8): the draw counter."""
        return int(self._state[mg.S_CLOCK])

    @property
    def move_stack(self) -> list[Move]:
        """Moves played on this board, oldest first."""
        return [m for m, _ in self._stack]

    def _position_key(self) -> tuple[int, int, int, int]:
        s = self._state
        return (int(s[mg.S_WHITE]), int(s[mg.S_BLACK]), int(s[mg.S_KINGS]), int(s[mg.S_TURN]))

    def pieces(self, color: Color, kings: bool | None = None) -> list[int]:
        """Indices of ``color``'s pieces: all (``kings=None``), only kings, or only men."""
        bits = int(self._state[mg.S_WHITE if color == WHITE else mg.S_BLACK])
        k = int(self._state[mg.S_KINGS])
        if kings is True:
            bits &= k
        elif kings is False:
            bits &= ~k
        return self._geometry.indices(bits)

    def piece_at(self, square: int | str) -> tuple[Color, bool] | None:
        """``(colour, is_king)`` of the piece on a square (index or text), or None."""
        index = self.parse_square(square) if isinstance(square, str) else int(square)
        if not 0 <= index < self.rules.squares:
            raise InvalidSquareError(f"square index {index} is off the board (0-{self.rules.squares - 1})")
        bit = 1 << int(self._geometry.bit_of_index[index])
        is_king = bool(int(self._state[mg.S_KINGS]) & bit)
        if int(self._state[mg.S_WHITE]) & bit:
            return (WHITE, is_king)
        if int(self._state[mg.S_BLACK]) & bit:
            return (BLACK, is_king)
        return None

    # ------------------------------------------------------------------ moves

    def legal_moves(self) -> list[Move]:
        """The legal whole moves, in a fixed order (a new list each call)."""
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def _generate(self) -> list[Move]:
        s = self._state
        buffer, scratch = _work_buffers()
        n = mg.generate_moves(s[mg.S_WHITE], s[mg.S_BLACK], s[mg.S_KINGS], s[mg.S_TURN], self._params, buffer, scratch)
        if n < 0:
            raise mg.MoveBufferOverflow(f"move buffer overflow in position {self.fen()}")
        g = self._geometry
        idx = g.index_of_bit
        raw = []
        for row in buffer[:n]:
            legs = int(row[mg.M_LEGS])
            start = int(idx[row[mg.M_FROM]])
            path = tuple(int(idx[b]) for b in row[mg.M_PATH : mg.M_PATH + legs])
            captured_bits = int(row[mg.M_CAPT])
            captures: tuple[int, ...] = ()
            if captured_bits:
                captured = set(g.indices(captured_bits))
                order = []
                at = start
                for land in path:
                    hit = [sq for sq in g.between(at, land) if sq in captured]
                    order.extend(hit)
                    at = land
                captures = tuple(order)
            raw.append((start, path, captures, bool(row[mg.M_PROMO])))
        return self._with_text(raw)

    def _with_text(self, raw) -> list[Move]:
        by_ends = Counter((start, path[-1]) for start, path, _, _ in raw)
        moves = []
        for start, path, captures, promotes in raw:
            sep = "x" if captures else "-"
            squares = [start, *path] if by_ends[(start, path[-1])] > 1 else [start, path[-1]]
            text = sep.join(square_name(self.rules, i) for i in squares)
            moves.append(Move(start, path[-1], path, captures, promotes, text))
        return moves

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def parse_square(self, text: str) -> int:
        """Index of a square given as text in this variant's numbering or algebraically."""
        return parse_square(self.rules, text)

    def parse_move(self, text: str) -> Move:
        """The legal move that PDN text names.

        ``"11-15"``, ``"22x15"``, ``"c3-d4"``, ``"c3:e5"``; intermediate squares
        (``"1x10x19"``) pick one of several captures between the same squares.
        Written intermediate squares may follow any route of the move, not only
        the one :attr:`Move.path` keeps: a flying king's other landing squares
        between two captured pieces, a circular capture round the loop the other
        way. They are matched in order against each route, and need not name
        every landing square. Text that names every landing square of one move
        is that move even where it is also part of a longer capture's route.
        Raises :class:`IllegalMoveError`, or :class:`AmbiguousMoveError` when
        the text fits routes of more than one legal move.
        """
        if not isinstance(text, str) or not text.strip():
            raise IllegalMoveError(f"move text must be a non-empty string, got {text!r} in position {self.fen()}")
        parts = [p for p in _split_move(text.strip())]
        if len(parts) < 2:
            raise IllegalMoveError(
                f"move text {clip_text(text)} must name at least two squares, like '11-15' or '22x15' "
                f"(position {self.fen()})"
            )
        try:
            squares = [self.parse_square(p) for p in parts]
        except InvalidSquareError as exc:
            raise IllegalMoveError(f"bad move text {clip_text(text)}: {exc} (position {self.fen()})") from None
        start, end, middle = squares[0], squares[-1], squares[1:-1]
        candidates = [m for m in self.legal_moves() if m.start == start and m.end == end]
        if middle and candidates:
            kept = [m for m in candidates if _is_subsequence(middle, m.path[:-1])]
            if len(candidates) > 1 or not kept:
                # Only now ask the generator for every route: most text matches the kept one.
                routes = self._routes()
                written = tuple(squares[1:])
                exact = [m for m in candidates if written in routes.get(m.key(), (m.path,))]
                if len(exact) == 1:
                    return exact[0]
                kept = [
                    m
                    for m in candidates
                    if any(_is_subsequence(middle, r[:-1]) for r in routes.get(m.key(), (m.path,)))
                ]
            candidates = kept
        if not candidates:
            legal = ", ".join(str(m) for m in self.legal_moves()) or "none"
            raise IllegalMoveError(f"illegal move {clip_text(text)} in position {self.fen()}; legal moves: {legal}")
        if len(candidates) > 1:
            options = ", ".join("x".join(square_name(self.rules, i) for i in (m.start, *m.path)) for m in candidates)
            raise AmbiguousMoveError(
                f"move {clip_text(text)} is ambiguous in position {self.fen()}: it could be {options}; "
                "give the intermediate squares"
            )
        return candidates[0]

    def _routes(self) -> dict[tuple, set[tuple[int, ...]]]:
        """Every route (landing squares, as :attr:`Move.path`) of each legal move, by :meth:`Move.key`.

        The generator keeps one route per move; run with ``P_KEEP_ROUTES`` it
        emits each route that has the best priority key, i.e. every legal way of
        playing each legal move (italian's earliest-king rule can make some
        routes of the same captures illegal, and those are not emitted).
        """
        s = self._state
        g = self._geometry
        params = _params_with_routes(self.rules)
        scratch = mg.new_scratch()
        rows = mg.MAX_MOVES
        while True:
            buffer = np.zeros((rows, mg.MOVE_FIELDS), dtype=np.int64)
            n = mg.generate_moves(s[mg.S_WHITE], s[mg.S_BLACK], s[mg.S_KINGS], s[mg.S_TURN], params, buffer, scratch)
            if n >= 0:
                break
            if rows >= 64 * mg.MAX_MOVES:
                # Beyond any real position: match against the kept routes alone.
                return {}
            rows *= 4
        idx = g.index_of_bit
        routes: dict[tuple, set[tuple[int, ...]]] = {}
        for row in buffer[:n]:
            legs = int(row[mg.M_LEGS])
            path = tuple(int(idx[b]) for b in row[mg.M_PATH : mg.M_PATH + legs])
            key = (
                int(idx[row[mg.M_FROM]]),
                path[-1],
                frozenset(g.indices(int(row[mg.M_CAPT]))),
                bool(row[mg.M_PROMO]),
            )
            routes.setdefault(key, set()).add(path)
        return routes

    def push(self, move: Move | str) -> Move:
        """Play a legal move (a :class:`Move` or its text); return the move played."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif isinstance(move, Move):
            legal = self.legal_moves()
            if move not in legal:
                raise IllegalMoveError(
                    f"illegal move {move} in position {self.fen()}; legal moves: {', '.join(map(str, legal)) or 'none'}"
                )
            move = legal[legal.index(move)]
        else:
            raise IllegalMoveError(f"push() takes a Move or move text, got {type(move).__name__}")
        before = self._state.copy()
        g = self._geometry
        mg.apply_move(
            self._state,
            self._params,
            int(g.bit_of_index[move.start]),
            int(g.bit_of_index[move.end]),
            g.bits(move.captures),
            int(move.promotes),
            self._state,
        )
        self._stack.append((move, before))
        self._legal = None
        self._repetitions[self._position_key()] += 1
        return move

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._stack:
            raise EmptyMoveStackError(f"pop() from a board with no moves played (position {self.fen()})")
        self._repetitions[self._position_key()] -= 1
        move, before = self._stack.pop()
        self._state = before
        self._legal = None
        return move

    def peek(self) -> Move:
        """The last move played."""
        if not self._stack:
            raise EmptyMoveStackError(f"peek() on a board with no moves played (position {self.fen()})")
        return self._stack[-1][0]

    # ---------------------------------------------------------------- results

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on.

        The rules are judged in the order of :func:`~checkers_env.core.movegen.judge`
        (a side with no legal move loses, then the draw counter); then the
        optional repetition rule ends it drawn.
        """
        first = self.rules.first_player
        verdict = mg.judge.py_func(len(self.legal_moves()), self.halfmove_clock, self.rules.draw_plies)
        if verdict == mg.MOVER_LOSES:
            return Outcome(Termination.NO_LEGAL_MOVES, self.turn.other, first)
        if verdict == mg.DRAWN:
            return Outcome(Termination.DRAW_RULE, None, first)
        if self.rules.repetition_draw and self._repetitions[self._position_key()] >= self.rules.repetition_draw:
            return Outcome(Termination.REPETITION, None, first)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"`` while the game goes on.

        The first player's score comes first, as PDN writes it: ``"1-0"`` is a
        win for Black in american and pool, for White in the other variants
        (see :meth:`Outcome.result`).
        """
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result()

    # -------------------------------------------------------------- text I/O

    def fen(self, notation: str | None = None, clock: bool = False) -> str:
        """FEN of the position, in the variant's notation or ``notation``
        (``"numeric"`` / ``"algebraic"``); ``clock=True`` adds ``H`` and ``F`` fields."""
        s = self._state
        g = self._geometry
        k = int(s[mg.S_KINGS])
        w = int(s[mg.S_WHITE])
        b = int(s[mg.S_BLACK])
        move_number = None
        if clock:
            first = self.rules.first_player
            move_number = self.ply // 2 + 1 if int(s[mg.S_TURN]) == first else (self.ply + 1) // 2
            move_number = max(1, move_number)
        return write_fen(
            self.rules,
            int(s[mg.S_TURN]),
            g.indices(w & ~k),
            g.indices(w & k),
            g.indices(b & ~k),
            g.indices(b & k),
            notation,
            self.halfmove_clock if clock else None,
            move_number,
        )

    def square_name(self, index: int, notation: str | None = None) -> str:
        return square_name(self.rules, index, notation)

    def copy(self, stack: bool = True) -> Board:
        """An independent copy (with the move stack unless ``stack=False``)."""
        other = Board.__new__(Board)
        other.rules = self.rules
        other._geometry = self._geometry
        other._params = self._params
        other._state = self._state.copy()
        other._stack = list(self._stack) if stack else []
        other._legal = self._legal
        other._repetitions = Counter(self._repetitions) if stack else Counter([self._position_key()])
        return other

    def __copy__(self) -> Board:
        return self.copy()

    def __eq__(self, other) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.rules == other.rules and self._position_key() == other._position_key()

    def __hash__(self) -> int:
        return hash((self.rules, self._position_key()))

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.rules.overrides().items())
        return f"Board({self.rules.name!r}, fen={self.fen()!r}{extra})"

    def __str__(self) -> str:
        """The board as text from White's side: ``w``/``b`` men, ``W``/``B`` kings, ``.`` empty."""
        g = self._geometry
        rows = []
        for row in range(g.size):
            cells = []
            for file in range(g.size):
                index = g.index_at(row, file)
                if index is None:
                    cells.append(" ")
                    continue
                piece = self.piece_at(index)
                if piece is None:
                    cells.append(".")
                else:
                    cells.append(
                        ("w" if piece[0] == WHITE else "b").upper() if piece[1] else ("w" if piece[0] == WHITE else "b")
                    )
            rows.append(" ".join(cells))
        return "\n".join(rows)

    def _repr_svg_(self) -> str:
        from ..render.svg import board_to_svg  # rendering is reached lazily, as in python-chess

        return board_to_svg(self)


_WORK = threading.local()


@functools.lru_cache(maxsize=64)
def _params_of(rules: Rules) -> np.ndarray:
    """The kernels' parameter array of some rules, shared by every Board (never written)."""
    return mg.make_params(rules)


@functools.lru_cache(maxsize=64)
def _params_with_routes(rules: Rules) -> np.ndarray:
    """The kernels' parameters with every route of a move kept (for :meth:`Board.parse_move`)."""
    params = mg.make_params(rules)
    params[mg.P_KEEP_ROUTES] = 1
    return params


@functools.lru_cache(maxsize=64)
def _start_state(rules: Rules) -> np.ndarray:
    """The start position's state array (copied by each Board that uses it)."""
    return Board(rules, fen=start_fen(rules))._state


def _work_buffers() -> tuple[np.ndarray, np.ndarray]:
    """The move buffer and scratch words of this thread (256 KB, shared by every
    Board: moves are turned into Move objects before the next generation)."""
    pair = getattr(_WORK, "pair", None)
    if pair is None:
        pair = _WORK.pair = (mg.new_move_buffer(), mg.new_scratch())
    return pair


def _split_move(text: str) -> list[str]:
    """Squares of move text; an empty part (``"11--15"``) makes the text malformed."""
    parts = re.split(r"\s*[-x:×]\s*", text.lower())
    if any(not p for p in parts):
        return []
    return parts


def _is_subsequence(needle, haystack) -> bool:
    it = iter(haystack)
    return all(any(x == y for y in it) for x in needle)
