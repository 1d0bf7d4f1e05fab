"""Batched PUCT Monte-Carlo tree search over the rules core.

One :class:`BatchedMCTS` holds ``num_trees`` search trees (one per game being
played) in flat numpy arrays, walked by numba kernels. Each simulation round
descends every active tree to one leaf, gathers the leaves' observations into
one batch, evaluates it with the network (any :data:`Evaluator`), then expands
the leaves and backs their values up. So ``simulations`` rounds cost
``simulations`` batched network calls, whatever the number of games.

Nodes are leg-level, as the action encoding is: a multi-capture is several
legs by the same player, so a node's child may have the same player to move.
Each node records the colour that chose the action leading to it (``mover``)
and the colour to move in it (``turn``); a value is added with its sign for
the mover, which flips only when the player to move changes, never per ply.

Node state is the per-game int64 word array of :mod:`checkers_env.vector`
(committed position, legs taken in the move in progress). A node's state is
made only when the search first reaches it: the parent's words are copied
and :func:`checkers_env.vector.step_game` takes the leg. Copies are 46 words,
so search needs no undo.

A new node with a single legal leg (a forced capture, the only move) is not
sent to the network: it gets its one child at once and the descent goes on
through it, so a simulation ends at the next real choice. Checkers is full
of forced captures; this lets the search see past them for free, much as a
minimax quiescence search does.

Values are in ``[-1, 1]``: a win for the player concerned is +1. A game that
ends inside the tree (no legal move, the draw counter) gets its exact value.
Unvisited children are scored with the parent's value less ``fpu_reduction``
(first-play urgency), as Leela does.

Outputs for the caller are the visit counts of the root's children, spread
over the action space (``float32[B, num_actions]``), and the root value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from checkers_env.core import movegen as mg
from checkers_env.core.board import Board
from checkers_env.core.jit import kernel
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import make_tables, num_actions
from checkers_env.observation import NUM_PLANES, PLY_SCALE
from checkers_env.vector import (
    G_EP_PLY,
    G_WINNER,
    GAME_SIZE,
    STEP_ILLEGAL,
    STEP_OVERFLOW,
    STEP_TERMINATED,
    init_game,
    refresh_moves,
    step_game,
    write_observation,
)

__all__ = ["MCTSConfig", "BatchedMCTS", "Evaluator", "game_from_board", "uniform_evaluator"]

Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``(obs float32[k, 8, N, N], mask int8[k, A]) -> (priors float32[k, A], values float32[k])``.

Priors are zero on illegal actions and sum to 1 over the legal ones; values are
for the player to move in each observation."""


@dataclass(frozen=True)
class MCTSConfig:
    """Search settings."""

    simulations: int = 64
    """Simulations (network evaluations) per searched leg."""
    c_puct: float = 1.5
    """Exploration constant of the PUCT rule."""
    fpu_reduction: float = 0.25
    """Unvisited children are valued at the parent's value minus this."""
    dirichlet_alpha: float = 0.6
    """Concentration of the Dirichlet noise mixed into the root priors in self-play."""
    dirichlet_fraction: float = 0.25
    """Weight of that noise (0 disables it)."""
    discount: float = 1.0
    """Factor applied to a value for each whole move it is backed up through (1: none). Below 1, a win
    sooner is worth more than a win later, so the search makes progress in won endgames instead of
    shuffling kings until the draw rule; self-play value targets use the same factor."""

    def __post_init__(self) -> None:
        # the first simulation only expands the root: at least two are needed to visit a child
        if isinstance(self.simulations, bool) or not isinstance(self.simulations, int) or self.simulations < 2:
            raise ValueError(f"simulations must be an integer >= 2, got {self.simulations!r}")
        if self.c_puct <= 0:
            raise ValueError(f"c_puct must be positive, got {self.c_puct!r}")
        if self.dirichlet_alpha <= 0:
            raise ValueError(f"dirichlet_alpha must be positive, got {self.dirichlet_alpha!r}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount!r}")
        if not 0.0 <= self.dirichlet_fraction <= 1.0:
            raise ValueError(f"dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction!r}")


