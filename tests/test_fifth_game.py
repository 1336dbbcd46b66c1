"""docs/adding-a-game.md, proved as a newcomer meets it: a game registered only here (tests/fifth_game,
an engine and a view written by the doc) is offered by the kiosk's picker, played through the turn
controller into the game log, replayed by ``companion replay``, stickered by ``companion stickers`` and
published to the café through a real Mosquitto, with no other file touched. A view that lacks part of the
contract the doc lists is left out of the picker."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cafe_support import broker_fixture, wait_until, watch  # noqa: F401  (the fixture broker)
from test_play_turns import Host, Reading, Seen

from companion import registry
from companion.cards.decks import parse_deck
from companion.cli import main
from companion.errors import BadInput
from companion.i18n import N_

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))     # tools/screens.py

LATER = registry.GameSpec(
    "later", "Later", "fifth_game.engine", "fifth_game.autoplay:random_game", views=("fifth_game.view",),
    scorer="fifth_game.score", deck_columns=("n", "year", "title"), card_rule="companion.cards.rules:dated",
    screenshots="fifth_game.view:screenshots",
    sticker_placement=N_("Stick each sticker on the date side."), print_layout="chronology")


@pytest.fixture
def later():
    registry.register(LATER)
    yield LATER
    registry.unregister("later")
    from companion.ui import games
    games.VIEWS.pop("later", None)
    sys.modules.pop("fifth_game.view", None)       # the next test's picker imports it (and registers it) again


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
    """Offered with only its key and title, the toy game's view once stopped the kiosk at its first
    question (AttributeError: 'LaterView' object has no attribute 'empty_layout'). Written by the doc it
    is offered; a view with only a key and a title is left out, and the log says what it lacks."""
    from companion.play.view import CONTRACT
    from companion.ui.games import VIEWS, GameView, available_views, missing_parts, register

    class Bare(GameView):
        key = engine_id = title = "bare"

    register(Bare())
    try:
        offered = [v.key for v in available_views()]
    finally:
        VIEWS.pop("bare")
    assert "later" in offered and "bare" not in offered and len(offered) >= 6
    # (empty_layout has a default now, from the view's table_kind: a bare row)
    assert {"codes_on_table", "setup_prompt", "read_setup"} <= set(missing_parts(Bare()))
    assert "the bare view is not offered: it lacks " in caplog.text and "read_setup" in caplog.text
    assert all(missing_parts(v) == [] for v in available_views())
    assert len(CONTRACT) > 30


def _dated_cards():
    from companion.cards import decks
    deck = next(d for d in decks.all_decks() if d.plays("timeline"))
    return sorted((c for c in deck.cards.values() if c.code), key=lambda c: c.year)


def test_the_fifth_game_picked_played_replayed_stickered_and_published(later, broker, tmp_path, capsys):
    from companion.broker import log_topic, parse_broker
    from companion.cafe.publisher import Publisher
    from companion.inputs.commands import OK, Command
    from companion.play.proposals import CardPlaced
    from companion.play.turns import Phase, TurnController
    from companion.store.log import GameLog
    from companion.ui.games import available_views

    # picked in the kiosk: the picker offers it, and a game starts on a clear table
    view = next(v for v in available_views() if v.key == "later")
    store = GameLog(tmp_path / "games.sqlite")
    host = Host(store)
    turns = TurnController(host, {"view": view, "players": ["Ana", "Bo"], "options": {}})
    turns.reading_in(Reading(), "en")
    turns.command(Command(OK))
    assert turns.phase == Phase.WATCH and host.session is not None
    assert view.watch_prompt(host.session).render("en") == "Ana: lay a card later than the last one."

    # played through the turn controller: the camera proposes, OK confirms, the verdict, OK again
    early, middle, late = (_dated_cards()[i] for i in (0, 5, 10))
    for card in (middle, late, early):          # Ana, Bo, then Ana's card is earlier: she is out
        gap = len(view.codes_on_table(host.session))
        turns.reading_in(Reading([Seen(card.code, card)], [CardPlaced(card.code, gap)]), "en")
        assert turns.phase == Phase.PROPOSE, turns.table_note
        turns.command(Command(OK))
        assert turns.phase == Phase.VERDICT
        turns.verdict("en")
        turns.command(Command(OK))
    assert host.stack.opened[-1][:2] == ("replace", "score")
    assert host.signals.seen == [("verdict", True), ("verdict", True), ("verdict", False)]
    headline, won, _rows = view.score_sheet(host.session)
    assert won and headline.render("en") == "Bo wins!"
    assert view.codes_on_table(host.session) == [middle.code, late.code]

    # replayed from the stored log
    game_id = store.games()[-1]["id"]
    path = tmp_path / "later.jsonl"
    path.write_text(store.export(game_id), encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "finished" and doc["winner"] == "Bo" and doc["row"] == [middle.code, late.code]

    # stickered from a deck file of its own
    deck = tmp_path / "later-deck.json"
    deck.write_text(json.dumps({"id": "LATR", "name": "Later", "game": "later",
                                "cards": [{"n": 1, "year": 1900, "title": "One"}, {"n": 2, "year": 1950}]}))
    assert main(["stickers", str(deck), "--out", str(tmp_path / "later.pdf")]) == 0
    assert (tmp_path / "later.pdf").stat().st_size > 1000

    # published to the café: every line, then the end with its winner, through a real broker
    watcher, got = watch(broker, log_topic("T05"), "fifth-game-watcher")
    publisher = Publisher("T05", store.path, parse_broker(broker.url)).start()
    try:
        wait_until(lambda: any(m["kind"] == "end" for m in got), what="the game's end on the broker")
    finally:
        publisher.stop()
        watcher.loop_stop()
        watcher.disconnect()
    assert [m["kind"] for m in got] == ["setup", "action", "action", "action", "end"]
    assert {p["name"]: p["winner"] for p in got[-1]["players"]} == {"Ana": False, "Bo": True}


def test_adding_a_game_lists_every_part_of_the_contract():
    from pathlib import Path

    from companion.play.view import CONTRACT

    doc = (Path(__file__).resolve().parents[1] / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    assert [name for name in CONTRACT if f"`{name}`" not in doc] == []
    assert "assets/translations/es/" in doc          # the Spanish .po file the tests ask of every message


# -- the obligations of a shipped game: the house's contract, score, the café's tile, the demo ----------

def test_the_fifth_game_keeps_the_contract_the_house_asks_of_every_game(later):
    import random

    from test_house import keeps_the_contract, named_outside, read_model_agrees_to_the_end
    keeps_the_contract(later)
    read_model_agrees_to_the_end(later, random.Random(3))
    assert named_outside(later) == []          # nothing of the program names it: its folder and its spec


def test_the_fifth_game_is_scored(later, tmp_path, capsys):
    table = tmp_path / "later-table.json"
    table.write_text(json.dumps({"players": [{"name": "Ana", "laid": [1900]}, {"name": "Bo", "laid": [1910, 1950]}]}))
    assert main(["score", "later", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] == ["Bo"]
    assert main(["score", "later", str(table)]) == 0
    assert "Bo: 2, place 1" in capsys.readouterr().out


def test_the_cafe_tile_shows_the_fifth_games_turn(later, broker, tmp_path):
    from test_cafe_tiles import test_the_tile_shows_the_turn_and_round_of_a_game_played_through_the_session as tile
    tile("later", broker, tmp_path)


@pytest.mark.slow(4)
def test_the_fifth_game_has_its_screenshots(later, tmp_path):
    """tools/screens.py photographs it by its own script, in both languages, listing no game itself."""
    import pygame
    import screens
    pygame.display.init()
    shots, missing = screens.shoot(tmp_path, (800, 480), games=["later"])
    assert missing == [] and shots.cut == []
    assert (tmp_path / "later-deal-800x480.png").is_file() and (tmp_path / "es" / "later-deal-800x480.png").is_file()


@pytest.mark.slow(10)
def test_the_demo_plays_the_fifth_game_to_its_score_sheet(later):
    """The demo's row players play any row game the picker offers, written only from the guide."""
    from test_demo_games import play_to_the_score_sheet
    played = play_to_the_score_sheet("later")
    summary, lines = played.session.summary(), played.session.lines
    assert summary["status"] == "finished" and played.headline and len(lines) >= 2
