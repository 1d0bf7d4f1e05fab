"""``VectorEnv``: many games stepped in one numba call, arrays in and arrays out.

    >>> from checkers_env.vector import VectorEnv
    >>> venv = VectorEnv("american", num_envs=4096, seed=0)
    >>> obs, masks, to_move = venv.reset()
    >>> out = venv.step(venv.sample_actions())
    >>> out.observations.shape, out.action_masks.shape, out.rewards.shape
    ((4096, 8, 8, 8), (4096, 896), (4096, 2))

Each game follows exactly the rules, action encoding (encoding.py) and
observation planes (observation.py) of the AEC env, through the same kernels:
the AEC env is this module's :func:`step_game` on one game. An action is one
leg; during a multi-capture the same player is to move again. When a game
ends (a side cannot move, the draw rule, or the ``max_moves`` cap) the step
reports its rewards and termination or truncation, and the game is reset to
the start position at once: the observation and mask returned for that game
are already those of the new game ("same-step" autoreset).

The returned arrays are read-only views of buffers that the next ``reset`` or
``step`` overwrites: copy them to keep them.

Per-game state (``games[e]``, int64, layout below) holds the committed
position (movegen's state words) and the legs taken so far in the move in
progress. The whole-move list is not stored. Most positions need none: in a
*plain* position (no capture possible) the moves are counted and the mask
written straight from the bitboards, and whenever every legal move is one
leg (plain positions and most capture positions) a leg from the mask is
applied as the whole move. Only a position with a multi-leg capture has its
list regenerated at each leg (55-120 ns), keeping the moves that begin with
the legs taken, which is cheaper than keeping 4096 move lists.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import uint64 as nb_uint64

from .core import movegen as mg
from .core.board import Board
from .core.jit import kernel
from .core.variants import Rules, get_rules
from .encoding import (
    T_BIT_OF_INDEX,
    T_FILE,
    T_INDEX_AT,
    T_INDEX_OF_BIT,
    T_ROW,
    T_SIZE,
    action_bits,
    make_tables,
    next_leg_bits,
    num_actions,
    prefix_matches,
    write_leg_mask,
    write_plain_mask,
)
from .observation import NUM_PLANES, PLY_SCALE, write_planes

__all__ = ["VectorEnv", "VectorStep", "step_game", "init_game", "write_observation", "GAME_SIZE"]

# game words: [0, STATE_SIZE) is the committed position (movegen layout), then
G_LEGS = mg.STATE_SIZE  # legs taken so far in the move in progress
G_START = G_LEGS + 1  # bit where the moving piece started (-1: no move in progress)
G_POS = G_LEGS + 2  # bit where it stands now
G_CAPT = G_LEGS + 3  # bitboard of the pieces jumped so far
G_EP_PLY = G_LEGS + 4  # whole moves played since the episode began
G_STATUS = G_LEGS + 5  # STATUS_* below
G_WINNER = G_LEGS + 6  # colour of the winner once terminated, -1 for a draw
G_NMOVES = G_LEGS + 7  # legal whole moves of the committed position
G_LAST_FROM = G_LEGS + 8  # last whole move played: start bit, end bit, captured bitboard
G_LAST_TO = G_LEGS + 9
G_LAST_CAPT = G_LEGS + 10
G_PLAIN = G_LEGS + 11  # 1 when no capture is possible in the committed position (see refresh_moves)
G_ONE_LEG = G_LEGS + 12  # 1 when every legal move of the committed position is one leg
G_PATH = G_LEGS + 13  # landing bits of the legs taken
GAME_SIZE = G_PATH + mg.MAX_LEGS

STATUS_ON = 0
STATUS_TERMINATED = 1
STATUS_TRUNCATED = 2

# step_game results
STEP_CONTINUES = 0  # a leg of a capture was taken; the same side moves again
STEP_MOVED = 1  # a whole move was completed; the other side moves
STEP_TERMINATED = 2  # ... and the game ended by the rules
STEP_TRUNCATED = 3  # ... and the game reached max_moves
STEP_ILLEGAL = -1
STEP_OVERFLOW = -2

LEGAL_CAPACITY = 64
"""Legal actions remembered per game (to clear masks and sample without scanning);
positions with more fall back to scanning the mask."""


@kernel(inline="always")
def _between_bits(tables, from_bit, to_bit):
    """Bitboard of the squares strictly between two squares on one diagonal."""
    n = tables[T_SIZE]
    a = tables[T_INDEX_OF_BIT + from_bit]
    b = tables[T_INDEX_OF_BIT + to_bit]
    r = tables[T_ROW + a]
    f = tables[T_FILE + a]
    dr = 1 if tables[T_ROW + b] > r else -1
    df = 1 if tables[T_FILE + b] > f else -1
    out = 0
    r += dr
    f += df
    while r != tables[T_ROW + b]:
        out |= 1 << tables[T_BIT_OF_INDEX + tables[T_INDEX_AT + r * n + f]]
        r += dr
        f += df
    return out


@kernel
def init_game(game, params, moves, scratch):
    """Clear the move in progress and the status of ``game`` (position kept) and
    generate its moves into ``moves``; return their number (-1 on overflow)."""
    game[G_LEGS] = 0
    game[G_START] = -1
    game[G_POS] = -1
    game[G_CAPT] = 0
    game[G_EP_PLY] = 0
    game[G_STATUS] = STATUS_ON
    game[G_WINNER] = -1
    game[G_LAST_FROM] = -1
    game[G_LAST_TO] = -1
    game[G_LAST_CAPT] = 0
    return refresh_moves(game, params, moves, scratch)


@kernel(inline="always")
def refresh_moves(game, params, moves, scratch):
    """Note the legal moves of ``game``'s committed position; return their number (-1 on overflow).

    A position where no capture is possible is *plain* (``game[G_PLAIN] = 1``):
    its moves are one-leg steps, counted from the bitboards, and ``moves`` is
    left alone (the mask comes from the bitboards too). Otherwise ``moves``
    gets the whole-move list. ``game[G_NMOVES]`` is set either way.
    """
    white = game[mg.S_WHITE]
    black = game[mg.S_BLACK]
    kings = game[mg.S_KINGS]
    turn = game[mg.S_TURN]
    own = white if turn == 0 else black
    opponents = black if turn == 0 else white
    if not mg.has_capture(params, own, opponents, kings, turn):
        n = mg.count_plain_moves(params, own, opponents, kings, turn)
        game[G_NMOVES] = n
        game[G_PLAIN] = 1
        game[G_ONE_LEG] = 1
        return n
    n = mg.generate_moves(white, black, kings, turn, params, moves, scratch)
    _note_moves(game, moves, n)
    return n


@kernel(inline="always")
def _note_moves(game, moves, n):
    """Note the number of moves of a generated list and whether it is plain and one-leg."""
    game[G_NMOVES] = n
    plain = 1
    one_leg = 1
    for m in range(n):
        if moves[m, mg.M_CAPT] != 0:
            plain = 0
        if moves[m, mg.M_LEGS] != 1:
            one_leg = 0
    game[G_PLAIN] = plain
    game[G_ONE_LEG] = one_leg


@kernel(inline="always")
def step_game(game, action, params, tables, moves, scratch, max_moves, trusted):
    """Take one leg in ``game``; return a ``STEP_*`` code.

    The game is left untouched on ``STEP_ILLEGAL``. Afterwards the committed
    position's moves are noted as :func:`refresh_moves` does (``moves`` holds
    them unless the position is plain). A
    whole move ends the game when the side to move then has no legal move
    (it loses), when the draw counter reaches ``draw_plies`` (draw), in that
    order as ``Board.outcome`` does; otherwise ``max_moves > 0`` whole moves
    since the episode began truncate it.

    ``trusted=True`` promises that ``action`` is set in the game's current
    mask: when every legal move is one leg, the move list is then not
    regenerated (the caller's ``moves`` buffer may hold another game's).
    """
    state = game[: mg.STATE_SIZE]
    if game[G_STATUS] != STATUS_ON:
        return STEP_ILLEGAL
    turn = state[mg.S_TURN]
    fb, tb = action_bits(tables, action, turn)
    if fb < 0:
        return STEP_ILLEGAL
    if trusted and game[G_ONE_LEG] == 1:
        # The leg is the whole move: it takes the opponent's piece it jumps, if any,
        # and a man ending on the far row is crowned.
        move_from = fb
        move_to = tb
        move_capt = 0
        if game[G_PLAIN] == 0:
            move_capt = _between_bits(tables, fb, tb) & (state[mg.S_BLACK] if turn == 0 else state[mg.S_WHITE])
        promo_row = params[mg.P_PROMO_WHITE] if turn == 0 else params[mg.P_PROMO_BLACK]
        move_promo = ((promo_row >> tb) & 1) & (1 - ((state[mg.S_KINGS] >> fb) & 1))
    else:
        n = mg.generate_moves(
            state[mg.S_WHITE], state[mg.S_BLACK], state[mg.S_KINGS], state[mg.S_TURN], params, moves, scratch
        )
        if n < 0:
            return STEP_OVERFLOW
        _note_moves(game, moves, n)
        k = game[G_LEGS]
        if k > 0 and fb != game[G_POS]:
            return STEP_ILLEGAL
        path = game[G_PATH:]
        found = -1
        complete = -1
        for m in range(n):
            if not prefix_matches(moves, m, game[G_START], k, path):
                continue
            frm, to = next_leg_bits(moves, m, k)
            if frm != fb or to != tb:
                continue
            if moves[m, mg.M_LEGS] == k + 1:
                complete = m
                break
            if found < 0:
                found = m
        if complete < 0 and found < 0:
            return STEP_ILLEGAL
        if complete < 0:
            if k == 0:
                game[G_START] = fb
            game[G_PATH + k] = tb
            game[G_POS] = tb
            game[G_CAPT] |= _between_bits(tables, fb, tb) & moves[found, mg.M_CAPT]
            game[G_LEGS] = k + 1
            return STEP_CONTINUES
        move_from = moves[complete, mg.M_FROM]
        move_to = moves[complete, mg.M_TO]
        move_capt = moves[complete, mg.M_CAPT]
        move_promo = moves[complete, mg.M_PROMO]
    game[G_LAST_FROM] = move_from
    game[G_LAST_TO] = move_to
    game[G_LAST_CAPT] = move_capt
    mg.apply_move(state, params, move_from, move_to, move_capt, move_promo, state)
    game[G_LEGS] = 0
    game[G_START] = -1
    game[G_POS] = -1
    game[G_CAPT] = 0
    game[G_EP_PLY] += 1
    n = refresh_moves(game, params, moves, scratch)
    if n < 0:
        return STEP_OVERFLOW
    draw_plies = params[mg.P_DRAW_PLIES]
    if n == 0:
        game[G_STATUS] = STATUS_TERMINATED
        game[G_WINNER] = turn
        return STEP_TERMINATED
    if draw_plies > 0 and state[mg.S_CLOCK] >= draw_plies:
        game[G_STATUS] = STATUS_TERMINATED
        game[G_WINNER] = -1
        return STEP_TERMINATED
    if max_moves > 0 and game[G_EP_PLY] >= max_moves:
        game[G_STATUS] = STATUS_TRUNCATED
        return STEP_TRUNCATED
    return STEP_MOVED


@kernel(inline="always")
def write_observation(game, perspective, params, tables, moves, ply_scale, obs, mask, legal, legal_cap, planes=True):
    """Write the planes seen by ``perspective`` (colour) into ``obs`` (unless
    ``planes`` is False) and, when that side is to move in a game still on, its
    legal legs into ``mask`` (which must be all zeros) and ``legal``. ``moves``
    must hold the game's move list unless the position is plain (see
    :func:`refresh_moves`). Returns the number of legal legs written (0 for
    the side not to move)."""
    moving_from = -1
    if game[G_LEGS] > 0:
        moving_from = game[G_START]
    if planes:
        write_planes(
            tables,
            game[: mg.STATE_SIZE],
            perspective,
            moving_from,
            game[G_POS],
            game[G_CAPT],
            params[mg.P_DRAW_PLIES],
            ply_scale,
            game[G_EP_PLY],
            obs,
        )
    if game[G_STATUS] != STATUS_ON or perspective != game[mg.S_TURN]:
        return 0
    if game[G_PLAIN] == 1:
        return write_plain_mask(tables, params, game, mask, legal, legal_cap)
    return write_leg_mask(
        tables,
        moves,
        game[G_NMOVES],
        perspective,
        game[G_START],
        game[G_LEGS],
        game[G_PATH:],
        mask,
        legal,
        legal_cap,
    )


@kernel
def _copy_words(dst, src):
    """``dst[:] = src`` (a slice assignment would need numba's allocator for a temporary)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel(inline="always")
def _clear_mask(mask, legal, count, legal_cap):
    if count > legal_cap:
        mask[:] = 0
    else:
        for i in range(count):
            mask[legal[i]] = 0


@kernel
def _reset_all(
    games, start, params, tables, moves, scratch, ply_scale, first, obs, masks, legal, counts, to_move, planes
):
    for e in range(games.shape[0]):
        _copy_words(games[e], start)
        init_game(games[e], params, moves, scratch)
        _clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
        turn = games[e, mg.S_TURN]
        to_move[e] = turn ^ first
        counts[e] = write_observation(
            games[e], turn, params, tables, moves, ply_scale, obs[e], masks[e], legal[e], legal.shape[1], planes
        )


@kernel
def _first_illegal(actions, masks, n_actions):
    for e in range(actions.shape[0]):
        a = actions[e]
        if a < 0 or a >= n_actions or masks[e, a] == 0:
            return e
    return -1


@kernel
def _step_all(
    actions, games, start, params, tables, moves, scratch, max_moves, ply_scale, first,
    obs, masks, legal, counts, rewards, terminations, truncations, to_move, planes,
):  # fmt: skip
    """Step every game; return -1, or the index of a game whose move buffer overflowed."""
    cap = legal.shape[1]
    for e in range(games.shape[0]):
        game = games[e]
        _clear_mask(masks[e], legal[e], counts[e], cap)
        code = step_game(game, actions[e], params, tables, moves, scratch, max_moves, True)
        rewards[e, 0] = 0.0
        rewards[e, 1] = 0.0
        terminations[e] = code == STEP_TERMINATED
        truncations[e] = code == STEP_TRUNCATED
        if code < 0:
            return e
        if code >= STEP_TERMINATED:
            winner = game[G_WINNER]
            if code == STEP_TERMINATED and winner >= 0:
                p = winner ^ first
                rewards[e, p] = 1.0
                rewards[e, 1 - p] = -1.0
            _copy_words(game, start)
            init_game(game, params, moves, scratch)
        turn = game[mg.S_TURN]
        to_move[e] = turn ^ first
        counts[e] = write_observation(
            game, turn, params, tables, moves, ply_scale, obs[e], masks[e], legal[e], cap, planes
        )
    return -1


@kernel
def _sample(rng, masks, legal, counts, out):
    """One uniformly random legal action per game (splitmix64 per game)."""
    golden = nb_uint64(0x9E3779B97F4A7C15)
    m1 = nb_uint64(0xBF58476D1CE4E5B9)
    m2 = nb_uint64(0x94D049BB133111EB)
    cap = legal.shape[1]
    for e in range(out.shape[0]):
        rng[e] += golden
        z = rng[e]
        z = (z ^ (z >> nb_uint64(30))) * m1
        z = (z ^ (z >> nb_uint64(27))) * m2
        z = z ^ (z >> nb_uint64(31))
        c = counts[e]
        if c <= 0:
            out[e] = -1
            continue
        # Lemire's multiply-shift maps the high 32 bits onto 0..c-1 without a division
        pick = np.int64(((z >> nb_uint64(32)) * nb_uint64(c)) >> nb_uint64(32))
        if c <= cap:
            out[e] = legal[e, pick]
        else:
            for a in range(masks.shape[1]):
                if masks[e, a]:
                    if pick == 0:
                        out[e] = a
                        break
                    pick -= 1


class VectorStep(NamedTuple):
    """What :meth:`VectorEnv.step` returns (read-only views, overwritten by the next step)."""

    observations: np.ndarray
    """``float32[num_envs, 8, N, N]``: planes of the player to move (observation.py)."""
    action_masks: np.ndarray
    """``int8[num_envs, num_actions]``: legal next legs of the player to move."""
    rewards: np.ndarray
    """``float32[num_envs, 2]``: this step's reward of ``player_0`` and ``player_1``
    (+1/-1 on a win, 0 otherwise)."""
    terminations: np.ndarray
    """``bool[num_envs]``: the game ended by the rules at this step (then reset)."""
    truncations: np.ndarray
    """``bool[num_envs]``: the game hit ``max_moves`` at this step (then reset)."""
    agent_to_move: np.ndarray
    """``int8[num_envs]``: 0 if ``player_0`` is to move in the returned observation, else 1."""


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VectorEnv:
    """``num_envs`` games of one variant, stepped together in compiled code.

    Args:
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        num_envs: number of games.
        seed: seeds the per-game generators of :meth:`sample_actions`.
        max_moves: if set, a game is truncated after this many whole moves.
        observations: if False, the observation planes are not written (the
            returned ``observations`` array stays zero): for random playouts
            and search that only need masks, rewards and positions.
        **rule_overrides: rule fields to override, e.g. ``forced_capture=False``.

    ``player_0`` is the side that moves first in the variant. Actions are
    ``int64[num_envs]`` leg indices (encoding.py); an action that is not legal
    in its game raises :class:`ValueError` before any game is stepped.
    The optional repetition draw is not supported here (it needs the game
    history); such rules raise :class:`ValueError`.
    """

    def __init__(self, variant: str | Rules = "american", num_envs: int = 1, seed: int | None = None,
                 max_moves: int | None = None, observations: bool = True, **rule_overrides):  # fmt: skip
        self.rules: Rules = get_rules(variant, **rule_overrides)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if max_moves is not None and (not isinstance(max_moves, (int, np.integer)) or max_moves < 1):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        if self.rules.repetition_draw:
            raise ValueError("VectorEnv does not support repetition_draw (it keeps no game history); use the AEC env")
        self.num_envs = int(num_envs)
        self.observations_enabled = bool(observations)
        self.max_moves = int(max_moves or 0)
        size = self.rules.board_size
        self.num_actions = num_actions(size)
        self.observation_shape = (NUM_PLANES, size, size)
        self._ply_scale = self.max_moves or PLY_SCALE
        self._first = 0 if self.rules.first_player == "white" else 1
        self._params = mg.make_params(self.rules)
        self._tables = make_tables(size)
        self._start = np.zeros(GAME_SIZE, dtype=np.int64)
        self._start[: mg.STATE_SIZE] = Board(self.rules).state
        self._moves = mg.new_move_buffer()
        self._scratch = mg.new_scratch()
        e = self.num_envs
        self._games = np.zeros((e, GAME_SIZE), dtype=np.int64)
        self._obs = np.zeros((e, *self.observation_shape), dtype=np.float32)
        self._masks = np.zeros((e, self.num_actions), dtype=np.int8)
        self._legal = np.zeros((e, LEGAL_CAPACITY), dtype=np.int64)
        self._counts = np.full(e, self.num_actions + LEGAL_CAPACITY, dtype=np.int64)  # forces a full clear
        self._rewards = np.zeros((e, 2), dtype=np.float32)
        self._terminations = np.zeros(e, dtype=np.bool_)
        self._truncations = np.zeros(e, dtype=np.bool_)
        self._to_move = np.zeros(e, dtype=np.int8)
        self._actions = np.zeros(e, dtype=np.int64)
        self._rng = np.zeros(e, dtype=np.uint64)
        self._seed_rng(seed)
        self._reset_games()

    def _seed_rng(self, seed: int | None) -> None:
        words = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)
        self._rng[:] = words

    def _reset_games(self) -> None:
        _reset_all(
            self._games, self._start, self._params, self._tables, self._moves, self._scratch, self._ply_scale,
            self._first, self._obs, self._masks, self._legal, self._counts, self._to_move, self.observations_enabled,
        )  # fmt: skip

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game again; reseed :meth:`sample_actions` if ``seed`` is given.

        Returns ``(observations, action_masks, agent_to_move)`` as in :class:`VectorStep`.
        """
        if seed is not None:
            self._seed_rng(seed)
        self._reset_games()
        return _read_only(self._obs), _read_only(self._masks), _read_only(self._to_move)

    def step(self, actions) -> VectorStep:
        """Take one leg in every game (``actions``: ``int[num_envs]``)."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), "
                f"got {acts.dtype} array of shape {acts.shape}"
            )
        self._actions[:] = acts
        bad = _first_illegal(self._actions, self._masks, self.num_actions)
        if bad >= 0:
            legal = np.flatnonzero(self._masks[bad]).tolist()
            raise ValueError(f"illegal action {int(acts[bad])} in game {bad}; legal actions there: {legal}")
        overflow = _step_all(
            self._actions, self._games, self._start, self._params, self._tables, self._moves, self._scratch,
            self.max_moves, self._ply_scale, self._first, self._obs, self._masks, self._legal, self._counts,
            self._rewards, self._terminations, self._truncations, self._to_move, self.observations_enabled,
        )  # fmt: skip
        if overflow >= 0:
            raise mg.MoveBufferOverflow(f"move buffer overflow in game {overflow}")
        return VectorStep(
            _read_only(self._obs),
            _read_only(self._masks),
            _read_only(self._rewards),
            _read_only(self._terminations),
            _read_only(self._truncations),
            _read_only(self._to_move),
        )

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (``int64[num_envs]``, a new array)."""
        out = np.empty(self.num_envs, dtype=np.int64)
        _sample(self._rng, self._masks, self._legal, self._counts, out)
        return out

    @property
    def states(self) -> np.ndarray:
        """Copy of the committed positions, ``int64[num_envs, 8]`` (movegen's state layout)."""
        return self._games[:, : mg.STATE_SIZE].copy()

    def board(self, index: int) -> Board:
        """A :class:`~checkers_env.core.Board` of game ``index``'s committed position."""
        return Board.from_state(self.rules, self._games[index, : mg.STATE_SIZE])

    def legs_taken(self, index: int) -> int:
        """Legs already taken in game ``index``'s move in progress."""
        return int(self._games[index, G_LEGS])

    def __repr__(self) -> str:
        return f"VectorEnv({self.rules.name!r}, num_envs={self.num_envs})"
