"""One table cannot starve the others, and recording never waits for a page (issue 40, part B): the
limits that refuse a table's junk before any database work, the prepared summaries (always equal to
a count of every play again), the plays in pages, the exports of one play, one table or some days,
and another table recorded while one floods the dashboard (a real Mosquitto with the installed
settings). How fast is a figure of ``companion bench cafe``, not a test."""

from __future__ import annotations

import csv
import io
import json
import random
import threading
import time
import uuid
from datetime import datetime

import pytest
from cafe_support import Dashboard, broker_fixture, needs_mosquitto, wait_until  # noqa: F401

from companion.broker import parse_broker
from companion.cafe import store as store_module
from companion.cafe.exports import bgstats, bgstats_stream, csv_stream, plays_csv
from companion.cafe.limits import RateLimits
from companion.cafe.mosquitto import Mosquitto
from companion.cafe.schema import MAX_LINE, BadMessage, log_item, parse
from companion.cafe.simulate import VirtualTable, wait_acknowledged
from companion.cafe.store import MAX_OPEN_PLAYS, CafeStore, game_key

NOW = time.time()


def play_items(log: str, game_id: int, rng: random.Random, at: float, game: str = "timeline",
               mode: str | None = None, ended: str | None = "finished", sim: bool = False) -> list[dict]:
    players = [f"P{i}" for i in range(rng.randint(1, 4))]
    actions = rng.randint(0, 5)
    line = {"type": "setup", "game": game, "players": players, **({"mode": mode} if mode else {})}
    extra = {"sim": True} if sim else {}
    out = [{"log": log, "game_id": game_id, "seq": 0, "kind": "setup", "game": game, "at": at, "line": line, **extra}]
    out += [{"log": log, "game_id": game_id, "seq": s, "kind": "action", "game": game, "at": at + s,
             "line": {"type": "place"}, **extra} for s in range(1, actions + 1)]
    if ended:
        winners = rng.random() < 0.5
        results = [{"name": p, "score": rng.randint(0, 9) if mode != "cooperative" else None,
                    "winner": winners if mode == "cooperative" else i == 0} for i, p in enumerate(players)]
        out.append({"log": log, "game_id": game_id, "seq": -1, "kind": "end", "game": game,
                    "at": at + rng.randint(60, 3000), "status": ended, "last": actions, "players": results, **extra})
    return [log_item(m) for m in out]


def random_history(store: CafeStore, plays: int, seed: int = 1, sim_every: int = 0) -> None:
    """``plays`` plays over a few tables and days: finished, abandoned and still playing, every game
    mode, their items in a shuffled order (an end before its setup, as a kiosk's backlog may come)."""
    rng = random.Random(seed)
    logs = {f"T{t:02d}": uuid.uuid4().hex for t in range(1, 6)}
    games = {t: 0 for t in logs}
    batch: list[tuple[str, str, object]] = []
    for n in range(plays):
        table = rng.choice(sorted(logs))
        games[table] += 1
        game, mode = rng.choice([("timeline", None), ("cronologia", "cooperative"), ("cronologia", "competitive")])
        ended = rng.choice(["finished", "finished", "finished", "abandoned", None])
        at = NOW - rng.uniform(0, 20 * 86400)
        items = play_items(logs[table], games[table], rng, at, game, mode, ended,
                           sim=bool(sim_every) and n % sim_every == 0)
        rng.shuffle(items)
        batch += [("log", table, m) for m in items]
        if len(batch) > 400:
            store.record_batch(batch)
            batch = []
    store.record_batch(batch)


