"""The numba move generator: whole moves, make-move, perft.

Everything here works on plain int64 scalars and arrays so that it compiles
with ``numba.njit(cache=True)`` and runs unchanged as Python when
``NUMBA_DISABLE_JIT=1`` (the pure-Python fallback is this same code).

Layouts (all ``int64``):

``state`` (``STATE_SIZE`` words) -- one position::

    [S_WHITE]  bitboard of White's pieces      (padded bits, see geometry.py)
    [S_BLACK]  bitboard of Black's pieces
    [S_KINGS]  bitboard of kings of either colour
    [S_TURN]   0 = White to move, 1 = Black to move
    [S_CLOCK]  plies since the last capture (or promotion, per the variant)
    [S_PLY]    plies played since the start position / FEN

``params`` (``PARAMS_SIZE`` words) -- the rules and board, from :func:`make_params`.

``moves`` (``[MAX_MOVES, MOVE_FIELDS]``) -- one row per whole move::

    [M_FROM] [M_TO]   bit positions of start and end square
    [M_CAPT]          bitboard of the captured pieces (0 for a plain move)
    [M_PROMO]         1 if the moving man ends the move as a king
    [M_KEY]           capture priority key (the precedence rules compare it)
    [M_LEGS]          number of legs (1 for a plain move, = pieces captured otherwise)
    [M_PATH + i]      bit position where leg i lands (i < M_LEGS)

Moves are unique by (start, end, captured set, promotes): a second route that
takes the same pieces to the same square is dropped as it is generated (the
published "drop duplicates" perft convention). Precedence rules are applied
as captures are generated: each capture gets a key whose order is the
variant's priority, and only captures with the best key are kept.
"""

from __future__ import annotations

import numpy as np

from .bits import lowest_bit, popcount
from .geometry import NE, NW, SE, SW, direction_shift, geometry, is_forward, on_board, opposite, shift, step
from .jit import kernel
from .variants import Rules

__all__ = [
    "STATE_SIZE",
    "MAX_MOVES",
    "MOVE_FIELDS",
    "make_params",
    "generate_moves",
    "apply_move",
    "perft_count",
    "count_moves",
    "new_move_buffer",
    "new_scratch",
    "MoveBufferOverflow",
    "has_capture",
    "count_plain_moves",
    "move_pieces",
    "judge",
    "ONGOING",
    "MOVER_LOSES",
    "DRAWN",
]

# state words
S_WHITE = 0
S_BLACK = 1
S_KINGS = 2
S_TURN = 3
S_CLOCK = 4
S_PLY = 5
STATE_SIZE = 8

# params words
P_H = 0
P_MASK = 1
P_PROMO_WHITE = 2
P_PROMO_BLACK = 3
P_MEN_BACK = 4
P_KINGS_FLY = 5
P_MEN_CAPTURE_KINGS = 6
P_KEY_MOST_PIECES = 7
P_KEY_KING_FIRST = 8
P_KEY_MOST_KINGS = 9
P_KEY_EARLIEST = 10
P_MID_PROMOTION = 11
P_FORCED = 12
P_REMOVE_AT_END = 13
P_DRAW_PLIES = 14
P_DRAW_RESET_PROMO = 15
P_KEEP_ROUTES = 16
PARAMS_SIZE = 20

# move fields
M_FROM = 0
M_TO = 1
M_CAPT = 2
M_PROMO = 3
M_KEY = 4
M_LEGS = 5
M_PATH = 6
MAX_LEGS = 26
MOVE_FIELDS = M_PATH + MAX_LEGS
MAX_MOVES = 1024

# scratch words (per generator call)
X_COUNT = 0  # moves written so far
X_BEST = 1  # best capture key so far
X_OVERFLOW = 2  # set when the move buffer or the path overflowed
X_PATH = 4  # path being built by the capture search

