"""The café's parts on their own: broker URLs, the log read as an outbox, the dashboard's store (each
action once), the exports and the staff password."""

from __future__ import annotations

import csv
import io
import random
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.broker import parse_broker
from companion.cafe.auth import FAILURE_WINDOW_S, MAX_FAILURES, Gate, check_password, hash_password
from companion.cafe.exports import bgstats, cell, plays_csv
from companion.cafe.outbox import END_SEQ, Outbox, result
from companion.cafe.schema import log_item
from companion.cafe.store import CafeStore
from companion.errors import BadInput
from companion.registry import GAMES
from companion.store.log import SCHEMA_VERSION

hosts = st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z]{2,5}){0,2}", fullmatch=True)
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(hosts, st.one_of(st.none(), st.integers(1, 65535)), st.booleans(), st.one_of(st.none(), st.tuples(words, words)))
def test_broker_urls_say_where_and_who(host, port, tls, login):
    auth = "" if login is None else f"{quote(login[0], safe='')}:{quote(login[1], safe='')}@"
    url = f"{'mqtts' if tls else 'mqtt'}://{auth}{host}" + ("" if port is None else f":{port}")
    b = parse_broker(url)
    assert (b.host, b.tls) == (host, tls)
    assert b.port == (port or (8883 if tls else 1883))
    assert (b.username, b.password) == (login or (None, None))


@pytest.mark.parametrize("url", ["http://cafe", "cafe-pi.local", "mqtt://", "mqtt://h:99999", "mqtt://h/topic",
                                 "mqtt://h?x=1"])
def test_a_bad_broker_url_is_named(url):
    with pytest.raises(BadInput) as e:
        parse_broker(url)
    assert e.value.where == "--broker" and repr(url) in str(e.value)


def played_log(tmp_path, seed: int, games: int = 2):
    from companion.cafe.simulate import VirtualTable
    table = VirtualTable("T01", tmp_path, parse_broker("mqtt://127.0.0.1"), games, seed, publish=False)
    table.play()
    return table



def test_paced_players_think_before_their_first_setup_and_every_move(tmp_path):
    """Paced tables (``--per-minute``) wait before their first setup and before every move, a game's
    first one included, so a fleet told 'go' does not write a thousand setups and first actions in
    one instant (that burst, not the steady play, was the bench's p99 at 1,000 tables). Told to stop
    during a think, the players write nothing more."""
    import threading

    from companion.cafe.simulate import VirtualTable

    class StopAtThink(threading.Event):
        def __init__(self, n: int):
            super().__init__()
            self.n = n

        def wait(self, timeout=None):
            self.n -= 1
            if self.n == 0:              # 'stop' arrives while the players think for the n-th time
                self.set()
            return self.is_set()

    def played(folder, n: int) -> list:
        table = VirtualTable("T01", folder, parse_broker("mqtt://127.0.0.1"), 1, 3, per_minute=10, publish=False)
        table.stop = StopAtThink(n)
        table.play()
        games = table.log.games()
        table.close()
        return [(g["status"], g["entries"]) for g in games]
    assert played(tmp_path / "a", 1) == []                          # before the setup
    assert played(tmp_path / "b", 2) == [("in_progress", 0)]        # before the first move
    assert played(tmp_path / "c", 3) == [("in_progress", 1)]


def confirm(box: Outbox, messages: list[dict]) -> bool:
    """What a dashboard holding ``messages`` (a run from the front of pending) confirms."""
    games: dict[str, list] = {}
    for m in messages:
        mark = games.setdefault(str(m["game_id"]), [-1, False])
        if m["kind"] == "end":
            mark[1] = True
        else:
            mark[0] = max(mark[0], m["seq"])
    return box.confirmed({"logs": {box.log_id: {"through": 0, "games": {g: tuple(v) for g, v in games.items()}}}})


