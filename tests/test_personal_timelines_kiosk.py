"""Personal timelines everywhere a game plays: the kiosk's demo (four simulated players, every row read
from one picture of the whole table at the default camera plan, every frame's text at its size),
``companion replay``, an own deck's stickers and print-and-play cards."""

from __future__ import annotations

import json
import random

import pytest

from companion.cli import main
from companion.games.personal_timelines import engine
from companion.games.personal_timelines.autoplay import random_game

KEY = "personal-timelines"


@pytest.mark.slow(60)
def test_a_four_player_demo_game_is_read_from_one_picture_per_turn_at_the_default_camera_plan():
    from companion import app
    from companion.config import Config
    from companion.sim.virtual_table import VirtualTable
    from companion.ui.canvas import size_faults
    from companion.vision.layouts import RowsLayout

    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    k.demo.tour = []
    k.demo.games = [KEY]
    k.paint = False                         # the frames' words are read, not their pixels
    # the kiosk's camera: the default camera plan's picture of the whole table, every size true
    k.demo.table.vtable = VirtualTable.default_plan(seed=7)
    k.demo.table.vtable.camera_frames = True
    faults: list[str] = []
    pictures: set[int] = set()
    for _ in range(1500):
        top = k.stack.top
        if top is not None and top.name == "players":
            top.values["goal"] = 5          # the players choose the short game (the picker's option)
        k.demo.tick(k.clock())
        k.step()
        top = k.stack.top
        faults += [f"{k.screen_key()}: {f}" for f in size_faults(k.last.drawn, k.last.u)]
        faults += [f"{k.screen_key()}: cut {d.text!r}" for d in k.last.drawn if d.cut]
        if top.name == "table" and str(getattr(top.phase, "value", top.phase)) == "propose":
            layout = k.demo.table.vtable.layout
            assert isinstance(layout, RowsLayout) and len(layout.rows) == 4     # every row in the one picture
            pictures.add(len(k.session.lines))
        if top.name == "score" and k.session is not None:
            break
    else:
        raise AssertionError(f"no score sheet: {k.screen_key()} {k.texts()[:10]}")
    assert faults == []
    summary = k.session.summary()
    lines = [line for line in k.session.lines if line.get("type") == "place"]
    assert summary["status"] == "finished" and summary["winners"] and len(summary["rows"]) == 4
    assert all(line["row"] == line["player"] for line in lines) and len(lines) >= 8
    assert len(pictures) == len(lines)       # each placement proposed from the table's one picture
    players = k.demo.boards
    assert [[players.year(c) for c in row] for row in players.rows] == list(summary["rows"].values())


def test_replay_reads_a_stored_game_in_words_and_as_json(tmp_path, capsys):
    lines = random_game(random.Random(4))
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == KEY and doc["status"] == "finished" and doc["winners"]
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Personal timelines: finished")
    assert all(f"{player}'s row: " in text for player in doc["rows"])     # every row, by its owner
    assert main(["replay", str(path), "--lang", "es"]) == 0
    assert capsys.readouterr().out.startswith("Personal timelines: terminada, ")      # the game's name as registered


def test_any_dated_deck_plays_it_and_an_own_deck_prints_its_stickers_and_cards(tmp_path):
    from companion.cards.decks import get_deck
    assert get_deck("HIST").plays(KEY)
    deck = tmp_path / "mine.json"
    deck.write_text(json.dumps({"id": "MINE", "name": "Family history", "game": KEY,
                                "cards": [{"n": i, "year": 1900 + 7 * i, "title": f"Day {i}"} for i in range(1, 13)]}),
                    encoding="utf-8")
    assert main(["stickers", str(deck), "--out", str(tmp_path / "stickers.pdf")]) == 0
    assert main(["cards", str(deck), "--out", str(tmp_path / "cards.pdf")]) == 0
    assert (tmp_path / "stickers.pdf").stat().st_size > 1000 and (tmp_path / "cards.pdf").stat().st_size > 1000
    setup = engine.complete_setup({"type": "setup", "game": KEY, "players": ["Ana", "Bo"],
                                   "starts": ["TC:HIST:001", "TC:HIST:002"]})
    assert engine.setup(setup).pile == len(get_deck("HIST")) - 2


def _session(tmp_path, players=("Ana", "Bo", "Cy")):
    from companion.play.session import GameSession
    from companion.store.log import GameLog
    from companion.ui.games import view_for
    view = view_for(KEY)
    line = view.setup_line(list(players), {"goal": 5}, [f"TC:DEMO:{n:03d}" for n in (10, 20, 30)][:len(players)])
    return view, GameSession.start(GameLog(tmp_path / "games.sqlite"), view, line)


def test_the_view_reads_the_first_cards_top_down_and_a_card_in_a_row_as_its_owners(tmp_path):
    """P9: whose row is whose is where it lies, the first player's at the top; P7: a card laid in
    another player's row is put to the engine as laid there, and refused in words."""
    from types import SimpleNamespace

    from companion.cards.decks import resolve
    from companion.games.base import refusal
    from companion.play.proposals import CardPlacedInRow
    from companion.vision.layouts import RowsLayout

    view, session = _session(tmp_path)
    codes = ["TC:DEMO:010", "TC:DEMO:020", "TC:DEMO:030"]
    dets = [SimpleNamespace(payload=c, card=resolve(c), center=(100.0 + 40 * i, 300.0 - 100 * i))
            for i, c in enumerate(codes)]
    new_game = {"players": ["Ana", "Bo", "Cy"], "options": {}}
    read, _note = view.read_setup(dets, new_game, None)
    assert read == codes[::-1]                            # the top card is the first player's
    read, note = view.read_setup(dets[:2], new_game, None)
    assert read is None and note.render("en") == ("The camera sees 2 of the 3 first cards: lay one card for each "
                                                   "player.")
    assert view.expected_layout(session) == RowsLayout([[c] for c in codes], ["Ana", "Bo", "Cy"])
    mine = view.action_for(CardPlacedInRow("TC:DEMO:005", 0, 0), session)
    assert (mine.player, mine.row, mine.gap) == ("Ana", "Ana", 0)
    theirs = view.action_for(CardPlacedInRow("TC:DEMO:005", 1, 0), session)
    _state, events = session.preview(theirs)
    assert refusal(events).render("es") == ("Ana juega en su propia fila, no en la de Bo: pasa la carta a la fila "
                                            "de Ana")
    assert view.action_for(CardPlacedInRow("TC:DEMO:005", 5, 0), session) is None
