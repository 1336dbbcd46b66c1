"""docs/adding-a-game.md, proved: a game registered only here (tests/fifth_game) is known to the log's
replay, the deck files and the sticker sheets, with no other file touched; the kiosk's picker offers its
view only once it keeps the whole contract the doc lists (the toy view here does not, and is left out)."""

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



def test_the_picker_offers_only_a_view_that_keeps_the_whole_contract(later, caplog):
    """Offered with only its key and title, the toy game's view stopped the kiosk at its first question
    (AttributeError: 'LaterView' object has no attribute 'empty_layout'); now it is left out, and the
    log says what it lacks. Every shipped view keeps the contract."""
    from companion.play.view import CONTRACT
    from companion.ui.games import available_views, missing_parts, view_for

    offered = [v.key for v in available_views()]
    assert "later" not in offered and len(offered) >= 5
    assert {"empty_layout", "codes_on_table", "setup_prompt", "read_setup"} <= set(missing_parts(view_for("later")))
    assert "the later view is not offered: it lacks " in caplog.text and "empty_layout" in caplog.text
    assert all(missing_parts(v) == [] for v in available_views())
    assert len(CONTRACT) > 30


def test_adding_a_game_lists_every_part_of_the_contract():
    from pathlib import Path

    from companion.play.view import CONTRACT

    doc = (Path(__file__).resolve().parents[1] / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    assert [name for name in CONTRACT if f"`{name}`" not in doc] == []
    assert "assets/translations/es/" in doc          # the Spanish .po file the tests ask of every message
