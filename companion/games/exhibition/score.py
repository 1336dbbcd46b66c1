"""Final scoring (rules §7, §9) and the ``companion score exhibition`` document (cli.md).

``score_table(table, where)`` checks a table as it lies (every placement rule, exit 2 naming player,
showcase, spot and rule) and returns the ``--json`` document; ``format_score(result)`` prints it as
a sheet that explains each figure. The engine scores a finished game with :func:`score_finals`, so
the kiosk, ``companion replay`` and ``companion score`` can never disagree.

Each player's entry keeps cli.md's keys (``name``, ``total``, ``place``, ``breakdown``) and adds
``explain``: which cards made each figure. The document adds ``warnings`` (English notes for whoever
wrote the table: an overlay on a showcase it does not suit, a missing round or market) only when
there are some.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from companion.errors import BadInput, json_path
from companion.games.base import Summary
from companion.games.exhibition.board import (
    CONTINENTS,
    DEPOT,
    OVERLAYS,
    SCORING_OVERLAYS,
    SHOWCASES,
    Layout,
    board,
    layout_warnings,
    parse_layout,
    spot_name,
)
from companion.games.exhibition.cards import DECADES, Card, coloured, decade, fixed, label, parse
from companion.games.exhibition.options import Options, parse_options
from companion.games.exhibition.rules import Context, Exhibit, claims_against, exhibit_problem
from companion.games.exhibition.words import OVERLAY_NAMES, SHOWCASE_NAMES, fits_words, runs
from companion.games.explained import ScoreRow, sheet_lines
from companion.i18n import N_, Literal, Text, render
from companion.words import Words, later

GAME_ID = "exhibition"
MAX_PLAYERS = 5
AWARDS = 5           # first place of a race or ranking: 5, then 4, 3, 2, 1 (A9: whatever the player count)
SOLO_FACTOR = 100
MID_CENTURY = 1950


@dataclass(frozen=True)
class Final:
    """One player's end of game: the board, the round of the six-continents race, the secret decade."""

    exhibit: Exhibit
    six_continents_round: int | None = None
    secret_decade: int | None = None


def ladder(values: dict, smaller_first: bool, tie_ranking: str = "competition") -> dict:
    """Awards 5/4/3/2/1 by rank (rules §7); None = out of the ranking = 0.
    Competition ranking gives 5, 5, 3 after a tie; dense ranking 5, 5, 4 (A8)."""
    ranked = {p: v for p, v in values.items() if v is not None}

    def better(w, v):
        return w < v if smaller_first else w > v

    out = {}
    for p, v in values.items():
        if v is None:
            out[p] = 0
            continue
        ahead = {w for w in ranked.values() if better(w, v)} if tie_ranking == "dense" else \
            [w for w in ranked.values() if better(w, v)]
        out[p] = max(0, AWARDS - len(ahead))
    return out


def _rank(values: dict, p, smaller_first: bool) -> int | None:
    v = values[p]
    if v is None:
        return None
    return 1 + sum(1 for w in values.values() if w is not None and (w < v if smaller_first else w > v))


def _ranked(values: dict) -> int:
    return sum(1 for v in values.values() if v is not None)


def mid_century_distance(exhibit: Exhibit) -> int | None:
    """|year - 1950| of the Mid-Century card; None (infinitely far) for an empty spot or Einstein (A18)."""
    card = exhibit.showcase("mid_century")[0]
    return abs(card.year - MID_CENTURY) if fixed(card) else None


def longest_chain(years) -> list[int]:
    """The longest run of consecutive calendar years (the earliest of equal runs); [] for none."""
    ys = sorted(set(years))
    best: list[int] = []
    run: list[int] = []
    for y in ys:
        run = run + [y] if run and y == run[-1] + 1 else [y]
        if len(run) > len(best):
            best = run
    return best


def _market_years(market) -> list[int]:
    return sorted(c.year for c in market if fixed(c))


# ---------------------------------------------------------------------------------------------
# Scoring


