"""PDN game files: reading, replaying, writing, round trips in every variant."""

from __future__ import annotations

import os
import random

import pytest

from checkers_env.core import VARIANTS, Board, InvalidPdnError
from checkers_env.core.pdn import (
    PdnGame,
    game_to_pdn,
    games_to_pdn,
    pdn_result,
    read_pdn,
    variant_of_game_type,
    winner_of_result,
    write_pdn,
)


def random_game(variant: str, seed: int, max_plies: int = 120, fen: str | None = None) -> Board:
    rng = random.Random(seed)
    board = Board(variant, fen=fen)
    while len(board.move_stack) < max_plies and board.outcome() is None:
        board.push(rng.choice(board.legal_moves()))
    return board


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_round_trip_random_games(variant):
    for seed in range(4):
        board = random_game(variant, seed)
        text = game_to_pdn(board, tags={"Event": f"random {seed}", "White": "a", "Black": "b"})
        assert all(len(line) <= 80 for line in text.splitlines())
        (game,) = read_pdn(text)
        assert game.tags["Event"] == f"random {seed}"
        assert list(game.tags)[:3] == ["Event", "White", "Black"]
        assert "FEN" not in game.tags
        assert game.variant == variant
        assert game.result == board.result() == game.tags["Result"]
        assert game.moves == [str(m) for m in board.move_stack]
        replayed = game.replay()
        assert replayed.move_stack == board.move_stack
        assert replayed.fen(clock=True) == board.fen(clock=True)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_round_trip_from_a_set_up_position_with_second_player_to_move(variant):
    # Start after one ply of a random game, so the second player moves first
    # and the FEN tag is needed.
    start = random_game(variant, 7, max_plies=1)
    board = random_game(variant, 8, max_plies=30, fen=start.fen())
    text = game_to_pdn(board)
    (game,) = read_pdn(text)
    assert game.tags["FEN"] == start.fen()
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1... ")
    assert game.replay().fen() == board.fen()


def test_full_route_that_is_a_sub_route_of_another_capture_replays():
    # d2xb4xd6xb8 (3 pieces) and d2xb4xd6xf8xh6xf4xb8 (6 pieces) share start, end
    # and the first landings, so Board.parse_move finds the first text
    # ambiguous; the PDN reader takes the move whose route is exactly the one written.
    board = Board("russian", fen="W:Wa1,a3,d2,e1,f2,g1:Bc3,c5,c7,d4,e7,g5,g7,h8")
    move = next(m for m in board.legal_moves() if len(m.captures) == 3)
    assert str(move) == "d2xb4xd6xb8"
    board.push(move)
    replayed = read_pdn(game_to_pdn(board))[0].replay()
    assert replayed.move_stack == [move]
    assert replayed.fen() == board.fen()


def test_written_game_layout():
    board = Board("american")
    for move in ("11-15", "23-19", "8-11", "22-17"):
        board.push(move)
    text = game_to_pdn(board, tags={"Event": 'say "hi"'}, result="1-0")
    assert text == (
        '[Event "say \\"hi\\""]\n[GameType "21,B,8,8,N1,0"]\n[Result "1-0"]\n\n1. 11-15 23-19 2. 8-11 22-17 1-0\n'
    )
    assert read_pdn(text)[0].tags["Event"] == 'say "hi"'


def test_finished_game_result_comes_from_board():
    board = Board("russian", fen="W:Wc3:Bd4")
    board.push("c3xe5")
    text = game_to_pdn(board)
    assert '[Result "1-0"]' in text and text.rstrip().endswith("1-0")


def test_bad_result_is_rejected():
    with pytest.raises(InvalidPdnError, match="result"):
        game_to_pdn(Board(), result="win")


