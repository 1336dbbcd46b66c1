"""What the staff need (issue 29): retire a table (every offline one at once, after a simulation),
plays of a kiosk that went away shown abandoned, each game mode its own row in the figures and the
exports (a cooperative game won or lost by everyone together), the winner on a finished tile, no
glyph that needs an emoji font, and "T01" and "T001" each in its own place."""

from __future__ import annotations

import json
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from cafe_support import Dashboard, broker_fixture, companion, needs_mosquitto, wait_until  # noqa: F401

from companion.cafe.exports import bgstats, game_name, plays_csv
from companion.cafe.outbox import result
from companion.cafe.schema import log_item
from companion.cafe.store import CafeStore, table_sort_key

NOW = time.time()


def items(log: str, game_id: int, game: str = "timeline", mode: str | None = None, players=("Ana", "Bo"),
          actions: int = 2, end: list | None = None) -> list[dict]:
    line = {"type": "setup", "game": game, "players": list(players), **({"mode": mode} if mode else {})}
    out = [{"log": log, "game_id": game_id, "seq": 0, "kind": "setup", "game": game, "at": NOW, "line": line}]
    out += [{"log": log, "game_id": game_id, "seq": s, "kind": "action", "game": game, "at": NOW,
             "line": {"type": "place"}} for s in range(1, actions + 1)]
    if end is not None:
        out.append({"log": log, "game_id": game_id, "seq": -1, "kind": "end", "game": game, "at": NOW + 600,
                    "status": "finished", "last": actions, "players": end})
    return [log_item(m) for m in out]


def store_with(tmp_path, *plays: tuple[str, list[dict]]) -> CafeStore:
    store = CafeStore(tmp_path / "cafe.sqlite")
    for table, messages in plays:
        store.record_batch([("log", table, m) for m in messages])
    return store


def test_retired_tables_leave_the_page_keep_their_plays_and_come_back_when_their_kiosk_speaks(tmp_path):
    log = uuid.uuid4().hex
    store = store_with(tmp_path, ("T01", items(log, 1)))
    store.record_batch([("state", "T01", {"game": "timeline", "status": "in_progress"}), ("online", "T01", False),
                        ("online", "T02", True)])
    assert store.retire(None) == ["T01"]                       # every offline table; T02 is online
    assert [t["table"] for t in store.tables()] == ["T02"]
    assert len(store.plays()) == 1                             # its history stays
    # the broker hands its retained state to the next subscription: it stays retired
    store.record_batch([("state", "T01", {"game": "timeline", "status": "in_progress"}), ("online", "T01", False)],
                       retained=[True, True])
    assert [t["table"] for t in store.tables()] == ["T02"]
    store.record_batch([("online", "T01", True)], retained=[False])      # the kiosk is back, live
    assert [t["table"] for t in store.tables()] == ["T01", "T02"]
    store.close()


@needs_mosquitto
@pytest.mark.slow
def test_the_staff_retire_every_simulated_table_at_once(broker, tmp_path):
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    try:
        wait_until(d.connected, what="the dashboard")
        run = companion("cafe", "simulate", "--broker", broker.url, "--tables", "3", "--json", timeout=120)
        assert run.returncode == 0, run.stderr
        wait_until(lambda: [t["online"] for t in d.json("/api/tables")["tables"]] == [False] * 3,
                   what="three offline tiles once the simulation stopped")
        form = urllib.parse.urlencode({"all": "offline"}).encode()
        cross = urllib.request.Request(d.url + "tables/retire", data=form, headers={"Origin": "http://evil.example"})
        try:
            urllib.request.urlopen(cross, timeout=10)
            raise AssertionError("another site's form was taken")
        except urllib.error.HTTPError as e:
            assert e.code == 403
        own = urllib.request.Request(d.url + "tables/retire", data=form,
                                     headers={"Origin": d.url.rstrip("/"), "Accept": "application/json"})
        with urllib.request.urlopen(own, timeout=10) as r:
            assert json.load(r) == {"retired": ["SIM01", "SIM02", "SIM03"]}
        assert d.json("/api/tables")["tables"] == []
        assert len(d.json("/api/plays")["plays"]) == 3
        # the trial's plays leave the history, the figures and the exports at the staff's word
        assert "Remove the simulated plays (3)" in d.get("/")[1].decode()
        remove = urllib.request.Request(d.url + "plays/remove-simulated", data=b"",
                                        headers={"Origin": d.url.rstrip("/"), "Accept": "application/json"})
        with urllib.request.urlopen(remove, timeout=10) as r:
            assert json.load(r) == {"removed": 3, "retired": ["SIM01", "SIM02", "SIM03"]}
        assert d.json("/api/plays")["plays"] == [] and d.json("/api/figures")["plays"] == 0
        assert "Remove the simulated plays" not in d.get("/")[1].decode()
    finally:
        assert d.stop() == 0
    d.start()                                   # retained states come again at the new subscription
    try:
        wait_until(d.connected, what="the dashboard back")
        wait_until(lambda: "No table has reported yet" in d.get("/")[1].decode(), what="the page")
        assert d.json("/api/tables")["tables"] == []
    finally:
        assert d.stop() == 0


