"""The staff's tile of a table says whose turn it is and which round, for a game of every registered game
played as a kiosk plays it: through the real GameSession (so its stored lines carry the facts of the
cards they name, as a kiosk's do) into a real game log, published to a real Mosquitto.

It once said ``turn: None, round: None`` for every game played at a real kiosk: the café's fold handed
the stored lines, ``card_facts`` and all, to the engine, which refused the unknown key."""

from __future__ import annotations

import random

import pytest
from cafe_support import broker_fixture, wait_until, watch  # noqa: F401  (the fixture broker)

from companion.registry import GAMES

PLAYED = 30          # at most this many actions played before the tile is read (half the game at most)


def _view_for(setup: dict):
    from companion.ui.games import available_views
    return next(v for v in available_views() if v.matches(setup))


@pytest.mark.slow(3)
@pytest.mark.parametrize("game", list(GAMES))
def test_the_tile_shows_the_turn_and_round_of_a_game_played_through_the_session(game, broker, tmp_path):
    from companion.broker import parse_broker, state_topic
    from companion.cafe.publisher import Publisher
    from companion.games.base import refusal
    from companion.play.session import GameSession
    from companion.store.log import GameLog

    setup, *lines = GAMES[game].load_random_game()(random.Random(5), 3000)
    store = GameLog(tmp_path / "games.sqlite")
    session = GameSession.start(store, _view_for(setup), setup)
    played = lines[:min(PLAYED, len(lines) // 2)]
    for line in played:
        assert refusal(session.confirm(session.engine.parse_action(line))) is None, line
    assert session.outcome().over is False
    expected = session.summary()

    watcher, got = watch(broker, state_topic("T07"), "tile-watcher")
    publisher = Publisher("T07", store.path, parse_broker(broker.url)).start()
    try:
        tile = wait_until(lambda: next((m for m in reversed(got) if m.get("actions") == len(played)), None),
                          what="the table's state after the actions played")
    finally:
        publisher.stop()
        watcher.loop_stop()
        watcher.disconnect()
    assert tile["game"] == game and tile["turn"] == session.current_player() is not None
    assert tile["round"] == expected.get("round")
