"""``companion score <game> TABLE.json [--json]``: final scoring of a table as it lies (cli.md).

A game with points has a scorer (the contract's ``Scorer``: ``score_table(table, where) -> dict``, the
``--json`` document, BadInput for a table that breaks a rule, and ``format_score(result, lang) ->
str``, the explained sheet). A game without points (Timeline, Cronología, personal timelines: who
places the last card, or whose row reaches the goal, wins) keeps the contract's ``Ranked`` instead:
``companion score GAME LOG.jsonl`` replays the game log and prints its standings -- each player's
place, what places them, and why the first are first.
"""

from __future__ import annotations

import json

from companion import registry
from companion.errors import BadInput, read_json


def add_arguments(parser) -> None:
    ranked = [g for g in registry.GAMES if g not in registry.scorable()]
    parser.add_argument("game", metavar="GAME", help=f"the game: {', '.join(registry.scorable())} (a table); "
                                                     f"{', '.join(ranked)} (a game log: no points, its standings)")
    parser.add_argument("table", metavar="TABLE.json",
                        help="the table as it lies: every player's cards, one JSON document (its format: "
                             "docs/score-tables.md); for a game without points, its game log (LOG.jsonl)")
    parser.epilog = ("The table's format, for each game, with examples: docs/score-tables.md. A game without points "
                     "is ranked from its game log: each player's place, what places them and why the first won.")
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
    if spec is None:
        ranked = [g for g in registry.GAMES if g not in registry.scorable()]
        raise BadInput(args.game, f"no scoring for this game; scored from a table: {', '.join(registry.scorable())}; "
                                  f"ranked from a game log: {', '.join(ranked)}")
    if spec.scorer is None:
        return _rank(spec, args)
    table = read_table(args.table)
    scorer = spec.load_scorer()
    result = scorer.score_table(table, args.table)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(scorer.format_score(result, args.lang))
    return 0


def _rank(spec, args) -> int:
    """A game without points: the standings of the game its log records."""
    from companion.errors import read_text
    from companion.paths import command
    from companion.store import replay

    text = read_text(args.table, "file")
    if not _is_game_log(text):
        raise BadInput(args.table, f"{spec.name} is not scored from a table: it has no points. Give its game log "
                                   f"(one JSON action a line): {command()} score {spec.id} LOG.jsonl ranks its players "
                                   f"(tables are scored for: {', '.join(registry.scorable())})")
    r = replay.replay_lines(replay.log_lines(text, args.table), args.table, args.lang)
    if r.engine.GAME_ID != spec.id:
        raise BadInput(args.table, f"that is a game log of {registry.spec_for(r.engine.GAME_ID).name}, not of "
                                   f"{spec.name}: {command()} score {r.engine.GAME_ID} {args.table}")
    standings = r.engine.standings(r.state)
    outcome = r.engine.outcome(r.state)
    if args.json:
        print(json.dumps({"game": spec.id, "status": outcome.status, "winners": list(outcome.winners),
                          "players": [{"name": s.player, "place": s.place, "figure": s.figure.render("en")}
                                      for s in standings.places], "why": standings.why.render("en")},
                         ensure_ascii=False))
        return 0
    from companion.i18n import N_, Text
    lang = args.lang
    out = [Text(N_("{game}: standings (a game without points)"), {"game": spec.name}).render(lang)]
    out += [Text(N_("{place}. {player}: {figure}"), {"place": s.place, "player": s.player, "figure": s.figure})
            .render(lang) for s in standings.places]
    out.append(standings.why.render(lang))
    print("\n".join(out))
    return 0