HAND_WRITTEN = """\
; a file written by hand
[Event "Club \\"open\\""]
[White "Ann"]
[Black "Bob"]
[GameType "21"]
[Result "1-0"]

1. 11-15 {the Old Faithful} 23-19 2. 8-11 $1 (2. 9-14 22x17 ; a side line
  (2. 10-14 {nested})) 22-17! 3. 4-8 17-13 ;comment to end of line
4. 15-18
1-0

%escaped line, ignored
[Event "second"]
[GameType "20,W,10,10,N2,0"]
[FEN "W:W31-35:B16-20"]
1. 32-28 16-21 2. 28-22 * [Event "third"] [GameType "25"] 1. c3-d4 f6-e5 2. d4:f6 1/2-1/2
"""


def test_read_hand_written_pdn():
    games = read_pdn(HAND_WRITTEN)
    assert [g.number for g in games] == [1, 2, 3]
    first, second, third = games
    assert first.tags == {"Event": 'Club "open"', "White": "Ann", "Black": "Bob", "GameType": "21", "Result": "1-0"}
    assert first.moves == ["11-15", "23-19", "8-11", "22-17!", "4-8", "17-13", "15-18"]
    assert first.result == "1-0"
    board = first.replay()
    assert board.ply == 7 and str(board.peek()) == "15-18"
    assert second.variant == "international" and second.result == "*"
    assert second.moves == ["32-28", "16-21", "28-22"]
    assert second.replay().fen() == "B:W22,31,33,34,35:B17,18,19,20,21"
    assert third.variant == "russian" and third.result == "1/2-1/2"
    board = third.replay()
    assert board.piece_at("f6") is not None and board.piece_at("e5") is None and len(board.pieces(1)) == 11


def test_result_tokens():
    text = " ".join(f'[Event "{r}"] 11-15 {r}' for r in ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*"))
    assert [g.result for g in read_pdn(text)] == ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*"]


def test_game_without_result_token_takes_result_tag():
    (game,) = read_pdn('[Result "0-1"]\n1. 11-15 23-19')
    assert game.result == "0-1" and game.moves == ["11-15", "23-19"]


def test_game_type_numbers_follow_the_variants_module():
    for name, rules in VARIANTS.items():
        assert variant_of_game_type(rules.pdn_game_type) == name
        assert variant_of_game_type(rules.pdn_game_type.split(",")[0]) == name
    assert variant_of_game_type(None) == "american"
    with pytest.raises(InvalidPdnError, match="GameType"):
        variant_of_game_type("99")


def test_replay_with_explicit_variant_overrides_game_type():
    game = PdnGame(tags={"GameType": "21"}, moves=["c3-d4"])
    assert game.replay("russian").piece_at("d4") is not None


def test_illegal_move_names_game_ply_and_move():
    text = '[Event "x"]\n1. 11-15 23-19 *\n[White "Ann"] [Black "Bob"]\n1. 11-15 23-19 2. 15-24 *'
    games = read_pdn(text)
    games[0].replay()
    with pytest.raises(InvalidPdnError, match=r"game 2 \(Ann vs Bob\), ply 3, move '15-24'"):
        games[1].replay()


def test_malformed_move_and_unknown_game_type_and_bad_fen():
    with pytest.raises(InvalidPdnError, match="ply 1, move '11-99'"):
        read_pdn("1. 11-99 *")[0].replay()
    with pytest.raises(InvalidPdnError, match="game 1.*GameType"):
        read_pdn('[GameType "42"] 1. 11-15 *')[0].replay()
    with pytest.raises(InvalidPdnError, match="game 1: bad FEN"):
        read_pdn('[FEN "W:W33:B1"] 1. 11-15 *')[0].replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. 11-15 {never closed", "game 1, line 1: comment"),
        ("1. 11-15 (2. 9-14", "variation"),
        ("1. 11-15 ) *", "closes no variation"),
        ('[Event "x" 1. 11-15 *', "bad tag"),
        ('[Event "a"] 1-0\n[Event "b"]\n1. 11-15 Nf3 *', "game 2, line 3: unexpected 'Nf3'"),
    ],
)
def test_unreadable_pdn_raises_in_strict_mode(text, message):
    with pytest.raises(InvalidPdnError, match=message):
        read_pdn(text, strict=True)
    games = read_pdn(text)  # by default the error is reported and the reading goes on
    assert len(games.errors) == 1 and message.split(":")[-1].strip() in str(games.errors[0])


