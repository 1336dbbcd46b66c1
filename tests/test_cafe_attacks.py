"""Attacks from outside, as issue 28 made them: a real Mosquitto with the installed settings (password
file, use_username_as_clientid, the project's ACL) and one table's login, the password that sits on an
SD card at a customer's table. Whatever that login sends, the dashboard records every other table,
says the truth on /healthz, and no stored value breaks a page."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
import uuid

import pytest
from cafe_support import Dashboard, needs_mosquitto, wait_until

from companion.broker import parse_broker
from companion.cafe.mosquitto import Mosquitto
from companion.cafe.simulate import VirtualTable, wait_acknowledged

pytestmark = needs_mosquitto
USERS = {"T01": "table-one-pw", "T02": "table-two-pw", "dashboard": "dashboard-pw"}
PAGES = ("/", "/api/tables", "/api/plays", "/api/figures", "/export/plays.csv", "/export/plays.bgsplay")


@pytest.fixture
def secure(tmp_path):
    m = Mosquitto(tmp_path / "broker", users=USERS).start()
    yield m
    m.stop()


def dashboard(secure: Mosquitto, db, tmp_path) -> Dashboard:
    """The dashboard as docs/cafe.md runs it: its broker password in a file, not on the command line."""
    secret = tmp_path / "broker-password"
    secret.write_text(USERS["dashboard"] + "\n")
    d = Dashboard(f"mqtt://dashboard@127.0.0.1:{secure.port}", db, "--broker-password-file", str(secret)).start()
    wait_until(d.connected, what="the dashboard to log in to the broker")
    return d


class Attacker:
    """A paho client with T01's login (or another) and whatever client id it likes."""

    def __init__(self, secure: Mosquitto, client_id: str = "mallory", clean: bool = True, user: str = "T01"):
        self.client = parse_broker(secure.url_for(user)).client(client_id, clean_session=clean)
        self.got: dict[str, bytes] = {}
        up, self.subscribed = threading.Event(), threading.Event()
        self.client.on_connect = lambda c, u, f, rc, p=None: up.set()
        self.client.on_message = lambda c, u, msg: self.got.__setitem__(msg.topic, msg.payload)

        def on_subscribe(c, u, mid, codes, p=None):
            self.subscribed.set()
        self.client.on_subscribe = on_subscribe
        self.client.connect("127.0.0.1", secure.port)
        self.client.loop_start()
        assert up.wait(10)

    def send(self, topic: str, payload, retain: bool = False) -> None:
        """QoS 0: a denied QoS 1 publish makes Mosquitto 2.0.11 drop a 3.1.1 client (docs/cafe.md)."""
        body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        self.client.publish(topic, body, qos=0, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def kiosk(secure: Mosquitto, tmp_path, name: str = "T02", games: int = 1, seed: int = 1) -> VirtualTable:
    table = VirtualTable(name, tmp_path / f"kiosk-{name}-{seed}", parse_broker(secure.url_for(name)), games, seed)
    return table


def play_confirmed(table: VirtualTable) -> None:
    table.play()
    assert wait_acknowledged([table], timeout=90, confirmed=True), f"the dashboard to confirm {table.name}"


def totals(d: Dashboard) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in d.json("/api/plays")["plays"]:
        out[p["table"]] = out.get(p["table"], 0) + p["actions"]
    return out


def rejected(d: Dashboard, table: str) -> int:
    return next((t.get("rejected", 0) for t in d.json("/api/tables")["tables"] if t["table"] == table), 0)


def item(kind: str, seq: int, log: str, game_id: int = 1, **more) -> dict:
    return {"table": "T01", "log": log, "game_id": game_id, "seq": seq, "kind": kind, "game": "timeline",
            "at": time.time(), **more}


def setup_item(log: str, game_id: int = 1, at: float | None = None) -> dict:
    line = {"type": "setup", "game": "timeline", "players": ["Ana", "Bo"]}
    return item("setup", 0, log, game_id, line=line, **({"at": at} if at is not None else {}))


POISON = {
    "a seq no integer type holds": lambda log: item("action", 10 ** 30, log, line={"type": "place"}),
    "deep nesting": lambda log: '{"kind": "action", "line": ' + "[" * 5000 + "]" * 5000 + "}",
    "a non-string player name": lambda log: {**setup_item(log), "line": {"type": "setup", "players": [{"name": 7}]}},
    "an object where a time belongs": lambda log: item("action", 1, log, line={}, at={"t": 1}),
    "a string game id": lambda log: item("action", 1, log, line={}, game_id="1"),
    "players as an object": lambda log: item("end", -1, log, status="finished", last=0, players={"Ana": 1}),
    "a score that is a list": lambda log: item("end", -1, log, status="finished", last=0,
                                               players=[{"name": "Ana", "score": [1], "winner": True}]),
    "not JSON": lambda log: b"\xff\xfe not json",
    "a negative seq": lambda log: item("action", -5, log, line={}),
    "an unknown kind": lambda log: item("rewrite", 3, log, line={}),
}


def test_poison_messages_are_skipped_counted_and_never_stop_the_recording(secure, tmp_path):
    d = dashboard(secure, tmp_path / "cafe.sqlite", tmp_path)
    mallory = Attacker(secure)
    try:
        log = uuid.uuid4().hex
        for make in POISON.values():
            mallory.send("cafe/T01/log", make(log))
        mallory.send("cafe/T01/state", {"status": "in_progress", "started": "yesterday", "players": [1, 2]},
                     retain=True)
        wait_until(lambda: rejected(d, "T01") == len(POISON) + 1, what="every poison message counted")
        assert d.get("/healthz") == (200, b"ok") and d.proc.poll() is None
        table = kiosk(secure, tmp_path)
        table.start_publishing()
        play_confirmed(table)                          # another table still records, every action
        assert totals(d) == {"T02": table.actions}
        assert all(d.get(p)[0] == 200 for p in PAGES)
        page = d.get("/")[1].decode()
        assert "Messages skipped (not valid): 11" in page
        table.close()
    finally:
        mallory.close()
        d.stop()
    d.start()                                          # nothing poisonous is redelivered after a restart
    try:
        wait_until(d.connected, what="the dashboard back")
        # the broker hands the retained bad state to the new subscription: refused (and counted) again
        wait_until(lambda: rejected(d, "T01") == len(POISON) + 2, what="the retained bad state refused again")
        assert d.get("/healthz") == (200, b"ok") and totals(d) == {"T02": table.actions}
    finally:
        d.stop()


def test_a_table_login_cannot_take_the_dashboards_or_another_kiosks_session(secure, tmp_path):
    db = tmp_path / "cafe.sqlite"
    d = dashboard(secure, db, tmp_path)
    table = kiosk(secure, tmp_path, games=2, seed=4)
    table.start_publishing()
    wait_until(lambda: table.publisher.sessions == 1, what="T02's kiosk online")
    ids = ["dashboard", "companion-dashboard-" + hashlib.sha256(str(db.resolve()).encode()).hexdigest()[:12],
           "T02", "companion-table-T02"]
    attackers = []
    try:
        for client_id in ids:                          # clean sessions under their ids: bound to T01 instead
            attackers.append(Attacker(secure, client_id, clean=True))
        play_confirmed(table)
        assert totals(d) == {"T02": table.actions}
        assert table.publisher.sessions == 1           # the kiosk was never knocked off
    finally:
        for a in attackers:
            a.close()
        table.close()
        assert d.stop() == 0
    said = d.proc.stderr.read()
    assert "no contact" not in said and said.count("live (connected") == 1, said     # nor the dashboard


def test_stored_values_no_page_can_render_break_no_page(secure, tmp_path):
    db = tmp_path / "cafe.sqlite"
    d = dashboard(secure, db, tmp_path)
    table = kiosk(secure, tmp_path, seed=6)
    table.start_publishing()
    play_confirmed(table)
    table.close()
    d.stop()
    con = sqlite3.connect(db)           # values an older version (or a hand edit) may have stored
    con.execute("INSERT INTO tables (name, online, state, updated) VALUES ('T01', 1, ?, 'noon')",
                (json.dumps({"started": "yesterday", "players": 5, "health": "fine", "round": "two"}),))
    con.execute("INSERT INTO tables (name, online, state, updated) VALUES ('T03', 1, '{not json', 1)")
    con.execute("INSERT INTO plays (table_name, log, game_id, game, players, status, started, ended) "
                "VALUES ('T01', 'abc', 1, 5, '\"oops\"', 'weird', 'yesterday', 1e300)")
    con.execute("INSERT INTO plays (table_name, log, game_id, game, players, status, started, ended) "
                "VALUES ('T03', 'abd', 1, 'timeline', '[{\"name\": {}, \"score\": \"x\"}]', 'finished', -1e300, NULL)")
    con.commit()
    con.close()
    d.start()
    try:
        wait_until(d.connected, what="the dashboard back")
        for path in PAGES:
            status, body = d.get(path)
            assert status == 200, (path, body[:300])
        assert totals(d)["T02"] == table.actions
    finally:
        d.stop()


def test_a_table_cannot_rewrite_its_history_and_gaps_are_noticed(secure, tmp_path):
    d = dashboard(secure, tmp_path / "cafe.sqlite", tmp_path)
    mallory = Attacker(secure)
    mallory.client.subscribe([("cafe/T01/confirm", 1)])
    assert mallory.subscribed.wait(10)
    try:
        log = uuid.uuid4().hex
        end = item("end", -1, log, status="finished", last=3,
                   players=[{"name": "Ana", "score": 5, "winner": True}, {"name": "Bo", "score": 2, "winner": False}])
        for m in (setup_item(log), *(item("action", n, log, line={"type": "place"}) for n in (1, 2, 3)), end):
            mallory.send("cafe/T01/log", m)
        wait_until(lambda: [p["status"] for p in d.json("/api/plays")["plays"]] == ["finished"], what="the play")
        rewrites = [
            {**end, "last": 4, "players": [{"name": "Ana", "score": 0, "winner": False},
                                           {"name": "Bo", "score": 9, "winner": True}]},  # a 2nd end, another winner
            item("action", 4, log, line={"type": "place"}),               # an entry after the end
            item("action", -2, log, line={}),                             # a negative seq
            item("cheat", 2, log, line={}),                               # an unknown kind
            item("action", 2, log, line={"type": "other"}, game="cronologia"),  # the same play as another game
        ]
        for m in rewrites:
            mallory.send("cafe/T01/log", m)
        mallory.send("cafe/T01/state", {"status": "in_progress", "game": "timeline", "players": ["Ana", "Bo"]})
        wait_until(lambda: rejected(d, "T01") == len(rewrites), what="every rewrite refused and counted")
        (play,) = d.json("/api/plays")["plays"]
        assert play["status"] == "finished" and play["actions"] == 3
        assert [(p["name"], p["winner"]) for p in play["players"]] == [("Ana", True), ("Bo", False)]

        # a gap: entries 1, 2 and 4 of a second game; the dashboard confirms up to 2 only
        for m in (setup_item(log, 2), *(item("action", n, log, 2, line={"type": "place"}) for n in (1, 2, 4))):
            mallory.send("cafe/T01/log", m)

        def confirmed_game_2():
            body = mallory.got.get("cafe/T01/confirm")
            return body and json.loads(body)["logs"].get(log, {}).get("games", {}).get("2")
        wait_until(lambda: confirmed_game_2() == [2, False], what="the confirmation to stop at the gap")
        assert json.loads(mallory.got["cafe/T01/confirm"])["logs"][log]["through"] == 1
        mallory.send("cafe/T01/log", item("action", 3, log, 2, line={"type": "place"}))
        wait_until(lambda: confirmed_game_2() == [4, False], what="the gap filled")

        # only the dashboard confirms, and a table reads only its own confirmation
        mallory.send("cafe/T01/confirm", {"logs": {log: {"through": 99, "games": {}}}}, retain=True)
        mallory.send("cafe/T01/log", item("action", 5, log, 2, line={"type": "place"}))
        wait_until(lambda: confirmed_game_2() == [5, False], what="the dashboard's next confirmation")
        assert json.loads(mallory.got["cafe/T01/confirm"])["logs"][log]["through"] == 1
        other = Attacker(secure, "t02", user="T02")          # T02's own kiosk, as far as the broker knows
        other.client.subscribe([("cafe/T02/confirm", 1)])
        assert other.subscribed.wait(10)
        other_log = uuid.uuid4().hex
        other.send("cafe/T02/log", {**setup_item(other_log), "table": "T02"})
        wait_until(lambda: "cafe/T02/confirm" in other.got, what="the dashboard's confirmation for T02")
        other.close()
        # Mosquitto grants the subscription but, by the ACL, delivers T01 nothing of T02; the retained
        # messages come in the order subscribed, so T01's own arriving means T02's was withheld
        mallory.got.pop("cafe/T01/confirm")
        mallory.client.subscribe([("cafe/T02/confirm", 1), ("cafe/T01/confirm", 1)])
        wait_until(lambda: "cafe/T01/confirm" in mallory.got, what="T01's own confirmation, retained")
        assert "cafe/T02/confirm" not in mallory.got
    finally:
        mallory.close()
        d.stop()


def test_a_kiosk_clock_that_jumps_gives_believable_durations(secure, tmp_path):
    d = dashboard(secure, tmp_path / "cafe.sqlite", tmp_path)
    mallory = Attacker(secure)
    try:
        log = uuid.uuid4().hex
        now = time.time()
        people = [{"name": "Ana", "score": None, "winner": True}, {"name": "Bo", "score": None, "winner": False}]
        # a clock never set at the start (1970: 29,928,010.8 minutes in the issue), and one that jumps an
        # hour back during the play (-60 minutes)
        for gid, (start, stop) in enumerate(((1.0e6, now), (now, now - 3600)), 1):
            mallory.send("cafe/T01/log", setup_item(log, gid, at=start))
            mallory.send("cafe/T01/log", item("action", 1, log, gid, line={"type": "place"}))
            mallory.send("cafe/T01/log", item("end", -1, log, gid, status="finished", last=1, players=people,
                                              at=stop))
        wait_until(lambda: len([p for p in d.json("/api/plays")["plays"] if p["ended"]]) == 2, what="both plays")
        rows = list(csv.DictReader(io.StringIO(d.get("/export/plays.csv")[1].decode())))
        assert len(rows) == 4
        for r in rows:
            assert r["minutes"] != "" and 0 <= float(r["minutes"]) < 5, r      # the dashboard's receive times
        assert all(d.get(p)[0] == 200 for p in PAGES)
    finally:
        mallory.close()
        d.stop()


def _mount_tmpfs(folder, size: str) -> bool:
    """A real, small filesystem of its own (root in CI, as here); False where mounting is not allowed."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    folder.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True).returncode == 0


@pytest.mark.slow
def test_a_full_disk_is_said_and_recording_resumes_when_there_is_room(secure, tmp_path):
    disk = tmp_path / "small-disk"
    if not _mount_tmpfs(disk, "8m"):
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    d = None
    try:
        d = dashboard(secure, disk / "cafe.sqlite", tmp_path)
        table = kiosk(secure, tmp_path, games=1, seed=9)
        table.start_publishing()
        play_confirmed(table)
        filler = disk / "filler"
        # the disk fills up (another program's logs, say); unbuffered, so that closing the file has
        # nothing left to write (a buffered file's close raised "No space left on device" again)
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        # the table plays on until the dashboard's database must grow: a game or two may still fit in
        # pages SQLite already holds (its write-ahead log is reused, not grown), so one more game
        # does not always fill it
        for _ in range(10):
            table.play()
            wait_acknowledged([table], timeout=90)
            if d.get("/healthz")[0] == 503:
                break
        wait_until(lambda: d.get("/healthz")[0] == 503, timeout=60, what="/healthz to say the disk is full")
        status, body = d.get("/healthz")
        assert b"the disk is full" in body, body
        assert "disk full" in d.get("/")[1].decode()
        filler.unlink()                                # room again: no restart
        wait_until(lambda: d.get("/healthz") == (200, b"ok"), what="/healthz ok again")
        assert wait_acknowledged([table], timeout=120, confirmed=True)
        assert totals(d) == {"T02": table.actions}
        table.close()
    finally:
        if d is not None and d.proc is not None and d.proc.poll() is None:
            d.stop()
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_the_dashboard_says_why_it_is_blind_once_per_change(secure, tmp_path):
    secret = tmp_path / "wrong"
    secret.write_text("not-the-password\n")
    d = Dashboard(f"mqtt://dashboard@127.0.0.1:{secure.port}", tmp_path / "a.sqlite",
                  "--broker-password-file", str(secret)).start()
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(iter(d.proc.stderr.readline, "")), daemon=True)
    reader.start()
    try:
        wait_until(lambda: d.get("/healthz")[0] == 503 and b"login refused" in d.get("/healthz")[1],
                   what="/healthz to say the login was refused")
        assert d.get("/healthz")[1].startswith(b"no contact with the broker since ")
        assert "login refused" in d.get("/")[1].decode()                  # the banner
        wait_until(lambda: any(line.startswith("companion cafe serve:") for line in said), what="serve to say why")
    finally:
        assert d.stop() == 0
    reader.join(5)
    lines = [line for line in said if line.startswith("companion cafe serve:")]
    assert len(lines) == 1 and "no contact with the broker" in lines[0] and "login refused" in lines[0], said

    d = Dashboard("mqtt://127.0.0.1:9", tmp_path / "b.sqlite").start()
    try:
        wait_until(lambda: b"cannot reach 127.0.0.1:9" in d.get("/healthz")[1], what="/healthz: unreachable")
    finally:
        assert d.stop() == 0


def test_the_dashboards_broker_password_can_come_from_the_environment(secure, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_BROKER_PASSWORD", USERS["dashboard"])
    d = Dashboard(f"mqtt://dashboard@127.0.0.1:{secure.port}", tmp_path / "cafe.sqlite").start()
    try:
        wait_until(d.connected, what="the dashboard to log in with the password from its environment")
        assert not any(USERS["dashboard"] in arg for arg in d.args)       # nothing for 'ps' to show
    finally:
        assert d.stop() == 0
