"""One test per row of the Exhibition decision table (rules §12, A1-A30)."""

import json
import re
import shutil

import pytest

from companion.cli import main
from companion.errors import BadInput
from companion.games import timeline
from companion.games.base import refusal
from companion.games.exhibition import autoplay, engine
from companion.games.exhibition import board as board_mod
from companion.games.exhibition.actions import parse_action
from companion.games.exhibition.board import default_layout
from companion.games.exhibition.cards import from_text
from companion.games.exhibition.score import explained, format_score, score_table

CONTINENTS = ("OC", "SA", "AF", "AS", "EU", "NA")


def cj(text):
    if text is None:
        return None
    if text == "1945":
        return {"white": "1945"}
    if text == "Einstein":
        return {"white": "einstein"}
    year, continent = text.split()
    return {"year": int(year), "continent": continent}


def player(name, layout=None, depot=(), **showcases):
    sizes = dict(default_layout().spots)
    sizes.update(layout or {})
    out = {"name": name, "showcases": {}, "depot": [cj(t) for t in depot]}
    for key, n in sizes.items():
        texts = list(showcases.get(key, ()))
        out["showcases"][key] = [cj(t) for t in texts] + [None] * (n - len(texts))
    return out


def score(*players, **table):
    result = score_table(dict(players=list(players), **table), "t")
    return {p["name"]: p for p in result["players"]}, result


def start(players, **setup):
    m = {k: [cj(f"{1900 + 3 * i + j} {k}") for j in range(3)] for i, k in enumerate(CONTINENTS)}
    line = {"type": "setup", "game": "exhibition", "players": players, "market": m, "stock": 0}
    line.update(setup)
    return engine.setup(line)


def play(s, *lines):
    for line in lines:
        s, ev = engine.apply(s, parse_action(line))
        assert refusal(ev) is None, (line, str(refusal(ev)))
    return s


def refused(s, line):
    new, ev = engine.apply(s, parse_action(line))
    assert new is s
    return str(refusal(ev))


def test_a1_layout_is_data_and_user_changeable(tmp_path, monkeypatch):
    assert default_layout().short() == "4/4/5/2/1" and default_layout().hall_size == 16
    by, _ = score(player("P", layout={"one_continent": 3, "plain": 6}),
                  player("Q", layout={"one_continent": 3, "plain": 6}),
                  layout={"one_continent": 3, "plain": 6})
    assert by["P"]["breakdown"]["empty_spots"] == -16
    assert by["P"]["explain"]["empty_spots"]["spots"][-1] == "mid_century[0]"
    # a café owner edits the board file: the default follows it
    assets = tmp_path / "assets"
    shutil.copytree(board_mod.board_path().parent.parent, assets, ignore=shutil.ignore_patterns("decks", "fonts"))
    data = json.loads((assets / "exhibition" / "board.json").read_text())
    data["showcases"][0]["spots"], data["showcases"][2]["spots"] = 3, 6
    (assets / "exhibition" / "board.json").write_text(json.dumps(data))
    monkeypatch.setenv("COMPANION_ASSETS", str(assets))
    board_mod.board.cache_clear()
    try:
        assert default_layout().short() == "3/4/6/2/1"
        s = start(["A", "B"])
        assert s.layout.size("plain") == 6
    finally:
        monkeypatch.undo()
        board_mod.board.cache_clear()


def test_a2_plain_has_the_general_rules_only():
    by, _ = score(player("P", plain=["1901 OC", "1990 SA"]), player("Q"))      # 89 years apart: fine here
    assert by["P"]["total"] is not None
    with pytest.raises(BadInput, match=r"plain\[1\]: 1990 OC repeats the continent of 1901 OC"):
        score(player("P", plain=["1901 OC", "1990 OC"]), player("Q"))


def test_a3_one_era_gap_feasibility_flag():
    p = player("P", one_era=["1940 AS", None, None, "1975 NA"])
    with pytest.raises(BadInput, match=r"one_era\[3\]: 1975 is 35 years after 1940 with 2 spots between them"):
        score(p, player("Q"))
    score(p, player("Q"), options={"one_era_gap_feasibility": False})


