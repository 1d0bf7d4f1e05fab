"""Self-play and evaluation on a Ray cluster: the ``--backend ray`` of a training run.

    python -m train.selfplay --backend ray                               # a local Ray started for the run
    python -m train.selfplay --backend ray --ray-address HEAD:6379       # join a running cluster

**What runs where.** The learner (replay buffer, gradient steps, gating,
checkpoints, logs) stays in the driver, the process that runs the command.
The games run on :class:`SelfPlayWorker` actors, one per CPU the cluster
offers (with GPUs in the cluster and a device other than ``cpu``, each
actor also takes an equal share of them and plays on ``cuda``). Each actor
sets one torch thread (:func:`agents.runtime.tune_process`) and runs the
same worker code as the local pool: an iteration's games are split into
one share per ready actor exactly as :class:`~train.alphazero.workers.SelfPlayPool`
splits them (share ``k`` plays with seed ``seed + SHARE_SEED_STRIDE * k``), so without
faults the games are the pool's games for that many workers (with
``dynamic=False`` and ``selfplay.carry_over`` off). Each actor keeps the
games it parked at the end of a share (``selfplay.carry_over``, see
:mod:`train.alphazero.selfplay`) and resumes them in its next share; a lost
actor's parked games are lost with it (none of them was logged). The network
goes to the cluster once per iteration (``ray.put``); every actor reads
that one object. An actor's share is a streaming generator: each game is
sent back the moment it ends, and the learner logs it then (a Ctrl-C or a
kill loses no finished game, as with the local pool). Evaluation games fan
out to the same actors: the openings are split into shares of whole pairs,
each actor rebuilds the agent from its weights (:class:`PlayerRecipe`) and
the opponent from its spec, and plays its share with
:func:`train.arena.play_match`.

**Faults.** A worker lost mid-iteration (its process or its whole node
died) does not stop the run. Games only ever arrive whole, so what it had
not finished is simply gone: nothing half-played reaches the game log or
the replay buffer. Its unfinished games are queued again with a new seed
and played by the next worker that is free, so an iteration still logs
exactly the games it asked for (the learner's resume logic counts on
that), and an evaluation still plays every opening of its match. Actors
are created with ``max_restarts=-1``: Ray restarts a lost one as soon as
the cluster has a free CPU (on a surviving node, or on a node that joins
later); until then the run goes on with the workers that remain. When the
cluster grows, new actors are added at the next iteration. Each event is
one line on standard error, e.g.::

    ray: worker 3 lost (node died): 5 unfinished games dropped, queued again; 3 workers left; it restarts when the cluster has room

If no worker at all is available for ``stall_timeout`` seconds while
games wait, the run stops with an error saying so (its finished games are
logged; run the command again to resume).

**Code on the workers.** The driver starts its Ray job with ``PYTHONPATH``
naming the folder this project is imported from (a ``runtime_env``
environment variable, not a ``working_dir`` upload), so workers on this
machine import the very code the driver runs. Workers on other machines
import the project from the same path or from an installed package: check
out or install the same version on every node (``pip install -e
'.[distributed]'``).
"""

from __future__ import annotations

import os
import queue
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from checkers_env.core.extras import missing

try:
    import ray
    from ray.exceptions import ActorUnavailableError, ObjectLostError, RayActorError
except ImportError as exc:
    raise missing("ray", "the Ray backend (--backend ray)", exc) from exc

import torch

from agents.base import Agent, make_agent
from agents.learned import MCTSAgent, PolicyAgent
from agents.mcts import MCTSConfig
from agents.networks import NetConfig, PolicyValueNet, cpu_state
from agents.runtime import tune_process, usable_cores
from checkers_env.core import Rules, get_rules

from .alphazero.selfplay import SHARE_SEED_STRIDE, GameCarry, GameRecord, SelfPlayJob, play_selfplay_games
from .arena import MATCH_MOVE_CAP, GameResult, evaluate, match_summary, paired_openings, play_match
from .progress import progress_bar, say