# capture-search stack frame fields (one frame per leg depth)
F_POS = 0  # square the piece stands on
F_KING = 1  # whether it moves as a king now
F_CAPT = 2  # pieces captured so far
F_ORDER = 3  # king-order bits of the captures so far
F_DIR = 4  # next direction to try
F_FOUND = 5  # some capture was possible from here
F_LAND = 6  # landing square being explored (current group)
F_LAST = 7  # one step past the last landing square of the group
F_FIRST = 8  # first landing square of the group
F_DELTA = 9  # direction shift of the group
F_ANY = 10  # some landing of the group continued the capture
F_NEXT_CAPT = 11  # captured set after this group's jump
F_NEXT_ORDER = 12
F_NEXT_KING = 13  # king flag the piece lands with
FRAME_FIELDS = 14
X_STACK = X_PATH + MAX_LEGS + 2
SCRATCH_SIZE = X_STACK + (MAX_LEGS + 1) * FRAME_FIELDS

# Mid-capture promotion modes (MidCapturePromotion values)
MID_ENDS = 0
MID_CONTINUES = 1
MID_AT_END_ONLY = 2


class MoveBufferOverflow(RuntimeError):
    """More moves (or legs) than the fixed buffers hold; never seen in real play."""


def make_params(rules: Rules) -> np.ndarray:
    """The ``params`` array the kernels read, from a :class:`Rules`."""
    g = geometry(rules.board_size)
    p = np.zeros(PARAMS_SIZE, dtype=np.int64)
    p[P_H] = g.per_row
    p[P_MASK] = g.mask
    p[P_PROMO_WHITE] = g.top_row_bits
    p[P_PROMO_BLACK] = g.bottom_row_bits
    p[P_MEN_BACK] = rules.men_capture_backwards
    p[P_KINGS_FLY] = rules.kings_fly
    p[P_MEN_CAPTURE_KINGS] = rules.men_capture_kings
    p[P_KEY_MOST_PIECES] = rules.capture_most_pieces
    p[P_KEY_KING_FIRST] = rules.capture_with_king_first
    p[P_KEY_MOST_KINGS] = rules.capture_most_kings
    p[P_KEY_EARLIEST] = rules.capture_kings_earliest
    p[P_MID_PROMOTION] = int(rules.mid_capture_promotion)
    p[P_FORCED] = rules.forced_capture
    p[P_REMOVE_AT_END] = rules.remove_captured_at_end
    p[P_DRAW_PLIES] = rules.draw_plies
    p[P_DRAW_RESET_PROMO] = rules.draw_counter_resets_on_promotion
    return p


def new_move_buffer(depth: int = 0) -> np.ndarray:
    """A move buffer: ``[MAX_MOVES, MOVE_FIELDS]``, or ``[depth, MAX_MOVES, MOVE_FIELDS]``."""
    shape = (MAX_MOVES, MOVE_FIELDS) if depth == 0 else (depth, MAX_MOVES, MOVE_FIELDS)
    return np.zeros(shape, dtype=np.int64)


def new_scratch() -> np.ndarray:
    return np.zeros(SCRATCH_SIZE, dtype=np.int64)


@kernel
def _emit_capture(params, moves, scratch, start, end, captured, promo, key, nlegs):
    if key < scratch[X_BEST]:
        return
    n = scratch[X_COUNT]
    if key > scratch[X_BEST]:
        n = 0
        scratch[X_BEST] = key
    if params[P_KEEP_ROUTES] == 0:
        for i in range(n):
            if (
                moves[i, M_TO] == end
                and moves[i, M_FROM] == start
                and moves[i, M_CAPT] == captured
                and moves[i, M_PROMO] == promo
            ):
                scratch[X_COUNT] = n
                return
    if n >= moves.shape[0] or nlegs > MAX_LEGS:
        scratch[X_OVERFLOW] = 1
        scratch[X_COUNT] = n
        return
    moves[n, M_FROM] = start
    moves[n, M_TO] = end
    moves[n, M_CAPT] = captured
    moves[n, M_PROMO] = promo
    moves[n, M_KEY] = key
    moves[n, M_LEGS] = nlegs
    for i in range(nlegs):
        moves[n, M_PATH + i] = scratch[X_PATH + i]
    scratch[X_COUNT] = n + 1