def recount(plays: list[dict]) -> dict:
    """The figures counted again from every play, as the dashboard did before it kept summaries."""
    per_game: dict[str, int] = {}
    per_table: dict[str, int] = {}
    hours = [0] * 24
    lengths: dict[str, list[int]] = {}
    for p in plays:
        if p["status"] != "finished":
            continue
        g = game_key(p["game"], p["mode"])
        per_game[g] = per_game.get(g, 0) + 1
        per_table[p["table"]] = per_table.get(p["table"], 0) + 1
        if p["started"]:
            hours[datetime.fromisoformat(p["started"]).astimezone().hour] += 1
            if p["duration_s"] is not None:
                lengths.setdefault(g, []).append(round(p["duration_s"]))
    import statistics
    return {"plays": sum(per_game.values()), "per_game": per_game, "per_table": per_table, "hours": hours,
            "median_minutes": {g: statistics.median(v) / 60 for g, v in lengths.items()}}


def summaries_match(store: CafeStore) -> None:
    everything = store.plays()
    figures = store.figures()
    assert {k: figures[k] for k in ("plays", "per_game", "per_table", "hours", "median_minutes")} == recount(everything)
    # each table's tile names the winners of its newest finished play
    for tb in store.tables():
        done = [p for p in everything if p["table"] == tb["table"] and p["status"] == "finished"]
        if tb["status"] == "finished" and done:
            ends = {p["id"]: store._read("SELECT end_received FROM plays WHERE table_name = ? AND log = ? AND "
                                         "game_id = ?", p["key"])[0][0] for p in done}
            newest = [p["players"] for p in done if ends[p["id"]] == max(ends.values())]   # one batch: one time
            assert tb["result"] in newest


def test_the_prepared_summaries_equal_a_count_of_every_play_again(tmp_path):
    store = CafeStore(tmp_path / "cafe.sqlite")
    random_history(store, 300, sim_every=4)
    store.record_batch([("state", t, {"game": "timeline", "status": "finished"}) for t in ("T01", "T02", "T03")])
    summaries_match(store)
    assert store.figures()["plays"] > 100
    removed = store.remove_simulated()
    assert removed["plays"] == 75 and store.simulated_plays() == 0
    summaries_match(store)
    figures = store.figures()
    store.close()
    # a database from before the summaries were kept gets them counted once, the same
    import sqlite3
    con = sqlite3.connect(tmp_path / "cafe.sqlite")
    con.executescript("DELETE FROM figure_counts; DELETE FROM figure_lengths; DELETE FROM table_results; "
                      "UPDATE plays SET figure = NULL; PRAGMA user_version = 2;")
    con.close()
    store = CafeStore(tmp_path / "cafe.sqlite")
    assert store.figures() == figures
    summaries_match(store)
    store.close()


def test_plays_come_in_pages_and_the_exports_hold_exactly_the_plays_asked_for(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "PLAYS_PAGE", 7)
    store = CafeStore(tmp_path / "cafe.sqlite")
    random_history(store, 40, seed=3)
    everything = store.plays()
    pages = list(store.plays_in_pages())
    assert [len(p) for p in pages[:-1]] == [7] * (len(pages) - 1) and sum(pages, []) == everything
    assert "".join(csv_stream(store.plays_in_pages())) == plays_csv(everything)
    streamed = json.loads("".join(bgstats_stream(store.plays_in_pages(finished=True))))
    whole = bgstats(everything)
    assert sorted(p["uuid"] for p in streamed["plays"]) == sorted(p["uuid"] for p in whole["plays"])
    assert {g["name"] for g in streamed["games"]} == {g["name"] for g in whole["games"]}
    # one play (as its link names it), one table, some days
    one = next(p for p in everything if p["status"] == "finished")
    assert [p["key"] for p in store.plays(play=one["id"])] == [one["key"]]
    assert {p["table"] for p in store.plays(table="T02")} == {"T02"}
    assert len(store.plays(table="T02")) == len([p for p in everything if p["table"] == "T02"])
    since, until = NOW - 10 * 86400, NOW - 5 * 86400
    seen = [p for p in store.plays(since=since, until=until)]
    assert seen and len(seen) < len(everything)
    assert all(since <= datetime.fromisoformat(p["started"]).timestamp() < until for p in seen)
    assert len(seen) == len([p for p in everything
                             if since <= datetime.fromisoformat(p["started"]).timestamp() < until])
    store.close()


