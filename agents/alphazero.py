"""AlphaZero: self-play with batched MCTS, a replay buffer, the training step and the playing agent.

The pieces, each usable on its own:

* :func:`make_evaluator` turns a :class:`~agents.networks.PolicyValueNet` into
  the MCTS :data:`~agents.mcts.Evaluator` (masked priors, values).
* :func:`play_selfplay_games` is the self-play worker: a pure function of
  ``(weights, configs, seed)`` returning finished :class:`GameRecord` s, so it
  can run in another process or machine.
* :class:`ReplayBuffer` keeps the most recent positions with their search
  policies and results; :func:`train_step` fits the network to them.
* :func:`play_match` plays games between a searching network and any agent
  (or another network) with all the network's games searched in one batch.
* :class:`MCTSAgent` is the arena player: it searches with its MCTS.

Board symmetries: none are used for augmentation. On 8x8 and 10x10 the dark
squares are not mapped onto dark squares by the left-right mirror (a1 is dark,
h1 is light), nor by the up-down mirror; the half turn maps the board onto
itself but swaps the sides, which the mover's-frame observation already
accounts for. So no variant has a symmetry left to exploit.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from checkers_env.core import movegen as mg
from checkers_env.core.board import Board, Move
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import actions_to_move, make_tables, num_actions
from checkers_env.observation import NUM_PLANES, PLY_SCALE
from checkers_env.vector import (
    G_EP_PLY,
    G_WINNER,
    GAME_SIZE,
    STEP_CONTINUES,
    STEP_ILLEGAL,
    STEP_TERMINATED,
    refresh_moves,
    step_game,
    write_observation,
)

from .base import Agent
from .mcts import BatchedMCTS, Evaluator, MCTSConfig, game_from_board
from .networks import NetConfig, PolicyValueNet, masked_log_softmax, masked_softmax

__all__ = [
    "SelfPlayConfig",
    "GameRecord",
    "make_evaluator",
    "play_selfplay_games",
    "adjudicate",
    "value_targets",
    "ReplayBuffer",
    "train_step",
    "play_match",
    "MCTSAgent",
    "POLICY_SLOTS",
]

POLICY_SLOTS = 48
"""Legal legs kept per stored position (the most visited first); more are rare on 8x8."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play games are played."""

    parallel_games: int = 64
    """Games played at once; their MCTS leaves form one network batch."""
    max_moves: int = 120
    """Whole moves after which a self-play game is stopped and scored a draw."""
    temperature_moves: int = 12
    """Whole moves (plies) played by sampling from the visit counts; later moves take the most visited leg."""
    temperature: float = 1.0
    """Temperature of that sampling."""
    adjudicate_margin: float = 2.0
    """A game stopped at max_moves is scored a win for the side ahead by at least this much material
    (man 1, king 1.5) instead of a draw; 0 turns adjudication off. Domain knowledge that gives short
    runs a denser value signal than the many capped games of early self-play."""
    adjudicated_value: float = 0.5
    """Value target of an adjudicated win (a real win is 1): being ahead is not the same as winning, and
    a lower value teaches the search to finish games rather than hold a lead until the cap."""

    def __post_init__(self) -> None:
        if self.parallel_games < 1 or self.max_moves < 1 or self.temperature_moves < 0 or self.temperature <= 0:
            raise ValueError(f"invalid SelfPlayConfig {self}")
        if not 0.0 <= self.adjudicated_value <= 1.0:
            raise ValueError(f"adjudicated_value must be in [0, 1], got {self.adjudicated_value!r}")