# each example plays whole games into a real (fsynced) log: fewer examples keep the file quick
@settings(max_examples=10)
@given(st.integers(0, 10**6), st.lists(st.integers(1, 60), min_size=1, max_size=8))
def test_the_outbox_hands_out_the_log_in_order_until_the_dashboard_confirms_it(tmp_path_factory, seed, batches):
    table = played_log(tmp_path_factory.mktemp("log"), seed)
    box = Outbox(table.log.path)
    everything = box.pending(10**6)
    sent: list[dict] = []
    for size in batches:                          # sent in runs of any size: each item once per connection
        run = box.pending(size)
        assert run == everything[len(sent):len(sent) + size]
        box.sent(run)
        sent += run
    assert box.outstanding() == len(sent)
    box.reoffer()                                 # nothing confirmed: all of it is offered again
    assert box.pending(10**6) == everything
    assert confirm(box, sent)
    box.reoffer()
    assert box.pending(10**6) == everything[len(sent):]
    assert confirm(box, everything) == (len(sent) < len(everything))      # moved only if something was left
    assert box.all_confirmed() and box.pending(10**6) == []
    for game in table.log.games():
        mine = [m for m in everything if m["game_id"] == game["id"]]
        assert mine[0]["kind"] == "setup" and mine[-1]["kind"] == "end" and mine[-1]["seq"] == END_SEQ
        assert mine[-1]["last"] == game["entries"]
        assert [m["seq"] for m in mine[1:-1]] == list(range(1, game["entries"] + 1))
    assert sum(m["kind"] in ("action", "undo") for m in everything) == table.actions
    box.close()
    table.close()


def test_a_reopened_outbox_keeps_the_dashboards_marks_and_its_name(tmp_path):
    table = played_log(tmp_path, 3, games=1)
    box = Outbox(table.log.path)
    first = box.pending(5)
    confirm(box, first)
    name = box.log_id
    box.close()
    again = Outbox(table.log.path)
    assert again.log_id == name
    assert again.pending(1)[0]["seq"] == first[-1]["seq"] + 1
    state = again.table_state()
    assert state["status"] == "finished" and state["players"] and state["game"] in GAMES
    again.close()
    table.close()


def test_the_tables_state_moves_on_with_the_log_and_its_undos(tmp_path):
    """The outbox folds the newest game as it grows; it agrees with a fold of the lines in force."""
    from companion.registry import engine_for
    from companion.store.replay import fold

    table = played_log(tmp_path, 8, games=1)
    box = Outbox(table.log.path)
    gid = table.log.games()[-1]["id"]
    setup = table.log.setup(gid)
    engine = engine_for(setup["game"])
    expected = engine.summary(fold(engine, setup, table.log.lines(gid)))
    state = box.table_state()
    assert (state["turn"], state["round"], state["actions"]) == (expected.get("turn"), expected.get("round"),
                                                                 len(table.log.lines(gid)))
    box.close()
    table.close()


def test_the_result_names_scores_and_winners():
    setup = {"players": ["Ana", "Bo"]}
    assert result(setup, {"winner": "Bo"}) == [{"name": "Ana", "score": None, "winner": False},
                                               {"name": "Bo", "score": None, "winner": True}]
    scored = {"scores": [{"name": "Ana", "total": 31}, {"name": "Bo", "total": 40}], "winners": ["Bo"]}
    assert [(p["score"], p["winner"]) for p in result(setup, scored)] == [(31, False), (40, True)]
    assert result(setup, None)[0] == {"name": "Ana", "score": None, "winner": False}


