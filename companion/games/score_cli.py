"""``companion score <game> TABLE.json [--json]``: final scoring of a table as it lies (cli.md).

Each scorable game has a module with ``score_table(table, where) -> dict`` (the ``--json``
document, BadInput for a table that breaks a rule) and ``format_score(result, lang) -> str`` (the
explained sheet).
"""

from __future__ import annotations

import json

from companion import registry
from companion.errors import BadInput, read_json


def add_arguments(parser) -> None:
    parser.add_argument("game", metavar="GAME", help=f"the game: {', '.join(registry.scorable())}")
    parser.add_argument("table", metavar="TABLE.json",
                        help="the table as it lies: every player's cards, one JSON document (its format: "
                             "docs/score-tables.md)")
    parser.epilog = "The table's format, for each game, with examples: docs/score-tables.md."
    parser.add_argument("--json", action="store_true", help="print the score as one JSON document")
    parser.add_argument("--lang", choices=("en", "es"), default="en", help="language of the text sheet")


def read_table(path: str):
    """The JSON document of a table file; BadInput names the file (and the line of a JSON error). A
    game log (JSON Lines: one action a line) is said to be that, with the command that reads it."""
    from companion.errors import read_text
    try:
        return read_json(path, "file")
    except BadInput:
        if _is_game_log(read_text(path, "file")):
            from companion.paths import command
            raise BadInput(path, f"that is a game log (one JSON action a line), not a table: "
                                 f"{command()} replay {path} plays it to its end") from None
        raise


def _is_game_log(text: str) -> bool:
    """Two or more lines, each a JSON object, the first a setup line."""
    import json
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        first = json.loads(lines[0])
        second = json.loads(lines[1])
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("type") == "setup" and isinstance(second, dict)


def run(args) -> int:
    spec = registry.GAMES.get(args.game.lower())
    if spec is not None and spec.scorer is None:
        from companion.paths import command
        # a game scored as it is played (who places the last card wins): its log says the result
        raise BadInput(args.game, f"{spec.name} is not scored from a table: its game log says who won, with "
                                  f"{command()} replay LOG.jsonl (tables are scored for: "
                                  f"{', '.join(registry.scorable())})")
    if spec is None:
        raise BadInput(args.game, f"no scoring for this game; scorable games: {', '.join(registry.scorable())}")
    table = read_table(args.table)
    scorer = spec.load_scorer()
    result = scorer.score_table(table, args.table)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(scorer.format_score(result, args.lang))
    return 0