@dataclass
class GameRecord:
    """One finished self-play game."""

    observations: np.ndarray
    """``float16[T, 8, N, N]``: the searched positions (legs with one legal choice are not stored)."""
    policy_actions: np.ndarray
    """``int16[T, POLICY_SLOTS]``: legal legs of each position, most visited first, -1 padded."""
    policy_probs: np.ndarray
    """``float16[T, POLICY_SLOTS]``: visit share of each of those legs."""
    colours: np.ndarray
    """``int8[T]``: colour to move (0 White, 1 Black) in each position."""
    value_targets: np.ndarray
    """``float32[T]``: what the value head learns for each position: the result for the player to move
    (+1 win, -1 loss, 0 draw; +-``adjudicated_value`` when the game was adjudicated), times the MCTS
    ``discount`` once per whole move between the position and the end of the game."""
    winner: int
    """0 White, 1 Black, -1 draw (a game stopped at ``max_moves`` is adjudicated, see SelfPlayConfig)."""
    adjudicated: bool = False
    """The game was stopped at ``max_moves`` and scored by material."""
    moves: list[str] = field(default_factory=list)
    """The game's whole moves as PDN text."""
    plies: int = 0
    """Whole moves played."""


def value_targets(colours: np.ndarray, move_numbers: np.ndarray, end: int, winner: int, scale: float,
                  discount: float) -> np.ndarray:  # fmt: skip
    """``float32[T]`` value targets (see :attr:`GameRecord.value_targets`): ``move_numbers[t]`` is the
    whole move at which position ``t`` arose, ``end`` the whole moves of the finished game."""
    if winner < 0:
        return np.zeros(len(colours), dtype=np.float32)
    sign = np.where(colours == winner, 1.0, -1.0)
    return (sign * scale * discount ** (end - move_numbers.astype(np.float64))).astype(np.float32)


def make_evaluator(net: PolicyValueNet, device: torch.device | str = "cpu", trace: bool = True) -> Evaluator:
    """The MCTS evaluator of ``net`` in inference mode.

    ``trace`` freezes and optimises a TorchScript trace of the network (about half again as fast
    on the CPU for small nets); the eager network is used when tracing fails.
    """
    device = torch.device(device)
    net = net.to(device).eval()
    model: Callable = net
    if trace:
        try:
            with warnings.catch_warnings(), torch.inference_mode():
                # TorchScript is deprecated in favour of torch.compile, which is far slower to start here
                warnings.simplefilter("ignore", DeprecationWarning)
                example = torch.zeros(2, NUM_PLANES, net.board_size, net.board_size, device=device)
                model = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(net, example)))
        except Exception:  # tracing is a speed-up only
            model = net

    def evaluate(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)).to(device)
            m = torch.from_numpy(np.ascontiguousarray(masks)).to(device)
            logits, values = model(x)
            priors = masked_softmax(logits.float(), m)
            return priors.cpu().numpy(), values.float().cpu().numpy()

    return evaluate