def _player_facts(f: Final, layout: Layout, options: Options) -> dict:
    """The figures of one player that do not depend on the others."""
    ex = f.exhibit
    hall = [(spot, c) for spot, c in ex.hall_cards() if coloured(c)]
    facts: dict = {"hall": hall}
    missing = [k for k in CONTINENTS if k not in {c.continent for _, c in hall}]
    facts["six_complete"] = not missing
    facts["six_missing"] = missing
    # Years Gap (A5: the 1945 white card counts as 1945 unless the flag says no)
    gap = None
    if layout.overlay("years_gap") is None:
        left, right = ex.showcase("years_gap")
        if fixed(left) and fixed(right) and (options.white_1945_in_years_gap
                                             or (left.white is None and right.white is None)):
            gap = right.year - left.year
        facts["years_gap_cards"] = (left, right)
    facts["years_gap"] = gap
    # Continent Focus, Number of Decades, Chain of Years: coloured Hall cards only
    by_continent: dict[str, list[Card]] = {}
    for _, c in hall:
        by_continent.setdefault(c.continent, []).append(c)
    focus = max((len(v) for v in by_continent.values()), default=0)
    facts["focus"] = focus
    facts["focus_continents"] = [k for k in CONTINENTS if len(by_continent.get(k, [])) == focus and focus]
    facts["focus_cards"] = sorted(by_continent[facts["focus_continents"][0]], key=lambda c: c.year) if focus else []
    facts["decades"] = sorted({decade(c.year) for _, c in hall})
    chain = longest_chain(c.year for _, c in hall)
    facts["chain"] = chain
    facts["chain_cards"] = sorted(((spot, c) for spot, c in hall if c.year in chain), key=lambda sc: sc[1].year)
    empty = [spot_name(k, i) for k, s in ex.hall for i, c in enumerate(s) if c is None]
    facts["empty"] = empty
    facts["depot"] = ex.depot_cards
    if f.secret_decade is not None:
        facts["secret_cards"] = sorted((c for _, c in hall if decade(c.year) == f.secret_decade), key=lambda c: c.year)
    # Variation showcases that score (§9.2): white cards never lie there, so every card has a year
    short = layout.covered_by("short_era")
    if short is not None:
        cards = ex.showcase(short)
        years = [c.year for c in cards if fixed(c)]
        facts["short_era_cards"] = cards
        facts["short_era"] = years[-1] - years[0] if len(years) == len(cards) else None
    old = layout.covered_by("antiquity")
    if old is not None:
        cards = ex.showcase(old)
        facts["antiquity_cards"] = cards
        facts["antiquity_full"] = all(c is not None for c in cards)
        facts["antiquity"] = cards[-1].year if fixed(cards[-1]) else None
    facts["mid_century"] = ex.showcase("mid_century")[0]
    facts["mid_century_distance"] = mid_century_distance(ex)
    return facts


def _award(explain: dict, i: int, solo: bool, spoilers: tuple[str, list[int] | None],
           race: tuple[dict, bool, dict]) -> int:
    """What player ``i`` earns for a race showcase (Years Gap, Short Era, Antiquity). Solo: AWARDS less
    one for each market year that spoils it (``spoilers``: the key its explanation lists them under, and
    the years; None: the showcase earns nothing). Else: its award in the race (``race``: every player's
    value, whether the smaller wins, the awards by player)."""
    if not solo:
        values, smaller_first, awards = race
        explain["rank"], explain["ranked"] = _rank(values, i, smaller_first), _ranked(values)
        return awards[i]
    key, years = spoilers
    if years is None:
        return 0
    explain[key] = years
    return max(0, AWARDS - len(years))


def _labels(cards) -> list[str]:
    return [label(c) for c in cards]



