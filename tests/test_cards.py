import json

import pytest

from companion.cards.decks import UnknownCard, all_decks, get_deck, load_deck, resolve
from companion.cards.json_cards import parse_card
from companion.cards.payload import parse_sticker
from companion.errors import BadInput


def test_payload_parsing_tells_stickers_from_foreign_codes():
    assert parse_sticker("TC:EXH20:017").number == 17
    assert parse_sticker("TC:EXH20:017").deck == "EXH20"
    for foreign in ("https://example.com", "4006381333931", "TC:exh20:017", "TC:X:1", "TC:ABCDEFGHI:1",
                    "TC:DEMO:12345", "TC:DEMO:", "TC:DEMO:017 "):
        assert parse_sticker(foreign) is None


def test_demo_deck_loads_and_resolves():
    deck = get_deck("DEMO")
    assert len(deck) == 40
    assert deck.plays("timeline") and deck.plays("cronologia")
    card = resolve("TC:DEMO:006")
    assert card.year == -753 and card.title_es == "Fundación de Roma"


def test_unknown_deck_and_number_are_told_apart():
    with pytest.raises(UnknownCard, match="unknown deck ZZZ"):
        resolve("TC:ZZZ:001")
    with pytest.raises(UnknownCard, match="deck DEMO has no card 999"):
        resolve("TC:DEMO:999")
    with pytest.raises(BadInput, match="foreign"):
        resolve("hello")


def test_corrupt_deck_file_names_file_card_and_field(tmp_path):
    bad = json.loads(get_deck("DEMO").path.read_text())
    bad["cards"][3]["period"] = "victoriana"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(BadInput) as e:
        load_deck(path)
    assert str(e.value).startswith(f"{path}: cards[3].period: unknown period 'victoriana'")
    bad["cards"][3]["period"] = "media"
    bad["cards"][5]["n"] = 1
    path.write_text(json.dumps(bad))
    with pytest.raises(BadInput, match=r"cards\[5\]\.n: number 1 is used twice"):
        load_deck(path)
    path.write_text("{not json")
    with pytest.raises(BadInput, match="line 1 column 2: malformed JSON"):
        load_deck(path)


def test_every_bundled_deck_validates():
    assert all_decks()


def test_card_json_forms():
    assert parse_card({"year": 1912, "continent": "EU"}, "c").continent == "EU"
    assert parse_card({"white": "1945"}, "c").year == 1945
    assert parse_card({"white": "einstein"}, "c").year is None
    assert parse_card(None, "c", allow_empty=True) is None
    with pytest.raises(BadInput, match=r"^c\.continent: 'XX' is not a continent"):
        parse_card({"year": 1912, "continent": "XX"}, "c")
    with pytest.raises(BadInput, match=r"^c\.year"):
        parse_card({"title": "x"}, "c")
