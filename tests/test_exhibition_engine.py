"""Exhibition game flow: market, vehicles, take/move/refill/place, finishing, the race, the end, the
Secret Decade, solo, and a whole log replayed from setup to final scores."""

import json

import pytest

from companion import registry
from companion.errors import BadInput
from companion.games.base import refusal
from companion.games.exhibition import autoplay, engine
from companion.games.exhibition.actions import Finish, Move, Place, Refill, Secret, Take, action_to_json, parse_action
from companion.games.exhibition.cards import from_text
from companion.games.exhibition.score import score_table

CONTINENTS = ("OC", "SA", "AF", "AS", "EU", "NA")


def card(text):
    if text == "1945":
        return {"white": "1945"}
    if text == "Einstein":
        return {"white": "einstein"}
    year, continent = text.split()
    return {"year": int(year), "continent": continent}


def market(**columns):
    """Columns by continent (card texts); unnamed columns get filler cards of the 1900s."""
    out, filler = {}, iter(range(1900, 1999))
    for k in CONTINENTS:
        texts = columns.get(k) or []
        out[k] = [card(t) for t in texts] + [card(f"{next(filler)} {k}") for _ in range(3 - len(texts))]
    return out


def start(players=("Ana", "Ben"), **setup):
    line = {"type": "setup", "game": "exhibition", "players": list(players)}
    line.setdefault("market", market())
    line.update(setup)
    if "market" not in setup:
        line["market"] = market()
    return engine.setup(line)


def play(state, *lines):
    """Apply log lines that must all be accepted; returns the state and all events."""
    events = []
    for line in lines:
        state, ev = engine.apply(state, parse_action(line))
        assert refusal(ev) is None, (line, str(refusal(ev)))
        events += ev
    return state, events


def refused(state, line) -> str:
    new, ev = engine.apply(state, parse_action(line))
    assert new is state, "a refused action must leave the state unchanged"
    assert len(ev) == 1
    return str(refusal(ev))


def take(p, c):
    return {"type": "take", "player": p, "card": card(c)}


def place(p, c, spot):
    return {"type": "place", "player": p, "card": card(c), "spot": spot}


def refill(p, c):
    return {"type": "refill", "player": p, "card": card(c)}


def kinds(events):
    return [e.kind for e in events]


# --- setup ----------------------------------------------------------------------------------------


def test_registry_maps_exhibition_to_this_engine():
    assert registry.engine_for("exhibition") is engine


def test_setup_vehicles_start_from_oceania_clockwise_from_the_start_player():
    s = start(("Ana", "Ben", "Cy", "Di", "Ed"))
    assert [p.at for p in s.players] == ["OC", "SA", "AF", "AS", "EU"]
    assert [p.vehicle for p in s.players] == ["Zeppelin", "Ford", "Titanic", "DC-3", "Space Shuttle"]
    assert s.player.name == "Ana" and s.stock == 101 - 18
    s = start(("Ana", "Ben", "Cy"), first_player="Cy")          # A15
    assert [p.at for p in s.players] == ["SA", "AF", "OC"] and s.player.name == "Cy"


def test_setup_keeps_market_columns_in_year_order():
    s = start(market=market(OC=["1980 EU", "Einstein", "1910 AS"]))
    assert [c.year for c in s.column("OC")] == [1910, 1980, None]


@pytest.mark.parametrize("change, where", [
    (dict(players=["A", "B", "C", "D", "E", "F"]), "players"),
    (dict(players=["A", "A"]), "players"),
    (dict(market={k: [card("1950 EU")] for k in CONTINENTS}), "market.OC"),
    (dict(colour="red"), "colour"),
    (dict(first_player="Zed"), "first_player"),
    (dict(stock=-1), "stock"),
    (dict(layout={"plain": 0}), "layout.plain"),
    (dict(options={"links_keeps_g2": "yes"}), "options.links_keeps_g2"),
])
def test_bad_setup_names_the_field(change, where):
    line = {"type": "setup", "game": "exhibition", "players": ["A", "B"], "market": market()}
    line.update(change)
    with pytest.raises(BadInput) as e:
        engine.setup(line)
    assert e.value.where == where


