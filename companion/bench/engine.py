"""``companion bench engine``: how fast the engines replay long generated games.

Random legal games of every registered game (each ``GameSpec.random_game``) are generated first; then
their logs are replayed from the JSON text, as ``companion replay`` and the kiosk's resume do: parse
each line, check it, apply it. The figure is actions per second, one row per game. The reference,
measured in the same process on the same lines, is ``json.loads`` alone, so the ratio says how many
JSON parses one verdict costs; the target is >= 20,000 actions/s, so no verdict ever waits on the
engine.
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


def run(args) -> int:
    if args.games < 1:
        raise BadInput("--games", f"{args.games} is not a number of games: 1 or more")
    rng = random.Random(args.seed)
    rows: list[dict] = []
    for name, spec in GAMES.items():
        random_game = spec.load_random_game()
        logs = [[json.dumps(line) for line in random_game(rng, args.actions)] for _ in range(args.games)]
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
        rows.append({"game": name, "games": len(logs), "actions": actions, "seconds": round(took, 3),
                     "actions_per_s": round(actions / took), "json_loads_per_s": round(actions / ref),
                     "ratio_to_json_loads": round(took / ref, 1)})
    total_actions = sum(row["actions"] for row in rows)
    total_s = sum(row["seconds"] for row in rows)
    overall = round(total_actions / total_s)
    if args.json:
        print(json.dumps({"bench": "engine", "rows": rows, "actions_per_s": overall, "target": TARGET}))
        return 0
    print("companion bench engine: replaying generated logs (parse + check + apply each line)")
    print(f"{'game':<24}{'games':>6}{'actions':>9}{'actions/s':>11}{'json.loads/s':>14}{'x json.loads':>14}")
    for row in rows:
        print(f"{row['game']:<24}{row['games']:>6}{row['actions']:>9}{row['actions_per_s']:>11,}"
              f"{row['json_loads_per_s']:>14,}{row['ratio_to_json_loads']:>14}")
    print(f"overall: {overall:,} actions/s (target >= {TARGET:,}: {'met' if overall >= TARGET else 'NOT met'})")
    return 0
