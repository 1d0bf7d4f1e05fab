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

The trees are one :class:`Tree` of arrays, ``[B, N]`` for node fields (B
trees of at most N nodes), as mctx keeps its search state. Node state is the
game words of :mod:`checkers_env.game` (committed position, legs taken in the
move in progress). A node's state is made only when the search first reaches
it: the parent's words are copied and :func:`checkers_env.game.step_game`
takes the leg. Copies are 47 words, so search needs no undo.

A new node with a single legal leg (a forced capture, the only move) is not
sent to the network: it gets its one child at once and the descent goes on
through it, so a simulation ends at the next real choice. Checkers is full
of forced captures; this lets the search see past them for free, much as a
minimax quiescence search does.

Values are in ``[-1, 1]``: a win for the player concerned is +1. A game that
ends inside the tree (no legal move, the draw counter) gets its exact value.
Unvisited children are scored with the parent's value less ``fpu_reduction``
(first-play urgency), as Leela does. With ``minimax_weight`` a child's score
mixes its mean value with the minimax of the values below it (implicit
minimax backups), so a refutation found deep in a line counts at once.

The root is searched by PUCT, as in AlphaZero, or by Gumbel AlphaZero's
sequential halving (``MCTSConfig.root``). A search returns a
:class:`SearchResult`: the visit counts of the root's children and the
policy target, both spread over the action space (``float32[B,
num_actions]``), the root value, and (Gumbel) the leg chosen.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from checkers_env.core import movegen as mg
from checkers_env.core.jit import kernel
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import make_tables, num_actions
from checkers_env.game import (
    G_WINNER,
    GAME_SIZE,
    STEP_ILLEGAL,
    STEP_OVERFLOW,
    STEP_TERMINATED,
    refresh_moves,
    same_position,
    step_game,
    write_observation,
)
from checkers_env.observation import NUM_PLANES, PLY_SCALE, material_lead

__all__ = [
    "MCTSConfig",
    "BatchedMCTS",
    "Evaluator",
    "Tree",
    "LeafBatch",
    "ROOT_INDEX",
    "UNVISITED",
    "uniform_evaluator",
]

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
    prior_temperature: float = 1.0
    """Temperature of the network's prior in the search: each evaluated node's priors are raised to the
    power ``1 / prior_temperature`` and renormalised over its legal legs before the search reads them
    (the root noise, in self-play, is mixed in afterwards). 1: the network's prior as it is; below 1
    sharper, putting the visits of a flat prior on the legs the network prefers; above 1 flatter.
    1 by default: at play, on the 60-minute international checkpoint at 128 simulations against
    minimax:4 (docs/BENCHMARKS.md, 2026-12-07), 0.5 scored -0.055 [-0.174, +0.064] and 0.7, over two
    sets of openings, +0.015 [-0.074, +0.104], paired with 1; 1.5 led its tuning match by +0.145 but
    scored +0.008 [-0.063, +0.080] over 300 games with three checkpoints on other openings."""
    dirichlet_alpha: float = 0.6
    """Concentration of the Dirichlet noise mixed into the root priors in self-play. 1.0 (AlphaZero's
    rule of about 10 over the legal moves, for international's 9.7 legs) scored -0.040 [-0.149, +0.069]
    against minimax:4 and -0.025 [-0.139, +0.089] against minimax:2 paired, side by side with 0.6
    (international, 40 minutes on one core each; docs/BENCHMARKS.md)."""
    dirichlet_fraction: float = 0.25
    """Weight of that noise (0 disables it). AlphaZero's self-play uses 0.4, measured against 0.1 and
    this 0.25 (``train.alphazero.config.AlphaZeroConfig.mcts`` gives the figures)."""
    discount: float = 1.0
    """Factor applied to a value for each whole move it is backed up through (1: none). Below 1, a win
    sooner is worth more than a win later, so the search makes progress in won endgames instead of
    shuffling kings until the draw rule; self-play value targets use the same factor."""
    root: Literal["puct", "gumbel"] = "puct"
    """How the root spends its simulations. ``puct``: AlphaZero's PUCT rule with Dirichlet noise, the
    policy target is the visit distribution. ``gumbel``: Gumbel AlphaZero (Danihelka et al., 2022):
    Gumbel-Top-k sampling of the root legs without replacement and sequential halving among them,
    the leg played is the halving's winner and the policy target is the softmax of the prior logits
    plus the completed Q-values, which improves on the prior even with few simulations. Below the
    root both use PUCT. In self-play with the playout cap it lost to PUCT side by side on international
    (-0.175 [-0.292, -0.058] against minimax:4, 40 minutes on one core each; docs/BENCHMARKS.md),
    likely because its quick searches spread 16 simulations over up to 16 legs and play a one-visit
    estimate. Without the cap, 32 simulations on every leg and every leg a target, it lost too (-0.115
    [-0.230, -0.000], 30 minutes)."""
    gumbel_considered: int = 16
    """Root legs sequential halving starts with (gumbel)."""
    gumbel_scale: float = 1.0
    """Scale of the Gumbel noise added to the root logits in self-play (gumbel; 0: none)."""
    gumbel_value_scale: float = 0.1
    """``c_scale`` of the completed-Q transform ``(c_visit + max visits) * c_scale * q`` (gumbel)."""
    gumbel_visit_offset: float = 50.0
    """``c_visit`` of that transform (gumbel)."""
    reuse_tree: bool = False
    """Keep what earlier searches learnt: a search whose root position is held by a node of its tree
    (the position after the leg played and the opponent's reply, as AlphaGo Zero keeps the subtree
    of the move played) starts from that node's subtree, visits and values included, and adds its
    ``simulations`` to them. The trees are made twice as large, so the kept subtree and a full search
    both fit (a larger subtree is dropped). PUCT root only: sequential halving plans a fresh root.
    Off by default: measured side by side (docs/BENCHMARKS.md, 2026-12-05), an american checkpoint at
    128 simulations kept 20 visits a search on average against minimax:4 and scored -0.02 [-0.085,
    +0.045] paired; in self-play (30 minutes on one core) +0.03 [-0.068, +0.128]. On international
    self-play (45 minutes on one core) it played 14% fewer games (a kept subtree's simulations reach
    new positions, where a fresh search's repeat its last search's and the evaluation cache answers
    them) and scored +0.185 [+0.06, +0.31] against minimax:2, +0.015 [-0.10, +0.13] against
    minimax:4; on other openings and another seed (2026-12-06) -0.08 [-0.20, +0.04] and -0.075
    [-0.19, +0.04]; over 60 minutes on two cores 0.47 against minimax:4, within noise of the other
    60-minute runs. No gain over both seeds."""

    material_mix: float = 0.0
    """Weight of a material estimate in the value of every leaf the network evaluates:
    ``(1 - w) * network value + w * tanh(material lead / material_scale)``, the lead (man 1, king 1.5)
    being the leaf's player to move's (:func:`checkers_env.observation.material_lead`). 0: the
    network alone, as AlphaZero. A weak network's values barely tell a position a man down from an
    even one, which a few plies of search then cannot exploit; the material term gives the search
    that signal from the first game, as AlphaGo mixed its value network with rollouts. Exact values
    of ended games are not mixed. Off by default: on international, 0.3 scored -0.05 [-0.17, +0.07]
    at play (a 60-minute checkpoint against minimax:4) and -0.04 [-0.15, +0.07] in training (45
    minutes on one core each, side by side; docs/BENCHMARKS.md)."""
    material_scale: float = 3.0
    """Material lead that the material estimate puts at ``tanh(1)`` (0.76)."""
    prune_policy_target: bool = False
    """Policy target pruning (Wu, "Accelerating Self-Play Learning in Go", 2019, the KataGo paper): the
    policy target of a PUCT search keeps, of each root leg but the most visited, only the visits it
    would have had if the search had known its final values from the start: the fewest visits ``n``
    with which the leg's PUCT score ``Q + c_puct * P * sqrt(N) / (1 + n)`` still reaches the most
    visited leg's, ``P`` being the network's prior without the root noise, and a leg left with one
    visit or none getting none. The visits that only the exploration term and the root noise gave a
    leg no longer teach the network to play it, while the leg played is still chosen from the unpruned
    visits. KataGo prunes only its forced playouts (and with the noisy prior); here every visit that
    exploration gave is pruned. PUCT root only. Off by default: over the 60-minute two-core benchmark
    on international (2026-12-07, docs/BENCHMARKS.md) the network's policy entropy fell from 1.96 to
    1.08 nats (about 10 legal legs a position) and the agent scored -0.125 [-0.234, -0.016] against
    minimax:2, -0.155 [-0.277, -0.033] against minimax:4 and -0.125 [-0.212, -0.038] against minimax:6,
    paired game by game with the same command without it: sharper targets, a narrower 128-simulation
    search, more tactics missed."""
    minimax_weight: float = 0.0
    """Weight of the implicit minimax value in the value a PUCT choice reads (Lanctot, Winands, Pepels
    and Sturtevant, "Monte Carlo Tree Search with Heuristic Evaluations using Implicit Minimax
    Backups", 2014): every node also keeps the minimax of the evaluations below it (a leaf: its
    network or exact value; an expanded node: the best of its visited children's, for the colour
    choosing among them), and a child is scored by ``(1 - w) * mean value + w * minimax value``,
    its parent's value for first-play urgency too. A mean moves slowly when a line that looked good
    is refuted a few legs down, its earlier visits still counting; the minimax moves at once. 0: the
    mean alone, as AlphaZero. The root's value, the visit counts and the Gumbel root's completed
    Q-values stay means. Off by default: at play, on the american 60-minute checkpoint of 2026-12-06
    at 128 simulations against minimax:4 on the benchmark's openings (docs/BENCHMARKS.md), 0.25
    scored -0.045 [-0.12, +0.03] and 0.5 -0.005 [-0.08, +0.07] paired, against minimax:6 0.5
    -0.025 [-0.12, +0.07]."""

    def __post_init__(self) -> None:
        # the first simulation only expands the root: at least two are needed to visit a child
        if isinstance(self.simulations, bool) or not isinstance(self.simulations, int) or self.simulations < 2:
            raise ValueError(f"simulations must be an integer >= 2, got {self.simulations!r}")
        if self.c_puct <= 0:
            raise ValueError(f"c_puct must be positive, got {self.c_puct!r}")
        if not self.prior_temperature > 0:
            raise ValueError(f"prior_temperature must be positive, got {self.prior_temperature!r}")
        if self.dirichlet_alpha <= 0:
            raise ValueError(f"dirichlet_alpha must be positive, got {self.dirichlet_alpha!r}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount!r}")
        if not 0.0 <= self.dirichlet_fraction <= 1.0:
            raise ValueError(f"dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction!r}")
        if self.root not in ("puct", "gumbel"):
            raise ValueError(f"root must be 'puct' or 'gumbel', got {self.root!r}")
        if self.gumbel_considered < 2 or self.gumbel_scale < 0 or self.gumbel_value_scale <= 0:
            raise ValueError("gumbel_considered must be >= 2, gumbel_scale >= 0 and gumbel_value_scale > 0")
        if not 0.0 <= self.material_mix <= 1.0 or self.material_scale <= 0:
            raise ValueError(
                f"material_mix must be in [0, 1] and material_scale positive, got {self.material_mix!r} "
                f"and {self.material_scale!r}"
            )
        if not 0.0 <= self.minimax_weight <= 1.0:
            raise ValueError(f"minimax_weight must be in [0, 1], got {self.minimax_weight!r}")
        if self.prune_policy_target and self.root != "puct":
            raise ValueError(
                "prune_policy_target needs the puct root: a Gumbel root's target is its completed Q-values"
            )
        if self.reuse_tree and self.root != "puct":
            raise ValueError("reuse_tree needs the puct root: sequential halving plans its visits from a fresh root")


