"""Exhibition scoring (rules §7-§9): the spec's worked examples, the variants, and `companion score`."""

import copy
import json

import pytest

from companion.cli import main
from companion.errors import BadInput
from companion.games.exhibition.score import format_score, ladder, longest_chain, score_table


def cards(*texts):
    """Card JSON (cli.md forms) from the way players write cards; None = empty spot."""
    out = []
    for t in texts:
        if t is None:
            out.append(None)
        elif t == "1945":
            out.append({"white": "1945"})
        elif t == "Einstein":
            out.append({"white": "einstein"})
        else:
            year, continent = t.split()
            out.append({"year": int(year), "continent": continent})
    return out


def player(name, one_continent=(None,) * 4, one_era=(None,) * 4, plain=(None,) * 5, years_gap=(None, None),
           mid_century=(None,), depot=(), **extra):
    p = {"name": name,
         "showcases": {"one_continent": cards(*one_continent), "one_era": cards(*one_era), "plain": cards(*plain),
                       "years_gap": cards(*years_gap), "mid_century": cards(*mid_century)},
         "depot": cards(*depot)}
    p.update(extra)
    return p


# Player A of rules §8 (16 of 16 filled, one card in the Depot).
A = player("A",
           one_continent=("1912 EU", "1936 EU", "1961 EU", "1989 EU"),
           one_era=("1941 AS", "1945", "1953 AF", "1960 NA"),
           plain=("1903 OC", "1927 SA", "1958 AS", "1972 NA", "1995 AF"),
           years_gap=("1908 AF", "1991 OC"),
           mid_century=("1949 SA",),
           depot=("1933 NA",),
           six_continents_round=9)

# Player B: 25 FP as well (race 4, Years Gap 70 -> 4, focus 4, decades 10, chain 3), Mid-Century 1955.
B = player("B",
           one_continent=("1906 AS", "1931 AS", "1968 AS", "1984 AS"),
           one_era=("1940 SA", "1941 AF", "1942 EU", "1950 NA"),
           plain=("1911 OC", "1925 SA", "1936 AF", "1972 EU", "1995 NA"),
           years_gap=("1920 OC", "1990 NA"),
           mid_century=("1955 EU",),
           six_continents_round=10)

# Player C: Years Gap 41, nothing else.
C = player("C", years_gap=("1930 EU", "1971 AF"))

SOLO_MARKET = [{"year": y, "continent": "EU"} for y in
               (1901, 1915, 1922, 1934, 1947, 1956, 1963, 1970, 1981, 1987, 1993, 1998)]


def by_name(result):
    return {p["name"]: p for p in result["players"]}


# --- §8 worked example ------------------------------------------------------------------------------


def test_worked_example_player_a_scores_25():
    result = score_table({"players": [A, B, C]}, "t.json")
    a = by_name(result)["A"]
    assert a["breakdown"] == {"six_continents": 5, "years_gap": 5, "continent_focus": 4, "decades": 10, "chain": 2,
                              "empty_spots": 0, "depot": -1}
    assert a["total"] == 25
    assert a["explain"]["continent_focus"]["continents"] == ["EU"]
    assert a["explain"]["chain"]["years"] == [1960, 1961]
    assert [c["spot"] for c in a["explain"]["chain"]["cards"]] == ["one_era[3]", "one_continent[2]"]
    assert a["explain"]["years_gap"] == {"covered_by": None, "cards": ["1908 AF", "1991 OC"], "gap": 83, "rank": 1,
                                         "ranked": 3}
    assert by_name(result)["B"]["breakdown"]["years_gap"] == 4
    assert by_name(result)["C"]["breakdown"]["years_gap"] == 3


def test_worked_example_secret_decade_makes_27():
    a = dict(A, secret_decade=1960)
    result = score_table({"players": [a, B, C]}, "t.json")
    pa = by_name(result)["A"]
    assert pa["breakdown"]["secret_decade"] == 2 and pa["total"] == 27
    assert pa["explain"]["secret_decade"]["cards"] == ["1960 NA", "1961 EU"]
    assert "secret_decade" not in by_name(result)["B"]["breakdown"]


