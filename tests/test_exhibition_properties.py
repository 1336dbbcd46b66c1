"""Property-based tests: accepted placements never leave a broken showcase; a table's score does not
depend on the order in which its players are listed; robot games always end in a legal table; random
legal end-game tables keep the invariants the rulebook states (decades at most 10, awards 5/4/3... by
A8, a total equal to its breakdown, the same result whatever the players' order)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.exhibition import autoplay, engine
from companion.games.exhibition.board import OVERLAYS, SHOWCASES, parse_layout
from companion.games.exhibition.cards import Card, card_json
from companion.games.exhibition.options import Options
from companion.games.exhibition.rules import Context, Exhibit, claims_against, placement_problem, showcase_problem
from companion.games.exhibition.score import score_table

CONTINENTS = ("OC", "SA", "AF", "AS", "EU", "NA")

coloured_cards = st.builds(lambda y, k: Card(year=y, continent=k), st.integers(1900, 1999), st.sampled_from(CONTINENTS))
any_card = st.one_of(coloured_cards, coloured_cards, coloured_cards,
                     st.sampled_from([Card(year=1945, white="1945"), Card(white="einstein")]))


@st.composite
def games(draw):
    """Players, a layout with random overlays, options, and the boards after a random sequence of
    attempted placements of which only the accepted ones were made."""
    n = draw(st.integers(1, 5))
    return draw(_boards(n, st.integers(10, 80), Options(one_era_gap_feasibility=draw(st.booleans()),
                                                       links_keeps_g2=draw(st.booleans()))))


@st.composite
def _boards(draw, n, attempts_count, options, persistent=False):
    spots = {k: draw(st.integers(1, 5)) for k in ("one_continent", "one_era", "plain")}
    covered = draw(st.lists(st.sampled_from(SHOWCASES[:4]), unique=True, max_size=4))
    overlays = draw(st.permutations(OVERLAYS))
    layout = parse_layout(spots, {k: overlays[i] for i, k in enumerate(covered)})
    exhibits = [Exhibit.empty(f"P{i}", layout) for i in range(n)]
    whites_used = set()
    attempts = draw(st.lists(st.tuples(st.integers(0, n - 1), any_card, st.integers(0, 99), st.booleans()),
                             min_size=(size := draw(attempts_count)), max_size=size))
    names = [x for x in layout.spot_names() if not x.startswith("depot")]   # the depot has no rule
    for who, card, pick, keep_trying in attempts:
        if card.white in whites_used:
            continue
        ctx = Context(layout, options, n, claims_against(exhibits, who, layout))
        # one spot, or (like a player looking for a place) the first legal spot from there on
        for k in range(len(names) if keep_trying or persistent else 1):
            key, index = names[(pick + k) % len(names)].rstrip("]").split("[")
            if placement_problem(card, key, int(index), exhibits[who], ctx) is None:
                exhibits[who] = exhibits[who].with_card(key, int(index), card)
                if card.white:
                    whites_used.add(card.white)
                break
    return layout, options, exhibits


@given(games())
def test_accepted_placements_never_leave_a_broken_showcase(game):
    layout, options, exhibits = game
    for i, ex in enumerate(exhibits):
        ctx = Context(layout, options, len(exhibits), claims_against(exhibits, i, layout))
        for key, cards in ex.hall:
            assert showcase_problem(key, cards, ctx) is None, (key, cards)


def _table(layout, options, exhibits, rng):
    players = []
    for ex in exhibits:
        p = {"name": ex.name,
             "showcases": {k: [card_json(c) for c in s] for k, s in ex.hall},
             "depot": [card_json(Card(year=rng.randint(1900, 1999), continent="OC")) for _ in range(rng.randint(0, 3))]}
        if len(ex.continents()) == 6:
            p["six_continents_round"] = rng.randint(6, 12)
        players.append(p)
    for p, decade in zip(players, rng.sample(range(1900, 2000, 10), len(players)), strict=True):
        if rng.random() < 0.5:
            p["secret_decade"] = decade        # one card per decade (A30)
    return {"players": players, "layout": layout.to_json(), "variations": layout.variations_json(),
            "options": options.to_json(),
            "market": [card_json(Card(year=rng.randint(1900, 1999), continent="EU"))
                       for _ in range(rng.randint(0, 18))]}


@given(games(), st.randoms(use_true_random=False), st.data())
def test_score_does_not_depend_on_the_order_of_players(game, rng, data):
    layout, options, exhibits = game
    table = _table(layout, options, exhibits, rng)
    first = score_table(table, "t")        # also: every table the rules accepted scores without error
    shuffled = dict(table, players=data.draw(st.permutations(table["players"])))
    second = score_table(shuffled, "t")

    def per_name(result):
        return {p["name"]: (p["total"], p["place"], p["breakdown"]) for p in result["players"]}

    assert per_name(first) == per_name(second)
    assert set(first["winners"]) == set(second["winners"])


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
def test_robot_games_end_in_a_legal_scorable_table(seed, n, secret):
    rng = random.Random(seed)
    covered = rng.sample(SHOWCASES[:4], rng.randint(0, 2))
    variations = dict(zip(covered, rng.sample(OVERLAYS, len(covered)), strict=True))
    lines = autoplay.play_game([f"P{i}" for i in range(n)], seed=seed, secret_decade=secret, variations=variations)
    s = engine.setup(lines[0])
    for line in lines[1:]:
        s, _ = engine.apply(s, engine.parse_action(line))
    summary = engine.summary(s)
    assert summary["status"] == "finished"
    table = {"players": [{"name": p["name"], "showcases": p["showcases"], "depot": [c for c in p["depot"] if c],
                          "six_continents_round": p["six_continents_round"],
                          **({"secret_decade": p["secret_decade"]} if secret else {})} for p in summary["players"]],
             "variations": summary["variations"],
             "market": [c for col in summary["market"].values() for c in col]}
    assert score_table(table, "t")["players"] == summary["scores"]


# --- random legal end-game tables against an independent reading of the rulebook -----------------


@st.composite
def end_tables(draw):
    """A legal end-game table: boards filled by many attempted placements (so Halls are full or nearly),
    a Depot, the race rounds (ties likely), distinct Secret Decades, a market, random A5/A8 flags."""
    n = draw(st.integers(1, 5))
    options = Options(one_era_gap_feasibility=draw(st.booleans()), links_keeps_g2=draw(st.booleans()),
                      tie_ranking=draw(st.sampled_from(["competition", "dense"])),
                      white_1945_in_years_gap=draw(st.booleans()))
    layout, options, exhibits = draw(_boards(n, st.integers(100, 300), options, persistent=True))
    rng = draw(st.randoms(use_true_random=False))
    table = _table(layout, options, exhibits, rng)
    for p in table["players"]:
        if "six_continents_round" in p:
            p["six_continents_round"] = rng.randint(6, 8)      # a few rounds only: shared rounds are common
    return table


def _cards(objs):
    return [o for o in objs if o is not None]


def _hall(p):
    return [c for k, spots in p["showcases"].items() for c in spots if c is not None]


def _coloured(cards):
    return [c for c in cards if "continent" in c]


def _rulebook_awards(values: dict, smaller_first: bool, tie: str) -> dict:
    """§7: 5 for the best, then 4, 3, 2, 1; None is out of the ranking (0). A8: after a tie the next
    place is skipped (competition: 5, 5, 3) or not (dense: 5, 5, 4)."""
    ranked = {p: v for p, v in values.items() if v is not None}
    out = {}
    for p, v in values.items():
        if v is None:
            out[p] = 0
            continue
        better = [w for w in ranked.values() if (w < v if smaller_first else w > v)]
        out[p] = max(0, 5 - (len(set(better)) if tie == "dense" else len(better)))
    return out


def _year(c):
    return 1945 if c.get("white") == "1945" else c.get("year")


@settings(max_examples=80)
@given(end_tables(), st.data())
def test_end_game_tables_keep_the_rulebook_invariants(table, data):
    result = score_table(table, "t")
    by = {p["name"]: p for p in result["players"]}
    raw = {p["name"]: p for p in table["players"]}
    solo = len(by) == 1
    tie = table["options"].get("tie_ranking", "competition")
    variations = table["variations"]
    factor = 100 if solo else 1
    for name, p in by.items():
        b = p["breakdown"]
        assert p["total"] == sum(b.values())                                     # a total equal to its breakdown
        hall = _coloured(_hall(raw[name]))
        decades = {c["year"] // 10 * 10 for c in hall}
        assert b["decades"] == len(decades) * factor and len(decades) <= 10      # "10 fame points max"
        assert b["chain"] >= factor                                              # minimum 1
        assert b["empty_spots"] == -factor * sum(1 for s in raw[name]["showcases"].values() for c in s if c is None)
        assert b["depot"] == -factor * len(_cards(raw[name]["depot"]))
        if "secret_decade" in raw[name]:
            assert b["secret_decade"] == factor * sum(1 for c in hall if c["year"] // 10 * 10 ==
                                                      raw[name]["secret_decade"])
        else:
            assert "secret_decade" not in b
    if not solo:
        # the races and rankings, read straight from the table
        def gap(p):
            if "years_gap" in variations:
                return None
            left, right = p["showcases"]["years_gap"]
            if left is None or right is None or _year(left) is None or _year(right) is None:
                return None
            if not table["options"].get("white_1945_in_years_gap", True) and ("white" in left or "white" in right):
                return None
            return _year(right) - _year(left)

        rounds = {n: (p.get("six_continents_round") if len({c["continent"] for c in _coloured(_hall(p))}) == 6
                      else None) for n, p in raw.items()}
        expected = {"six_continents": _rulebook_awards(rounds, True, tie),
                    "years_gap": _rulebook_awards({n: gap(p) for n, p in raw.items()}, False, tie)}
        for key, overlay in variations.items():
            if overlay == "short_era":
                spans = {}
                for n, p in raw.items():
                    cards = p["showcases"][key]
                    spans[n] = None if None in cards else cards[-1]["year"] - cards[0]["year"]
                expected["short_era"] = _rulebook_awards(spans, True, tie)
            if overlay == "antiquity":
                expected["antiquity"] = _rulebook_awards(
                    {n: (p["showcases"][key][-1] or {}).get("year") for n, p in raw.items()}, True, tie)
        for key, awards in expected.items():
            assert {n: by[n]["breakdown"][key] for n in by} == awards, key
            values = sorted(awards.values(), reverse=True)
            assert all(0 <= v <= 5 for v in values)
        # places: more fame first; the winners share the best total
        best = max(p["total"] for p in by.values())
        assert all(by[w]["total"] == best for w in result["winners"])
        assert sorted(p["place"] for p in result["players"]) == [p["place"] for p in result["players"]]
    # the same result whatever the players' order
    shuffled = score_table(dict(table, players=data.draw(st.permutations(table["players"]))), "t")
    assert {p["name"]: (p["total"], p["place"], p["breakdown"]) for p in shuffled["players"]} == \
        {p["name"]: (p["total"], p["place"], p["breakdown"]) for p in result["players"]}
    assert set(shuffled["winners"]) == set(result["winners"])