# ---------------------------------------------------------------- search state

ROOT_INDEX = 0
"""Node index of every tree's root."""
UNVISITED = -1
"""``child_start`` of a node not yet expanded, ``slot`` of a node whose state is not yet made."""

LEAF_NONE = 0  # tree inactive this round
LEAF_EVAL = 1  # a leaf was written to the batch and waits for the network
LEAF_DONE = 2  # the walk ended on a terminal node and was backed up already


class Tree(NamedTuple):
    """The search state of ``B`` trees of at most ``N`` nodes and ``S`` game states each.

    Node ``ROOT_INDEX`` is each tree's root; a node's children are the
    contiguous nodes ``child_start .. child_start + n_children - 1``.
    Values are for the colour that chose the leg into the node (``mover``).
    """

    child_start: np.ndarray
    """``int32[B, N]``: index of the first child, ``UNVISITED`` until expanded."""
    n_children: np.ndarray
    """``int32[B, N]``: number of children (legal legs of the node's state)."""
    action: np.ndarray
    """``int32[B, N]``: the leg (action index) that leads into the node."""
    prior: np.ndarray
    """``float32[B, N]``: the network's prior of that leg (root priors carry the self-play noise)."""
    visits: np.ndarray
    """``int32[B, N]``: simulations that went through the node."""
    value_sum: np.ndarray
    """``float32[B, N]``: sum of the values backed up through the node, for ``mover``."""
    best_value: np.ndarray
    """``float32[B, N]``: minimax value of the node for ``mover`` (0 until visited): a leaf's evaluation,
    an expanded node's best visited child's value for the colour choosing among them. Kept only when
    ``MCTSConfig.minimax_weight`` is above 0 (it costs a pass over a node's children per backup)."""
    mover: np.ndarray
    """``int8[B, N]``: colour that chose the leg into the node (the root: the colour to move)."""
    turn: np.ndarray
    """``int8[B, N]``: colour to move in the node's state (-1 until the state is made)."""
    slot: np.ndarray
    """``int32[B, N]``: row of the node's state in ``states``, ``UNVISITED`` until made."""
    terminal: np.ndarray
    """``int8[B, N]``: 1 when the game is over in the node's state."""
    term_value: np.ndarray
    """``float32[B, N]``: exact value of a terminal node for ``mover``."""
    states: np.ndarray
    """``int64[B, S, GAME_SIZE]``: game words of the nodes whose state is made."""
    n_states: np.ndarray
    """``int32[B]``: rows of ``states`` in use."""
    n_nodes: np.ndarray
    """``int32[B]``: nodes in use."""


