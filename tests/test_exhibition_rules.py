"""Exhibition placement checks (rules §5, §9.2): every check refuses the illegal case and accepts the
legal neighbour, and says which rule and which cards."""

import pytest

from companion.games.exhibition.board import OVERLAYS, default_layout, parse_layout
from companion.games.exhibition.cards import from_text as C
from companion.games.exhibition.options import Options
from companion.games.exhibition.rules import Claims, Context, Exhibit, hall_spots_for, placement_problem
from companion.i18n import translate


def board(layout=None, **showcases) -> Exhibit:
    """A player's board with the given showcases (lists of card texts, None = empty spot)."""
    layout = layout or default_layout()
    ex = Exhibit.empty("A", layout)
    for key, texts in showcases.items():
        assert len(texts) == layout.size(key), key
        for i, t in enumerate(texts):
            if t is not None:
                ex = ex.with_card(key, i, C(t))
    return ex


def check(card: str, spot: str, ex: Exhibit, layout=None, players=2, claims: Claims | None = None, **options):
    """The refusal text (English), or None when the placement is legal."""
    key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
    ctx = Context(layout or default_layout(), Options(**options), players, claims or Claims())
    p = placement_problem(C(card), key, index, ex, ctx)
    return None if p is None else str(p)


# --- §5 validation examples ----------------------------------------------------------------------


def test_one_era_example_of_section_5():
    ex = board(one_era=["1941 AS", "1945", "1953 AF", None])
    assert check("1960 NA", "one_era[3]", ex) is None
    assert check("1965 NA", "one_era[3]", ex) == "1965 is 12 years after 1953; One Era allows at most 10"


def test_plain_example_of_section_5():
    ex = board(plain=["1927 SA", None, "1972 NA", None, None])
    assert check("1958 AS", "plain[1]", ex) is None
    assert check("1958 SA", "plain[1]", ex) == ("1958 SA repeats the continent of 1927 SA; continents must all "
                                                "differ here")
    assert check("1980 AS", "plain[1]", ex) == "1980 AS lies left of 1972 NA; years must rise from left to right"


def test_one_continent_claims_of_section_5():
    ex = board()
    b_holds_europe = Claims(continents={"EU": ("Ben", C("1936 EU"))})
    assert check("1912 EU", "one_continent[0]", ex, claims=b_holds_europe) == (
        "1912 EU: Ben's One Continent already holds EU (1936 EU); each One Continent needs its own continent")
    assert check("1912 AS", "one_continent[0]", ex, claims=b_holds_europe) is None


# --- G1: strictly ascending, Einstein wild ---------------------------------------------------------


def test_g1_equal_years_never_share_a_showcase():
    ex = board(plain=["1927 SA", None, None, None, None])
    assert check("1927 OC", "plain[1]", ex) == ("1927 OC has the same year as 1927 SA; equal years never share a "
                                                "showcase")
    assert check("1928 OC", "plain[1]", ex) is None


def test_g1_reaches_across_empty_spots_and_einstein():
    ex = board(plain=["1950 SA", "Einstein", None, None, None])
    assert check("1940 OC", "plain[3]", ex) == "1940 OC lies right of 1950 SA; years must rise from left to right"
    assert check("1960 OC", "plain[3]", ex) is None


def test_g1_einstein_fits_anywhere_in_order():
    ex = board(plain=["1927 SA", None, "1972 NA", None, "1990 AF"])
    for spot in ("plain[1]", "plain[3]"):
        assert check("Einstein", spot, ex) is None


def test_g1_applies_in_years_gap():
    ex = board(years_gap=[None, "1950 EU"])
    assert check("1960 AS", "years_gap[0]", ex) == "1960 AS lies left of 1950 EU; years must rise from left to right"
    assert check("1908 AS", "years_gap[0]", ex) is None


# --- G2: continents all different -----------------------------------------------------------------


def test_g2_in_years_gap_and_one_era():
    assert check("1990 EU", "years_gap[1]", board(years_gap=["1908 EU", None])) is not None
    assert check("1990 AS", "years_gap[1]", board(years_gap=["1908 EU", None])) is None
    ex = board(one_era=["1941 AS", None, None, None])
    assert "repeats the continent of 1941 AS" in check("1948 AS", "one_era[1]", ex)
    assert check("1948 AF", "one_era[1]", ex) is None


def test_white_cards_have_no_continent_to_repeat():
    ex = board(plain=["1927 SA", None, None, None, None])
    assert check("1945", "plain[1]", ex) is None


# --- One Continent ---------------------------------------------------------------------------------


def test_one_continent_holds_one_continent():
    ex = board(one_continent=["1912 EU", None, None, None])
    assert check("1936 AS", "one_continent[1]", ex) == ("1936 AS is not EU like 1912 EU; One Continent holds one "
                                                        "continent only")
    assert check("1936 EU", "one_continent[1]", ex) is None


