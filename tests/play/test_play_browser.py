"""End to end: the page in a real headless Chromium, played with the mouse.

Positions (american, Black to move, Black's men moving toward square 32):
compulsory capture ``B:W18,30:B14,1``; double jump ``B:W6,15:B1`` (1x10x19);
two routes to one square ``B:W6,7,14,15:B2`` (2x9x18 and 2x11x18); the
winning capture ``B:W18:B14``. Screenshots land in test-artifacts/play/.
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from checkers_env.core import Board
from checkers_env.core.pdn import read_pdn
from checkers_env.core.variants import VARIANTS

from .conftest import ARTIFACTS, needs_browser, serve

pytestmark = needs_browser


def api_new_game(base: str, **body) -> dict:
    body.setdefault("opponent", "random")
    body.setdefault("seed", 3)
    request = urllib.request.Request(
        f"{base}/api/games", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def open_game(page, base: str, game: dict) -> None:
    page.goto(f"{base}/#{game['id']}")
    page.wait_for_function("id => state.game && state.game.id === id && !state.busy", arg=game["id"])


def start_from_form(page, base: str, variant: str = "american", opponent: str = "random") -> None:
    page.goto(base)
    page.wait_for_function("() => state.game && !state.busy")
    page.select_option("#variant", variant)
    page.select_option("#opponent-kind", opponent)
    page.click("#new-game")
    page.wait_for_function("v => state.game && state.game.variant === v && !state.busy", arg=variant)


def square(page, index: int):
    return page.locator(f'.square[data-index="{index}"]')


def wait_for_plies(page, plies: int) -> None:
    page.wait_for_function(
        "n => !state.busy && state.game.moves.length >= n && (state.game.user_to_move || state.game.outcome)", arg=plies
    )


def game_state(page) -> dict:
    return page.evaluate("() => state.game")


def test_game_played_by_clicks(page, live_server):
    start_from_form(page, live_server)
    assert page.inner_text("#status") == "Your move (Black)"
    played = []
    for turn in range(3):
        game = game_state(page)
        move = game["legal_moves"][-1]
        square(page, move["start"]).click()
        for index in move["path"]:
            assert "target" in square(page, move["path"][-1]).get_attribute("class")
            square(page, index).click()
        played.append(move["text"])
        wait_for_plies(page, 2 * turn + 2)
    game = game_state(page)
    assert [m["text"] for m in game["moves"]][::2] == played
    board = Board("american")
    for m in game["moves"]:
        board.push(m["text"])
    assert board.fen() == game["fen"]
    rows = page.locator("#moves li").all_inner_texts()
    assert len(rows) == 3 and rows[0].split()[0] == played[0]


def test_game_played_by_drag_and_drop(page, live_server):
    start_from_form(page, live_server, variant="russian")
    assert page.inner_text("#status") == "Your move (White)"
    for turn in range(3):
        move = game_state(page)["legal_moves"][0]
        source = square(page, move["start"]).locator(".piece")
        source.drag_to(square(page, move["path"][-1]))
        wait_for_plies(page, 2 * turn + 2)
        assert game_state(page)["moves"][2 * turn]["text"] == move["text"]
    assert page.locator("#moves li").count() == 3


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_plays_in_the_page(page, live_server, variant):
    start_from_form(page, live_server, variant=variant)
    game = game_state(page)
    size = VARIANTS[variant].board_size
    assert page.locator(".square").count() == size * size
    assert page.locator(".square.dark").count() == size * size // 2
    assert page.locator(".piece").count() == len(game["pieces"])
    move = game["legal_moves"][0]
    square(page, move["start"]).click()
    square(page, move["path"][-1]).click()
    wait_for_plies(page, 2)
    assert page.locator("#moves li").first.inner_text().split()[0] == move["text"]


def test_compulsory_capture_is_enforced(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W18,30:B14,1"))
    assert page.inner_text("#status") == "Your move (Black): you must capture"
    assert page.locator(".piece.must-capture").count() == 1
    assert "must-capture" in square(page, 13).locator(".piece").get_attribute("class")
    # The man on 1 has plain moves, but a capture is on the board: picking it or dragging it is refused.
    square(page, 0).click()
    assert page.inner_text("#message") == "Capture is compulsory: the piece on 14 must capture."
    square(page, 0).locator(".piece").drag_to(square(page, 4))
    assert page.inner_text("#message") == "Capture is compulsory: the piece on 14 must capture."
    page.screenshot(path=str(ARTIFACTS / "compulsory_capture_refused.png"))
    # A plain step with the capturing man is refused too.
    square(page, 13).click()
    square(page, 16).click()
    assert "Capture is compulsory" in page.inner_text("#message")
    assert game_state(page)["moves"] == []
    square(page, 13).locator(".piece").drag_to(square(page, 22))
    wait_for_plies(page, 1)
    assert game_state(page)["moves"][0]["text"] == "14x23"
    assert page.inner_text("#message") == ""


def test_multi_capture_leg_by_leg(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W6,15:B1"))
    square(page, 0).click()
    assert "leg" in square(page, 9).get_attribute("class")  # the first landing square
    assert "target" in square(page, 18).get_attribute("class")  # where the capture ends
    square(page, 9).click()
    assert page.inner_text("#message") == "Keep capturing: click the next landing square."
    # The man has moved along to 10, and the man it jumped (on 6) is marked; the one on 15 is not taken yet.
    assert square(page, 0).locator(".piece").count() == 0
    assert "selected" in square(page, 9).locator(".piece.black").get_attribute("class")
    assert "jumped" in square(page, 5).locator(".piece").get_attribute("class")
    assert "jumped" not in square(page, 14).locator(".piece").get_attribute("class")
    page.screenshot(path=str(ARTIFACTS / "multi_capture_half_way.png"))
    square(page, 18).click()
    wait_for_plies(page, 1)
    game = game_state(page)
    assert game["moves"][0]["text"] == "1x19" and game["moves"][0]["captures"] == [5, 14]
    assert page.locator(".piece.white").count() == 0


def test_multi_capture_by_its_final_square(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W6,15:B1"))
    square(page, 0).click()
    square(page, 18).click()
    wait_for_plies(page, 1)
    assert game_state(page)["moves"][0]["text"] == "1x19"


def test_ambiguous_final_square_asks_for_the_route(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W6,7,14,15:B2"))
    square(page, 1).click()
    square(page, 17).click()
    assert page.inner_text("#message").startswith("Several captures end on 18")
    assert game_state(page)["moves"] == []
    square(page, 10).click()
    square(page, 17).click()
    wait_for_plies(page, 1)
    assert game_state(page)["moves"][0]["text"] == "2x11x18"


def test_result_shown_and_pdn_downloaded(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W18:B14"))
    square(page, 13).click()
    square(page, 22).click()
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result") == "1-0: Black wins (you win): White has no legal move"
    assert page.inner_text("#status") == "Game over"
    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename.endswith(".pdn")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / download.suggested_filename
    download.save_as(str(target))
    [game] = read_pdn(target.read_text())
    assert game.moves == ["14x23"] and game.result == "1-0" and game.tags["FEN"] == "B:W18:B14"


def test_undo_and_flip(page, live_server):
    start_from_form(page, live_server)
    assert page.locator("#undo").is_disabled()
    first_cell = page.locator(".square").first  # top-left corner: light on the a1-dark board, either way up
    before = page.locator(".square.dark").first.get_attribute("data-index")
    page.click("#flip")
    after = page.locator(".square.dark").first.get_attribute("data-index")
    assert before != after and "dark" not in first_cell.get_attribute("class")
    move = game_state(page)["legal_moves"][0]
    square(page, move["start"]).click()
    square(page, move["path"][-1]).click()
    wait_for_plies(page, 2)
    assert page.locator("#moves li").count() == 1
    page.click("#undo")
    page.wait_for_function("() => !state.busy && state.game.moves.length === 0")
    assert page.locator("#moves li").count() == 0
    assert game_state(page)["fen"] == Board("american").fen()


def test_checkpoints_are_chosen_from_the_servers_list(page, tmp_path):
    pytest.importorskip("torch")
    from agents.checkpoint import save_agent
    from agents.networks import NetConfig, PolicyValueNet
    from play.server import create_app

    (tmp_path / "run1").mkdir()
    rules = VARIANTS["russian"]
    save_agent(
        tmp_path / "run1" / "best.pt", "ppo", rules, PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8))
    )
    with serve(create_app(move_time=1.0, checkpoints=tmp_path)) as base:
        page.goto(base)
        page.wait_for_function("() => state.game && !state.busy && state.checkpoints.length === 1")
        page.select_option("#opponent-kind", "checkpoint")
        options = page.locator("#checkpoint option").all_inner_texts()
        assert options == ["run1/best.pt (Russian draughts, ppo)"]
        assert page.input_value("#variant") == "russian"  # the checkpoint's variant is chosen with it
        page.click("#new-game")
        page.wait_for_function("() => state.game && state.game.opponent === 'run1/best.pt' && !state.busy")
        assert game_state(page)["variant"] == "russian"


@pytest.mark.parametrize(
    ("kind", "depth", "checkpoint"), [("minimax", True, False), ("random", False, False), ("checkpoint", False, True)]
)
def test_only_the_chosen_opponents_settings_are_shown(page, live_server, kind, depth, checkpoint):
    page.goto(live_server)
    page.wait_for_function("() => state.game && !state.busy")
    page.select_option("#opponent-kind", kind)
    assert page.locator("#depth-label").is_visible() is depth
    assert page.locator("#checkpoint-label").is_visible() is checkpoint


def boxes(page) -> dict:
    return {sel: page.locator(sel).bounding_box() for sel in ("#board", ".panel", "#moves")}


def test_a_long_message_does_not_move_the_layout(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W6,7,14,15:B2"))
    before = boxes(page)
    square(page, 1).click()
    square(page, 17).click()  # two routes end on 18: a long hint
    assert page.inner_text("#message").startswith("Several captures end on 18")
    assert boxes(page) == before
    page.evaluate("() => say('The server answered: ' + 'a long reason, '.repeat(12))")
    assert boxes(page) == before


def test_hints_and_errors_have_different_colours(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:W6,15:B1,4"))

    def colour():
        return page.evaluate("() => getComputedStyle(document.getElementById('message')).color")

    square(page, 3).click()  # the man on 4 cannot move while 1 must capture: a refusal
    assert page.inner_text("#message").startswith("Capture is compulsory")
    error = colour()
    square(page, 0).click()
    square(page, 9).click()
    assert page.inner_text("#message") == "Keep capturing: click the next landing square."
    hint = colour()
    assert hint != error and "hint" in page.get_attribute("#message", "class")


def piece_squares(page) -> dict:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.square .piece')].map(
            el => [el.parentElement.dataset.index, el.className.includes('white') ? 'white' : 'black']))"""
    )


