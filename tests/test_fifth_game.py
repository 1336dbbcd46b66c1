"""docs/adding-a-game.md, proved: a game registered only here (tests/fifth_game) is known to the log's
replay, the deck files, the sticker sheets and the kiosk's picker, with no other file touched."""

from __future__ import annotations

import json

import pytest

from companion.cards.decks import parse_deck
from companion.cli import main
from companion.errors import BadInput
from companion.games import registry
from companion.i18n import N_

LATER = registry.GameSpec(
    "later", "Later", "fifth_game.engine", views=("fifth_game.view",), deck_columns=("n", "year", "title"),
    card_rule="companion.cards.rules:dated", sticker_placement=N_("Stick each sticker on the date side."),
    print_layout="chronology")


@pytest.fixture
def later():
    registry.register(LATER)
    yield LATER
    registry.unregister("later")
    from companion.ui import games
    games.VIEWS.pop("later", None)


def test_a_log_of_the_fifth_game_replays(later, tmp_path, capsys):
    log = [{"type": "setup", "game": "later", "players": ["Ana", "Bo"]},
           {"type": "lay", "player": "Ana", "card": {"year": 1900}},
           {"type": "lay", "player": "Bo", "card": {"year": 1950}},
           {"type": "lay", "player": "Ana", "card": {"year": 1920}}]
    path = tmp_path / "later.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in log) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "finished" and doc["winner"] == "Bo"
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.startswith("Later: finished")


def test_unknown_until_registered(tmp_path):
    with pytest.raises(BadInput, match="unknown game 'later'"):
        registry.spec_for("later")
    with pytest.raises(BadInput, match="unknown game 'later'"):
        parse_deck({"id": "LATR", "name": "Later", "game": "later", "cards": []}, "later.json")


def test_decks_stickers_and_the_picker_know_it(later, tmp_path):
    deck = parse_deck({"id": "LATR", "name": "Later", "game": "later",
                       "cards": [{"n": 1, "year": 1900, "title": "One"}, {"n": 2, "year": 1950}]}, "later.json")
    assert deck.plays("later") and not deck.plays("timeline")
    with pytest.raises(BadInput, match="needs a year"):
        parse_deck({"id": "LATR", "name": "Later", "game": "later", "cards": [{"n": 1}]}, "later.json")
    from companion.print.stickers import make_sheets
    make_sheets(deck, tmp_path / "later.pdf")
    assert (tmp_path / "later.pdf").stat().st_size > 1000
    from companion.ui.games import available_views
    assert "later" in [v.key for v in available_views()]