@kernel
def _capture_key(params, nlegs, start_king, captured, kings, order):
    key = 0
    if params[P_KEY_MOST_PIECES]:
        key |= nlegs << 40
    if params[P_KEY_KING_FIRST]:
        key |= start_king << 39
    if params[P_KEY_MOST_KINGS]:
        key |= popcount(captured & kings) << 32
    if params[P_KEY_EARLIEST]:
        key |= order
    return key


@kernel
def _finish_capture(params, moves, scratch, start, pos, is_king, start_king, captured, kings, order, nlegs, turn):
    promo_row = params[P_PROMO_WHITE] if turn == 0 else params[P_PROMO_BLACK]
    promo = 0
    if start_king == 0 and (is_king == 1 or ((promo_row >> pos) & 1) == 1):
        promo = 1
    key = _capture_key(params, nlegs, start_king, captured, kings, order)
    _emit_capture(params, moves, scratch, start, pos, captured, promo, key, nlegs)


@kernel(inline="always")
def _short_jump_exists(params, pos, is_king, turn, blockers, targets, kings, at_end, captured):
    """Whether a short-range piece on ``pos`` has a jump (``targets`` excludes captured pieces)."""
    h = params[P_H]
    mask = params[P_MASK]
    if at_end == 0:
        blockers = blockers & ~captured
    if is_king == 0 and params[P_MEN_CAPTURE_KINGS] == 0:
        targets = targets & ~kings
    for d in range(4):
        if is_king == 0 and params[P_MEN_BACK] == 0 and not is_forward(turn, d):
            continue
        delta = direction_shift(h, d)
        q = pos + delta
        land = q + delta
        if on_board(mask, land) and ((targets >> q) & 1) == 1 and ((blockers >> land) & 1) == 0:
            return True
    return False