def test_one_continent_takes_white_cards_and_keeps_g1():
    ex = board(one_continent=["1912 EU", None, "1961 EU", None])
    assert check("1945", "one_continent[1]", ex) is None
    assert check("Einstein", "one_continent[3]", ex) is None
    assert "years must rise" in check("1970 EU", "one_continent[1]", ex)


def test_one_continent_white_card_first_claims_nothing():
    ex = board(one_continent=["1945", None, None, None])
    claims = Claims(continents={"EU": ("Ben", C("1936 EU"))})
    assert "Ben's One Continent already holds EU" in check("1950 EU", "one_continent[1]", ex, claims=claims)
    assert check("1950 AS", "one_continent[1]", ex, claims=claims) is None


# --- One Era ---------------------------------------------------------------------------------------


def test_one_era_left_neighbour_too():
    ex = board(one_era=[None, "1953 AF", None, None])
    assert check("1940 NA", "one_era[0]", ex) == "1940 is 13 years before 1953; One Era allows at most 10"
    assert check("1943 NA", "one_era[0]", ex) is None


def test_one_era_einstein_between_allows_twenty():
    ex = board(one_era=["1940 AS", "Einstein", None, None])
    assert check("1961 NA", "one_era[2]", ex) == ("1961 is 21 years after 1940 with Einstein between them; One Era "
                                                  "allows at most 20")
    assert check("1960 NA", "one_era[2]", ex) is None


def test_one_era_gap_feasibility_keeps_empty_spots_fillable():
    ex = board(one_era=["1940 AS", None, None, None])
    assert check("1971 NA", "one_era[3]", ex) == (
        "1971 is 31 years after 1940 with 2 spots between them; One Era allows at most 30 there (10 a spot), so "
        "those spots can still be filled")
    assert check("1970 NA", "one_era[3]", ex) is None


def test_one_era_without_feasibility_checks_only_neighbours():
    ex = board(one_era=["1940 AS", None, None, None])
    assert check("1990 NA", "one_era[3]", ex, one_era_gap_feasibility=False) is None
    # ... but Einstein would make them neighbours across one spot
    ex = board(one_era=["1940 AS", None, "1965 NA", None])
    assert check("Einstein", "one_era[1]", ex, one_era_gap_feasibility=False) == (
        "1965 is 25 years after 1940 with Einstein between them; One Era allows at most 20")
    ex = board(one_era=["1940 AS", None, "1960 NA", None])
    assert check("Einstein", "one_era[1]", ex, one_era_gap_feasibility=False) is None


def test_one_era_counts_the_1945_white_card_as_1945():
    ex = board(one_era=["1941 AS", None, None, None])
    assert check("1945", "one_era[1]", ex) is None
    ex = board(one_era=["1930 AS", None, None, None])
    assert check("1945", "one_era[1]", ex) == "1945 is 15 years after 1930; One Era allows at most 10"


# --- Mid-Century, Depot, occupied spots ------------------------------------------------------------


def test_mid_century_takes_any_card():
    for card in ("1999 EU", "Einstein", "1945", "1900 OC"):
        assert check(card, "mid_century[0]", board()) is None


def test_depot_takes_any_card_but_not_on_another():
    ex = board()
    assert check("Einstein", "depot[0]", ex) is None
    ex = ex.with_card("depot", 0, C("1933 NA"))
    assert check("1950 EU", "depot[0]", ex) == "depot[0] already holds 1933 NA; placed cards never move"
    assert check("1950 EU", "depot[1]", ex) is None


def test_occupied_hall_spot_is_refused():
    ex = board(mid_century=["1949 SA"])
    assert check("1950 EU", "mid_century[0]", ex) == "mid_century[0] already holds 1949 SA; placed cards never move"


def test_card_that_fits_nowhere():
    ex = board(one_continent=["1912 EU", "1936 EU", "1961 EU", "1989 EU"],
               one_era=["1941 AS", "1945", "1953 AF", "1960 NA"],
               plain=["1903 OC", "1927 SA", "1958 AS", "1972 NA", "1995 AF"],
               years_gap=["1908 AF", None], mid_century=["1949 SA"])
    ctx = Context(default_layout(), Options(), 2)
    assert hall_spots_for(C("1990 AF"), ex, ctx) == []
    assert hall_spots_for(C("1990 OC"), ex, ctx) == ["years_gap[1]"]


# --- Variation overlays ----------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_white_cards_may_not_go_into_any_overlay(overlay):
    layout = parse_layout(None, {"years_gap": overlay})
    ex = board(layout)
    for white in ("1945", "Einstein"):
        assert "white cards may not go into a variation showcase" in check(white, "years_gap[0]", ex, layout)
    assert check("1945 EU", "years_gap[0]", ex, layout) is None