def test_moves_in_the_list_step_through_the_game(page, live_server):
    open_game(page, live_server, api_new_game(live_server))
    for turn in range(2):
        move = game_state(page)["legal_moves"][0]
        square(page, move["start"]).click()
        square(page, move["path"][-1]).click()
        wait_for_plies(page, 2 * turn + 2)
    game = game_state(page)
    live = piece_squares(page)
    page.locator("#moves span.ply").first.click()  # the position after the first move
    board = Board("american")
    board.push(game["moves"][0]["text"])
    expected = {str(i): "white" for i in board.pieces(0)} | {str(i): "black" for i in board.pieces(1)}
    assert piece_squares(page) == expected
    assert page.locator("#viewing").is_visible()
    assert page.inner_text("#status") == f"Looking at the position after {game['moves'][0]['text']}"
    assert "current" in page.locator("#moves span.ply").first.get_attribute("class")
    # View only: a click on the board plays nothing.
    move = game["legal_moves"][0]
    square(page, move["start"]).click()
    assert page.locator(".piece.selected").count() == 0
    page.click("#next")
    page.click("#prev")
    page.click("#prev")
    assert piece_squares(page) == {str(p["index"]): p["color"] for p in game["initial_pieces"]}
    page.click("#live")
    assert not page.locator("#viewing").is_visible()
    assert piece_squares(page) == live
    assert page.inner_text("#status").startswith("Your move (Black)")
    square(page, move["start"]).click()  # playable again
    assert page.locator(".piece.selected").count() == 1