def test_setup_refuses_the_same_sticker_twice():
    m = market()
    m["OC"][0] = "TC:EXH20:017"
    m["NA"][2] = "TC:EXH20:017"
    with pytest.raises(BadInput, match=r"market\.NA\[2\]: 1916 NA is already at market\.OC\[0\]"):
        engine.setup({"type": "setup", "game": "exhibition", "players": ["A"], "market": m})


# --- a turn ---------------------------------------------------------------------------------------


def test_a_turn_take_move_refill_place_then_the_next_player():
    s = start(market=market(OC=["1912 EU", "1950 AS", "1960 NA"]))
    s, ev = play(s, take("Ana", "1912 EU"))
    assert s.player.at == "EU"                                   # the vehicle follows the card's colour
    assert [c.year for c in s.column("OC")] == [1950, 1960]
    choices = next(e.data for e in ev if e.kind == "choices")
    assert "one_continent[0]" in choices["fits"] and choices["depot_free"] == 3
    s, ev = play(s, refill("Ana", "1930 SA"))
    assert [c.year for c in s.column("OC")] == [1930, 1950, 1960] and s.stock == 82
    s, ev = play(s, place("Ana", "1912 EU", "one_continent[0]"))
    assert kinds(ev) == ["placed", "continent_claimed", "turn"]
    assert s.player.name == "Ben" and s.round == 1


def test_place_before_refill_is_fine_and_the_turn_waits_for_the_refill():
    s = start(market=market(OC=["1912 EU"]))
    s, _ = play(s, take("Ana", "1912 EU"), place("Ana", "1912 EU", "plain[0]"))
    assert s.player.name == "Ana" and s.turn.waiting_for() == ["refill"]
    s, ev = play(s, refill("Ana", "1990 SA"))
    assert s.player.name == "Ben"


def test_take_only_from_the_column_under_the_vehicle():
    s = start(market=market(OC=["1912 EU"], SA=["1920 AF"]))
    assert refused(s, take("Ana", "1920 AF")) == ("1920 AF lies in the SA column, but Ana's vehicle stands on OC: take "
                                                  "from OC (1900 OC, 1901 OC, 1912 EU).")
    assert refused(s, take("Ana", "1999 AF")).startswith("1999 AF is not in the market")
    assert refused(s, take("Ben", "1920 AF")) == "It is Ana's turn, not Ben's."
    assert refused(s, {"type": "take", "player": "Zed", "card": card("1912 EU")}).startswith("Zed is not playing")


def test_one_take_per_turn_and_no_place_before_take():
    s = start(market=market(OC=["1912 EU", "1913 AS"]))
    assert refused(s, place("Ana", "1912 EU", "plain[0]")) == "Ana holds no card to place: take one first."
    s, _ = play(s, take("Ana", "1912 EU"))
    assert refused(s, take("Ana", "1913 AS")) == "Ana has already taken 1912 EU this turn."
    assert refused(s, place("Ana", "1913 AS", "plain[0]")) == "Ana took 1912 EU, not 1913 AS."


def test_white_card_the_player_names_the_continent():
    s = start(market=market(OC=["1945"]))
    s, ev = play(s, take("Ana", "1945"))
    assert "choose_continent" in kinds(ev) and s.turn.waiting_for() == ["move", "refill", "place"]
    s, _ = play(s, {"type": "move", "player": "Ana", "to": "NA"}, refill("Ana", "1990 SA"),
                place("Ana", "1945", "mid_century[0]"))
    assert s.players[0].at == "NA" and s.player.name == "Ben"


