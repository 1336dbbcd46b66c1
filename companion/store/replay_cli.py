"""``companion replay LOG.jsonl [--json]``: replay a game log and print the state it ends in (cli.md).

The first line is the setup, each other line one action (an ``{"type": "undo"}`` line takes the newest
action back, as the kiosk's UNDO does). A line that is malformed or breaks the rules exits 2 with one
line naming the file and line: ``game.jsonl: line 7: it is B's turn, not A's``.
"""

from __future__ import annotations

import json

from companion.errors import BadInput, read_text
from companion.games.base import Summary
from companion.i18n import N_
from companion.store import replay


def add_arguments(parser) -> None:
    parser.add_argument("log", metavar="LOG.jsonl", help="the game log: the setup line, then one action per line "
                                                         "(format: docs/log-format.md)")
    parser.add_argument("--json", action="store_true", help="print the resulting state as one JSON document")
    parser.add_argument("--lang", choices=("en", "es"), default="en",
                        help="language of the text output and of a refused line's reason")


def read_lines(path: str) -> list[tuple[int, object]]:
    """(line number, parsed JSON) for each non-blank line; BadInput names the file and line. A table
    (one JSON document of the cards as they lie, without a "type") is said to be that, with the
    command that scores it."""
    text = read_text(path, "file")
    _not_a_table(text, path)
    return replay.log_lines(text, path)


def _not_a_table(text: str, path: str) -> None:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return          # not one JSON document: read line by line, where a bad line is named
    if not isinstance(doc, dict) or "type" in doc:
        return
    players = doc.get("players")
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        return          # a setup line names its players; a table lists each one's cards
    from companion import registry
    from companion.paths import command
    scores = []
    for game in registry.scorable():       # the games whose table this is: their scorers take it
        try:
            registry.spec_for(game).load_scorer().score_table(doc, path)
        except Exception:       # only asking which game's table this is; `companion score` says what is wrong
            continue
        scores.append(game)
    games = "|".join(scores or registry.scorable())
    raise BadInput(path, f"that is a table (the cards as they lie, one JSON document), not a game log: "
                         f"{command()} score {games} {path} scores it")


def replay_file(path: str, lang: str = "en") -> replay.Replayed:
    return replay.replay_lines(read_lines(path), path, lang)


def run(args) -> int:
    r = replay_file(args.log, args.lang)
    summary = r.engine.summary(r.state)
    if r.from_decks:         # an older log (or one written by hand): its sticker codes mean what the decks say now
        summary = summary.copy()
        summary["cards_from_decks"] = r.from_decks
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(format_summary(summary, args.lang, cards_on_table(r, summary)))
    return 0


def cards_on_table(r: replay.Replayed, summary: Summary):
    """The cards whose dates the text names: the cooperative grid and its gap rows, or a row game's row
    (None for other games). The summary holds years only; the cards know how their face writes them."""
    if "grid" in summary and hasattr(r.engine, "table"):
        t = r.engine.table(r.state)
        return t.rows, t.gaps
    if "timeline" in summary:
        return list(r.engine.cards_on_table(r.state))
    return None