def test_a_position_is_set_up_from_a_fen(page, live_server):
    page.goto(live_server)
    page.wait_for_function("() => state.game && !state.busy")
    first = game_state(page)["id"]
    page.click("#setup summary")
    page.fill("#setup-text", "B:W18:B14")
    page.click("#start-fen")
    page.wait_for_function("id => state.game.id !== id && !state.busy", arg=first)
    game = game_state(page)
    assert game["fen"] == "B:W18:B14" and page.locator(".piece").count() == 2


def test_a_game_is_loaded_from_a_pdn_file(page, live_server, tmp_path):
    pdn = tmp_path / "game.pdn"
    pdn.write_text('[GameType "25"]\n\n1. c3-d4 f6-g5 2. b2-c3 *\n')
    page.goto(live_server)
    page.wait_for_function("() => state.game && !state.busy")
    first = game_state(page)["id"]
    page.click("#setup summary")
    page.set_input_files("#setup-file", str(pdn))
    page.wait_for_function("() => document.getElementById('setup-text').value.includes('c3-d4')")
    page.select_option("#color", "black")
    page.click("#load-pdn")
    page.wait_for_function("id => state.game.id !== id && !state.busy", arg=first)
    game = game_state(page)
    assert game["variant"] == "russian" and page.input_value("#variant") == "russian"  # the PDN's variant
    assert [m["text"] for m in game["moves"]] == ["c3-d4", "f6-g5", "b2-c3"]
    assert page.locator("#moves span.ply").count() == 3 and game["user_to_move"]