def test_spread_the_years():
    layout = parse_layout(None, {"plain": "spread_the_years"})
    ex = board(layout, plain=["1920 EU", None, None, None, None])
    assert check("1935 AS", "plain[1]", ex, layout) == ("1935 AS is only 15 years after 1920 EU; Spread the Years "
                                                        "needs at least 20 between neighbours")
    assert check("1940 AS", "plain[1]", ex, layout) is None
    assert check("1925 AS", "plain[2]", ex, layout) is None     # not neighbours: spots are not adjacent
    assert "repeats the continent" in check("1940 EU", "plain[1]", ex, layout)   # G2 still applies


def test_links_waives_g2_by_default():
    layout = parse_layout(None, {"years_gap": "links"})
    ex = board(layout, years_gap=["1920 EU", None])
    assert check("1930 AS", "years_gap[1]", ex, layout) == (
        "1930 AS is 10 years after 1920 EU and from another continent; Links needs the same continent or at most 5 "
        "years between neighbours")
    assert check("1925 AS", "years_gap[1]", ex, layout) is None
    assert check("1990 EU", "years_gap[1]", ex, layout) is None
    assert "repeats the continent" in check("1990 EU", "years_gap[1]", ex, layout, links_keeps_g2=True)
    assert "years must rise" in check("1910 EU", "years_gap[1]", ex, layout)


def test_short_era_and_antiquity_keep_the_general_rules():
    for overlay in ("short_era", "antiquity"):
        layout = parse_layout(None, {"years_gap": overlay})
        ex = board(layout, years_gap=["1920 EU", None])
        assert "repeats the continent" in check("1930 EU", "years_gap[1]", ex, layout)
        assert "years must rise" in check("1910 AS", "years_gap[1]", ex, layout)
        assert check("1930 AS", "years_gap[1]", ex, layout) is None


def test_one_decade():
    layout = parse_layout(None, {"years_gap": "one_decade"})
    ex = board(layout, years_gap=["1923 EU", None])
    assert check("1930 AS", "years_gap[1]", ex, layout) == ("1930 AS is from the 1930s but 1923 EU from the 1920s; "
                                                            "One Decade holds one decade only")
    assert check("1929 AS", "years_gap[1]", ex, layout) is None


@pytest.mark.parametrize("players, refused, accepted", [
    (1, "1939 AS", "1940 AS"), (1, "1960 AS", "1959 AS"),
    (2, "1929 AS", "1930 AS"), (2, "1970 AS", "1969 AS"),
    (3, "1919 AS", "1920 AS"), (3, "1980 AS", "1979 AS"),
    (4, "1909 AS", "1910 AS"), (4, "1990 AS", "1989 AS"),
    (5, None, "1900 AS"), (5, None, "1999 AS"),
])
def test_unique_decades_ranges_by_player_count(players, refused, accepted):
    layout = parse_layout(None, {"years_gap": "unique_decades"})
    ex = board(layout)
    if refused:
        assert "Unique Decades takes only the" in check(refused, "years_gap[0]", ex, layout, players=players)
    assert check(accepted, "years_gap[0]", ex, layout, players=players) is None


def test_unique_decades_messages_name_the_range():
    layout = parse_layout(None, {"years_gap": "unique_decades"})
    assert check("1925 AS", "years_gap[0]", board(layout), layout, players=2) == (
        "1925 AS is from the 1920s; with 2 players Unique Decades takes only the 1930s to the 1960s")
    assert check("1925 AS", "years_gap[0]", board(layout), layout, players=1) == (
        "1925 AS is from the 1920s; in a solo game Unique Decades takes only the 1940s to the 1950s")


def test_unique_decades_each_decade_once_across_players():
    layout = parse_layout(None, {"years_gap": "unique_decades"})
    ex = board(layout, years_gap=["1933 EU", None])
    assert check("1938 AS", "years_gap[1]", ex, layout) == ("1938 AS repeats the 1930s of 1933 EU; Unique Decades "
                                                            "takes each decade once")
    claims = Claims(decades={1950: ("Ben", C("1955 OC"))})
    assert check("1952 AS", "years_gap[1]", ex, layout, claims=claims) == (
        "1952 AS: the 1950s are already in Ben's Unique Decades (1955 OC)")
    assert check("1962 AS", "years_gap[1]", ex, layout, claims=claims) is None


