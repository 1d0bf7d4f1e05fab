"""The play server's JSON API, through Flask's test client: games, moves, undo, PDN, and bad requests."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from checkers_env.core import Board
from checkers_env.core.pdn import read_pdn
from checkers_env.core.variants import VARIANTS
from tests.scripts import load_script

CAPTURE_OR_STEP = "B:W18,30:B14,1"  # Black to move: 14x23 is compulsory, 1-5 and 1-6 are plain moves
DOUBLE_JUMP = "B:W6,15:B1"  # 1x10x19 takes two
TWO_ROUTES = "B:W6,7,14,15:B2"  # 2x9x18 and 2x11x18 end on the same square, taking different men
LAST_PIECE = "B:W18:B14"  # 14x23 takes White's last man


def new_game(client, **body):
    body.setdefault("opponent", "random")
    body.setdefault("seed", 7)
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return response.json


def move(client, game, spec, ply=None):
    """Play ``spec``, naming ``ply`` (default: the game's ply now, read from the server) as the move's ply."""
    if ply is None:
        ply = client.get(f"/api/games/{game['id']}").json["ply"]
    return client.post(f"/api/games/{game['id']}/move", json={"move": spec, "ply": ply})


def test_variants_lists_every_named_variant(client):
    data = client.get("/api/variants").json
    assert [v["name"] for v in data["variants"]] == list(VARIANTS)
    allowed = {v["name"]: v["house_rule_allowed"] for v in data["variants"]}
    assert allowed["international"] is False and allowed["american"] is True


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_new_game_in_every_variant(client, variant):
    game = new_game(client, variant=variant)
    board = Board(variant)
    assert game["variant"] == variant
    assert game["fen"] == board.fen()
    assert game["user_color"] == game["first_player"] == {0: "white", 1: "black"}[int(board.turn)]
    assert game["user_to_move"] is True
    assert {m["text"] for m in game["legal_moves"]} == {str(m) for m in board.legal_moves()}
    assert len(game["squares"]) == board.rules.squares
    assert len(game["pieces"]) == len(board.pieces(board.turn)) * 2
    cells = {(s["row"], s["col"]) for s in game["squares"]}
    assert len(cells) == board.rules.squares  # one screen cell per square


def test_computer_moves_first_when_the_user_takes_the_second_colour(client):
    game = new_game(client, variant="russian", color="black")
    assert len(game["moves"]) == 1 and game["moves"][0]["color"] == "white"
    assert game["turn"] == "black" and game["user_to_move"] is True
    assert game["movetext"] == f"1. {game['computer_moves'][0]}"


def test_a_move_gets_the_computers_reply(client):
    game = new_game(client)
    after = move(client, game, "11-15").json
    assert [m["color"] for m in after["moves"]] == ["black", "white"]
    assert after["movetext"].startswith("1. 11-15 ")
    assert after["user_to_move"] is True
    board = Board("american")
    board.push("11-15")
    board.push(after["moves"][1]["text"])
    assert after["fen"] == board.fen()


def test_move_by_start_and_path_indices_or_names(client):
    game = new_game(client, fen=DOUBLE_JUMP)
    assert move(client, game, {"start": 0, "path": [9, 18]}).status_code == 200
    game = new_game(client, fen=DOUBLE_JUMP)
    assert move(client, game, {"start": "1", "path": ["19"]}).json["moves"][0]["text"] == "1x19"


def test_a_stale_move_is_refused(client):
    game = new_game(client)
    assert game["ply"] == 0
    played = move(client, game, "11-15", ply=0)
    assert played.status_code == 200 and played.json["ply"] == 2
    again = move(client, game, "9-13", ply=0)  # chosen on the board before 11-15: the game moved on
    assert again.status_code == 409 and "moved on" in again.json["error"]
    assert client.get(f"/api/games/{game['id']}").json["fen"] == played.json["fen"]


def test_two_simultaneous_moves_play_once(app):
    # Two clicks sent at once on the same board: only the first may be played.
    game = new_game(app.test_client(), fen="B:W6,15,30:B1")
    barrier = threading.Barrier(2)
    statuses = []

    def send(spec):
        client = app.test_client()
        barrier.wait()
        statuses.append(move(client, game, spec, ply=0).status_code)

    threads = [threading.Thread(target=send, args=(s,)) for s in ("1x19", "1x19")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409]
    moves = app.test_client().get(f"/api/games/{game['id']}").json["moves"]
    assert [m["text"] for m in moves][:1] == ["1x19"] and len(moves) == 2


@pytest.mark.parametrize(
    ("body", "status"),
    [({"move": "11-15"}, 400), ({"move": "11-15", "ply": "0"}, 400), ({"move": "11-15", "ply": 0, "x": 1}, 400)],
)
def test_a_move_must_name_its_ply(client, body, status):
    game = new_game(client)
    response = client.post(f"/api/games/{game['id']}/move", json=body)
    assert response.status_code == status and "ply" in response.json["error"]


def test_a_stale_undo_is_refused(client):
    game = new_game(client)
    move(client, game, "11-15")
    response = client.post(f"/api/games/{game['id']}/undo", json={"ply": 0})
    assert response.status_code == 409
    assert client.post(f"/api/games/{game['id']}/undo", json={"ply": 2}).json["ply"] == 0


def test_minimax_opponent_from_the_agents_package(client):
    game = new_game(client, variant="american", color="white", opponent="minimax:2")
    assert game["opponent"] == "minimax:2"
    assert len(game["moves"]) == 1 and game["user_to_move"] is True


class TimedStub:
    """An agent that can be bounded in thinking time (a writable ``time``), like the checkpoint (MCTS) players."""

    def __init__(self, time: float):
        self.time = time

    def select_move(self, board):
        return board.legal_moves()[0]


class UntimedStub:
    def select_move(self, board):
        return board.legal_moves()[0]


@pytest.mark.parametrize(("own", "expected"), [(0.0, 0.5), (10.0, 0.5), (0.2, 0.2)])
def test_move_time_bounds_any_agent_with_a_time_attribute(monkeypatch, own, expected):
    import play.opponents
    from play.server import create_app

    monkeypatch.setattr(play.opponents, "make_agent", lambda spec, variant, seed: TimedStub(own))
    app = create_app(move_time=0.5)
    game = new_game(app.test_client(), opponent="minimax:2", color="white")
    assert len(game["moves"]) == 1  # the stub played the first move
    assert app.config["GAMES"].get(game["id"]).opponent.agent.time == expected


def test_move_time_leaves_agents_without_a_time_attribute_alone(monkeypatch):
    import play.opponents
    from play.server import create_app

    monkeypatch.setattr(play.opponents, "make_agent", lambda spec, variant, seed: UntimedStub())
    app = create_app(move_time=0.5)
    game = new_game(app.test_client(), opponent="minimax:2")
    assert not hasattr(app.config["GAMES"].get(game["id"]).opponent.agent, "time")


@pytest.fixture(scope="module")
def checkpoint_folder(tmp_path_factory):
    """runs/ with an american and a russian checkpoint, a training state and a junk file; one more outside it."""
    torch = pytest.importorskip("torch")
    from agents.checkpoint import save_agent
    from agents.networks import NetConfig, PolicyValueNet

    base = tmp_path_factory.mktemp("server")
    runs = base / "runs"
    for name, variant in (("a/best.pt", "american"), ("b/best.pt", "russian")):
        (runs / name).parent.mkdir(parents=True, exist_ok=True)
        rules = VARIANTS[variant]
        net = PolicyValueNet(rules.board_size, NetConfig(channels=8, blocks=1, value_hidden=8))
        save_agent(runs / name, "ppo", rules, net)
    torch.save({"step": 3}, runs / "a" / "train_state.pt")
    (runs / "junk.pt").write_bytes(b"not a torch file")
    rules = VARIANTS["american"]
    save_agent(base / "outside.pt", "ppo", rules, PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8)))
    return runs


@pytest.fixture
def checkpoint_client(checkpoint_folder):
    from play.server import create_app

    return create_app(move_time=1.0, checkpoints=checkpoint_folder).test_client()


def test_checkpoints_in_the_servers_folder_are_listed(checkpoint_client):
    data = checkpoint_client.get("/api/checkpoints").json
    assert data["checkpoints"] == [
        {"name": "a/best.pt", "variant": "american", "algo": "ppo"},
        {"name": "b/best.pt", "variant": "russian", "algo": "ppo"},
    ]
    assert data["problem"] is None


def test_a_listed_checkpoint_plays(checkpoint_client):
    game = new_game(checkpoint_client, opponent="a/best.pt", color="white")
    assert game["opponent"] == "a/best.pt" and len(game["moves"]) == 1
    pdn = checkpoint_client.get(f"/api/games/{game['id']}/pdn").get_data(as_text=True)
    assert "Computer (a/best.pt)" in pdn


@pytest.mark.parametrize("where", ["outside", "dotdot", "absolute", "train_state", "junk"])
def test_only_listed_checkpoints_can_be_chosen(checkpoint_client, checkpoint_folder, where):
    spec = {
        "outside": str(checkpoint_folder.parent / "outside.pt"),
        "dotdot": "../outside.pt",
        "absolute": str(checkpoint_folder / "a" / "best.pt"),
        "train_state": "a/train_state.pt",
        "junk": "junk.pt",
    }[where]
    response = checkpoint_client.post("/api/games", json={"opponent": spec})
    assert response.status_code == 400
    error = response.json["error"]
    assert "not found" in error and "choose one of the checkpoints" in error
    assert str(checkpoint_folder) not in error or where in ("outside", "absolute")  # only the request's own text


def test_a_checkpoint_of_another_variant_is_explained_for_the_page(checkpoint_client):
    response = checkpoint_client.post("/api/games", json={"opponent": "b/best.pt", "variant": "american"})
    assert response.status_code == 400
    assert response.json["error"] == (
        "checkpoint b/best.pt was trained on russian draughts, not american: "
        "choose russian as the variant, or another checkpoint"
    )


def test_a_game_is_set_up_from_a_fen(client):
    game = new_game(client, fen="W:W21,K22:B5,K9", color="white")
    assert game["fen"] == Board("american", fen="W:W21,K22:B5,K9").fen() == game["initial_fen"]
    assert [p for p in game["pieces"] if p["king"]] == [
        {"index": 21, "color": "white", "king": True},
        {"index": 8, "color": "black", "king": True},
    ]


def test_a_game_is_loaded_from_pdn_and_goes_on(client):
    pdn = '[Event "club"]\n[GameType "21"]\n\n1. 11-15 23-19 2. 8-11 {a comment} *\n'
    game = new_game(client, pdn=pdn)  # the user takes the side to move after 8-11: White
    board = Board("american")
    for text in ("11-15", "23-19", "8-11"):
        board.push(text)
    assert [m["text"] for m in game["moves"]] == ["11-15", "23-19", "8-11"]
    assert game["user_color"] == "white" and game["user_to_move"]
    assert game["fen"] == board.fen() and game["initial_fen"] == Board("american").fen()
    undone = client.post(f"/api/games/{game['id']}/undo").json  # takes back into the loaded moves
    assert len(undone["moves"]) == 1
    game = new_game(client, pdn=pdn, color="black")  # Black: the computer plays White's next move at once
    assert len(game["moves"]) == 4 and game["user_to_move"]


def test_a_pdn_game_brings_its_variant_and_start_position(client):
    pdn = '[GameType "25"]\n[FEN "W:Wc3,e3:Bd6,f6"]\n1. c3-d4 d6-c5 *'
    game = new_game(client, pdn=pdn, color="white")
    assert game["variant"] == "russian" and game["initial_fen"] == "W:Wc3,e3:Bd6,f6"
    assert [m["text"] for m in game["moves"]] == ["c3-d4", "d6-c5"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"pdn": "1. 11-15 15-19 *"}, "15-19"),  # a Black man moved on White's turn
        ({"pdn": "1. 11-15 *", "variant": "russian"}, "not 'russian'"),
        ({"pdn": "1. 11-15 *", "fen": "B:W21:B1"}, "not both"),
        ({"pdn": '[GameType "99"] 1. 11-15 *'}, "gametype"),
        ({"pdn": ["1. 11-15"]}, '"pdn"'),
        ({"pdn": "1. 11-15 2" + "2" * 5000 + "-18 *"}, "cannot load the PDN"),
        ({"pdn": "1. 11-15 " + "x" * 5000 + " *"}, "(5000 characters)"),  # long input is cut
    ],
)
def test_bad_pdn_is_explained(client, body, message):
    response = client.post("/api/games", json={"opponent": "random", **body})
    assert response.status_code == 400, response.json
    assert message.lower() in response.json["error"].lower()
    assert len(response.json["error"]) < 600


def test_resigning_ends_the_game_for_the_computer(client):
    game = new_game(client)  # the user plays Black
    move(client, game, "11-15")
    resigned = client.post(f"/api/games/{game['id']}/resign", json={"ply": 2}).json
    assert resigned["outcome"] == {
        "result": "1-0",
        "winner": "white",
        "termination": "resignation",
        "text": "White wins (the computer wins): you resigned",
    }
    assert resigned["legal_moves"] == [] and resigned["user_to_move"] is False
    for path in ("resign", "draw", "undo"):
        response = client.post(f"/api/games/{game['id']}/{path}")
        assert response.status_code == 409 and "game is over" in response.json["error"]
    assert move(client, game, "8-11").status_code == 409
    [parsed] = read_pdn(client.get(f"/api/games/{game['id']}/pdn").get_data(as_text=True))
    assert parsed.result == "1-0" and len(parsed.moves) == 2


def test_the_computer_accepts_a_draw_when_it_is_not_ahead(client):
    game = new_game(client, fen="B:WK18,30:BK1,K3,K14", opponent="minimax:2")  # you: three kings to two pieces
    response = client.post(f"/api/games/{game['id']}/draw", json={"ply": 0})
    offer = response.json["draw_offer"]
    assert offer["accepted"] is True and offer["score"] <= 25
    assert response.json["outcome"]["result"] == "1/2-1/2" and response.json["outcome"]["termination"] == "agreement"
    [parsed] = read_pdn(client.get(f"/api/games/{game['id']}/pdn").get_data(as_text=True))
    assert parsed.result == "1/2-1/2"


def test_the_computer_declines_a_draw_when_it_is_ahead(client):
    game = new_game(client, fen="B:WK18,K22,K30:B1", opponent="minimax:2")  # you: one man to three kings
    response = client.post(f"/api/games/{game['id']}/draw")
    offer = response.json["draw_offer"]
    assert offer["accepted"] is False and offer["score"] > 25
    assert offer["text"].startswith("The computer declines the draw: it thinks it is ahead (")
    assert response.json["outcome"] is None and response.json["user_to_move"] is True


def test_an_even_start_is_a_draw_the_computer_takes(client):
    game = new_game(client)
    assert client.post(f"/api/games/{game['id']}/draw").json["draw_offer"]["accepted"] is True


def test_the_computers_moves_carry_its_search_depth_score_and_time(client):
    game = new_game(client, opponent="minimax:3", color="white")
    [reply] = game["moves"]
    engine = reply["engine"]
    assert engine["depth"] == 3 and engine["nodes"] > 0 and 0 <= engine["seconds"] < 5
    assert isinstance(engine["score"], int) and engine["score_text"] == f"{engine['score'] / 100:+.2f}"
    played = move(client, game, game["legal_moves"][0]["text"]).json
    assert played["moves"][1]["engine"] is None  # the user's move
    assert played["moves"][2]["engine"]["depth"] >= 1  # a single legal reply is not searched deeper
    undone = client.post(f"/api/games/{game['id']}/undo").json
    assert undone["moves"][0]["engine"] == engine


def test_a_win_found_by_the_search_is_shown_as_such(client):
    game = new_game(client, fen="W:WK18,K22,K30:B1", opponent="minimax:6", color="black")
    assert game["moves"][0]["engine"]["score_text"].startswith("win in ")


def test_agents_without_a_search_report_only_their_time(client):
    game = new_game(client, opponent="random", color="white")
    assert set(game["moves"][0]["engine"]) == {"seconds"}


def test_house_rule_allows_declining_a_capture(client):
    game = new_game(client, fen=CAPTURE_OR_STEP, rules={"forced_capture": False})
    assert game["rules"] == {"forced_capture": False}
    assert game["must_capture"] == []
    assert move(client, game, "1-5").status_code == 200


def test_compulsory_capture_marks_pieces_and_refuses_plain_moves(client):
    game = new_game(client, fen=CAPTURE_OR_STEP)
    assert game["must_capture"] == [13]
    assert [m["text"] for m in game["legal_moves"]] == ["14x23"]
    response = move(client, game, "1-5")
    assert response.status_code == 422
    assert response.json["error"] == "capture is compulsory: the piece on 14 must capture"
    response = move(client, game, {"start": 13, "path": [17]})  # 14-18 is occupied; 14-17 is a plain step
    assert response.status_code == 422 and "capture is compulsory" in response.json["error"]


def test_ambiguous_move_lists_the_routes(client):
    game = new_game(client, fen=TWO_ROUTES)
    response = move(client, game, "2x18")
    assert response.status_code == 422
    assert "ambiguous" in response.json["error"] and "2x9x18" in response.json["error"]
    assert move(client, game, "2x11x18").status_code == 200


def test_result_and_move_after_game_over(client):
    game = new_game(client, fen=LAST_PIECE)
    after = move(client, game, "14x23").json
    assert after["outcome"] == {
        "result": "1-0",  # american PDN writes the first player's (Black's) score first
        "winner": "black",
        "termination": "no legal moves",
        "text": "Black wins (you win): White has no legal move",
    }
    assert after["legal_moves"] == [] and after["user_to_move"] is False
    response = move(client, game, "23-27")
    assert response.status_code == 409 and "game is over" in response.json["error"]


def test_undo_takes_back_the_users_move_and_the_reply(client):
    game = new_game(client)
    first = move(client, game, "11-15").json
    second = move(client, game, "8-11").json
    assert len(second["moves"]) == 4
    undone = client.post(f"/api/games/{game['id']}/undo").json
    assert undone["fen"] == first["fen"] and len(undone["moves"]) == 2
    undone = client.post(f"/api/games/{game['id']}/undo").json
    assert undone["fen"] == Board("american").fen() and undone["moves"] == []
    response = client.post(f"/api/games/{game['id']}/undo")
    assert response.status_code == 409 and "nothing to undo" in response.json["error"]


def test_undo_keeps_the_computers_opening_move(client):
    game = new_game(client, color="white")
    played = move(client, game, game["legal_moves"][0]["text"]).json
    assert len(played["moves"]) == 3
    undone = client.post(f"/api/games/{game['id']}/undo").json
    assert undone["moves"] == game["moves"]


def test_pdn_download(client):
    game = new_game(client, fen=LAST_PIECE)
    move(client, game, "14x23")
    response = client.get(f"/api/games/{game['id']}/pdn")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    [parsed] = read_pdn(response.get_data(as_text=True))
    assert parsed.tags["FEN"] == LAST_PIECE
    assert parsed.tags["Black"] == "You" and parsed.tags["White"] == "Computer (random)"
    assert parsed.moves == ["14x23"] and parsed.result == "1-0"


def test_games_are_independent(client):
    a = new_game(client)
    b = new_game(client)
    assert a["id"] != b["id"]
    move(client, a, "11-15")
    assert client.get(f"/api/games/{b['id']}").json["moves"] == []


def test_concurrent_moves_on_separate_games(app):
    games = [new_game(app.test_client()) for _ in range(4)]
    results = []

    def play(game):
        client = app.test_client()
        for _ in range(5):
            current = client.get(f"/api/games/{game['id']}").json
            if current["outcome"]:
                break
            results.append(move(client, game, current["legal_moves"][0]["text"]).status_code)

    threads = [threading.Thread(target=play, args=(g,)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results and set(results) == {200}
    for game in games:  # every game's history replays legally from the start
        state = app.test_client().get(f"/api/games/{game['id']}").json
        board = Board("american")
        for m in state["moves"]:
            board.push(m["text"])
        assert board.fen() == state["fen"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"variant": "chess"}, "unknown variant"),
        ({"variant": 3}, '"variant"'),
        ({"color": "red"}, '"color"'),
        ({"opponent": "minimax:x"}, "minimax"),
        ({"opponent": "wizard"}, "unknown agent spec"),
        ({"opponent": "missing/best.pt"}, "not found"),
        ({"opponent": ""}, "opponent"),
        ({"fen": "W:W99:B1"}, "99"),
        ({"fen": 12}, '"fen"'),
        ({"rules": {"forced_capture": "no"}}, "true or false"),
        ({"rules": {"board_size": 10}}, "forced_capture"),
        ({"variant": "international", "rules": {"forced_capture": False}}, "8x8"),
        ({"seed": "x"}, '"seed"'),
        ({"colour": "white"}, "unknown field"),
    ],
)
def test_bad_new_game_requests(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.json
    assert message.lower() in response.json["error"].lower()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": "{not json", "content_type": "application/json"},
        {"data": "move=11-15", "content_type": "application/x-www-form-urlencoded"},
        {"json": ["11-15"]},
        {"json": {"mov": "11-15"}},
    ],
)
def test_malformed_bodies(client, kwargs):
    game = new_game(client)
    response = client.post(f"/api/games/{game['id']}/move", **kwargs)
    assert response.status_code == 400
    assert response.is_json and response.json["error"]
    assert client.post("/api/games", **kwargs).status_code == 400


def test_a_body_beyond_64_kb_is_refused_unread(client):
    game = new_game(client)
    for size in (65 * 1024, 30 * 1024 * 1024):
        body = '{"variant": "' + "x" * size + '"}'
        response = client.post("/api/games", data=body, content_type="application/json")
        assert response.status_code == 413 and "64 KB" in response.json["error"]
        response = client.post(f"/api/games/{game['id']}/move", data=body, content_type="application/json")
        assert response.status_code == 413
    response = client.post("/api/games", json={"opponent": "random", "fen": " " * 60_000})  # under the limit: read
    assert response.status_code == 400 and "FEN" in response.json["error"]


@pytest.mark.parametrize("body", ["[" * 30_000 + "]" * 30_000, '{"a":' * 10_000 + "1" + "}" * 10_000])
def test_deeply_nested_json_is_a_bad_request(client, body):
    game = new_game(client)
    for url in ("/api/games", f"/api/games/{game['id']}/move"):
        response = client.post(url, data=body, content_type="application/json")
        assert response.status_code == 400 and "nests too deeply" in response.json["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"variant": "chess" * 2000},
        {"color": "red" * 2000},
        {"opponent": "wizard" * 2000},
        {"opponent": "minimax:" + "9" * 5000},
        {"opponent": "runs/" + "a" * 5000 + ".pt"},
        {"fen": "W:W" + "1" * 5000 + ":B1"},
        {"fen": "nonsense " * 2000},
        {"c" * 5000: 1},
    ],
)
def test_errors_cut_long_input(client, body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.json
    error = response.json["error"]
    assert len(error) < 600 and "…" in error, error


@pytest.mark.parametrize("spec", ["1-" * 3000 + "5", "9" * 5000 + "-15", {"start": "x" * 5000, "path": [14]}])
def test_move_errors_cut_long_input(client, spec):
    game = new_game(client)
    response = move(client, game, spec)
    assert response.status_code in (400, 422), response.json
    assert len(response.json["error"]) < 400 and "…" in response.json["error"], response.json["error"]


def test_unknown_long_game_id_is_cut(client):
    response = client.get("/api/games/" + "f" * 5000)
    assert response.status_code == 404 and len(response.json["error"]) < 200


@pytest.mark.parametrize(
    ("spec", "status", "message"),
    [
        ("11-14", 422, "illegal move"),
        ("1-5", 422, "illegal move"),  # a blocked man
        ("11", 400, "two squares"),
        ("", 400, "two squares"),
        ("99-15", 422, "bad square"),
        ("e3-f4", 422, "illegal move"),  # a real square, but not a legal move
        (15, 400, '"move"'),
        (None, 400, '"move"'),
        ({"start": 10}, 400, '"start" and "path"'),
        ({"start": 10, "path": []}, 400, "non-empty"),
        ({"start": 10, "path": 14}, 400, "non-empty"),
        ({"start": True, "path": [14]}, 400, "a square is an index"),
        ({"start": 1.5, "path": [14]}, 400, "a square is an index"),
        ({"start": 10, "path": [99]}, 422, "off the board"),
        ({"start": 10, "path": [14], "x": 1}, 400, '"start" and "path"'),
        ({"start": 21, "path": [17]}, 422, "illegal move"),  # the opponent's piece
    ],
)
def test_bad_moves(client, spec, status, message):
    game = new_game(client)
    response = move(client, game, spec)
    assert response.status_code == status, response.json
    assert message.lower() in response.json["error"].lower()
    assert client.get(f"/api/games/{game['id']}").json["fen"] == game["fen"]  # nothing changed


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/games/nope"),
        ("post", "/api/games/nope/undo"),
        ("get", "/api/games/nope/pdn"),
        ("get", "/api/nothing-here"),
    ],
)
def test_unknown_game_or_route_is_404_with_a_message(client, method, path):
    response = getattr(client, method)(path)
    assert response.status_code == 404 and response.json["error"]
    response = client.post("/api/games/nope/move", json={"move": "11-15"})
    assert response.status_code == 404 and "no game" in response.json["error"]


def test_wrong_method_is_405_with_a_message(client):
    response = client.delete("/api/games")
    assert response.status_code == 405 and response.json["error"]


def test_page_and_static_files_are_served_locally(client):
    page = client.get("/").get_data(as_text=True)
    assert '<div id="board"' in page and "http" not in page  # no CDN: every resource comes from this server
    for name in ("app.js", "style.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and b"http" not in response.data


def test_oldest_games_are_dropped_beyond_the_limit():
    from play.server import create_app

    client = create_app(max_games=2).test_client()
    games = [new_game(client) for _ in range(3)]
    assert client.get(f"/api/games/{games[0]['id']}").status_code == 404
    assert client.get(f"/api/games/{games[2]['id']}").status_code == 200


def test_one_client_cannot_evict_other_clients_games():
    from play.server import create_app

    app = create_app(max_games=10, max_games_per_client=3)
    alice = app.test_client()
    mallory = app.test_client()
    mine = new_game(alice)
    theirs = [
        mallory.post("/api/games", json={"opponent": "random"}, environ_base={"REMOTE_ADDR": "10.0.0.9"}).json
        for _ in range(20)
    ]
    assert alice.get(f"/api/games/{mine['id']}").status_code == 200
    assert mallory.get(f"/api/games/{theirs[0]['id']}").status_code == 404  # only their own oldest go
    assert all(mallory.get(f"/api/games/{g['id']}").status_code == 200 for g in theirs[-3:])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the resident size from /proc (Linux)")
def test_hundred_idle_games_fit_in_little_memory():
    # Each minimax opponent used to hold its own 22 MB of search tables: 100 games took 2 GB.
    bench = load_script("benchmarks/play_memory.py")
    result = bench.measure(games=100, opponent="minimax:4")
    assert result["growth_mb"] < 100, result


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "LOCALHOST", "localhost:80", "[::1]:80"])
def test_local_host_names_are_served(client, host):
    assert client.get("/api/variants", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:80", "localhost:8000", "127.0.0.2", "", "[::1"])
def test_other_host_names_are_refused(client, host):
    # A page of another site that DNS rebinding points at 127.0.0.1 sends its own name in Host.
    response = client.get("/api/variants", headers={"Host": host})
    assert response.status_code == 400 and "host" in response.json["error"]
    assert client.post("/api/games", json={}, headers={"Host": host}).status_code == 400
    assert client.get("/", headers={"Host": host}).status_code == 400


def test_host_names_given_to_the_server_are_served():
    from play.server import create_app

    client = create_app(allowed_hosts=["0.0.0.0", "board.lan"]).test_client()
    assert client.get("/api/variants", headers={"Host": "board.lan"}).status_code == 200
    assert (
        client.get("/api/variants", headers={"Host": "0.0.0.0"}).status_code == 400
    )  # an address to listen on, not a name


def test_command_line_refuses_requests_for_other_hosts():
    process = subprocess.Popen(
        [sys.executable, "-m", "play", "--port", "0", "--allowed-host", "board.lan"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().split()[3]
        port = url.rstrip("/").rsplit(":", 1)[1]
        for host, status in ((f"evil.example:{port}", 400), (f"board.lan:{port}", 200), (f"127.0.0.1:{port}", 200)):
            request = urllib.request.Request(url + "api/variants", headers={"Host": host})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    assert response.status == status, host
            except urllib.error.HTTPError as exc:
                assert exc.code == status, host
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_command_line_prints_the_address_and_serves():
    process = subprocess.Popen(
        [sys.executable, "-m", "play", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("Playing checkers at http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/variants", timeout=30) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_command_line_rejects_a_bad_port():
    result = subprocess.run([sys.executable, "-m", "play", "--port", "70000"], capture_output=True, text=True)
    assert result.returncode == 2 and "--port" in result.stderr


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_whole_game_against_minimax_replays_from_its_pdn(client, variant):
    rng = random.Random(variant)
    game = new_game(client, variant=variant, opponent="minimax:2", seed=1)
    for ply in range(400):
        if game["outcome"]:
            break
        chosen = rng.choice(game["legal_moves"])
        spec = chosen["text"] if ply % 2 else {"start": chosen["start"], "path": chosen["path"]}
        response = move(client, game, spec)
        assert response.status_code == 200, response.json
        game = response.json
    assert game["outcome"] is not None
    [parsed] = read_pdn(client.get(f"/api/games/{game['id']}/pdn").get_data(as_text=True))
    board = Board(variant)
    for text in parsed.moves:
        board.push(text)
    assert board.fen() == game["fen"] and board.result() == parsed.result == game["outcome"]["result"]
