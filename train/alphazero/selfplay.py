"""The self-play worker: games of a network against itself, searched with batched MCTS.

:func:`play_selfplay_games` is a pure function of a :class:`SelfPlayJob`
(weights, configs, seed, number of games) that returns finished
:class:`GameRecord` s, so it runs in another process (the local pool) or on
another machine unchanged. Its games are
played ``parallel_games`` at a time through :class:`checkers_env.game.LegGames`;
every simulation round sends the leaves of all their trees to the network as
one batch. A leg with a single legal choice is played without search and not
stored. Each searched position is stored with the search's visit shares (the
policy target) and, once the game ends, its value target.

Games carried between calls (``carry``, a :class:`GameCarry` 's list): the
call's games are then the first ``num_games`` to end, not the first to
start. Every slot plays from the first round to the last: a slot whose game
ended starts another at once, and when ``num_games`` games have ended the
games still in progress are parked in the carry. The network batch stays
full to the last round instead of shrinking while the slowest games end,
and no game waits for another. The next call resumes the parked games (with
its new weights) before starting new ones; a game that ends after the
call's count is full is handed over by the next call. A parked search is
dropped (its tree belonged to the old weights) and the position is searched
again.

Board symmetries: none are used for augmentation. On 8x8 and 10x10 the dark
squares are not mapped onto dark squares by the left-right mirror (a1 is dark,
h1 is light), nor by the up-down mirror; the half turn maps the board onto
itself but swaps the sides, which the mover's-frame observation already
accounts for. So no variant has a symmetry left to exploit.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from agents.base import make_agent
from agents.learned import choose_leg, make_evaluator
from agents.mcts import BatchedMCTS, CachingEvaluator, MCTSConfig
from agents.networks import NetConfig, PolicyValueNet
from checkers_env.core.board import Board
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import move_to_actions
from checkers_env.game import STEP_TERMINATED, LegGames
from checkers_env.observation import KING_MATERIAL

from ..arena.openings import american_three_move, ballot
from .config import SelfPlayConfig

__all__ = [
    "POLICY_SLOTS",
    "PHASES",
    "GameRecord",
    "ParkedGame",
    "LateStart",
    "GameCarry",
    "SelfPlayJob",
    "SHARE_SEED_STRIDE",
    "new_game_record",
    "play_selfplay_games",
    "adjudicate",
    "bootstrap_targets",
    "value_targets",
    "sparse_policy",
]

POLICY_SLOTS = 48
"""Legal legs kept per stored position (the most visited first); more are rare on 8x8."""

SHARE_SEED_STRIDE = 7919
"""Share ``k`` of a job split among workers plays with seed ``job.seed + SHARE_SEED_STRIDE * k`` (the local
pool and the Ray backend split a job alike, so their games agree for the same number of workers)."""

PHASES = ("network", "search", "play")
"""Where a self-play game's time goes (:attr:`GameRecord.seconds`)."""


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
    ``discount`` once per whole move between the position and the end of the game; for a game stopped
    at the cap with ``cap_value`` "search", the root value of its last search instead of its adjudication
    (:func:`bootstrap_targets`); mixed with the search's root value when ``search_value_weight`` is set."""
    winner: int
    """0 White, 1 Black, -1 draw (a game stopped at ``max_moves`` is adjudicated, see SelfPlayConfig)."""
    adjudicated: bool = False
    """The game was stopped at ``max_moves`` and scored by material."""
    move_numbers: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    """``int16[T]``: the whole move (counted from the game's start position) at which each position
    arose; the material head's targets look ``material_horizon`` moves ahead with it. Empty in games
    logged before it was kept."""
    moves: list[str] = field(default_factory=list)
    """The game's whole moves as PDN text."""
    plies: int = 0
    """Whole moves played."""
    seconds: dict[str, float] = field(default_factory=dict)
    """The worker's wall time spent on this game, by where it went: ``network`` (evaluating leaves),
    ``search`` (the MCTS kernels), ``play`` (stepping, forced legs, bookkeeping). Time shared by the
    games played at once is divided equally among them."""
    start_move: int = 0
    """Whole moves of the game played before self-play took it up: 0 for a game from the start position,
    the opening's moves for one from the opening deck, the position's move number for a game started
    from a late position (its ``moves`` and ``plies`` include them)."""
    late_start: bool = False
    """The game started from a late position of an earlier game (``SelfPlayConfig.late_start_share``)."""
    sparring: str = ""
    """The spec of the sparring partner that played one side (``SelfPlayConfig.sparring``); "" in self-play."""
    sparring_colour: int = -1
    """The colour the sparring partner played (0 White, 1 Black); -1 in self-play."""

    @property
    def network_score(self) -> float | None:
        """The network's score against its sparring partner (1 win, 0.5 draw, 0 loss); None in self-play."""
        if self.sparring_colour < 0:
            return None
        return 0.5 if self.winner < 0 else float(self.winner != self.sparring_colour)

    @property
    def positions(self) -> int:
        """Stored (searched) positions."""
        return len(self.colours)


