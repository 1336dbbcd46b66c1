"""The autoplay demo plays each game its simulated players know to its score sheet: the simulated players
lay cards on the virtual table, the tracker reads the rendered frames, the players answer the kiosk's
questions with the buttons (companion/ui/demo.py, companion/ui/demo_boards.py).

One test per game, each in a kiosk of its own, so pytest-xdist plays them side by side (one after
another in one kiosk they took four minutes on a loaded machine)."""

from typing import Any, NamedTuple

import pytest

from companion.config import Config
from companion.ui.demo import demo_games

# seconds each game takes on an idle machine (the longest start first: conftest.py)
SECONDS = {"ancient-knowledge": 60, "cronologia-cooperative": 36, "exhibition": 34}   # with the frame check
FRAMES = 4000       # the longest game (Ancient Knowledge, played to its end) needs about 1000; a stalled demo fails


def test_the_demo_plays_every_game_the_picker_offers():
    """Read from the registry: a row or grid game is played by the demo's row and grid players, a board
    game by its spec's demo players (tests/test_fifth_game.py plays the test game's demo too)."""
    from companion.ui.games import available_views

    assert demo_games() == [v.key for v in available_views()] and len(demo_games()) >= 5


class Played(NamedTuple):
    session: Any
    headline: str | None
    seen: set[str]              # every screen shown (Kiosk.screen_key)
    first_turn: str             # the words of the table when the first turn waits for its card
    first_summary: dict         # and the game's summary then


def play_to_the_score_sheet(key: str) -> Played:
    """One autoplayed game of ``key``, played through the kiosk's command stream to its score sheet; every
    frame of it is read whole in both languages at 800x480 and 1920x1080 (companion/ui/textcheck.py)."""
    from companion import app
    from companion.ui.textcheck import FrameCheck

    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    k.demo.tour = []
    k.demo.games = [key]
    k.paint = False         # the frames' words are checked, not their pixels (test_the_frame_check_lays_out...)
    check = FrameCheck(k)
    seen: set[str] = set()
    first_turn, first_summary = "", {}
    for _ in range(FRAMES):
        k.demo.tick(k.clock())
        k.step()
        check.look()
        seen.add(k.screen_key())
        top = k.stack.top
        if not first_turn and k.session is not None and k.screen_key() == "table-watch":
            first_turn, first_summary = " ".join(k.texts()), k.session.summary()
        if top is not None and top.name == "score" and k.session is not None:
            assert k.session.view.key == key
            drawn = {d.role: d.text for d in k.last.drawn}
            # every text of every frame whole, and at its size (the deal, the questions, the verdicts, the
            # score sheet's pages): none cut, none under its role's floor
            assert not check.total(), "\n".join(check.lines())
            # every confirmed action is in the log
            assert k.store.lines(k.session.game_id) == k.session.lines
            return Played(k.session, drawn.get("headline"), seen, first_turn, first_summary)
    raise AssertionError(f"no score sheet of {key} after {FRAMES} frames: {k.screen_key()} {k.texts()[:12]}")


@pytest.mark.parametrize("key", [pytest.param(key, marks=pytest.mark.slow(SECONDS.get(key, 8)))
                                 for key in demo_games()])
