"""A stored game replays alone: the kiosk records the box's size in the setup line, so adding a card
to the deck file later does not change a stored game's draw pile."""

from companion.cards import decks
from companion.games import cronologia, timeline
from companion.play.session import GameSession
from companion.store.log import GameLog
from companion.store.replay import fold
from companion.ui.games import view_for


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
