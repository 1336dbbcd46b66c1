"""``companion replay LOG.jsonl [--json]``: replay a game log and print the state it ends in (cli.md).

The first line is the setup, each other line one action (an ``{"type": "undo"}`` line takes the newest
action back, as the kiosk's UNDO does). A line that is malformed or breaks the rules exits 2 with one
line naming the file and line: ``game.jsonl: line 7: it is B's turn, not A's``.
"""

from __future__ import annotations

import json

from companion.errors import BadInput, parse_json, read_text
from companion.store import replay


def add_arguments(parser) -> None:
    parser.add_argument("log", metavar="LOG.jsonl", help="the game log: the setup line, then one action per line "
                                                         "(format: docs/log-format.md)")
    parser.add_argument("--json", action="store_true", help="print the resulting state as one JSON document")
    parser.add_argument("--lang", choices=("en", "es"), default="en",
                        help="language of the text output and of a refused line's reason")


def read_lines(path: str) -> list[tuple[int, object]]:
    """(line number, parsed JSON) for each non-blank line; BadInput names the file and line."""
    text = read_text(path, "file")
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out.append((n, parse_json(raw, f"{path}: line {n}")))
        except json.JSONDecodeError as e:
            raise BadInput(f"{path}: line {n}", f"malformed JSON at column {e.colno}: {e.msg}") from None
    if not out:
        raise BadInput(path, "the log is empty; its first line must be the setup")
    return out


def replay_file(path: str, lang: str = "en") -> replay.Replayed:
    lines = read_lines(path)
    n, first = lines[0]
    r = replay.start(first, f"{path}: line {n}")
    for n, line in lines[1:]:
        r = replay.step(r, line, f"{path}: line {n}", lang)
    return r


def run(args) -> int:
    r = replay_file(args.log, args.lang)
    summary = r.engine.summary(r.state)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(format_summary(summary, args.lang))
    return 0


def format_summary(s: dict, lang: str = "en") -> str:
    from companion.i18n import N_, Text

    def t(msgid, **params):
        return Text(msgid, params).render(lang)

    names = {"timeline": "Timeline", "cronologia": "Cronología", "exhibition": "Exhibition",
             "ancient-knowledge": "Ancient Knowledge"}
    title = names.get(s.get("game"), str(s.get("game")))
    if s.get("mode"):
        title += f" ({s['mode']})"
    status = s.get("status")
    if status == "finished" and s.get("winner"):
        head = t(N_("{game}: finished, {winner} won in round {round}"), game=title, winner=s["winner"],
                 round=s.get("round", "?"))
    elif status == "finished":
        head = t(N_("{game}: finished"), game=title)
    elif status == "lost":
        head = t(N_("{game}: lost (the team is beaten)"), game=title)
    else:
        head = t(N_("{game}: in progress, {player} to play"), game=title, player=s.get("turn") or "?")
    out = [head]
    if s.get("sudden_death"):
        out.append(t(N_("Sudden death")))
    if "timeline" in s:
        out.append(t(N_("Row: {years}"), years=" ".join(map(str, s["timeline"]))))
    if isinstance(s.get("hands"), dict):
        out.append(t(N_("Cards in hand: {hands}"), hands=", ".join(f"{k} {v}" for k, v in s["hands"].items())))
    if s.get("eliminated"):
        out.append(t(N_("Eliminated: {players}"), players=", ".join(s["eliminated"])))
    if "score" in s:
        out.append(t(N_("Score pile: {score} cards; lives: {lives}"), score=s["score"], lives=s.get("lives")))
    if "grid" in s:
        for row, gaps in zip(s["grid"], s["gaps"] + [None]):
            out.append("  " + " ".join(f"{y if y is not None else '·':>6}" for y in row))
            if gaps is not None:
                out.append("  " + " ".join(f"{y if y is not None else '·':>6}" for y in gaps))
    for entry in s.get("scores") or []:
        parts = ", ".join(f"{k} {v:+d}" if isinstance(v, int) and v < 0 else f"{k} {v}"
                          for k, v in entry.get("breakdown", {}).items())
        out.append(t(N_("{player}: {total} points, place {place} ({parts})"), player=entry.get("name"),
                     total=entry.get("total"), place=entry.get("place"), parts=parts))
    shown = {"game", "mode", "status", "winner", "round", "turn", "sudden_death", "timeline", "hands", "eliminated",
             "score", "lives", "grid", "gaps", "scores"}
    for key in sorted(set(s) - shown):
        if s[key] not in (None, False) and not isinstance(s[key], (dict, list)):
            out.append(f"{key}: {s[key]}")      # the rest is in --json
    return "\n".join(out)