def test_the_autoplay_demo_plays_the_game_to_its_score_sheet(key):
    """The players play like people who know the game: mostly right, sometimes wrong, so the games end
    as real ones do (a winner with points, a cooperative team that scored)."""
    played = play_to_the_score_sheet(key)
    session, headline = played.session, played.headline
    summary, lines = session.summary(), session.lines
    assert summary["status"] in ("finished", "lost"), summary["status"]
    assert headline
    assert {"attract-0", f"picker-{key}", "table-deal"} <= played.seen, played.seen
    places = sum(line["type"] == "place" for line in lines)
    if key in ("exhibition", "ancient-knowledge"):
        if key == "exhibition":           # read from the boards: the placements
            assert places >= 10
            unit = "fame points"
        else:                             # read from the boards: the creates, and the other actions too
            assert sum(line["type"] == "create" for line in lines) >= 10
            assert sum(line["type"] == "learn" for line in lines) >= 1
            assert sum(line["type"] == "archive" for line in lines) >= 1
            # a game of normal length: the players learned every technology as soon as it was ready
            # (a third of their actions), and the game ran 30 rounds; now 21
            assert summary["round"] <= 24, summary["round"]
            assert sum(line["type"] == "learn" for line in lines) <= 12
            unit = "victory points"
        winner = summary["scores"][0]
        assert winner["place"] == 1 and winner["total"] > 0, (winner["total"], headline)
        assert f"with {winner['total']} {unit}!" in headline or "Shared" in headline
    elif key == "cronologia-cooperative":
        assert {"table-watch", "table-propose", "table-verdict"} <= played.seen, played.seen
        assert (summary["game"], summary["mode"]) == ("cronologia", "cooperative")
        # the lives left, in the turn bar
        assert f"Lives {played.first_summary['lives']}" in played.first_turn, played.first_turn
        # it used to end after a few cards with a green check for 0 points: from its 40-card deck nobody
        # held a card after the first mistake; later it was lost with an empty score pile
        assert summary["end_reason"] in ("lives", "deck"), summary["end_reason"]
        assert places >= 6
        assert summary["score"] > 0, "the cooperative team scored no grid"
    else:
        assert places >= 1
        assert {"table-watch", "table-propose", "table-verdict"} <= played.seen, played.seen
        if key == "timeline":
            assert "Round" in played.first_turn and "Ana" in played.first_turn, played.first_turn
        # a game whose rules let rows share the win (personal timelines, pile spent) names its winners
        assert summary["status"] == "finished" and (summary["winner"] or summary.get("winners")), summary
    if key == "cronologia-competitive":
        assert (summary["game"], summary["mode"]) == ("cronologia", "competitive")
        wrong_by_one_gap(session)


def wrong_by_one_gap(session) -> None:
    """The demo's players of a row game are wrong about a third of the time, each wrong card one gap off
    (a date misjudged by a little, never by centuries): each placement of the game, against the row the
    engine held then (the one card with the unit test: tests/test_demo_players.py)."""
    from row_game import off_by

    from companion.games.base import fold

    engine = session.engine
    offs = []
    for i, line in enumerate(session.lines):
        if line["type"] == "place":
            row = engine.cards_on_table(fold(engine, session.setup_line, session.lines[:i]))
            offs.append(off_by([c.year for c in row], session.card(line["card"]).year, line["gap"]))
    wrong = sum(1 for off in offs if off)
    assert len(offs) >= 10 and max(offs) == 1, offs     # a near gap, never centuries off
    assert wrong / len(offs) <= 0.4, (wrong, len(offs))


def test_the_frame_check_lays_out_what_the_kiosk_draws(tmp_path):
    """The frame check draws each frame again in every language and size on a canvas that touches no pixel
    (``Canvas(paint=False)``): what it records, the texts with their sizes and places and the touch spots,
    is what a painted frame records."""
    import numpy as np
    import pygame
    from board_kiosk import detection, make_kiosk, press, start_game

    from companion.i18n import LANGUAGES
    from companion.inputs.commands import OK
    from companion.ui.canvas import Canvas

    def same(k):
        for size in ((800, 480), (1920, 1080)):
            for lang in LANGUAGES:
                painted, laid = Canvas(pygame.Surface(size), lang), Canvas(pygame.Surface(size), lang, paint=False)
                k.stack.top.draw(painted)
                k.stack.top.draw(laid)
                assert laid.drawn == painted.drawn and laid.drawn
                assert [(tuple(r), c) for r, c in laid.hits] == [(tuple(r), c) for r, c in painted.hits]

    k, feed = make_kiosk(tmp_path)
    same(k)                                   # attract
    start_game(k, "exhibition", 2)
    feed.frame = np.zeros((270, 480, 3), np.uint8)         # a camera picture beside the deal's words
    feed.detections = [detection(f"TC:EXH20:{n:03d}", 80 + col * 140, 60 + row * 70)
                       for col, column in enumerate([[4, 51, 46], [20, 33, 70], [12, 25, 38], [60, 85, 90],
                                                     [15, 28, 42], [55, 66, 80]]) for row, n in enumerate(column)]
    k.step()
    same(k)
    press(k, OK)                              # the first question, beside the board
    assert k.stack.top.phase == "ask"
    same(k)