class LeafBatch(NamedTuple):
    """One round's walk: the path to each tree's leaf and the leaves sent to the network."""

    path: np.ndarray
    """``int32[B, S + 1]``: nodes from the root to the leaf."""
    path_len: np.ndarray
    """``int32[B]``: nodes on the path."""
    obs: np.ndarray
    """``float32[B, 8, N, N]``: observation planes of each leaf."""
    masks: np.ndarray
    """``int8[B, A]``: legal legs of each leaf."""
    legal: np.ndarray
    """``int64[B, A]``: the legal legs as a list (``n_legal`` of them)."""
    n_legal: np.ndarray
    """``int64[B]``: number of legal legs of each leaf."""
    status: np.ndarray
    """``int8[B]``: ``LEAF_NONE`` (inactive), ``LEAF_EVAL`` (waits for the network), ``LEAF_DONE``."""


def new_tree(num_trees: int, max_nodes: int, max_states: int) -> Tree:
    """Empty arrays for :class:`Tree`."""
    b, n = num_trees, max_nodes
    return Tree(
        child_start=np.full((b, n), UNVISITED, dtype=np.int32),
        n_children=np.zeros((b, n), dtype=np.int32),
        action=np.zeros((b, n), dtype=np.int32),
        prior=np.zeros((b, n), dtype=np.float32),
        visits=np.zeros((b, n), dtype=np.int32),
        value_sum=np.zeros((b, n), dtype=np.float32),
        best_value=np.zeros((b, n), dtype=np.float32),
        mover=np.zeros((b, n), dtype=np.int8),
        turn=np.zeros((b, n), dtype=np.int8),
        slot=np.full((b, n), UNVISITED, dtype=np.int32),
        terminal=np.zeros((b, n), dtype=np.int8),
        term_value=np.zeros((b, n), dtype=np.float32),
        states=np.zeros((b, max_states, GAME_SIZE), dtype=np.int64),
        n_states=np.zeros(b, dtype=np.int32),
        n_nodes=np.zeros(b, dtype=np.int32),
    )


def new_leaf_batch(num_trees: int, max_states: int, board_size: int) -> LeafBatch:
    """Empty arrays for :class:`LeafBatch`."""
    a = num_actions(board_size)
    return LeafBatch(
        path=np.zeros((num_trees, max_states + 1), dtype=np.int32),
        path_len=np.zeros(num_trees, dtype=np.int32),
        obs=np.zeros((num_trees, NUM_PLANES, board_size, board_size), dtype=np.float32),
        masks=np.zeros((num_trees, a), dtype=np.int8),
        legal=np.zeros((num_trees, a), dtype=np.int64),
        n_legal=np.zeros(num_trees, dtype=np.int64),
        status=np.zeros(num_trees, dtype=np.int8),
    )


# ---------------------------------------------------------------- kernels


@kernel(inline="always")
def _children_minimax(tree, b, node, discount):
    """The minimax value of an expanded ``node`` for its ``mover``: the best of its visited children's
    minimax values for the colour choosing among them (its ``turn``), a child's value discounted when
    its leg ended a move. A backup calls it only on nodes above the leaf, which have the path's child
    visited, so the start below every value never comes out."""
    best = -2.0
    first = tree.child_start[b, node]
    for k in range(tree.n_children[b, node]):
        c = first + k
        if tree.visits[b, c] == 0:
            continue
        q = tree.best_value[b, c]
        if tree.turn[b, c] != tree.mover[b, c]:
            q *= discount
        if q > best:
            best = q
    return best if tree.mover[b, node] == tree.turn[b, node] else -best


@kernel(inline="always")
def _mixed_value(tree, b, node, minimax_weight):
    """The value PUCT reads for a visited ``node`` (for its ``mover``): its mean value and its minimax
    value mixed by ``minimax_weight`` (0: the mean alone)."""
    n = tree.visits[b, node]
    return (1.0 - minimax_weight) * tree.value_sum[b, node] / n + minimax_weight * tree.best_value[b, node]


@kernel
def _backup(tree, b, path, depth, leaf_turn, v, discount, minimax):
    """Add value ``v`` (for colour ``leaf_turn``) along ``path[b, :depth + 1]``, times ``discount``
    for every whole move between the leaf and each node (a node's incoming leg ended a move when the
    side to move changed across it). With ``minimax``, the leaf's minimax value becomes ``v`` and every
    node above it takes the best of its visited children's (:attr:`Tree.best_value`)."""
    for i in range(depth, -1, -1):
        node = path[b, i]
        tree.visits[b, node] += 1
        if tree.mover[b, node] == leaf_turn:
            tree.value_sum[b, node] += v
        else:
            tree.value_sum[b, node] -= v
        if minimax:
            if i == depth:
                tree.best_value[b, node] = v if tree.mover[b, node] == leaf_turn else -v
            else:
                tree.best_value[b, node] = _children_minimax(tree, b, node, discount)
        if tree.turn[b, node] != tree.mover[b, node]:
            v *= discount


@kernel(inline="always")
def _new_child(tree, b, c, a, p, t):
    """Make node ``c`` of tree ``b``: reached by leg ``a`` with prior ``p``, chosen by colour ``t``; not yet visited."""
    tree.action[b, c] = a
    tree.prior[b, c] = p
    tree.visits[b, c] = 0
    tree.value_sum[b, c] = 0.0
    tree.best_value[b, c] = 0.0
    tree.mover[b, c] = t
    tree.turn[b, c] = -1
    tree.slot[b, c] = UNVISITED
    tree.terminal[b, c] = 0
    tree.child_start[b, c] = UNVISITED
    tree.n_children[b, c] = 0


@kernel(inline="always")
def _make_state(tree, b, node, parent, params, tables, moves, scratch):
    """Make ``node``'s state from its parent's by its leg; return the step code."""
    s = tree.n_states[b]
    src = tree.slot[b, parent]
    for w in range(tree.states.shape[2]):
        tree.states[b, s, w] = tree.states[b, src, w]
    code = step_game(tree.states[b, s], tree.action[b, node], params, tables, moves, scratch, 0, False)
    tree.n_states[b] = s + 1
    tree.slot[b, node] = s
    tree.turn[b, node] = tree.states[b, s, mg.S_TURN]
    return code