def new_game_record() -> dict:
    """The worker's bookkeeping of a game just started (what :attr:`ParkedGame.record` holds)."""
    return {"obs": [], "acts": [], "probs": [], "colours": [], "ply": [], "q": [],
            "seconds": dict.fromkeys(PHASES, 0.0)}  # fmt: skip


@dataclass
class LateStart:
    """A late position of a self-play game, kept to start another game from
    (``SelfPlayConfig.late_start_share``); carried between calls with the parked games."""

    board: Board
    """The position, with the move stack that led to it (repetitions and the move number count it)."""


@dataclass
class ParkedGame:
    """A self-play game in progress, stopped at the end of a call of :func:`play_selfplay_games` to be
    resumed by the next one (see the module docstring)."""

    board: Board
    """The committed position, with the game's move stack."""
    moves_played: int
    """Whole moves played since the game's start position (what ``max_moves`` and the temperature read)."""
    legs: list[int]
    """Legs already taken in the move in progress (a capture stopped between legs)."""
    record: dict
    """The positions stored so far and the time spent (the worker's bookkeeping of the game)."""


class GameCarry:
    """The games a self-play runner keeps between iterations (``selfplay.carry_over``): parked games
    (:class:`ParkedGame`), finished games that did not count yet (:class:`GameRecord`) and late positions
    to start games from (:class:`LateStart`).

    One per runner (the in-process runner, the local pool, each Ray actor). :meth:`take` hands the list
    that :func:`play_selfplay_games` resumes from and refills (its ``carry``), or None when carrying is
    off; games parked under other rules are dropped.
    """

    def __init__(self) -> None:
        self.games: list[ParkedGame | GameRecord | LateStart] = []
        self._rules: Rules | None = None

    @property
    def game_count(self) -> int:
        """Games carried (parked or ended; late positions are not games)."""
        return sum(not isinstance(c, LateStart) for c in self.games)

    def take(self, rules: Rules, selfplay_config: SelfPlayConfig) -> list[ParkedGame | GameRecord | LateStart] | None:
        """The carried games for a call under ``rules`` (None, and nothing kept, when carrying is off)."""
        if not selfplay_config.carry_over or self._rules != rules:
            self.games = []
        self._rules = rules
        return self.games if selfplay_config.carry_over else None


def value_targets(colours: np.ndarray, move_numbers: np.ndarray, end: int, winner: int, scale: float,
                  discount: float) -> np.ndarray:  # fmt: skip
    """``float32[T]`` value targets (see :attr:`GameRecord.value_targets`): ``move_numbers[t]`` is the
    whole move at which position ``t`` arose, ``end`` the whole moves of the finished game."""
    if winner < 0:
        return np.zeros(len(colours), dtype=np.float32)
    sign = np.where(colours == winner, 1.0, -1.0)
    return (sign * scale * discount ** (end - move_numbers.astype(np.float64))).astype(np.float32)


def bootstrap_targets(colours: np.ndarray, move_numbers: np.ndarray, last_colour: int, last_move: int,
                      last_value: float, discount: float) -> np.ndarray:  # fmt: skip
    """``float32[T]`` value targets of a game stopped before its end (``SelfPlayConfig.cap_value`` "search"):
    ``last_value``, the root value of the game's last search for ``last_colour`` to move at whole move
    ``last_move``, seen from each position's player (``colours[t]``) and times ``discount`` once per whole
    move from position ``t`` (``move_numbers[t]``) to that search."""
    sign = np.where(colours == last_colour, 1.0, -1.0)
    distance = np.maximum(last_move - move_numbers.astype(np.float64), 0.0)
    return (sign * last_value * discount**distance).astype(np.float32)


