"""AlphaZero's settings: how self-play games are played, and how the learner trains on them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agents.mcts import MCTSConfig
from agents.networks import INFERENCE_DTYPES, InferenceDtype

__all__ = ["SelfPlayConfig", "AlphaZeroConfig"]


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play games are played."""

    parallel_games: int = 64
    """Games played at once by one worker; their MCTS leaves form one network batch."""
    max_moves: int = 120
    """Whole moves after which a self-play game is stopped and adjudicated. It stops about half the
    games (of the games a run logs, 58% on american, 52% on international). On international, whose
    evaluation games against minimax:4 are lost 90 to 180 plies in, the arena's 200
    (:data:`train.arena.MATCH_MOVE_CAP`; 17% stopped) played 21% fewer games for as many positions and
    scored -0.02 [-0.11, +0.07] paired side by side (45 minutes on one core each, docs/BENCHMARKS.md)."""
    temperature_moves: int = 12
    """Whole moves (plies) played by sampling from the visit counts; later moves take the most visited leg.
    With a Gumbel root (``mcts.root``), which plays sequential halving's winner, these plies' quick
    searches take the root's Gumbel noise as its full searches do (a draw from the improved policy).
    30 scored -0.120 [-0.231, -0.009] against minimax:2 and -0.035 [-0.141, +0.071] against minimax:4
    paired, side by side with 12 (international, 40 minutes on one core each; docs/BENCHMARKS.md)."""
    temperature: float = 1.0
    """Temperature of that sampling (PUCT root; a Gumbel root's draw is set by ``mcts.gumbel_scale``)."""
    adjudicate_margin: float = 2.0
    """A game stopped at max_moves is scored a win for the side ahead by at least this much material
    (man 1, king ``king_material``) instead of a draw; 0 turns adjudication off. Domain knowledge that gives short
    runs a denser value signal than the many capped games of early self-play."""
    king_material: float = 1.5
    """What a king counts in that material (a man counts 1). Minimax weighs a flying king at 3 men;
    counting it so in international's adjudication (``3``) drew a third fewer self-play games and
    scored +0.010 [-0.091, +0.111] against minimax:2 and +0.000 [-0.124, +0.124] against minimax:4
    paired, side by side with 1.5 (45 minutes on one core each, docs/BENCHMARKS.md): 1.5 stays."""
    adjudicated_value: float = 0.5
    """Value target of an adjudicated win (a real win is 1): being ahead is not the same as winning, and
    a lower value teaches the search to finish games rather than hold a lead until the cap."""
    cap_value: Literal["material", "search"] = "material"
    """What the positions of a game stopped at ``max_moves`` learn. ``material``: the adjudicated result
    (``adjudicate_margin``, ``adjudicated_value``), as if the game ended there. ``search``: the cap is a
    truncation, not an end (Pardo et al., "Time Limits in Reinforcement Learning", ICML 2018): each
    position learns the root value of the game's last search, seen from its own player and discounted
    by the MCTS ``discount`` once per whole move between them, as the value of a game that goes on.
    The game's recorded ``winner`` is still its adjudication (what the logs count). Pair it with a
    network that does not read the move number (``net.reads_move_number=false``), which could otherwise
    still tell how near the cap a position is. The two together scored -0.160 [-0.272, -0.048] against
    minimax:4 and -0.115 [-0.228, -0.002] against minimax:2 paired, side by side with the defaults
    (international, 40 minutes on one core each; docs/BENCHMARKS.md): three searches in four are quick
    ones, so a capped game learns from one shallow search where material gives a signal the network does
    not have to supply. ``material`` stays."""
    full_search_share: float = 0.25
    """Playout cap randomisation (KataGo): the share of searched legs that get the full ``mcts.simulations``;
    only they are stored as training positions. The others get ``quick_simulations`` and no noise, play
    the game on faster, and are not stored. 1: every leg is a full search. The default (a quarter of legs
    at 64 simulations, the rest at 16) won the equal-time comparison in docs/BENCHMARKS.md."""
    quick_simulations: int = 16
    """Simulations of a quick search (when ``full_search_share`` < 1). 32 played 26% fewer games and
    scored -0.025 [-0.126, +0.076] against minimax:4 paired, side by side with the defaults
    (international, 40 minutes on one core each; docs/BENCHMARKS.md)."""
    focus_plies: tuple[int, int] = (0, 0)
    """Plies ``[start, end)`` of a game (whole moves of either side played before the search) whose
    searched legs are full searches with ``focus_full_search_share`` instead of ``full_search_share``:
    more policy targets where games are decided (the american losses against minimax:4 began with a
    man lost between plies 30 and 80). ``(0, 0)``: no focus, every leg alike. Off by default: plies
    30-80 at 0.5 scored -0.05 [-0.15, +0.05] against the defaults side by side (american, 30 minutes
    on one core each; docs/BENCHMARKS.md)."""
    focus_full_search_share: float = 0.5
    """Share of full searches among the legs inside ``focus_plies``."""
    carry_over: bool = True
    """Keep every self-play slot busy to the end of an iteration: slots freed while the iteration's last
    games are being played start games for the next iteration, which are parked when it ends and
    resumed (with the new weights) by the next one. The network batch then stays full instead of
    shrinking as the slowest games end. False: each iteration plays its games from their start and
    nothing more (reproducible game by game, for a fixed number of workers)."""
    inference_dtype: InferenceDtype = "auto"
    """Number format of the network's forward passes in self-play (:func:`agents.networks.inference_dtype`):
    ``auto`` is bfloat16 on a CPU that computes it natively (AVX-512 BF16 or AMX), float32 elsewhere.
    The network trains in float32 either way, and evaluation agents search in float32. In bfloat16 the network
    is laid out channels last (:func:`agents.learned.make_evaluator`), about 1.6 times as fast again; before
    that (2026-12-02), side by side on one core each, bfloat16 played 15% more games than float32 on international (paired +0.08 [-0.05,
    +0.21] against minimax:2) and 11% more on american (+0.095 [+0.002, +0.188] against minimax:4;
    docs/BENCHMARKS.md)."""
    search_value_weight: float = 0.0
    """Weight of the search's root value in a position's value target (0: the game's result alone). The
    result of one game is a noisy target for every position in it; mixing in the search's own estimate
    (``(1 - w) * result + w * root value``) lowers that noise, at the price of some bias early on."""

    opening_share: float = 0.0
    """Share of new self-play games that start from a balloted opening (:func:`train.arena.openings.ballot`:
    a deck of the ACF three-move openings on american, of random two- and three-ply openings elsewhere,
    the positions arena matches start from) instead of the start position; the opening is drawn at
    random for each game. Temperature sampling alone seldom reaches the deck's sharper openings, but
    training on them did not pay: half the games from the deck scored -0.055 [-0.147, +0.037] against
    the defaults side by side (american, 30 minutes on one core, minimax:4; docs/BENCHMARKS.md)."""

    late_start_share: float = 0.0
    """Share of new self-play games that start from a late position of an earlier self-play game of the
    same runner instead of the start position: targeted starts in the manner of Go-Exploit (Trudeau and
    Bowling, 2023), so that more of the late positions where games are decided (flying kings, crowning
    races) are played out past the ``max_moves`` cap and learnt from. Each game that starts from the start
    position (or an opening) and gets past ``late_start_after`` whole moves leaves one position, drawn
    uniformly from its moves between ``late_start_after`` and ``max_moves``, in the runner's pool of late
    positions (the newest ``late_start_pool`` of each worker are kept, carried
    between iterations with the games in progress, so it needs ``carry_over``). A game started from one
    plays ``late_start_moves`` whole moves past it before it is stopped and adjudicated, and leaves none.
    Off by default: side by side with the defaults on international (45 minutes on one core each), a
    quarter of the games from late positions stored as many positions from 17% more, shorter games and
    scored -0.085 [-0.187, +0.017] against minimax:4 and -0.055 [-0.169, +0.059] against minimax:2
    paired, its losses turning no later; without it 92% of international self-play games already have a
    king before the cap, and 27% of the stored positions (docs/BENCHMARKS.md)."""
    late_start_after: int = 80
    """Whole moves from which a game's positions may enter the pool of late positions."""
    late_start_moves: int = 80
    """Whole moves a game started from a late position plays before it is stopped (its cap is the
    position's move number plus this)."""
    late_start_pool: int = 128
    """Late positions a self-play worker keeps (the newest)."""

    sparring: tuple[str, ...] = ()
    """Agent specs (:func:`agents.make_agent`, such as ``minimax:3``) of sparring partners: a
    ``sparring_share`` of the new self-play games has one of them, drawn at random, play one side, drawn
    at random. Only the network's side is searched and stored, and its positions learn the game's
    result. Self-play alone seldom meets a combination (a sacrifice that wins back more), because the
    network that plays the other side does not yet see them; a search of fixed depth with quiescence
    plays every one within its horizon, so the value head learns which positions allow them. A partner
    plays each of its moves with ``select_move`` on its own, between the network's batched searches:
    cheap scripted agents suit (minimax at depth 5 takes under half a millisecond a move on international).
    Commas separate specs on the command line (``--set alphazero.selfplay.sparring=minimax:1,minimax:3,minimax:5``).
    Those three (the odd depths, none an evaluation opponent) in 30% of the games, over two 60-minute
    two-core international runs, scored 0.50 and 0.52 against minimax:4 and 0.905 and 0.865 against
    minimax:2, paired with the defaults' run +0.105 [-0.020, +0.230] and +0.125 [-0.002, +0.252]
    against minimax:4 and +0.110 [+0.026, +0.194] and +0.070 [-0.019, +0.159] against minimax:2, but
    0.22 and 0.145 against minimax:6 (+0.000, -0.075; docs/BENCHMARKS.md). Off by default until american
    and russian are measured with it too."""
    sparring_share: float = 0.0
    """Share of new self-play games played against a sparring partner (needs ``sparring``); 0: pure
    self-play."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.late_start_share <= 1.0:
            raise ValueError(f"late_start_share must be in [0, 1], got {self.late_start_share!r}")
        if self.late_start_share > 0 and not self.carry_over:
            raise ValueError(
                "late_start_share needs carry_over: the pool of late positions is kept with the carried games"
            )
        if self.late_start_share > 0 and self.late_start_after >= self.max_moves:
            raise ValueError(
                f"late_start_after ({self.late_start_after}) must be below max_moves ({self.max_moves}): "
                "no game would get far enough to leave a late position"
            )
        if self.late_start_after < 0 or self.late_start_moves < 1 or self.late_start_pool < 1:
            raise ValueError(
                "late_start_after must be at least 0, late_start_moves and late_start_pool at least 1; got "
                f"{self.late_start_after!r}, {self.late_start_moves!r}, {self.late_start_pool!r}"
            )
        object.__setattr__(self, "sparring", tuple(self.sparring))  # config.json gives a list
        if not 0.0 <= self.sparring_share <= 1.0:
            raise ValueError(f"sparring_share must be in [0, 1], got {self.sparring_share!r}")
        if self.sparring_share > 0 and not self.sparring:
            raise ValueError("sparring_share needs sparring: the agent specs of the sparring partners")
        if not 0.0 <= self.opening_share <= 1.0:
            raise ValueError(f"opening_share must be in [0, 1], got {self.opening_share!r}")
        if self.parallel_games < 1 or self.max_moves < 1 or self.temperature_moves < 0 or self.temperature <= 0:
            raise ValueError(f"invalid SelfPlayConfig {self}")
        if self.king_material <= 0:
            raise ValueError(f"king_material must be positive, got {self.king_material!r}")
        if not 0.0 <= self.adjudicated_value <= 1.0:
            raise ValueError(f"adjudicated_value must be in [0, 1], got {self.adjudicated_value!r}")
        if self.cap_value not in ("material", "search"):
            raise ValueError(f"cap_value must be material or search, got {self.cap_value!r}")
        if not 0.0 < self.full_search_share <= 1.0:
            raise ValueError(f"full_search_share must be in (0, 1], got {self.full_search_share!r}")
        object.__setattr__(self, "focus_plies", tuple(self.focus_plies))  # config.json gives a list
        if len(self.focus_plies) != 2 or not 0 <= self.focus_plies[0] <= self.focus_plies[1]:
            raise ValueError(f"focus_plies must be two plies 0 <= start <= end, got {self.focus_plies!r}")
        if not 0.0 < self.focus_full_search_share <= 1.0:
            raise ValueError(f"focus_full_search_share must be in (0, 1], got {self.focus_full_search_share!r}")
        if self.quick_simulations < 2:
            raise ValueError(f"quick_simulations must be at least 2, got {self.quick_simulations!r}")
        if self.inference_dtype not in INFERENCE_DTYPES:
            raise ValueError(
                f"inference_dtype must be one of {', '.join(INFERENCE_DTYPES)}, got {self.inference_dtype!r}"
            )
        if not 0.0 <= self.search_value_weight <= 1.0:
            raise ValueError(f"search_value_weight must be in [0, 1], got {self.search_value_weight!r}")


@dataclass
class AlphaZeroConfig:
    """Settings of the AlphaZero learner (``--alphazero.*`` on the command line)."""

    mcts: MCTSConfig = field(default_factory=lambda: MCTSConfig(simulations=64, discount=0.99, dirichlet_fraction=0.4))
    """Search settings of self-play (``simulations`` is the full search of playout cap randomisation).
    The root noise is 0.4 rather than the search's general 0.25: side by side with 0.25 on international
    (40 minutes on one core each, three training seeds, 300 paired games; docs/BENCHMARKS.md) it scored
    +0.072 [+0.002, +0.141] against minimax:4 and +0.043 [-0.023, +0.110] against minimax:2, where 0.1
    (one seed) scored -0.100 [-0.198, -0.002] against minimax:4; on american (20 minutes) 0.4 and 0.25
    were level. 0.55, over the 60-minute two-core benchmark on international, was level with 0.4
    (+0.025 [-0.104, +0.154] against minimax:4 paired)."""
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    """How self-play games are played."""
    workers: int = 0
    """Processes playing an iteration's self-play games; 0: one per usable core; 1: play them in the
    training process."""
    games_per_iteration: int = 128
    """Self-play games between two training phases: how often self-play's network is updated. With
    ``selfplay.carry_over`` (the default) it does not set the network batch: every worker keeps
    ``selfplay.parallel_games`` games going (at most this many), and those still going when the
    iteration's games are in are carried to the next (:func:`train.alphazero.workers.worker_batch`);
    without it, a worker starts three quarters of its even share. Side by side on one core each
    (american, 30 minutes against minimax:4; docs/BENCHMARKS.md): twice the games an iteration with
    twice the batch (256, ``selfplay.parallel_games=128``) played 10% more games but scored -0.055
    [-0.131, +0.021]; half the games an iteration (64) at the same batch played as many games and
    scored +0.018 [-0.052, +0.087] over 200 paired games (30 and 40 minutes): no gain, so 128 stays."""
    replay_capacity: int = 60_000
    """Positions kept in the replay buffer: the last 4 minutes of a two-core international run. 200,000
    side by side with it (international, 45 minutes on one core each, docs/BENCHMARKS.md) scored -0.040
    [-0.148, +0.068] against minimax:2 and +0.090 [-0.022, +0.202] against minimax:4 paired, +0.042 over
    300 games against minimax:4 on three sets of openings, and -0.075 [-0.179, +0.029] from a second
    training seed (32 minutes): no gain, so 60,000 stays."""
    batch_size: int = 256
    """Positions per gradient step. 64 (four times the steps for the same samples and training time)
    scored +0.065 [-0.050, +0.180] against minimax:4 and -0.105 [-0.210, -0.000] against minimax:2
    paired, side by side with 256 (international, 40 minutes on one core each; docs/BENCHMARKS.md)."""
    sample_reuse: float = 2.0
    """Gradient-step samples drawn per new position. On two CPU cores games are worth more than gradient
    steps: 2 played 14% more games than 4 in equal time and scored +0.06 [-0.00, +0.13] against it over
    two side-by-side comparisons (docs/BENCHMARKS.md); 8 scored -0.12."""
    learning_rate: float = 2e-3
    """AdamW step size."""
    weight_decay: float = 1e-4
    """AdamW weight decay, on every parameter (a step shrinks each weight by ``learning_rate *
    weight_decay``). The default holds nothing back: the trunk's convolution weights grow about twice
    their initial size over 40 minutes (``benchmarks/weight_norms.py``), which under batch
    normalisation halves what a late step moves them. 0.5 holds them at their size, and scored +0.018
    [-0.067, +0.102] against minimax:4 and -0.010 [-0.091, +0.071] against minimax:2 pooled over two
    training seeds, side by side with the default (international, 40 minutes on one core each;
    docs/BENCHMARKS.md)."""
    lr_schedule: Literal["constant", "cosine"] = "constant"
    """``cosine``: the step size follows a half cosine from ``learning_rate`` down to
    ``final_lr_fraction * learning_rate`` over the run's training budget (it follows the minutes
    spent, so a resumed run continues the same curve). Side by side with the constant default on
    international (30 minutes on one core each) it scored -0.125 [-0.24, -0.01] against minimax:2
    (docs/BENCHMARKS.md)."""
    final_lr_fraction: float = 0.1
    """Where the cosine schedule ends, as a share of ``learning_rate``."""
    material_weight: float = 0.5
    """Weight of the material head's loss when the network has one (``net.material_head``): an auxiliary
    target, as KataGo's ownership and score targets are, that the value head's features share."""
    material_horizon: int = 6
    """Whole moves ahead that the material head's targets look (see
    :func:`train.alphazero.replay.material_targets`)."""
    ema_decay: float = 0.0
    """Decay, per gradient step, of an exponential moving average of the network's weights (and of its
    batch-norm statistics): the averaged network is the one the run puts forward, the one gating
    tries, ``best.pt`` and the learning curve's agent, while self-play and the gradient steps go on
    with the network as trained (``latest.pt``). An average over the last ``1 / (1 - ema_decay)``
    steps smooths out the noise of a constant step size, as the averaged networks of KataGo and
    Leela Chess Zero do. The first updates average with a smaller decay, ``(1 + n) / (10 + n)``
    after ``n`` updates, so the early average does not hold on to the random start. 0: off. Off by
    default: over the 60-minute two-core international benchmark (2026-12-06), 0.995 (an average over
    about 200 steps, one replay buffer of samples) scored +0.025, +0.045 and +0.08 above the network as
    trained against minimax:2, :4 and :6 on the benchmark's openings, -0.055 against minimax:4 on
    others; pooled over the 400 paired games +0.024 [-0.033, +0.080] (docs/BENCHMARKS.md)."""
    gate_games: int = 0
    """Games of the new network against the previous best after each iteration (0: every new network is
    accepted, as in AlphaZero; >0: AlphaGo Zero gating)."""
    gate_threshold: float = 0.55
    """Score the new network needs against the previous best to replace it (when gate_games > 0)."""
    eval_simulations: int = 64
    """MCTS simulations per searched leg when the agent is evaluated (and stored in its checkpoints)."""
    eval_c_puct: float = 1.0
    """PUCT exploration constant of the agent when it is evaluated (and stored in its checkpoints);
    self-play explores with ``mcts.c_puct`` (1.5). A player wants less exploration than a self-play
    game. On the 60-minute american and international checkpoints at 128 simulations, 1.0 scored
    +0.025 to +0.095 over 1.5 in each of six paired 100-game matches (pooled +0.043 [+0.006,
    +0.081]), 2.5 scored -0.12 and 0.75 no better than 1.0 (docs/BENCHMARKS.md)."""

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad field."""
        for name in ("games_per_iteration", "replay_capacity", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"alphazero.{name} must be at least 1, got {getattr(self, name)}")
        if self.workers < 0:
            raise ValueError(f"alphazero.workers must be 0 (one per usable core) or more, got {self.workers}")
        if not 0.0 <= self.ema_decay < 1.0:
            raise ValueError(f"alphazero.ema_decay must be in [0, 1), got {self.ema_decay}")
        if self.gate_games < 0:
            raise ValueError(f"alphazero.gate_games must not be negative, got {self.gate_games}")
        if self.eval_simulations < 2:
            raise ValueError(f"alphazero.eval_simulations must be at least 2, got {self.eval_simulations}")
        if self.eval_c_puct <= 0:
            raise ValueError(f"alphazero.eval_c_puct must be positive, got {self.eval_c_puct}")
        if self.lr_schedule not in ("constant", "cosine") or not 0 < self.final_lr_fraction <= 1:
            raise ValueError("alphazero.lr_schedule must be constant or cosine, final_lr_fraction in (0, 1]")
        if self.material_weight < 0 or self.material_horizon < 1:
            raise ValueError("alphazero.material_weight must not be negative, material_horizon at least 1")
        if self.sample_reuse <= 0 or self.learning_rate <= 0 or self.weight_decay < 0:
            raise ValueError("alphazero.sample_reuse and learning_rate must be positive, weight_decay not negative")