# ---------------------------------------------------------------- kernels

LEAF_NONE = 0  # tree inactive this round
LEAF_EVAL = 1  # a leaf was written to the batch and waits for the network
LEAF_DONE = 2  # the walk ended on a terminal node and was backed up already


@kernel
def _backup(b, path, depth, leaf_turn, v, visits, value_sum, mover, turn, discount):
    """Add value ``v`` (for colour ``leaf_turn``) along ``path[b, :depth + 1]``, times ``discount``
    for every whole move between the leaf and each node (a node's incoming leg ended a move when the
    side to move changed across it)."""
    for i in range(depth, -1, -1):
        node = path[b, i]
        visits[b, node] += 1
        if mover[b, node] == leaf_turn:
            value_sum[b, node] += v
        else:
            value_sum[b, node] -= v
        if turn[b, node] != mover[b, node]:
            v *= discount


@kernel
def _select_leaves(
    active, c_puct, fpu_reduction, discount, params, tables, moves, scratch,
    child_start, n_children, action, prior, visits, value_sum, mover, turn, slot, terminal, term_value,
    states, n_states, n_nodes, path, path_len, obs, masks, legal, n_legal, status,
):  # fmt: skip
    """Descend each active tree to a leaf; write the leaves that need the network into ``obs``/``masks``.

    A new node with a single legal leg (a forced capture, or the only move) is
    not evaluated: it gets its one child at once and the walk goes on through
    it, so forced sequences cost no network call and the search sees past them.
    """
    n_trees = active.shape[0]
    cap_states = states.shape[1]
    cap_nodes = child_start.shape[1]
    for b in range(n_trees):
        status[b] = LEAF_NONE
        if not active[b]:
            continue
        node = 0
        depth = 0
        path[b, 0] = 0
        while True:
            if terminal[b, node]:
                # exact value for the mover into this node
                _backup(b, path, depth, mover[b, node], term_value[b, node], visits, value_sum, mover, turn, discount)
                status[b] = LEAF_DONE
                break
            if child_start[b, node] < 0:
                if slot[b, node] < 0:
                    if n_states[b] >= cap_states:
                        # no room for another state: back up a neutral value
                        _backup(b, path, depth, mover[b, node], 0.0, visits, value_sum, mover, turn, discount)
                        status[b] = LEAF_DONE
                        break
                    parent = path[b, depth - 1]
                    s = n_states[b]
                    src = slot[b, parent]
                    for w in range(states.shape[2]):
                        states[b, s, w] = states[b, src, w]
                    code = step_game(states[b, s], action[b, node], params, tables, moves, scratch, 0, False)
                    if code == STEP_ILLEGAL or code == STEP_OVERFLOW:
                        raise RuntimeError("MCTS reached an illegal leg or a move buffer overflow")
                    n_states[b] = s + 1
                    slot[b, node] = s
                    game = states[b, s]
                    turn[b, node] = game[mg.S_TURN]
                    if code == STEP_TERMINATED:
                        terminal[b, node] = 1
                        winner = game[G_WINNER]
                        if winner < 0:
                            term_value[b, node] = 0.0
                        elif winner == mover[b, node]:
                            term_value[b, node] = 1.0
                        else:
                            term_value[b, node] = -1.0
                        _backup(
                            b,
                            path,
                            depth,
                            mover[b, node],
                            term_value[b, node],
                            visits,
                            value_sum,
                            mover,
                            turn,
                            discount,
                        )
                        status[b] = LEAF_DONE
                        break
                game = states[b, slot[b, node]]
                # ``moves`` may hold another node's list: note this state's moves again (no list
                # is made for a plain position)
                refresh_moves(game, params, moves, scratch)
                masks[b, :] = 0
                n_legal[b] = write_observation(
                    game, game[mg.S_TURN], params, tables, moves, PLY_SCALE, obs[b], masks[b], legal[b], legal.shape[1]
                )
                if n_legal[b] == 1 and n_nodes[b] < cap_nodes:
                    c = n_nodes[b]
                    _new_child(c, b, legal[b, 0], 1.0, turn[b, node], action, prior, visits, value_sum, mover, turn,
                               slot, terminal, child_start, n_children)  # fmt: skip
                    child_start[b, node] = c
                    n_children[b, node] = 1
                    n_nodes[b] = c + 1
                    depth += 1
                    path[b, depth] = c
                    node = c
                    continue
                path_len[b] = depth + 1
                status[b] = LEAF_EVAL
                break
            # PUCT choice among the children
            parent_n = visits[b, node]
            sign = 1.0 if mover[b, node] == turn[b, node] else -1.0
            parent_q = 0.0
            if parent_n > 0:
                parent_q = sign * value_sum[b, node] / parent_n
            fpu = parent_q - fpu_reduction
            sqrt_n = np.sqrt(max(parent_n, 1))
            best = -1
            best_score = -1e30
            first = child_start[b, node]
            for k in range(n_children[b, node]):
                c = first + k
                nc = visits[b, c]
                q = fpu if nc == 0 else value_sum[b, c] / nc
                score = q + c_puct * prior[b, c] * sqrt_n / (1.0 + nc)
                if score > best_score:
                    best_score = score
                    best = c
            depth += 1
            path[b, depth] = best
            node = best


