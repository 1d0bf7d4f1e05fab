"""The replay buffer in memory, and the append-only game log on disk that it is rebuilt from.

Every finished self-play game is appended to the :class:`GameLog` as soon as
it arrives (a kill of the process loses no finished game: the bytes are in
the file when ``append`` returns) and added to the :class:`ReplayBuffer`,
which keeps the newest ``capacity`` positions for sampling. Positions are
written once: the training state stores how many games of the log it has
trained on, not the buffer, and resuming reads the log back.

Log files (``replay/games-<index of the first game>.bin``, one per
iteration) are sequences of framed records::

    b"CKGR"  uint32 length  uint32 crc32   payload (length bytes: an .npz of the record's arrays)

A record cut short by a kill, or one whose checksum does not match, ends the
log: it and anything after it are dropped (and truncated away) when the log
is read. Files whose games are all older than what the buffer keeps are
deleted, so the log stays bounded.
"""

from __future__ import annotations

import io
import json
import os
import struct
import zlib
from collections.abc import Iterator

import numpy as np

from checkers_env.observation import material_lead

from .config import AlphaZeroConfig
from .selfplay import POLICY_SLOTS, GameRecord

__all__ = [
    "ReplayBuffer",
    "GameLog",
    "read_game_log",
    "encode_record",
    "decode_record",
    "material_targets",
    "MATERIAL_SCALE",
]

MATERIAL_SCALE = 3.0
"""Material (man 1, king 1.5) that a material target of 1 stands for; larger swings are clipped to +-1."""


def material_targets(observations: np.ndarray, colours: np.ndarray, move_numbers: np.ndarray,
                     horizon: int) -> np.ndarray:  # fmt: skip
    """``float32[T]``: what the material head learns for each stored position of one game.

    The material the player to move will have won (positive) or lost by ``horizon`` whole moves
    later: the material lead (man 1, king 1.5), in that player's favour, of the first stored
    position at least ``horizon`` moves on (the game's last stored position when it ends sooner),
    minus the lead now, divided by :data:`MATERIAL_SCALE` and clipped to ``[-1, 1]``. A lead is read
    from the observation planes (own and opponent men and kings; pieces already jumped in a capture
    in progress count as gone). Where the search lost a man to a combination a few moves deep, the
    target says so in that position, a denser signal than the game's result for what a few-ply
    search sees. ``move_numbers`` empty (games logged before they were kept): each stored position
    counts as one move.
    """
    n = len(colours)
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    lead = material_lead(observations)
    white_lead = np.where(colours == 0, lead, -lead)
    moves = np.arange(n) if len(move_numbers) != n else move_numbers.astype(np.int64)
    later = np.minimum(np.searchsorted(moves, moves + horizon, side="left"), n - 1)
    white_gain = white_lead[later] - white_lead
    gain = np.where(colours == 0, white_gain, -white_gain)
    return np.clip(gain / MATERIAL_SCALE, -1.0, 1.0).astype(np.float32)


_MAGIC = b"CKGR"
_HEADER = struct.Struct("<4sII")