def test_tie_on_25_won_by_the_card_one_year_from_1950():
    result = score_table({"players": [B, A, C]}, "t.json")
    assert by_name(result)["B"]["total"] == 25 == by_name(result)["A"]["total"]
    assert result["winners"] == ["A"]
    assert [(p["name"], p["place"]) for p in result["players"]] == [("A", 1), ("B", 2), ("C", 3)]
    assert "tie on 25 fame points broken by the Mid-Century card closest to 1950" in format_score(result)


def test_still_tied_shares_the_place():
    b = copy.deepcopy(B)
    b["showcases"]["mid_century"] = cards("1951 EU")       # 1 away as well
    result = score_table({"players": [A, b, C]}, "t.json")
    assert result["winners"] == ["A", "B"]
    assert [p["place"] for p in result["players"]] == [1, 1, 3]
    assert "Shared first place: A, B" in format_score(result)


def test_solo_years_gap_example_and_the_1898_total():
    result = score_table({"players": [A], "market": SOLO_MARKET}, "t.json")
    a = result["players"][0]
    assert a["breakdown"] == {"six_continents": 100, "years_gap": 200, "continent_focus": 400, "decades": 1000,
                              "chain": 200, "empty_spots": 0, "depot": -100, "mid_century": 98}
    assert a["total"] == 1898
    assert a["explain"]["years_gap"]["market_outside"] == [1901, 1993, 1998]
    assert result["winners"] == ["A"] and a["place"] == 1


# --- cli.md document shape -----------------------------------------------------------------------


def test_document_keys_follow_cli_md():
    result = score_table({"players": [A, B, C]}, "t.json")
    assert result["game"] == "exhibition"
    for p in result["players"]:
        assert {"name", "total", "place", "breakdown"} <= set(p)
        assert list(p["breakdown"]) == ["six_continents", "years_gap", "continent_focus", "decades", "chain",
                                        "empty_spots", "depot"]
        assert p["total"] == sum(p["breakdown"].values())
    assert "warnings" not in result


def test_score_sheet_explains_each_figure():
    text = format_score(score_table({"players": [dict(A, secret_decade=1960), B, C]}, "t.json"))
    text = " ".join(text.split())         # long reasons wrap
    for needle in ("1. A: 27 fame points", "Complete in round 9: place 1 of 2",
                   "1908 AF | 1991 OC = 83 years: place 1 of 3",
                   "Continent Focus: EU × 4: 1912 EU, 1936 EU, 1961 EU, 1989 EU.",
                   "Decades: 1900s–1990s",
                   "Chain of Years: 1960–1961: 1960 NA, 1961 EU.",
                   "Depot: 1933 NA", "Secret Decade: The 1960s: 1960 NA, 1961 EU.",
                   "Mid-Century: 1949 SA: 1 year from 1950. It breaks ties.", "Winner: A"):
        assert needle in text, needle


def test_score_sheet_in_spanish():
    text = format_score(score_table({"players": [A, B, C]}, "t.json"), "es")
    assert "Ganador: A" in text and "Cadena de años: 1960–1961" in text and "puesto 1 de 3" in text


# --- variation showcases and solo formulas -------------------------------------------------------


def test_short_era_smallest_span_first_not_full_scores_0():
    variations = {"years_gap": "short_era"}
    p1 = player("P1", years_gap=("1950 EU", "1953 AS"))
    p2 = player("P2", years_gap=("1950 OC", "1960 AS"))
    p3 = player("P3", years_gap=("1950 SA", None))
    result = by_name(score_table({"players": [p1, p2, p3], "variations": variations}, "t"))
    assert [result[n]["breakdown"]["short_era"] for n in ("P1", "P2", "P3")] == [5, 4, 0]
    assert result["P1"]["breakdown"]["years_gap"] == 0     # covered: Years Gap no longer scores
    assert result["P1"]["explain"]["years_gap"]["covered_by"] == "short_era"


def test_antiquity_lowest_rightmost_first_empty_scores_0():
    variations = {"years_gap": "antiquity"}
    p1 = player("P1", years_gap=(None, "1930 AS"))
    p2 = player("P2", years_gap=("1905 OC", "1920 AS"))
    p3 = player("P3", years_gap=("1905 SA", None))
    result = by_name(score_table({"players": [p1, p2, p3], "variations": variations}, "t"))
    assert [result[n]["breakdown"]["antiquity"] for n in ("P1", "P2", "P3")] == [4, 5, 0]


