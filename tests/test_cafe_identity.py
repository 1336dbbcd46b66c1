"""The café's data knows whose it is (issue 40, part A), against a real Mosquitto, with game logs
written by the real game session:

- a dashboard database has an identity and every confirmation carries it and what it holds: the
  dashboard restarted on an older copy of its database, or on an empty one, is exact again without
  touching a kiosk;
- a second dashboard with the dashboard's login: the café's stays exact, and both name the other on
  the page and in /healthz;
- a kiosk log takes its identity on its machine and is chained: an SD card restored from an older
  image and one copied to another table keep their histories exact and apart, and the page says so.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from pathlib import Path

import pytest
from cafe_support import (  # noqa: F401  (the broker fixture)
    Dashboard,
    broker_fixture,
    needs_mosquitto,
    require,
    wait_until,
)

from companion.broker import parse_broker
from companion.cafe import outbox
from companion.cafe.mosquitto import Mosquitto, mosquitto_binary
from companion.cafe.publisher import Publisher
from companion.cafe.store import CafeStore
from companion.games import random_play
from companion.play.session import GameSession
from companion.store.log import GameLog
from companion.ui.games import view_for

pytestmark = needs_mosquitto


class Kiosk:
    """A table's kiosk: its game log on its machine, written by the real game session, and its
    publisher (the kiosk's own thread), in this process."""

    def __init__(self, table: str, folder: Path, broker_url: str, machine: str, seed: int = 1,
                 dashboard_db: str | None = None):
        self.table, self.machine, self.broker_url, self.dashboard_db = table, machine, broker_url, dashboard_db
        self.path = folder / f"{table}.sqlite"
        self.rng = random.Random(f"{seed}:{table}")
        self.log = GameLog(self.path, machine=machine)
        self.publisher: Publisher | None = None

    def start(self) -> Kiosk:
        self.publisher = Publisher(self.table, self.path, parse_broker(self.broker_url), machine=self.machine,
                                   poll_s=0.05, dashboard_db=self.dashboard_db).start()
        return self

    def play(self, games: int) -> None:
        view = view_for("timeline")
        engine = view.engine()
        for _ in range(games):
            session = GameSession.start(self.log, view, random_play.timeline_setup(self.rng, players=2, hand=3))
            while session.in_progress():
                session.confirm(engine.parse_action(random_play._next_line(engine, session.state, self.rng)))
            if self.publisher is not None:
                self.publisher.poke()

    def stop(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()
            self.publisher = None

    def close(self) -> None:
        self.stop()
        self.log.close()

    def confirmed(self) -> bool:
        """The database the café registered holds all of this log (the kiosk's own view)."""
        box = self.publisher._outbox if self.publisher else None
        return box is not None and box.all_confirmed()


def play_all(kiosks: list[Kiosk], games: int) -> None:
    """The tables play at once, as a café's do (the views are loaded first: imports racing in threads can fail)."""
    view_for("timeline")
    players = [threading.Thread(target=k.play, args=(games,)) for k in kiosks]
    for p in players:
        p.start()
    for p in players:
        p.join()


def history(path: Path, first: int = 1) -> list[tuple[int, str]]:
    """(entries, status) of each game of a kiosk's log from game ``first``: what the dashboard must show."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = con.execute("SELECT (SELECT COUNT(*) FROM entries e WHERE e.game_id = g.id), g.status FROM games g "
                       "WHERE g.id >= ?", (first,)).fetchall()
    con.close()
    return sorted(rows)


def shown(d: Dashboard) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list] = {}
    for p in d.json("/api/plays")["plays"]:
        out.setdefault(p["table"], []).append((p["actions"], p["status"]))
    return {t: sorted(v) for t, v in out.items()}


def exact(d: Dashboard, want: dict[str, list]) -> bool:
    try:
        return shown(d) == want
    except (AssertionError, OSError):
        return False


def copy_db(src: Path, dst: Path) -> None:
    """A backup copy of a SQLite file, as a café's backup (or an SD card image) takes it."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    a.backup(b)
    a.close()
    b.close()


def plays_in(path: Path) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n = con.execute("SELECT COUNT(*) FROM plays").fetchone()[0]
    con.close()
    return n


def db_id(path: Path) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    value = con.execute("SELECT value FROM meta WHERE key = 'db'").fetchone()[0]
    con.close()
    return value


@pytest.mark.slow(27)
def test_the_dashboard_on_an_older_copy_or_an_empty_database_is_exact_again(broker, tmp_path):
    db, backup, empty = tmp_path / "cafe.sqlite", tmp_path / "backup.sqlite", tmp_path / "new.sqlite"
    kiosks = [Kiosk(t, tmp_path, broker.url, machine=f"pi-{t}").start() for t in ("T01", "T02", "T03")]
    d = Dashboard(broker.url, db).start()
    try:
        play_all(kiosks, 2)
        want = {k.table: history(k.path) for k in kiosks}
        wait_until(lambda: exact(d, want) and all(k.confirmed() for k in kiosks), timeout=60, what="the first games")
        assert d.stop() == 0
        copy_db(db, backup)                                  # last night's backup
        d = Dashboard(broker.url, db).start()
        play_all(kiosks, 1)
        want = {k.table: history(k.path) for k in kiosks}
        wait_until(lambda: exact(d, want) and all(k.confirmed() for k in kiosks), timeout=60, what="the next game")
        assert d.stop() == 0

        # the database restored from last night's backup: same identity, less held; the kiosks (every mark
        # confirmed) offer it what it lacks, told by its confirmation, not by a timer
        assert plays_in(backup) == 6 and plays_in(db) == 9
        d = Dashboard(broker.url, backup).start()
        wait_until(lambda: exact(d, want), timeout=60, what="the older copy to be exact")
        wait_until(lambda: all(k.confirmed() for k in kiosks), what="the kiosks to settle with it")
        assert d.get("/healthz") == (200, b"ok")
        assert d.stop() == 0

        # an empty database (the café's PC replaced): another identity, which gets everything again
        d = Dashboard(broker.url, empty).start()
        wait_until(lambda: exact(d, want), timeout=60, what="the empty database to be exact")
        # the kiosks count the database they registered, and the page says this one is not it
        wait_until(lambda: d.get("/healthz")[0] == 503, what="healthz to name the registered database")
        status, body = d.get("/healthz")
        assert db_id(backup) in body.decode() and "--replaces" in body.decode()
        assert not any(k.confirmed() for k in kiosks)
        assert d.stop() == 0
        # told that it takes the lost database's place, it is the one the kiosks count
        d = Dashboard(broker.url, empty, "--replaces", db_id(backup)).start()
        wait_until(lambda: all(k.confirmed() for k in kiosks), what="the kiosks to count the new database")
        wait_until(lambda: d.get("/healthz") == (200, b"ok"), what="healthz ok")
        assert exact(d, want)
    finally:
        if d.proc.poll() is None:
            d.stop()
        for k in kiosks:
            k.close()


@pytest.mark.slow(9)
def test_a_second_dashboard_on_the_same_login_is_named_and_the_cafes_stays_exact(tmp_path):
    require(mosquitto_binary() is None, "mosquitto is not installed")
    users = {"T01": "pw-t01", "T02": "pw-t02", "dashboard": "pw-dash"}
    broker = Mosquitto(tmp_path / "broker", users=users).start()      # the installed settings: ids bound to logins
    (tmp_path / "dash.pw").write_text("pw-dash\n")
    url = f"mqtt://dashboard@127.0.0.1:{broker.port}"
    kiosks = [Kiosk(t, tmp_path, broker.url_for(t), machine=f"pi-{t}").start() for t in ("T01", "T02")]
    cafe = Dashboard(url, tmp_path / "cafe.sqlite", "--broker-password-file", str(tmp_path / "dash.pw")).start()
    laptop = None
    try:
        play_all(kiosks, 1)
        want = {k.table: history(k.path) for k in kiosks}
        wait_until(lambda: exact(cafe, want) and all(k.confirmed() for k in kiosks), timeout=60,
                   what="the café's dashboard")
        # a staff laptop starts a dashboard of its own with the dashboard's login, while the tables play
        laptop = Dashboard(url, tmp_path / "laptop.sqlite", "--broker-password-file", str(tmp_path / "dash.pw")).start()
        play_all(kiosks, 2)
        want = {k.table: history(k.path) for k in kiosks}
        laptop_db = db_id(tmp_path / "laptop.sqlite")
        cafe_db = db_id(tmp_path / "cafe.sqlite")

        def named() -> bool:
            status, body = cafe.get("/healthz")
            return status == 503 and "another dashboard" in body.decode() and laptop_db in body.decode()
        wait_until(named, timeout=60, what="the café's /healthz to name the other dashboard")
        assert laptop_db in cafe.get("/")[1].decode()
        wait_until(lambda: exact(cafe, want), timeout=60, what="the café's dashboard to be exact beside the other")
        status, body = laptop.get("/healthz")
        assert status == 503 and cafe_db in body.decode()        # the laptop says it is not the café's
        assert laptop.stop() == 0
        wait_until(lambda: all(k.confirmed() for k in kiosks), what="the kiosks to settle with the café's")
        assert exact(cafe, want)
    finally:
        for d in (cafe, laptop):
            if d is not None and d.proc.poll() is None:
                d.stop()
        for k in kiosks:
            k.close()
        broker.stop()


@pytest.mark.slow(6)
def test_a_kiosk_set_to_the_cafes_database_counts_no_other_and_offers_it_everything(broker, tmp_path):
    cafe_db = tmp_path / "cafe.sqlite"
    store = CafeStore(cafe_db)            # the café's database, made before: its id is in the kiosk's settings
    cafe_id = store.db_id
    store.close()
    kiosk = Kiosk("T01", tmp_path, broker.url, machine="pi-1", dashboard_db=cafe_id).start()
    laptop = Dashboard(broker.url, tmp_path / "laptop.sqlite").start()     # the first dashboard the kiosk meets
    cafe = None
    try:
        kiosk.play(1)
        want = {"T01": history(kiosk.path)}
        laptop_id = db_id(tmp_path / "laptop.sqlite")

        def says_set() -> bool:
            status, body = laptop.get("/healthz")
            return status == 503 and cafe_id in body.decode() and "cafe.dashboard_db" in body.decode()
        # offered everything, but not counted: the kiosk's marks are the laptop's, none of them settles a play
        wait_until(lambda: exact(laptop, want) and says_set(), timeout=60, what="the laptop holding T01, named")
        assert not kiosk.confirmed() and kiosk.log.cafe_meta("dashboard_db") is None
        assert cafe_id in laptop.get("/")[1].decode()
        assert laptop.stop() == 0

        # the café's dashboard: offered again all it lacks, and counted; it names the other the kiosk heard
        cafe = Dashboard(broker.url, cafe_db).start()
        wait_until(lambda: exact(cafe, want) and kiosk.confirmed(), timeout=60, what="the café's exact and counted")
        status, body = cafe.get("/healthz")
        assert status == 503 and laptop_id in body.decode() and "another dashboard" in body.decode()
        assert laptop_id in cafe.get("/")[1].decode()
    finally:
        for d in (laptop, cafe):
            if d is not None and d.proc.poll() is None:
                d.stop()
        kiosk.close()


@pytest.mark.slow(5)
def test_a_busy_kiosk_log_is_waited_for_and_never_ends_the_publishers_session(broker, tmp_path, monkeypatch):
    monkeypatch.setattr(outbox, "LOG_WAIT_S", 0.2)     # the publisher's writes give up on a busy log at once
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    kiosk = Kiosk("T01", tmp_path, broker.url, machine="pi-1").start()
    try:
        kiosk.play(1)
        wait_until(lambda: kiosk.confirmed(), timeout=60, what="the first game confirmed")
        assert d.stop() == 0
        kiosk.play(1)                         # offered, not confirmed: the dashboard is away
        busy = sqlite3.connect(kiosk.path, isolation_level=None)
        busy.execute("BEGIN IMMEDIATE")       # another connection holds the log's write lock
        d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
        publisher = kiosk.publisher
        assert publisher is not None
        # the dashboard's confirmation cannot be written while the log is busy: said, kept, tried again
        wait_until(lambda: publisher._store_said > 0, timeout=60, what="the publisher to meet the busy log")
        busy.execute("ROLLBACK")
        busy.close()
        wait_until(lambda: kiosk.confirmed() and exact(d, {"T01": history(kiosk.path)}), timeout=60,
                   what="the second game confirmed once the log is free")
        assert publisher.sessions == 1          # the busy log never ended the session
    finally:
        d.stop()
        kiosk.close()


@pytest.mark.slow(7)
def test_a_restored_card_and_a_copied_card_keep_their_histories_apart(broker, tmp_path):
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    t01 = Kiosk("T01", tmp_path, broker.url, machine="pi-1").start()
    t05: Kiosk | None = None
    try:
        t01.play(2)
        wait_until(lambda: t01.confirmed(), timeout=60, what="T01's first games")
        image = tmp_path / "image.sqlite"
        copy_db(t01.path, image)                     # the card's image, taken after two games
        t01.play(2)
        original = history(t01.path)
        wait_until(lambda: exact(d, {"T01": original}) and t01.confirmed(), timeout=60, what="T01's four games")

        # T01's card restored from the image on the same Pi: games 3 and 4 are played again, differently
        t01.close()
        copy_db(image, t01.path)
        t01 = Kiosk("T01", tmp_path, broker.url, machine="pi-1", seed=2)
        t01.play(2)
        t01.start()
        # the image copied to a new Pi for table T05, which plays its own games
        t05_path = tmp_path / "T05.sqlite"
        copy_db(image, t05_path)
        t05 = Kiosk("T05", tmp_path, broker.url, machine="pi-5").start()
        t05.play(2)

        want = {"T01": sorted(original + history(t01.path, first=3)), "T05": history(t05_path, first=3)}
        wait_until(lambda: exact(d, want) and t01.confirmed() and t05.confirmed(), timeout=60,
                   what="both tables exact and apart")
        tiles = {tb["table"]: tb for tb in d.json("/api/tables")["tables"]}
        assert tiles["T01"]["origin"]["why"] == "restored" and tiles["T01"]["origin"]["first"] == 3
        assert tiles["T05"]["origin"] == {**tiles["T05"]["origin"], "why": "copied", "from_table": "T01", "first": 3}
        page = d.get("/")[1].decode()
        assert "restored from an older copy" in page and "a copy of T01" in page
        # nothing of the two histories was merged: every play's entries are 1..n, once, of one log
        con = sqlite3.connect(f"file:{tmp_path / 'cafe.sqlite'}?mode=ro", uri=True)
        for key in con.execute("SELECT DISTINCT table_name, log, game_id FROM actions").fetchall():
            seqs = [s for (s,) in con.execute("SELECT seq FROM actions WHERE table_name = ? AND log = ? AND "
                                              "game_id = ? ORDER BY seq", key)]
            assert seqs == list(range(1, len(seqs) + 1)), key
        con.close()
    finally:
        d.stop()
        t01.close()
        if t05 is not None:
            t05.close()


def test_a_log_takes_a_new_identity_on_another_machine_and_keeps_its_chain(tmp_path):
    """No broker needed: the identity and the chain as the log keeps them."""
    from companion.cafe.outbox import Outbox

    k = Kiosk("T01", tmp_path, "mqtt://127.0.0.1:1", machine="pi-1")
    k.play(1)
    box = Outbox(k.path, machine="pi-1")
    items = box.pending(10 ** 6)
    assert all(len(m["chain"]) == 32 for m in items) and len({m["chain"] for m in items}) == len(items)
    assert Outbox(k.path, machine="pi-1").log_id == box.log_id          # the same machine: the same log
    copy = tmp_path / "copy.sqlite"
    copy_db(k.path, copy)
    other = Outbox(copy, machine="pi-2")                                # a copy on another machine
    assert other.log_id != box.log_id and other.first == 2 and other.pending(10) == []
    assert other.origin == {"log": box.log_id, "why": "copied", "first": 2}
    assert Outbox(copy, machine="pi-2").log_id == other.log_id          # taken once, at its first start
    k.close()


def test_another_history_under_the_same_log_is_refused_and_a_fuller_mark_is_lowered(tmp_path):
    """The rules themselves, without a broker: the dashboard refuses an item whose chain differs from the
    one it holds under the same key, and a kiosk follows its database's word down as well as up."""
    from companion.cafe import schema
    from companion.cafe.outbox import Outbox
    from companion.cafe.store import CafeStore

    store = CafeStore(tmp_path / "cafe.sqlite")

    def deliver(box: Outbox) -> list:
        return store.record_batch([("log", "T01", schema.log_item(m)) for m in box.pending(10 ** 6)])

    def hear(box: Outbox) -> bool:
        return box.confirmed(schema.confirmation(schema.parse(json.dumps(store.confirmation("T01")).encode())))

    def one_game_confirmed(seed: int) -> tuple[Kiosk, Outbox]:
        k = Kiosk("T01", tmp_path, "mqtt://127.0.0.1:1", machine="pi-1", seed=seed)
        box = Outbox(k.path, machine="pi-1")
        k.play(1)
        assert all(r is None for r in deliver(box)) and hear(box) and box.all_confirmed()
        box.close()
        k.close()
        return k, box

    k, box = one_game_confirmed(1)
    image = tmp_path / "image.sqlite"
    copy_db(k.path, image)                       # the card's image, after game 1
    k, box = one_game_confirmed(2)

    copy_db(image, k.path)                       # restored on the same Pi; game 2 played again, differently
    k = Kiosk("T01", tmp_path, "mqtt://127.0.0.1:1", machine="pi-1", seed=9)
    k.play(1)
    restored = Outbox(k.path, machine="pi-1")
    assert restored.log_id == box.log_id         # same machine, same id: only the dashboard can tell
    refusals = deliver(restored)
    assert any(r and "not the one held" in r for r in refusals)
    assert len(store.plays()) == 2               # nothing merged into the first game 2
    # the first confirmation it hears names an item its log does not hold: a new log, from game 2
    assert hear(restored) and restored.log_id != box.log_id and restored.first == 2
    assert restored.origin == {"log": box.log_id, "why": "restored", "first": 2}
    assert all(r is None for r in deliver(restored))
    assert hear(restored) and restored.all_confirmed()
    assert len(store.plays()) == 3               # games 1 and 2 as first played, and the new game 2 apart

    # a database that holds less (an older copy, same identity) lowers the marks: game 2 goes out again
    older = {"db": store.db_id, "replaces": None,
             "logs": {restored.log_id: {"through": 1, "games": {}, "held": 1, "upto": 1}}}
    assert restored.confirmed(older) and not restored.all_confirmed()
    assert restored.pending(1)[0]["game_id"] == 2
    store.close()
    restored.close()
    k.close()