@kernel
def _capture_search(params, moves, scratch, start, start_king, occupied, opponents, kings, turn):
    """Emit every complete capture sequence of the piece on ``start``.

    Depth-first search with an explicit stack (numba cannot cache recursive
    functions). ``occupied`` excludes the moving piece. A flying king that can
    continue from some landing squares beyond a captured piece must land on
    one of those; captures with the best priority key are kept.
    """
    h = params[P_H]
    mask = params[P_MASK]
    promo_row = params[P_PROMO_WHITE] if turn == 0 else params[P_PROMO_BLACK]
    mid_mode = params[P_MID_PROMOTION]
    flying = params[P_KINGS_FLY]
    men_back = params[P_MEN_BACK]
    at_end = params[P_REMOVE_AT_END]
    men_take_kings = params[P_MEN_CAPTURE_KINGS]
    k = 0
    scratch[X_STACK + F_POS] = start
    scratch[X_STACK + F_KING] = start_king
    scratch[X_STACK + F_CAPT] = 0
    scratch[X_STACK + F_ORDER] = 0
    scratch[X_STACK + F_DIR] = 0
    scratch[X_STACK + F_FOUND] = 0
    returned = -1
    while True:
        base = X_STACK + k * FRAME_FIELDS
        if returned >= 0:
            scratch[base + F_ANY] |= returned
            returned = -1
            land = scratch[base + F_LAND] + scratch[base + F_DELTA]
            scratch[base + F_LAND] = land
            if land != scratch[base + F_LAST]:
                scratch[X_PATH + k] = land
                child = base + FRAME_FIELDS
                scratch[child + F_POS] = land
                scratch[child + F_KING] = scratch[base + F_NEXT_KING]
                scratch[child + F_CAPT] = scratch[base + F_NEXT_CAPT]
                scratch[child + F_ORDER] = scratch[base + F_NEXT_ORDER]
                scratch[child + F_DIR] = 0
                scratch[child + F_FOUND] = 0
                k += 1
                continue
            if scratch[base + F_ANY] == 0:
                land = scratch[base + F_FIRST]
                while land != scratch[base + F_LAST]:
                    scratch[X_PATH + k] = land
                    _finish_capture(
                        params,
                        moves,
                        scratch,
                        start,
                        land,
                        scratch[base + F_NEXT_KING],
                        start_king,
                        scratch[base + F_NEXT_CAPT],
                        kings,
                        scratch[base + F_NEXT_ORDER],
                        k + 1,
                        turn,
                    )
                    land += scratch[base + F_DELTA]
        pos = scratch[base + F_POS]
        is_king = scratch[base + F_KING]
        captured = scratch[base + F_CAPT]
        blockers = occupied if at_end == 1 else occupied & ~captured
        targets = opponents & ~captured
        if is_king == 0 and men_take_kings == 0:
            targets &= ~kings
        pushed = False
        while scratch[base + F_DIR] < 4:
            d = scratch[base + F_DIR]
            scratch[base + F_DIR] = d + 1
            if is_king == 0 and men_back == 0 and not is_forward(turn, d):
                continue
            delta = direction_shift(h, d)
            q = pos + delta
            if is_king == 1 and flying == 1:
                while on_board(mask, q) and ((blockers >> q) & 1) == 0:
                    q += delta
            if not on_board(mask, q) or ((targets >> q) & 1) == 0:
                continue
            first = q + delta
            last = first
            if is_king == 1 and flying == 1:
                while on_board(mask, last) and ((blockers >> last) & 1) == 0:
                    last += delta
            elif on_board(mask, first) and ((blockers >> first) & 1) == 0:
                last = first + delta
            if last == first:
                continue
            if k + 1 >= MAX_LEGS:
                scratch[X_OVERFLOW] = 1
                continue
            scratch[base + F_FOUND] = 1
            next_captured = captured | (1 << q)
            next_order = scratch[base + F_ORDER]
            if ((kings >> q) & 1) == 1 and k < 31:
                next_order |= 1 << (31 - k)
            next_king = is_king
            if is_king == 0 and ((promo_row >> first) & 1) == 1:
                if mid_mode == MID_ENDS:
                    scratch[X_PATH + k] = first
                    _finish_capture(
                        params,
                        moves,
                        scratch,
                        start,
                        first,
                        1,
                        start_king,
                        next_captured,
                        kings,
                        next_order,
                        k + 1,
                        turn,
                    )
                    continue
                if mid_mode == MID_CONTINUES:
                    next_king = 1
            if last == first + delta and not (next_king == 1 and flying == 1):
                # One landing square and a short-range piece: test for a next
                # jump inline, and finish here when there is none (the common
                # case), saving a stack frame.
                if not _short_jump_exists(
                    params, first, next_king, turn, blockers, opponents & ~next_captured, kings, at_end, next_captured
                ):
                    scratch[X_PATH + k] = first
                    _finish_capture(
                        params,
                        moves,
                        scratch,
                        start,
                        first,
                        next_king,
                        start_king,
                        next_captured,
                        kings,
                        next_order,
                        k + 1,
                        turn,
                    )
                    continue
            scratch[base + F_FIRST] = first
            scratch[base + F_LAST] = last
            scratch[base + F_LAND] = first
            scratch[base + F_DELTA] = delta
            scratch[base + F_ANY] = 0
            scratch[base + F_NEXT_CAPT] = next_captured
            scratch[base + F_NEXT_ORDER] = next_order
            scratch[base + F_NEXT_KING] = next_king
            scratch[X_PATH + k] = first
            child = base + FRAME_FIELDS
            scratch[child + F_POS] = first
            scratch[child + F_KING] = next_king
            scratch[child + F_CAPT] = next_captured
            scratch[child + F_ORDER] = next_order
            scratch[child + F_DIR] = 0
            scratch[child + F_FOUND] = 0
            k += 1
            pushed = True
            break
        if pushed:
            continue
        returned = scratch[base + F_FOUND]
        k -= 1
        if k < 0:
            return