def score_finals(finals: list[Final], layout: Layout, options: Options, market=None,
                 warnings: list[str] | None = None) -> dict:
    """The score document for the players' final boards (one player: solo scoring, ×100)."""
    warnings = list(warnings or []) + [w.render("en") for w in layout_warnings(layout)]
    solo = len(finals) == 1
    facts = [_player_facts(f, layout, options) for f in finals]
    n = range(len(finals))
    rounds = {i: (finals[i].six_continents_round if facts[i]["six_complete"] else None) for i in n}
    for i in n:
        if not solo and facts[i]["six_complete"] and rounds[i] is None:
            warnings.append(f"{finals[i].exhibit.name} has all six continents in the Hall but no "
                            f"six_continents_round: the race scores 0 for them")
    gaps = {i: facts[i]["years_gap"] for i in n}
    spans = {i: facts[i].get("short_era") for i in n}
    olds = {i: facts[i].get("antiquity") for i in n}
    tie = options.tie_ranking
    six_award = ladder(rounds, True, tie)
    gap_award = ladder(gaps, False, tie)
    span_award = ladder(spans, True, tie)
    old_award = ladder(olds, True, tie)
    market = tuple(market or ())
    market_years = _market_years(market)

    entries = []
    for i, f in enumerate(finals):
        x = facts[i]
        b: dict = {}
        e: dict = {}
        # six continents
        if solo:
            b["six_continents"] = 1 if x["six_complete"] else 0
        else:
            b["six_continents"] = six_award[i]
        e["six_continents"] = {"complete": x["six_complete"], "missing": x["six_missing"],
                               "round": rounds[i], "rank": None if solo else _rank(rounds, i, True),
                               "ranked": None if solo else _ranked(rounds)}
        # years gap
        yg: dict = {"covered_by": layout.overlay("years_gap")}
        if "years_gap_cards" in x:
            yg["cards"] = _labels(x["years_gap_cards"])
        yg["gap"] = gaps[i]
        left, right = x.get("years_gap_cards", (None, None))
        outside = None if gaps[i] is None else [y for y in market_years if y < left.year or y > right.year]
        b["years_gap"] = _award(yg, i, solo, ("market_outside", outside), (gaps, False, gap_award))
        e["years_gap"] = yg
        b["continent_focus"] = x["focus"]
        e["continent_focus"] = {"continents": x["focus_continents"], "cards": _labels(x["focus_cards"])}
        b["decades"] = len(x["decades"])
        e["decades"] = {"decades": x["decades"]}
        b["chain"] = max(1, len(x["chain"]))
        e["chain"] = {"years": x["chain"], "cards": [{"spot": s, "card": label(c)} for s, c in x["chain_cards"]]}
        b["empty_spots"] = -len(x["empty"])
        e["empty_spots"] = {"spots": x["empty"]}
        b["depot"] = -len(x["depot"])
        e["depot"] = {"cards": _labels(x["depot"])}
        if f.secret_decade is not None:
            b["secret_decade"] = len(x["secret_cards"])
            e["secret_decade"] = {"decade": f.secret_decade, "cards": _labels(x["secret_cards"])}
        short = layout.covered_by("short_era")
        if short is not None:
            era = x["short_era_cards"]
            se = {"showcase": short, "cards": _labels(era), "span": spans[i]}
            between = None if spans[i] is None else [y for y in market_years if era[0].year < y < era[-1].year]
            b["short_era"] = _award(se, i, solo, ("market_between", between), (spans, True, span_award))
            e["short_era"] = se
        old = layout.covered_by("antiquity")
        if old is not None:
            oldest = olds[i]
            an = {"showcase": old, "card": label(x["antiquity_cards"][-1]), "year": oldest}
            lower = None
            if oldest is not None and x["antiquity_full"]:
                lower = [y for y in market_years if y < oldest]
            elif solo:
                an["not_full"] = not x["antiquity_full"]
            b["antiquity"] = _award(an, i, solo, ("market_lower", lower), (olds, True, old_award))
            e["antiquity"] = an
        for key, overlay in layout.variations:
            if overlay not in SCORING_OVERLAYS:     # cli.md: one key per variation showcase; these award nothing
                b[overlay] = 0
                e[overlay] = {"showcase": key, "cards": _labels(c for c in f.exhibit.showcase(key) if c is not None)}
        dist = x["mid_century_distance"]
        e["mid_century"] = {"card": label(x["mid_century"]), "distance": dist}
        if solo:
            b = {k: v * SOLO_FACTOR for k, v in b.items()}
            per_year = options.solo_mid_century_per_year
            b["mid_century"] = 0 if dist is None else max(0, SOLO_FACTOR - per_year * dist)
            e["mid_century"]["per_year"] = per_year
        entries.append({"name": f.exhibit.name, "total": sum(b.values()), "breakdown": b, "explain": e})
    doc = _rank_players(entries, solo)
    doc["solo"] = solo
    doc["layout"] = layout.to_json()
    if layout.variations:
        doc["variations"] = layout.variations_json()
    if warnings:
        doc["warnings"] = warnings
    return doc


