"""Bundled decks, the deck command, CSV import/export and the unknown-card messages."""

import collections
import csv
import json
import re
from pathlib import Path

import pytest

from companion import cli
from companion.cards.deck_csv import parse_cards, parse_year
from companion.cards.decks import (
    ForeignCode,
    UnknownCard,
    all_decks,
    get_deck,
    parse_deck,
    reload_decks,
    resolve,
    user_deck_path,
)
from companion.cards.model import CONTINENTS, ICONS, PERIODS
from companion.errors import BadInput
from companion.paths import assets_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh_registry():
    """Each test sees only the bundled decks; user decks written by a test are removed after it."""
    folder = user_deck_path("X").parent
    before = set(folder.glob("*.json")) if folder.exists() else set()
    reload_decks()
    yield
    if folder.exists():
        for path in set(folder.glob("*.json")) - before:
            path.unlink()
    reload_decks()


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- bundled decks -----------------------------------------------------------------------------------

def test_every_bundled_deck_validates_with_unique_numbers():
    files = sorted((assets_dir() / "decks").glob("*.json"))
    assert {get_deck(str(p)).id for p in files} >= {"DEMO", "HIST", "EXH20", "AK"}
    for path in files:
        raw = json.loads(path.read_text(encoding="utf-8"))
        numbers = [c["n"] for c in raw["cards"]]
        assert len(numbers) == len(set(numbers)), path
        assert len(get_deck(str(path))) == len(numbers)