@kernel(inline="always")
def has_capture(params, own, opponents, kings, turn):
    """Whether the side owning ``own`` has any capture (cheap bitboard test)."""
    h = params[P_H]
    mask = params[P_MASK]
    empty = mask & ~(own | opponents)
    men = own & ~kings
    own_kings = own & kings
    men_targets = opponents
    if params[P_MEN_CAPTURE_KINGS] == 0:
        men_targets = opponents & ~kings
    for d in range(4):
        if params[P_MEN_BACK] == 0 and not is_forward(turn, d):
            continue
        delta = direction_shift(h, d)
        if shift(shift(men, delta) & men_targets, delta) & empty:
            return True
    if own_kings == 0:
        return False
    if params[P_KINGS_FLY] == 0:
        for d in range(4):
            delta = direction_shift(h, d)
            if shift(shift(own_kings, delta) & opponents, delta) & empty:
                return True
        return False
    occupied = own | opponents
    ks = own_kings
    while ks:
        s = lowest_bit(ks)
        ks &= ks - 1
        for d in range(4):
            delta = direction_shift(h, d)
            q = s + delta
            while on_board(mask, q) and ((occupied >> q) & 1) == 0:
                q += delta
            if on_board(mask, q) and ((opponents >> q) & 1) == 1:
                land = q + delta
                if on_board(mask, land) and ((occupied >> land) & 1) == 0:
                    return True
    return False


@kernel(inline="always")
def _jumpers(pieces, targets, empty, h, d):
    """The squares of ``pieces`` whose neighbour in direction ``d`` is in ``targets`` with an empty
    square beyond: walk back twice from the empty squares. With ``d`` a constant every shift is
    one constant-direction instruction."""
    back = opposite(d)
    return pieces & step(step(empty, h, back) & targets, h, back)


@kernel(inline="always")
def _capturers(params, own, opponents, kings, turn):
    """Bitboard of the pieces that have a first jump (flying kings: all kings)."""
    h = params[P_H]
    empty = params[P_MASK] & ~(own | opponents)
    men = own & ~kings
    own_kings = own & kings
    men_targets = opponents
    if params[P_MEN_CAPTURE_KINGS] == 0:
        men_targets = opponents & ~kings
    out = 0
    if turn == 0 or params[P_MEN_BACK] == 1:
        out |= _jumpers(men, men_targets, empty, h, NW) | _jumpers(men, men_targets, empty, h, NE)
    if turn == 1 or params[P_MEN_BACK] == 1:
        out |= _jumpers(men, men_targets, empty, h, SW) | _jumpers(men, men_targets, empty, h, SE)
    if own_kings != 0:
        if params[P_KINGS_FLY] == 1:
            out |= own_kings
        else:
            out |= (
                _jumpers(own_kings, opponents, empty, h, NW)
                | _jumpers(own_kings, opponents, empty, h, NE)
                | _jumpers(own_kings, opponents, empty, h, SW)
                | _jumpers(own_kings, opponents, empty, h, SE)
            )
    return out


@kernel(inline="always")
def _emit_plain(moves, scratch, start, end, promo):
    n = scratch[X_COUNT]
    if n >= moves.shape[0]:
        scratch[X_OVERFLOW] = 1
        return
    moves[n, M_FROM] = start
    moves[n, M_TO] = end
    moves[n, M_CAPT] = 0
    moves[n, M_PROMO] = promo
    moves[n, M_KEY] = -1
    moves[n, M_LEGS] = 1
    moves[n, M_PATH] = end
    scratch[X_COUNT] = n + 1


