"""The arena: ratings, openings, the command line, partial results on Ctrl-C."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from checkers_env.core import BLACK, WHITE, Board
from checkers_env.core.pdn import read_pdn
from train import evaluate
from train.arena.openings import american_three_move, ballot, random_openings
from train.arena.ratings import elo_from_score, fit_elo, match_stats, score_interval, wilson


def test_wilson_matches_the_textbook_value():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_score_interval_and_elo():
    lo, hi = score_interval(10, 0, 0)
    assert hi == pytest.approx(1.0) and 0.6 < lo < 0.8
    assert elo_from_score(0.5, 10) == 0.0
    assert elo_from_score(0.75, 100) == pytest.approx(190.85, abs=0.01)
    assert math.isfinite(elo_from_score(1.0, 10))
    stats = match_stats(6, 2, 2)
    assert stats.score == 0.7 and stats.elo_ci[0] < stats.elo < stats.elo_ci[1]


def test_fit_elo_recovers_known_ratings():
    rng = np.random.default_rng(0)
    truth = np.array([0.0, 200.0, -150.0, 400.0])
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
            n = 4000
            results.append((i, j, float(rng.binomial(n, p)), n))
    ratings, half = fit_elo(4, results)
    assert ratings[0] == 0.0 and half[0] == 0.0
    assert np.all(np.abs(ratings - truth) < 3 * half + 1e-9)
    assert np.all(half[1:] < 20)


def test_acf_ballot_is_legal_and_reproducible():
    deck = american_three_move()
    assert len(deck) == 157
    assert len({o.moves for o in deck}) == 157
    for opening in deck:
        board = opening.board("american")
        assert len(board.move_stack) == 3 and board.outcome() is None
    assert ballot("american", 10, seed=1) == ballot("american", 10, seed=1)
    assert ballot("american", 10, seed=1) != ballot("american", 10, seed=2)


def test_random_openings_are_distinct_and_reproducible():
    ops = random_openings("international", 30, seed=3)
    assert len(ops) == 30
    fens = {o.board("international").fen() for o in ops}
    assert len(fens) == 30
    assert all(len(o.moves) in (2, 3) for o in ops)
    assert ops == random_openings("international", 30, seed=3)


def test_match_cli_writes_json_pdn_and_plot(tmp_path, capsys):
    out = tmp_path / "m.json"
    pdn = tmp_path / "m.pdn"
    png = tmp_path / "m.png"
    argv = ["--variant", "american", "--a", "minimax:2", "--b", "random", "--games", "4", "--seed", "3"]
    argv += ["--workers", "1", "--quiet", "--json", str(out), "--pdn", str(pdn), "--plot", str(png)]
    assert evaluate.main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["games"] == 4 and doc["wins"] + doc["draws"] + doc["losses"] == 4
    assert doc["score"] == (doc["wins"] + 0.5 * doc["draws"]) / 4
    assert len(doc["elo_ci"]) == 2 and doc["elo_ci"][0] <= doc["elo"] <= doc["elo_ci"][1]
    assert doc["wins"] >= 3
    games = read_pdn(pdn.read_text())
    assert len(games) == 4
    colours = [r["a_colour"] for r in doc["game_records"]]
    assert colours == ["black", "white", "black", "white"]  # pairs with colours reversed
    for game, record in zip(games, doc["game_records"]):
        board = game.replay("american")
        assert board.result() == record["result"]
        assert [str(m) for m in board.move_stack[:3]] == list(_opening_moves(record["opening"]))
        assert record["plies"] == len(board.move_stack)
        for side, colour in (("a", record["a_colour"]), ("b", "white" if record["a_colour"] == "black" else "black")):
            c = next(c for c in (BLACK, WHITE) if c.name.lower() == colour)
            assert record["pieces"][side] == [len(board.pieces(c, kings=False)), len(board.pieces(c, kings=True))]
    ended = doc["endings"]
    for key in ("wins", "draws", "losses"):
        mine = [r for r in doc["game_records"] if r["score"] == {"wins": 1.0, "draws": 0.5, "losses": 0.0}[key]]
        assert ended[key]["games"] == doc[key] == len(mine)
        assert sum(ended[key]["terminations"].values()) == doc[key]
        if mine:
            assert ended[key]["median_plies"] == float(np.median([r["plies"] for r in mine]))
    won = [r for r in doc["game_records"] if r["score"] == 1.0]
    assert ended["wins"]["terminations"] == {"no legal moves": len(won)}
    # a won game ends with the loser unable to move: here, against random, with A ahead on the board
    assert ended["wins"]["median_piece_margin"] > 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    printed = capsys.readouterr().out
    assert "Elo A-B" in printed and "A wins   ended after" in printed
    # the same seed replays the same games
    out2 = tmp_path / "m2.json"
    assert evaluate.main(argv[:-6] + ["--json", str(out2)]) == 0
    assert json.loads(out2.read_text())["game_records"] == doc["game_records"]


def _opening_moves(name):
    return next(o.moves for o in american_three_move() if o.name == name)


def test_round_robin_fits_an_elo_table(tmp_path):
    out = tmp_path / "rr.json"
    argv = ["--variant", "czech", "--agents", "random", "minimax:1", "minimax:2", "--games", "2", "--seed", "0"]
    assert (
        evaluate.main(argv + ["--workers", "1", "--quiet", "--json", str(out), "--plot", str(tmp_path / "rr.png")]) == 0
    )
    doc = json.loads(out.read_text())
    assert [r["agent"] for r in doc["elo_table"]] == ["random", "minimax:1", "minimax:2"]
    assert len(doc["pairings"]) == 3 and all(p["games"] == 2 for p in doc["pairings"])
    assert doc["elo_table"][0]["elo"] == 0.0


def test_parallel_workers_give_the_same_games(tmp_path):
    argv = ["--variant", "italian", "--a", "minimax:2", "--b", "minimax:1", "--games", "2", "--seed", "5", "--quiet"]
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    assert evaluate.main(argv + ["--workers", "1", "--json", str(one)]) == 0
    assert evaluate.main(argv + ["--workers", "2", "--json", str(two)]) == 0
    assert json.loads(one.read_text())["game_records"] == json.loads(two.read_text())["game_records"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "nope", "--a", "random", "--b", "random"], "unknown variant"),
        (["--a", "minimax:x", "--b", "random"], "minimax"),
        (["--a", "alphabeta", "--b", "random"], "unknown agent spec"),
        (["--a", "missing/best.pt", "--b", "random"], "not found"),
        (["--a", "random"], "both agents"),
        (["--a", "random", "--b", "random", "--games", "0"], "--games"),
    ],
)
def test_bad_input_exits_non_zero(argv, message, capsys):
    assert evaluate.main(argv + ["--quiet", "--workers", "1"]) == 2
    assert message in capsys.readouterr().err


def test_interrupted_match_keeps_finished_games(tmp_path, monkeypatch):
    real = evaluate.play_game
    calls = []

    def interrupting(job, variant, max_plies):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(job.index)
        return real(job, variant, max_plies)

    monkeypatch.setattr(evaluate, "play_game", interrupting)
    out, pdn = tmp_path / "p.json", tmp_path / "p.pdn"
    argv = ["--a", "random", "--b", "minimax:1", "--games", "10", "--workers", "1", "--quiet"]
    assert evaluate.main(argv + ["--json", str(out), "--pdn", str(pdn)]) == 130
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and doc["games"] == 3
    assert len(read_pdn(pdn.read_text())) == 3


def test_max_plies_adjudicates_a_draw():
    job = evaluate._jobs(["random", "random"], "american", 1, 0)[0]
    record = evaluate.play_game(job, "american", max_plies=6)
    # the cap counts the moves played after the balloted opening
    assert record["score"] == 0.5 and record["plies"] == 6 + len(job.opening.moves)
    assert "cap of 6 moves" in record["termination"]
    assert Board("american").turn.name.lower() == record["a_colour"]


def test_a_match_document_says_how_its_games_ended():
    from agents import make_agent
    from train.arena import evaluate as arena_evaluate
    from train.arena import game_ending

    doc, games = arena_evaluate("american", make_agent("minimax:2", "american", 0), "random", 6, seed=1, max_moves=40)
    ended = doc["endings"]
    assert [ended[k]["games"] for k in ("wins", "draws", "losses")] == [doc["wins"], doc["draws"], doc["losses"]]
    for game in games:
        record = game_ending(game)
        a, b = game.a_colour, game.a_colour.other
        assert record["pieces"]["a"] == [len(game.board.pieces(a, kings=False)), len(game.board.pieces(a, kings=True))]
        assert record["pieces"]["b"] == [len(game.board.pieces(b, kings=False)), len(game.board.pieces(b, kings=True))]
        assert record["plies"] == len(game.board.move_stack) and record["score"] == game.score
        # the margins ply by ply, replayed from the start position
        replay, margins = Board("american"), []
        for move in [None, *game.board.move_stack]:
            if move is not None:
                replay.push(move)
            margins.append(len(replay.pieces(a)) - len(replay.pieces(b)))
        for key, decisive in (("behind_from", lambda m: m <= -2), ("ahead_from", lambda m: m >= 2)):
            start = record[key]
            if start is None:
                assert not decisive(margins[-1])
            else:
                assert all(decisive(m) for m in margins[start:]) and (start == 0 or not decisive(margins[start - 1]))
    # minimax:2 against random in 40 moves past the opening: some wiped out, the others drawn by the cap
    won = [g for g in games if g.score == 1.0]
    drawn = [g for g in games if g.score == 0.5]
    assert won and drawn and len(won) + len(drawn) == 6
    assert ended["wins"]["terminations"] == {"no legal moves": len(won)}
    assert ended["draws"]["terminations"] == {"draw by the cap of 40 moves": len(drawn)}
    assert ended["draws"]["median_plies"] == float(np.median([len(g.board.move_stack) for g in drawn]))
    margins = [sum(game_ending(g)["pieces"]["a"]) - sum(game_ending(g)["pieces"]["b"]) for g in drawn]
    assert ended["draws"]["median_piece_margin"] == float(np.median(margins)) > 0
    ahead = [game_ending(g)["ahead_from"] for g in won]
    assert None not in ahead  # each win a wipe-out with pieces to spare
    assert ended["wins"]["ahead_for_good"] == {"games": len(won), "median_from": float(np.median(ahead))}
    assert ended["wins"]["behind_for_good"] == {"games": 0, "median_from": None}
    assert ended["losses"] == {"games": 0, "median_plies": None, "terminations": {}, "median_piece_margin": None,
                               "behind_for_good": {"games": 0, "median_from": None},
                               "ahead_for_good": {"games": 0, "median_from": None}}  # fmt: skip


def test_output_files_go_into_folders_made_before_the_match(tmp_path, capsys):
    out = tmp_path / "new" / "deeper" / "games.pdn"
    argv = ["--a", "random", "--b", "random", "--games", "2", "--workers", "1", "--quiet"]
    assert evaluate.main(argv + ["--pdn", str(out)]) == 0
    assert len(read_pdn(out.read_text())) == 2
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert evaluate.main(argv + ["--json", str(blocked / "x.json")]) == 2
    assert "--json" in capsys.readouterr().err


def test_paired_with_scores_a_match_against_an_earlier_one_game_by_game(tmp_path, capsys):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    common = ["--variant", "american", "--b", "minimax:1", "--games", "4", "--seed", "3", "--workers", "1", "--quiet"]
    assert evaluate.main(["--a", "random"] + common + ["--json", str(first)]) == 0
    argv = ["--a", "minimax:2"] + common + ["--json", str(second), "--paired-with", str(first)]
    assert evaluate.main(argv) == 0
    before = [r["score"] for r in json.loads(first.read_text())["game_records"]]
    doc = json.loads(second.read_text())
    after = [r["score"] for r in doc["game_records"]]
    paired = doc["paired_with"]
    assert paired["games"] == 4 and paired["path"] == str(first)
    assert paired["mean"] == pytest.approx(np.mean(np.subtract(after, before)))
    assert paired["better"] == sum(a > b for a, b in zip(after, before))
    assert paired["worse"] == sum(a < b for a, b in zip(after, before))
    assert paired["ci"][0] <= paired["mean"] <= paired["ci"][1]
    assert "A's score minus that match's" in capsys.readouterr().out


def test_paired_with_reads_a_benchmark_file(tmp_path):
    bench = tmp_path / "benchmark.json"
    row = {"variant": "american", "opponent": "minimax:1", "games": 2, "openings_seed": 4, "max_plies": 200}
    row["game_scores"] = [0.0, 0.0]
    other = dict(row, opponent="minimax:2", game_scores=[1.0, 1.0])
    bench.write_text(json.dumps({"results": [other, row]}))
    assert evaluate.earlier_scores(str(bench), "american", 4, 2, "minimax:1", 200) == [0.0, 0.0]
    assert evaluate.earlier_scores(str(bench), "american", 4, 2, "minimax:2", 200) == [1.0, 1.0]
    with pytest.raises(
        ValueError, match="--seed 4, --max-plies 200, B = minimax:1; this match is american, 2 games, --seed 5"
    ):
        evaluate.earlier_scores(str(bench), "american", 5, 2, "minimax:1", 200)
    with pytest.raises(
        ValueError, match="--max-plies 200, B = minimax:1; this match is american, 2 games, --seed 4, --max-plies 400"
    ):
        evaluate.earlier_scores(str(bench), "american", 4, 2, "minimax:1", 400)
    with pytest.raises(ValueError, match="no games of russian against minimax:1"):
        evaluate.earlier_scores(str(bench), "russian", 4, 2, "minimax:1", 200)
    del row["openings_seed"]
    bench.write_text(json.dumps({"results": [row]}))
    with pytest.raises(ValueError, match="before benchmarks recorded"):
        evaluate.earlier_scores(str(bench), "american", 4, 2, "minimax:1", 200)


@pytest.mark.parametrize(
    "change, message",
    [
        (["--seed", "4"], "--seed 3, --max-plies 200, B = minimax:1; this match is american, 2 games, --seed 4,"),
        (
            ["--b", "minimax:2"],
            "B = minimax:1; this match is american, 2 games, --seed 3, --max-plies 200, B = minimax:2",
        ),
        (
            ["--max-plies", "400"],
            "--max-plies 200, B = minimax:1; this match is american, 2 games, --seed 3, --max-plies 400",
        ),
        (["--games", "4"], "played american, 2 games"),
        (["--variant", "russian"], "played american"),
    ],
)
def test_paired_with_refuses_a_match_on_other_games(tmp_path, capsys, change, message):
    first = tmp_path / "first.json"
    base = {"--variant": "american", "--b": "minimax:1", "--games": "2", "--seed": "3"}
    argv = [x for kv in base.items() for x in kv] + ["--a", "random", "--workers", "1", "--quiet"]
    assert evaluate.main(argv + ["--json", str(first)]) == 0
    changed = dict(base, **dict(zip(change[::2], change[1::2])))
    argv = [x for kv in changed.items() for x in kv] + ["--a", "random", "--workers", "1", "--quiet"]
    capsys.readouterr()
    assert evaluate.main(argv + ["--paired-with", str(first)]) == 2
    assert message in capsys.readouterr().err


def test_paired_with_refuses_what_it_cannot_pair(tmp_path, capsys):
    argv = ["--a", "random", "--b", "minimax:1", "--games", "2", "--workers", "1", "--quiet", "--paired-with"]
    assert evaluate.main(argv + [str(tmp_path / "missing.json")]) == 2
    assert "cannot read it" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{not json")
    assert evaluate.main(argv + [str(tmp_path / "bad.json")]) == 2
    assert "not JSON" in capsys.readouterr().err
    (tmp_path / "other.json").write_text('{"x": 1}')
    assert evaluate.main(argv + [str(tmp_path / "other.json")]) == 2
    assert "neither a train.evaluate nor a train.benchmark" in capsys.readouterr().err
    robin = ["--agents", "random", "minimax:1", "minimax:2", "--games", "2", "--workers", "1", "--quiet"]
    assert evaluate.main(robin + ["--paired-with", str(tmp_path / "other.json")]) == 2
    assert "not a round robin" in capsys.readouterr().err
    interrupted = {"game_records": [{"index": 0, "score": 1.0}], "games_per_pairing": 2, "interrupted": True}
    (tmp_path / "cut.json").write_text(json.dumps(interrupted))
    assert evaluate.main(argv + [str(tmp_path / "cut.json")]) == 2
    assert "interrupted match" in capsys.readouterr().err