def _rank_players(entries: list[dict], solo: bool) -> dict:
    """Places: more fame first; a tie goes to the Mid-Century card closest to 1950 (empty or Einstein:
    infinitely far); still equal = shared place."""
    def key(e):
        d = e["explain"]["mid_century"]["distance"]
        return (-e["total"], math.inf if d is None else d)

    placed = []
    for seat, e in enumerate(entries):
        place = 1 + sum(1 for o in entries if key(o) < key(e))
        tied_on_total = [o["name"] for o in entries if o is not e and o["total"] == e["total"]]
        e["explain"]["tie"] = {"tied_on_total_with": tied_on_total} if tied_on_total and not solo else None
        placed.append((place, seat, {"name": e["name"], "total": e["total"], "place": place,
                                     "breakdown": e["breakdown"], "explain": e["explain"]}))
    players = [p for _, _, p in sorted(placed, key=lambda t: t[:2])]
    return {"game": GAME_ID, "players": players, "winners": [p["name"] for p in players if p["place"] == 1]}


# ---------------------------------------------------------------------------------------------
# The table file of cli.md

_TABLE_KEYS = ("game", "players", "layout", "variations", "market", "options")
_PLAYER_KEYS = ("name", "showcases", "depot", "six_continents_round", "secret_decade")


def _at(where: str, *parts) -> str:
    path = json_path(*parts)
    return f"{where}: {path}" if where else path


class _Cards:
    """Parses the table's cards and refuses a physical card seen twice (one sticker, one white card)."""

    def __init__(self, where: str):
        self.where = where
        self.seen: dict[str, str] = {}

    def card(self, obj, *parts) -> Card | None:
        loc = _at(self.where, *parts)
        card = parse(obj, loc, allow_empty=True)
        if card is None:
            return None
        ident = card.code or (f"white {card.white}" if card.white else None)
        if ident is not None:
            if ident in self.seen:
                what = label(card) if card.white else f"{card.code} ({label(card)})"
                raise BadInput(loc, f"{what} is already at {self.seen[ident]}; every card exists once")
            self.seen[ident] = json_path(*parts)
        return card


def parse_table(table, where: str = "") -> tuple[list[Final], Layout, Options, tuple, list[str]]:
    """The players, layout, options and market of a cli.md table, every placement rule checked;
    BadInput names the file, the JSON path and the rule."""
    if not isinstance(table, dict):
        raise BadInput(where or "table", 'the table must be a JSON object like {"players": [...]}')
    for key in table:
        if key not in _TABLE_KEYS:
            raise BadInput(_at(where, key), f"unknown key; a table holds {', '.join(_TABLE_KEYS)}")
    if "game" in table and table["game"] != GAME_ID:
        raise BadInput(_at(where, "game"), f"{table['game']!r} is not {GAME_ID!r}")
    layout = parse_layout(table.get("layout"), table.get("variations"), where)
    options = parse_options(table.get("options"), where)
    players = table.get("players")
    if not isinstance(players, list) or not players:
        raise BadInput(_at(where, "players"), "a non-empty list of players is needed")
    if len(players) > MAX_PLAYERS:
        raise BadInput(_at(where, "players"), f"{len(players)} players; Exhibition is for 1 to {MAX_PLAYERS}")
    cards = _Cards(where)
    warnings: list[str] = []
    names: set[str] = set()
    parsed = []
    for i, p in enumerate(players):
        parsed.append(_parse_player(p, i, where, layout, cards, names))
    market_raw = table.get("market")
    market: tuple = ()
    if market_raw is None:
        if len(players) == 1:
            warnings.append(_NO_MARKET.render("en"))
    else:
        if not isinstance(market_raw, list):
            raise BadInput(_at(where, "market"), "a list of the cards still under the continents is needed")
        limit = len(board().columns) * board().cards_per_column
        if len(market_raw) > limit:
            raise BadInput(_at(where, "market"), f"{len(market_raw)} cards; the market holds at most {limit}")
        market = tuple(c for c in (cards.card(obj, "market", j) for j, obj in enumerate(market_raw)) if c)
    exhibits = [ex for ex, _, _ in parsed]
    decades: dict[int, str] = {}
    for i, (ex, _, secret) in enumerate(parsed):
        if secret is None:
            continue
        if secret in decades:       # A30: ten Secret Decade cards, one per decade, one dealt to each player
            raise BadInput(_at(where, "players", i, "secret_decade"),
                           f"{ex.name}'s Secret Decade, the {secret}s, is already {decades[secret]}'s: there is one "
                           f"Secret Decade card per decade")
        decades[secret] = ex.name
    finals = []
    for i, (ex, six_round, secret) in enumerate(parsed):
        ctx = Context(layout, options, len(players), claims_against(exhibits, i, layout, only_before=True))
        broken = exhibit_problem(ex, ctx)
        if broken is not None:
            key, index, problem = broken
            raise BadInput(_at(where, "players", i, "showcases", key, index), str(problem))
        if six_round is not None:
            missing = [k for k in CONTINENTS if k not in ex.continents()]
            if missing:
                raise BadInput(_at(where, "players", i, "six_continents_round"),
                               f"round {six_round}, but the Hall has no {' '.join(missing)} card: the race needs a "
                               f"coloured card of each of the six continents in the Hall")
        finals.append(Final(ex, six_round, secret))
    return finals, layout, options, market, warnings


