"""The autoplay demo plays every game the picker offers to its score sheet: the simulated players
lay cards on the virtual table, the tracker reads the rendered frames, the players answer the kiosk's
questions with the buttons (companion/ui/demo.py, companion/ui/demo_boards.py)."""

from companion.config import Config
from companion.ui.demo import DemoPlayers

FRAMES = 6000       # about 1700 are needed; a demo that stops making progress fails instead of hanging


def test_the_autoplay_demo_plays_all_five_games_to_their_score_sheets():
    from companion import app
    from companion.ui.games import available_views

    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    k.demo.tour = []
    assert sorted(k.demo.games) == sorted(v.key for v in available_views())     # every game on offer
    sheets: dict[str, tuple] = {}
    for _ in range(FRAMES):
        k.demo.tick(k.clock())
        k.step()
        top = k.stack.top
        if top is not None and top.name == "score" and k.session is not None:
            drawn = {d.role: d.text for d in k.last.drawn}
            sheets.setdefault(k.session.view.key, (k.session.summary(), drawn.get("headline"),
                                                   list(k.session.lines), k.texts()))
        if k.demo.games_done == len(DemoPlayers.GAMES):
            break
    assert list(sheets) == DemoPlayers.GAMES, (list(sheets), k.screen_key(), k.texts()[:12])
    for key, (summary, headline, _lines, _texts) in sheets.items():
        assert summary["status"] in ("finished", "lost"), (key, summary["status"])
        assert headline, key
    # the board games were read from the boards: Exhibition's placements, Ancient Knowledge's creates
    exhibition = sheets["exhibition"]
    assert sum(line["type"] == "place" for line in exhibition[2]) >= 10
    assert exhibition[0]["scores"] and ("fame points!" in exhibition[1] or "Shared" in exhibition[1])
    # the cooperative game used to end after a few cards with a green check for 0 points: from its
    # 40-card deck nobody held a card after the first mistake
    summary, headline, lines, _texts = sheets["cronologia-cooperative"]
    assert summary["end_reason"] in ("lives", "deck"), summary["end_reason"]
    assert sum(line["type"] == "place" for line in lines) >= 6
    assert headline.startswith("Defeat") if summary["status"] == "lost" else summary["score"] > 0
    ancient = sheets["ancient-knowledge"]
    assert sum(line["type"] == "create" for line in ancient[2]) >= 10
    assert ancient[0]["scores"] and ("victory points!" in ancient[1] or "Shared" in ancient[1])
    # the players play like people who know the games: the games end as real ones do
    for key in ("timeline", "cronologia-competitive"):
        assert sheets[key][0]["status"] == "finished" and sheets[key][0]["winner"], key
    assert summary["score"] > 0, "the cooperative team scored no grid (the demo used to lose with an empty pile)"
    for key, unit in (("exhibition", "fame points"), ("ancient-knowledge", "victory points")):
        winner = sheets[key][0]["scores"][0]
        assert winner["place"] == 1 and winner["total"] > 0, (key, winner["total"], sheets[key][1])
        assert f"with {winner['total']} {unit}!" in sheets[key][1] or "Shared" in sheets[key][1]
    assert sum(line["type"] == "learn" for line in ancient[2]) >= 1
    assert sum(line["type"] == "archive" for line in ancient[2]) >= 1

