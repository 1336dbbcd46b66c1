"""Ancient Knowledge final scoring (rules §7) and the ``companion score ancient-knowledge`` document.

``score_table(table, where)`` turns the cli.md table into the cli.md ``--json`` document;
``format_score(result)`` explains it as a text sheet. The engine scores a finished game with the
same functions (``score_holdings``), so the kiosk and the command line can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import BadInput, json_path, present
from companion.games.ancient_knowledge.catalog import MONUMENT_KINDS, TECH_TYPES, Catalog, catalog
from companion.games.ancient_knowledge.words import formula_words
from companion.games.base import Summary
from companion.games.explained import ScoreRow, sheet_lines
from companion.i18n import N_, NP_, Literal, Text, plural
from companion.words import Words

GAME_ID = "ancient-knowledge"
MAX_PLAYERS = 4  # decision A8 (a table of 1 may be scored alone, e.g. to check a sheet)


@dataclass(frozen=True)
class Holdings:
    """What one player has that scoring and requirements look at."""

    name: str
    past: tuple[str, ...]
    timeline: tuple[str, ...]
    techs: tuple[str, ...]
    lost_knowledge: int
    artifacts: tuple[str, ...] = ()
    hand: int = 0


def counts(h: Holdings, cat: Catalog | None = None) -> dict[str, int]:
    """The counts of the formula grammar for one player's state."""
    cat = cat or catalog()
    past = [cat.builders[c] for c in h.past]
    techs = [cat.techs[t] for t in h.techs]
    out = {f"past.{k}": sum(1 for b in past if b.kind == k) for k in MONUMENT_KINDS}
    out["past.any"] = len(past)
    out["past.endgame"] = sum(1 for b in past if b.activation == "endgame")
    out.update({f"techs.{k}": sum(1 for t in techs if t.type == k) for k in TECH_TYPES})
    out["techs.any"] = len(techs)
    out["artifacts"] = len(h.artifacts)
    out["lost_knowledge"] = h.lost_knowledge
    out["timeline.any"] = len(h.timeline)
    out["hand"] = h.hand
    return out


def score_holdings(h: Holdings, cat: Catalog | None = None) -> dict:
    """One player's entry of the score document (without ``place``)."""
    cat = cat or catalog()
    c = counts(h, cat)
    past = [cat.builders[x] for x in h.past]
    endgame: list[dict] = []
    for b in past:
        if b.endgame is not None:
            used = {name: c[name] for name in b.endgame.counts_used()}
            endgame.append({"card": b.id, "name": b.name, "formula": b.endgame.text, "counts": used,
                            "points": b.endgame.value(c)})
    level2 = [cat.techs[t] for t in h.techs if cat.techs[t].level == 2]
    breakdown = {
        "past_vp": sum(present(b.vp, f"the VP of {b.name}") for b in past),     # the Past holds monuments
        "endgame_effects": sum(e["points"] for e in endgame),
        "techs": sum(t.vp for t in level2),
        "timeline": len(h.timeline),
        "lost_knowledge": -h.lost_knowledge if h.lost_knowledge else 0,
    }
    return {
        "name": h.name,
        "total": sum(breakdown.values()),
        "breakdown": breakdown,
        "explain": {
            "past": [{"card": b.id, "name": b.name, "vp": b.vp} for b in past],
            "endgame": endgame,
            "techs": [{"card": t.id, "name": t.name, "vp": t.vp} for t in level2],
            "timeline": [{"card": x, "name": cat.name(x)} for x in h.timeline],
            "lost_knowledge_tokens": h.lost_knowledge,
        },
    }


def rank(entries: list[dict]) -> dict:
    """Places and winners: more VP first, then fewer lost knowledge; still tied = shared place (A7)."""
    def key(e):
        return (-e["total"], e["explain"]["lost_knowledge_tokens"])

    placed = []
    for seat, e in enumerate(entries):
        place = 1 + sum(1 for o in entries if key(o) < key(e))
        placed.append((place, seat, {"name": e["name"], "total": e["total"], "place": place,
                                     "breakdown": e["breakdown"], "explain": e["explain"]}))
    players = [p for _, _, p in sorted(placed, key=lambda x: x[:2])]
    return {"game": GAME_ID, "players": players, "winners": [p["name"] for p in players if p["place"] == 1]}


# ---------------------------------------------------------------------------------------------
# The table file of cli.md

_PLAYER_KEYS = ("name", "past", "timeline", "techs", "lost_knowledge")
_OPTIONAL_KEYS = ("artifacts",)


def _at(where: str, *parts) -> str:
    path = json_path(*parts)
    return f"{where}: {path}" if where else path