@kernel
def _select_leaves(
    active, root_child, c_puct, fpu_reduction, minimax_weight, discount, params, tables, moves, scratch, tree, leaves
):
    """Descend each active tree to a leaf; write the leaves that need the network into ``leaves``.

    ``root_child[b] >= 0`` makes tree ``b``'s walk leave its (expanded) root through that node
    (the Gumbel root's choice); below the root, and when it is -1, children are chosen by PUCT, on
    values mixing the mean and the minimax value by ``minimax_weight``.

    A new node with a single legal leg (a forced capture, or the only move) is
    not evaluated: it gets its one child at once and the walk goes on through
    it, so forced sequences cost no network call and the search sees past them.
    """
    n_trees = active.shape[0]
    keep_minimax = minimax_weight > 0
    cap_states = tree.states.shape[1]
    cap_nodes = tree.child_start.shape[1]
    path = leaves.path
    for b in range(n_trees):
        leaves.status[b] = LEAF_NONE
        if not active[b]:
            continue
        node = ROOT_INDEX
        depth = 0
        path[b, 0] = ROOT_INDEX
        while True:
            if tree.terminal[b, node]:
                # exact value for the mover into this node
                _backup(tree, b, path, depth, tree.mover[b, node], tree.term_value[b, node], discount, keep_minimax)
                leaves.status[b] = LEAF_DONE
                break
            if tree.child_start[b, node] < 0:
                if tree.slot[b, node] < 0:
                    if tree.n_states[b] >= cap_states:
                        # no room for another state: back up a neutral value
                        _backup(tree, b, path, depth, tree.mover[b, node], 0.0, discount, keep_minimax)
                        leaves.status[b] = LEAF_DONE
                        break
                    code = _make_state(tree, b, node, path[b, depth - 1], params, tables, moves, scratch)
                    if code == STEP_ILLEGAL or code == STEP_OVERFLOW:
                        raise RuntimeError("MCTS reached an illegal leg or a move buffer overflow")
                    if code == STEP_TERMINATED:
                        tree.terminal[b, node] = 1
                        winner = tree.states[b, tree.slot[b, node], G_WINNER]
                        if winner < 0:
                            tree.term_value[b, node] = 0.0
                        elif winner == tree.mover[b, node]:
                            tree.term_value[b, node] = 1.0
                        else:
                            tree.term_value[b, node] = -1.0
                        _backup(
                            tree, b, path, depth, tree.mover[b, node], tree.term_value[b, node], discount, keep_minimax
                        )
                        leaves.status[b] = LEAF_DONE
                        break
                game = tree.states[b, tree.slot[b, node]]
                # ``moves`` may hold another node's list: note this state's moves again (no list
                # is made for a plain position)
                refresh_moves(game, params, moves, scratch)
                leaves.masks[b, :] = 0
                leaves.n_legal[b] = write_observation(
                    game, game[mg.S_TURN], params, tables, moves, PLY_SCALE, leaves.obs[b], leaves.masks[b],
                    leaves.legal[b], leaves.legal.shape[1],
                )  # fmt: skip
                if leaves.n_legal[b] == 1 and tree.n_nodes[b] < cap_nodes:
                    c = tree.n_nodes[b]
                    _new_child(tree, b, c, leaves.legal[b, 0], 1.0, tree.turn[b, node])
                    tree.child_start[b, node] = c
                    tree.n_children[b, node] = 1
                    tree.n_nodes[b] = c + 1
                    depth += 1
                    path[b, depth] = c
                    node = c
                    continue
                leaves.path_len[b] = depth + 1
                leaves.status[b] = LEAF_EVAL
                break
            if node == ROOT_INDEX and root_child[b] >= 0:
                depth += 1
                path[b, depth] = root_child[b]
                node = root_child[b]
                continue
            # PUCT choice among the children
            parent_n = tree.visits[b, node]
            sign = 1.0 if tree.mover[b, node] == tree.turn[b, node] else -1.0
            parent_q = 0.0
            if parent_n > 0:
                parent_q = sign * _mixed_value(tree, b, node, minimax_weight)
            fpu = parent_q - fpu_reduction
            sqrt_n = np.sqrt(max(parent_n, 1))
            best = -1
            best_score = -1e30
            first = tree.child_start[b, node]
            for k in range(tree.n_children[b, node]):
                c = first + k
                nc = tree.visits[b, c]
                q = fpu if nc == 0 else _mixed_value(tree, b, c, minimax_weight)
                score = q + c_puct * tree.prior[b, c] * sqrt_n / (1.0 + nc)
                if score > best_score:
                    best_score = score
                    best = c
            depth += 1
            path[b, depth] = best
            node = best


@kernel
def _expand_backup(priors, values, tree, leaves, discount, minimax):
    """Give each evaluated leaf its children (one per legal leg) and back its value up (and, with
    ``minimax``, the minimax values)."""
    cap_nodes = tree.child_start.shape[1]
    for b in range(leaves.status.shape[0]):
        if leaves.status[b] != LEAF_EVAL:
            continue
        depth = leaves.path_len[b] - 1
        leaf = leaves.path[b, depth]
        k = leaves.n_legal[b]
        if tree.n_nodes[b] + k <= cap_nodes and tree.child_start[b, leaf] < 0:
            first = tree.n_nodes[b]
            tree.child_start[b, leaf] = first
            tree.n_children[b, leaf] = k
            t = tree.turn[b, leaf]
            for i in range(k):
                a = leaves.legal[b, i]
                _new_child(tree, b, first + i, a, priors[b, a], t)
            tree.n_nodes[b] = first + k
        _backup(tree, b, leaves.path, depth, tree.turn[b, leaf], values[b], discount, minimax)


@kernel(inline="always")
def _holds(tree, b, game):
    """The most visited node of tree ``b`` whose state is the position ``game`` and that can root a
    search (its state made, expanded, the game not over there); -1 when none is."""
    best = -1
    best_visits = 0
    for node in range(tree.n_nodes[b]):
        s = tree.slot[b, node]
        if s < 0 or tree.child_start[b, node] < 0 or tree.terminal[b, node] or tree.visits[b, node] <= best_visits:
            continue
        if same_position(tree.states[b, s], game):
            best = node
            best_visits = tree.visits[b, node]
    return best


@kernel
def _holding_trees(games, tree, out):
    """For each position ``games[k]``, the visits of the best node holding it in each tree
    (``out[k, b]``, 0 where tree ``b`` holds none)."""
    for k in range(games.shape[0]):
        for b in range(tree.n_nodes.shape[0]):
            node = _holds(tree, b, games[k])
            out[k, b] = 0 if node < 0 else tree.visits[b, node]