def test_a_bad_pdn_is_explained_on_the_page(page, live_server):
    page.goto(live_server)
    page.wait_for_function("() => state.game && !state.busy")
    page.click("#setup summary")
    page.fill("#setup-text", "1. 11-15 15-19 *")
    page.click("#load-pdn")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('cannot load the PDN')")


def test_resign_takes_two_clicks_and_ends_the_game(page, live_server):
    open_game(page, live_server, api_new_game(live_server))
    page.click("#resign")
    assert page.inner_text("#resign") == "Click again to resign" and game_state(page)["outcome"] is None
    page.click("#resign")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result") == "1-0: White wins (the computer wins): you resigned"
    assert page.locator("#resign").is_disabled() and page.locator("#offer-draw").is_disabled()


def test_a_draw_offer_is_answered(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:WK18,K22,K30:B1", opponent="minimax:2"))
    page.click("#offer-draw")
    page.wait_for_function("() => !state.busy && document.getElementById('message').textContent !== ''")
    assert page.inner_text("#message").startswith("The computer declines the draw")
    assert "hint" in page.get_attribute("#message", "class") and game_state(page)["outcome"] is None
    page.goto("about:blank")  # a new hash alone would not reload the page
    open_game(page, live_server, api_new_game(live_server, fen="B:WK18,30:BK1,K3,K14", opponent="minimax:2"))
    page.click("#offer-draw")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result") == "1/2-1/2: Draw: agreed (the computer accepted your offer)"


def test_the_engines_depth_score_and_time_are_shown(page, live_server):
    open_game(page, live_server, api_new_game(live_server, opponent="minimax:3", color="white"))
    game = game_state(page)
    reply = game["moves"][0]
    text = page.inner_text("#engine")
    assert text.startswith(
        f"Computer, {reply['text']}: depth 3, score {reply['engine']['score_text']} for the computer"
    )
    assert re.search(r", \d+\.\d\d s$", text)
    move = game["legal_moves"][0]
    square(page, move["start"]).click()
    square(page, move["path"][-1]).click()
    wait_for_plies(page, 3)
    latest = game_state(page)["moves"][2]
    assert page.inner_text("#engine").startswith(f"Computer, {latest['text']}: depth")
    page.locator("#moves span.ply").first.click()  # stepping back shows that move's search
    assert page.inner_text("#engine").startswith(f"Computer, {reply['text']}: depth 3")


def test_kings_are_crowned_men_not_chess_queens(page, live_server):
    open_game(page, live_server, api_new_game(live_server, fen="B:WK18:BK14,1"))
    kings = page.locator(".piece.king")
    assert kings.count() == 2 and page.locator(".piece:not(.king)").count() == 1
    for i in range(2):
        after = kings.nth(i).evaluate(
            "el => { const s = getComputedStyle(el, '::after'); return [s.content, s.clipPath, s.width]; }"
        )
        assert "♛" not in after[0] and "♕" not in after[0] and after[1].startswith("polygon(")
    assert "♛" not in page.evaluate("() => document.body.innerText")


def test_the_10x10_board_is_numbered_as_international_players_read_it(page, live_server):
    open_game(page, live_server, api_new_game(live_server, variant="international", color="white"))
    dark = page.locator(".square.dark")
    assert dark.count() == 50
    numbers = dark.evaluate_all("els => els.map(el => el.querySelector('.number').textContent)")
    assert numbers == [str(i) for i in range(1, 51)]  # row by row from the top left, seen from White
    first = page.locator(".square").nth(1)  # the top row starts with a light square, then square 1
    assert first.get_attribute("data-name") == "1" and "dark" not in page.locator(".square").first.get_attribute(
        "class"
    )
    assert page.inner_text("#files").strip() == "" and page.inner_text("#ranks").strip() == ""  # no a-j, 1-10
    size = page.locator('.square[data-index="0"] .number').evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert size >= 11
    page.click("#flip")  # from Black's side square 1 is at the bottom right
    assert page.locator(".square").nth(98).get_attribute("data-name") == "1"


def test_algebraic_boards_keep_their_coordinates(page, live_server):
    open_game(page, live_server, api_new_game(live_server, variant="russian"))
    assert page.inner_text("#files").split() == list("abcdefgh")
