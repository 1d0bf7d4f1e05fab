"""The web server: a JSON API over :class:`~checkers_env.core.Board` and the page that uses it.

Every game has its own id (a UUID) and its own lock; the table of games has
another. A request names the game it acts on, so two browser tabs, or two
people, never touch each other's game. The computer's reply is computed in the
request that plays the user's move, under the game's lock, with the search
bounded by depth and think time (``--move-time``, applied to every agent with a
``time`` attribute).

API (JSON in, JSON out; errors are ``{"error": message}`` with a 4xx status):

==========================================  ====================================================
``GET  /api/variants``                       variants, house rules and opponents the page offers
``GET  /api/checkpoints``                    ``{"checkpoints": [{"name", "variant", "algo"}], "problem"}``:
                                             the trained checkpoints in the server's folder
``POST /api/games``                          new game: ``{"variant", "color", "opponent", "rules", "fen",
                                             "pdn", "seed"}`` (all optional; ``pdn``: a game to go on from)
``GET  /api/games/<id>``                     the game (see :meth:`Game.to_json`; ``ply`` counts its moves)
``POST /api/games/<id>/move``                ``{"move": "11-15", "ply": 0}`` or ``{"move": {"start": 10,
                                             "path": [14]}, "ply": 0}``; ``ply``: the game's ``ply`` the
                                             move was chosen at
``POST /api/games/<id>/undo``                takes back the user's last move and the computer's reply
                                             (body optional: ``{"ply"}``)
``POST /api/games/<id>/resign``              the user resigns (body optional: ``{"ply"}``)
``POST /api/games/<id>/draw``                the user offers a draw; the answer is ``draw_offer``:
                                             ``{"accepted", "score", "text"}`` (body optional: ``{"ply"}``)
``GET  /api/games/<id>/pdn``                 the game as a PDN file (a download)
==========================================  ====================================================

An opponent is ``random``, ``minimax:DEPTH[:SECONDS]`` or the name of a
checkpoint from ``GET /api/checkpoints`` (its path inside the server's
``--checkpoints`` folder): no other file can be named. Each of the computer's
moves in the game's ``moves`` carries ``engine``: its time and, for minimax,
search depth, nodes and score (for the computer; a man is 100). The computer
accepts a draw when a :data:`DRAW_DEPTH`-ply minimax search rates the position
at most :data:`DRAW_MARGIN` (a quarter of a man) for itself: even, or it is
behind.

Statuses: 400 malformed request (also: JSON nested too deeply, a ``Host``
header naming another host than the server's), 404 unknown game, 409 the game
is over, nothing to undo, or the request was made at another ply than the
game's (a stale move), 413 a body over 64 KB, 422 an illegal or ambiguous move
(with the reason, e.g. that capture is compulsory), 503 the game is busy with
another request. Error messages quote at most 80 characters of the request.

Limits: games live in memory, at most :data:`MAX_GAMES_PER_CLIENT` per client
(remote address; a client beyond it loses its own least recently used game,
never another client's) and :data:`MAX_GAMES` in all. An idle game costs a few
KB: the minimax search tables are shared by all games (:data:`SEARCH_TABLES`).
There is no rate limit: creating a game is cheap, and the per-client bound
keeps one client from evicting the others. Behind a proxy all clients share
its address, and so one quota.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path

import numpy as np

from checkers_env.core.extras import missing

try:
    from flask import Flask, Response, jsonify, request, send_from_directory
    from werkzeug.exceptions import HTTPException
except ImportError as exc:
    raise missing("flask", "the play server", exc) from exc

from agents.alphabeta import MATE, MATE_BOUND
from agents.minimax import MinimaxAgent, SearchTablePool
from checkers_env.core import AmbiguousMoveError, Board, Color, IllegalMoveError, Move
from checkers_env.core.errors import CheckersError, InvalidFenError, InvalidSquareError, RulesError, UnknownVariantError
from checkers_env.core.geometry import geometry
from checkers_env.core.pdn import game_to_pdn, read_pdn
from checkers_env.core.variants import VARIANTS
from checkers_env.render.layout import board_layout, must_capture_squares

from .opponents import DEFAULT_CHECKPOINTS, DEFAULT_OPPONENT, Checkpoints, OpponentError, make_opponent

__all__ = ["create_app", "Game", "GameStore", "ApiError"]

STATIC = Path(__file__).parent / "static"
MAX_GAMES = 1000
"""Games kept in memory in all; the least recently used is dropped beyond this.