def test_solo_short_era_and_antiquity_count_market_cards():
    market = cards("1901 EU", "1925 AS", "1927 OC", "1940 NA")
    short = player("S", plain=("1920 EU", "1930 AS", None, None, None))
    result = score_table({"players": [short], "variations": {"plain": "short_era"}, "market": market}, "t")
    assert result["players"][0]["breakdown"]["short_era"] == 0          # not full
    short = player("S", years_gap=("1920 EU", "1930 AS"))
    result = score_table({"players": [short], "variations": {"years_gap": "short_era"}, "market": market}, "t")
    assert result["players"][0]["breakdown"]["short_era"] == 300        # 1925, 1927 between -> 5 - 2
    old = player("S", years_gap=("1910 EU", "1930 AS"))
    result = score_table({"players": [old], "variations": {"years_gap": "antiquity"}, "market": market}, "t")
    assert result["players"][0]["breakdown"]["antiquity"] == 200        # 1901, 1925, 1927 lower -> 5 - 3


def test_placement_overlays_have_a_key_worth_0():
    p = player("P", plain=("1920 EU", "1940 AS", None, None, None))
    result = by_name(score_table({"players": [p, player("Q")], "variations": {"plain": "spread_the_years",
                                                                                "years_gap": "links"}}, "t"))
    b = result["P"]["breakdown"]
    assert b["spread_the_years"] == 0 and b["links"] == 0 and result["P"]["total"] == sum(b.values())
    assert result["P"]["explain"]["spread_the_years"] == {"showcase": "plain", "cards": ["1920 EU", "1940 AS"]}
    assert "Spread the Years: On Plain: a placement rule, no award." in format_score(score_table(
        {"players": [p, player("Q")], "variations": {"plain": "spread_the_years"}}, "t"))


def test_solo_six_continents_is_one_fp_once_achieved_without_a_round():
    a = dict(A)
    del a["six_continents_round"]
    result = score_table({"players": [a], "market": []}, "t")
    assert result["players"][0]["breakdown"]["six_continents"] == 100


def test_race_same_round_same_award():
    b = dict(B, six_continents_round=9)
    result = by_name(score_table({"players": [A, b, C]}, "t"))
    assert result["A"]["breakdown"]["six_continents"] == 5 == result["B"]["breakdown"]["six_continents"]


def test_ladder_competition_and_dense():
    values = {"a": 10, "b": 10, "c": 8, "d": None}
    assert ladder(values, False) == {"a": 5, "b": 5, "c": 3, "d": 0}
    assert ladder(values, False, "dense") == {"a": 5, "b": 5, "c": 4, "d": 0}


def test_chain_is_at_least_one_even_for_an_empty_hall():
    assert longest_chain([]) == []
    result = score_table({"players": [player("E"), player("F")]}, "t")
    assert by_name(result)["E"]["breakdown"]["chain"] == 1
    assert by_name(result)["E"]["breakdown"]["empty_spots"] == -16


# --- tables that break a rule --------------------------------------------------------------------


def test_table_breaking_one_era_names_player_showcase_spot_rule():
    bad = player("Ben", one_era=("1943 AS", "1953 AF", "1965 NA", None))
    with pytest.raises(BadInput) as e:
        score_table({"players": [C, bad]}, "table.json")
    assert str(e.value) == ("table.json: players[1].showcases.one_era[2]: 1965 is 12 years after 1953; One Era allows "
                            "at most 10")


def test_two_one_continents_sharing_a_continent_are_refused_at_the_later_player():
    b = player("B", one_continent=("1937 EU", None, None, None))
    with pytest.raises(BadInput, match=r"^t: players\[1\]\.showcases\.one_continent\[0\]: 1937 EU: A's One Continent "
                                       r"already holds EU"):
        score_table({"players": [A, b]}, "t")