def format_summary(s: Summary, lang: str = "en", cards=None) -> str:
    """The text of ``companion replay``. ``cards`` (from :func:`cards_on_table`) lets dates read as the
    printed cards write them ("c. 300,000 BC", Spanish "h. 300 000 a. C."); without them, from the years."""
    from companion.games.base import winners
    from companion.games.explained import sheet_lines
    from companion.i18n import N_, Text
    from companion.registry import GAMES
    from companion.words import Words, date_words

    def t(msgid, **params):
        return Text(msgid, params).render(lang)

    game = str(s.get("game"))
    spec = GAMES.get(game)
    title = spec.name if spec else game
    if s.get("mode"):
        mode = _MODES.get(s["mode"])
        title += f" ({t(mode) if mode else s['mode']})"
    status = s.get("status")
    won = winners(s)
    if status == "finished" and len(won) == 1 and isinstance(s.get("round"), int):
        head = t(N_("{game}: finished, {winner} won in round {round}"), game=title, winner=won[0], round=s["round"])
    elif status == "finished" and len(won) == 1:
        head = t(N_("{game}: finished, {winner} won"), game=title, winner=won[0])
    elif status == "finished" and won:
        head = t(N_("{game}: finished, {winners} share the win"), game=title, winners=", ".join(won))
    elif status == "finished":
        head = t(N_("{game}: finished"), game=title)
    elif status == "lost":
        head = t(N_("{game}: lost (the team is beaten)"), game=title)
    else:
        head = t(N_("{game}: in progress, {player} to play"), game=title, player=s.get("turn") or "?")
    out = [head]
    if s.get("sudden_death"):
        out.append(t(N_("Sudden death")))
    def date(card_or_year) -> str:
        if card_or_year is None:
            return "·"
        if isinstance(card_or_year, int):
            return date_words(card_or_year, lang)
        return card_or_year.date(lang)

    if "timeline" in s:
        row = cards if isinstance(cards, list) and len(cards) == len(s["timeline"]) else s["timeline"]
        out.append(t(N_("Row: {years}"), years=" · ".join(date(c) for c in row)))
    if isinstance(s.get("hands"), dict):
        out.append(t(N_("Cards in hand: {hands}"), hands=", ".join(f"{k} {v}" for k, v in s["hands"].items())))
    if s.get("eliminated"):
        out.append(t(N_("Eliminated: {players}"), players=", ".join(s["eliminated"])))
    if "score" in s:
        out.append(t(N_("Score pile: {score} cards; lives: {lives}"), score=s["score"], lives=s.get("lives")))
    if "grid" in s:
        grid, gap_rows = (cards if isinstance(cards, tuple) else (s["grid"], s["gaps"]))
        lines = [[date(c) for c in row] for pair in zip(grid, list(gap_rows) + [None], strict=True)
                 for row in pair if row is not None]
        width = max((len(d) for line in lines for d in line), default=1)
        out.extend("  " + " ".join(f"{d:>{width}}" for d in line) for line in lines)
    scorer = spec.load_scorer() if spec is not None and spec.scorer else None
    # the unit as `companion score` and the kiosk write it: fame points, victory points
    unit = Text(scorer.points_unit(s) if scorer is not None else N_("points"))
    for entry in s.get("scores") or []:
        out.append(Words(N_("{player}: {total} {unit}, place {place}"),
                         {"player": entry.get("name"), "total": entry.get("total"), "unit": unit,
                          "place": entry.get("place")}).render(lang))
        if scorer is not None:          # the same explained figures as the kiosk's sheet and `companion score`
            out.extend(sheet_lines(scorer.explained(s, entry), lang))
    for key, label in _MORE.items():
        value = s.get(key)
        if value not in (None, False):
            out.append(t(label, value=value))
    engine = spec.load_engine() if spec is not None else None
    if engine is not None and hasattr(engine, "summary_words"):    # the game's own words (the contract's optional part)
        out.extend(w.render(lang) for w in engine.summary_words(s))
    end = s.get("end_reason")
    if end is not None and end in _ENDS:
        out.append(t(_ENDS[end]))
    if s.get("cards_from_decks"):
        out.append(t(N_("The log records no facts of {cards}: read from today's decks, which may have changed "
                        "since the game was played."), cards=", ".join(s["cards_from_decks"])))
    return "\n".join(out)          # the rest is in --json


_MODES = {"competitive": N_("competitive"), "cooperative": N_("cooperative")}
# What else a summary may say, in words, whatever its game (a key not listed here is only in --json; a
# game's own keys are its engine's summary_words).
_MORE = {
    "box": N_("Cards back in the box: {value}"),
    "discard": N_("Cards on the discard pile: {value}"),
    "columns_scored": N_("Columns scored: {value}"),
    "stock": N_("Cards left to draw: {value}"),
    "secret_decade_variant": N_("Variant: Secret Decade"),
}
_ENDS = {
    "all_finished": N_("It ended when every player had finished their exhibition."),
    "no_cards": N_("It ended when the cards ran out."),
    "deck": N_("It ended when the deck ran out."),
    "lives": N_("It ended when the team lost its last life."),
    "no_union_events": N_("It ended when no union event was left to place."),
}