def test_empty_column_move_first_to_a_continent_with_cards():
    # fillers: SA 1900-1902 SA, AF 1903-1905 AF, AS 1906-1908 AS, EU 1909-1911 EU, NA 1912-1914 NA
    s = start(stock=0, market=market(OC=["1912 EU", "1913 AS", "1914 AF"]))
    s, _ = play(s, take("Ana", "1912 EU"), place("Ana", "1912 EU", "plain[0]"))
    assert s.players[0].at == "EU"
    for ana, ben, spot in [("1909 EU", "1900 SA", "depot[0]"), ("1910 EU", "1901 SA", "depot[1]"),
                           ("1911 EU", "1902 SA", "depot[2]")]:
        s, _ = play(s, take("Ben", ben), place("Ben", ben, spot), take("Ana", ana), place("Ana", ana, spot))
    assert s.column("SA") == () and s.column("EU") == () and s.player.name == "Ben"
    assert refused(s, take("Ben", "1903 AF")) == ("The SA column under Ben's vehicle is empty: first move the vehicle "
                                                  "to another continent.")
    assert refused(s, {"type": "move", "player": "Ben", "to": "EU"}) == (
        "The EU column is empty too; move to a continent that has cards.")
    s, ev = play(s, {"type": "move", "player": "Ben", "to": "AF"}, take("Ben", "1903 AF"))
    assert s.players[1].at == "AF"
    assert [(e.kind, e.data["to"]) for e in ev if e.kind == "vehicle_moved"] == [("vehicle_moved", "AF")]


def test_move_is_refused_while_the_column_has_cards():
    s = start()
    assert refused(s, {"type": "move", "player": "Ana", "to": "AF"}).startswith(
        "The OC column still holds cards: take one of them")


def test_refill_rules():
    s = start(market=market(OC=["1912 EU"], NA=["1999 NA"]))
    assert refused(s, refill("Ana", "1950 SA")).startswith("Nothing to refill yet")
    s, _ = play(s, take("Ana", "1912 EU"))
    m = market(OC=["1912 EU"])
    s2 = engine.setup({"type": "setup", "game": "exhibition", "players": ["Ana", "Ben"],
                       "market": dict(m, NA=["TC:EXH20:017", card("1901 NA"), card("1902 NA")])})
    s2, _ = play(s2, take("Ana", "1912 EU"))
    assert refused(s2, {"type": "refill", "player": "Ana", "card": "TC:EXH20:017"}) == (
        "1916 NA is already in play (market NA); the refill comes from the face-down stock.")
    s, _ = play(s, refill("Ana", "1950 SA"))
    assert refused(s, refill("Ana", "1951 SA")).startswith("The OC column was already refilled")


def test_refill_null_says_the_stock_ran_out():
    s = start(stock=5)
    s, ev = play(s, take("Ana", "1900 OC"), {"type": "refill", "player": "Ana", "card": None},
                 place("Ana", "1900 OC", "plain[0]"))
    assert s.stock == 0 and "stock_empty" in kinds(ev)
    s, _ = play(s, take("Ben", "1903 SA"))
    assert s.turn.waiting_for() == ["place"]


def turn(s, text, spot, move=None):
    """One whole turn of the current player (stock empty: no refill)."""
    name = s.player.name
    lines = ([{"type": "move", "player": name, "to": move}] if move else []) + [take(name, text)]
    lines.append({"type": "finish", "player": name} if spot == "finish" else place(name, text, spot))
    return play(s, *lines)


def test_place_refusals_name_rule_and_spot():
    s = start(("Ana",), stock=0, market=market(OC=["1941 AS"], AS=["1960 AS"]))
    s, _ = turn(s, "1941 AS", "one_era[0]")
    s, _ = play(s, take("Ana", "1960 AS"))
    assert refused(s, place("Ana", "1960 AS", "one_era[1]")) == ("1960 AS repeats the continent of 1941 AS; continents "
                                                                 "must all differ here")
    assert refused(s, place("Ana", "1960 AS", "one_era[9]")) == ("one_era[9]: one_era has 4 spots in this layout "
                                                                 "(one_era[0] to one_era[3]).")
    assert refused(s, place("Ana", "1960 AS", "one_era[0]")) == ("one_era[0] already holds 1941 AS; placed cards never "
                                                                 "move")
    s, ev = play(s, place("Ana", "1960 AS", "plain[0]"))
    assert "placed" in kinds(ev)


