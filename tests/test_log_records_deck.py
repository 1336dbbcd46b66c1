"""A stored game replays alone: the kiosk records the box's size in the setup line, so adding a card
to the deck file later does not change a stored game's draw pile."""

from companion.cards import decks
from companion.games import cronologia, timeline
from companion.games.base import refusal
from companion.play.session import GameSession
from companion.store.log import GameLog
from companion.store.replay import fold
from companion.ui.games import view_for, view_for_setup


def _codes(deck_id: str, n: int) -> list[str]:
    deck = decks.get_deck(deck_id)
    ordered = sorted(deck.cards.values(), key=lambda c: c.year)
    return [c.code for c in ordered[:n]]


def test_a_timeline_game_records_its_decks_size(tmp_path):
    deck = next(d for d in decks.all_decks() if d.plays("timeline"))
    store = GameLog(tmp_path / "games.sqlite")
    view = view_for("timeline")
    line = view.setup_line(["Ana", "Bo"], {"hand": 4}, _codes(deck.id, 1))
    assert "deck_size" not in line
    session = GameSession.start(store, view, line)
    stored = store.in_progress()[1]
    assert stored["deck_size"] == len(deck) == session.setup_line["deck_size"]
    # the same game replays to the same state when the deck file no longer says how big the box is
    assert fold(timeline, stored, []) == session.state
    store.close()


def test_cronologia_records_its_decks_size_in_both_modes():
    deck = next(d for d in decks.all_decks() if d.plays("cronologia"))
    codes = _codes(deck.id, 25)
    competitive = {"type": "setup", "game": "cronologia", "players": ["A", "B"], "start": codes[:5]}
    assert cronologia.complete_setup(competitive)["deck_size"] == len(deck)
    grid = [codes[i * 5:(i + 1) * 5] for i in range(5)]
    coop = {"type": "setup", "game": "cronologia", "mode": "cooperative", "players": ["A", "B"], "grid": grid}
    cronologia.setup(coop)
    assert cronologia.complete_setup(coop)["deck_size"] == len(deck)
    # written by hand with inline cards: the size stays unknown, and a size given is kept
    inline = {**competitive, "start": [{"year": y} for y in (1, 2, 3, 4, 5)]}
    assert "deck_size" not in cronologia.complete_setup(inline)
    assert cronologia.complete_setup({**competitive, "deck_size": 300})["deck_size"] == 300


# -- a stored game means the same forever (issue 33) -----------------------------------------------------

def _own_deck(tmp_path, years: list[int], *extra: str) -> None:
    from companion.cli import main

    csv = tmp_path / "mine.csv"
    csv.write_text("n,year,title\n" + "".join(f"{i},{y},Event {i}\n" for i, y in enumerate(years, start=1)),
                   encoding="utf-8")
    assert main(["deck", "import", "MINE", str(csv), "--game", "timeline", *extra]) == 0


def test_a_stored_game_replays_the_same_after_deck_import_replace(tmp_path, capsys):
    import json

    from companion.cli import main

    _own_deck(tmp_path, list(range(1100, 2001, 100)))
    try:
        store = GameLog(tmp_path / "games.sqlite")
        view = view_for("timeline")
        session = GameSession.start(store, view, view.setup_line(["Ana", "Bo"], {"hand": 4}, ["TC:MINE:003"]))
        assert session.setup_line["card_facts"] == {"TC:MINE:003": {"year": 1300, "title": "Event 3"}}
        for player, code in (("Ana", "TC:MINE:001"), ("Bo", "TC:MINE:005")):    # 1100 right, 1500 wrong
            assert refusal(session.confirm(timeline.Place(player, session.card(code), 0))) is None
        game_id, setup, lines = store.in_progress()
        assert [line["card_facts"] for line in lines] == [{"TC:MINE:001": {"year": 1100, "title": "Event 1"}},
                                                      {"TC:MINE:005": {"year": 1500, "title": "Event 5"}}]
        log = tmp_path / "game.jsonl"
        log.write_text(store.export(game_id), encoding="utf-8")
        capsys.readouterr()
        assert main(["replay", str(log), "--json"]) == 0
        before = capsys.readouterr().out
        assert fold(timeline, setup, lines) == session.state

        # the café owner re-imports the deck with other years: the stored game does not change
        _own_deck(tmp_path, list(range(2000, 1099, -100)), "--replace")
        capsys.readouterr()
        assert decks.resolve("TC:MINE:001").year == 2000 and decks.resolve("TC:MINE:005").year == 1600
        assert main(["replay", str(log), "--json"]) == 0
        assert capsys.readouterr().out == before
        assert fold(timeline, setup, lines) == session.state
        resumed = GameSession.resume(store, view_for_setup)
        assert resumed.state == session.state and resumed.summary() == session.summary()
        # the views build their actions with the cards the game recorded (a code it never named: today's
        # deck's), and the session stores the action's line with the facts of a card new to the log
        assert resumed.card("TC:MINE:001").year == 1100 and resumed.card("TC:MINE:002").year == 1900
        assert refusal(resumed.confirm(timeline.Place("Ana", resumed.card("TC:MINE:002"), 0))) is None
        assert store.in_progress()[2][-1] == {"type": "place", "player": "Ana", "card": "TC:MINE:002", "gap": 0,
                                              "card_facts": {"TC:MINE:002": {"year": 1900, "title": "Event 2"}}}

        # an older log names bare codes: replay reads them from today's decks and says so
        old = tmp_path / "old.jsonl"
        old.write_text("".join(json.dumps({k: v for k, v in x.items() if k != "card_facts"}) + "\n"
                               for x in [setup, *lines]), encoding="utf-8")
        assert main(["replay", str(old), "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["cards_from_decks"] == ["TC:MINE:003", "TC:MINE:001", "TC:MINE:005"]
        assert main(["replay", str(old)]) == 0
        assert "read from today's decks" in capsys.readouterr().out
        store.close()
    finally:
        main(["deck", "delete", "MINE"])
        capsys.readouterr()


def test_the_recorded_facts_never_take_a_games_own_field():
    """Ancient Knowledge's excavate line has a "cards" field of its own: the facts go under another name."""
    line = {"type": "excavate", "player": "Ana", "cards": ["babylon"]}
    assert decks.without_facts(line) == line and decks.facts_in(line) == {}
    assert decks.without_facts({**line, decks.FACTS_KEY: {}}) == line