def _parse_player(p, i: int, where: str, layout: Layout, cards: _Cards, names: set):
    if not isinstance(p, dict):
        raise BadInput(_at(where, "players", i), "a player is an object with name, showcases, depot, ...")
    for key in p:
        if key not in _PLAYER_KEYS:
            raise BadInput(_at(where, "players", i, key), f"unknown key; a player has {', '.join(_PLAYER_KEYS)}")
    name = p.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(_at(where, "players", i, "name"), "a player needs a non-empty name")
    if name in names:
        raise BadInput(_at(where, "players", i, "name"), f"{name!r} is used by two players")
    names.add(name)
    showcases = p.get("showcases")
    if not isinstance(showcases, dict):
        raise BadInput(_at(where, "players", i, "showcases"),
                       f"an object with the showcases {', '.join(SHOWCASES)} is needed")
    for key in showcases:
        if key not in SHOWCASES:
            raise BadInput(_at(where, "players", i, "showcases", key),
                           f"unknown showcase; the showcases are {', '.join(SHOWCASES)}")
    hall = []
    for key, n in layout.spots:
        if key not in showcases:
            raise BadInput(_at(where, "players", i, "showcases"),
                           f"missing showcase {key!r} (a list of its {n} spots, null for an empty one)")
        spots = showcases[key]
        if not isinstance(spots, list):
            raise BadInput(_at(where, "players", i, "showcases", key), f"a list of {n} spots is needed")
        if len(spots) != n:
            raise BadInput(_at(where, "players", i, "showcases", key),
                           f"{len(spots)} spots listed; {key} has {n} in this layout (null for an empty spot)")
        hall.append((key, tuple(cards.card(obj, "players", i, "showcases", key, j) for j, obj in enumerate(spots))))
    depot_raw = p.get("depot", [])
    if depot_raw is None:
        depot_raw = []
    if not isinstance(depot_raw, list):
        raise BadInput(_at(where, "players", i, DEPOT), "a list of the cards in the Depot is needed ([] if none)")
    if len(depot_raw) > layout.depot:
        raise BadInput(_at(where, "players", i, DEPOT), f"{len(depot_raw)} cards; the Depot has {layout.depot} spots")
    depot = tuple(cards.card(obj, "players", i, DEPOT, j) for j, obj in enumerate(depot_raw))
    depot = depot + (None,) * (layout.depot - len(depot))
    six_round = p.get("six_continents_round")
    if six_round is not None and (not isinstance(six_round, int) or isinstance(six_round, bool) or six_round < 1):
        raise BadInput(_at(where, "players", i, "six_continents_round"),
                       f"{six_round!r} is not a round number (1 or more; null if never)")
    secret = p.get("secret_decade")
    if secret is not None and (not isinstance(secret, int) or isinstance(secret, bool) or secret not in DECADES):
        hint = f" (the {decade(secret)}s start in {decade(secret)})" if isinstance(secret, int) and \
            not isinstance(secret, bool) and 1900 <= secret <= 1999 else ""
        raise BadInput(_at(where, "players", i, "secret_decade"),
                       f"{secret!r} is not the first year of a decade from 1900 to 1990{hint}")
    return Exhibit(name, tuple(hall), depot), six_round, secret