# --- finishing, skipping, race, end ---------------------------------------------------------------


SMALL = {"one_continent": 1, "one_era": 1, "plain": 1}     # 1 + 1 + 1 + 2 + 1 = 6 Hall spots


def test_full_hall_finishes_and_the_player_is_skipped():
    # fillers: SA 1900-1902 SA, AS 1903-1905 AS, EU 1906-1908 EU, NA 1909-1911 NA
    s = start(("Ana", "Ben"), layout=SMALL, stock=0,
              market=market(OC=["1920 OC", "1930 OC", "1940 OC"], AF=["1950 AF", "1960 AS", "1970 NA"]))
    s, _ = turn(s, "1920 OC", "one_continent[0]")
    s, _ = turn(s, "1900 SA", "depot[0]")
    s, _ = turn(s, "1930 OC", "one_era[0]")
    s, _ = turn(s, "1901 SA", "depot[1]")
    s, _ = turn(s, "1940 OC", "plain[0]")
    s, _ = turn(s, "1902 SA", "depot[2]")
    s, _ = turn(s, "1950 AF", "years_gap[0]", move="AF")
    s, _ = turn(s, "1906 EU", "plain[0]", move="EU")
    s, _ = turn(s, "1970 NA", "years_gap[1]")
    s, _ = turn(s, "1907 EU", "one_era[0]")
    assert s.round == 6 and s.player.name == "Ana"
    s, ev = turn(s, "1909 NA", "mid_century[0]")
    assert ("exhibition_finished", {"player": "Ana", "reason": "hall_full"}) in [(e.kind, e.data) for e in ev]
    assert s.players[0].finished and s.player.name == "Ben"
    s, ev = turn(s, "1908 EU", "years_gap[0]")
    assert s.player.name == "Ben" and s.round == 7, "Ana is skipped: the next turn is Ben's again, in a new round"
    summary = engine.summary(s)
    assert summary["players"][0]["finish_reason"] == "hall_full" and summary["turn"] == "Ben"


def test_finish_only_with_a_card_that_fits_nowhere_a6():
    s = start(("Ana",), layout=SMALL, stock=0,
              market=market(OC=["1950 EU"], EU=["1940 AS"], AS=["1955 AF"], AF=["1949 NA"], NA=["1990 SA"],
                            SA=["1960 OC"]))
    s, _ = turn(s, "1950 EU", "one_continent[0]")
    s, _ = turn(s, "1940 AS", "one_era[0]")
    s, _ = play(s, take("Ana", "1955 AF"))
    assert refused(s, {"type": "finish", "player": "Ana"}) == (
        "1955 AF fits in plain[0], years_gap[0], years_gap[1] ...; an exhibition ends only with a card that fits "
        "nowhere in the Hall.")
    s, _ = play(s, place("Ana", "1955 AF", "plain[0]"))
    s, _ = turn(s, "1949 NA", "mid_century[0]")
    s, _ = turn(s, "1990 SA", "years_gap[0]")
    s, ev = play(s, take("Ana", "1960 OC"))
    assert next(e.data for e in ev if e.kind == "choices")["fits"] == []
    s, ev = play(s, {"type": "finish", "player": "Ana"})
    assert kinds(ev) == ["discarded", "exhibition_finished", "game_over"]
    assert s.discarded == (from_text("1960 OC"),) and s.players[0].discarded == from_text("1960 OC")
    assert s.finished and s.end_reason == "all_finished"
    assert engine.summary(s)["scores"][0]["breakdown"]["empty_spots"] == -100