An idle game holds its board and a small agent object (a few KB): the minimax
search tables are shared between games (:data:`SEARCH_TABLES`), so a thousand
games take tens of MB, not gigabytes."""
MAX_GAMES_PER_CLIENT = 100
"""Games one client (one remote address) keeps; its own least recently used is dropped beyond this.

With it a single client, however fast it creates games, can never push the
store past :data:`MAX_GAMES` alone and so never evicts anyone else's game."""
SEARCH_TABLES = max(1, min(4, os.cpu_count() or 1))
"""Minimax search tables (about 23 MB each when full) the server shares between all its games.

A search borrows one for its duration; the searches are compiled code that
holds Python's interpreter lock, so more tables than cores would buy memory,
not speed. A search that finds every table busy waits for one."""
MAX_BODY = 64 * 1024
"""Largest request body accepted (bytes); a larger one is answered 413 before it is read."""
CLIP = 80
"""Characters of a request's own text quoted back in an error message; longer text is cut with an ellipsis."""
MAX_ERROR = 1000
"""Characters of an error message at most (a last guard: the parts quoting the request are cut to CLIP)."""
DRAW_DEPTH = 4
"""Plies of the minimax search that judges a draw offer."""
DRAW_MARGIN = 25
"""The computer accepts a draw when that search rates the position at most this much for itself (a man = 100):
the game is about even, or the computer is behind. Ahead by more, it plays on."""
LOCK_WAIT = 30.0
"""Seconds a request waits for a game that another request is using."""
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""Host names a request may always name in its ``Host`` header (with the server's port)."""
HOUSE_RULES = ("forced_capture",)
NEW_GAME_FIELDS = ("variant", "color", "opponent", "rules", "fen", "pdn", "seed")
"""The fields of a new-game request (all optional)."""
"""Rule fields a new game may override (the no-mandatory-capture house rule, 8x8 only)."""

COLOR_NAMES = {Color.WHITE: "white", Color.BLACK: "black"}
TERMINATION_TEXT = {
    "no legal moves": "{loser} has no legal move",
    "draw rule": "no capture or promotion for {moves} moves a side",
    "repetition": "the same position occurred {times} times",
}


def _clip(text: str, limit: int = CLIP) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quote(value) -> str:
    """The ``repr`` of a value from a request, cut to :data:`CLIP` characters, for an error message."""
    return _clip(repr(value))


def _scrub(message: str, *inputs) -> str:
    """An error text of the core (which quotes its input whole) with each long request string in it cut."""
    for raw in inputs:
        if isinstance(raw, str) and len(raw) > CLIP:
            message = message.replace(raw, _clip(raw))
    return message


_LONG_WORD = re.compile(rf"\S{{{CLIP + 1},}}")


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx) and a message for the user.

    The message never echoes a long request back: runs of more than :data:`CLIP`
    characters without a space are cut, and the whole to :data:`MAX_ERROR`.
    """

    def __init__(self, status: int, message: str):
        message = _clip(_LONG_WORD.sub(lambda m: _clip(m.group()), message), MAX_ERROR)
        super().__init__(message)
        self.status = status
        self.message = message


def _color_name(color: Color) -> str:
    return COLOR_NAMES[Color(color)]


def _pieces_json(board: Board) -> list[dict]:
    pieces = []
    for color in (Color.WHITE, Color.BLACK):
        kings = set(board.pieces(color, kings=True))
        pieces += [{"index": i, "color": _color_name(color), "king": i in kings} for i in board.pieces(color)]
    return pieces


def _score_text(score: int) -> str:
    """A search score (a man = 100) as the page shows it: ``+0.35``, ``-1.00``, ``win in 5``, ``loss in 4``."""
    if score > MATE_BOUND:
        return f"win in {MATE - score}"
    if score < -MATE_BOUND:
        return f"loss in {MATE + score}"
    return f"{score / 100:+.2f}"


def _move_json(board: Board, move: Move) -> dict:
    return {
        "start": move.start,
        "path": list(move.path),
        "captures": list(move.captures),
        "promotes": move.promotes,
        "text": str(move),
        "squares": [board.square_name(i) for i in (move.start, *move.path)],
    }


class Game:
    """One game between the user and an opponent, with its own lock.

    Read or change it only while holding ``lock`` (the store hands it out locked).
    """

    def __init__(self, board: Board, user: Color, opponent, game_id: str | None = None, client: str = ""):
        self.id = game_id or uuid.uuid4().hex
        self.client = client
        """Who created the game (the remote address), for the per-client limit of :class:`GameStore`."""
        self.board = board
        self.user = Color(user)
        self.opponent = opponent
        self.lock = threading.Lock()
        start = board.copy()
        while start.move_stack:  # a game loaded from PDN comes with its moves played
            start.pop()
        self.start = start
        """The position the game began from (the board before its first move)."""
        self.initial_fen = start.fen()
        self.started = datetime.date.today()
        self.last_reply: list[Move] = []
        self.engine: dict[int, dict] = {}
        """What the computer's search reported for each of its moves, by ply (see :meth:`_engine_info`)."""
        self.ended: dict | None = None
        """How the game ended off the board (resignation, draw by agreement), as :meth:`outcome_json`; or None."""

    # -------------------------------------------------------------- playing

    def _refuse_if_over(self) -> None:
        outcome = self.outcome_json()
        if outcome is not None:
            raise ApiError(409, f"the game is over ({outcome['text']}); start a new game")

    def resign(self) -> None:
        """The user gives up: the computer wins."""
        self._refuse_if_over()
        winner = self.user.other
        self.ended = {
            "result": "1-0" if winner == Color.WHITE else "0-1",
            "winner": _color_name(winner),
            "termination": "resignation",
            "text": f"{_color_name(winner).capitalize()} wins (the computer wins): you resigned",
        }

    def offer_draw(self, judge: MinimaxAgent) -> dict:
        """The user offers a draw; the computer accepts by the rule of :data:`DRAW_MARGIN`.

        ``judge`` searches the position (to :data:`DRAW_DEPTH` plies); its score,
        turned to the computer's side, is the computer's view of the game.
        Returns ``{"accepted", "score", "text"}``; an accepted offer ends the game.
        """
        self._refuse_if_over()
        judge.select_move(self.board)
        score = judge.last_search.score
        if self.board.turn == self.user:
            score = -score
        accepted = score <= DRAW_MARGIN
        if accepted:
            self.ended = {
                "result": "1/2-1/2",
                "winner": None,
                "termination": "agreement",
                "text": "Draw: agreed (the computer accepted your offer)",
            }
            text = "The computer accepts the draw."
        else:
            text = f"The computer declines the draw: it thinks it is ahead (its evaluation: {_score_text(score)})."
        return {"accepted": accepted, "score": score, "text": text}

    def play_computer(self) -> None:
        """Let the computer move while it is its turn and the game goes on (it moves once: turns alternate).

        What its search reported is kept for the move (see :meth:`_engine_info`).
        """
        self.last_reply = []
        if self.board.turn != self.user and self.board.outcome() is None:
            start = time.perf_counter()
            move = self.opponent.select_move(self.board)
            self.engine[len(self.board.move_stack)] = self._engine_info(time.perf_counter() - start)
            self.last_reply.append(self.board.push(move))

    def _engine_info(self, seconds: float) -> dict:
        """``{"seconds"}`` the computer took, plus ``depth``, ``nodes``, ``score`` (a man = 100, for the
        computer) and ``score_text`` when its agent reports them (``last_search``, as minimax does)."""
        info: dict = {"seconds": round(seconds, 3)}
        search = getattr(self.opponent.agent, "last_search", None)
        for key in ("depth", "nodes", "score"):
            value = getattr(search, key, None)
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                info[key] = int(value)
        if "score" in info:
            info["score_text"] = _score_text(info["score"])
        return info

    def check_ply(self, ply) -> None:
        """Refuse (409) a request made when the game was at another ply than now: it was chosen on a stale board.

        Two clicks sent at once both name the ply they saw; the first one played
        moves the game on, and the second is refused instead of played too.
        """
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise ApiError(
                400, f'"ply" must be the number of plies the game had when the move was chosen, got {_quote(ply)}'
            )
        now = len(self.board.move_stack)
        if ply != now:
            raise ApiError(
                409,
                f"the game has moved on: this request was made at ply {ply}, the game is at ply {now}; "
                "look at the board again",
            )

    def play_user(self, spec, ply: int | None = None) -> Move:
        """Play the user's move ``spec`` (text, or ``{"start", "path"}``), then the computer's reply.

        ``ply`` (when given) is the game's ply the move was chosen at (see :meth:`check_ply`).
        """
        board = self.board
        if ply is not None:
            self.check_ply(ply)
        self._refuse_if_over()
        if board.turn != self.user:
            raise ApiError(409, "it is not your turn")
        start, squares, text = self._parse_request_move(spec)
        refusal = self._compulsory_capture_refusal(start, squares)
        if refusal:
            raise ApiError(422, refusal)
        try:
            move = board.parse_move(text)
        except AmbiguousMoveError as exc:
            raise ApiError(422, f"ambiguous move: {_scrub(str(exc), text)}") from None
        except IllegalMoveError:
            raise ApiError(422, f"illegal move {_clip(text)}: {self._legal_hint(start)}") from None
        board.push(move)
        self.play_computer()
        return move

    def _parse_request_move(self, spec) -> tuple[int, list[int], str]:
        """(start index, later squares, text in the variant's notation) of a requested move."""
        board = self.board
        try:
            if isinstance(spec, str):
                parts = [p for p in spec.replace("×", "x").replace(":", "x").replace("-", "x").split("x") if p.strip()]
                if len(parts) < 2:
                    raise ApiError(
                        400, f"move text must name two squares or more, like '11-15' or '22x15', got {_quote(spec)}"
                    )
                indices = [board.parse_square(p.strip()) for p in parts]
            elif isinstance(spec, dict):
                if set(spec) - {"start", "path"} or "start" not in spec or "path" not in spec:
                    raise ApiError(400, 'a move object has exactly the keys "start" and "path"')
                path = spec["path"]
                if not isinstance(path, list) or not path:
                    raise ApiError(400, '"path" must be a non-empty list of squares (indices or names)')
                indices = [self._square(sq) for sq in [spec["start"], *path]]
            else:
                raise ApiError(400, '"move" must be move text such as "11-15" or an object {"start", "path"}')
        except InvalidSquareError as exc:
            raise ApiError(422, f"bad square in move {_quote(spec)}: {exc}") from None
        except ValueError:  # the core's parser lets Python's limit on huge numbers through
            raise ApiError(422, f"bad square in move {_quote(spec)}: not a square of this board") from None
        text = spec.strip() if isinstance(spec, str) else "x".join(board.square_name(i) for i in indices)
        return indices[0], indices[1:], text

    def _square(self, value) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ApiError(400, f"a square is an index (integer) or a name such as '15' or 'c3', got {_quote(value)}")
        if isinstance(value, str):
            return self.board.parse_square(value)
        if not 0 <= value < self.board.rules.squares:
            raise InvalidSquareError(f"square index {value} is off the board (0-{self.board.rules.squares - 1})")
        return value

    def _compulsory_capture_refusal(self, start: int, squares: list[int]) -> str | None:
        """The explanation when the user asks for a plain move while capture is compulsory."""
        board = self.board
        legal = board.legal_moves()
        if not board.rules.forced_capture or not legal or not legal[0].captures:
            return None
        if any(m.start == start and m.end == squares[-1] for m in legal):
            return None
        piece = board.piece_at(start)
        if piece is None or piece[0] != self.user:
            return None
        g = geometry(board.rules.board_size)
        at = start
        for land in squares:
            if g.direction_between(at, land) is None:
                return None
            if any((p := board.piece_at(sq)) is not None and p[0] != self.user for sq in g.between(at, land)):
                return None  # it jumps something: an illegal capture, not a plain move
            at = land
        return f"capture is compulsory: {self._must_capture_text()}"

    def _must_capture_text(self) -> str:
        names = [self.board.square_name(i) for i in must_capture_squares(self.board)]
        if len(names) == 1:
            return f"the piece on {names[0]} must capture"
        return f"one of the pieces on {', '.join(names[:-1])} and {names[-1]} must capture"

    def _legal_hint(self, start: int) -> str:
        legal = self.board.legal_moves()
        from_here = [str(m) for m in legal if m.start == start]
        if from_here:
            return f"from {self.board.square_name(start)} you can play {', '.join(from_here)}"
        return f"legal moves are {', '.join(str(m) for m in legal)}"

    def undo(self) -> None:
        """Take back the user's last move and the computer's reply to it (and nothing before).

        A game that ended off the board (resigned, drawn by agreement) stays ended.
        """
        if self.ended is not None:
            raise ApiError(409, f"the game is over ({self.ended['text']}); start a new game")
        board = self.board
        stack = board.move_stack
        # The user's moves are the plies played with the user to move; find the last one.
        turns = self._turns()
        user_plies = [i for i, color in enumerate(turns) if color == self.user]
        if not user_plies:
            raise ApiError(409, "nothing to undo: you have not moved yet")
        for _ in range(len(stack) - user_plies[-1]):
            board.pop()
        self.engine = {ply: info for ply, info in self.engine.items() if ply < len(board.move_stack)}
        self.last_reply = []

    def _turns(self) -> list[Color]:
        """The side that played each ply of the move stack."""
        first = self.start.turn
        return [Color((int(first) + i) % 2) for i in range(len(self.board.move_stack))]

    # ------------------------------------------------------------- describing

    def outcome_json(self) -> dict | None:
        """``{"result", "winner", "termination", "text"}`` of a finished game, or None while it goes on."""
        if self.ended is not None:
            return dict(self.ended)
        outcome = self.board.outcome()
        if outcome is None:
            return None
        rules = self.board.rules
        termination = outcome.termination.value
        detail = TERMINATION_TEXT.get(termination, termination).format(
            loser=_color_name(self.board.turn).capitalize(),
            moves=rules.draw_plies // 2,
            times=rules.repetition_draw,
        )
        if outcome.winner is None:
            headline = "Draw"
        else:
            headline = f"{_color_name(outcome.winner).capitalize()} wins"
            headline += " (you win)" if outcome.winner == self.user else " (the computer wins)"
        return {
            "result": outcome.result(),
            "winner": None if outcome.winner is None else _color_name(outcome.winner),
            "termination": termination,
            "text": f"{headline}: {detail}",
        }

    def movetext(self) -> str:
        """The moves in PDN movetext (``1. 11-15 23-19 2. ...``), without the result."""
        first_player = self.board.rules.first_player
        number = 1
        tokens = []
        for i, (move, color) in enumerate(zip(self.board.move_stack, self._turns())):
            if color == first_player:
                tokens.append(f"{number}.")
            elif i == 0:
                tokens.append(f"{number}...")
            if color != first_player:
                number += 1
            tokens.append(str(move))
        return " ".join(tokens)

    def to_json(self) -> dict:
        """Everything the page draws: position, legal moves for the user, history and result."""
        board = self.board
        rules = board.rules
        layout = board_layout(rules)
        outcome = self.outcome_json()
        user_to_move = outcome is None and board.turn == self.user
        legal = board.legal_moves() if user_to_move else []
        turns = self._turns()
        history = [
            dict(_move_json(board, move), color=_color_name(color), ply=i, engine=self.engine.get(i))
            for i, (move, color) in enumerate(zip(board.move_stack, turns))
        ]
        return {
            "id": self.id,
            "variant": rules.name,
            "rules": {"forced_capture": rules.forced_capture},
            "board_size": rules.board_size,
            "mirrored": layout.mirrored,
            "notation": rules.notation,
            "first_player": _color_name(rules.first_player),
            "user_color": _color_name(self.user),
            "opponent": self.opponent.spec,
            "turn": _color_name(board.turn),
            "ply": len(board.move_stack),
            "user_to_move": user_to_move,
            "fen": board.fen(),
            "squares": [
                {"index": i, "name": board.square_name(i), "row": layout.cell(i)[0], "col": layout.cell(i)[1]}
                for i in range(rules.squares)
            ],
            "pieces": _pieces_json(board),
            "initial_pieces": _pieces_json(self.start),
            "initial_fen": self.initial_fen,
            "legal_moves": [_move_json(board, m) for m in legal],
            "must_capture": list(must_capture_squares(board)) if user_to_move else [],
            "moves": history,
            "movetext": self.movetext(),
            "computer_moves": [str(m) for m in self.last_reply],
            "outcome": outcome,
        }

    def pdn(self) -> str:
        """The game as PDN text (tags, movetext, result), written by the core's PDN writer."""
        players = {self.user: "You", self.user.other: f"Computer ({self.opponent.spec})"}
        tags = {
            "Event": "Casual game",
            "Site": "checkers-play",
            "Date": self.started.strftime("%Y.%m.%d"),
            "White": players[Color.WHITE],
            "Black": players[Color.BLACK],
        }
        return game_to_pdn(self.board, tags=tags, result=self.ended["result"] if self.ended else None)