def _id_list(cat: Catalog, value, where: str, parts: tuple, what: str, seen: dict) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise BadInput(_at(where, *parts), f"a list of card ids is needed, not {type(value).__name__}")
    out = []
    for i, card_id in enumerate(value):
        loc = _at(where, *parts, i)
        if card_id is None and what == "timeline":
            continue  # an empty spot of the Timeline
        if what == "techs":
            cat.tech(card_id, loc)
        elif what == "artifacts":
            b = cat.builder(card_id, loc)
            if b.is_monument:
                raise BadInput(loc, f"{card_id!r} ({b.name}) is a {b.kind}, not an artifact")
        else:
            cat.monument(card_id, loc)
        if card_id in seen:
            raise BadInput(loc, f"{cat.name(card_id)} is already at {seen[card_id]}; every card exists once")
        seen[card_id] = json_path(*parts, i)
        out.append(card_id)
    return tuple(out)


def parse_table(table, where: str = "", cat: Catalog | None = None) -> list[Holdings]:
    """The players of a cli.md table, validated; BadInput names the file and the JSON path."""
    cat = cat or catalog()
    if not isinstance(table, dict):
        raise BadInput(where or "table", 'the table must be a JSON object like {"players": [...]}')
    for key in table:
        if key not in ("players", "game"):
            raise BadInput(_at(where, key), "unknown key; a table holds \"players\" (and optionally \"game\")")
    if "game" in table and table["game"] != GAME_ID:
        raise BadInput(_at(where, "game"), f"{table['game']!r} is not {GAME_ID!r}")
    players = table.get("players")
    if not isinstance(players, list) or not players:
        raise BadInput(_at(where, "players"), "a non-empty list of players is needed")
    if len(players) > MAX_PLAYERS:
        raise BadInput(_at(where, "players"), f"{len(players)} players; Ancient Knowledge is for 2-4 (decision A8)")
    seen_cards: dict[str, str] = {}
    names: set[str] = set()
    out = []
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise BadInput(_at(where, "players", i), "a player is an object with name, past, timeline, techs, "
                                                     "lost_knowledge")
        for key in p:
            if key not in _PLAYER_KEYS + _OPTIONAL_KEYS:
                raise BadInput(_at(where, "players", i, key),
                               f"unknown key; a player has {', '.join(_PLAYER_KEYS + _OPTIONAL_KEYS)}")
        for key in _PLAYER_KEYS:
            if key not in p:
                hint = " (the number of lost-knowledge tokens; 0 if none)" if key == "lost_knowledge" else \
                    " (use [] if none)" if key != "name" else ""
                raise BadInput(_at(where, "players", i), f"missing key {key!r}{hint}")
        name = p["name"]
        if not isinstance(name, str) or not name.strip():
            raise BadInput(_at(where, "players", i, "name"), "a player needs a non-empty name")
        if name in names:
            raise BadInput(_at(where, "players", i, "name"), f"{name!r} is used by two players")
        names.add(name)
        lost = p["lost_knowledge"]
        if not isinstance(lost, int) or isinstance(lost, bool) or lost < 0:
            raise BadInput(_at(where, "players", i, "lost_knowledge"),
                           f"{lost!r} is not a number of tokens (a whole number, 0 or more)")
        past = _id_list(cat, p["past"], where, ("players", i, "past"), "past", seen_cards)
        timeline = _id_list(cat, p["timeline"], where, ("players", i, "timeline"), "timeline", seen_cards)
        if len(timeline) > 12:
            raise BadInput(_at(where, "players", i, "timeline"),
                           f"{len(timeline)} monuments; a Timeline holds at most 12 (6 zones x 2 rows)")
        techs = _id_list(cat, p["techs"], where, ("players", i, "techs"), "techs", seen_cards)
        artifacts = _id_list(cat, p.get("artifacts", []), where, ("players", i, "artifacts"), "artifacts",
                             seen_cards)
        if len(artifacts) > 5:
            raise BadInput(_at(where, "players", i, "artifacts"), f"{len(artifacts)} artifacts; a board has 5 slots")
        out.append(Holdings(name, past, timeline, techs, lost, artifacts))
    return out


def score_table(table: dict, where: str) -> dict:
    """The ``companion score ancient-knowledge --json`` document for a table (cli.md)."""
    cat = catalog()
    return rank([score_holdings(h, cat) for h in parse_table(table, where, cat)])


# ---------------------------------------------------------------------------------------------
# The explained sheet

_WIDTH = 64


def _line(label: str, points: int, indent: int = 2) -> str:
    text = " " * indent + label
    return f"{text:<{_WIDTH}}{points:>5}"