@kernel(inline="always")
def _new_child(c, b, a, p, t, action, prior, visits, value_sum, mover, turn, slot, terminal, child_start, n_children):
    """Make node ``c`` of tree ``b``: reached by leg ``a`` with prior ``p``, chosen by colour ``t``; not yet visited."""
    action[b, c] = a
    prior[b, c] = p
    visits[b, c] = 0
    value_sum[b, c] = 0.0
    mover[b, c] = t
    turn[b, c] = -1
    slot[b, c] = -1
    terminal[b, c] = 0
    child_start[b, c] = -1
    n_children[b, c] = 0


@kernel
def _expand_backup(status, priors, values, n_legal, legal, child_start, n_children, action, prior, visits,
                   value_sum, mover, turn, slot, terminal, n_nodes, path, path_len, discount):  # fmt: skip
    """Give each evaluated leaf its children (one per legal leg) and back its value up."""
    cap_nodes = child_start.shape[1]
    for b in range(status.shape[0]):
        if status[b] != LEAF_EVAL:
            continue
        depth = path_len[b] - 1
        leaf = path[b, depth]
        k = n_legal[b]
        if n_nodes[b] + k <= cap_nodes and child_start[b, leaf] < 0:
            first = n_nodes[b]
            child_start[b, leaf] = first
            n_children[b, leaf] = k
            t = turn[b, leaf]
            for i in range(k):
                a = legal[b, i]
                _new_child(first + i, b, a, priors[b, a], t, action, prior, visits, value_sum, mover, turn, slot,
                           terminal, child_start, n_children)  # fmt: skip
            n_nodes[b] = first + k
        _backup(b, path, depth, turn[b, leaf], values[b], visits, value_sum, mover, turn, discount)


@kernel
def _init_roots(active, games, params, moves, scratch, child_start, n_children, visits, value_sum, mover, turn,
                slot, terminal, states, n_states, n_nodes):  # fmt: skip
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        for w in range(games.shape[1]):
            states[b, 0, w] = games[b, w]
        n_states[b] = 1
        n_nodes[b] = 1
        child_start[b, 0] = -1
        n_children[b, 0] = 0
        visits[b, 0] = 0
        value_sum[b, 0] = 0.0
        t = games[b, mg.S_TURN]
        mover[b, 0] = t
        turn[b, 0] = t
        slot[b, 0] = 0
        terminal[b, 0] = 0


