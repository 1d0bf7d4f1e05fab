"""Memory of the play server: resident size of a fresh server before and after creating many games.

    python benchmarks/play_memory.py [--games 100] [--opponent minimax:4]

Starts ``python -m play`` on a free port in a child process, plays one game's
first move so that the compiled search and the shared search tables are
loaded, reads the server's resident set size (``VmRSS`` in
``/proc/PID/status``, Linux), creates ``--games`` games through the HTTP API
with the user taking the second colour (so the computer searches its first
move in every game, the worst case) over all eight variants, and reads it
again. Prints both figures and the growth per game. Target: 100 idle games
within 200 MB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("american", "russian", "brazilian", "spanish", "italian", "czech", "international", "pool")
SECOND = {"american": "white", "pool": "white"}  # the colour that moves second; black elsewhere


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def measure(games: int = 100, opponent: str = "minimax:4", move_time: float = 0.2) -> dict:
    """``{"before_mb", "after_mb", "growth_mb", "per_game_kb", "games"}`` of a fresh server process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "play", "--port", "0", "--move-time", str(move_time)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline()
        if not line.startswith("Playing checkers at "):
            raise RuntimeError(f"the server did not start: {line!r}")
        base = line.split()[3].rstrip("/")
        for variant in VARIANTS:  # load every kernel and fill a search table once
            game = post(
                f"{base}/api/games",
                {"variant": variant, "opponent": opponent, "color": SECOND.get(variant, "black"), "seed": 0},
            )
            move = game["legal_moves"][0]
            post(
                f"{base}/api/games/{game['id']}/move",
                {"move": move["text"], "ply": game.get("ply", len(game["moves"]))},
            )
        time.sleep(0.5)
        before = rss_mb(process.pid)
        for i in range(games):
            variant = VARIANTS[i % len(VARIANTS)]
            post(
                f"{base}/api/games",
                {"variant": variant, "opponent": opponent, "color": SECOND.get(variant, "black"), "seed": i},
            )
        after = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)
    return {
        "games": games,
        "before_mb": round(before, 1),
        "after_mb": round(after, 1),
        "growth_mb": round(after - before, 1),
        "per_game_kb": round((after - before) * 1024 / games, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--opponent", default="minimax:4")
    args = parser.parse_args()
    result = measure(args.games, args.opponent)
    print(
        f"{result['games']} games ({args.opponent}): server RSS {result['before_mb']} MB -> {result['after_mb']} MB, "
        f"+{result['growth_mb']} MB, {result['per_game_kb']} KB a game"
    )


if __name__ == "__main__":
    main()
