"""The learned players: a policy-value network that searches with MCTS, or plays its policy.

    >>> from agents.checkpoint import load_agent
    >>> agent = load_agent("runs/x/best.pt")          # doctest: +SKIP
    >>> agent.select_moves([Board("american")] * 8)    # doctest: +SKIP

Both players step their games leg by leg through
:class:`checkers_env.game.LegGames`, and both play many games at once
(:meth:`~agents.base.Agent.select_moves`): the MCTS player searches every
game's tree in one batch per simulation (one network call for all of them),
the policy player evaluates every game's position in one batch per leg. A leg
with a single legal choice (a forced capture) is played without thinking.

:func:`make_evaluator` turns a :class:`~agents.networks.PolicyValueNet` into
the MCTS :data:`~agents.mcts.Evaluator`; the self-play learner uses it too.
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from checkers_env.core.extras import missing

try:
    import torch
except ImportError as exc:
    raise missing("torch", "the learned agents (agents.learned)", exc) from exc

from checkers_env.core.board import Board, Move
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import actions_to_move
from checkers_env.game import LegGames
from checkers_env.observation import NUM_PLANES

from .base import Agent
from .mcts import BatchedMCTS, CachingEvaluator, Evaluator, MCTSConfig
from .networks import PolicyValueNet, inference_dtype, masked_log_softmax, masked_softmax

__all__ = ["make_evaluator", "choose_leg", "LegPlayer", "MCTSAgent", "PolicyAgent"]


def make_evaluator(net: PolicyValueNet, device: torch.device | str = "cpu", trace: bool = True,
                   dtype: str = "float32", channels_last: bool | None = None) -> Evaluator:  # fmt: skip
    """The MCTS evaluator of ``net`` in inference mode.

    ``trace`` freezes and optimises a TorchScript trace of the network (about half again as fast
    on the CPU for small nets); the eager network is used when tracing fails. ``dtype`` (one of
    :data:`~agents.networks.INFERENCE_DTYPES`, see :func:`~agents.networks.inference_dtype`) is the
    number format of the forward passes; for bfloat16 a copy of the network is converted, so ``net``
    itself stays float32. Priors and values come back as float32 either way.

    ``channels_last`` lays the converted copy's weights and each batch out channels-last (NHWC);
    ``None`` does so where it was measured to pay, bfloat16 on the CPU. There oneDNN's convolutions
    take NHWC natively, while a channels-first (NCHW) batch is reordered before and after every
    convolution: on one thread with AMX the 32x3 network evaluates batches of 16 to 128 positions 1.6
    to 2 times as fast, with bit-identical outputs (``benchmarks/inference_dtype.py``). In float32 it
    gains nothing there, and it is untried on a GPU.
    """
    device = torch.device(device)
    number_format = inference_dtype(dtype, device)
    if channels_last is None:
        channels_last = number_format == torch.bfloat16 and device.type == "cpu"
    layout = torch.channels_last if channels_last else torch.contiguous_format
    net = net.to(device).eval()
    if number_format != torch.float32 or channels_last:
        net = copy.deepcopy(net).to(dtype=number_format, memory_format=layout)
    model: Callable = net
    if trace:
        try:
            with warnings.catch_warnings(), torch.inference_mode():
                # TorchScript is deprecated in favour of torch.compile, which is far slower to start here
                warnings.simplefilter("ignore", DeprecationWarning)
                example = torch.zeros(2, NUM_PLANES, net.board_size, net.board_size, device=device,
                                      dtype=number_format).contiguous(memory_format=layout)  # fmt: skip
                model = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(net, example)))
        except Exception:  # tracing is a speed-up only
            model = net

    def evaluate(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
            x = x.to(device, number_format, memory_format=layout)  # one copy converts and lays out the batch
            m = torch.from_numpy(np.ascontiguousarray(masks)).to(device)
            logits, values = model(x)
            priors = masked_softmax(logits.float(), m)
            return priors.cpu().numpy(), values.float().cpu().numpy()

    return evaluate


def choose_leg(visits: np.ndarray, temperature: float | None, rng: np.random.Generator) -> int:
    """A leg from root visit counts: sampled at ``temperature``, or the most visited (ties at random)."""
    if temperature is None:
        best = np.flatnonzero(visits == visits.max())
        return int(best[rng.integers(len(best))])
    p = visits.astype(np.float64) ** (1.0 / temperature)
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def _check_board_size(net: PolicyValueNet, rules: Rules) -> None:
    if net.board_size != rules.board_size:
        raise ValueError(
            f"the network is for a {net.board_size}x{net.board_size} board, variant {rules.name!r} "
            f"is played on {rules.board_size}x{rules.board_size}"
        )


class LegPlayer(Agent):
    """Plays whole moves leg by leg in many games at once; subclasses pick the legs that need thought.

    The base of the learned players (MCTS, policy, Stable-Baselines3 model): a subclass implements
    ``_pick`` and gets ``select_move`` and the batched ``select_moves``."""

    def __init__(self, rules: Rules, seed: int | None, name: str):
        super().__init__(seed)
        self.rules = rules
        self.name = name
        self._games = LegGames(rules, 1, track_moves=False)

    def _slots(self, n: int) -> LegGames:
        if self._games.n < n:
            self._games = LegGames(self.rules, n, track_moves=False)
        return self._games

    def _pick(self, games: LegGames, thinking: np.ndarray, deadline: float | None) -> dict[int, int]:
        """Legs for the slots in ``thinking`` (each observed, with more than one legal leg)."""
        raise NotImplementedError

    def select_move(self, board: Board) -> Move:
        return self.select_moves([board])[0]

    def select_moves(self, boards: Sequence[Board]) -> list[Move]:
        for board in boards:
            if board.outcome() is not None:
                raise ValueError(f"the game is over in position {board.fen()}")
        deadline = time.perf_counter() + self.time if getattr(self, "time", 0) > 0 else None
        games = self._slots(len(boards))
        legs: list[list[int]] = [[] for _ in boards]
        pending = set(range(len(boards)))
        for k, board in enumerate(boards):
            games.load(k, board)
        while pending:
            thinking = np.zeros(games.n, dtype=np.bool_)
            for k in sorted(pending):
                while True:
                    if games.observe(k) > 1:
                        thinking[k] = True
                        break
                    # a forced leg: no thought needed
                    if self._take(games, k, int(games.legal[k, 0]), legs, pending):
                        break
            if thinking.any():
                for k, action in self._pick(games, thinking, deadline).items():
                    self._take(games, k, action, legs, pending)
        return [_move_of(board, k_legs) for board, k_legs in zip(boards, legs)]

    @staticmethod
    def _take(games: LegGames, k: int, action: int, legs: list[list[int]], pending: set[int]) -> bool:
        """Take a leg in slot ``k``; return True when its move is complete."""
        legs[k].append(action)
        if games.step(k, action).move_done:
            pending.discard(k)
            return True
        return False


def _move_of(board: Board, actions: list[int]) -> Move:
    return actions_to_move(board, actions)


class MCTSAgent(LegPlayer):
    """A network that searches with batched PUCT MCTS (no noise) and plays the most visited leg.

    Args:
        net: the policy-value network (its board size must match ``variant``).
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        mcts_config: search settings (``simulations`` per searched leg); noise is never added in play.
        seed: seeds the tie-breaking among equally visited legs.
        device: torch device for the network.
        name: name in reports.
        time: seconds a move may take (0: no bound, every search runs all its
            simulations). With a bound, a search stops after the simulation
            round that passes it (at least two simulations are always run).
        dtype: number format of the network's forward passes in the search
            (:func:`~agents.networks.inference_dtype`: ``float32``, ``bfloat16`` or
            ``auto``); bfloat16 evaluates faster on a CPU with AMX, so a ``time``
            bound buys more simulations.

    :meth:`select_action` (observation and mask only, no position) plays the
    network's most probable legal leg without search.
    """

    def __init__(self, net: PolicyValueNet, variant: str | Rules, mcts_config: MCTSConfig | None = None,
                 seed: int | None = None, device: str = "cpu", name: str = "alphazero",
                 time: float = 0.0, dtype: str = "float32"):  # fmt: skip
        rules = get_rules(variant)
        _check_board_size(net, rules)
        super().__init__(rules, seed, name)
        self.net = net.eval()
        self.device = torch.device(device)
        self.mcts_config = mcts_config or MCTSConfig()
        self.dtype = dtype
        self.evaluator = CachingEvaluator(make_evaluator(net, self.device, dtype=dtype))
        self.time = float(time)
        """Seconds a move may take (0: no bound)."""
        self._mcts = BatchedMCTS(self.rules, 1, self.mcts_config)

    def _pick(self, games: LegGames, thinking: np.ndarray, deadline: float | None) -> dict[int, int]:
        if self._mcts.num_trees < games.n:
            self._mcts = BatchedMCTS(self.rules, games.n, self.mcts_config)
        n = self._mcts.num_trees
        rows = np.flatnonzero(thinking)
        # a game's search goes to the tree that holds its position (reuse_tree), wherever the game sits now
        trees = self._mcts.place(games.games[rows])
        roots = np.zeros((n, games.games.shape[1]), dtype=np.int64)
        roots[trees] = games.games[rows]
        active = np.zeros(n, dtype=np.bool_)
        active[trees] = True
        result = self._mcts.search(roots, active, self.evaluator, deadline=deadline)
        if self.mcts_config.root == "gumbel":
            return {int(k): int(result.action[t]) for k, t in zip(rows, trees)}
        return {int(k): choose_leg(result.visits[t], None, self.rng) for k, t in zip(rows, trees)}

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs = np.asarray(observation, dtype=np.float32)[None]
        m = np.asarray(mask, dtype=np.int8)[None]
        if not m.any():
            raise ValueError("the action mask has no legal action")
        priors, _ = self.evaluator(obs, m)
        return int(np.argmax(priors[0]))


class PolicyAgent(LegPlayer):
    """Plays a policy network without search: the most probable legal leg until the move is complete
    (``sample=True``: legs sampled from the policy with the agent's generator)."""

    def __init__(self, net: PolicyValueNet, variant: str | Rules, seed: int | None = None, device: str = "cpu",
                 name: str = "ppo", sample: bool = False):  # fmt: skip
        rules = get_rules(variant)
        _check_board_size(net, rules)
        super().__init__(rules, seed, name)
        self.device = torch.device(device)
        self.net = net.to(self.device).eval()
        self.sample = sample

    def _log_policy(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            logits, _ = self.net(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)).to(self.device))
            logp = masked_log_softmax(logits.cpu(), torch.from_numpy(np.ascontiguousarray(masks, dtype=np.int8)))
        return logp.numpy()

    def _choose(self, logp: np.ndarray) -> int:
        p = np.exp(logp.astype(np.float64))
        if p.sum() <= 0:
            raise ValueError("the action mask has no legal action")
        if self.sample:
            return int(self.rng.choice(len(p), p=p / p.sum()))
        return int(np.argmax(p))

    def _pick(self, games: LegGames, thinking: np.ndarray, deadline: float | None) -> dict[int, int]:
        rows = np.flatnonzero(thinking)
        logp = self._log_policy(games.obs[rows], games.masks[rows])
        return {int(k): self._choose(logp[j]) for j, k in enumerate(rows)}

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self._choose(self._log_policy(np.asarray(observation)[None], np.asarray(mask)[None])[0])