@kernel
def _reroot(start, games, keep_nodes, keep_states, tree, marks, node_map, state_map, reused):
    """For each tree ``b`` with ``start[b]`` whose nodes hold the position ``games[b]``: make that node's
    subtree the whole tree, rooted at the node, with its visits and values (``reused[b]``). A subtree
    of more than ``keep_nodes`` nodes or ``keep_states`` states is not kept, so a full search still
    fits after it. ``marks``, ``node_map`` and ``state_map`` are scratch rows (nodes, nodes, states).

    Nodes are numbered in the order they were made and children after their parent, so the kept
    nodes (the node and everything below it) renumbered in their old order keep each child block
    contiguous, the new root is node 0, and every node moves to an index no greater than its own:
    the copy is done in place, front to back. The states are renumbered the same way.
    """
    for b in range(start.shape[0]):
        reused[b] = False
        if not start[b]:
            continue
        top = _holds(tree, b, games[b])
        if top < 0:
            continue
        n = tree.n_nodes[b]
        for i in range(top, n):
            marks[i] = False
        marks[top] = True
        kept_nodes = 0
        kept_states = 0
        for i in range(top, n):
            if not marks[i]:
                continue
            kept_nodes += 1
            if tree.slot[b, i] >= 0:
                kept_states += 1
            first = tree.child_start[b, i]
            if first >= 0:
                for k in range(tree.n_children[b, i]):
                    marks[first + k] = True
        if kept_nodes > keep_nodes or kept_states > keep_states:
            continue
        j = 0
        for s in range(tree.n_states[b]):
            state_map[s] = -1
        for i in range(top, n):
            if marks[i]:
                node_map[i] = j
                j += 1
                if tree.slot[b, i] >= 0:
                    state_map[tree.slot[b, i]] = 0
        r = 0
        for s in range(tree.n_states[b]):
            if state_map[s] >= 0:
                state_map[s] = r
                for w in range(tree.states.shape[2]):
                    tree.states[b, r, w] = tree.states[b, s, w]
                r += 1
        for i in range(top, n):
            if not marks[i]:
                continue
            d = node_map[i]
            first = tree.child_start[b, i]
            tree.child_start[b, d] = node_map[first] if first >= 0 else UNVISITED
            tree.n_children[b, d] = tree.n_children[b, i]
            tree.action[b, d] = tree.action[b, i]
            tree.prior[b, d] = tree.prior[b, i]
            tree.visits[b, d] = tree.visits[b, i]
            tree.value_sum[b, d] = tree.value_sum[b, i]
            tree.best_value[b, d] = tree.best_value[b, i]
            tree.mover[b, d] = tree.mover[b, i]
            tree.turn[b, d] = tree.turn[b, i]
            slot = tree.slot[b, i]
            tree.slot[b, d] = state_map[slot] if slot >= 0 else UNVISITED
            tree.terminal[b, d] = tree.terminal[b, i]
            tree.term_value[b, d] = tree.term_value[b, i]
        # a root's values are for the colour to move in it
        if tree.mover[b, ROOT_INDEX] != tree.turn[b, ROOT_INDEX]:
            tree.value_sum[b, ROOT_INDEX] = -tree.value_sum[b, ROOT_INDEX]
            tree.best_value[b, ROOT_INDEX] = -tree.best_value[b, ROOT_INDEX]
            tree.mover[b, ROOT_INDEX] = tree.turn[b, ROOT_INDEX]
        tree.n_nodes[b] = j
        tree.n_states[b] = r
        reused[b] = True


@kernel
def _init_roots(active, games, tree):
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        for w in range(games.shape[1]):
            tree.states[b, 0, w] = games[b, w]
        tree.n_states[b] = 1
        tree.n_nodes[b] = 1
        tree.child_start[b, ROOT_INDEX] = UNVISITED
        tree.n_children[b, ROOT_INDEX] = 0
        tree.visits[b, ROOT_INDEX] = 0
        tree.value_sum[b, ROOT_INDEX] = 0.0
        tree.best_value[b, ROOT_INDEX] = 0.0
        t = games[b, mg.S_TURN]
        tree.mover[b, ROOT_INDEX] = t
        tree.turn[b, ROOT_INDEX] = t
        tree.slot[b, ROOT_INDEX] = 0
        tree.terminal[b, ROOT_INDEX] = 0


@kernel
def _root_visits(active, tree, out, root_value):
    """Each active tree's root visit counts (spread over the action space) and mean value; other rows
    are left as they are."""
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        out[b, :] = 0.0
        root_value[b] = 0.0
        first = tree.child_start[b, ROOT_INDEX]
        for k in range(tree.n_children[b, ROOT_INDEX]):
            c = first + k
            out[b, tree.action[b, c]] = tree.visits[b, c]
        if tree.visits[b, ROOT_INDEX] > 0:
            root_value[b] = tree.value_sum[b, ROOT_INDEX] / tree.visits[b, ROOT_INDEX]


@kernel
def _pruned_root_visits(active, tree, c_puct, minimax_weight, noised, clean_prior, out):
    """Each active tree's root visits with the exploration visits taken out (``out``, spread over the
    action space; :attr:`MCTSConfig.prune_policy_target`); other rows are left as they are. The root
    priors of a tree with ``noised[b]`` are read from ``clean_prior[b]`` (by action), the others' from
    the tree; values are those the PUCT choice read (``minimax_weight``)."""
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        out[b, :] = 0.0
        first = tree.child_start[b, ROOT_INDEX]
        k = tree.n_children[b, ROOT_INDEX]
        if first < 0 or k == 0:
            continue
        best = first
        for j in range(k):
            if tree.visits[b, first + j] > tree.visits[b, best]:
                best = first + j
        nb = tree.visits[b, best]
        if nb == 0:
            continue
        sqrt_n = np.sqrt(max(tree.visits[b, ROOT_INDEX], 1))
        p_best = clean_prior[b, tree.action[b, best]] if noised[b] else tree.prior[b, best]
        target = _mixed_value(tree, b, best, minimax_weight) + c_puct * p_best * sqrt_n / (1.0 + nb)
        for j in range(k):
            c = first + j
            n = tree.visits[b, c]
            p = clean_prior[b, tree.action[b, c]] if noised[b] else tree.prior[b, c]
            if c == best:
                out[b, tree.action[b, c]] = n
                continue
            if n == 0:
                continue
            gap = target - _mixed_value(tree, b, c, minimax_weight)
            kept = n
            if gap > 0.0:
                # fewest visits whose PUCT score still reaches the best leg's
                needed = np.ceil(c_puct * p * sqrt_n / gap - 1.0)
                if needed < kept:
                    kept = max(int(needed), 0)
            if kept <= 1:
                kept = 0
            out[b, tree.action[b, c]] = kept


@kernel(inline="always")
def _completed_q(tree, b, raw_value, value_scale, visit_offset, out):
    """Gumbel's transformed completed Q-values of tree ``b``'s root children into ``out[:k]``: a visited
    child's mean value (for the root's player), an unvisited one the mixed value of the raw network
    value and the prior-weighted visited values; min-max rescaled to [0, 1], then scaled by
    ``(visit_offset + max visits) * value_scale``."""
    first = tree.child_start[b, ROOT_INDEX]
    k = tree.n_children[b, ROOT_INDEX]
    total_visits = 0
    max_visits = 0
    prior_seen = 0.0
    weighted = 0.0
    for i in range(k):
        c = first + i
        n = tree.visits[b, c]
        total_visits += n
        if n > max_visits:
            max_visits = n
        if n > 0:
            p = max(tree.prior[b, c], 1e-30)
            prior_seen += p
            weighted += p * tree.value_sum[b, c] / n
    mixed = raw_value
    if total_visits > 0:
        mixed = (raw_value + total_visits * weighted / prior_seen) / (total_visits + 1)
    low = 1e30
    high = -1e30
    for i in range(k):
        c = first + i
        n = tree.visits[b, c]
        q = tree.value_sum[b, c] / n if n > 0 else mixed
        out[i] = q
        low = min(low, q)
        high = max(high, q)
    scale = (visit_offset + max_visits) * value_scale
    span = max(high - low, 1e-8)
    for i in range(k):
        out[i] = scale * (out[i] - low) / span
    return max_visits