@settings(max_examples=10)
@given(st.integers(0, 10**6))
def test_the_dashboard_counts_each_action_once_however_often_and_in_whatever_order(tmp_path_factory, seed):
    folder = tmp_path_factory.mktemp("dash")
    table = played_log(folder, seed, games=1)
    items = Outbox(table.log.path).pending(10**6)
    rng = random.Random(seed)
    deliveries = items + rng.choices(items, k=len(items) // 2)     # re-deliveries ...
    rng.shuffle(deliveries)                                        # ... in any order
    store = CafeStore(folder / "cafe.sqlite")
    for m in deliveries:
        assert store.record_log_item("T01", log_item({"table": "T01", **m})) is None
    (play,) = store.plays()
    assert play["actions"] == table.actions
    assert play["status"] == "finished" and play["ended"] and play["started"]
    assert [p["name"] for p in play["players"]] == table.log.setup(1)["players"]
    store.close()
    table.close()


plays_st = st.lists(st.fixed_dictionaries({
    "id": st.uuids().map(str), "table": st.sampled_from(["T01", "T02", "Bar-3"]),
    "game": st.sampled_from(["timeline", "cronologia", "exhibition"]),
    "status": st.sampled_from(["finished", "in_progress", "abandoned"]),
    "started": st.just("2026-11-24T18:05:00+00:00"), "ended": st.just("2026-11-24T18:45:00+00:00"),
    "duration_s": st.just(2400.0), "actions": st.integers(0, 300),
    "players": st.lists(st.fixed_dictionaries({"name": words, "score": st.one_of(st.none(), st.integers(0, 200)),
                                               "winner": st.booleans()}), min_size=1, max_size=5)}), max_size=8)


@given(plays_st)
def test_the_exports_hold_every_player_of_every_play(plays):
    rows = list(csv.DictReader(io.StringIO(plays_csv(plays))))
    assert len(rows) == sum(len(p["players"]) for p in plays)
    assert [r["player"] for r in rows] == [cell(pl["name"]) for p in plays for pl in p["players"]]
    doc = bgstats(plays)
    finished = [p for p in plays if p["status"] == "finished"]
    assert len(doc["plays"]) == len(finished)
    games = {g["id"] for g in doc["games"]}
    players = {p["id"]: p["name"] for p in doc["players"]}
    for play in doc["plays"]:
        assert play["gameRefId"] in games and play["locationRefId"] == 1 and play["durationMin"] == 40
        assert all(s["playerRefId"] in players for s in play["playerScores"])
    assert len({p["uuid"] for p in doc["plays"]}) == len({p["id"] for p in finished})


def test_the_staff_password_hash_and_the_wait_after_wrong_ones():
    stored = hash_password("staff secret 1")
    assert stored.startswith("scrypt$") and "staff" not in stored
    assert check_password(stored, "staff secret 1") and not check_password(stored, "staff secret 2")
    assert check_password("plain words", "plain words") and not check_password("plain words", "plain")
    now = [1000.0]
    gate = Gate(stored, clock=lambda: now[0])
    for _ in range(MAX_FAILURES):
        assert gate.wait_s("10.0.0.7") == 0 and gate.login("10.0.0.7", "guess") is None
    assert gate.wait_s("10.0.0.7") > 0 and gate.wait_s("10.0.0.8") == 0      # only that address waits
    now[0] += FAILURE_WINDOW_S + 1
    token = gate.login("10.0.0.7", "staff secret 1")
    assert gate.valid(token) and not gate.valid("made-up") and not gate.valid(None)
    gate.logout(token)
    assert not gate.valid(token)


def test_a_version_1_log_offers_everything_to_the_dashboard_once_more(tmp_path):
    """Version 1 marked what the broker acknowledged, which is not delivery: its marks are dropped."""
    import sqlite3

    table = played_log(tmp_path, 5, games=1)
    path = table.log.path
    table.close()
    con = sqlite3.connect(path)
    con.execute("DROP TABLE cafe_confirmed")
    con.execute("CREATE TABLE cafe_outbox (game_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, ended INTEGER)")
    con.execute("INSERT INTO cafe_outbox VALUES (1, 999, 1)")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    box = Outbox(path)
    items = box.pending(10**6)
    assert items[0]["kind"] == "setup" and items[-1]["kind"] == "end"
    tables = {name for (name,) in box.log._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "cafe_outbox" not in tables and box.log._read("PRAGMA user_version")[0][0] == SCHEMA_VERSION
    box.close()


def test_a_subscriber_that_stops_turns_healthz_and_the_badge(tmp_path):
    """Whatever stops the MQTT loop, the dashboard says nothing is recorded, and why."""
    import asyncio

    from companion.cafe.auth import Gate
    from companion.cafe.serve import Subscriber
    from companion.cafe.web import Dashboard

    store = CafeStore(tmp_path / "cafe.sqlite")
    sub = Subscriber(parse_broker("mqtt://127.0.0.1:9"), store, "test-dashboard")

    def broken(**_kw):
        raise RuntimeError("boom")
    sub.client.loop_forever = broken
    sub.start()
    assert sub._loop is not None
    sub._loop.join(10)
    assert not sub.alive()
    part, reason, _since = sub.health.problem()
    assert part == "subscriber" and "RuntimeError: boom" in str(reason)
    page = Dashboard(store, Gate(None), health=sub.health)
    answer = asyncio.run(page.healthz(None))
    assert answer.status_code == 503 and answer.body.startswith(b"nothing recorded since ")
    view = page.health_view("es")
    assert view["state"] == "subscriber" and view["badge"] == "sin registrar" and "Reinicie el panel" in view["banner"]
    assert "el suscriptor se detuvo (RuntimeError: boom)" in view["banner"]
    sub._stop.set()
    store.close()