def test_limits_refuse_a_tables_junk_before_any_database_work(tmp_path):
    log = uuid.uuid4().hex
    setup = {"log": log, "game_id": 1, "seq": 0, "kind": "setup", "game": "cronologia", "at": NOW,
             "line": {"type": "setup", "game": "cronologia", "players": ["Ana"], "mode": "m" * 30_000}}
    with pytest.raises(BadMessage, match="line.mode"):
        log_item(setup)                                 # 300 of them made the page 20 MB
    big = {"log": log, "game_id": 1, "seq": 1, "kind": "action", "game": "timeline", "at": NOW,
           "line": {"type": "place", "junk": "x" * MAX_LINE}}
    with pytest.raises(BadMessage, match="more than"):
        log_item(parse(json.dumps(big).encode()))       # 60 kB entries grew the database 38.8 MB/s
    # the rate: a bucket per table, refilled at its rate; other tables keep theirs
    clock = [0.0]
    limits = RateLimits(rate=10, burst=50, clock=lambda: clock[0])
    assert sum(limits.allow("T01") for _ in range(80)) == 50
    assert limits.allow("T02")
    clock[0] += 1.0
    assert sum(limits.allow("T01") for _ in range(80)) == 10
    # the plays one table may have open at once
    store = CafeStore(tmp_path / "cafe.sqlite")
    opened = [("log", "T01", log_item({**setup, "game_id": g, "line": {**setup["line"], "mode": "cooperative"}}))
              for g in range(1, MAX_OPEN_PLAYS + 6)]
    refusals = store.record_batch(opened)
    assert refusals[:MAX_OPEN_PLAYS] == [None] * MAX_OPEN_PLAYS
    assert all(r and "plays in progress" in r for r in refusals[MAX_OPEN_PLAYS:])
    assert len(store.plays()) == MAX_OPEN_PLAYS
    assert store.record_batch([opened[0]]) == [None]                            # one it holds: no new play
    assert store.record_batch([("log", "T02", opened[-1][2])]) == [None]       # another table's are its own
    store.close()


@needs_mosquitto
@pytest.mark.slow(20)
def test_another_tables_actions_are_stored_while_one_table_floods_the_dashboard(tmp_path):
    """T01's login (from a kiosk's SD card) sends bad items flat out until T02, playing a whole game
    meanwhile, has every action confirmed: the flood never stopped while T02 was recorded."""
    users = {"T01": "table-one-pw", "T02": "table-two-pw", "dashboard": "dashboard-pw"}
    broker = Mosquitto(tmp_path / "broker", users=users).start()
    secret = tmp_path / "broker-password"
    secret.write_text(users["dashboard"] + "\n")
    d = Dashboard(f"mqtt://dashboard@127.0.0.1:{broker.port}", tmp_path / "cafe.sqlite",
                  "--broker-password-file", str(secret)).start()
    flooding = threading.Event()
    stop = threading.Event()
    sent = [0]
    log = uuid.uuid4().hex
    shapes = [
        lambda n: b"not json",
        lambda n: json.dumps({"kind": "action", "log": log, "game_id": 1, "seq": n, "game": "timeline",
                              "at": time.time(), "line": {"junk": "x" * 20_000}}),        # too long a line
        lambda n: json.dumps({"kind": "setup", "log": log, "game_id": n, "seq": 0, "game": "timeline",
                              "at": time.time(), "line": {"players": ["A"], "mode": "m" * 30_000}}),
        lambda n: json.dumps({"kind": "rewrite", "log": log, "game_id": 1, "seq": n}),
    ]

    def flood() -> None:
        client = parse_broker(broker.url_for("T01")).client("T01")
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        try:
            while not stop.is_set():
                infos = [client.publish("cafe/T01/log", shapes[n % len(shapes)](sent[0] + n + 1), qos=1)
                         for n in range(100)]
                infos[-1].wait_for_publish(10)
                sent[0] += len(infos)
                flooding.set()
        finally:
            client.disconnect()
            client.loop_stop()
    flooder = threading.Thread(target=flood, daemon=True)
    table = VirtualTable("T02", tmp_path / "kiosk", parse_broker(broker.url_for("T02")), 1, 5)
    try:
        wait_until(d.connected, what="the dashboard")
        flooder.start()
        assert flooding.wait(20), "the flood to start"
        table.start_publishing()
        table.play()
        assert wait_acknowledged([table], timeout=60, confirmed=True), "T02 confirmed during the flood"
        assert flooder.is_alive() and not stop.is_set()          # still flooding when T02 was confirmed
        # the tile's count is checked against a thousand: on a quick machine T02 can be confirmed before
        # the flood has sent that many (every item sent is acknowledged by the broker before it counts)
        wait_until(lambda: sent[0] >= 1000, timeout=60, what="a thousand bad items sent")
        stop.set()
        flooder.join(20)
        plays = d.json("/api/plays")["plays"]
        assert [(p["table"], p["actions"]) for p in plays] == [("T02", table.actions)]
        assert d.get("/healthz") == (200, b"ok")
        wait_until(lambda: next((t["rejected"] for t in d.json("/api/tables")["tables"] if t["table"] == "T01"), 0)
                   >= 1000, what="T01's skipped messages counted on its tile")
        assert len(d.get("/")[1]) < 200_000
    finally:
        stop.set()
        table.close()
        d.stop()
        broker.stop()