def test_a4_einstein_in_one_era_bridges_twenty_years():
    score(player("P", one_era=["1940 AS", "Einstein", "1960 NA"]), player("Q"))
    with pytest.raises(BadInput, match=r"one_era\[2\]: 1961 is 21 years after 1940 with Einstein between them"):
        score(player("P", one_era=["1940 AS", "Einstein", "1961 NA"]), player("Q"))


def test_a5_the_1945_card_counts_in_years_gap_only():
    p = player("P", years_gap=["1945", "1990 EU"], plain=["1944 OC", "1946 SA"])
    q = player("Q", years_gap=["1950 EU", "1990 AS"])
    by, _ = score(p, q)
    assert by["P"]["explain"]["years_gap"]["gap"] == 45 and by["P"]["breakdown"]["years_gap"] == 5
    assert by["P"]["breakdown"]["chain"] == 1          # 1944, (1945 white), 1946: no chain through the white card
    assert by["P"]["breakdown"]["decades"] == 2        # 1940s, 1990s: the white card adds no decade
    by, _ = score(p, q, options={"white_1945_in_years_gap": False})
    assert by["P"]["breakdown"]["years_gap"] == 0 and by["Q"]["breakdown"]["years_gap"] == 5


def test_a6_the_card_that_ends_an_exhibition_is_discarded():
    lines = autoplay.play_game(["Ana", "Ben"], seed=8, depot_chance=0.0)
    s = play(engine.setup(lines[0]), *lines[1:])
    finished = [p for p in s.players if p.finish_reason == "fits_nowhere"]
    assert finished and all(p.discarded in s.discarded for p in finished)
    assert not any(c == finished[0].discarded for c in s.market_cards())


def test_a7_empty_stock_and_market_end_the_game_for_all():
    cards = [from_text(f"{1900 + 5 * i} {CONTINENTS[i % 6]}") for i in range(18)]
    lines = autoplay.play_game(["Ana", "Ben", "Cy"], seed=1, cards=cards, depot_chance=1.0)
    s = play(engine.setup(lines[0]), *lines[1:])
    assert s.finished and s.end_reason == "no_cards" and s.market_cards() == [] and s.stock == 0
    assert engine.summary(s)["scores"]


def test_a8_awards_after_a_tie():
    ps = [player("P", years_gap=["1901 EU", "1981 AS"]), player("Q", years_gap=["1902 EU", "1982 AS"]),
          player("R", years_gap=["1910 EU", "1960 AS"])]
    by, _ = score(*ps)
    assert [by[n]["breakdown"]["years_gap"] for n in "PQR"] == [5, 5, 3]
    by, _ = score(*ps, options={"tie_ranking": "dense"})
    assert [by[n]["breakdown"]["years_gap"] for n in "PQR"] == [5, 5, 4]


def test_a9_awards_stay_5_4_with_two_players():
    by, _ = score(player("P", years_gap=["1901 EU", "1981 AS"]), player("Q", years_gap=["1910 EU", "1960 AS"]))
    assert (by["P"]["breakdown"]["years_gap"], by["Q"]["breakdown"]["years_gap"]) == (5, 4)


def test_a10_links_waives_g2_unless_flagged():
    p = player("P", years_gap=["1920 EU", "1990 EU"])
    score(p, player("Q"), variations={"years_gap": "links"})
    with pytest.raises(BadInput, match=r"years_gap\[1\]: 1990 EU repeats the continent of 1920 EU"):
        score(p, player("Q"), variations={"years_gap": "links"}, options={"links_keeps_g2": True})