def test_a_play_whose_kiosk_went_away_or_moved_on_is_shown_abandoned(tmp_path):
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    store = store_with(tmp_path, ("T01", items(a, 1)), ("T01", items(a, 2)), ("T02", items(b, 1)))
    store.record_batch([("online", "T01", True), ("online", "T02", False)])
    status = {(p["table"], p["id"].rsplit("-", 1)[1]): p["status"] for p in store.plays()}
    # T01 started game 2 on the same log: game 1 will not go on; T02 is offline but only just
    assert status == {("T01", "1"): "abandoned", ("T01", "2"): "in_progress", ("T02", "1"): "in_progress"}
    with store._lock:                           # T02 has been silent for two hours
        store._db.execute("UPDATE plays SET last_received = last_received - 7200 WHERE table_name = 'T02'")
    assert {p["table"]: p["status"] for p in store.plays() if p["table"] == "T02"} == {"T02": "abandoned"}
    late = items(b, 1, actions=3)[-1]           # ... and then its backlog arrives: it plays on
    store.record_batch([("log", "T02", late)])
    assert {p["table"]: p["status"] for p in store.plays() if p["table"] == "T02"} == {"T02": "in_progress"}
    store.close()


def test_each_game_mode_is_its_own_row_and_a_cooperative_game_is_won_or_lost_together(tmp_path):
    team = ("Ana", "Bo", "Cai")
    setup = {"game": "cronologia", "players": list(team)}
    won = result(setup, {"mode": "cooperative", "status": "finished", "score": 7})
    lost = result(setup, {"mode": "cooperative", "status": "lost", "score": 2})
    assert {p["winner"] for p in won} == {True} and {p["winner"] for p in lost} == {False}
    assert {p["score"] for p in won} == {7}
    duel = [{"name": "Ana", "score": 9, "winner": True}, {"name": "Bo", "score": 4, "winner": False}]
    store = store_with(tmp_path,
                       ("T01", items(uuid.uuid4().hex, 1, "cronologia", "cooperative", team, end=won)),
                       ("T02", items(uuid.uuid4().hex, 1, "cronologia", "cooperative", team, end=lost)),
                       ("T03", items(uuid.uuid4().hex, 1, "cronologia", "competitive", end=duel)),
                       ("T04", items(uuid.uuid4().hex, 1, "timeline", end=duel)))
    figures = store.figures()
    assert figures["per_game"] == {"cronologia:cooperative": 2, "cronologia:competitive": 1, "timeline": 1}
    assert game_name("cronologia:cooperative") == "Cronología (cooperative)"
    assert game_name("cronologia:cooperative", "es") == "Cronología (cooperativo)"
    plays = store.plays()
    doc = bgstats(plays)
    games = {g["name"]: g for g in doc["games"]}
    assert set(games) == {"Cronología (cooperative)", "Cronología (competitive)", "Timeline"}
    assert games["Cronología (cooperative)"]["cooperative"] is True
    assert games["Timeline"]["cooperative"] is False
    coop = games["Cronología (cooperative)"]["id"]
    outcomes = sorted({s["winner"] for s in p["playerScores"]} for p in doc["plays"] if p["gameRefId"] == coop)
    assert outcomes == [{False}, {True}]                # all lose together, all win together
    rows = plays_csv(plays).splitlines()
    assert rows[0].startswith("play,table,game,mode,status")
    assert sum(",cronologia,cooperative," in r for r in rows) == 6
    store.close()


def test_a_finished_tile_says_who_won_in_words_and_no_glyph_needs_an_emoji_font(tmp_path):
    from companion.cafe.auth import Gate
    from companion.cafe.web import Dashboard as Web

    duel = [{"name": "Ana", "score": 9, "winner": False}, {"name": "Bo", "score": 12, "winner": True}]
    team = [{"name": n, "score": 5, "winner": True} for n in ("Cai", "Dee")]
    store = store_with(tmp_path, ("T01", items(uuid.uuid4().hex, 1, end=duel)),
                       ("T02", items(uuid.uuid4().hex, 1, "cronologia", "cooperative", ("Cai", "Dee"), end=team)))
    store.record_batch([("state", "T01", {"game": "timeline", "status": "finished", "players": ["Ana", "Bo"]}),
                        ("state", "T02", {"game": "cronologia", "status": "finished", "players": ["Cai", "Dee"]}),
                        ("online", "T01", True), ("online", "T02", True)])
    web = Web(store, Gate(None))
    for lang, words in (("en", ("Won: Bo", "Won together", "(won)")), ("es", ("Victoria: Bo", "Victoria del equipo",
                                                                              "(ganó)"))):
        r = web.renderers[lang]
        html = r.tiles(store.tables()) + r.plays(store.plays()) + r.figures()
        for w in words:
            assert w in html, (lang, w)
        page = html + web.render("page.html", lang, login=False, since="x-0", tiles_html="", plays_html="",
                                 figures_html="", health=web.health_view(lang))
        # emoji and pictographs (🏆 and the like) are empty boxes without an emoji font; so are
        # geometric symbols (▶) on some phones: the page says it in words
        odd = {c for c in page if ord(c) >= 0x1F000 or 0x2190 <= ord(c) <= 0x2BFF}
        assert not odd, [f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in odd]
    store.close()


def test_t01_and_t001_are_two_tables_each_in_its_own_place(tmp_path):
    names = ["T10", "T001", "T2", "T01", "madrid/T10", "madrid/T9", "Bar-3"]
    assert sorted(names, key=table_sort_key) == ["Bar-3", "madrid/T9", "madrid/T10", "T001", "T01", "T2", "T10"]
    store = CafeStore(tmp_path / "cafe.sqlite")
    store.record_batch([("online", n, True) for n in names])
    assert [t["table"] for t in store.tables()] == sorted(names, key=table_sort_key)
    store.close()