@pytest.mark.parametrize("change, message", [
    (lambda t: t["players"][0]["showcases"]["plain"].pop(), r"players\[0\]\.showcases\.plain: 4 spots listed; plain "
                                                            r"has 5"),
    (lambda t: t["players"][0].update(six_continents_round=0), r"six_continents_round: 0 is not a round number"),
    (lambda t: t["players"][0].update(secret_decade=1965), r"secret_decade: 1965 is not the first year of a decade"),
    (lambda t: t["players"][0].update(colour="red"), r"players\[0\]\.colour: unknown key"),
    (lambda t: t["players"][0]["showcases"]["plain"].__setitem__(1, {"year": 1927}),
     r"showcases\.plain\[1\]\.continent: an Exhibition card needs a continent"),
    (lambda t: t["players"][0]["showcases"]["plain"].__setitem__(1, "TC:EXH20:999"), r"deck EXH20 has no card 999"),
    (lambda t: t["players"][1]["showcases"]["one_era"].__setitem__(1, {"white": "1945"}),
     r"players\[1\]\.showcases\.one_era\[1\]: 1945 white is already at players\[0\]\.showcases\.one_era\[1\]"),
    (lambda t: t["players"][1].update(six_continents_round=3, name="Z"),
     r"players\[1\]\.six_continents_round: round 3, but the Hall has no"),
    (lambda t: t.update(layout={"years_gap": 3}), r"layout\.years_gap: Years Gap has 2 spots"),
    (lambda t: t.update(variations={"mid_century": "antiquity"}), r"variations\.mid_century: Mid-Century takes no "
                                                                  r"overlay"),
    (lambda t: t.update(variations={"plain": "links", "one_era": "links"}), r"links already lies on"),
    (lambda t: t.update(options={"tie_ranking": "olympic"}), r"options\.tie_ranking: 'olympic' is not one of"),
    (lambda t: t["players"].append(copy.deepcopy(t["players"][0])), r"players\[2\]\.name: 'A' is used by two"),
])
def test_bad_tables_name_the_place(change, message):
    table = {"players": [copy.deepcopy(A), player("B")]}
    change(table)
    with pytest.raises(BadInput, match=message):
        score_table(table, "t")


def test_sticker_payloads_resolve_through_the_exh20_deck():
    # EXH20: sticker number = year - 1899 (decks: assets/decks/exh20.json); 046 is the white 1945 card
    p = player("S")
    p["showcases"]["one_era"] = ["TC:EXH20:043", "TC:EXH20:046", None, None]
    result = score_table({"players": [p, player("T")]}, "t")
    assert by_name(result)["S"]["explain"]["years_gap"]["cards"] == ["empty", "empty"]
    p["showcases"]["plain"][0] = "TC:EXH20:043"
    with pytest.raises(BadInput, match=r"plain\[0\]: TC:EXH20:043 \(1942 \w\w\) is already at "
                                       r"players\[0\]\.showcases\.one_era\[0\]"):
        score_table({"players": [p, player("T")]}, "t")


# --- the command ---------------------------------------------------------------------------------


def _run(tmp_path, monkeypatch, capsys, table, *args):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "table.json").write_text(table if isinstance(table, str) else json.dumps(table))
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_command_json_is_one_document(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, {"players": [A, B, C]}, "exhibition", "table.json", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["winners"] == ["A"] and doc["players"][0]["total"] == 25


def test_command_text_sheet(tmp_path, monkeypatch, capsys):
    code, out, _ = _run(tmp_path, monkeypatch, capsys, {"players": [A, B, C]}, "exhibition", "table.json")
    assert code == 0 and "Winner: A" in out and "Total" in out


def test_command_exit_2_for_an_illegal_table(tmp_path, monkeypatch, capsys):
    bad = player("Ben", one_era=("1943 AS", "1953 AF", "1965 NA", None))
    code, out, err = _run(tmp_path, monkeypatch, capsys, {"players": [C, bad]}, "exhibition", "table.json", "--json")
    assert code == 2 and out == ""
    assert err == ("table.json: players[1].showcases.one_era[2]: 1965 is 12 years after 1953; One Era allows at "
                   "most 10\n")


@pytest.mark.parametrize("content, args, message", [
    ("{not json", ("exhibition", "table.json"), "table.json: line 1 column 2: malformed JSON"),
    ("[]", ("exhibition", "table.json"), "table.json: the table must be a JSON object"),
    ("{}", ("chess", "table.json"), "chess: no scoring for this game"),
    ("{}", ("exhibition", "missing.json"), "missing.json: no such file"),
])
def test_command_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, capsys, content, args, message):
    code, out, err = _run(tmp_path, monkeypatch, capsys, content, *args)
    assert code == 2 and out == "" and err.startswith(message) and err.count("\n") == 1