def adjudicate(board: Board, margin: float, king_material: float = KING_MATERIAL) -> int:
    """Winner of a stopped game by material (man 1, king ``king_material``): 0/1 when a side leads by
    ``margin`` or more, else -1 (draw; always -1 when ``margin`` is 0)."""
    if margin <= 0:
        return -1
    material = [len(board.pieces(c, kings=False)) + king_material * len(board.pieces(c, kings=True)) for c in (0, 1)]
    lead = material[0] - material[1]
    if lead >= margin:
        return 0
    if -lead >= margin:
        return 1
    return -1


def sparse_policy(policy: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stored policy target of one position: its legal legs, most probable first, and their shares
    (``int16[POLICY_SLOTS]`` -1 padded, ``float16[POLICY_SLOTS]``) of a search's ``policy`` (visit
    counts or probabilities over the action space; renormalised over the legs kept)."""
    legal = np.flatnonzero(mask)
    order = legal[np.argsort(-policy[legal], kind="stable")][:POLICY_SLOTS]
    acts = np.full(POLICY_SLOTS, -1, dtype=np.int16)
    probs = np.zeros(POLICY_SLOTS, dtype=np.float16)
    acts[: len(order)] = order
    v = policy[order].astype(np.float64)
    total = v.sum()
    probs[: len(order)] = v / total if total > 0 else 1.0 / len(order)
    return acts, probs


@dataclass(frozen=True)
class SelfPlayJob:
    """What a call of :func:`play_selfplay_games` plays: the network (its weights and shape), the rules,
    how the games are searched and played, how many games and from which seed. Every self-play runner
    (:class:`~train.backend.InProcessSelfPlay`, :class:`~train.alphazero.workers.SelfPlayPool`,
    :class:`~train.distributed.RayBackend`) takes one and gives each of its workers a :meth:`share`."""

    weights: dict[str, torch.Tensor] | None
    """The network's state dict (None: a freshly initialised network seeded by ``seed``)."""
    net_config: NetConfig
    rules: Rules
    """The rules (a variant's name is accepted and looked up)."""
    mcts_config: MCTSConfig
    selfplay_config: SelfPlayConfig
    seed: int
    num_games: int
    device: str = "cpu"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", get_rules(self.rules))
        if self.num_games < 0:
            raise ValueError(f"num_games must not be negative, got {self.num_games}")

    def portable(self) -> SelfPlayJob:
        """The job with its weights as plain CPU tensors, detached: what is sent to other processes."""
        if self.weights is None:
            return self
        return replace(self, weights={k: v.detach().cpu() for k, v in self.weights.items()})

    def share(self, k: int, num_games: int) -> SelfPlayJob:
        """Share ``k`` of the job: ``num_games`` of its games, with seed ``seed + SHARE_SEED_STRIDE * k``."""
        return replace(self, seed=self.seed + SHARE_SEED_STRIDE * k, num_games=num_games)

    def split(self, parts: int) -> list[SelfPlayJob]:
        """The job in ``parts`` even shares (the first ``num_games % parts`` have one game more), share ``k``
        at index ``k`` (a share may have no game): how the local pool and the Ray backend split a job."""
        return [self.share(k, self.num_games // parts + int(k < self.num_games % parts)) for k in range(parts)]


@functools.lru_cache(maxsize=8)
def opening_deck(rules: Rules) -> tuple[Board, ...]:
    """The start positions of ``SelfPlayConfig.opening_share``, played on boards: the whole ACF three-move
    deck on american, as many random openings elsewhere (drawn once per rule set, with a fixed seed; the
    boards are only read)."""
    return tuple(o.board(rules) for o in ballot(rules, len(american_three_move()), seed=0))


def play_selfplay_games(
    job: SelfPlayJob,
    *,
    progress: Callable[[int], None] | None = None,
    openings: Sequence[Board] | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    claim: Callable[[], bool] | None = None,
    parallel: int | None = None,
    carry: list[ParkedGame | GameRecord | LateStart] | None = None,
    iteration_over: Callable[[], bool] | None = None,
) -> list[GameRecord]:
    """``job.num_games`` finished self-play games of the network with ``job.weights``.

    A pure function of its arguments. ``progress(k)`` is called as ``k`` more games
    finish, and ``on_game(record)`` with each finished game as soon as it ends
    (so a caller interrupted mid-call keeps them). ``openings`` (optional) are
    start positions used in turn.

    Workers sharing an iteration: ``claim()`` is asked before each game starts
    and a game starts only when it returns True (a shared counter, so that a
    worker slowed down by a busy core plays fewer games instead of keeping the
    others waiting); ``job.num_games`` then bounds this worker's games and
    ``parallel`` (default ``parallel_games``) the games it plays at once.

    ``carry`` (a list the caller keeps between calls, see :class:`GameCarry`): this call's games are
    the first ``num_games`` to end (``claim()``, when given, is asked as each game ends); games
    carried in are resumed first; every slot plays until the call's games are in, or until
    ``iteration_over()`` (workers sharing an iteration: all of its games have ended); the games still
    in progress are then parked in ``carry``, with any game that ended after the count was full. With
    ``late_start_share`` the carry's late positions (:class:`LateStart`) are where new games may start,
    and the positions this call's games leave are added to them (the newest ``late_start_pool`` kept).
    """
    rules, net_config, seed, num_games = job.rules, job.net_config, job.seed, job.num_games
    mcts_config, selfplay_config = job.mcts_config, job.selfplay_config
    torch.manual_seed(seed)
    net = PolicyValueNet(rules.board_size, net_config)
    if job.weights is not None:
        net.load_state_dict(job.weights)
    evaluator = CachingEvaluator(make_evaluator(net, job.device, dtype=selfplay_config.inference_dtype))
    rng = np.random.default_rng(seed)
    n = max(1, min(parallel or selfplay_config.parallel_games, num_games))
    mcts = BatchedMCTS(rules, n, mcts_config)
    games = LegGames(rules, n, track_moves=True)
    playing = np.zeros(n, dtype=np.bool_)
    recs: list[dict] = [{} for _ in range(n)]
    counted_so_far = 0
    new_games = 0
    deck = opening_deck(rules) if selfplay_config.opening_share > 0 else ()
    finished: list[GameRecord] = []
    carrying = carry is not None
    carried = [c for c in carry if isinstance(c, ParkedGame)] if carry is not None else []
    carried_ended = [c for c in carry if isinstance(c, GameRecord)] if carry is not None else []
    late_starts = [c for c in carry if isinstance(c, LateStart)] if carry is not None else []
    late_share = selfplay_config.late_start_share if carrying else 0.0
    bootstrap_at_cap = selfplay_config.cap_value == "search"  # a capped game learns its last search's value
    # by spec: a game names its partner, so a parked game never points into another call's list; none are
    # made when no game will have one (the config refuses a share without specs)
    sparring_share = selfplay_config.sparring_share
    partners = {spec: make_agent(spec, rules.name, seed + k) for k, spec in enumerate(selfplay_config.sparring)
                if sparring_share > 0}  # fmt: skip
    if carry is not None:
        carry.clear()

    def take_one() -> bool:
        """Whether one more game counts for this call (this worker's bound, then the shared one); asked as a
        game starts, or, carrying, as it ends."""
        nonlocal counted_so_far
        if counted_so_far >= num_games or (claim is not None and not claim()):
            return False
        counted_so_far += 1
        return True

    def deliver(record: GameRecord) -> None:
        finished.append(record)
        if on_game is not None:
            on_game(record)
        if progress is not None:
            progress(1)

    def call_over() -> bool:
        """Carrying: this call's games have all ended (here, or at the other workers of the iteration)."""
        return counted_so_far >= num_games or (iteration_over is not None and iteration_over())

    def start(i: int) -> None:
        nonlocal new_games
        if call_over() if carrying else not take_one():  # carrying, games are counted as they end
            playing[i] = False
            return
        if carried:
            parked = carried.pop(0)
            games.load(i, parked.board, episode_ply=parked.moves_played)
            for leg in parked.legs:
                games.step(i, leg)
            recs[i] = parked.record
        else:
            late = None
            if openings:
                board = openings[new_games % len(openings)]
            elif late_share > 0 and late_starts and rng.random() < late_share:
                late = late_starts[int(rng.integers(len(late_starts)))]
                board = late.board
            elif deck and rng.random() < selfplay_config.opening_share:
                board = deck[int(rng.integers(len(deck)))]
            else:
                board = Board(rules)
            games.load(i, board)
            new_games += 1
            recs[i] = new_game_record()
            if sparring_share > 0 and rng.random() < sparring_share:  # (partner's spec, the colour it plays)
                spec = selfplay_config.sparring[int(rng.integers(len(selfplay_config.sparring)))]
                recs[i]["sparring"] = (spec, int(rng.integers(2)))
            start_move = len(board.move_stack)
            recs[i]["start_move"] = start_move
            if late is not None:
                recs[i]["late_start"] = True
                recs[i]["cap"] = start_move + selfplay_config.late_start_moves
            elif late_share > 0:  # the move at which this game leaves a late position (if it gets there)
                span = max(1, selfplay_config.max_moves - selfplay_config.late_start_after)
                recs[i]["late_at"] = max(start_move, selfplay_config.late_start_after) + int(rng.integers(span))
        playing[i] = True

    def finish(i: int, winner: int, adjudicated: bool = False) -> None:
        r = recs[i]
        board = games.boards[i]
        colours = np.array(r["colours"], dtype=np.int8)
        scale = selfplay_config.adjudicated_value if adjudicated else 1.0
        move_numbers = np.array(r["ply"], dtype=np.int16)
        if adjudicated and bootstrap_at_cap and "last_search" in r:
            targets = bootstrap_targets(colours, move_numbers, *r["last_search"], mcts_config.discount)
        else:
            targets = value_targets(colours, move_numbers, board.ply, winner, scale, mcts_config.discount)
        w = selfplay_config.search_value_weight
        if w > 0 and len(targets):
            targets = ((1 - w) * targets + w * np.array(r["q"], dtype=np.float32)).astype(np.float32)
        record = GameRecord(
            observations=np.array(r["obs"], dtype=np.float16).reshape(-1, *games.obs.shape[1:]),
            policy_actions=np.array(r["acts"], dtype=np.int16).reshape(-1, POLICY_SLOTS),
            policy_probs=np.array(r["probs"], dtype=np.float16).reshape(-1, POLICY_SLOTS),
            colours=colours,
            value_targets=targets,
            winner=winner,
            adjudicated=adjudicated and winner >= 0,
            move_numbers=move_numbers,
            moves=[str(m) for m in board.move_stack],
            plies=len(board.move_stack),
            seconds={k: round(v, 4) for k, v in r["seconds"].items()},
            start_move=r.get("start_move", 0),
            late_start=r.get("late_start", False),
            sparring=r["sparring"][0] if "sparring" in r else "",
            sparring_colour=r["sparring"][1] if "sparring" in r else -1,
        )
        if not carrying or take_one():
            deliver(record)
        else:
            carry.append(record)  # ended after this call's count was full: the next call hands it over
        start(i)

    def advance(i: int, action: int) -> None:
        """Take a leg; when it completes a move, end the game if the rules or the move cap say so."""
        step = games.step(i, action)
        if not step.move_done:
            return
        if step.code == STEP_TERMINATED:
            winner = games.winner(i)
            finish(i, -1 if winner is None else int(winner))
            return
        moves = len(games.boards[i].move_stack)
        if moves >= recs[i].get("cap", selfplay_config.max_moves):
            margin, king = selfplay_config.adjudicate_margin, selfplay_config.king_material
            finish(i, adjudicate(games.boards[i], margin, king), adjudicated=True)
        elif moves == recs[i].get("late_at", -1):
            late_starts.append(LateStart(games.board(i)))

    def partner_to_move(i: int) -> bool:
        """Whether game ``i``'s sparring partner is to begin a move (it plays whole moves, so never owns a
        move in progress)."""
        sparring = recs[i].get("sparring")
        return (sparring is not None and sparring[0] in partners and int(games.to_move(i)) == sparring[1]
                and not games.legs_taken(i))  # fmt: skip

    def partner_moves(i: int) -> None:
        """The sparring partner of game ``i`` plays its move, leg by leg."""
        t = time.perf_counter()
        board = games.board(i)
        move = partners[recs[i]["sparring"][0]].select_move(board)
        actions = move_to_actions(move, rules.board_size, int(board.turn))
        recs[i]["seconds"]["play"] += time.perf_counter() - t
        for action in actions:
            advance(i, action)

    def charge(phase: str, seconds: float, games_now: np.ndarray) -> None:
        share = seconds / max(len(games_now), 1)
        for i in games_now:
            recs[i]["seconds"][phase] += share

    net_seconds = [0.0]

    def timed_evaluator(obs: np.ndarray, masks: np.ndarray):
        t = time.perf_counter()
        out = evaluator(obs, masks)
        net_seconds[0] += time.perf_counter() - t
        return out

    # Each game searches on its own clock (BatchedMCTS.begin/step): a game whose quick search has
    # ended plays its leg and begins its next search while the full searches of others go on, so
    # every network call holds one leaf of every game in play, not only of the slowest searches.
    obs = games.obs.copy()  # each game's position at the start of its search in progress
    masks = games.masks.copy()
    full = np.zeros(n, dtype=np.bool_)
    quick = min(selfplay_config.quick_simulations, mcts_config.simulations)
    gumbel_root = mcts_config.root == "gumbel"
    focus_start, focus_end = selfplay_config.focus_plies

    def hot(i: int) -> bool:
        """Whether game ``i``'s next leg is within ``temperature_moves`` (drawn, not the search's best)."""
        return games.moves_played(i) < selfplay_config.temperature_moves

    def full_search_shares(slots: np.ndarray) -> np.ndarray:
        """The chance that each of these games' next search is a full one: higher inside the focus plies."""
        shares = np.full(len(slots), selfplay_config.full_search_share)
        if focus_end > focus_start:
            plies = np.array([games.moves_played(i) for i in slots])
            shares[(plies >= focus_start) & (plies < focus_end)] = selfplay_config.focus_full_search_share
        return shares

    for record in carried_ended:
        if take_one():
            deliver(record)
        else:
            carry.append(record)
    for i in range(n):
        start(i)

    while (not call_over()) if carrying else playing.any():
        t_round = time.perf_counter()
        searching = mcts.searching
        # games not searching play forced legs (one legal choice) without search, and their sparring
        # partners' moves, up to the network's next choice
        ready = np.zeros(n, dtype=np.bool_)
        for i in np.flatnonzero(playing & ~searching):  # a search round is no time to walk every slot
            while playing[i]:
                if partners and partner_to_move(i):
                    partner_moves(i)
                    continue
                if games.observe(i) == 1:
                    advance(i, int(games.legal[i, 0]))
                    continue
                ready[i] = True
                break
        if ready.any():
            obs[ready] = games.obs[ready]
            masks[ready] = games.masks[ready]
            # playout cap randomisation: most legs get a quick search with no exploration noise, played
            # but not stored
            full[ready] = rng.random(int(ready.sum())) < full_search_shares(np.flatnonzero(ready))
            budget = np.where(full, mcts_config.simulations, quick)
            explore = full.copy()
            if gumbel_root:
                # a Gumbel search plays its halving winner, not a draw from its visits: within
                # temperature_moves its quick searches take the root's Gumbel noise too (a Gumbel-max draw
                # from the improved policy), or every game opens with the same greedy legs
                for i in np.flatnonzero(ready & ~full):
                    explore[i] = hot(i)
            mcts.begin(games.games, ready, rng, simulations=budget, explore=explore)
        searching = mcts.searching
        if not searching.any():
            continue
        on_board = np.flatnonzero(searching)
        t_search = time.perf_counter()
        net_before = net_seconds[0]
        ended = mcts.step(timed_evaluator)
        t_done = time.perf_counter()
        network = net_seconds[0] - net_before
        charge("network", network, on_board)
        charge("search", t_done - t_search - network, on_board)
        charge("play", t_search - t_round, on_board)
        if not ended.any():
            continue
        t_round = time.perf_counter()
        result = mcts.result(ended)
        done = np.flatnonzero(ended)
        for i in done:
            if bootstrap_at_cap:  # the game's latest search, quick or full: what it learns if stopped at the cap
                recs[i]["last_search"] = (int(games.to_move(i)), games.moves_played(i), float(result.root_value[i]))
            if full[i]:
                acts, probs = sparse_policy(result.policy[i], masks[i])
                r = recs[i]
                r["obs"].append(obs[i].copy())
                r["acts"].append(acts)
                r["probs"].append(probs)
                r["colours"].append(int(games.to_move(i)))
                r["ply"].append(games.moves_played(i))
                r["q"].append(float(result.root_value[i]))
            if result.action[i] >= 0:
                leg = int(result.action[i])  # gumbel: sequential halving's winner (its noise explores)
            else:
                leg = choose_leg(result.visits[i], selfplay_config.temperature if hot(i) else None, rng)
            recs[i]["seconds"]["play"] += (time.perf_counter() - t_round) / len(done)
            advance(i, leg)
    if carry is not None:  # park the games in progress (their searches are dropped) and any not resumed
        for i in np.flatnonzero(playing):
            carry.append(ParkedGame(games.board(i), games.moves_played(i), games.legs_taken(i), recs[i]))
        carry.extend(carried)
        carry.extend(late_starts[-selfplay_config.late_start_pool :] if late_share > 0 else [])
    return finished