__all__ = ["RayBackend", "SelfPlayWorker", "PlayerRecipe", "project_root"]


def project_root() -> str:
    """The folder this project's packages are imported from (what workers get on their ``PYTHONPATH``)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- rebuilding an agent on a worker


@dataclass(frozen=True)
class PlayerRecipe:
    """What rebuilds a learned agent on another process: its kind, network and settings.

    The agent itself does not travel (its evaluator is a TorchScript trace,
    which does not pickle); its weights and settings do, and :meth:`build`
    makes the same player there.
    """

    kind: str
    """``"mcts"`` (:class:`~agents.learned.MCTSAgent`) or ``"policy"`` (:class:`~agents.learned.PolicyAgent`)."""
    rules: Rules
    net: NetConfig
    weights: dict[str, torch.Tensor]
    seed: int | None
    name: str
    mcts: MCTSConfig | None = None
    time: float = 0.0
    dtype: str = "float32"
    sample: bool = False

    @classmethod
    def of(cls, agent: Agent) -> PlayerRecipe | None:
        """The recipe of a learned agent; None for any other agent (it is then played where it is)."""
        if not isinstance(agent, (MCTSAgent, PolicyAgent)):
            return None
        weights = cpu_state(agent.net.state_dict())
        common = {"rules": agent.rules, "net": agent.net.config, "weights": weights, "seed": agent.seed,
                  "name": agent.name}  # fmt: skip
        if isinstance(agent, MCTSAgent):
            return cls(kind="mcts", mcts=agent.mcts_config, time=agent.time, dtype=agent.dtype, **common)
        return cls(kind="policy", sample=agent.sample, **common)

    def build(self, device: str = "cpu") -> Agent:
        """The agent, with its network on ``device``."""
        net = PolicyValueNet(self.rules.board_size, self.net)
        net.load_state_dict(self.weights)
        if self.kind == "mcts":
            return MCTSAgent(net, self.rules, self.mcts, seed=self.seed, device=device, name=self.name,
                             time=self.time, dtype=self.dtype)  # fmt: skip
        return PolicyAgent(net, self.rules, seed=self.seed, device=device, name=self.name, sample=self.sample)


# ---------------------------------------------------------------- the actor


def _streamed(play: Callable[[Callable[[object], None]], object]) -> Iterator[object]:
    """Yield what ``play(emit)`` emits, as it emits it (``play`` runs in a thread; its error is re-raised)."""
    items: queue.Queue = queue.Queue()
    end = object()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            play(items.put)
        except BaseException as exc:  # handed to the caller below
            failure.append(exc)
        finally:
            items.put(end)

    thread = threading.Thread(target=run, name="games", daemon=True)
    thread.start()
    while (item := items.get()) is not end:
        yield item
    thread.join()
    if failure:
        raise failure[0]


class SelfPlayWorker:
    """A Ray actor (one CPU, or a GPU share) that plays self-play and evaluation shares.

    Both methods are streaming generators: they yield each game as it ends.
    """

    def __init__(self) -> None:
        tune_process(torch_threads=1)  # an actor's process is an entry point: its threads are set here
        self.device = "cuda" if ray.get_gpu_ids() else "cpu"
        self.carry = GameCarry()  # this actor's games carried between iterations (lost with the actor)

    def info(self) -> dict:
        """Where this actor runs (answers once the actor is up)."""
        return {"node": ray.get_runtime_context().get_node_id(), "pid": os.getpid(), "device": self.device,
                "carried_games": self.carry.game_count}  # fmt: skip

    def selfplay(self, job: SelfPlayJob, seed: int, num_games: int) -> Iterator[GameRecord]:
        """:func:`~train.alphazero.selfplay.play_selfplay_games` of ``num_games`` of the job's games from
        ``seed`` (one share of it) on this actor's device, resuming the games it parked in its last share
        (when ``selfplay.carry_over``); yields each finished game."""
        share = replace(job, seed=seed, num_games=num_games, device=self.device)
        carry = self.carry.take(share.rules, share.selfplay_config)
        yield from _streamed(lambda emit: play_selfplay_games(share, on_game=emit, carry=carry))

    def match(self, rules: Rules, recipe: PlayerRecipe, opponent: str, starts: list, max_moves: int,
              seed: int) -> Iterator[tuple[int, GameResult]]:  # fmt: skip
        """:func:`~train.arena.play_match` of the recipe's agent against ``make_agent(opponent, seed=seed)``;
        yields ``(k, result)`` as game ``k`` of ``starts`` ends."""
        agent = recipe.build(self.device)
        other = make_agent(opponent, rules.name, seed=seed)
        yield from _streamed(
            lambda emit: play_match(rules, agent, other, starts, max_moves, on_game=lambda k, r: emit((k, r)))
        )


# ---------------------------------------------------------------- the driver's side


@dataclass(eq=False)
class _Worker:
    number: int
    handle: object
    state: str = "starting"  # starting -> ready; ready -> lost -> ready (restarted by Ray), or removed
    ping: object = None
    next_ping: float = 0.0
    node: str = ""
    busy: bool = False


@dataclass(eq=False)
class _Job:
    number: int
    units: list
    """What the job plays: one entry per game (self-play: placeholders; evaluation: (index, start))."""
    seed: int
    finished: set[int] = field(default_factory=set)
    """Positions in ``units`` of the games already received."""

    def left(self) -> list:
        return [u for i, u in enumerate(self.units) if i not in self.finished]


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """``ValueError`` when nothing listens at ``HOST:PORT`` (ray.init would retry for minutes)."""
    host, sep, port = address.rpartition("://")[2].rpartition(":")
    if not sep or not port.isdigit():
        return  # "local", "auto": Ray's own
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"no Ray cluster answers at {address!r} ({exc}); start one with `ray start --head` "
                         "or check --ray-address") from None  # fmt: skip


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _cause(exc: BaseException) -> str:
    text = str(exc).lower()
    if "node" in text and ("died" in text or "dead" in text or "removed" in text):
        return "node died"
    if "restart" in text or "worker process" in text or "unexpectedly" in text:
        return "process died"
    if isinstance(exc, ObjectLostError):
        return "its results were lost with its node"
    return type(exc).__name__


class RayBackend:
    """Self-play and evaluation games on Ray actors; a backend of :mod:`train.backend`.

    Args:
        address: the cluster to join (``HOST:PORT``, ``"auto"``); None: ``RAY_ADDRESS`` if it is set,
            else a local Ray started for the run with one CPU per usable core.
        device: the run's device: with ``"cpu"`` the actors never take GPUs.
        max_workers: at most this many actors (None: one per CPU of the cluster).
        start_timeout: seconds to wait for the first actors to start.
        stall_timeout: seconds games may wait with no worker available before the run stops.

    Ray is started (or joined) on first use; :meth:`close` kills the actors and disconnects (a local Ray
    started here is shut down). If Ray is already initialised in this process, that connection is used.
    """

    def __init__(self, address: str | None = None, device: str = "cpu", max_workers: int | None = None,
                 start_timeout: float = 300.0, stall_timeout: float = 600.0):  # fmt: skip
        if max_workers is not None and max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        self.address = address
        self.device = device
        self.max_workers = max_workers
        self.start_timeout = start_timeout
        self.stall_timeout = stall_timeout
        self._workers: list[_Worker] = []
        self._numbers = 0
        self._started = False
        self._owns_ray = False
        self._actor_class = None

    # ------------------------------------------------------------ workers

    @property
    def workers(self) -> int:
        """Actors ready to play now."""
        return sum(w.state == "ready" for w in self._workers)

    def start(self) -> None:
        """Start or join Ray and the actors, and wait (``start_timeout``) for the first ones to be up."""
        if self._started:
            return
        if not ray.is_initialized():
            path = os.pathsep.join(p for p in (project_root(), os.environ.get("PYTHONPATH")) if p)
            kwargs: dict = {"runtime_env": {"env_vars": {"PYTHONPATH": path}}, "include_dashboard": False}
            address = self.address or os.environ.get("RAY_ADDRESS") or None
            if address is None:
                # "local" starts a new Ray: without it ray.init joins any Ray already running on this machine
                address = "local"
                kwargs["num_cpus"] = usable_cores()
            _check_reachable(address)
            previous = signal.getsignal(signal.SIGTERM)
            try:
                ray.init(address=address, **kwargs)
            except (ConnectionError, ValueError, RuntimeError) as exc:  # a cluster that refuses us, ...
                raise ValueError(f"cannot start or join Ray (address {address!r}): {exc}") from exc
            self._owns_ray = True
            if previous is not None and threading.current_thread() is threading.main_thread():
                # ray.init installs a SIGTERM handler that aborts the process; the run's own (stop, keep the
                # finished games, resumable) is put back
                signal.signal(signal.SIGTERM, previous)
        self._started = True
        self._scale()
        deadline = time.monotonic() + self.start_timeout
        self._refresh(until=lambda: self.workers > 0, timeout=self.start_timeout)
        # the others get a minute more (actors start at different speeds); latecomers join when they are up
        self._refresh(until=lambda: self.workers == len(self._workers), timeout=min(60.0, deadline - time.monotonic()))
        if not self.workers:
            raise RuntimeError(
                f"no Ray worker started within {self.start_timeout:.0f} s (cluster resources: "
                f"{ray.cluster_resources()}); does every node have this project installed?"
            )
        nodes = len({w.node for w in self._workers if w.state == "ready"})
        say(f"ray: {_count(self.workers, 'worker')} on {_count(nodes, 'node')} ({self._resources_text()})")

    def wait_for_workers(self, count: int, timeout: float) -> int:
        """Wait up to ``timeout`` seconds until ``count`` actors are ready (adding actors if the cluster has
        grown); returns how many are ready."""
        self.start()
        deadline = time.monotonic() + timeout
        while True:
            self._scale()
            self._refresh(until=lambda: self.workers >= count, timeout=min(1.0, max(0.0, deadline - time.monotonic())))
            if self.workers >= count or time.monotonic() >= deadline:
                return self.workers

    def _resources_text(self) -> str:
        res = ray.cluster_resources()
        return f"cluster: {res.get('CPU', 0):g} CPUs, {res.get('GPU', 0):g} GPUs"

    def _wanted(self) -> tuple[int, float]:
        """(actors the cluster has room for, GPU share of each)."""
        res = ray.cluster_resources()
        count = int(res.get("CPU", 0))
        if self.max_workers is not None:
            count = min(count, self.max_workers)
        gpus = float(res.get("GPU", 0)) if self.device != "cpu" else 0.0
        share = int(gpus / count * 10_000) / 10_000 if gpus and count else 0.0
        return count, min(share, 1.0)

    def _scale(self) -> None:
        """Add actors while the cluster offers more CPUs than there are actors (lost ones count: Ray
        restarts them when it can)."""
        count, share = self._wanted()
        if len(self._workers) >= count:
            return
        if self._actor_class is None:
            self._actor_class = ray.remote(SelfPlayWorker)
        actor = self._actor_class.options(num_cpus=1, num_gpus=share, max_restarts=-1)
        while len(self._workers) < count:
            self._workers.append(_Worker(self._numbers, actor.remote()))
            self._numbers += 1

    def _refresh(self, until: Callable[[], bool] | None = None, timeout: float = 0.0) -> None:
        """Promote the actors that have come up (or back); with ``until``, keep at it until ``until()`` holds
        or ``timeout`` seconds have passed."""
        wait_all = until is not None
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            waiting = [w for w in self._workers if w.state != "ready"]
            for w in waiting:
                if w.ping is None and now >= w.next_ping:
                    w.ping = w.handle.info.remote()
            pings = [w.ping for w in waiting if w.ping is not None]
            if pings:
                left = max(0.0, deadline - now) if wait_all else 0.0
                done, _ = ray.wait(pings, num_returns=len(pings), timeout=min(left, 1.0))
                for w in [w for w in waiting if w.ping in done]:
                    self._answered(w)
            elif wait_all:
                time.sleep(0.2)  # only lost workers, whose next question is not due yet
            if not wait_all or time.monotonic() >= deadline or until():
                return

    def _answered(self, w: _Worker) -> None:
        ping, w.ping = w.ping, None
        try:
            info = ray.get(ping)
        except ActorUnavailableError:  # restarting (or waiting for room to restart): ask again later
            w.next_ping = time.monotonic() + 2.0
            return
        except RayActorError as exc:  # gone for good (killed, or its constructor failed)
            self._workers.remove(w)
            say(f"ray: worker {w.number} cannot be restarted ({_cause(exc)}); {_count(self.workers, 'worker')} left")
            return
        back = w.state == "lost"
        w.state, w.node = "ready", info["node"]
        if back:
            say(f"ray: worker {w.number} is back (node {w.node[:8]}); {_count(self.workers, 'worker')}")

    def _ready(self) -> int:
        """The number of ready workers, waiting (``stall_timeout``) for one when there is none."""
        self._scale()
        self._refresh()
        deadline = time.monotonic() + self.stall_timeout
        while not self.workers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"ray: no worker has been available for {self.stall_timeout:.0f} s "
                                   f"({self._resources_text()})")  # fmt: skip
            self._scale()
            self._refresh(until=lambda: self.workers > 0, timeout=1.0)
        return self.workers

    def _node_alive(self, node: str) -> bool:
        try:
            return any(n.get("NodeID") == node and n.get("Alive") for n in ray.nodes())
        except Exception:  # the question is only for the log line
            return True

    def _lost(self, w: _Worker, job: _Job, exc: BaseException, unit: str, queue_: deque, next_number: int) -> int:
        """Mark ``w`` lost, queue the unfinished part of ``job`` again; returns the next job number."""
        w.state, w.busy, w.ping, w.next_ping = "lost", False, None, time.monotonic() + 1.0
        left = job.left()
        if left:
            queue_.append(_Job(next_number, left, job.seed + SHARE_SEED_STRIDE * (next_number - job.number)))
            next_number += 1
        cause = "node died" if w.node and not self._node_alive(w.node) else _cause(exc)
        say(f"ray: worker {w.number} lost ({cause}): {len(left)} unfinished {unit} dropped, queued again; "
            f"{_count(self.workers, 'worker')} left; it restarts when the cluster has room")  # fmt: skip
        return next_number

    def _run(self, jobs: list[_Job], submit: Callable, arrived: Callable[[_Job, object], None], unit: str) -> None:
        """Play ``jobs`` on the ready workers, re-queueing what lost workers leave unfinished."""
        waiting = deque(jobs)
        next_number = max((j.number for j in jobs), default=-1) + 1
        active: dict[object, tuple[_Worker, _Job]] = {}
        last_progress = time.monotonic()
        try:
            while waiting or active:
                self._refresh()
                for w in self._workers:
                    if waiting and w.state == "ready" and not w.busy:
                        job = waiting.popleft()
                        w.busy = True
                        active[submit(w, job)] = (w, job)
                if not active:
                    if time.monotonic() - last_progress > self.stall_timeout:
                        raise RuntimeError(
                            f"ray: no worker has been available for {self.stall_timeout:.0f} s to play "
                            f"{sum(len(j.left()) for j in waiting)} waiting {unit} ({self._resources_text()})"
                        )
                    self._scale()
                    self._refresh(until=lambda: self.workers > 0, timeout=1.0)
                    continue
                ready, _ = ray.wait(list(active), num_returns=1, timeout=0.5)
                for stream in ready:
                    w, job = active[stream]
                    try:
                        item = ray.get(next(stream))
                    except StopIteration:
                        del active[stream]
                        w.busy = False
                        continue
                    except (RayActorError, ObjectLostError) as exc:
                        del active[stream]
                        next_number = self._lost(w, job, exc, unit, waiting, next_number)
                        continue
                    arrived(job, item)
                    last_progress = time.monotonic()
        finally:
            for w, _ in active.values():
                w.busy = False

    # ------------------------------------------------------------ the backend

    def selfplay_pool(self, workers: int, games: int) -> RayBackend:
        """This backend: its actors play every iteration's games (``workers`` is the local pool's setting
        and is not used: the cluster's CPUs decide)."""
        return self

    def play(self, job: SelfPlayJob, on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
        """The job's games split among the ready actors; ``on_game(record)`` as each arrives.

        As :meth:`SelfPlayPool.play <train.alphazero.workers.SelfPlayPool.play>`: returns them ordered
        by share, then by the order they finished in. Games of a lost worker that it had not finished are
        played again by another one (see the module docstring). Each actor plays on its own device
        (``job.device`` is the learner's and is not used).
        """
        self.start()
        n = self._ready()
        ref = ray.put(job.portable())  # one copy of the network for every actor
        shares = [_Job(k, [None] * s.num_games, s.seed) for k, s in enumerate(job.split(n)) if s.num_games]
        received: list[tuple[int, int, GameRecord]] = []

        def submit(w: _Worker, share: _Job):
            return w.handle.selfplay.options(num_returns="streaming").remote(ref, share.seed, len(share.units))

        def arrived(share: _Job, record: GameRecord) -> None:
            received.append((share.number, len(share.finished), record))
            share.finished.add(len(share.finished))  # self-play games are interchangeable: count them
            if on_game is not None:
                on_game(record)

        self._run(shares, submit, arrived, "games")
        received.sort(key=lambda item: (item[0], item[1]))
        return [record for _, _, record in received]

    def evaluate(self, rules: Rules, agent: Agent, opponent: str | Agent, games: int, seed: int,
                 max_moves: int = MATCH_MOVE_CAP, progress: bool = False) -> tuple[dict, list[GameResult]]:  # fmt: skip
        """:func:`train.arena.evaluate` with the games split among the actors (pairs kept together).

        The openings and colours are those of the local evaluation; each share's players are rebuilt on
        its actor (the learned agent from its weights, the opponent from its spec with ``seed``). An
        agent that is not a learned one, or an opponent given as an agent object, is played here.
        """
        rules = get_rules(rules)
        recipe = PlayerRecipe.of(agent)
        starts = paired_openings(rules, games, seed)
        if recipe is None or not isinstance(opponent, str) or not starts:
            return evaluate(rules, agent, opponent, games, seed, max_moves, progress)
        self.start()
        ref = ray.put(recipe)
        pairs = [list(range(i, min(i + 2, len(starts)))) for i in range(0, len(starts), 2)]
        n = min(self._ready(), len(pairs))
        jobs = []
        for k in range(n):
            mine = [i for p in pairs[k::n] for i in p]
            jobs.append(_Job(k, [(i, starts[i]) for i in sorted(mine)], seed))
        results: list[GameResult | None] = [None] * len(starts)

        with progress_bar(len(starts), f"eval vs {opponent}", progress, "game") as bar:

            def submit(w: _Worker, job: _Job):
                return w.handle.match.options(num_returns="streaming").remote(
                    rules, ref, opponent, [start for _, start in job.units], max_moves, seed
                )

            def arrived(job: _Job, item: tuple[int, GameResult]) -> None:
                k, result = item
                job.finished.add(k)
                results[job.units[k][0]] = result
                bar.update(1)

            self._run(jobs, submit, arrived, "evaluation games")
        played = [r for r in results if r is not None]
        return match_summary(opponent, played), played

    def close(self) -> None:
        """Kill the actors and disconnect from Ray (a local Ray started here is shut down)."""
        for w in self._workers:
            try:
                ray.kill(w.handle, no_restart=True)
            except Exception:  # already gone with its node
                pass
        self._workers = []
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False
        self._started = False