@kernel
def _generate_plain(params, own, opponents, kings, turn, moves, scratch):
    h = params[P_H]
    mask = params[P_MASK]
    empty = mask & ~(own | opponents)
    men = own & ~kings
    own_kings = own & kings
    promo_row = params[P_PROMO_WHITE] if turn == 0 else params[P_PROMO_BLACK]
    d0 = 0 if turn == 0 else 2
    for d in range(d0, d0 + 2):
        delta = direction_shift(h, d)
        targets = shift(men, delta) & empty
        while targets:
            t = lowest_bit(targets)
            targets &= targets - 1
            _emit_plain(moves, scratch, t - delta, t, (promo_row >> t) & 1)
    if own_kings == 0:
        return
    if params[P_KINGS_FLY] == 0:
        for d in range(4):
            delta = direction_shift(h, d)
            targets = shift(own_kings, delta) & empty
            while targets:
                t = lowest_bit(targets)
                targets &= targets - 1
                _emit_plain(moves, scratch, t - delta, t, 0)
        return
    ks = own_kings
    while ks:
        s = lowest_bit(ks)
        ks &= ks - 1
        for d in range(4):
            delta = direction_shift(h, d)
            q = s + delta
            while on_board(mask, q) and ((empty >> q) & 1) == 1:
                _emit_plain(moves, scratch, s, q, 0)
                q += delta


@kernel
def generate_moves(white, black, kings, turn, params, moves, scratch):
    """Write the legal whole moves of a position into ``moves``; return their number.

    Returns -1 if a buffer overflowed (``scratch[X_OVERFLOW]`` is set too).
    """
    own = white if turn == 0 else black
    opponents = black if turn == 0 else white
    scratch[X_COUNT] = 0
    scratch[X_BEST] = -1
    scratch[X_OVERFLOW] = 0
    pieces = _capturers(params, own, opponents, kings, turn)
    if pieces != 0:
        occupied_all = own | opponents
        while pieces:
            s = lowest_bit(pieces)
            pieces &= pieces - 1
            _capture_search(
                params, moves, scratch, s, (kings >> s) & 1, occupied_all & ~(1 << s), opponents, kings, turn
            )
        if scratch[X_OVERFLOW]:
            return -1
        if scratch[X_COUNT] > 0 and params[P_FORCED] == 1:
            return scratch[X_COUNT]
    _generate_plain(params, own, opponents, kings, turn, moves, scratch)
    if scratch[X_OVERFLOW]:
        return -1
    return scratch[X_COUNT]


@kernel(inline="always")
def _count_single_jumps(params, own, opponents, kings, turn):
    """Number of captures when every capture is a single jump, else -1.

    A bitboard shortcut for bulk counting in variants without flying kings,
    capture priorities or mid-capture continuation (american): single jumps
    are all distinct moves, so counting them needs no search. Returns -1 when
    the shortcut does not apply or some landing square allows a second jump.
    """
    if (
        params[P_KINGS_FLY] == 1
        or params[P_MID_PROMOTION] != MID_ENDS
        or params[P_KEY_MOST_PIECES] == 1
        or params[P_KEY_KING_FIRST] == 1
        or params[P_KEY_MOST_KINGS] == 1
        or params[P_KEY_EARLIEST] == 1
        or params[P_FORCED] == 0
        or params[P_MEN_CAPTURE_KINGS] == 0
    ):
        return -1
    h = params[P_H]
    mask = params[P_MASK]
    empty = mask & ~(own | opponents)
    men = own & ~kings
    own_kings = own & kings
    promo_row = params[P_PROMO_WHITE] if turn == 0 else params[P_PROMO_BLACK]
    men_back = params[P_MEN_BACK]
    # jump_from[d]: squares from which a jump in direction d is possible
    everywhere = params[P_MASK]
    j0 = _jumpers(everywhere, opponents, empty, h, NW)
    j1 = _jumpers(everywhere, opponents, empty, h, NE)
    j2 = _jumpers(everywhere, opponents, empty, h, SW)
    j3 = _jumpers(everywhere, opponents, empty, h, SE)
    total = 0
    for d in range(4):
        jd = j0 if d == 0 else (j1 if d == 1 else (j2 if d == 2 else j3))
        delta = direction_shift(h, d)
        men_may = men_back == 1 or is_forward(turn, d)
        movers_men = men & jd if men_may else 0
        movers_kings = own_kings & jd
        total += popcount(movers_men) + popcount(movers_kings)
        # A second jump may not go straight back (over the captured piece).
        back = opposite(d)
        k_cont = 0
        m_cont = 0
        for e in range(4):
            if e == back:
                continue
            je = j0 if e == 0 else (j1 if e == 1 else (j2 if e == 2 else j3))
            k_cont |= je
            if men_back == 1 or is_forward(turn, e):
                m_cont |= je
        men_land = shift(movers_men, 2 * delta) & ~promo_row
        if (men_land & m_cont) != 0 or (shift(movers_kings, 2 * delta) & k_cont) != 0:
            return -1
    return total