# A file of four games whose second has a comment written without braces and
# whose third never closes a variation: the others still come back.
DAMAGED = """\
[Event "one"]
[Result "1-0"]
1. 11-15 23-19 1-0

[Event "two"]
[Result "0-1"]
1. 11-15 23-19 White had a good game
2. 8-11 0-1

[Event "three"]
1. 9-14 (1. 10-14 22-17
*

[Event "four"]
[Bad tag
1. 10-15 *

[Event "five"]
1. 12-16 1/2-1/2
"""


def test_bad_games_are_reported_and_the_others_read():
    games = read_pdn(DAMAGED)
    assert [g.tags["Event"] for g in games] == ["one", "five"]
    assert [g.number for g in games] == [1, 5]
    assert [g.moves for g in games] == [["11-15", "23-19"], ["12-16"]]
    assert [(e.game_number, e.line) for e in games.errors] == [(2, 7), (3, 11), (4, 15)]
    assert all(isinstance(e, InvalidPdnError) for e in games.errors)
    assert "game 2, line 7" in str(games.errors[0]) and "'White'" in str(games.errors[0])
    with pytest.raises(InvalidPdnError, match="game 2, line 7") as info:
        read_pdn(DAMAGED, strict=True)
    assert (info.value.game_number, info.value.line) == (2, 7)
    assert read_pdn(HAND_WRITTEN).errors == []


def test_replay_error_names_game_number_and_line():
    games = read_pdn('[Event "a"]\n1. 11-15 23-19 *\n\n[Event "b"]\n1. 11-15\n23-19 2. 15-24 *\n')
    with pytest.raises(InvalidPdnError) as info:
        games[1].replay()
    assert (info.value.game_number, info.value.line) == (2, 6)
    assert games[1].line == 4


def test_write_pdn_is_atomic_and_reads_back(tmp_path):
    boards = [random_game("american", s, max_plies=20) for s in range(3)]
    path = tmp_path / "games.pdn"
    path.write_text("old contents")
    write_pdn(path, [boards[0], read_pdn(game_to_pdn(boards[1]))[0], game_to_pdn(boards[2])])
    games = read_pdn(path.read_text())
    assert [g.replay().fen() for g in games] == [b.fen() for b in boards]
    assert os.listdir(tmp_path) == ["games.pdn"]


def test_write_pdn_failure_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "games.pdn"
    path.write_text("old contents")
    with pytest.raises(TypeError):
        write_pdn(path, [Board(), 42])

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_pdn(path, [Board()])
    assert path.read_text() == "old contents"
    assert os.listdir(tmp_path) == ["games.pdn"]


@pytest.mark.parametrize("value", ["\u00b2", "1" * 5000, "-21", "21\u00b9"])
def test_bad_game_type_tag_is_an_invalid_pdn_error(value):
    (game,) = read_pdn(f'[White "Ann"]\n[GameType "{value}"]\n1. 11-15 *')
    for action in (lambda: game.variant, game.replay):
        with pytest.raises(InvalidPdnError, match=r"game 1 \(Ann\)") as info:
            action()
        assert "GameType" in str(info.value) and len(str(info.value)) < 1000


@pytest.mark.parametrize("clock", ["H" + "9" * 5000, "H99999999999999999999", "F0", "F\u00b2"])
def test_bad_fen_clock_tag_is_an_invalid_pdn_error(clock):
    (game,) = read_pdn(f'[FEN "W:W21:B1:{clock}"]\n1. 21-17 *')
    with pytest.raises(InvalidPdnError, match="game 1: bad FEN"):
        game.replay()
    assert game.to_pdn().endswith("1. 21-17 *\n")


def test_move_with_a_huge_square_number_names_game_and_move():
    text = '[Event "a"] 1. 11-15 *\n[Event "b"]\n1. 11-15 23-' + "1" * 5000 + " *"
    second = read_pdn(text)[1]
    with pytest.raises(InvalidPdnError, match=r"game 2, ply 2, move '23-1111") as info:
        second.replay()
    assert len(str(info.value)) < 1000