def test_a11_unique_decades_five_players_and_solo():
    five = [player(n) for n in "PQRST"]
    five[0] = player("P", years_gap=["1901 EU", "1995 AS"])
    score(*five, variations={"years_gap": "unique_decades"})
    with pytest.raises(BadInput, match=r"years_gap\[1\]: 1961 AS is from the 1960s; in a solo game Unique Decades "
                                       r"takes only the 1940s to the 1950s"):
        score(player("P", years_gap=["1941 EU", "1961 AS"]), variations={"years_gap": "unique_decades"}, market=[])
    score(player("P", years_gap=["1941 EU", "1951 AS"]), variations={"years_gap": "unique_decades"}, market=[])


@pytest.mark.parametrize("card, per_year, points", [
    ("1949 SA", None, 98), ("1949 SA", 3, 97), ("1945", None, 90), ("Einstein", None, 0), (None, None, 0),
    ("1999 EU", None, 2), ("1900 EU", None, 0),
])
def test_a12_solo_mid_century_formula(card, per_year, points):
    options = {} if per_year is None else {"solo_mid_century_per_year": per_year}
    by, _ = score(player("P", mid_century=[card]), market=[], options=options)
    assert by["P"]["breakdown"]["mid_century"] == points


@pytest.mark.parametrize("overlay", ["short_era", "antiquity"])
def test_a13_white_cards_stay_banned_from_short_era_and_antiquity_even_solo(overlay):
    with pytest.raises(BadInput, match=r"years_gap\[0\]: Einstein is a white card; white cards may not go into a "
                                       r"variation showcase"):
        score(player("P", years_gap=["Einstein", "1950 EU"]), variations={"years_gap": overlay}, market=[])


def test_a14_duplicate_years_are_supported():
    by, _ = score(player("P", plain=["1950 EU"], years_gap=["1950 AS", "1951 OC"]), player("Q"))
    assert by["P"]["breakdown"]["chain"] == 2 and by["P"]["explain"]["chain"]["years"] == [1950, 1951]
    assert len(by["P"]["explain"]["chain"]["cards"]) == 3


def test_a15_who_starts():
    assert start(["Ana", "Ben", "Cy"]).player.name == "Ana"
    s = start(["Ana", "Ben", "Cy"], first_player="Ben")
    assert s.player.name == "Ben" and s.players[1].at == "OC" and s.players[2].at == "SA"


def test_a16_depot_allowed_when_the_card_fits_in_the_hall():
    s = start(["Ana", "Ben"])
    s = play(s, {"type": "take", "player": "Ana", "card": cj("1900 OC")})
    assert s.turn.held is not None
    s = play(s, {"type": "place", "player": "Ana", "card": cj("1900 OC"), "spot": "depot[0]"})
    assert s.players[0].exhibit.depot[0] == from_text("1900 OC")


def test_a17_one_continent_claimed_at_placement_first_come_first_served():
    s = start(["Ana", "Ben"], market={"OC": [cj("1912 EU"), cj("1913 OC"), cj("1914 OC")],
                                      "SA": [cj("1920 EU"), cj("1921 AS"), cj("1922 SA")],
                                      **{k: [cj(f"{1930 + 3 * i + j} {k}") for j in range(3)]
                                         for i, k in enumerate(CONTINENTS[2:])}})
    s = play(s, {"type": "take", "player": "Ana", "card": cj("1912 EU")},
             {"type": "place", "player": "Ana", "card": cj("1912 EU"), "spot": "one_continent[0]"},
             {"type": "take", "player": "Ben", "card": cj("1920 EU")})
    assert refused(s, {"type": "place", "player": "Ben", "card": cj("1920 EU"), "spot": "one_continent[0]"}) == (
        "1920 EU: Ana's One Continent already holds EU (1912 EU); each One Continent needs its own continent")
    assert engine.summary(s)["claims"] == {"EU": "Ana"}


def test_a18_empty_or_einstein_mid_century_is_infinitely_far_in_a_tie():
    p = player("P", mid_century=["1955 EU"], plain=["1951 OC"])     # 5 away
    q = player("Q", mid_century=["Einstein"], plain=["1960 AS"])
    r = player("R", plain=["1961 EU", "1965 OC"])                    # Mid-Century empty
    _, result = score(q, r, p)
    assert {x["total"] for x in result["players"]} == {-11}
    assert result["winners"] == ["P"]
    assert [(x["name"], x["place"]) for x in result["players"]] == [("P", 1), ("Q", 2), ("R", 2)]


