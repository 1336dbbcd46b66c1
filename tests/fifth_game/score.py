"""Scoring a table of "Later" (the contract's ``Scorer``): each player's cards laid in time, one point
each; the most points win. A table: ``{"players": [{"name": "Ana", "laid": [1900, 1950]}, ...]}``."""

from __future__ import annotations

from companion.errors import BadInput
from companion.games.explained import ScoreRow, sheet_lines
from companion.i18n import N_


def score_table(table: dict, where: str) -> dict:
    players = table.get("players") if isinstance(table, dict) else None
    if not isinstance(players, list) or not players:
        raise BadInput(f"{where}: players", "a list of players, each with a name and the years laid, is needed")
    entries = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not isinstance(p.get("laid"), list):
            raise BadInput(f"{where}: players[{i}]", "a name and the years laid are needed")
        entries.append({"name": p["name"], "total": len(p["laid"])})
    best = max(e["total"] for e in entries)
    for e in entries:
        e["place"] = 1 + sum(1 for o in entries if o["total"] > e["total"])
    return {"game": "later", "players": entries, "winners": [e["name"] for e in entries if e["total"] == best]}


def table_of(summary: dict) -> dict:
    """The table a finished game leaves: each player's cards laid in time."""
    return {"players": [{"name": p, "laid": years} for p, years in summary["laid"].items()]}


def points_unit(summary: dict) -> str:
    return N_("points")


def explained(summary: dict, entry: dict) -> list[ScoreRow]:
    return [ScoreRow("Cards laid in time", str(entry.get("total")))]


def format_score(result: dict, lang: str = "en") -> str:
    out = []
    for entry in result["players"]:
        out.append(f"{entry['name']}: {entry['total']}, place {entry['place']}")
        out.extend(sheet_lines(explained(result, entry), lang))
    return "\n".join(out)