@kernel(inline="always")
def count_plain_moves(params, own, opponents, kings, turn):
    """Number of non-capturing moves of the side owning ``own`` (bitboards only, no list)."""
    h = params[P_H]
    empty = params[P_MASK] & ~(own | opponents)
    men = own & ~kings
    own_kings = own & kings
    if turn == 0:
        n = popcount(step(men, h, NW) & empty) + popcount(step(men, h, NE) & empty)
    else:
        n = popcount(step(men, h, SW) & empty) + popcount(step(men, h, SE) & empty)
    if own_kings == 0:
        return n
    if params[P_KINGS_FLY] == 0:
        return (
            n
            + popcount(step(own_kings, h, NW) & empty)
            + popcount(step(own_kings, h, NE) & empty)
            + popcount(step(own_kings, h, SW) & empty)
            + popcount(step(own_kings, h, SE) & empty)
        )
    for d in range(4):
        front = own_kings
        while True:
            front = step(front, h, d) & empty
            if front == 0:
                break
            n += popcount(front)
    return n


@kernel
def count_moves(white, black, kings, turn, params, moves, scratch):
    """Number of legal moves, without listing them when there is no capture."""
    own = white if turn == 0 else black
    opponents = black if turn == 0 else white
    if _capturers(params, own, opponents, kings, turn) != 0:
        n = _count_single_jumps(params, own, opponents, kings, turn)
        if n >= 0:
            return n
        return generate_moves(white, black, kings, turn, params, moves, scratch)
    return count_plain_moves(params, own, opponents, kings, turn)


@kernel(inline="always")
def move_pieces(white, black, kings, turn, move_from, move_to, captured, promo):
    """``(white, black, kings)`` bitboards after a move: the one place that says how
    a move changes the pieces (the mover goes from ``move_from`` to ``move_to``,
    captured pieces leave, a king stays a king, a promoting man is crowned)."""
    moved = (1 << move_from) ^ (1 << move_to)
    if turn == 0:
        white = white ^ moved
        black = black & ~captured
    else:
        black = black ^ moved
        white = white & ~captured
    new_kings = kings & ~captured
    if ((kings >> move_from) & 1) == 1:
        new_kings = (new_kings & ~(1 << move_from)) | (1 << move_to)
    elif promo == 1:
        new_kings |= 1 << move_to
    return white, black, new_kings


@kernel(inline="always")
def apply_move(state, params, move_from, move_to, captured, promo, out):
    """Write into ``out`` the state after a move (``out`` may be ``state``).

    The draw clock resets on a capture, and on a promotion where the variant
    says so; the turn passes and the ply count grows by one.
    """
    turn = state[S_TURN]
    clock = state[S_CLOCK]
    ply = state[S_PLY]
    white, black, kings = move_pieces(
        state[S_WHITE], state[S_BLACK], state[S_KINGS], turn, move_from, move_to, captured, promo
    )
    if captured != 0 or (promo == 1 and params[P_DRAW_RESET_PROMO] == 1):
        clock = 0
    else:
        clock += 1
    out[S_WHITE] = white
    out[S_BLACK] = black
    out[S_KINGS] = kings
    out[S_TURN] = 1 - turn
    out[S_CLOCK] = clock
    out[S_PLY] = ply + 1