def test_a19_secret_decade_counts_coloured_hall_cards_only():
    p = player("P", plain=["1941 AS", "1948 SA"], one_era=["1945"], depot=["1946 EU"])
    p["secret_decade"] = 1940
    by, _ = score(p, player("Q"))
    assert by["P"]["breakdown"]["secret_decade"] == 2
    assert by["P"]["explain"]["secret_decade"]["cards"] == ["1941 AS", "1948 SA"]


def test_a20_an_overlay_has_the_spots_of_the_showcase_it_covers():
    layout = {"plain": 3}
    p = player("P", layout=layout, plain=["1920 EU", "1940 AS", "1960 OC"])
    by, result = score(p, player("Q", layout=layout), layout=layout, variations={"plain": "short_era"})
    assert by["P"]["explain"]["short_era"]["span"] == 40
    assert result["warnings"] == ["Short Era suits a 2-spot showcase; it lies on Plain with 3 spots"]
    with pytest.raises(BadInput, match=r"plain: 5 spots listed; plain has 3 in this layout"):
        score(player("P"), player("Q"), layout=layout, variations={"plain": "short_era"})


def bad(*players, **table):
    with pytest.raises(BadInput) as e:
        score_table(dict(players=list(players), **table), "table.json")
    return str(e.value)


def rows_text(result, name, lang):
    entry = next(p for p in result["players"] if p["name"] == name)
    return [f"{r.label if isinstance(r.label, str) else r.label.render(lang)}: "
            f"{'' if r.explain is None else (r.explain if isinstance(r.explain, str) else r.explain.render(lang))}"
            for r in explained(result, entry)]


@pytest.mark.parametrize("name", ["", "   ", None, 7])
def test_a21_a_player_needs_a_name_of_their_own(name):
    assert bad(player("Ana"), {**player("x"), "name": name}).startswith(
        "table.json: players[1].name: a player needs a non-empty name")
    assert bad(player("Ana"), player("Ana")) == "table.json: players[1].name: 'Ana' is used by two players"
    with pytest.raises(BadInput, match="two players have the same name"):
        start(["Ana", "Ana"])
    with pytest.raises(BadInput, match="a list of player names"):
        start(["Ana", "  "])


def test_a21_standings_winners_and_refusals_name_the_player():
    by, result = score(player("Ana", plain=["1950 EU"]), player("Bo"))
    assert result["winners"] == ["Ana"] and [p["name"] for p in result["players"]] == ["Ana", "Bo"]
    for lang, winner in (("en", "Winner: Ana"), ("es", "Ganador: Ana")):
        text = format_score(result, lang)
        assert "1. Ana" in text and "2. Bo" in text and winner in text
    s = start(["Ana", "Bo"])
    new, ev = engine.apply(s, parse_action({"type": "take", "player": "Bo", "card": cj("1903 SA")}))
    assert new is s
    assert refusal(ev).render("en") == "It is Ana's turn, not Bo's."
    assert refusal(ev).render("es") == "Es el turno de Ana, no de Bo."


def test_a22_a_layout_without_a_showcase_keeps_its_default_spots():
    layout = {"plain": 3}                       # one_continent, one_era, years_gap, mid_century: defaults
    by, result = score(player("P", layout=layout), player("Q", layout=layout), layout=layout)
    assert result["layout"] == {"one_continent": 4, "one_era": 4, "plain": 3, "years_gap": 2, "mid_century": 1}
    assert by["P"]["breakdown"]["empty_spots"] == -14
    # the showcase lists must still match that layout, key by key
    assert bad(player("P"), player("Q", layout=layout), layout=layout) == (
        "table.json: players[0].showcases.plain: 5 spots listed; plain has 3 in this layout (null for an empty spot)")