def test_game_with_a_capture_written_along_another_route_replays():
    # Czech championship 2008: the king lands on e5, not on d6 as the generator's
    # kept route does; then a circular capture written round the other way.
    text = (
        '[GameType "29"]\n[FEN "W:WKb8,c1,c3,e1,f2,f6,g1:Ba5,b2,c7,f4,f8,h8"]\n1. b8xe5xh2 *\n'
        '[GameType "21"]\n[FEN "W:WK22:B9,10,17,18"]\n1. 22x15x6x13x22 1-0\n'
    )
    czech, american = read_pdn(text)
    board = czech.replay()
    assert str(board.peek()) == "b8xh2" and board.piece_at("h2") == (0, True)
    assert american.replay().pieces(1) == []


def _reference_fen(variant: str, turn: str, white: list[str], black: list[str]) -> str:
    """A FEN of squares named on the a1-dark reference board, in the variant's own notation."""
    from checkers_env.core import get_rules
    from checkers_env.core.geometry import geometry
    from checkers_env.core.notation import square_name

    rules = get_rules(variant)
    g = geometry(rules.board_size)

    def names(squares):
        return ",".join(square_name(rules, g.index_of_algebraic(sq)) for sq in squares)

    return f"{turn}:W{names(white)}:B{names(black)}"


# American and pool (Black moves first) write Black's score first, as
# English-checkers PDN does; every other variant writes White's first.
FIRST_SCORED = {v: ("black" if v in ("american", "pool") else "white") for v in VARIANTS}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_result_is_written_with_the_first_players_score_first(variant):
    from checkers_env.core import BLACK, WHITE

    won_by_white = Board(variant, fen=_reference_fen(variant, "B", ["c3"], []))  # Black has no piece left
    won_by_black = Board(variant, fen=_reference_fen(variant, "W", ["a1"], ["b2", "c3"]))  # White is blocked
    black_first = FIRST_SCORED[variant] == "black"
    for board, winner in ((won_by_white, WHITE), (won_by_black, BLACK)):
        expected = "1-0" if (winner == BLACK) == black_first else "0-1"
        assert board.result() == expected
        text = game_to_pdn(board)
        assert f'[Result "{expected}"]' in text and text.rstrip().endswith(expected)
        (game,) = read_pdn(text)
        assert game.winner == winner
        assert pdn_result(variant, winner) == expected and winner_of_result(variant, expected) == winner
    assert pdn_result(variant, None) == "1/2-1/2"
    for token in ("1/2-1/2", "1-1", "*"):
        assert winner_of_result(variant, token) is None


def test_american_file_result_one_nil_means_black_won():
    # As in CheckerBoard's files and the ACF archives: 1-0 is a win for Black, who moves first.
    from checkers_env.core import BLACK, WHITE

    text = '[Event "x"]\n[Black "Tinsley"]\n[White "Chinook"]\n[Result "1-0"]\n1. 11-15 23-19 1-0\n'
    (game,) = read_pdn(text)
    assert game.winner == BLACK
    (game,) = read_pdn(text.replace('1-0"', '0-1"').replace("19 1-0", "19 0-1"))
    assert game.winner == WHITE
    (game,) = read_pdn('[GameType "20"]\n1. 32-28 2-0')
    assert game.winner == WHITE
    with pytest.raises(InvalidPdnError, match="result"):
        winner_of_result("american", "3-0")


# Turbo Dambase and other exporters pad one-digit squares to two columns.
PADDED = '[GameType "20"]\n[FEN "W:W11,33:B28,45"]\n 1. 33x 22  45-50  2. 11- 7 *\n'


def test_squares_padded_with_a_space_are_read():
    (game,) = read_pdn(PADDED)
    assert game.moves == ["33x22", "45-50", "11-7"]
    board = game.replay()
    assert board.piece_at(board.parse_square("7")) == (0, False)
    assert read_pdn(game.to_pdn(), strict=True)[0].moves == game.moves
    with pytest.raises(InvalidPdnError, match="unexpected '33x'"):
        read_pdn(PADDED, strict=True)  # not PDN 3.0: strict mode refuses it