def score_table(table: dict, where: str) -> dict:
    """The ``companion score exhibition --json`` document for a table (cli.md)."""
    finals, layout, options, market, warnings = parse_table(table, where)
    return score_finals(finals, layout, options, market, warnings)


# ---------------------------------------------------------------------------------------------
# The explained sheet

_WIDTH = 66


def _line(label_text: str, points: int, indent: int = 2) -> str:
    """A figure and its reason; a long reason wraps, the points stay on its last line."""
    rows = textwrap.wrap(label_text, _WIDTH - indent - 1, initial_indent=" " * indent,
                         subsequent_indent=" " * (indent + 4)) or [" " * indent]
    return "\n".join(rows[:-1] + [f"{rows[-1]:<{_WIDTH}}{points:>6}"])


def decade_words(decades: list[int], lang: str) -> str:
    """[1900, 1910, 1920, 1950] -> '1900s–1920s, 1950s'; Spanish 'de 1900 a 1920, 1950' (Spanish names a
    decade by its first year: "la década de 1950")."""
    def run(r: list[int]) -> str:
        if len(r) == 1:
            return Text(N_("{decade}s"), {"decade": r[0]}).render(lang)
        return Text(N_("{first}s–{last}s"), {"first": r[0], "last": r[-1]}).render(lang)
    return ", ".join(run(r) for r in runs(decades, 10))


def card_words(text: str) -> Text | str:
    """A card as the explanation names it ("1953 AF", "Einstein"), the words of an empty spot and of the
    white 1945 card in the reader's language."""
    if text == "empty":
        return Text(N_("an empty spot"))
    if text == "1945 white":
        return Text(N_("1945 white"))
    return Literal(text)


def cards_words(texts: list[str]):
    """Several cards, each as :func:`card_words` says it."""
    return later(lambda lang: ", ".join(render(card_words(t), lang) for t in texts))


