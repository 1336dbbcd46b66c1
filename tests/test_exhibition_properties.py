"""Property-based tests: accepted placements never leave a broken showcase; a table's score does not
depend on the order in which its players are listed; robot games always end in a legal table."""

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
    spots = {k: draw(st.integers(1, 5)) for k in ("one_continent", "one_era", "plain")}
    covered = draw(st.lists(st.sampled_from(SHOWCASES[:4]), unique=True, max_size=4))
    overlays = draw(st.permutations(OVERLAYS))
    layout = parse_layout(spots, {k: overlays[i] for i, k in enumerate(covered)})
    options = Options(one_era_gap_feasibility=draw(st.booleans()), links_keeps_g2=draw(st.booleans()))
    exhibits = [Exhibit.empty(f"P{i}", layout) for i in range(n)]
    whites_used = set()
    attempts = draw(st.lists(st.tuples(st.integers(0, n - 1), any_card, st.integers(0, 99), st.booleans()),
                             min_size=10, max_size=80))
    names = [x for x in layout.spot_names() if not x.startswith("depot")]   # the depot has no rule
    for who, card, pick, keep_trying in attempts:
        if card.white in whites_used:
            continue
        ctx = Context(layout, options, n, claims_against(exhibits, who, layout))
        # one spot, or (like a player looking for a place) the first legal spot from there on
        for k in range(len(names) if keep_trying else 1):
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
        if rng.random() < 0.5:
            p["secret_decade"] = rng.randrange(1900, 2000, 10)
        players.append(p)
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