@kernel
def _gumbel_root_choice(active, tree, gumbel, raw_value, considered_visit, value_scale, visit_offset, sigma, out):
    """For each active tree, the root child sequential halving visits next: the best of
    ``gumbel + logit + sigma(completed q)`` among the children visited exactly ``considered_visit[b]``
    times (``out[b]``, a node index; -1 for an inactive tree)."""
    for b in range(active.shape[0]):
        out[b] = -1
        if not active[b]:
            continue
        first = tree.child_start[b, ROOT_INDEX]
        k = tree.n_children[b, ROOT_INDEX]
        _completed_q(tree, b, raw_value[b], value_scale, visit_offset, sigma[b])
        best = -1
        best_score = -1e30
        for i in range(k):
            c = first + i
            if tree.visits[b, c] != considered_visit[b]:
                continue
            score = gumbel[b, i] + np.log(max(tree.prior[b, c], 1e-30)) + sigma[b, i]
            if score > best_score:
                best_score = score
                best = c
        out[b] = best


@kernel
def _gumbel_results(active, tree, gumbel, raw_value, value_scale, visit_offset, sigma, policy, action):
    """After a Gumbel search: the improved policy ``softmax(logits + sigma(completed q))`` over each root's
    children (spread over the action space) and the leg played, the best of ``gumbel + logit + sigma``
    among the most visited children (sequential halving's winner). Rows of inactive trees are left
    as they are."""
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        policy[b, :] = 0.0
        action[b] = -1
        first = tree.child_start[b, ROOT_INDEX]
        k = tree.n_children[b, ROOT_INDEX]
        max_visits = _completed_q(tree, b, raw_value[b], value_scale, visit_offset, sigma[b])
        top = -1e30
        for i in range(k):
            top = max(top, np.log(max(tree.prior[b, first + i], 1e-30)) + sigma[b, i])
        total = 0.0
        best = -1
        best_score = -1e30
        for i in range(k):
            c = first + i
            logit = np.log(max(tree.prior[b, c], 1e-30))
            w = np.exp(logit + sigma[b, i] - top)
            policy[b, tree.action[b, c]] = w
            total += w
            if tree.visits[b, c] == max_visits:
                score = gumbel[b, i] + logit + sigma[b, i]
                if score > best_score:
                    best_score = score
                    best = c
        for i in range(k):
            policy[b, tree.action[b, first + i]] /= total
        action[b] = tree.action[b, best]