class ReplayBuffer:
    """The most recent ``capacity`` positions with policy, value and material targets (a ring).

    ``material_horizon``: the whole moves ahead that the material targets look
    (:func:`material_targets`); they are made as a game is added, whether or not a network learns them.
    """

    def __init__(self, capacity: int, board_size: int, planes: int = 8,
                 material_horizon: int = AlphaZeroConfig.material_horizon):  # fmt: skip
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        self.capacity = int(capacity)
        self.board_size = board_size
        self.obs = np.zeros((capacity, planes, board_size, board_size), dtype=np.float16)
        self.acts = np.full((capacity, POLICY_SLOTS), -1, dtype=np.int16)
        self.probs = np.zeros((capacity, POLICY_SLOTS), dtype=np.float16)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.material = np.zeros(capacity, dtype=np.float32)
        self.material_horizon = int(material_horizon)
        self.size = 0
        self.next = 0
        self.total_added = 0

    def add_game(self, game: GameRecord) -> None:
        """Append every stored position of ``game``."""
        values = game.value_targets
        material = material_targets(game.observations, game.colours, game.move_numbers, self.material_horizon)
        for t in range(len(values)):
            j = self.next
            self.obs[j] = game.observations[t]
            self.acts[j] = game.policy_actions[t]
            self.probs[j] = game.policy_probs[t]
            self.values[j] = values[t]
            self.material[j] = material[t]
            self.next = (j + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)
            self.total_added += 1

    def sample(self, batch_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """A uniform minibatch: ``obs [B, 8, N, N]``, ``acts``/``probs [B, POLICY_SLOTS]``, ``values [B]``,
        ``material [B]``."""
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        idx = rng.integers(0, self.size, size=batch_size)
        return {
            "obs": self.obs[idx].astype(np.float32),
            "acts": self.acts[idx],
            "probs": self.probs[idx].astype(np.float32),
            "values": self.values[idx],
            "material": self.material[idx],
        }


def encode_record(game: GameRecord) -> bytes:
    """The payload of one log record: an .npz of the game's arrays and facts (no pickles)."""
    facts = {"winner": game.winner, "adjudicated": game.adjudicated, "moves": game.moves, "plies": game.plies,
             "start_move": game.start_move, "late_start": game.late_start,
             "sparring": game.sparring, "sparring_colour": game.sparring_colour}  # fmt: skip
    buffer = io.BytesIO()
    np.savez(
        buffer,
        observations=game.observations,
        policy_actions=game.policy_actions,
        policy_probs=game.policy_probs,
        colours=game.colours,
        value_targets=game.value_targets,
        move_numbers=game.move_numbers,
        facts=np.frombuffer(json.dumps(facts).encode(), dtype=np.uint8),
    )
    return buffer.getvalue()


def decode_record(payload: bytes) -> GameRecord:
    """Inverse of :func:`encode_record` (raises ``ValueError`` for a payload that is not one)."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as data:
            facts = json.loads(bytes(data["facts"]).decode())
            return GameRecord(
                observations=data["observations"],
                policy_actions=data["policy_actions"],
                policy_probs=data["policy_probs"],
                colours=data["colours"],
                value_targets=data["value_targets"],
                move_numbers=data["move_numbers"] if "move_numbers" in data else np.zeros(0, dtype=np.int16),
                winner=int(facts["winner"]),
                adjudicated=bool(facts["adjudicated"]),
                moves=list(facts["moves"]),
                plies=int(facts["plies"]),
                start_move=int(facts.get("start_move", 0)),
                late_start=bool(facts.get("late_start", False)),
                sparring=str(facts.get("sparring", "")),
                sparring_colour=int(facts.get("sparring_colour", -1)),
            )
    except Exception as exc:
        raise ValueError(f"not a game record: {exc}") from None


def _log_files(folder: str) -> list[tuple[int, str]]:
    """``(index of its first game, path)`` of each file of the game log in ``folder``, in order."""
    out = []
    for name in os.listdir(folder):
        if name.startswith("games-") and name.endswith(".bin"):
            try:
                out.append((int(name[6:-4]), os.path.join(folder, name)))
            except ValueError:
                continue
    return sorted(out)


def _read_records(path: str, repair: bool) -> Iterator[bytes]:
    """The payloads of a file's whole, intact records; with ``repair`` a torn or corrupt tail is cut off."""
    good_end = 0
    with open(path, "rb") as fh:
        while True:
            header = fh.read(_HEADER.size)
            if len(header) < _HEADER.size:
                break
            magic, length, crc = _HEADER.unpack(header)
            payload = fh.read(length)
            if magic != _MAGIC or len(payload) < length or zlib.crc32(payload) != crc:
                break
            good_end = fh.tell()
            yield payload
        torn = fh.seek(0, os.SEEK_END) != good_end
    if torn and repair:
        with open(path, "r+b") as fh:
            fh.truncate(good_end)


def read_game_log(folder: str | os.PathLike, last: int | None = None) -> list[GameRecord]:
    """The games of the game log in ``folder`` (the ``last`` of them when given), oldest first, read
    without opening the log: nothing is repaired or written, so a run still appending to it is left
    alone (a torn record at the end of a file is skipped)."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no game log folder {folder!r}")
    files: list[list[GameRecord]] = []  # newest file first
    read = 0
    for _, path in reversed(_log_files(folder)):
        files.append([decode_record(p) for p in _read_records(path, repair=False)])
        read += len(files[-1])
        if last is not None and read >= last:
            break
    games = [g for chunk in reversed(files) for g in chunk]
    return games if last is None else games[len(games) - min(last, len(games)) :]


class GameLog:
    """Append-only files of finished self-play games in ``folder`` (see the module docstring).

    Games are numbered from 0 in the order they were appended; :attr:`count`
    is the number of games appended so far (including those in files
    already pruned).
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = os.fspath(folder)
        os.makedirs(self.folder, exist_ok=True)
        self._fh = None
        self.count = 0
        files = self._files()
        if files:
            first, path = files[-1]
            self.count = first + sum(1 for _ in _read_records(path, repair=True))

    def _files(self) -> list[tuple[int, str]]:
        return _log_files(self.folder)

    def new_file(self) -> None:
        """Start a new file for the games appended from now on (one per iteration keeps pruning fine-grained)."""
        self.close()
        path = os.path.join(self.folder, f"games-{self.count:09d}.bin")
        self._fh = open(path, "ab")

    def append(self, game: GameRecord) -> None:
        """Append one game; it is in the file (safe from a kill of this process) when this returns."""
        if self._fh is None:
            self.new_file()
        payload = encode_record(game)
        self._fh.write(_HEADER.pack(_MAGIC, len(payload), zlib.crc32(payload)) + payload)
        self._fh.flush()
        self.count += 1

    def sync(self) -> None:
        """Flush the current file to the disk (``fsync``): its games then survive a power cut too."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def read(self, start: int = 0, stop: int | None = None) -> list[tuple[int, GameRecord]]:
        """``(index, game)`` of the logged games with ``start <= index < stop`` that are still on disk."""
        out = []
        for first, path in self._files():
            index = first
            for payload in _read_records(path, repair=False):
                if index >= start and (stop is None or index < stop):
                    out.append((index, decode_record(payload)))
                index += 1
        return out

    def prune(self, keep_from: int) -> list[str]:
        """Delete the files all of whose games have an index below ``keep_from``; returns their paths."""
        files = self._files()
        removed = []
        for (_, path), (next_first, _) in zip(files, files[1:]):
            if next_first <= keep_from:
                os.unlink(path)
                removed.append(path)
        return removed

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
