"""The autoplay demo plays each game its simulated players know to its score sheet: the simulated players
lay cards on the virtual table, the tracker reads the rendered frames, the players answer the kiosk's
questions with the buttons (companion/ui/demo.py, companion/ui/demo_boards.py).

One test per game, each in a kiosk of its own, so pytest-xdist plays them side by side (one after
another in one kiosk they took four minutes on a loaded machine)."""

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


def play_to_the_score_sheet(key: str):
    """The summary, the score sheet's headline and the log lines of one autoplayed game of ``key``; every
    frame of it is read whole in both languages at 800x480 and 1920x1080 (companion/ui/textcheck.py)."""
    from companion import app
    from companion.ui.textcheck import FrameCheck

    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    k.demo.tour = []
    k.demo.games = [key]
    check = FrameCheck(k)
    for _ in range(FRAMES):
        k.demo.tick(k.clock())
        k.step()
        check.look()
        top = k.stack.top
        if top is not None and top.name == "score" and k.session is not None:
            assert k.session.view.key == key
            drawn = {d.role: d.text for d in k.last.drawn}
            # every text of every frame whole, and at its size (the deal, the questions, the verdicts, the
            # score sheet's pages): none cut, none under its role's floor
            assert not check.total(), "\n".join(check.lines())
            return k.session.summary(), drawn.get("headline"), list(k.session.lines)
    raise AssertionError(f"no score sheet of {key} after {FRAMES} frames: {k.screen_key()} {k.texts()[:12]}")


@pytest.mark.parametrize("key", [pytest.param(key, marks=pytest.mark.slow(SECONDS.get(key, 8)))
                                 for key in demo_games()])
def test_the_autoplay_demo_plays_the_game_to_its_score_sheet(key):
    """The players play like people who know the game: mostly right, sometimes wrong, so the games end
    as real ones do (a winner with points, a cooperative team that scored)."""
    summary, headline, lines = play_to_the_score_sheet(key)
    assert summary["status"] in ("finished", "lost"), summary["status"]
    assert headline
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
        # it used to end after a few cards with a green check for 0 points: from its 40-card deck nobody
        # held a card after the first mistake; later it was lost with an empty score pile
        assert summary["end_reason"] in ("lives", "deck"), summary["end_reason"]
        assert places >= 6
        assert summary["score"] > 0, "the cooperative team scored no grid"
    else:
        assert places >= 1
        # a game whose rules let rows share the win (personal timelines, pile spent) names its winners
        assert summary["status"] == "finished" and (summary["winner"] or summary.get("winners")), summary
