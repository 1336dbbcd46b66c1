"""``companion bench engine``: how fast the engines replay long generated games.

Random legal games of every registered game (each ``GameSpec.random_game``) are generated first; then
their logs are replayed from the JSON text, as ``companion replay`` and the kiosk's resume do: parse
each line, check it, apply it. The figure is actions per second, one row per game (per mode:
Cronología's competitive and cooperative games), each judged on its own: the games' actions differ
too much (a Timeline card laid, an Ancient Knowledge turn with its questions) for a sum over them to
mean anything. The reference, measured in the same process on the
same lines, is ``json.loads`` alone, so the ratio says how many JSON parses one verdict costs; the
target is >= 20,000 actions/s in every game, so no verdict ever waits on the engine. The one figure
over all games is therefore the slowest game's: the target is met when it is.
"""

from __future__ import annotations

import json
import random
import time

from companion.errors import BadInput
from companion.registry import GAMES
from companion.store import replay

TARGET = 20_000


def add_arguments(parser) -> None:
    parser.add_argument("--games", type=int, default=60, help="generated games per kind (60)")
    parser.add_argument("--actions", type=int, default=1000, help="at most this many actions per game (1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def _row(label: str, game: str, logs: list[list[str]]) -> dict:
    """One game's (or mode's) logs replayed, and ``json.loads`` alone on the same lines."""
    actions = sum(len(log) - 1 for log in logs)
    t0 = time.perf_counter()
    for log in logs:
        for text in log:
            json.loads(text)
    ref = time.perf_counter() - t0

    t0 = time.perf_counter()
    for log in logs:
        r = replay.start(json.loads(log[0]))
        for n, text in enumerate(log[1:], start=2):
            r = replay.step(r, json.loads(text), f"line {n}")
    took = time.perf_counter() - t0
    return {"row": label, "game": game, "games": len(logs), "actions": actions, "seconds": round(took, 3),
            "actions_per_s": round(actions / took), "json_loads_per_s": round(actions / ref),
            "ratio_to_json_loads": round(took / ref, 1), "target_met": actions / took >= TARGET}


def run(args) -> int:
    if args.games < 1:
        raise BadInput("--games", f"{args.games} is not a number of games: 1 or more")
    rng = random.Random(args.seed)
    rows: list[dict] = []
    for name, spec in GAMES.items():
        random_game = spec.load_random_game()
        generated = [random_game(rng, args.actions) for _ in range(args.games)]
        modes = {str(game[0].get("mode", "")): None for game in generated}     # a game's modes, each a row
        for mode in modes:
            logs = [[json.dumps(line) for line in game] for game in generated if str(game[0].get("mode", "")) == mode]
            rows.append(_row(f"{name} ({mode})" if mode else name, name, logs))
    slowest = min(rows, key=lambda row: row["actions_per_s"])
    met = sum(row["target_met"] for row in rows)
    if args.json:
        print(json.dumps({"bench": "engine", "rows": rows, "target": TARGET, "slowest": slowest["row"],
                          "slowest_actions_per_s": slowest["actions_per_s"], "games_meeting_target": met}))
        return 0
    print("companion bench engine: replaying generated logs (parse + check + apply each line), each game on its own")
    print(f"{'game':<26}{'games':>6}{'actions':>9}{'actions/s':>11}{'json.loads/s':>14}{'x json.loads':>14}"
          f"{'target':>8}")
    for row in rows:
        met_here = "met" if row["target_met"] else "NOT"
        print(f"{row['row']:<26}{row['games']:>6}{row['actions']:>9}{row['actions_per_s']:>11,}"
              f"{row['json_loads_per_s']:>14,}{row['ratio_to_json_loads']:>14}{met_here:>8}")
    print(f"slowest game: {slowest['row']}, {slowest['actions_per_s']:,} actions/s; target >= {TARGET:,} actions/s "
          f"in every game: met by {met} of {len(rows)}")
    return 0