def test_six_continents_race_recorded_with_its_round():
    s = start(("Ana",), stock=0, market=market(OC=["1901 OC", "1902 SA"], SA=["1903 AF"], AF=["1904 AS"],
                                               AS=["1905 EU"], EU=["1906 NA"]))
    for text, spot in [("1901 OC", "plain[0]"), ("1902 SA", "plain[1]"), ("1903 AF", "plain[2]"),
                       ("1904 AS", "plain[3]"), ("1905 EU", "plain[4]")]:
        s, ev = turn(s, text, spot)
    assert s.players[0].six_continents_round is None
    s, ev = turn(s, "1906 NA", "one_era[0]")
    race = [e for e in ev if e.kind == "six_continents"]
    assert race and race[0].data == {"player": "Ana", "round": 6, "order": 1}
    assert engine.summary(s)["six_continents"] == [{"player": "Ana", "round": 6}]


def test_cards_in_the_depot_do_not_count_for_the_race():
    s = start(("Ana",), stock=0, market=market(OC=["1901 OC", "1902 SA"], SA=["1903 AF"], AF=["1904 AS"],
                                               AS=["1905 EU"], EU=["1906 NA"]))
    for text, spot in [("1901 OC", "plain[0]"), ("1902 SA", "plain[1]"), ("1903 AF", "plain[2]"),
                       ("1904 AS", "plain[3]"), ("1905 EU", "plain[4]"), ("1906 NA", "depot[0]")]:
        s, ev = turn(s, text, spot)
    assert s.players[0].six_continents_round is None


def test_game_over_when_stock_and_market_are_empty_a7():
    lines = autoplay.play_game(["Ana", "Ben"], seed=3, cards=[from_text(f"{1900 + i} {CONTINENTS[i % 6]}")
                                                              for i in range(20)], depot_chance=1.0)
    s = engine.setup(lines[0])
    s, _ = play(s, *lines[1:])
    assert s.finished and s.end_reason in ("no_cards", "all_finished")
    summary = engine.summary(s)
    assert summary["status"] == "finished" and summary["scores"]
    assert refused(s, take("Ana", "1900 OC")) == "The game is over."


def test_no_cards_end_for_all():
    # 18 cards only (no stock): the game ends when the market runs out, unfinished players included
    lines = autoplay.play_game(["Ana", "Ben", "Cy"], seed=1, depot_chance=1.0,
                               cards=[from_text(f"{1900 + 5 * i} {CONTINENTS[i % 6]}") for i in range(18)])
    s = engine.setup(lines[0])
    s, ev = play(s, *lines[1:])
    assert s.end_reason == "no_cards"
    assert any(p.finish_reason == "game_over" for p in s.players)


# --- Secret Decade, solo ---------------------------------------------------------------------------


def test_secret_decade_variant():
    s = start(("Ana", "Ben"))
    assert refused(s, {"type": "secret", "player": "Ana", "decade": 1960}) == ("This game is played without the Secret "
                                                                              "Decade variant.")
    lines = autoplay.play_game(["Ana", "Ben"], seed=5, secret_decade=True)
    s = engine.setup(lines[0])
    s, _ = play(s, *lines[1:-2])
    assert s.finished
    summary = engine.summary(s)
    assert "scores" not in summary and summary["waiting_for"] == ["secret decade of Ana", "secret decade of Ben"]
    s, _ = play(s, *lines[-2:])
    summary = engine.summary(s)
    assert all("secret_decade" in p["breakdown"] for p in summary["scores"])
    assert refused(s, lines[-1]) == "Ben's Secret Decade is already recorded."


def test_secret_decade_is_hidden_until_the_end():
    s = start(("Ana", "Ben"), secret_decade=True)
    s, _ = play(s, {"type": "secret", "player": "Ben", "decade": 1960})
    players = engine.summary(s)["players"]
    assert players[1]["secret_decade_recorded"] is True and "secret_decade" not in players[1]


def test_solo_game_scores_times_100_with_the_market():
    lines = autoplay.play_game(["Solo"], seed=2)
    s = engine.setup(lines[0])
    s, _ = play(s, *lines[1:])
    score = engine.summary(s)["scores"][0]
    assert "mid_century" in score["breakdown"]
    assert all(v % 100 == 0 for k, v in score["breakdown"].items() if k != "mid_century")


# --- log lines ------------------------------------------------------------------------------------