@pytest.mark.parametrize(
    ("movetext", "mover"),
    [("1. 1-6 21-17 *", "black"), ("1... 21-17 1-6 *", "white"), ("*", "black")],
)
def test_fen_with_unknown_side_to_move_takes_the_first_movers_colour(movetext, mover):
    # PDN 3.0 allows '?' for the side to move. Replaying infers it from the
    # piece on the first move's start square; with no move, the variant's
    # first player (Black in american) is to move.
    from checkers_env.core import InvalidFenError

    (game,) = read_pdn(f'[GameType "21"]\n[FEN "?:W21:B1"]\n{movetext}')
    board = game.replay()
    first = game.replay()
    while first.move_stack:
        first.pop()
    assert first.turn == (1 if mover == "black" else 0)
    (again,) = read_pdn(game.to_pdn(), strict=True)
    assert again.replay().fen() == board.fen()
    with pytest.raises(InvalidFenError, match=r"'\?'"):
        Board("american", fen="?:W21:B1")


# ----------------------------------------------------- files, paths, streams


def test_read_and_write_take_text_paths_and_files_alike(tmp_path):
    import io
    import pathlib

    boards = [random_game("russian", s, max_plies=12) for s in range(3)]
    text = games_to_pdn(boards)
    assert [g.replay().fen() for g in read_pdn(text)] == [b.fen() for b in boards]

    path = tmp_path / "games.pdn"
    write_pdn(boards, path)  # games first, like json.dump
    assert path.read_text(encoding="utf-8") == text
    write_pdn(boards, str(path))
    assert path.read_text(encoding="utf-8") == text
    stream = io.StringIO()
    write_pdn(boards, stream)
    assert stream.getvalue() == text
    write_pdn(text, path)  # one text is one game... or a whole file's text
    assert path.read_text(encoding="utf-8") == text

    for source in (
        path,
        pathlib.PurePath(path),
        open(path, encoding="utf-8"),
        open(path, "rb"),
        io.BytesIO(text.encode()),
        text.encode(),
    ):
        games = read_pdn(source)
        assert [g.replay().fen() for g in games] == [b.fen() for b in boards], source
        if hasattr(source, "close"):
            source.close()


def test_read_pdn_of_a_file_name_given_as_text_says_so(tmp_path, monkeypatch):
    (tmp_path / "games.pdn").write_text("1. 11-15 *")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidPdnError, match=r"Path\('games.pdn'\)"):
        read_pdn("games.pdn")


def test_read_pdn_decodes_utf8_and_older_windows_files():
    text = '[Event "Coupe de l\u2019Europe, S\u00e8te"]\n1. 32-28 *\n'
    for data in (text.encode("utf-8"), b"\xef\xbb\xbf" + text.encode("utf-8"), text.encode("cp1252")):
        (game,) = read_pdn(data)
        assert game.tags["Event"] == "Coupe de l\u2019Europe, S\u00e8te"
    with pytest.raises(InvalidPdnError, match="utf-8"):
        read_pdn(text.encode("cp1252"), encoding="utf-8")
    with pytest.raises(InvalidPdnError, match="int"):
        read_pdn(42)


def test_write_pdn_to_a_new_path_gets_ordinary_permissions_and_keeps_old_ones(tmp_path):
    import stat

    umask = os.umask(0o022)
    os.umask(umask)
    fresh = tmp_path / "fresh.pdn"
    write_pdn([Board()], fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.pdn"
    kept.write_text("old")
    kept.chmod(0o640)
    write_pdn([Board()], kept)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert kept.read_text().startswith("[GameType")


def test_write_pdn_failing_midway_leaves_no_file(tmp_path, monkeypatch):
    path = tmp_path / "new.pdn"
    with pytest.raises(TypeError):
        write_pdn([Board(), object()], path)

    class Boom(RuntimeError):
        pass

    real_fsync = os.fsync

    def broken_fsync(fd):
        real_fsync(fd)
        raise Boom("disk gone")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(Boom):
        write_pdn([Board()], path)
    assert os.listdir(tmp_path) == []