# what judge() says of a position
ONGOING = 0
MOVER_LOSES = 1
DRAWN = 2


@kernel(inline="always")
def judge(legal_moves, clock, draw_plies):
    """How the rules end a position: the one statement of the end-of-game order.

    ``legal_moves`` is the number of legal whole moves of the side to move,
    ``clock`` the plies since the last capture (or promotion), ``draw_plies``
    the variant's draw rule (0: none). In this order:

    1. no legal move: the side to move loses (``MOVER_LOSES``), even when the
       draw counter has run out too;
    2. the draw counter has reached ``draw_plies``: drawn (``DRAWN``);
    3. otherwise the game goes on (``ONGOING``).

    Rules that need the game's history (threefold repetition) and caps that
    are not rules (a ``max_moves`` truncation) are checked by their owners
    after this.
    """
    if legal_moves == 0:
        return MOVER_LOSES
    if draw_plies > 0 and clock >= draw_plies:
        return DRAWN
    return ONGOING


@kernel(allocates=True)
def _perft(white, black, kings, turn, depth, params, buffers, scratch, bulk):
    """Leaf count ``depth`` plies deep, iteratively (numba caches no recursion)."""
    if depth == 0:
        return 1
    if bulk == 1 and depth == 1:
        return count_moves(white, black, kings, turn, params, buffers[0], scratch)
    stack_w = np.empty(depth, np.int64)
    stack_b = np.empty(depth, np.int64)
    stack_k = np.empty(depth, np.int64)
    stack_t = np.empty(depth, np.int64)
    index = np.zeros(depth, np.int64)
    count = np.zeros(depth, np.int64)
    stack_w[0] = white
    stack_b[0] = black
    stack_k[0] = kings
    stack_t[0] = turn
    count[0] = generate_moves(white, black, kings, turn, params, buffers[0], scratch)
    if count[0] < 0:
        return -1
    total = 0
    ply = 0
    while ply >= 0:
        i = index[ply]
        if i >= count[ply]:
            ply -= 1
            continue
        index[ply] = i + 1
        moves = buffers[ply]
        t = stack_t[ply]
        w, b, k = move_pieces(
            stack_w[ply], stack_b[ply], stack_k[ply], t,
            moves[i, M_FROM], moves[i, M_TO], moves[i, M_CAPT], moves[i, M_PROMO],
        )  # fmt: skip
        remaining = depth - ply - 1
        if remaining == 0:
            total += 1
            continue
        if bulk == 1 and remaining == 1:
            n = count_moves(w, b, k, 1 - t, params, buffers[ply + 1], scratch)
            if n < 0:
                return -1
            total += n
            continue
        ply += 1
        stack_w[ply] = w
        stack_b[ply] = b
        stack_k[ply] = k
        stack_t[ply] = 1 - t
        index[ply] = 0
        n = generate_moves(w, b, k, 1 - t, params, buffers[ply], scratch)
        if n < 0:
            return -1
        count[ply] = n
    return total


def perft_count(state: np.ndarray, params: np.ndarray, depth: int, bulk: bool = True) -> int:
    """Leaf count of the move tree ``depth`` plies deep (whole moves, duplicates dropped)."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    buffers = new_move_buffer(depth)
    scratch = new_scratch()
    n = _perft(
        state[S_WHITE], state[S_BLACK], state[S_KINGS], state[S_TURN], depth, params, buffers, scratch, int(bulk)
    )
    if n < 0:
        raise MoveBufferOverflow("a move buffer overflowed during perft")
    return int(n)