def _sparse_policy(visits: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    legal = np.flatnonzero(mask)
    order = legal[np.argsort(-visits[legal], kind="stable")][:POLICY_SLOTS]
    acts = np.full(POLICY_SLOTS, -1, dtype=np.int16)
    probs = np.zeros(POLICY_SLOTS, dtype=np.float16)
    acts[: len(order)] = order
    v = visits[order]
    probs[: len(order)] = v / max(v.sum(), 1.0)
    return acts, probs


def _choose(visits: np.ndarray, temperature: float | None, rng: np.random.Generator) -> int:
    """A leg from root visit counts: sampled at ``temperature``, or the most visited (ties at random)."""
    if temperature is None:
        best = np.flatnonzero(visits == visits.max())
        return int(best[rng.integers(len(best))])
    p = visits.astype(np.float64) ** (1.0 / temperature)
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


class _LegDriver:
    """Per-game word arrays plus the buffers to read their observation and mask."""

    def __init__(self, rules: Rules, n: int):
        self.rules = rules
        size = rules.board_size
        self.params = mg.make_params(rules)
        self.tables = make_tables(size)
        self.moves = mg.new_move_buffer()
        self.scratch = mg.new_scratch()
        self.num_actions = num_actions(size)
        self.games = np.zeros((n, GAME_SIZE), dtype=np.int64)
        self.obs = np.zeros((n, NUM_PLANES, size, size), dtype=np.float32)
        self.masks = np.zeros((n, self.num_actions), dtype=np.int8)
        self.legal = np.zeros((n, self.num_actions), dtype=np.int64)
        self.counts = np.zeros(n, dtype=np.int64)
        self.start = Board(rules)

    def load(self, i: int, board: Board) -> None:
        """Put ``board``'s position (no move in progress) in slot ``i``."""
        self.games[i] = game_from_board(board)

    def refresh(self, i: int) -> int:
        """Observation and mask of slot ``i`` for its player to move; returns the number of legal legs."""
        g = self.games[i]
        refresh_moves(g, self.params, self.moves, self.scratch)
        self.masks[i] = 0
        c = write_observation(g, g[mg.S_TURN], self.params, self.tables, self.moves, PLY_SCALE, self.obs[i],
                              self.masks[i], self.legal[i], self.num_actions)  # fmt: skip
        self.counts[i] = c
        return int(c)

    def step(self, i: int, action: int) -> int:
        """Take leg ``action`` in slot ``i``; returns the ``STEP_*`` code."""
        code = step_game(self.games[i], int(action), self.params, self.tables, self.moves, self.scratch, 0, False)
        if code == STEP_ILLEGAL:
            raise RuntimeError(f"internal error: leg {action} is illegal in slot {i}")
        return int(code)


def play_selfplay_games(
    weights: dict[str, torch.Tensor] | None,
    net_config: NetConfig,
    variant: str | Rules,
    mcts_config: MCTSConfig,
    selfplay_config: SelfPlayConfig,
    seed: int,
    num_games: int,
    device: str = "cpu",
    progress: Callable[[int], None] | None = None,
    openings: Sequence[Board] | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """The self-play worker: ``num_games`` finished games of the network with these weights.

    A pure function of its arguments (``weights=None``: a freshly initialised
    network seeded by ``seed``). ``progress(k)`` is called as ``k`` more games
    finish, and ``on_game(record)`` with each finished game as soon as it ends
    (so a caller interrupted mid-call keeps them). ``openings`` (optional) are
    start positions used in turn.
    """
    rules = get_rules(variant) if isinstance(variant, str) else variant
    torch.manual_seed(seed)
    net = PolicyValueNet(rules.board_size, net_config)
    if weights is not None:
        net.load_state_dict(weights)
    evaluator = make_evaluator(net, device)
    rng = np.random.default_rng(seed)
    n = min(selfplay_config.parallel_games, num_games)
    mcts = BatchedMCTS(rules, n, mcts_config)
    drv = _LegDriver(rules, n)
    boards: list[Board | None] = [None] * n
    legs: list[list[int]] = [[] for _ in range(n)]
    recs: list[dict] = [{} for _ in range(n)]
    started = 0
    finished: list[GameRecord] = []

    def start(i: int) -> bool:
        nonlocal started
        if started >= num_games:
            boards[i] = None
            return False
        board = openings[started % len(openings)].copy() if openings else Board(rules)
        started += 1
        boards[i] = board
        drv.load(i, board)
        legs[i] = []
        recs[i] = {"obs": [], "acts": [], "probs": [], "colours": [], "ply": []}
        return True

    def finish(i: int, winner: int, adjudicated: bool = False) -> None:
        r = recs[i]
        board = boards[i]
        colours = np.array(r["colours"], dtype=np.int8)
        scale = selfplay_config.adjudicated_value if adjudicated else 1.0
        targets = value_targets(colours, np.array(r["ply"]), board.ply, winner, scale, mcts_config.discount)
        finished.append(
            GameRecord(
                observations=np.array(r["obs"], dtype=np.float16).reshape(-1, *drv.obs.shape[1:]),
                policy_actions=np.array(r["acts"], dtype=np.int16).reshape(-1, POLICY_SLOTS),
                policy_probs=np.array(r["probs"], dtype=np.float16).reshape(-1, POLICY_SLOTS),
                colours=colours,
                value_targets=targets,
                winner=winner,
                adjudicated=adjudicated and winner >= 0,
                moves=[str(m) for m in board.move_stack],
                plies=len(board.move_stack),
            )
        )
        if on_game is not None:
            on_game(finished[-1])
        if progress is not None:
            progress(1)
        start(i)

    def advance(i: int, action: int) -> None:
        """Take a leg; on a completed move update the board and end the game if it is over."""
        legs[i].append(int(action))
        code = drv.step(i, action)
        if code == STEP_CONTINUES:
            return
        board = boards[i]
        board.push(actions_to_move(board, legs[i]))
        legs[i] = []
        if code == STEP_TERMINATED:
            finish(i, int(drv.games[i, G_WINNER]))
        elif len(board.move_stack) >= selfplay_config.max_moves:
            finish(i, adjudicate(board, selfplay_config.adjudicate_margin), adjudicated=True)

    for i in range(n):
        start(i)
    while any(b is not None for b in boards):
        # play forced legs (one legal choice) without search, until every live game has a choice
        need = np.zeros(n, dtype=np.bool_)
        for i in range(n):
            while boards[i] is not None:
                if drv.refresh(i) == 1:
                    advance(i, drv.legal[i, 0])
                    continue
                need[i] = True
                break
        if not need.any():
            continue
        obs = drv.obs.copy()
        masks = drv.masks.copy()
        visits, _ = mcts.search(drv.games, need, evaluator, rng)
        for i in np.flatnonzero(need):
            acts, probs = _sparse_policy(visits[i], masks[i])
            r = recs[i]
            r["obs"].append(obs[i])
            r["acts"].append(acts)
            r["probs"].append(probs)
            r["colours"].append(int(drv.games[i, mg.S_TURN]))
            r["ply"].append(int(drv.games[i, G_EP_PLY]))
            hot = drv.games[i, G_EP_PLY] < selfplay_config.temperature_moves
            advance(i, _choose(visits[i], selfplay_config.temperature if hot else None, rng))
    return finished


def adjudicate(board: Board, margin: float) -> int:
    """Winner of a stopped game by material (man 1, king 1.5): 0/1 when a side leads by ``margin``
    or more, else -1 (draw; always -1 when ``margin`` is 0)."""
    if margin <= 0:
        return -1
    material = [len(board.pieces(c, kings=False)) + 1.5 * len(board.pieces(c, kings=True)) for c in (0, 1)]
    lead = material[0] - material[1]
    if lead >= margin:
        return 0
    if -lead >= margin:
        return 1
    return -1


class ReplayBuffer:
    """The most recent ``capacity`` positions with policy and value targets (a ring)."""

    def __init__(self, capacity: int, board_size: int):
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        self.capacity = int(capacity)
        self.board_size = board_size
        self.obs = np.zeros((capacity, NUM_PLANES, board_size, board_size), dtype=np.float16)
        self.acts = np.full((capacity, POLICY_SLOTS), -1, dtype=np.int16)
        self.probs = np.zeros((capacity, POLICY_SLOTS), dtype=np.float16)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0
        self.total_added = 0

    def add_game(self, game: GameRecord) -> None:
        """Append every stored position of ``game``."""
        values = game.value_targets
        for t in range(len(values)):
            j = self.next
            self.obs[j] = game.observations[t]
            self.acts[j] = game.policy_actions[t]
            self.probs[j] = game.policy_probs[t]
            self.values[j] = values[t]
            self.next = (j + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)
            self.total_added += 1

    def sample(self, batch_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """A uniform minibatch: ``obs [B, 8, N, N]``, ``acts``/``probs [B, POLICY_SLOTS]``, ``values [B]``."""
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        idx = rng.integers(0, self.size, size=batch_size)
        return {
            "obs": self.obs[idx].astype(np.float32),
            "acts": self.acts[idx],
            "probs": self.probs[idx].astype(np.float32),
            "values": self.values[idx],
        }

    def state_dict(self) -> dict:
        """The filled part of the buffer, in a form ``torch.save`` and ``np.savez`` store."""
        n = self.size
        order = np.arange(n) if n < self.capacity else (np.arange(n) + self.next) % self.capacity
        return {
            "capacity": self.capacity,
            "board_size": self.board_size,
            "obs": self.obs[order],
            "acts": self.acts[order],
            "probs": self.probs[order],
            "values": self.values[order],
            "total_added": self.total_added,
        }

    @classmethod
    def from_state_dict(cls, state: dict, capacity: int | None = None) -> ReplayBuffer:
        """A buffer holding the positions of ``state`` (the newest if ``capacity`` is smaller)."""
        buf = cls(int(capacity or state["capacity"]), int(state["board_size"]))
        n = min(len(state["values"]), buf.capacity)
        if n:
            buf.obs[:n] = state["obs"][-n:]
            buf.acts[:n] = state["acts"][-n:]
            buf.probs[:n] = state["probs"][-n:]
            buf.values[:n] = state["values"][-n:]
        buf.size = n
        buf.next = n % buf.capacity
        buf.total_added = int(state["total_added"])
        return buf


def train_step(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    batch: dict[str, np.ndarray],
    device: torch.device | str = "cpu",
    value_weight: float = 1.0,
) -> dict[str, float]:
    """One gradient step on ``value_weight * MSE(value, z) + CE(search policy, masked policy)``.

    The mask of each position is the set of legs stored with it (every legal
    leg, up to :data:`POLICY_SLOTS`), so the policy is normalised over legal
    legs only. Returns the losses and the policy entropy.
    """
    net.train()
    obs = torch.from_numpy(batch["obs"]).to(device)
    acts = torch.from_numpy(batch["acts"].astype(np.int64)).to(device)
    probs = torch.from_numpy(batch["probs"]).to(device)
    z = torch.from_numpy(batch["values"]).to(device)
    valid = acts >= 0
    safe = acts.clamp(min=0)
    logits, value = net(obs)
    mask = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, safe, valid)
    logp = masked_log_softmax(logits, mask)
    logp_taken = logp.gather(1, safe).masked_fill(~valid, 0.0)
    policy_loss = -(probs * logp_taken).sum(1).mean()
    value_loss = F.mse_loss(value, z)
    loss = policy_loss + value_weight * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        p = logp_taken.exp()
        entropy = -(p * logp_taken).sum(1).mean()
    return {
        "loss": loss.item(),
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
    }


class NetPlayer:
    """A network that plays by batched MCTS in :func:`play_match` (no noise, most visited leg)."""

    def __init__(self, evaluator: Evaluator, mcts_config: MCTSConfig, name: str = "net"):
        self.evaluator = evaluator
        self.mcts_config = mcts_config
        self.name = name


def play_match(
    rules: Rules,
    player_a: NetPlayer | Agent,
    player_b: NetPlayer | Agent,
    openings: Sequence[Board],
    a_colours: Sequence[int],
    max_moves: int = 200,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> list[tuple[float, Board]]:
    """Play one game per opening; ``a_colours[k]`` is the colour player A has in game ``k``.

    A :class:`NetPlayer`'s games are searched together (one network batch per
    simulation); an :class:`Agent` plays its games one after the other.
    Returns ``(score of A: 1, 0.5 or 0, final board)`` per game; a game
    reaching ``max_moves`` whole moves is a draw.
    """
    n = len(openings)
    if len(a_colours) != n:
        raise ValueError("one colour per opening is needed")
    boards = [o.copy() for o in openings]
    scores: list[float | None] = [None] * n
    rng = np.random.default_rng(seed)
    players = (player_a, player_b)
    searchers = {id(p): BatchedMCTS(rules, n, p.mcts_config) for p in players if isinstance(p, NetPlayer)}
    drv = _LegDriver(rules, n)

    def settle(k: int) -> None:
        board = boards[k]
        outcome = board.outcome()
        if outcome is not None:
            w = outcome.winner
            scores[k] = 0.5 if w is None else (1.0 if int(w) == a_colours[k] else 0.0)
        elif len(board.move_stack) - len(openings[k].move_stack) >= max_moves:
            scores[k] = 0.5
        if scores[k] is not None and progress is not None:
            progress(1)

    for k in range(n):
        settle(k)
    while any(s is None for s in scores):
        for p_index, player in enumerate(players):
            mine = [
                k for k in range(n) if scores[k] is None and (int(boards[k].turn) == a_colours[k]) == (p_index == 0)
            ]
            if not mine:
                continue
            if isinstance(player, Agent):
                for k in mine:
                    boards[k].push(player.select_move(boards[k]))
                    settle(k)
                continue
            mcts = searchers[id(player)]
            legs: dict[int, list[int]] = {k: [] for k in mine}
            for k in mine:
                drv.load(k, boards[k])
            pending = set(mine)
            while pending:
                need = np.zeros(n, dtype=np.bool_)
                for k in list(pending):
                    while True:
                        c = drv.refresh(k)
                        if c > 1:
                            need[k] = True
                            break
                        legs[k].append(int(drv.legal[k, 0]))
                        if drv.step(k, drv.legal[k, 0]) != STEP_CONTINUES:
                            pending.discard(k)
                            break
                if need.any():
                    visits, _ = mcts.search(drv.games, need, player.evaluator)
                    for k in np.flatnonzero(need):
                        a = _choose(visits[k], None, rng)
                        legs[k].append(a)
                        if drv.step(k, a) != STEP_CONTINUES:
                            pending.discard(int(k))
            for k in mine:
                boards[k].push(actions_to_move(boards[k], legs[k]))
                settle(k)
    return [(float(s), b) for s, b in zip(scores, boards)]


class MCTSAgent(Agent):
    """An arena agent that searches with MCTS guided by its network.

    Args:
        net: the policy-value network (its board size must match ``variant``).
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        mcts_config: search settings; noise is never added in play.
        seed: seeds the tie-breaking among equally visited legs.
        device: torch device for the network.

    :meth:`select_action` (observation and mask only, no position) plays the
    network's most probable legal leg without search.
    """

    def __init__(self, net: PolicyValueNet, variant: str | Rules, mcts_config: MCTSConfig | None = None,
                 seed: int | None = None, device: str = "cpu", name: str = "alphazero"):  # fmt: skip
        super().__init__(seed)
        self.rules = get_rules(variant) if isinstance(variant, str) else variant
        if net.board_size != self.rules.board_size:
            raise ValueError(
                f"the network is for a {net.board_size}x{net.board_size} board, variant {self.rules.name!r} "
                f"is played on {self.rules.board_size}x{self.rules.board_size}"
            )
        self.net = net.eval()
        self.device = torch.device(device)
        self.mcts_config = mcts_config or MCTSConfig()
        self.evaluator = make_evaluator(net, self.device)
        self.name = name
        self._mcts = BatchedMCTS(self.rules, 1, self.mcts_config)
        self._drv = _LegDriver(self.rules, 1)

    def select_move(self, board: Board) -> Move:
        if board.outcome() is not None:
            raise ValueError(f"the game is over in position {board.fen()}")
        self._drv.load(0, board)
        legs: list[int] = []
        active = np.ones(1, dtype=np.bool_)
        while True:
            if self._drv.refresh(0) == 1:
                a = int(self._drv.legal[0, 0])
            else:
                visits, _ = self._mcts.search(self._drv.games, active, self.evaluator)
                a = _choose(visits[0], None, self.rng)
            legs.append(a)
            if self._drv.step(0, a) != STEP_CONTINUES:
                return actions_to_move(board, legs)

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs = np.asarray(observation, dtype=np.float32)[None]
        m = np.asarray(mask, dtype=np.int8)[None]
        priors, _ = self.evaluator(obs, m)
        if not m.any():
            raise ValueError("the action mask has no legal action")
        return int(np.argmax(priors[0]))
