"""The batched single-agent view: a ``gymnasium.vector.VectorEnv`` of many games, the learner against an opponent.

    >>> import gymnasium, checkers_env
    >>> envs = gymnasium.make_vec("checkers/american-v0", num_envs=256, vectorization_mode="vector_entry_point")
    >>> obs, infos = envs.reset(seed=0)
    >>> obs.shape, infos["action_mask"].shape, envs.single_action_space
    ((256, 8, 8, 8), (256, 896), Discrete(896))
    >>> obs, rewards, terminations, truncations, infos = envs.step(envs.sample_actions())

Every game is the leg-level game of :mod:`checkers_env.game`, stepped by its
kernels in one compiled loop as :class:`~checkers_env.vector.VectorEnv` steps
them; no rule is re-implemented. One ``step`` takes one leg of the learner's
move in every game, then the opponent's legs until each game is back at the
learner's turn:

* the ``"random"`` opponent plays inside the same compiled call;
* any other opponent (:mod:`checkers_env.opponents`: an agent spec such as
  ``"minimax:2"`` or a checkpoint, an agent object, or a batched callable
  ``opponent(observations[k], action_masks[k]) -> actions[k]``, e.g. a torch
  policy of the learner's past self) is called once per round with every game
  waiting on it, never game by game: an agent through
  :meth:`~agents.base.Agent.select_moves` on the boards of those games (whole
  moves), a callable on the opponent's observation planes and masks (one leg
  each; a multi-capture takes more rounds).

| what | value |
|---|---|
| ``single_observation_space`` | ``Box(0, 1, (8, N, N), float32)``: planes seen by the learner |
| ``single_action_space`` | ``Discrete(896)`` (8x8) or ``Discrete(1800)`` (10x10): one leg |
| masks | ``action_masks()`` (``bool[num_envs, A]``) and ``infos["action_mask"]`` (``int8``) |
| rewards | ``float32[num_envs]``, the learner's: +1 win, -1 loss, 0 otherwise, at a game's last step |
| autoreset | ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``) |

**Autoreset.** A game that ends at a step is reset in that step: the
observation returned for it is already the learner's first one of the next
game (after the opponent's opening legs when the opponent moves first). The
last observation of the finished game is in ``infos["final_obs"]`` (an object
array, ``None`` for games that did not end; ``infos["_final_obs"]`` marks
those that did) and ``infos["final_info"]`` holds that game's info, as
Gymnasium's ``SyncVectorEnv`` reports in this mode.

**Illegal actions.** ``illegal_action="lose"`` (default): the learner loses
that game (reward -1, terminated, ``infos["illegal_action"]`` true for it).
``"raise"``: :class:`~checkers_env.core.IllegalMoveError` naming the game and
its legal actions, before any game is stepped.

**Sides.** ``agent="player_0"`` (the learner moves first), ``"player_1"``, or
``"alternate"`` (``player_0`` in even-numbered games, ``player_1`` in odd ones).

**Random numbers.** Game ``e`` has the generator of game ``e`` of
``VectorEnv(seed=seed)``, advanced once for every leg of either side as
``VectorEnv.sample_actions`` advances it: with the random opponent, a game
here is the game ``VectorEnv`` plays when its learner's legs are given and the
opponent's are sampled (the tests check it step by step).

**Errors.** An opponent that raises, or returns an illegal leg, leaves every
game as it was before the step (the step is undone), and the error is raised
(``ValueError`` naming the game for an illegal leg).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.extras import missing

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as exc:
    raise missing("gymnasium", "the Gymnasium vector environment", exc) from exc

from .core import movegen as mg
from .core.board import Board
from .core.errors import IllegalMoveError
from .core.jit import kernel
from .core.variants import Rules, get_rules
from .encoding import make_tables, move_to_actions, num_actions
from .game import (
    G_WINNER,
    GAME_SIZE,
    LEGAL_CAPACITY,
    STEP_TERMINATED,
    clear_mask,
    copy_words,
    init_game,
    refresh_moves,
    sample_actions,
    sample_one,
    step_game,
    write_observation,
)
from .observation import NUM_PLANES, PLY_SCALE
from .opponents import resolve_opponent

__all__ = ["GymVectorEnv", "AGENT_OPTIONS"]

AGENT_OPTIONS = ("player_0", "player_1", "alternate")

# the environment's fixed arrays, passed to the kernels as one tuple
# (games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent)
# and its outputs:
# (obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting)


@kernel
def _observe(game, e, who, env, out):
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
    counts[e] = write_observation(
        game, who, params, tables, moves, ply_scale, obs[e], masks[e], legal[e], legal.shape[1], True
    )


@kernel
def _end_game(e, code, env, out):
    """Score a game that just ended (from the learner's side), keep its last observation, reset it."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    game = games[e]
    if code == STEP_TERMINATED:
        terminations[e] = True
        winner = game[G_WINNER]
        if winner >= 0:
            rewards[e] = 1.0 if winner == learner[e] else -1.0
    else:
        truncations[e] = True
    ended[e] = True
    clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
    counts[e] = write_observation(
        game, learner[e], params, tables, moves, ply_scale, final_obs[e], masks[e], legal[e], legal.shape[1], True
    )
    copy_words(game, start)
    init_game(game, params, moves, scratch)


@kernel
def _settle(e, env, out):
    """Play the random opponent's legs (or mark the game as waiting for the opponent) until
    the learner is to move; write what the side to decide sees."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    game = games[e]
    cap = legal.shape[1]
    while game[mg.S_TURN] != learner[e]:
        if not random_opponent:
            waiting[e] = True
            _observe(game, e, game[mg.S_TURN], env, out)
            return 0
        clear_mask(masks[e], legal[e], counts[e], cap)
        counts[e] = write_observation(
            game, game[mg.S_TURN], params, tables, moves, ply_scale, obs[e], masks[e], legal[e], cap, False
        )
        action = sample_one(rng, e, masks[e], legal[e], counts[e])
        code = step_game(game, action, params, tables, moves, scratch, max_moves, True)
        if code < 0:
            return -1
        if code >= STEP_TERMINATED:
            _end_game(e, code, env, out)
    waiting[e] = False
    _observe(game, e, learner[e], env, out)
    return 0


@kernel
def _reset_all(env, out):
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    for e in range(games.shape[0]):
        copy_words(games[e], start)
        init_game(games[e], params, moves, scratch)
        if _settle(e, env, out) < 0:
            return e
    return -1


@kernel
def _forfeit(e, env, out):
    """The learner's illegal leg in game ``e``: it loses; its last observation is of the unchanged position."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    game = games[e]
    illegal[e] = True
    terminations[e] = True
    rewards[e] = -1.0
    ended[e] = True
    clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
    counts[e] = write_observation(
        game, learner[e], params, tables, moves, ply_scale, final_obs[e], masks[e], legal[e], legal.shape[1], True
    )
    copy_words(game, start)
    init_game(game, params, moves, scratch)


@kernel
def _learner_step(actions, lose_on_illegal, env, out):
    """One learner leg in every game, then the opponent's legs (random) or a mark that the game waits
    for the opponent. Returns -1, or the index of a game whose move buffer overflowed."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    n_actions = masks.shape[1]
    for e in range(games.shape[0]):
        rewards[e] = 0.0
        terminations[e] = False
        truncations[e] = False
        illegal[e] = False
        ended[e] = False
        game = games[e]
        a = actions[e]
        sample_one(rng, e, masks[e], legal[e], 0)  # the learner's leg advances the generator too (docstring)
        if a < 0 or a >= n_actions or masks[e, a] == 0:
            if not lose_on_illegal:
                return e
            _forfeit(e, env, out)
        else:
            clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
            code = step_game(game, a, params, tables, moves, scratch, max_moves, True)
            if code < 0:
                return e
            if code >= STEP_TERMINATED:
                _end_game(e, code, env, out)
        if _settle(e, env, out) < 0:
            return e
    return -1


@kernel
def _opponent_legs(index, legs, nlegs, env, out):
    """Play the opponent's legs ``legs[j, :nlegs[j]]`` in game ``index[j]``, then settle it.
    Returns -1, or ``j`` of the first game whose legs were illegal (that game is left mid-way)."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    for j in range(index.shape[0]):
        e = index[j]
        game = games[e]
        clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
        counts[e] = 0
        for i in range(nlegs[j]):
            sample_one(rng, e, masks[e], legal[e], 0)
            code = step_game(game, legs[j, i], params, tables, moves, scratch, max_moves, False)
            if code < 0 or (code != 0 and i + 1 < nlegs[j]):
                return j
            if code >= STEP_TERMINATED:
                _end_game(e, code, env, out)
        if _settle(e, env, out) < 0:
            return j
    return -1


@kernel
def _observe_all(env, out):
    """Rewrite what every game's deciding side sees (after the games were restored)."""
    games, start, params, tables, moves, scratch, max_moves, ply_scale, learner, rng, random_opponent = env
    obs, masks, legal, counts, rewards, terminations, truncations, illegal, final_obs, ended, waiting = out
    for e in range(games.shape[0]):
        game = games[e]
        # the committed position's moves, which write_observation reads (a move in progress included)
        if refresh_moves(game, params, moves, scratch) < 0:
            return e
        _observe(game, e, game[mg.S_TURN] if waiting[e] else learner[e], env, out)
    return -1


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, the learner against ``opponent`` in each (module docstring).

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules`.
        num_envs: number of games.
        opponent: ``"random"`` (default), an agent spec text, an agent, or a batched callable
            ``(observations[k], masks[k]) -> actions[k]`` (:mod:`checkers_env.opponents`).
        agent: ``"player_0"``, ``"player_1"`` or ``"alternate"``.
        max_moves: truncate a game after this many whole moves of both sides (None: no cap).
        illegal_action: ``"lose"`` or ``"raise"``.
        seed: seeds the games' generators (``reset(seed=...)`` reseeds them).
        copy: return copies of the observation, mask and reward arrays (default); False
            returns read-only views that the next ``step`` or ``reset`` overwrites.
        opponent_seed: seed of an opponent built from a spec.
        render_mode: not supported (None); draw a game with ``board(i)``.
        **rule_overrides: rule fields to override, e.g. ``forced_capture=False``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, variant: str | Rules = "american", num_envs: int = 1, opponent: Any = "random",
                 agent: str = "player_0", max_moves: int | None = None, illegal_action: str = "lose",
                 seed: int | None = None, copy: bool = True, opponent_seed: int | None = None,
                 render_mode: str | None = None, **rule_overrides):  # fmt: skip
        rules = get_rules(variant, **rule_overrides)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if agent not in AGENT_OPTIONS:
            raise ValueError(f"agent must be one of {AGENT_OPTIONS}, got {agent!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        if max_moves is not None and (
            isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or max_moves < 1
        ):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        if rules.repetition_draw:
            raise ValueError("the vector env does not support repetition_draw (it keeps no game history)")
        if render_mode is not None:
            raise ValueError(f"the vector env does not render (render_mode must be None, got {render_mode!r})")
        self.rules: Rules = rules
        self.opponent = resolve_opponent(opponent, rules, opponent_seed)
        """The opponent, sorted by how it plays (:class:`~checkers_env.opponents.ResolvedOpponent`)."""
        self.agent_choice = agent
        self.illegal_action = illegal_action
        self.copy = bool(copy)
        self.render_mode = None
        self.num_envs = int(num_envs)
        self.max_moves = int(max_moves or 0)
        size = rules.board_size
        self._num_actions = num_actions(size)
        self.single_observation_space = spaces.Box(0.0, 1.0, (NUM_PLANES, size, size), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self._num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        e = self.num_envs
        first = int(rules.first_player)
        sides = np.zeros(e, dtype=np.int64) if agent == "player_0" else np.ones(e, dtype=np.int64)
        if agent == "alternate":
            sides = np.arange(e, dtype=np.int64) % 2
        self.learner_colors = (sides ^ first).astype(np.int64)
        """``int64[num_envs]``: the learner's colour (0 White, 1 Black) in each game."""
        self.learner_colors.flags.writeable = False
        start = np.zeros(GAME_SIZE, dtype=np.int64)
        start[: mg.STATE_SIZE] = Board(rules).state
        self._games = np.zeros((e, GAME_SIZE), dtype=np.int64)
        self._rng = np.zeros(e, dtype=np.uint64)
        self._learner_rng = np.zeros(e, dtype=np.uint64)
        self._env = (
            self._games, start, mg.make_params(rules), make_tables(size), mg.new_move_buffer(), mg.new_scratch(),
            self.max_moves, self.max_moves or PLY_SCALE, self.learner_colors, self._rng,
            self.opponent.kind == "random",
        )  # fmt: skip
        self._obs = np.zeros((e, NUM_PLANES, size, size), dtype=np.float32)
        self._masks = np.zeros((e, self._num_actions), dtype=np.int8)
        self._legal = np.zeros((e, LEGAL_CAPACITY), dtype=np.int64)
        self._counts = np.full(e, self._num_actions + LEGAL_CAPACITY, dtype=np.int64)  # forces a full clear
        self._rewards = np.zeros(e, dtype=np.float32)
        self._terminations = np.zeros(e, dtype=np.bool_)
        self._truncations = np.zeros(e, dtype=np.bool_)
        self._illegal = np.zeros(e, dtype=np.bool_)
        self._final_obs = np.zeros_like(self._obs)
        self._ended = np.zeros(e, dtype=np.bool_)
        self._waiting = np.zeros(e, dtype=np.bool_)
        self._out = (
            self._obs, self._masks, self._legal, self._counts, self._rewards, self._terminations,
            self._truncations, self._illegal, self._final_obs, self._ended, self._waiting,
        )  # fmt: skip
        self._actions = np.zeros(e, dtype=np.int64)
        self._seed(seed)
        self._started = False

    # ---------------------------------------------------------------- internals

    def _seed(self, seed: int | None) -> None:
        # the per-game generators of VectorEnv(seed=seed)
        sequence = np.random.SeedSequence(seed)
        self._rng[:] = sequence.generate_state(self.num_envs, dtype=np.uint64)
        self._learner_rng[:] = sequence.spawn(1)[0].generate_state(self.num_envs, dtype=np.uint64)
        if seed is not None:
            self.action_space.seed(seed)
        if self.opponent.kind == "agent" and hasattr(self.opponent.player, "reset"):
            self.opponent.player.reset(seed=None if seed is None else seed + 1)

    def _snapshot(self) -> tuple[np.ndarray, ...] | None:
        if self.opponent.kind == "random":
            return None
        return (self._games.copy(), self._rng.copy(), self._waiting.copy())

    def _restore(self, saved: tuple[np.ndarray, ...] | None) -> None:
        if saved is None:
            return
        self._games[:], self._rng[:], self._waiting[:] = saved
        self._rewards[:] = 0.0
        self._terminations[:] = False
        self._truncations[:] = False
        self._illegal[:] = False
        self._ended[:] = False
        _observe_all(self._env, self._out)

    def _play_opponent(self) -> None:
        """Rounds of the non-random opponent: one call for every game waiting on it, until none waits."""
        opponent = self.opponent
        while self._waiting.any():
            index = np.flatnonzero(self._waiting)
            if opponent.kind == "agent":
                boards = [Board.from_state(self.rules, self._games[k, : mg.STATE_SIZE]) for k in index]
                moves = opponent.player.select_moves(boards)
                if len(moves) != len(boards):
                    raise ValueError(f"the opponent returned {len(moves)} moves for {len(boards)} boards")
                legs = np.zeros((len(index), mg.MAX_LEGS), dtype=np.int64)
                nlegs = np.zeros(len(index), dtype=np.int64)
                for j, (board, move) in enumerate(zip(boards, moves)):
                    actions = move_to_actions(move, self.rules.board_size, int(board.turn))
                    legs[j, : len(actions)] = actions
                    nlegs[j] = len(actions)
            else:
                actions = np.asarray(opponent.player(self._obs[index].copy(), self._masks[index].copy()))
                if actions.shape != (len(index),) or not np.issubdtype(actions.dtype, np.integer):
                    raise ValueError(
                        f"the opponent must return an integer array of shape ({len(index)},), "
                        f"got {actions.dtype} array of shape {actions.shape}"
                    )
                legal = (actions >= 0) & (actions < self._num_actions)
                legal[legal] = self._masks[index[legal], actions[legal]] == 1
                if not legal.all():
                    j = int(np.flatnonzero(~legal)[0])
                    raise IllegalMoveError(
                        f"the opponent played illegal action {int(actions[j])} in game {int(index[j])}; legal "
                        f"actions there: {np.flatnonzero(self._masks[index[j]]).tolist()}"
                    )
                legs = actions.astype(np.int64).reshape(-1, 1)
                nlegs = np.ones(len(index), dtype=np.int64)
            bad = _opponent_legs(index.astype(np.int64), legs, nlegs, self._env, self._out)
            if bad >= 0:
                raise IllegalMoveError(
                    f"the opponent's move {moves[bad] if opponent.kind == 'agent' else legs[bad, 0]} is not legal "
                    f"in game {int(index[bad])} (position {self.board(int(index[bad])).fen()})"
                )

    def _infos(self) -> dict[str, Any]:
        infos: dict[str, Any] = {
            "action_mask": self._view(self._masks),
            "_action_mask": np.ones(self.num_envs, dtype=np.bool_),
        }
        if self._illegal.any():
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal.copy()
        if self._ended.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            done = np.flatnonzero(self._ended)
            for k in done:  # one object per finished game, as Gymnasium's final_obs is
                final_obs[k] = self._final_obs[k].copy()
            infos["final_obs"] = final_obs
            infos["_final_obs"] = self._ended.copy()
            infos["final_info"] = {"illegal_action": self._illegal.copy(), "_illegal_action": self._ended.copy()}
            infos["_final_info"] = self._ended.copy()
        return infos

    def _view(self, a: np.ndarray) -> np.ndarray:
        if self.copy:
            return a.copy()
        v = a.view()
        v.flags.writeable = False
        return v

    # ---------------------------------------------------------------- Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game (the opponent's opening legs played where it moves first).

        ``seed`` reseeds the games' generators (and an agent opponent's).
        Returns the learner's observations and ``{"action_mask": int8[num_envs, A]}``.
        """
        if seed is not None:  # else the generators go on (from the constructor's seed at first)
            self._seed(seed)
        self._waiting[:] = False
        self._counts[:] = self._num_actions + LEGAL_CAPACITY
        bad = _reset_all(self._env, self._out)
        if bad >= 0:
            raise mg.MoveBufferOverflow(f"move buffer overflow in game {bad}")
        self._ended[:] = False
        self._play_opponent()
        self._ended[:] = False
        self._started = True
        return self._view(self._obs), {
            "action_mask": self._view(self._masks),
            "_action_mask": np.ones(self.num_envs, dtype=np.bool_),
        }

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One leg of the learner in every game, then the opponent's legs (module docstring)."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), got {acts.dtype} array of shape "
                f"{acts.shape}"
            )
        self._actions[:] = acts
        lose = self.illegal_action == "lose"
        if not lose:
            ok = (acts >= 0) & (acts < self._num_actions)
            ok[ok] = self._masks[np.flatnonzero(ok), acts[ok]] == 1
            if not ok.all():
                e = int(np.flatnonzero(~ok)[0])
                raise IllegalMoveError(
                    f"illegal action {int(acts[e])} in game {e}; legal actions there: "
                    f"{np.flatnonzero(self._masks[e]).tolist()}"
                )
        saved = self._snapshot()
        bad = _learner_step(self._actions, lose, self._env, self._out)
        if bad >= 0:
            self._restore(saved)
            raise mg.MoveBufferOverflow(f"move buffer overflow in game {bad}")
        try:
            self._play_opponent()
        except BaseException:
            self._restore(saved)
            raise
        return (
            self._view(self._obs),
            self._view(self._rewards),
            self._view(self._terminations),
            self._view(self._truncations),
            self._infos(),
        )

    def set_opponent(self, opponent: Any, seed: int | None = None) -> None:
        """Play the next steps against ``opponent`` (any form of :mod:`checkers_env.opponents`;
        ``seed`` seeds one built from a spec). Games in progress go on against it: every game is
        at the learner's turn between steps. A pool of opponents is this, called between rollouts.
        """
        self.opponent = resolve_opponent(opponent, self.rules, seed)
        self._env = (*self._env[:-1], self.opponent.kind == "random")

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, A]``: the learner's legal legs in every game."""
        return self._masks.astype(bool)

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal leg for the learner in every game (``int64[num_envs]``, a new array),
        from generators of its own (seeded with the games' at ``reset(seed=...)``): the games' own
        generators stay the opponent's."""
        out = np.empty(self.num_envs, dtype=np.int64)
        sample_actions(self._learner_rng, self._masks, self._legal, self._counts, out)
        return out

    def board(self, index: int) -> Board:
        """A :class:`~checkers_env.core.Board` of game ``index``'s committed position."""
        return Board.from_state(self.rules, self._games[index, : mg.STATE_SIZE])

    def close_extras(self, **kwargs) -> None:
        """Nothing to release: the games are arrays."""

    def __repr__(self) -> str:
        return (
            f"GymVectorEnv({self.rules.name!r}, num_envs={self.num_envs}, opponent={self.opponent.name!r}, "
            f"agent={self.agent_choice!r})"
        )