class GameStore:
    """The games in memory, by id, least recently used first; safe across threads.

    Beyond ``per_client`` games of one client (:attr:`Game.client`) that
    client's least recently used game is dropped; beyond ``limit`` games in all,
    the least recently used of anyone's.
    """

    def __init__(self, limit: int = MAX_GAMES, per_client: int = MAX_GAMES_PER_CLIENT):
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()
        self._limit = limit
        self._per_client = per_client

    def add(self, game: Game) -> None:
        with self._lock:
            self._games[game.id] = game
            own = [g.id for g in self._games.values() if g.client == game.client]
            for game_id in own[: max(0, len(own) - self._per_client)]:
                del self._games[game_id]
            while len(self._games) > self._limit:
                self._games.popitem(last=False)

    def get(self, game_id: str) -> Game:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise ApiError(404, f"no game with id {_quote(game_id)} (games are kept in memory; start a new one)")
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)


def _body() -> dict:
    """The request's JSON object; 400 for anything else, 413 (from Flask) beyond :data:`MAX_BODY` bytes."""
    if not request.is_json:
        raise ApiError(400, "the request body must be a JSON object (Content-Type: application/json)")
    raw = request.get_data(cache=True)
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ApiError(400, "the request body is not valid JSON: it nests too deeply") from None
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not valid JSON: it is not UTF-8 text") from None
    except ValueError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ApiError(400, f"the request body is not valid JSON: {detail or 'unreadable'}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def _optional_body(known: set[str]) -> dict:
    """The request's JSON object, or ``{}`` when it has no body; only the ``known`` fields."""
    if not request.content_length and not request.headers.get("Transfer-Encoding"):
        return {}
    data = _body()
    if set(data) - known:
        raise ApiError(400, f"unknown field(s) {_quote(sorted(set(data) - known))}; known: {', '.join(sorted(known))}")
    return data


def _board_from_pdn(text: str, variant, rules: dict) -> Board:
    """The board of the first game of PDN ``text`` with all its moves played (each checked), for a new game.

    The variant is the PDN's (its ``GameType`` tag; American when absent);
    ``variant``, when given, must be the same. ``rules`` are the house rules.
    """
    try:
        games = read_pdn(text)
        if games.errors and (not games or games.errors[0].game_number <= 1):
            raise games.errors[0]  # the first game is broken: say why, rather than load a later one
        if not games:
            raise ApiError(400, "the PDN holds no game")
        game = games[0]
        pdn_variant = game.variant
        if variant is not None and variant != pdn_variant:
            raise ApiError(
                400, f"the PDN is a game of {pdn_variant} draughts (its GameType tag), not {_quote(variant)}"
            )
        return game.replay(Board(pdn_variant, **rules).rules)
    except CheckersError as exc:
        raise ApiError(400, f"cannot load the PDN: {_scrub(str(exc), text)}") from None
    except ValueError:  # the core's parser lets Python's limit on huge numbers through
        raise ApiError(400, "cannot load the PDN: it names a square number far off the board") from None


def _new_game(
    data: dict,
    move_time: float,
    tables: SearchTablePool | None = None,
    client: str = "",
    checkpoints: Checkpoints | None = None,
) -> Game:
    unknown = set(data) - set(NEW_GAME_FIELDS)
    if unknown:
        raise ApiError(400, f"unknown field(s) {_quote(sorted(unknown))}; known: {', '.join(NEW_GAME_FIELDS)}")
    variant = data.get("variant", "american")
    rules = data.get("rules") or {}
    fen = data.get("fen")
    pdn = data.get("pdn")
    seed = data.get("seed")
    if not isinstance(variant, str):
        raise ApiError(400, f'"variant" must be a variant name, one of {", ".join(VARIANTS)}')
    if not isinstance(rules, dict) or set(rules) - set(HOUSE_RULES):
        raise ApiError(400, f'"rules" must be an object with only {", ".join(HOUSE_RULES)}')
    if any(not isinstance(v, bool) for v in rules.values()):
        raise ApiError(400, '"rules" values must be true or false')
    if fen is not None and not isinstance(fen, str):
        raise ApiError(400, '"fen" must be a FEN string such as "W:W21,22:B1,2"')
    if pdn is not None and not isinstance(pdn, str):
        raise ApiError(400, '"pdn" must be the text of a PDN game, such as "1. 11-15 23-19 *"')
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ApiError(400, '"seed" must be an integer')
    if pdn and fen:
        raise ApiError(400, 'give a position ("fen") or a game ("pdn"), not both')
    if pdn:
        board = _board_from_pdn(pdn, data.get("variant"), rules)
    else:
        try:
            board = Board(variant, fen=fen or None, **rules)
        except (UnknownVariantError, RulesError, InvalidFenError, InvalidSquareError) as exc:
            raise ApiError(400, _scrub(str(exc), variant, fen)) from None
    # By default the user takes the first mover's side, or after a PDN game the side to move next.
    default = board.turn if pdn else board.rules.first_player
    color = data.get("color", _color_name(default))
    if color not in ("white", "black"):
        raise ApiError(400, f'"color" must be "white" or "black", got {_quote(color)}')
    try:
        opponent = make_opponent(
            data.get("opponent", DEFAULT_OPPONENT),
            board,
            seed=seed,
            move_time=move_time,
            tables=tables,
            checkpoints=checkpoints,
        )
    except OpponentError as exc:
        raise ApiError(400, _scrub(str(exc), data.get("opponent"))) from None
    game = Game(board, Color.WHITE if color == "white" else Color.BLACK, opponent, client=client)
    game.play_computer()
    return game


def _host_name_and_port(host: str) -> tuple[str, str | None]:
    """The name (lower case, IPv6 without brackets) and port of a ``Host`` header value."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
    elif host.count(":") == 1:
        name, _, port = host.partition(":")
    else:
        name, port = host, None
    return name.rstrip("."), port


def create_app(
    move_time: float = 2.0,
    max_games: int = MAX_GAMES,
    max_games_per_client: int = MAX_GAMES_PER_CLIENT,
    search_tables: int = SEARCH_TABLES,
    allowed_hosts: tuple[str, ...] | list[str] = (),
    checkpoints: str | os.PathLike = DEFAULT_CHECKPOINTS,
) -> Flask:
    """The Flask app: the page under ``/`` and the JSON API under ``/api`` (see the module docstring).

    ``move_time`` bounds the seconds the computer thinks over one move.
    ``max_games`` and ``max_games_per_client`` bound the games kept (see
    :class:`GameStore`); ``search_tables`` is how many minimax search tables
    all games share (see :data:`SEARCH_TABLES`). ``checkpoints`` is the folder
    whose agent checkpoints may be chosen as opponents (listed by
    ``GET /api/checkpoints``); no other file on the server can be.

    Only requests whose ``Host`` header names one of :data:`LOCAL_HOSTS` or
    ``allowed_hosts`` (the address the server listens on, names it is reached
    by), with the port the request came in on, are served; any other host gets
    400. A web page on another site that a DNS rebinding points at this
    machine sends its own host name, and is refused.
    """
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    store = GameStore(max_games, max_games_per_client)
    tables = SearchTablePool(size=search_tables)
    app.config["GAMES"] = store
    app.config["SEARCH_TABLES"] = tables
    shelf = Checkpoints(checkpoints)
    app.config["CHECKPOINTS"] = shelf
    hosts = {_host_name_and_port(h)[0] for h in (*LOCAL_HOSTS, *allowed_hosts)} - {"0.0.0.0", "::", ""}

    @app.before_request
    def check_host():
        name, port = _host_name_and_port(request.host)
        server_port = str(request.environ.get("SERVER_PORT", ""))
        if name not in hosts or (port or {"https": "443"}.get(request.scheme, "80")) != server_port:
            message = f"this server does not answer for host {_quote(request.host)}; open it as http://localhost:PORT/"
            if request.path.startswith("/api/"):
                return jsonify(error=message), 400
            return Response(message + "\n", status=400, mimetype="text/plain")
        return None

    def locked(game_id: str):
        game = store.get(game_id)
        if not game.lock.acquire(timeout=LOCK_WAIT):
            raise ApiError(503, "the game is busy with another request; try again")
        return game

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError):
        return jsonify(error=exc.message), exc.status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/"):
            if exc.code == 413:
                return jsonify(error=f"the request body is larger than {MAX_BODY // 1024} KB"), 413
            return jsonify(error=exc.description), exc.code
        return exc

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        # A bug, not a bad request: say so in JSON (the page shows it) and keep the server up.
        app.logger.exception("unexpected error on %s", request.path)
        return jsonify(error=_clip(f"internal error: {type(exc).__name__}: {exc}", MAX_ERROR)), 500

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/variants")
    def variants():
        return jsonify(
            variants=[
                {
                    "name": name,
                    "board_size": rules.board_size,
                    "first_player": _color_name(rules.first_player),
                    "notation": rules.notation,
                    "house_rule_allowed": rules.board_size == 8,
                }
                for name, rules in VARIANTS.items()
            ],
            house_rules=list(HOUSE_RULES),
            default_opponent=DEFAULT_OPPONENT,
        )

    @app.get("/api/checkpoints")
    def checkpoint_list():
        return jsonify(checkpoints=shelf.list(), problem=shelf.problem)

    @app.post("/api/games")
    def create_game():
        game = _new_game(_body(), move_time, tables, client=request.remote_addr or "", checkpoints=shelf)
        store.add(game)
        with game.lock:
            return jsonify(game.to_json()), 201

    @app.get("/api/games/<game_id>")
    def get_game(game_id: str):
        game = locked(game_id)
        try:
            return jsonify(game.to_json())
        finally:
            game.lock.release()

    @app.post("/api/games/<game_id>/move")
    def move(game_id: str):
        data = _body()
        store.get(game_id)  # an unknown game is 404 whatever the body says
        if "move" not in data:
            raise ApiError(400, 'the body must hold "move": text such as "11-15" or {"start", "path"}')
        if "ply" not in data:
            raise ApiError(400, 'the body must hold "ply": the game\'s "ply" when the move was chosen')
        if set(data) - {"move", "ply"}:
            raise ApiError(400, f"unknown field(s) {_quote(sorted(set(data) - {'move', 'ply'}))}; known: move, ply")
        game = locked(game_id)
        try:
            game.play_user(data["move"], data["ply"])
            return jsonify(game.to_json())
        finally:
            game.lock.release()

    @app.post("/api/games/<game_id>/undo")
    def undo(game_id: str):
        data = _optional_body({"ply"})
        game = locked(game_id)
        try:
            if "ply" in data:
                game.check_ply(data["ply"])
            game.undo()
            return jsonify(game.to_json())
        finally:
            game.lock.release()

    @app.post("/api/games/<game_id>/resign")
    def resign(game_id: str):
        data = _optional_body({"ply"})
        game = locked(game_id)
        try:
            if "ply" in data:
                game.check_ply(data["ply"])
            game.resign()
            return jsonify(game.to_json())
        finally:
            game.lock.release()

    @app.post("/api/games/<game_id>/draw")
    def offer_draw(game_id: str):
        data = _optional_body({"ply"})
        game = locked(game_id)
        try:
            if "ply" in data:
                game.check_ply(data["ply"])
            judge = MinimaxAgent(depth=DRAW_DEPTH, time=move_time, seed=0, tables=tables)
            offer = game.offer_draw(judge)
            return jsonify(dict(game.to_json(), draw_offer=offer))
        finally:
            game.lock.release()

    @app.get("/api/games/<game_id>/pdn")
    def pdn(game_id: str):
        game = locked(game_id)
        try:
            text = game.pdn()
        finally:
            game.lock.release()
        filename = f"{game.board.rules.name}-{game.id[:8]}.pdn"
        return Response(
            text,
            mimetype="application/x-checkers-pdn",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    return app
