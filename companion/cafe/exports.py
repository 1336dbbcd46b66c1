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
import json
import uuid
from collections.abc import Iterable, Iterator
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


def plays_csv(plays: list[dict], header: bool = True) -> str:
    """One row per player per play (with the header line unless ``header`` is False: the pages of
    an export after its first)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    if header:
        w.writerow(CSV_FIELDS)
    for p in plays:
        minutes = "" if p["duration_s"] is None else f"{p['duration_s'] / 60:.1f}"
        play = [cell(p["id"]), cell(p["table"]), cell(p["game"]), cell(p.get("mode") or ""), cell(p["status"]),
                p["started"] or "", p["ended"] or "", minutes, p["actions"]]
        w.writerows(play + [cell(pl["name"]), seat, "" if pl["score"] is None else cell(pl["score"]),
                            "yes" if pl["winner"] else "no"] for seat, pl in enumerate(p["players"], 1))
    return out.getvalue()


def csv_stream(pages: Iterable[list[dict]]) -> Iterator[str]:
    """:func:`plays_csv` a page at a time: the header, then each page's rows."""
    yield plays_csv([])
    for page in pages:
        yield plays_csv(page, header=False)


class BGStatsFile:
    """A ``.bgsplay`` document built one play at a time: its games and players are numbered as they
    first appear, so a year of plays can be written out as it is read."""

    def __init__(self, location: str = "Café"):
        self.location = location
        self.games: dict[str, int] = {}
        self.players: dict[str, int] = {}
        self.scored: set[str] = set()

    def play(self, p: dict) -> dict | None:
        """The play in BG Stats' format (None unless it is finished)."""
        if p["status"] != "finished":
            return None
        key = game_key(p["game"], p.get("mode"))
        gid = self.games.setdefault(key, len(self.games) + 1)
        scores = []
        for seat, pl in enumerate(p["players"], 1):
            pid = self.players.setdefault(pl["name"], len(self.players) + 1)
            if pl["score"] is not None:
                self.scored.add(key)
            scores.append({"playerRefId": pid, "score": "" if pl["score"] is None else str(pl["score"]),
                           "winner": bool(pl["winner"]), "seatOrder": seat, "startPlayer": seat == 1,
                           "newPlayer": False, "rank": 0})
        return {"uuid": _uuid("play", p["id"]), "gameRefId": gid, "locationRefId": 1,
                "playDate": _local(p["started"]), "durationMin": round((p["duration_s"] or 0) / 60),
                "playerScores": scores, "ignored": False, "manualWinner": False, "rounds": 0,
                "usesTeams": False, "rating": 0, "scoringSetting": 0,
                "comments": f"{self.location}, table {p['table']}"}

    def rest(self) -> dict:
        """The games, players and location the plays so far refer to."""
        # a cooperative mode is its own game in the app, marked cooperative: everyone wins or loses together
        return {
            "games": [{"id": i, "uuid": _uuid("game", g), "name": game_name(g), "noPoints": g not in self.scored,
                       "highestWins": True, "cooperative": cooperative(g), "usesTeams": False}
                      for g, i in self.games.items()],
            "players": [{"id": i, "uuid": _uuid("player", n), "name": n, "isAnonymous": False}
                        for n, i in self.players.items()],
            "locations": [{"id": 1, "uuid": _uuid("location", self.location), "name": self.location}],
        }


def bgstats(plays: list[dict], location: str = "Café") -> dict:
    """Finished plays in BG Stats' import format."""
    doc = BGStatsFile(location)
    out = [x for p in sorted(plays, key=lambda p: p["started"] or "") if (x := doc.play(p)) is not None]
    return {**doc.rest(), "plays": out}


def bgstats_stream(pages: Iterable[list[dict]], location: str = "Café") -> Iterator[str]:
    """:func:`bgstats`'s document written as the pages of plays are read (the same JSON, with the
    plays first and newest first)."""
    doc = BGStatsFile(location)
    yield '{"plays": ['
    first = True
    for page in pages:
        plays = [x for p in page if (x := doc.play(p)) is not None]
        if plays:       # a page's plays in one go (the list's brackets left off)
            yield ("" if first else ",\n") + json.dumps(plays, ensure_ascii=False)[1:-1]
            first = False
    yield "],\n" + json.dumps(doc.rest(), ensure_ascii=False, indent=1)[1:]


def _uuid(kind: str, key: str) -> str:
    return str(uuid.uuid5(_NS, f"{kind}:{key}")).upper()


def _local(iso: str | None) -> str:
    if not iso:
        return ""
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