@kernel
def _root_visits(active, child_start, n_children, action, visits, value_sum, mover, out, root_value):
    for b in range(active.shape[0]):
        out[b, :] = 0.0
        root_value[b] = 0.0
        if not active[b]:
            continue
        first = child_start[b, 0]
        for k in range(n_children[b, 0]):
            c = first + k
            out[b, action[b, c]] = visits[b, c]
        if visits[b, 0] > 0:
            root_value[b] = value_sum[b, 0] / visits[b, 0]


# ---------------------------------------------------------------- Python side


def game_from_board(board: Board) -> np.ndarray:
    """The per-game word array (vector.py layout) of a :class:`Board`'s position, no move in progress."""
    game = np.zeros(GAME_SIZE, dtype=np.int64)
    game[: mg.STATE_SIZE] = board.state
    init_game(game, board.params, mg.new_move_buffer(), mg.new_scratch())
    game[G_EP_PLY] = board.ply
    return game


def uniform_evaluator(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal actions and value 0: plain UCT with no rollouts."""
    m = masks.astype(np.float32)
    priors = m / np.maximum(m.sum(axis=1, keepdims=True), 1.0)
    return priors, np.zeros(len(obs), dtype=np.float32)


class BatchedMCTS:
    """``num_trees`` PUCT trees searched together.

    Args:
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        num_trees: games searched at once (the network batch size).
        config: search settings.

    :meth:`search` runs ``config.simulations`` rounds from given root states.
    """

    def __init__(self, variant: str | Rules, num_trees: int, config: MCTSConfig | None = None):
        self.rules = get_rules(variant) if isinstance(variant, str) else variant
        if num_trees < 1:
            raise ValueError(f"num_trees must be at least 1, got {num_trees}")
        self.config = config or MCTSConfig()
        self.num_trees = int(num_trees)
        size = self.rules.board_size
        self.num_actions = num_actions(size)
        self._params = mg.make_params(self.rules)
        self._tables = make_tables(size)
        self._moves = mg.new_move_buffer()
        self._scratch = mg.new_scratch()
        b = self.num_trees
        sims = self.config.simulations
        # a simulation makes one state per new node: the evaluated leaf and the forced legs before it
        n_states = 4 * sims + 2
        # an evaluated leaf adds one child per legal leg, a forced leg one; a full tree just stops
        # growing (the leaf is still evaluated)
        n_nodes = 1 + sims * 48 + n_states
        self._child_start = np.full((b, n_nodes), -1, dtype=np.int32)
        self._n_children = np.zeros((b, n_nodes), dtype=np.int32)
        self._action = np.zeros((b, n_nodes), dtype=np.int32)
        self._prior = np.zeros((b, n_nodes), dtype=np.float32)
        self._visits = np.zeros((b, n_nodes), dtype=np.int32)
        self._value_sum = np.zeros((b, n_nodes), dtype=np.float32)
        self._mover = np.zeros((b, n_nodes), dtype=np.int8)
        self._turn = np.zeros((b, n_nodes), dtype=np.int8)
        self._slot = np.full((b, n_nodes), -1, dtype=np.int32)
        self._terminal = np.zeros((b, n_nodes), dtype=np.int8)
        self._term_value = np.zeros((b, n_nodes), dtype=np.float32)
        self._states = np.zeros((b, n_states, GAME_SIZE), dtype=np.int64)
        self._n_states = np.zeros(b, dtype=np.int32)
        self._n_nodes = np.zeros(b, dtype=np.int32)
        self._path = np.zeros((b, n_states + 1), dtype=np.int32)
        self._path_len = np.zeros(b, dtype=np.int32)
        self._obs = np.zeros((b, NUM_PLANES, size, size), dtype=np.float32)
        self._masks = np.zeros((b, self.num_actions), dtype=np.int8)
        self._legal = np.zeros((b, self.num_actions), dtype=np.int64)
        self._n_legal = np.zeros(b, dtype=np.int64)
        self._status = np.zeros(b, dtype=np.int8)
        self._priors = np.zeros((b, self.num_actions), dtype=np.float32)
        self._values = np.zeros(b, dtype=np.float32)

    def _round(self, active: np.ndarray, evaluator: Evaluator) -> None:
        c = self.config
        _select_leaves(
            active, c.c_puct, c.fpu_reduction, c.discount, self._params, self._tables, self._moves, self._scratch,
            self._child_start, self._n_children, self._action, self._prior, self._visits, self._value_sum,
            self._mover, self._turn, self._slot, self._terminal, self._term_value, self._states, self._n_states,
            self._n_nodes, self._path, self._path_len, self._obs, self._masks, self._legal, self._n_legal,
            self._status,
        )  # fmt: skip
        need = np.flatnonzero(self._status == LEAF_EVAL)
        if need.size:
            priors, values = evaluator(self._obs[need], self._masks[need])
            self._priors[need] = priors
            self._values[need] = values
        _expand_backup(
            self._status, self._priors, self._values, self._n_legal, self._legal, self._child_start,
            self._n_children, self._action, self._prior, self._visits, self._value_sum, self._mover, self._turn,
            self._slot, self._terminal, self._n_nodes, self._path, self._path_len, c.discount,
        )  # fmt: skip

    def search(
        self,
        games: np.ndarray,
        active: np.ndarray,
        evaluator: Evaluator,
        rng: np.random.Generator | None = None,
        simulations: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search from ``games[b]`` (vector.py word arrays) for every ``b`` with ``active[b]``.

        ``rng`` given: Dirichlet noise is mixed into each root's priors (self-play);
        ``None``: no noise (evaluation play). Returns ``(visits float32[B, A],
        root_value float32[B])``: root children's visit counts spread over the
        action space, and the root value for the player to move. Games must
        not be over.
        """
        games = np.ascontiguousarray(games, dtype=np.int64)
        active = np.ascontiguousarray(active, dtype=np.bool_)
        if games.shape != (self.num_trees, GAME_SIZE) or active.shape != (self.num_trees,):
            raise ValueError(f"games must be int64[{self.num_trees}, {GAME_SIZE}] and active bool[{self.num_trees}]")
        sims = self.config.simulations if simulations is None else int(simulations)
        if not 2 <= sims <= self.config.simulations:
            raise ValueError(f"simulations must be in 2..{self.config.simulations}, got {sims}")
        _init_roots(
            active, games, self._params, self._moves, self._scratch, self._child_start, self._n_children,
            self._visits, self._value_sum, self._mover, self._turn, self._slot, self._terminal, self._states,
            self._n_states, self._n_nodes,
        )  # fmt: skip
        # the first round expands the roots (it counts as a simulation, as in AlphaZero)
        self._round(active, evaluator)
        if rng is not None and self.config.dirichlet_fraction > 0:
            self._add_noise(active, rng)
        for _ in range(sims - 1):
            self._round(active, evaluator)
        visits = np.zeros((self.num_trees, self.num_actions), dtype=np.float32)
        root_value = np.zeros(self.num_trees, dtype=np.float32)
        _root_visits(
            active, self._child_start, self._n_children, self._action, self._visits, self._value_sum, self._mover,
            visits, root_value,
        )  # fmt: skip
        return visits, root_value

    def _add_noise(self, active: np.ndarray, rng: np.random.Generator) -> None:
        eps = self.config.dirichlet_fraction
        for b in np.flatnonzero(active):
            first = self._child_start[b, 0]
            k = self._n_children[b, 0]
            if first < 0 or k < 2:
                continue
            noise = rng.dirichlet(np.full(k, self.config.dirichlet_alpha))
            p = self._prior[b, first : first + k]
            self._prior[b, first : first + k] = (1 - eps) * p + eps * noise