def explained_rows(entry: dict, solo: bool, layout: Layout) -> list[ScoreRow]:
    """A player's figures with their points and why (the kiosk's sheet and `companion score`)."""
    b, ex = entry["breakdown"], entry["explain"]
    rows = []
    six = ex["six_continents"]
    if six["complete"]:
        if solo:
            why = Text(N_("All six continents in the Hall."))
        elif six["round"] is None:
            why = Text(N_("All six continents, but no round recorded."))
        else:
            why = Text(N_("Complete in round {round}: place {rank} of {ranked}."), six)
    else:
        why = Text(N_("Missing: {missing}."), {"missing": " ".join(six["missing"])})
    rows.append(ScoreRow(Text(N_("Six continents")), str(b["six_continents"]), why))
    yg = ex["years_gap"]
    if yg["covered_by"]:
        why = Words(N_("Covered by {overlay}: no award."), {"overlay": Text(OVERLAY_NAMES[yg["covered_by"]])})
    elif yg["gap"] is None:
        why = Words(N_("{left} | {right}: not scored (an empty spot, Einstein or 1945)."),
                    {"left": card_words(yg["cards"][0]), "right": card_words(yg["cards"][1])})
    elif solo:
        why = Words(N_("{left} | {right}: {k} market cards outside ({years})."),
                    {"left": card_words(yg["cards"][0]), "right": card_words(yg["cards"][1]),
                     "k": len(yg["market_outside"]),
                    "years": ", ".join(map(str, yg["market_outside"])) or "–"})
    else:
        why = Words(N_("{left} | {right} = {gap} years: place {rank} of {ranked}."),
                    {"left": card_words(yg["cards"][0]), "right": card_words(yg["cards"][1]), "gap": yg["gap"],
                     "rank": yg["rank"],
                    "ranked": yg["ranked"]})
    rows.append(ScoreRow(Text(N_("Years Gap")), str(b["years_gap"]), why))
    cf = ex["continent_focus"]
    why = Text(N_("{continent} × {count}: {cards}."), {"continent": " = ".join(cf["continents"]),
                                                       "count": len(cf["cards"]), "cards": ", ".join(cf["cards"])}) \
        if cf["continents"] else Text(N_("No coloured card in the Hall."))
    rows.append(ScoreRow(Text(N_("Continent Focus")), str(b["continent_focus"]), why))
    decades = ex["decades"]["decades"]
    rows.append(ScoreRow(Text(N_("Decades")), str(b["decades"]),
                         later(lambda lang: decade_words(decades, lang)) if decades else Text(N_("none"))))
    ch = ex["chain"]
    if len(ch["years"]) >= 2:
        why = Text(N_("{first}–{last}: {cards}."), {"first": ch["years"][0], "last": ch["years"][-1],
                                                   "cards": ", ".join(x["card"] for x in ch["cards"])})
    else:
        why = Text(N_("No two consecutive years: it counts 1."))
    rows.append(ScoreRow(Text(N_("Chain of Years")), str(b["chain"]), why))
    empty = ex["empty_spots"]["spots"]
    rows.append(ScoreRow(Text(N_("Empty spots")), str(b["empty_spots"]),
                         later(lambda lang: fits_words(empty, layout, lang)) if empty else Text(N_("none"))))
    rows.append(ScoreRow(Text(N_("Depot")), str(b["depot"]),
                         cards_words(ex["depot"]["cards"]) if ex["depot"]["cards"] else Text(N_("none"))))
    if "secret_decade" in b:
        sd = ex["secret_decade"]
        rows.append(ScoreRow(Text(N_("Secret Decade")), str(b["secret_decade"]),
                             Text(N_("The {decade}s: {cards}."), {"decade": sd["decade"],
                                                                  "cards": ", ".join(sd["cards"]) or "–"})))
    if "short_era" in b:
        se = ex["short_era"]
        if se["span"] is None:
            why = Text(N_("Not full: no award."))
        elif solo:
            why = Text(N_("{cards}: {k} market cards between."), {"cards": ", ".join(se["cards"]),
                                                                  "k": len(se["market_between"])})
        else:
            why = Text(N_("Span {span} years: place {rank} of {ranked}."), se)
        rows.append(ScoreRow(Text(N_("Short Era")), str(b["short_era"]), why))
    if "antiquity" in b:
        an = ex["antiquity"]
        if an["year"] is None or an.get("not_full"):
            why = Words(N_("{card} in the rightmost spot: no award."), {"card": card_words(an["card"])})
        elif solo:
            why = Text(N_("{year}: {k} market cards lower."), {"year": an["year"], "k": len(an["market_lower"])})
        else:
            why = Text(N_("{year} in the rightmost spot: place {rank} of {ranked}."), an)
        rows.append(ScoreRow(Text(N_("Antiquity")), str(b["antiquity"]), why))
    for key in b:
        if key in OVERLAYS and key not in SCORING_OVERLAYS:
            rows.append(ScoreRow(Text(OVERLAY_NAMES[key]), str(b[key]),
                                 Words(N_("On {showcase}: a placement rule, no award."),
                                       {"showcase": Text(SHOWCASE_NAMES[ex[key]["showcase"]])})))
    mc = ex["mid_century"]
    if mc["distance"] is None:
        why = Words(N_("{card}: infinitely far from 1950."), {"card": card_words(mc["card"])})
    elif mc["distance"] == 1:
        why = Words(N_("{card}: 1 year from 1950."), {"card": card_words(mc["card"])})
    else:
        why = Words(N_("{card}: {distance} years from 1950."), {"card": card_words(mc["card"]),
                                                                "distance": mc["distance"]})
    if solo:
        rows.append(ScoreRow(Text(N_("Mid-Century")), str(b["mid_century"]), why))
    else:
        rows.append(ScoreRow(Text(N_("Mid-Century")), "–", Words(N_("{why} It breaks ties."), {"why": why})))
    return rows