def explained_rows(entry: dict) -> list[ScoreRow]:
    """A player's figures with their points and why (the kiosk's sheet and `companion score`)."""
    b, ex = entry["breakdown"], entry["explain"]
    return [
        ScoreRow(Text(N_("Past")), str(b["past_vp"]),
                 plural(NP_("{n} monument, its printed victory points.",
                            "{n} monuments, their printed victory points."), len(ex["past"]))),
        ScoreRow(Text(N_("End-game effects")), str(b["endgame_effects"]), _endgame_words(ex["endgame"])),
        ScoreRow(Text(N_("Level II technologies")), str(b["techs"]),
                 Literal(", ".join(f"{x['name']} {x['vp']}" for x in ex["techs"]) or "–")),
        ScoreRow(Text(N_("In the Timeline")), str(b["timeline"]),     # "Timeline" alone is the other game
                 plural(NP_("{n} monument still in the Timeline, 1 point.",
                            "{n} monuments still in the Timeline, 1 each."), len(ex["timeline"]))),
        ScoreRow(Text(N_("Lost knowledge")), str(b["lost_knowledge"]),
                 plural(NP_("{n} token, -1 point.", "{n} tokens, -1 each."), ex["lost_knowledge_tokens"])),
        ScoreRow(Text(N_("Total")), str(entry["total"]), None, True),
    ]

def _endgame_words(endgame: list) -> Text | str:
    """The cards that scored, most first; those that gave nothing only counted (NEXT shows all)."""
    scored = sorted((e for e in endgame if e["points"]), key=lambda e: -e["points"])
    zero = len(endgame) - len(scored)
    text = ", ".join(f"{e['name']} {e['points']}" for e in scored) or "–"
    if zero:
        return Words(N_("{cards}; {n} more gave 0."), {"cards": text, "n": zero})
    return Literal(text)


def explained(doc: Summary, entry: dict) -> list[ScoreRow]:
    """A player's explained figures (the same from a score document or a game's summary)."""
    return explained_rows(entry)


def card_rows(entry: dict) -> list[ScoreRow]:
    """Each end-game card of a player's Past with its points and how it made them, in words ("2 points
    for each complete set of Ancient, Writing and Secret technologies: 2 sets = 4")."""
    cat = catalog()
    rows = []
    for e in entry["explain"]["endgame"]:
        formula = present(cat.builders[e["card"]].endgame, f"the end-game formula of {e['name']}")
        rows.append(ScoreRow(Literal(e["name"]), str(e["points"]), formula_words(formula, e["counts"])))
    return rows


def table_of(summary: Summary) -> dict:
    """The table a game's summary says lies on the table: each player's Past, Timeline (the monuments in
    its zones), technologies, artifacts and lost knowledge."""
    def ids(cards: list) -> list[str]:
        return [c["card"] for c in cards]

    return {"players": [{"name": p["name"], "past": ids(p["past"]),
                         "timeline": [z[row]["card"] for z in p["zones"] for row in ("lower", "upper") if z[row]],
                         "techs": ids(p["techs"]), "artifacts": ids(p["artifacts"]),
                         "lost_knowledge": p["lost_knowledge"]} for p in summary["players"]]}


def points_unit(doc: Summary) -> str:
    """The unit of a total, spelled out as a player reads it."""
    return N_("victory points")


def format_score(result: dict, lang: str = "en") -> str:
    """The score document as a sheet a person can check card by card."""
    def t(msgid, **params):
        return Text(msgid, params).render(lang)

    lines = [t(N_("Ancient Knowledge: final score")), ""]
    for p in result["players"]:
        ex = p["explain"]
        lines.append(t(N_("{place}. {name}: {total} victory points"), place=p["place"], name=p["name"],
                       total=p["total"]))
        lines.extend(sheet_lines(explained_rows(p), lang, _WIDTH))
        # behind the figures, every card that scored and how, in words: to check by hand
        if ex["endgame"] or ex["techs"]:
            lines.append("  " + t(N_("Card by card:")))
        lines.extend(sheet_lines(card_rows(p), lang, _WIDTH, indent=6))
        for tech in ex["techs"]:
            lines.append(_line(tech["name"], tech["vp"], indent=6))
        lines.append("")
    winners = result["winners"]
    firsts = [p for p in result["players"] if p["place"] == 1]
    if len(winners) > 1:
        lines.append(t(N_("Shared first place: {names}"), names=", ".join(winners)))
    else:
        lines.append(t(N_("Winner: {name}"), name=winners[0]))
        tied = [p for p in result["players"] if p["total"] == firsts[0]["total"] and p["place"] != 1]
        if tied:
            lines.append(t(N_("(tie on {total} victory points broken by fewer lost knowledge)"),
                           total=firsts[0]["total"]))
    return "\n".join(lines)