@pytest.mark.parametrize("key, n, ok", [("one_continent", 1, True), ("one_era", 8, True), ("plain", 8, True),
                                        ("plain", 0, False), ("one_era", 9, False), ("one_continent", 9, False),
                                        ("years_gap", 3, False), ("mid_century", 2, False)])
def test_a23_bounds_of_a_configured_layout(key, n, ok):
    layout = {key: n}
    players = (player("P", layout=layout), player("Q", layout=layout))
    if ok:
        by, result = score(*players, layout=layout)
        assert result["layout"][key] == n and sum(result["layout"].values()) != 16     # another total is allowed
        assert by["P"]["breakdown"]["empty_spots"] == -sum(result["layout"].values())
    else:
        assert bad(*players, layout=layout).startswith(f"table.json: layout.{key}: ")


def test_a24_the_same_overlay_on_two_showcases_is_refused():
    assert bad(player("P"), player("Q"), variations={"plain": "links", "one_era": "links"}) == (
        "table.json: variations.one_era: links already lies on plain; each overlay is used once")


def test_a25_no_overlay_on_mid_century():
    assert bad(player("P"), player("Q"), variations={"mid_century": "short_era"}) == (
        "table.json: variations.mid_century: Mid-Century takes no overlay: its single card breaks ties")


SIX = dict(plain=["1901 OC", "1912 SA", "1923 AF", "1934 AS", "1955 EU"], one_era=["1960 NA"])


def test_a26_a_race_round_needs_all_six_continents_in_the_hall():
    p = player("Ana", plain=["1901 OC", "1912 SA"], depot=["1923 AF"])
    p["six_continents_round"] = 4
    assert bad(player("Bo"), p) == (
        "table.json: players[1].six_continents_round: round 4, but the Hall has no AF AS EU NA card: the race "
        "needs a coloured card of each of the six continents in the Hall")
    q = player("Ana", **SIX)
    q["six_continents_round"] = 4
    by, _ = score(q, player("Bo"))
    assert by["Ana"]["breakdown"]["six_continents"] == 5


def test_a27_six_continents_without_a_round():
    by, result = score(player("Ana", **SIX), market=[])
    assert by["Ana"]["breakdown"]["six_continents"] == 100          # solo: 1 FP from the Hall, x 100
    by, result = score(player("Ana", **SIX), player("Bo"))
    assert by["Ana"]["breakdown"]["six_continents"] == 0
    assert result["warnings"] == ["Ana has all six continents in the Hall but no six_continents_round: the race "
                                  "scores 0 for them"]
    assert "Six continents: All six continents, but no round recorded." in rows_text(result, "Ana", "en")
    assert "Seis continentes: Los seis continentes, pero sin ronda anotada." in rows_text(result, "Ana", "es")


@pytest.mark.parametrize("where, key", [("table", "secret_decde"), ("player", "secret_decde"),
                                        ("player", "six_continent_round"), ("table", "variation")])
def test_a28_an_unknown_key_is_refused_by_its_path(where, key):
    p = player("Ana", plain=["1961 EU"])
    if where == "player":
        p[key] = 1960
        assert bad(p, player("Bo")).startswith(f"table.json: players[0].{key}: unknown key; a player has name, ")
    else:
        assert bad(p, player("Bo"), **{key: 1960}).startswith(f"table.json: {key}: unknown key; a table holds ")


