"""``companion cafe simulate`` plays every registered game (issue 41): each virtual table draws its
games from the registry, each played by its spec's random games as a kiosk stores them. Cheap: the
games are cut after a few actions (the whole games are played by tests/test_cafe_e2e.py)."""

from __future__ import annotations

import json
import sqlite3


def test_the_simulated_tables_play_every_registered_game_and_both_sides_of_a_cooperative_one(tmp_path, monkeypatch):
    from companion.cafe import simulate
    from companion.registry import GAMES

    monkeypatch.setattr(simulate, "MAX_ACTIONS", 3)
    table = simulate.VirtualTable("SIM01", tmp_path, None, games=40, seed=1, publish=False)
    table.play()
    table.log.close()
    con = sqlite3.connect(tmp_path / "SIM01.sqlite")
    setups = [json.loads(row[0]) for row in con.execute("SELECT setup FROM games")]
    con.close()
    assert len(setups) == 40
    assert {s["game"] for s in setups} == set(GAMES)
    for spec in GAMES.values():
        if spec.cooperative_modes:          # Cronología: its competitive and its cooperative game
            modes = {spec.cooperative(s.get("mode")) for s in setups if s["game"] == spec.id}
            assert modes == {True, False}, spec.id


def test_a_short_run_plays_every_registered_game(tmp_path, monkeypatch):
    """Numbered tables go round the registry from successive games: as many tables of one game as there
    are games play each one, and so does one table of that many games."""
    from companion.cafe import simulate
    from companion.registry import GAMES

    monkeypatch.setattr(simulate, "MAX_ACTIONS", 3)
    played = []
    for name, games in [*((f"SIM{n:02d}", 1) for n in range(1, len(GAMES) + 1)), ("T07", len(GAMES))]:
        table = simulate.VirtualTable(name, tmp_path, None, games=games, seed=2, publish=False)
        table.play()
        table.log.close()
        con = sqlite3.connect(tmp_path / f"{name}.sqlite")
        played.append([json.loads(row[0])["game"] for row in con.execute("SELECT setup FROM games")])
        con.close()
    assert {g for p in played[:-1] for g in p} == set(GAMES)
    assert set(played[-1]) == set(GAMES)
