"""The plays as files a café hands on: CSV (one row per player per play) and BG Stats' import file.

BG Stats (the score-keeping app by Eerko) imports a ``.bgsplay`` file: one JSON document with
``games``, ``players``, ``locations`` and ``plays`` arrays that refer to each other by numeric ids
(``gameRefId``, ``playerRefId``, ``locationRefId``); each play holds ``playDate``
(``YYYY-MM-DD HH:MM:SS``, local time), ``durationMin`` and ``playerScores`` (score as text, winner,
seat order). Sources: docs/cafe.md. Uuids are derived from the play's key, so importing the same
export twice does not count a play twice in the app.
"""

from __future__ import annotations

import csv
import io
import uuid
from datetime import datetime

from companion.cafe.store import game_key
from companion.i18n import N_, translate
from companion.registry import GAMES

_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/table-companion/companion/cafe")
CSV_FIELDS = ["play", "table", "game", "mode", "status", "started", "ended", "minutes", "actions", "player", "seat",
              "score", "winner"]


MODE_NAMES = {"cooperative": N_("cooperative"), "competitive": N_("competitive")}


def game_name(game: str | None, lang: str = "en") -> str:
    """``Timeline``; a game with its mode (``cronologia:cooperative``, as the figures key it):
    ``Cronología (cooperative)``."""
    base, _, mode = (game or "").partition(":")
    name = GAMES[base].name if base in GAMES else base or "?"
    return f"{name} ({translate(MODE_NAMES.get(mode, mode), lang)})" if mode else name


def cooperative(game: str) -> bool:
    """Whether a game of the figures (``cronologia:cooperative``) is won or lost by the team together, as
    its spec says (``GameSpec.cooperative_modes``)."""
    base, _, mode = game.partition(":")
    return base in GAMES and GAMES[base].cooperative(mode)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A text cell a spreadsheet would take for a formula ('=HYPERLINK(...)', '+cmd|...', '@SUM(...)')
    gets a leading apostrophe, so it shows as the text it is (OWASP's advice for CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def plays_csv(plays: list[dict]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, CSV_FIELDS, lineterminator="\r\n")
    w.writeheader()
    for p in plays:
        minutes = "" if p["duration_s"] is None else f"{p['duration_s'] / 60:.1f}"
        for seat, pl in enumerate(p["players"], 1):
            w.writerow({"play": cell(p["id"]), "table": cell(p["table"]), "game": cell(p["game"]),
                        "mode": cell(p.get("mode") or ""),
                        "status": cell(p["status"]), "started": p["started"] or "", "ended": p["ended"] or "",
                        "minutes": minutes, "actions": p["actions"], "player": cell(pl["name"]), "seat": seat,
                        "score": "" if pl["score"] is None else cell(pl["score"]),
                        "winner": "yes" if pl["winner"] else "no"})
    return out.getvalue()


def bgstats(plays: list[dict], location: str = "Café") -> dict:
    """Finished plays in BG Stats' import format."""
    finished = [p for p in plays if p["status"] == "finished"]
    games: dict[str, int] = {}
    players: dict[str, int] = {}
    out_plays = []
    for p in sorted(finished, key=lambda p: p["started"] or ""):
        gid = games.setdefault(game_key(p["game"], p.get("mode")), len(games) + 1)
        scores = []
        for seat, pl in enumerate(p["players"], 1):
            pid = players.setdefault(pl["name"], len(players) + 1)
            scores.append({"playerRefId": pid, "score": "" if pl["score"] is None else str(pl["score"]),
                           "winner": bool(pl["winner"]), "seatOrder": seat, "startPlayer": seat == 1,
                           "newPlayer": False, "rank": 0})
        out_plays.append({"uuid": _uuid("play", p["id"]), "gameRefId": gid, "locationRefId": 1,
                          "playDate": _local(p["started"]), "durationMin": round((p["duration_s"] or 0) / 60),
                          "playerScores": scores, "ignored": False, "manualWinner": False, "rounds": 0,
                          "usesTeams": False, "rating": 0, "scoringSetting": 0,
                          "comments": f"{location}, table {p['table']}"})
    scored = {game_key(p["game"], p.get("mode")) for p in finished for pl in p["players"] if pl["score"] is not None}
    # a cooperative mode is its own game in the app, marked cooperative: everyone wins or loses together
    return {
        "games": [{"id": i, "uuid": _uuid("game", g), "name": game_name(g), "noPoints": g not in scored,
                   "highestWins": True, "cooperative": cooperative(g), "usesTeams": False}
                  for g, i in games.items()],
        "players": [{"id": i, "uuid": _uuid("player", n), "name": n, "isAnonymous": False} for n, i in players.items()],
        "locations": [{"id": 1, "uuid": _uuid("location", location), "name": location}],
        "plays": out_plays,
    }


def _uuid(kind: str, key: str) -> str:
    return str(uuid.uuid5(_NS, f"{kind}:{key}")).upper()


def _local(iso: str | None) -> str:
    if not iso:
        return ""
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