def explained(doc: Summary, entry: dict) -> list[ScoreRow]:
    """A player's explained figures from a score document or a game's summary (its layout and players)."""
    solo = len(doc.get("scores") or doc.get("players") or []) == 1
    return explained_rows(entry, solo, parse_layout(doc.get("layout"), doc.get("variations"), "layout"))


_NO_MARKET = Text(N_("no market in the table: solo Years Gap, Short Era and Antiquity are scored as if the market "
                      "were empty"))


def sheet_warnings(doc: dict, layout: Layout) -> list[Text]:
    """The document's warnings as messages to render in the reader's language (``warnings`` itself is
    English, for whoever wrote the table)."""
    english = set(doc.get("warnings", []))
    out: list[Text] = list(layout_warnings(layout))
    if _NO_MARKET.render("en") in english:
        out.append(_NO_MARKET)
    for p in doc["players"]:
        six = p["explain"]["six_continents"]
        if six["complete"] and six["round"] is None and not doc.get("solo", len(doc["players"]) == 1):
            out.append(Text(N_("{player} has all six continents in the Hall but no round is recorded: the race "
                               "scores 0 for them"), {"player": p["name"]}))
    return out


def table_of(summary: Summary) -> dict:
    """The table a game's summary says lies on the table (the Secret Decades once the game is over; the
    market, which a solo game scores)."""
    players = [{k: p[k] for k in _PLAYER_KEYS if k in p} for p in summary["players"]]
    table: dict[str, Any] = {"players": players, "layout": summary["layout"], "variations": summary["variations"],
             "options": summary["options"]}
    if len(players) == 1:
        table["market"] = [c for column in summary["market"].values() for c in column]
    return table


def points_unit(doc: Summary | dict) -> str:
    """The unit of a total as a player reads it: fame points, or the solo game's points (fame x 100)."""
    solo = doc.get("solo", len(doc.get("scores") or doc.get("players") or []) == 1)
    return N_("points") if solo else N_("fame points")


def format_score(result: dict, lang: str = "en") -> str:
    """The score document as a sheet a person can check card by card."""
    def t(msgid, **params):
        return Text(msgid, params).render(lang)

    solo = result.get("solo", len(result["players"]) == 1)
    unit = t(points_unit(result))
    head = t(N_("Exhibition: final score (solo, fame points x 100)")) if solo else \
        t(N_("Exhibition: final score ({count} players)"), count=len(result["players"]))
    layout = parse_layout(result.get("layout"), result.get("variations"), "layout")
    overlays = [Words(N_("{overlay} on {showcase}"), {"overlay": Text(OVERLAY_NAMES[v]),
                                                      "showcase": Text(SHOWCASE_NAMES[k])})
                for k, v in layout.variations]
    lines = [head, t(N_("Layout {layout}"), layout="/".join(str(v) for v in result.get("layout", {}).values()))
             + "".join(", " + o.render(lang) for o in overlays), ""]
    for p in result["players"]:
        lines.append(f"{p['place']}. {p['name']}: {p['total']} {unit}")
        lines.extend(sheet_lines(explained_rows(p, solo, layout), lang, _WIDTH))
        lines.append(_line("Total", p["total"]))      # the same word in Spanish
        lines.append("")
    winners = result["winners"]
    if solo:
        lines.append(t(N_("Solo score: {total}"), total=result["players"][0]["total"]))
    elif len(winners) > 1:
        lines.append(t(N_("Shared first place: {names} (same fame, Mid-Century equally close to 1950)"),
                       names=", ".join(winners)))
    else:
        lines.append(t(N_("Winner: {name}"), name=winners[0]))
        first = result["players"][0]
        if first["explain"].get("tie"):
            lines.append(t(N_("(tie on {total} fame points broken by the Mid-Century card closest to 1950)"),
                           total=first["total"]))
    for w in sheet_warnings(result, layout):
        lines.append(Words(N_("Warning: {text}"), {"text": w}).render(lang))
    return "\n".join(lines)