@pytest.mark.parametrize("line, where", [
    ({"type": "jump", "player": "A"}, "type"),
    ({"type": "take", "player": "A"}, "card"),
    ({"type": "take", "card": card("1950 EU")}, "player"),
    ({"type": "place", "player": "A", "card": card("1950 EU"), "spot": "plain 2"}, "spot"),
    ({"type": "move", "player": "A", "to": "XX"}, "to"),
    ({"type": "secret", "player": "A", "decade": 1965}, "decade"),
    ({"type": "finish", "player": "A", "card": card("1950 EU")}, "card"),
    ({"type": "take", "player": "A", "card": {"year": 1950}}, "card.continent"),
])
def test_malformed_lines_name_the_field(line, where):
    with pytest.raises(BadInput) as e:
        parse_action(line)
    assert e.value.where == where


def test_action_to_json_is_the_inverse_of_parse_action():
    c = from_text("1950 EU")
    for action in (Take("A", c), Move("A", "NA"), Refill("A", c), Refill("A", None), Place("A", c, "depot[1]"),
                   Finish("A"), Secret("A", 1960)):
        assert parse_action(json.loads(json.dumps(action_to_json(action)))) == action


# --- replay from setup to final scores -------------------------------------------------------------


def _table_from_summary(summary):
    return {"players": [{"name": p["name"], "showcases": p["showcases"], "depot": [c for c in p["depot"] if c],
                         "six_continents_round": p["six_continents_round"],
                         **({"secret_decade": p["secret_decade"]} if p.get("secret_decade") else {})}
                        for p in summary["players"]],
            "layout": summary["layout"], "variations": summary["variations"], "options": summary["options"],
            "market": [c for col in summary["market"].values() for c in col]}


@pytest.mark.parametrize("players, seed, variations", [
    (["Ana", "Ben", "Cy"], 11, None),
    (["Ana", "Ben", "Cy", "Di", "Ed"], 12, {"plain": "spread_the_years", "years_gap": "short_era",
                                             "one_era": "unique_decades", "one_continent": "antiquity"}),
    (["Solo"], 13, {"years_gap": "antiquity"}),
    (["Ana", "Ben"], 14, {"one_era": "links", "plain": "one_decade"}),
])
def test_whole_log_replays_to_the_same_scores_as_companion_score(tmp_path, players, seed, variations):
    lines = autoplay.play_game(players, seed=seed, secret_decade=True, variations=variations)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    eng = registry.engine_for(json.loads(log.read_text().splitlines()[0])["game"])
    rows = [json.loads(t) for t in log.read_text().splitlines()]
    s = eng.setup(rows[0])
    for row in rows[1:]:
        s, ev = eng.apply(s, eng.parse_action(row))
        assert refusal(ev) is None
        assert eng.action_to_json(eng.parse_action(row)) == row
    summary = eng.summary(s)
    assert summary["status"] == "finished" and summary["winners"]
    table = _table_from_summary(summary)
    assert score_table(table, "t")["players"] == summary["scores"]


def test_companion_replay_command(tmp_path, capsys):
    from companion.cli import main
    lines = autoplay.play_game(["Ana", "Ben"], seed=21, secret_decade=True)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["replay", str(log), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "exhibition" and doc["status"] == "finished" and doc["scores"]


# --- the examples in docs/exhibition/ stay true ------------------------------------------------------


def test_docs_examples(capsys):
    from pathlib import Path

    from companion.cli import main
    docs = Path(__file__).resolve().parents[1] / "docs" / "exhibition"
    assert main(["score", "exhibition", str(docs / "table.json"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(p["name"], p["total"]) for p in doc["players"]] == [("A", 27), ("B", 26), ("C", -7)]
    assert main(["score", "exhibition", str(docs / "solo.json"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"][0]["total"] == 1898
    rows = [json.loads(t) for t in (docs / "game.jsonl").read_text().splitlines()]
    s = engine.setup(rows[0])
    s, _ = play(s, *rows[1:])
    assert engine.summary(s)["status"] == "finished" and engine.summary(s)["scores"]