@pytest.mark.parametrize("card, message", [
    ({"year": 2005, "continent": "NA"}, "2005 is not in the twentieth century"),
    ({"year": 1899, "continent": "EU"}, "1899 is not in the twentieth century"),
    ({"year": -753, "continent": "EU"}, "753 BC is not in the twentieth century"),
])
def test_a29_a_subject_card_outside_1900_1999_is_refused(card, message, tmp_path, monkeypatch, capsys):
    p = player("Ana", plain=["1901 OC", "1995 AF"], one_era=["1950 AS", "1955 EU", "1960 SA"])
    p["showcases"]["plain"][2] = card
    table = {"players": [p, player("Bo")]}
    assert bad(*table["players"]) == (f"table.json: players[0].showcases.plain[2].year: {message}: Exhibition's "
                                      "cards are from 1900 to 1999")
    # the command: exit 2, one line naming the card's path, no traceback
    monkeypatch.chdir(tmp_path)
    (tmp_path / "table.json").write_text(json.dumps(table))
    assert main(["score", "exhibition", "table.json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [
        f"table.json: players[0].showcases.plain[2].year: {message}: Exhibition's cards are from 1900 to 1999"]
    # the Depot and the market are read by the same card model
    q = player("Ana")
    q["depot"] = [card]
    assert bad(q, player("Bo")).startswith("table.json: players[0].depot[0].year: ")
    assert bad(player("Ana"), market=[card]).startswith("table.json: market[0].year: ")
    # a log line (the kiosk's and replay's) and a deck (the stickers the camera reads)
    with pytest.raises(BadInput, match=re.escape(f"card.year: {message}")):
        parse_action({"type": "take", "player": "Ana", "card": card})
    with pytest.raises(BadInput, match=re.escape(f"market.OC[0].year: {message}")):
        start(["Ana", "Bo"], market={**start_market(), "OC": [card, cj("1901 OC"), cj("1902 OC")]})
    from companion.cards.decks import parse_deck
    with pytest.raises(BadInput, match=re.escape(f"cards[0].year: {message}")):
        parse_deck({"id": "XX", "name": "x", "game": "exhibition", "cards": [{"n": 1, **card}]}, "deck.json")


def test_a29_timeline_keeps_its_years_before_christ():
    from companion.cards.json_cards import parse_card
    assert parse_card({"year": -753, "title": "Foundation of Rome"}, "card").year == -753
    line = {"type": "setup", "game": "timeline", "players": ["A", "B"], "hand": 4, "start": {"year": -753}}
    assert timeline.summary(timeline.setup(line))["timeline"] == [-753]


def start_market():
    return {k: [cj(f"{1900 + 3 * i + j} {k}") for j in range(3)] for i, k in enumerate(CONTINENTS)}


def test_a30_two_players_with_one_secret_decade_are_refused(tmp_path, monkeypatch, capsys):
    ana, bo = player("Ana", plain=["1961 EU"]), player("Bo", plain=["1962 AS"])
    ana["secret_decade"] = bo["secret_decade"] = 1960
    assert bad(ana, bo) == ("table.json: players[1].secret_decade: Bo's Secret Decade, the 1960s, is already "
                            "Ana's: there is one Secret Decade card per decade")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "table.json").write_text(json.dumps({"players": [ana, bo]}))
    assert main(["score", "exhibition", "table.json", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "players[1].secret_decade: Bo's Secret Decade" in err and "Traceback" not in err
    # null (or absent) means the variant is not played by that player
    ana["secret_decade"], bo["secret_decade"] = None, 1960
    by, _ = score(ana, bo)
    assert "secret_decade" not in by["Ana"]["breakdown"] and by["Bo"]["breakdown"]["secret_decade"] == 1
    # in the kiosk (and replay): the engine refuses the second player's decade, in both languages
    s = start(["Ana", "Bo"], secret_decade=True)
    s = play(s, {"type": "secret", "player": "Ana", "decade": 1960})
    new, ev = engine.apply(s, parse_action({"type": "secret", "player": "Bo", "decade": 1960}))
    assert new is s
    assert refusal(ev).render("en") == ("Bo cannot hold the 1960s: that Secret Decade is Ana's, and there is one "
                                        "card per decade.")
    assert refusal(ev).render("es") == ("Bo no puede tener la década de 1960: esa Década Secreta es de Ana, y hay "
                                        "una sola carta por década.")
    s = play(s, {"type": "secret", "player": "Bo", "decade": 1970})
    assert {p.name: p.secret_decade for p in s.players} == {"Ana": 1960, "Bo": 1970}
