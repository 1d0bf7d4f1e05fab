"""Every variant as an OpenSpiel game: ``pyspiel.load_game("checkers_env_<variant>")``.

    >>> import checkers_env.openspiel   # registers the games with pyspiel
    >>> import pyspiel
    >>> game = pyspiel.load_game("checkers_env_international")
    >>> state = game.new_initial_state()
    >>> state.apply_action(state.legal_actions()[0])
    >>> game.num_distinct_actions(), state.current_player()
    (1800, 1)

OpenSpiel ships american checkers only (``checkers``); this module registers
the eight variants of this project as OpenSpiel Python games, so that
OpenSpiel's algorithms and bots (``MCTSBot``, ``uniform_random``, CFR-style
tree walkers, ``evaluate_bots``) play them. They are perfect-information,
sequential, deterministic, zero-sum, terminal-reward games of two players.

**Names and parameters.** ``checkers_env_american``, ``checkers_env_russian``,
``checkers_env_brazilian``, ``checkers_env_spanish``, ``checkers_env_italian``,
``checkers_env_czech``, ``checkers_env_international``, ``checkers_env_pool``.
Parameters (OpenSpiel's ``name(key=value,...)`` syntax or a dict):

* ``forced_capture`` (bool, default true): false is the house rule where
  captures may be declined (8x8 variants):
  ``pyspiel.load_game("checkers_env_american(forced_capture=false)")``.
* ``max_moves`` (int, default 0: none): whole moves after which the game ends
  as a draw (returns 0, 0): a cap for search budgets and tests.
* ``fen`` (string, default empty: the start position): a PDN FEN to start from.

**Players.** Player 0 is the side that moves first in the variant (Black in
american and pool, White elsewhere), as ``player_0`` of the PettingZoo env.

**Actions are ours.** An OpenSpiel action is one *leg* in the action encoding
of :mod:`checkers_env.encoding`, unchanged: ``(from square, direction,
distance)`` in the frame of the player to move, ``num_distinct_actions()`` =
896 on 8x8 and 1800 on 10x10. A capture of several pieces is several
consecutive actions by the same player (``current_player()`` does not change
until the move is complete), as in OpenSpiel's own checkers; the legal
actions are exactly the legs that continue some legal whole move, so every
capture-priority rule is enforced. An action of OpenSpiel's own ``checkers``
game is not one of these numbers (it encodes a square, a direction and
whether the step is a jump on its own 8x8 layout); convert through moves:
``checkers_env.encoding.move_to_actions`` / ``actions_to_move``.

**Observations.** ``observation_tensor(player)`` is the eight observation
planes (:mod:`checkers_env.observation`) seen by ``player``, flattened
(``8 * N * N`` floats); ``observation_string`` and ``str(state)`` are the text
board, the legs of a move in progress, and the FEN.

**Serialisation.** OpenSpiel's own: ``pyspiel.serialize_game_and_state``
writes the game's name with its parameters and the state, and
``pyspiel.deserialize_game_and_state`` reads them back; states pickle and
``clone()``. A state holds only its game words (:mod:`checkers_env.game`),
so cloning is cheap. ``state.fen()`` is the committed position as a PDN FEN,
and the ``fen`` parameter starts a game from one.

The rules are the leg-level game of :mod:`checkers_env.game`, stepped by its
kernels; nothing here re-implements a rule. The optional repetition rule is
not offered (it needs the history of positions).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np

from .core.extras import missing

try:
    import pyspiel
except ImportError as exc:
    raise missing("pyspiel", "the OpenSpiel games (checkers_env.openspiel)", exc) from exc

from .core import movegen as mg
from .core.board import Board
from .core.geometry import geometry
from .core.notation import square_name
from .core.variants import Rules, get_rules, variant_names
from .encoding import action_to_leg, make_tables, num_actions
from .game import (
    G_EP_PLY,
    G_LEGS,
    G_PATH,
    G_START,
    G_STATUS,
    G_WINNER,
    STATUS_ON,
    STATUS_TERMINATED,
    STEP_ILLEGAL,
    STEP_OVERFLOW,
    game_from_board,
    refresh_moves,
    step_game,
    write_observation,
)
from .observation import NUM_PLANES, PLY_SCALE

__all__ = ["GAME_NAMES", "game_name", "CheckersGame", "CheckersState", "load_game", "register_games"]

PREFIX = "checkers_env_"
PARAMETERS = {"forced_capture": True, "max_moves": 0, "fen": ""}


def game_name(variant: str) -> str:
    """The OpenSpiel short name of a variant: ``checkers_env_<variant>``."""
    return PREFIX + get_rules(variant).name


GAME_NAMES: list[str] = [PREFIX + name for name in variant_names()]
"""The registered short names, one per named variant."""


@functools.cache
def _kit(rules: Rules) -> SimpleNamespace:
    """Buffers and tables the kernels read, shared by every state of one rule set (states stay small to clone)."""
    size = rules.board_size
    n = num_actions(size)
    return SimpleNamespace(
        params=mg.make_params(rules),
        tables=make_tables(size),
        moves=mg.new_move_buffer(),
        scratch=mg.new_scratch(),
        obs=np.zeros((NUM_PLANES, size, size), dtype=np.float32),
        mask=np.zeros(n, dtype=np.int8),
        legal=np.zeros(n, dtype=np.int64),
    )


def _max_game_length(rules: Rules, board: Board, max_moves: int) -> int:
    """An upper bound on the legs of a game (OpenSpiel's ``max_game_length``).

    Between two resets of the draw counter at most ``draw_plies`` plies are
    played, and the counter is reset at most once per capture and per step
    of a man (each of the pieces is captured once, each man steps at most
    ``N - 1`` times); each capture adds at most one leg to its ply.
    """
    size = rules.board_size
    pieces = bin(int(board.state[mg.S_WHITE]) | int(board.state[mg.S_BLACK])).count("1")
    resets = pieces * size  # captures plus the men's forward steps
    plies = (resets + 1) * (max(rules.draw_plies, 1) + 1)
    if max_moves > 0:
        plies = min(plies, max_moves)
    return int(plies + pieces)


class CheckersGame(pyspiel.Game):
    """A variant as an OpenSpiel game (module docstring); built by ``pyspiel.load_game``."""

    variant = "american"

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        unknown = set(params) - set(PARAMETERS)
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)}; known: {sorted(PARAMETERS)}")
        overrides = {} if params.get("forced_capture", True) else {"forced_capture": False}
        self.rules: Rules = get_rules(self.variant, **overrides)
        self.max_moves = int(params.get("max_moves", 0))
        if self.max_moves < 0:
            raise ValueError(f"max_moves must be 0 (no cap) or positive, got {self.max_moves}")
        fen = str(params.get("fen", "") or "")
        self.start_board = Board(self.rules, fen=fen) if fen else Board(self.rules)
        self.start_words = game_from_board(self.start_board)
        self.start_words[G_EP_PLY] = 0  # max_moves counts the moves of this game
        self.first = int(self.rules.first_player)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(self.rules.board_size),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_max_game_length(self.rules, self.start_board, self.max_moves),
        )
        super().__init__(_GAME_TYPES[self.variant], info, params)

    def new_initial_state(self) -> CheckersState:
        return CheckersState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return CheckersObserver(self.rules, params)
        from open_spiel.python.observation import IIGObserverForPublicInfoGame

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class CheckersState(pyspiel.State):
    """A position of a :class:`CheckersGame`, with the legs of a move in progress: the game words only."""

    def __init__(self, game: CheckersGame):
        super().__init__(game)
        self._rules = game.rules
        self._first = game.first
        self._max_moves = game.max_moves
        self._words = game.start_words.copy()
        self._ply_scale = game.max_moves or PLY_SCALE

    # ---------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        if self._words[G_STATUS] != STATUS_ON:
            return pyspiel.PlayerId.TERMINAL
        return int(self._words[mg.S_TURN]) ^ self._first

    def _legal_actions(self, player: int) -> list[int]:
        kit = _kit(self._rules)
        if self._words[G_STATUS] != STATUS_ON:
            return []
        refresh_moves(self._words, kit.params, kit.moves, kit.scratch)
        kit.mask[:] = 0
        count = write_observation(self._words, int(self._words[mg.S_TURN]), kit.params, kit.tables, kit.moves,
                                  self._ply_scale, kit.obs, kit.mask, kit.legal, kit.legal.shape[0], False)  # fmt: skip
        return sorted(int(a) for a in kit.legal[:count])

    def _apply_action(self, action: int) -> None:
        kit = _kit(self._rules)
        code = step_game(self._words, int(action), kit.params, kit.tables, kit.moves, kit.scratch, self._max_moves,
                         False)  # fmt: skip
        if code == STEP_ILLEGAL:
            raise ValueError(
                f"illegal action {action} in position {self.fen()}; legal actions: {self._legal_actions(0)}"
            )
        if code == STEP_OVERFLOW:
            raise mg.MoveBufferOverflow(f"move buffer overflow in position {self.fen()}")

    def _action_to_string(self, player: int, action: int) -> str:
        """The leg as ``from-to`` in the variant's square names (``x`` for a jump over a piece)."""
        turn = player ^ self._first
        leg = action_to_leg(int(action), self._rules.board_size, turn)
        if leg is None:
            return f"action {action} (off the board)"
        names = [square_name(self._rules, leg.start), square_name(self._rules, leg.end)]
        return f"{names[0]}{'x' if self._jumps(leg) else '-'}{names[1]}"

    def _jumps(self, leg) -> bool:
        """Whether a leg passes over a piece (it is a capture's jump)."""
        geo = geometry(self._rules.board_size)
        between = 0
        for k in range(1, leg.distance):
            between |= 1 << int(geo.bit_of_index[geo.neighbour(leg.start, leg.direction, k)])
        return bool(between & (int(self._words[mg.S_WHITE]) | int(self._words[mg.S_BLACK])))

    def is_terminal(self) -> bool:
        return bool(self._words[G_STATUS] != STATUS_ON)

    def returns(self) -> list[float]:
        if self._words[G_STATUS] != STATUS_TERMINATED or self._words[G_WINNER] < 0:
            return [0.0, 0.0]
        winner = int(self._words[G_WINNER]) ^ self._first
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        from .render.text import board_to_text

        board = Board.from_state(self._rules, self._words[: mg.STATE_SIZE])
        text = board_to_text(board, last_move=False)
        legs = int(self._words[G_LEGS])
        if legs:
            geo = geometry(self._rules.board_size)
            bits = [int(self._words[G_START])] + [int(self._words[G_PATH + i]) for i in range(legs)]
            squares = [square_name(self._rules, int(geo.index_of_bit[b])) for b in bits]
            text += f"\nmove in progress: {'x'.join(squares)}"
        return f"{text}\nFEN: {self.fen()}"

    # ---------------------------------------------------------------- helpers

    def fen(self) -> str:
        """PDN FEN of the committed position (legs of a move in progress are not on it)."""
        return Board.from_state(self._rules, self._words[: mg.STATE_SIZE]).fen()

    def board(self) -> Board:
        """A :class:`~checkers_env.core.Board` of the committed position."""
        return Board.from_state(self._rules, self._words[: mg.STATE_SIZE])

    def game_words(self) -> np.ndarray:
        """A copy of the state's game words (:mod:`checkers_env.game`)."""
        return self._words.copy()

    def observation_planes(self, player: int) -> np.ndarray:
        """``float32[8, N, N]``: the planes ``player`` sees."""
        kit = _kit(self._rules)
        out = np.zeros_like(kit.obs)
        refresh_moves(self._words, kit.params, kit.moves, kit.scratch)
        kit.mask[:] = 0
        write_observation(self._words, player ^ self._first, kit.params, kit.tables, kit.moves, self._ply_scale, out,
                          kit.mask, kit.legal, kit.legal.shape[0], True)  # fmt: skip
        return out


class CheckersObserver:
    """OpenSpiel's Python observer: the planes as ``tensor`` (and ``dict["observation"]``), the board as text."""

    def __init__(self, rules: Rules, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        size = rules.board_size
        self.tensor = np.zeros(NUM_PLANES * size * size, dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(NUM_PLANES, size, size)}

    def set_from(self, state: CheckersState, player: int) -> None:
        self.dict["observation"][:] = state.observation_planes(player)

    def string_from(self, state: CheckersState, player: int) -> str:
        return str(state)


def _game_type(variant: str) -> pyspiel.GameType:
    rules = get_rules(variant)
    return pyspiel.GameType(
        short_name=PREFIX + rules.name,
        long_name=f"checkers_env {rules.name} draughts",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS),
    )


_GAME_TYPES = {name: _game_type(name) for name in variant_names()}
_GAME_CLASSES: dict[str, type[CheckersGame]] = {}


def register_games() -> list[str]:
    """Register every variant with ``pyspiel.register_game`` (done when this module is imported; idempotent)."""
    registered = set(pyspiel.registered_names())
    for name in variant_names():
        if name not in _GAME_CLASSES:
            _GAME_CLASSES[name] = type(f"CheckersGame_{name}", (CheckersGame,), {"variant": name})
        if PREFIX + name not in registered:
            pyspiel.register_game(_GAME_TYPES[name], _GAME_CLASSES[name])
    return list(GAME_NAMES)


def load_game(variant: str, **params) -> CheckersGame:
    """``pyspiel.load_game(game_name(variant), params)``, e.g. ``load_game("american", forced_capture=False)``."""
    return pyspiel.load_game(game_name(variant), params)


register_games()