def test_history_deck_has_both_languages_all_periods_and_a_spread_of_icons():
    deck = get_deck("HIST")
    entries = deck.entries()
    assert len(entries) >= 150
    assert all(e.title and e.title_es and e.year and e.period for e in entries)
    assert {e.period for e in entries} == set(PERIODS)
    assert deck.plays("timeline") and deck.plays("cronologia")
    per_icon = collections.Counter(i for e in entries for i in e.icons)
    assert set(per_icon) == set(ICONS) and min(per_icon.values()) >= len(entries) // 10
    assert sum(1 for e in entries if not e.icons) >= len(entries) // 5
    for period in PERIODS:  # every period can trigger every icon
        assert {i for e in entries if e.period == period for i in e.icons} == set(ICONS)
    years = [e.year for e in entries]
    assert years == sorted(years)  # numbered in date order
    sources = (ROOT / "docs" / "decks-hist-sources.md").read_text(encoding="utf-8")
    checked = [line for line in sources.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(checked) == len(entries)  # every date has its recorded second source


def test_exhibition_deck_is_101_cards_with_two_whites_and_balanced_continents():
    deck = get_deck("EXH20")
    assert len(deck) == 101 and deck.spec.assumed
    entries = deck.entries()
    whites = {e.white: e.n for e in entries if e.white}
    assert whites == {"1945": 46, "einstein": 101}
    coloured = [e for e in entries if not e.white]
    assert sorted(e.year for e in coloured) == [y for y in range(1900, 2000) if y != 1945]
    assert all(e.n == e.year - 1899 for e in coloured)
    counts = collections.Counter(e.continent for e in coloured)
    assert set(counts) == set(CONTINENTS) and max(counts.values()) - min(counts.values()) <= 1
    for decade in range(1900, 2000, 10):
        assert {e.continent for e in coloured if e.year // 10 * 10 == decade} == set(CONTINENTS)
    assert resolve("TC:EXH20:046").year == 1945 and resolve("TC:EXH20:101").white == "einstein"


def test_ancient_knowledge_deck_matches_the_catalog_ids():
    ids = []
    for name in ("builders.csv", "technologies.csv"):
        with open(assets_dir() / "ancient-knowledge" / name, encoding="utf-8") as fh:
            ids += [row["id"] for row in csv.DictReader(fh)]
    deck = get_deck("AK")
    assert [e.ak_id for e in deck.entries()] == ids and len(ids) == 189
    assert [e.n for e in deck.entries()] == list(range(1, 190))


# --- deck command ------------------------------------------------------------------------------------

def test_deck_list_json_shape(capsys):
    code, out, err = run_cli(capsys, "deck", "list", "--json")
    assert code == 0 and err == ""
    decks = json.loads(out)
    assert all(set(d) == {"id", "name", "game", "cards"} for d in decks)
    by_id = {d["id"]: d for d in decks}
    assert by_id["EXH20"]["game"] == "exhibition" and by_id["EXH20"]["cards"] == 101
    assert by_id["HIST"]["cards"] >= 150 and by_id["AK"]["cards"] == 189


def test_register_a_timeline_box_by_typing_titles_and_years(capsys, tmp_path):
    assert run_cli(capsys, "deck", "new", "mybox", "--game", "timeline", "--name", "My box")[0] == 0
    code, out, _ = run_cli(capsys, "deck", "add", "MYBOX", "--year", "1969", "--title", "Moon landing")
    assert code == 0 and out.startswith("TC:MYBOX:001 ")
    code, out, _ = run_cli(capsys, "deck", "add", "mybox", "--year", "753 BC", "--title", "Rome")
    assert out.startswith("TC:MYBOX:002 ")
    assert resolve("TC:MYBOX:002").year == -753
    code, _, err = run_cli(capsys, "deck", "add", "MYBOX", "--number", "1", "--year", "5", "--title", "x")
    assert code == 2 and "already has card 1" in err
    code, _, err = run_cli(capsys, "deck", "add", "MYBOX", "--year", "soon", "--title", "x")
    assert code == 2 and err.startswith("--year: 'soon' is not a year")
    code, _, err = run_cli(capsys, "deck", "add", "MYBOX", "--year", "1492")
    assert code == 2 and err.startswith("--title: a Timeline card needs its title, as printed on the card: ")
    assert "deck add MYBOX --year YEAR --title TITLE" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "deck", "new", "MYBOX", "--game", "timeline")
    assert code == 2 and "already have a deck MYBOX" in err
    code, _, err = run_cli(capsys, "deck", "new", "a", "--game", "timeline")
    assert code == 2 and "2 to 8 capital letters" in err
    code, out, _ = run_cli(capsys, "deck", "show", "MYBOX")
    assert code == 0 and "TC:MYBOX:002" in out and "753 BC" in out


def test_bundled_decks_are_read_only_and_a_copy_replaces_them(capsys, tmp_path):
    code, _, err = run_cli(capsys, "deck", "add", "HIST", "--year", "2024", "--title", "x")
    assert code == 2 and "bundled deck, read-only" in err and "companion deck copy HIST" in err
    code, _, err = run_cli(capsys, "deck", "import", "EXH20", str(tmp_path / "x.csv"))
    assert code == 2 and "companion deck copy EXH20" in err

    # Correct EXH20 against the box: copy, export, fix a continent, import; stickers keep their numbers.
    assert run_cli(capsys, "deck", "copy", "EXH20")[0] == 0
    out_csv = tmp_path / "exh20.csv"
    assert run_cli(capsys, "deck", "export", "EXH20", str(out_csv))[0] == 0
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert rows[0] == {"n": "1", "year": "1900", "continent": rows[0]["continent"], "white": ""}
    old = rows[16]["continent"]
    rows[16]["continent"] = "EU" if old != "EU" else "AS"
    with out_csv.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    # a printed sticker changing meaning is refused unless asked for, and then said loudly, with a backup
    code, out, err = run_cli(capsys, "deck", "import", "EXH20", str(out_csv))
    assert code == 2 and "printed stickers 17 of EXH20 would name other cards" in err and "--replace" in err
    assert resolve("TC:EXH20:017").continent == old
    code, out, err = run_cli(capsys, "deck", "import", "EXH20", str(out_csv), "--replace")
    assert code == 0 and "0 added, 1 changed, 0 removed" in out
    assert err.startswith("WARNING: printed stickers 17 of EXH20 would name other cards")
    assert list(user_deck_path("EXH20").parent.glob("EXH20.*.json.bak"))
    assert resolve("TC:EXH20:017").continent == rows[16]["continent"]
    code, out, _ = run_cli(capsys, "deck", "list")
    assert "Your deck EXH20 replaces the bundled EXH20" in out
    code, _, err = run_cli(capsys, "deck", "delete", "EXH20")        # not asked on a terminal: refused
    assert code == 2 and "run again with --yes" in err
    assert run_cli(capsys, "deck", "delete", "EXH20", "--yes")[0] == 0
    assert resolve("TC:EXH20:017").continent == old


def test_csv_round_trip_of_the_history_deck(capsys, tmp_path):
    path = tmp_path / "hist.csv"
    assert run_cli(capsys, "deck", "export", "HIST", str(path))[0] == 0
    code, out, _ = run_cli(capsys, "deck", "import", "MYHIST", str(path), "--game", "cronologia")
    assert code == 0 and out.startswith(f"Imported {len(get_deck('HIST'))} cards into MYHIST")
    original, copy = get_deck("HIST").entries(), get_deck("MYHIST").entries()
    assert copy == original


def test_csv_errors_name_file_row_and_column(tmp_path):
    def err(text, game="timeline"):
        with pytest.raises(BadInput) as e:
            parse_cards(text, "box.csv", game, "BOX")
        return str(e.value)

    assert err("n,year,title\n1,1969,Moon\n2,abc,Rome\n") == \
        "box.csv: row 3, column B (year): 'abc' is not a year (write 1969, -753 or 753 BC)"
    assert err("n,year,colour\n1,1969,red\n").startswith("box.csv: row 1, column C: unknown column 'colour'")
    # cells pasted from a spreadsheet are tab-separated: read as such, and named so when the header is missing
    assert [(e.year, e.title) for e in parse_cards("n\tyear\ttitle\n1\t1969\tMoon landing\n", "box.csv", "timeline",
                                                    "BOX")] == [(1969, "Moon landing")]
    assert err("1969\tMoon landing\n1492\tColumbus\n").startswith(
        "box.csv: row 1, column A: unknown column '1969'; the first row names the columns (here tab-separated, as "
        "cells pasted from a spreadsheet are), e.g. n,year,")
    assert err("n,year,title\n4,1969,a\n4,1970,b\n") == \
        "box.csv: row 3, column A (n): number 4 is used twice (also row 2)"
    assert err("year,continent\n1912,\n", "exhibition").startswith(
        "box.csv: row 2, column B (continent): an Exhibition")
    assert err("year,title,period\n1066,Hastings,victorian\n", "cronologia").startswith(
        "box.csv: row 2, column C (period): unknown period 'victorian'")
    assert err("year,title\n0,Nothing\n").startswith("box.csv: row 2, column A (year): there is no year 0")
    assert err("year,title\n1969,a,extra\n") == "box.csv: row 2: 3 fields but the header names 2 columns"
    assert err("year,icons\n1969,swap fly\n").startswith("box.csv: row 2, column B (icons): unknown icon 'fly'")
    assert err("").startswith("box.csv: row 1: the first row must name the columns")


def test_csv_reads_what_spreadsheets_write():
    with pytest.raises(BadInput, match="unknown column 'Color'"):
        parse_cards("\ufeffColor;x\n", "b.csv", "timeline", "BOX")
    cards = parse_cards("\ufeffAño;Título;Periodo;Iconos\n753 a. C.;Roma;Antigua;swap, replace_own\n"
                        "c. 3000 BC;Stonehenge;Prehistoria;\n\n1969;Luna;contemporánea;\n",
                        "b.csv", "cronologia", "BOX")
    assert [(c.n, c.year, c.circa, c.period) for c in cards] == [
        (1, -753, False, "antigua"), (2, -3000, True, "prehistoria"), (3, 1969, False, "contemporanea")]
    assert cards[0].icons == ["swap", "replace_own"]
    assert parse_year("10,000 BC") == (-10000, False) and parse_year("h. 1450") == (1450, True)
    with pytest.raises(ValueError):
        parse_year("-753 BC")


def test_import_file_errors(capsys, tmp_path):
    code, _, err = run_cli(capsys, "deck", "import", "NEW", str(tmp_path / "missing.csv"), "--game", "timeline")
    assert code == 2 and err.strip().endswith("missing.csv: no such file")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("year,title\n1492,Col\xf3n\n".encode("latin-1"))
    code, _, err = run_cli(capsys, "deck", "import", "NEW", str(bad), "--game", "timeline")
    assert code == 2 and "save the spreadsheet as 'CSV UTF-8'" in err
    code, _, err = run_cli(capsys, "deck", "import", "NEW", str(bad))
    assert code == 2 and "say which game" in err


# --- what a player who scans an unknown sticker is told ----------------------------------------------

def test_unknown_stickers_say_what_and_how_to_register():
    with pytest.raises(UnknownCard) as e:
        resolve("TC:ZZZ:004")
    assert "unknown deck ZZZ" in str(e.value) and "companion deck new ZZZ" in str(e.value)
    assert "deck add ZZZ --number 4" in str(e.value)
    assert e.value.text.render("es").startswith("mazo desconocido ZZZ")
    with pytest.raises(UnknownCard) as e:
        resolve("TC:EXH20:150")
    assert "deck EXH20 has no card 150" in str(e.value) and "numbered 1 to 101" in str(e.value)
    assert "companion deck copy EXH20" in str(e.value) and "--continent XX" in str(e.value)
    with pytest.raises(ForeignCode) as e:
        resolve("4006381333931")
    assert "foreign" in str(e.value) and e.value.text.render("es") != e.value.text.render("en")


def test_all_decks_resolve_every_number():
    for deck in all_decks():
        for payload in deck.payloads():
            assert resolve(payload).code == payload


@pytest.mark.parametrize("game, card, message", [
    ("exhibition", {"n": 1, "year": 1850, "continent": "EU"}, "cards[0].year: 1850 is not in the twentieth century"),
    ("timeline", {"n": 1, "year": 3000, "title": "x"}, "cards[0].year: 3000 is after this year"),
    ("cronologia", {"n": 1, "year": 3000, "title": "x", "period": "contemporanea"}, "after this year"),
    ("ancient-knowledge", {"n": 1, "ak_id": "babylonn"}, "'babylonn' is not an Ancient Knowledge card; did you "
                                                          "mean babylon?"),
])
def test_a_deck_refuses_cards_its_game_cannot_have(game, card, message):
    with pytest.raises(BadInput, match=re.escape(message)):
        parse_deck({"id": "XX", "name": "x", "game": game, "cards": [card]}, "deck.json")


def test_a_deck_holds_each_card_once():
    cards = [{"n": 1, "year": 1969, "title": "Moon landing"}, {"n": 7, "year": 1969, "title": "Moon landing"}]
    with pytest.raises(BadInput, match=re.escape("cards[1].n: the same card as cards[0] (number 1)")):
        parse_deck({"id": "XX", "name": "x", "game": "timeline", "cards": cards}, "deck.json")
    cards[1]["title"] = "Woodstock"
    assert len(parse_deck({"id": "XX", "name": "x", "game": "timeline", "cards": cards}, "deck.json")) == 2


def test_an_import_keeps_printed_numbers_and_gives_new_cards_new_ones(capsys, tmp_path):
    """A spreadsheet without a number column, in another order, with a card left out: the cards it has
    keep their numbers, a new card gets a number never used, and the missing one is refused."""
    first = tmp_path / "first.csv"
    first.write_text("year,title\n1969,Moon landing\n1989,Fall of the Berlin Wall\n2001,Wikipedia\n",
                     encoding="utf-8")
    assert run_cli(capsys, "deck", "import", "MYBOX", str(first), "--game", "timeline")[0] == 0
    numbers = {c.title: n for n, c in get_deck("MYBOX").cards.items()}
    again = tmp_path / "again.csv"
    again.write_text("year,title\n2007,First iPhone\n2001,Wikipedia\n1989,Fall of the Berlin Wall\n"
                     "1969,Moon landing\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "deck", "import", "MYBOX", str(again))
    assert code == 0 and "1 added, 0 changed, 0 removed" in out
    now = {c.title: n for n, c in get_deck("MYBOX").cards.items()}
    assert {t: now[t] for t in numbers} == numbers and now["First iPhone"] == 4
    less = tmp_path / "less.csv"
    less.write_text("year,title\n1969,Moon landing\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "deck", "import", "MYBOX", str(less))
    assert code == 2 and "stickers 2, 3, 4 would name no card" in err
    assert len(get_deck("MYBOX")) == 4