def halving_schedule(considered: int, simulations: int) -> np.ndarray:
    """The visit count sequential halving targets at each of ``simulations`` root visits with
    ``considered`` legs (``int32[simulations]``): every considered leg once, then the better half
    again, and so on, each phase getting an equal share of the budget."""
    if considered <= 1:
        return np.arange(simulations, dtype=np.int32)
    phases = max(1, int(np.ceil(np.log2(considered))))
    out: list[int] = []
    visits = [0] * considered
    alive = considered
    while len(out) < simulations:
        extra = max(1, simulations // (phases * alive))
        for _ in range(extra):
            out.extend(visits[:alive])
            for i in range(alive):
                visits[i] += 1
        alive = max(2, alive // 2)
    return np.asarray(out[:simulations], dtype=np.int32)


# ---------------------------------------------------------------- Python side


class SearchResult(NamedTuple):
    """What :meth:`BatchedMCTS.search` returns (rows of inactive trees are zero / -1)."""

    visits: np.ndarray
    """``float32[B, A]``: visit counts of the root's children, spread over the action space."""
    policy: np.ndarray
    """``float32[B, A]``: the policy target: the visit shares (puct), or the softmax of the logits plus
    the completed Q-values (gumbel)."""
    root_value: np.ndarray
    """``float32[B]``: the root's mean value for the player to move."""
    action: np.ndarray
    """``int64[B]``: the leg the search chose (gumbel: sequential halving's winner; puct: -1, the caller
    chooses from the visits)."""


class CachingEvaluator:
    """An :data:`Evaluator` that remembers: each distinct position is sent to the wrapped evaluator once.

    Self-play games start from the same position and their trees, searched
    side by side, ask for the same leaves again and again in the opening (and
    transpositions later): equal rows of a batch are evaluated once, and the
    answers of the last ``capacity`` distinct positions are kept (in 36
    self-play games of american at 32 simulations, 37% of the positions the
    searches asked for had been asked before). A position is its observation
    planes and mask, keyed by a 128-bit digest, and only its legal legs'
    priors are stored. Priors are copied out, so a search that adds noise to
    its root changes nothing here.
    """

    def __init__(self, evaluator: Evaluator, capacity: int = 200_000):
        self.evaluator = evaluator
        self.capacity = int(capacity)
        self._cache: dict[bytes, tuple[np.ndarray, np.ndarray, float]] = {}
        self.asked = 0
        """Positions asked for."""
        self.evaluated = 0
        """Positions sent to the wrapped evaluator."""

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(obs)
        priors = np.zeros(masks.shape, dtype=np.float32)
        values = np.zeros(n, dtype=np.float32)
        todo: dict[bytes, list[int]] = {}
        for i in range(n):
            key = hashlib.blake2b(obs[i].tobytes() + masks[i].tobytes(), digest_size=16).digest()
            hit = self._cache.get(key)
            if hit is None:
                todo.setdefault(key, []).append(i)
            else:
                legal, p, values[i] = hit
                priors[i, legal] = p
        self.asked += n
        if todo:
            first = [rows[0] for rows in todo.values()]
            p, v = self.evaluator(obs[first], masks[first])
            self.evaluated += len(first)
            if len(self._cache) + len(first) > self.capacity:
                self._cache.clear()  # a simple bound: the cache refills with what the searches ask for now
            for j, (key, rows) in enumerate(todo.items()):
                priors[rows] = p[j]
                values[rows] = v[j]
                legal = np.flatnonzero(masks[first[j]]).astype(np.int16)
                self._cache[key] = (legal, p[j, legal].astype(np.float32), float(v[j]))
        return priors, values

    def clear(self) -> None:
        """Forget every position (for a new network)."""
        self._cache.clear()


def uniform_evaluator(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal actions and value 0: plain UCT with no rollouts."""
    m = masks.astype(np.float32)
    priors = m / np.maximum(m.sum(axis=1, keepdims=True), 1.0)
    return priors, np.zeros(len(obs), dtype=np.float32)


def _tempered(priors: np.ndarray, temperature: float) -> np.ndarray:
    """``priors`` (``[k, A]``, zero off the legal legs) raised to ``1 / temperature``, each row
    renormalised to sum to 1; a new array. Computed from the logarithm so that a sharp temperature
    cannot underflow every leg of a row to zero."""
    with np.errstate(divide="ignore"):
        logits = np.log(priors) / temperature
    logits -= logits.max(axis=1, keepdims=True)
    tempered = np.exp(logits)  # exp(-inf) = 0 keeps the illegal legs at zero
    return (tempered / tempered.sum(axis=1, keepdims=True)).astype(np.float32, copy=False)


class BatchedMCTS:
    """``num_trees`` PUCT trees searched together.

    Args:
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        num_trees: games searched at once (the network batch size).
        config: search settings.

    Two ways to search:

    * :meth:`search` searches every given root to the end of its budget and
      returns the results (evaluation play: every game gets the same budget);
    * :meth:`begin`, :meth:`step` and :meth:`result` let each tree search on
      its own clock: :meth:`begin` starts searches in some trees while others
      are half way through theirs, each :meth:`step` is one simulation round
      (one network batch) of every search in progress and says which ones
      ended, and a tree whose search ended can begin the next at once.
      Self-play uses this, so that a game whose quick search is over plays
      its leg and starts searching again while the full searches of other
      games go on, and every network batch holds one leaf of every game.

    The trees a search grew stay in :attr:`tree` until the tree's next search.
    With ``MCTSConfig.reuse_tree`` that search keeps the subtree below the
    node holding its root position, if the tree has one; :meth:`place` finds
    the tree that holds a position.
    """

    def __init__(self, variant: str | Rules, num_trees: int, config: MCTSConfig | None = None):
        self.rules = get_rules(variant)
        if num_trees < 1:
            raise ValueError(f"num_trees must be at least 1, got {num_trees}")
        self.config = config or MCTSConfig()
        self.num_trees = b = int(num_trees)
        size = self.rules.board_size
        self.num_actions = a = num_actions(size)
        self._params = mg.make_params(self.rules)
        self._tables = make_tables(size)
        self._moves = mg.new_move_buffer()
        self._scratch = mg.new_scratch()
        sims = self.config.simulations
        # a simulation makes one state per new node: the evaluated leaf and the forced legs before it
        n_states = 4 * sims + 2
        # an evaluated leaf adds one child per legal leg, a forced leg one; a full tree just stops
        # growing (the leaf is still evaluated)
        n_nodes = 1 + sims * 48 + n_states
        # a kept subtree may be as large as one search's, and a full search must fit beside it
        self._keep_nodes, self._keep_states = n_nodes, n_states
        if self.config.reuse_tree:
            n_nodes, n_states = 2 * n_nodes, 2 * n_states
        self.tree = new_tree(b, n_nodes, n_states)
        """The search state (see :class:`Tree`)."""
        self._marks = np.zeros(n_nodes, dtype=np.bool_)
        self._node_map = np.zeros(n_nodes, dtype=np.int32)
        self._state_map = np.zeros(n_states, dtype=np.int32)
        self._reused = np.zeros(b, dtype=np.bool_)
        self.carried = np.zeros(b, dtype=np.int64)
        """``int64[B]``: root visits each tree's last begun search kept from earlier searches (``reuse_tree``;
        0: it began from a fresh root)."""
        self._leaves = new_leaf_batch(b, n_states, size)
        self._priors = np.zeros((b, a), dtype=np.float32)
        self._values = np.zeros(b, dtype=np.float32)
        self._sigma = np.zeros((b, a), dtype=np.float32)
        # the state of each tree's search in progress
        self._searching = np.zeros(b, dtype=np.bool_)
        self._rounds = np.zeros(b, dtype=np.int64)  # simulation rounds done (the first expands the root)
        self._budget = np.zeros(b, dtype=np.int64)
        self._noisy = np.zeros(b, dtype=np.bool_)
        self._rng: np.random.Generator | None = None
        self._raw_value = np.zeros(b, dtype=np.float32)  # the root's network value (gumbel)
        self._gumbel = np.zeros((b, a), dtype=np.float32)  # the root's Gumbel noise, by child (gumbel)
        self._schedules: list[np.ndarray] = [np.zeros(0, dtype=np.int32)] * b  # sequential halving (gumbel)
        self._considered = np.zeros(b, dtype=np.int64)
        self._choice = np.full(b, -1, dtype=np.int64)
        # the result of each tree's last finished search
        self._visits = np.zeros((b, a), dtype=np.float32)
        self._policy = np.zeros((b, a), dtype=np.float32)
        self._clean_prior = np.zeros((b, a), dtype=np.float32)  # root priors before the noise, by action
        self._noised = np.zeros(b, dtype=np.bool_)
        self._root_value = np.zeros(b, dtype=np.float32)
        self._action = np.full(b, -1, dtype=np.int64)

    @property
    def searching(self) -> np.ndarray:
        """``bool[B]``: the trees with a search in progress (a copy)."""
        return self._searching.copy()

    def place(self, games: np.ndarray) -> np.ndarray:
        """Distinct trees for the positions ``games[k]`` (``int64[K, GAME_SIZE]``, ``K <= num_trees``):
        ``int64[K]``. With ``reuse_tree``, a position goes to the tree holding it with the most visits
        (when no earlier position took that tree), so its search continues there; the others (and every
        position without ``reuse_tree``) take the free trees in order. A caller whose games move between
        rows from one search to the next (a match whose finished games drop out) keeps its trees so."""
        games = np.ascontiguousarray(games, dtype=np.int64)
        k = len(games)
        if games.ndim != 2 or games.shape[1] != GAME_SIZE or k > self.num_trees:
            raise ValueError(f"games must be int64[K, {GAME_SIZE}] with K <= {self.num_trees}")
        if not self.config.reuse_tree:
            return np.arange(k, dtype=np.int64)
        trees = np.full(k, -1, dtype=np.int64)
        taken = np.zeros(self.num_trees, dtype=np.bool_)
        held = np.zeros((k, self.num_trees), dtype=np.int64)
        _holding_trees(games, self.tree, held)
        for i in range(k):
            best = int(np.argmax(np.where(taken, 0, held[i])))
            if held[i, best] > 0 and not taken[best]:
                trees[i] = best
                taken[best] = True
        unplaced = trees < 0
        trees[unplaced] = np.flatnonzero(~taken)[: int(unplaced.sum())]
        return trees

    def begin(
        self,
        games: np.ndarray,
        start: np.ndarray,
        rng: np.random.Generator | None = None,
        simulations: int | np.ndarray | None = None,
        explore: np.ndarray | None = None,
    ) -> None:
        """Begin searching from ``games[b]`` (game words of :mod:`checkers_env.game`) in every tree ``b``
        with ``start[b]``; the others are left as they are (searching or not).

        ``rng`` given: exploration noise at each new root (Dirichlet noise for
        puct, Gumbel noise for gumbel), or only where ``explore[b]`` is set;
        ``None``: none. The generator is kept and drawn from by later steps
        (the Dirichlet noise needs the root's legs, known once it is expanded).
        ``simulations``: the budget, one for all trees or ``int[B]`` one per
        tree (default ``config.simulations``, the most allowed). Games must not
        be over, and a tree must not be searching already. With ``reuse_tree``,
        a tree holding ``games[b]`` keeps that node's subtree (:attr:`carried`
        says how many visits) and the search adds its budget to it; noise is
        mixed into the kept root's priors as into a fresh root's.
        """
        cfg = self.config
        games = np.ascontiguousarray(games, dtype=np.int64)
        start = np.ascontiguousarray(start, dtype=np.bool_)
        if games.shape != (self.num_trees, GAME_SIZE) or start.shape != (self.num_trees,):
            raise ValueError(f"games must be int64[{self.num_trees}, {GAME_SIZE}] and start bool[{self.num_trees}]")
        budget = np.full(self.num_trees, cfg.simulations, dtype=np.int64)
        if simulations is not None:
            budget[:] = simulations
        if (budget[start] < 2).any() or (budget > cfg.simulations).any():
            raise ValueError(f"simulations must be in 2..{cfg.simulations}, got {simulations}")
        if (self._searching & start).any():
            raise ValueError(f"trees {np.flatnonzero(self._searching & start).tolist()} are searching already")
        fresh = start
        if cfg.reuse_tree:
            _reroot(start, games, self._keep_nodes, self._keep_states, self.tree, self._marks, self._node_map,
                    self._state_map, self._reused)  # fmt: skip
            fresh = start & ~self._reused
            self.carried[start] = np.where(self._reused[start], self.tree.visits[start, ROOT_INDEX], 0)
        _init_roots(fresh, games, self.tree)
        self._searching |= start
        self._rounds[start] = 0
        self._budget[start] = budget[start]
        explore = np.ones(self.num_trees, dtype=np.bool_) if explore is None else np.asarray(explore, dtype=np.bool_)
        self._noisy[start] = explore[start] & (rng is not None)
        if rng is not None:
            self._rng = rng

    def step(self, evaluator: Evaluator) -> np.ndarray:
        """One simulation round of every search in progress (one call of ``evaluator``); returns
        ``bool[B]``, the trees whose search ended with it (their results: :meth:`result`)."""
        now = self._searching.copy()
        if not now.any():
            return now
        cfg = self.config
        fresh = now & (self._rounds == 0)
        if cfg.root == "gumbel":
            going = now & ~fresh
            for b in np.flatnonzero(going):
                self._considered[b] = self._schedules[b][self._rounds[b] - 1]
            # fresh roots get -1: their first round expands them
            _gumbel_root_choice(going, self.tree, self._gumbel, self._raw_value, self._considered,
                                cfg.gumbel_value_scale, cfg.gumbel_visit_offset, self._sigma, self._choice)  # fmt: skip
        self._round(now, evaluator, self._choice)
        if fresh.any():
            self._expanded(fresh)
        self._rounds[now] += 1
        ended = now & (self._rounds >= self._budget)
        if ended.any():
            self._end(ended)
        return ended

    def result(self, trees: np.ndarray) -> SearchResult:
        """The results of the last finished search of each tree with ``trees[b]`` (other rows zero / -1)."""
        trees = np.asarray(trees, dtype=np.bool_)
        keep = trees[:, None]
        return SearchResult(
            visits=np.where(keep, self._visits, 0.0).astype(np.float32),
            policy=np.where(keep, self._policy, 0.0).astype(np.float32),
            root_value=np.where(trees, self._root_value, 0.0).astype(np.float32),
            action=np.where(trees, self._action, -1),
        )

    def search(
        self,
        games: np.ndarray,
        active: np.ndarray,
        evaluator: Evaluator,
        rng: np.random.Generator | None = None,
        simulations: int | np.ndarray | None = None,
        deadline: float | None = None,
        explore: np.ndarray | None = None,
    ) -> SearchResult:
        """Search from ``games[b]`` for every ``b`` with ``active[b]``, to the end of the budget; the
        arguments are :meth:`begin`'s. Any search begun before and not finished is dropped.

        ``deadline`` (a ``time.perf_counter()`` value) stops the search after
        the round that passes it, once every root has a visited child.
        Rows of inactive trees are zero / -1 in the result.
        """
        self._searching[:] = False
        self.begin(games, active, rng, simulations, explore)
        while self._searching.any():
            self.step(evaluator)
            if deadline is not None and time.perf_counter() >= deadline and (self._rounds[self._searching] >= 2).all():
                self._end(self._searching.copy())
        return self.result(active)

    def _round(self, active: np.ndarray, evaluator: Evaluator, root_child: np.ndarray) -> None:
        c = self.config
        leaves = self._leaves
        _select_leaves(active, root_child, c.c_puct, c.fpu_reduction, c.minimax_weight, c.discount, self._params,
                       self._tables, self._moves, self._scratch, self.tree, leaves)  # fmt: skip
        need = np.flatnonzero(leaves.status == LEAF_EVAL)
        if need.size:
            obs = leaves.obs[need]
            priors, values = evaluator(obs, leaves.masks[need])
            if c.prior_temperature != 1.0:
                priors = _tempered(priors, c.prior_temperature)
            if c.material_mix > 0:
                material = np.tanh(material_lead(obs) / c.material_scale)
                values = (1.0 - c.material_mix) * values + c.material_mix * material
            self._priors[need] = priors
            self._values[need] = values
        _expand_backup(self._priors, self._values, self.tree, leaves, c.discount, c.minimax_weight > 0)

    def _expanded(self, fresh: np.ndarray) -> None:
        """After the round that expanded the roots of ``fresh``: their noise and (gumbel) halving plan."""
        cfg = self.config
        tree = self.tree
        self._raw_value[fresh] = np.where(tree.visits[fresh, ROOT_INDEX] > 0, tree.value_sum[fresh, ROOT_INDEX], 0.0)
        noisy = fresh & self._noisy
        self._noised[fresh] = False
        if cfg.root == "gumbel":
            self._gumbel[fresh] = 0.0
            if noisy.any() and cfg.gumbel_scale > 0:
                self._gumbel[noisy] = cfg.gumbel_scale * self._rng.gumbel(size=(int(noisy.sum()), self.num_actions))
            for b in np.flatnonzero(fresh):
                k = int(tree.n_children[b, ROOT_INDEX])
                self._schedules[b] = halving_schedule(min(cfg.gumbel_considered, max(k, 1)), int(self._budget[b]) - 1)
        elif noisy.any() and cfg.dirichlet_fraction > 0:
            self._add_noise(noisy, self._rng)

    def _end(self, ended: np.ndarray) -> None:
        """Finish the searches of ``ended``: store their results, free the trees for the next search."""
        _root_visits(ended, self.tree, self._visits, self._root_value)
        if self.config.root == "gumbel":
            _gumbel_results(ended, self.tree, self._gumbel, self._raw_value, self.config.gumbel_value_scale,
                            self.config.gumbel_visit_offset, self._sigma, self._policy, self._action)  # fmt: skip
        else:
            rows = np.flatnonzero(ended)
            visits = self._visits[rows]
            if self.config.prune_policy_target:
                # the pruned visits are written where the policy goes, then normalised like the visits
                _pruned_root_visits(ended, self.tree, self.config.c_puct, self.config.minimax_weight, self._noised,
                                    self._clean_prior, self._policy)  # fmt: skip
                visits = self._policy[rows]
            self._policy[rows] = visits / np.maximum(visits.sum(axis=1, keepdims=True), 1.0)
            self._action[rows] = -1
        self._searching &= ~ended

    def _add_noise(self, active: np.ndarray, rng: np.random.Generator) -> None:
        eps = self.config.dirichlet_fraction
        tree = self.tree
        for b in np.flatnonzero(active):
            first = tree.child_start[b, ROOT_INDEX]
            k = tree.n_children[b, ROOT_INDEX]
            if first < 0 or k < 2:
                continue
            noise = rng.dirichlet(np.full(k, self.config.dirichlet_alpha))
            p = tree.prior[b, first : first + k]
            if self.config.prune_policy_target:
                self._clean_prior[b, tree.action[b, first : first + k]] = p
                self._noised[b] = True
            tree.prior[b, first : first + k] = (1 - eps) * p + eps * noise