@needs_mosquitto
@pytest.mark.slow(8)
def test_the_api_pages_the_plays_by_default_and_each_play_has_its_bg_stats_link(broker, tmp_path):
    from companion.bench.cafe import make_history
    make_history(tmp_path / "cafe.sqlite", 1005, tables=3)     # a year of 1,005 plays, as the bench makes it
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    try:
        first = d.json("/api/plays")
        assert len(first["plays"]) == 1000 and first["next"] == "/api/plays?limit=1000&offset=1000"
        rest = d.json(first["next"])
        assert len(rest["plays"]) == 5 and "next" not in rest
        rows = list(csv.DictReader(io.StringIO(d.get("/export/plays.csv")[1].decode())))
        assert len({r["play"] for r in rows}) == 1005
        assert d.json("/api/figures")["plays"] == 1005
        page = d.get("/")[1].decode()
        link = page.split('class="export-one" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
        one = json.loads(d.get(link)[1])
        assert len(one["plays"]) == 1 and one["games"][0]["name"] == "Timeline"
        # the newest play's own table and day (a fixed table may have no play on the day the test runs)
        newest = datetime.fromisoformat(first["plays"][0]["started"]).astimezone().strftime("%Y-%m-%d")
        table = first["plays"][0]["table"]
        some = json.loads(d.get(f"/export/plays.bgsplay?table={table}&from={newest}&to={newest}")[1])
        assert 0 < len(some["plays"]) < 1005
        assert json.loads(d.get("/export/plays.bgsplay?table=T99")[1])["plays"] == []
        assert d.get("/export/plays.bgsplay?from=yesterday")[0] == 400
    finally:
        d.stop()


def test_a_cooperative_play_in_the_list_is_won_or_lost_together(tmp_path):
    from companion.cafe.auth import Gate
    from companion.cafe.web import Dashboard as Web

    store = CafeStore(tmp_path / "cafe.sqlite")
    rng = random.Random(2)
    for gid, won in ((1, True), (2, False)):
        items = play_items("ab" * 16, gid, rng, NOW - gid, "cronologia", "cooperative")
        end = items[-1]
        end["players"] = [{**p, "winner": won} for p in end["players"]]
        store.record_batch([("log", "T01", m) for m in items])
    web = Web(store, Gate(None))
    for lang, words in (("en", ("Won together", "Lost together")),
                        ("es", ("Victoria del equipo", "Derrota del equipo"))):
        html = web.renderers[lang].plays(store.plays())
        assert all(w in html for w in words) and "(won)" not in html and "(ganó)" not in html
    store.close()