def test_overlay_on_one_continent_replaces_its_rule():
    layout = parse_layout(None, {"one_continent": "one_decade"})
    ex = board(layout, one_continent=["1921 EU", None, None, None])
    claims = Claims(continents={"AS": ("Ben", C("1936 AS"))})
    assert "repeats the continent" in check("1925 EU", "one_continent[1]", ex, layout)   # G2 now applies
    assert check("1925 AS", "one_continent[1]", ex, layout, claims=claims) is None       # no claim any more


# --- Refusals are translated -----------------------------------------------------------------------


def test_refusals_have_spanish():
    ex = board(one_era=["1941 AS", "1945", "1953 AF", None])
    key, index = "one_era", 3
    p = placement_problem(C("1965 NA"), key, index, ex, Context(default_layout(), Options(), 2))
    spanish = p.text().render("es")
    assert spanish != str(p) and "1965" in spanish and "1953" in spanish
    assert translate(p.msgid, "es") != p.msgid


# --- a refusal names the card just laid first ------------------------------------------------------


def said(card: str, spot: str, ex: Exhibit, layout=None, players=2) -> tuple[str, str]:
    key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
    ctx = Context(layout or default_layout(), Options(), players, Claims())
    text = placement_problem(C(card), key, index, ex, ctx).text()
    return text.render("en"), text.render("es")


@pytest.mark.parametrize("card, spot, showcases, overlay, en, es", [
    ("1920 AF", "one_continent[0]", {"one_continent": [None, "1930 EU", None, None]}, None,
     "1920 AF is not EU like 1930 EU; One Continent holds one continent only",
     "1920 AF no es de EU como 1930 EU"),
    ("1920 AF", "plain[0]", {"plain": [None, "1930 AF", None, None, None]}, None,
     "1920 AF repeats the continent of 1930 AF; continents must all differ here", "1920 AF repite"),
    ("1930 AS", "plain[0]", {"plain": [None, "1930 AF", None, None, None]}, None,
     "1930 AS has the same year as 1930 AF; equal years never share a showcase", "1930 AS "),
    ("1960 AS", "plain[2]", {"plain": [None, "1970 AF", None, None, None]}, None,
     "1960 AS lies right of 1970 AF; years must rise from left to right",
     "1960 AS queda a la derecha de 1970 AF"),
    ("1980 AS", "plain[1]", {"plain": [None, None, "1970 AF", None, None]}, None,
     "1980 AS lies left of 1970 AF; years must rise from left to right",
     "1980 AS queda a la izquierda de 1970 AF"),
    ("1941 NA", "one_era[0]", {"one_era": [None, "1953 AF", None, None]}, None,
     "1941 is 12 years before 1953; One Era allows at most 10", "1941 está 12 años antes de 1953"),
    ("1920 AS", "one_era[0]", {"one_era": [None, "Einstein", "1945 AF", None]}, None,
     "1920 is 25 years before 1945 with Einstein between them; One Era allows at most 20",
     "1920 está 25 años antes de 1945 con Einstein"),
    ("1920 AS", "one_era[0]", {"one_era": [None, None, "1945 AF", None]}, None,
     "1920 is 25 years before 1945 with 1 spots between them", "1920 está 25 años antes de 1945 con 1 huecos"),
    ("1925 AS", "plain[0]", {"plain": [None, "1935 EU", None, None, None]}, "spread_the_years",
     "1925 AS is only 10 years before 1935 EU; Spread the Years needs at least 20 between neighbours",
     "1925 AS está solo 10 años antes de 1935 EU"),
    ("1925 AS", "plain[0]", {"plain": [None, "1935 EU", None, None, None]}, "links",
     "1925 AS is 10 years before 1935 EU and from another continent", "1925 AS está 10 años antes de 1935 EU"),
    ("1925 AS", "plain[0]", {"plain": [None, "1935 EU", None, None, None]}, "one_decade",
     "1925 AS is from the 1920s but 1935 EU from the 1930s", "1925 AS"),
    ("1933 AS", "years_gap[0]", {"years_gap": [None, "1935 EU"]}, "unique_decades",
     "1933 AS repeats the 1930s of 1935 EU", "1933 AS"),
])
def test_a_refusal_names_the_card_just_laid_first(card, spot, showcases, overlay, en, es):
    key = spot[:spot.index("[")]
    layout = parse_layout(None, {key: overlay}) if overlay else default_layout()
    english, spanish = said(card, spot, board(layout, **showcases), layout)
    assert english.startswith(en), english
    assert spanish.startswith(es) and spanish != english, spanish


def test_a_refusal_words_the_white_1945_card_in_the_reader_language():
    english, spanish = said("1945", "plain[0]", board(plain=[None, "1930 AF", None, None, None]))
    assert english == "1945 white lies left of 1930 AF; years must rise from left to right"
    assert spanish == "1945 blanca queda a la izquierda de 1930 AF; los años deben subir de izquierda a derecha"
