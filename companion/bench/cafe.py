"""``companion bench cafe``: the café under load, against Mosquitto's own clients in the same run.

A private Mosquitto is started on a loopback port, then:

- reference: Mosquitto's own ``mosquitto_pub -l`` / ``mosquitto_sub`` (QoS 1): the round trip of one
  message through the broker (p50, p99) and how many messages a second pass through it in a burst;
- burst: ``--tables`` virtual tables (at most 100) play one game each as fast as the broker takes
  them (real engines, game logs and publishers); actions per second from the first append until the
  dashboard (``companion cafe serve``, its own process) has stored the last one;
- the dashboard away: it is SIGKILLed, every table (at most 100) plays one game, then the broker is SIGKILLed and
  started again (what it had not saved is gone) and the dashboard comes back; how many items the
  kiosks offered again, and how long from the dashboard's return until it holds every action of
  every table (each kiosk has the dashboard's confirmation of its whole log);
- steady play: the same tables play ``--per-minute`` actions a minute each for ``--minutes``;
  latency from a kiosk's append to the moment the dashboard's database holds the action (what its
  API then serves), p50 and p99; the dashboard's CPU (share of one core) and memory, sampled;
  ``--viewers`` staff pages open for the second half: the live stream's bytes a second each, and how
  long ``/`` takes.

The virtual tables run in processes of 50 (companion/cafe/fleet.py), so 1,000 tables fit on one
machine.

Figures, never a verdict; the targets are printed beside them (p99 <= 1 s at 1,000 tables playing 10
actions a minute on 2 cores, the live page <= 50 kB/s per viewer; dashboard memory flat over an
hour: ``--minutes 60``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

from companion.bench.kiosk import _pct

BURST_TABLES = 100
ROWS = ("burst", "away", "steady", "flood", "history")
FLOOD_TABLE = "FLOOD"
HISTORY_PAGES = ("/", "/api/tables", "/api/plays", "/api/plays?limit=100&offset=50000", "/api/figures",
                 "/export/plays.bgsplay?table=T001")
HISTORY_EXPORTS = ("/export/plays.csv", "/export/plays.bgsplay")     # the whole year, loaded beside the pages
SLICE_S = 30.0       # steady play's p99 is also given per slice of this long: a tail in one slice is an event


def add_arguments(parser) -> None:
    parser.add_argument("--tables", type=int, default=100, help="virtual tables (100)")
    parser.add_argument("--per-minute", type=float, default=10.0, help="actions a minute per table in steady play (10)")
    parser.add_argument("--minutes", type=float, default=3.0,
                        help="steady play lasts this long (3; 60 for the memory-over-an-hour figure)")
    parser.add_argument("--viewers", type=int, default=3,
                        help="staff pages open on the live stream in the second half of steady play (3)")
    parser.add_argument("--rows", default=",".join(ROWS), metavar="LIST",
                        help=f"which rows to run, comma-separated (default all: {','.join(ROWS)}; the reference "
                             "always runs)")
    parser.add_argument("--flood-items", type=int, default=30_000,
                        help="flood: invalid items one table sends (30000) ...")
    parser.add_argument("--flood-seconds", type=float, default=60.0, help="... in this many seconds (60)")
    parser.add_argument("--history-plays", type=int, default=100_000,
                        help="history: plays in the dashboard's database (100000: a busy year)")
    parser.add_argument("--history-seconds", type=float, default=60.0,
                        help="history: how long pages are loaded while the tables play (60)")
    parser.add_argument("--kiosks-idle", action="store_true",
                        help="the virtual kiosks take only the CPU the broker and dashboard leave (they stand in for "
                             "machines of their own): the café's own part measured where one machine cannot also "
                             "play every table")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def _reference(port: int, n: int = 500) -> dict:
    """Mosquitto's own clients: round trip of single messages, and a burst of ``n``."""
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-h", "127.0.0.1", "-q", "1", "-t", "bench/ref"],
                           stdout=subprocess.PIPE, text=True, bufsize=1)
    time.sleep(0.5)
    pub = subprocess.Popen(["mosquitto_pub", "-p", str(port), "-h", "127.0.0.1", "-q", "1", "-t", "bench/ref", "-l"],
                           stdin=subprocess.PIPE, text=True, bufsize=1)
    assert pub.stdin is not None and sub.stdout is not None
    into, out = pub.stdin, sub.stdout
    trips = []
    for i in range(200):                       # one at a time: the round trip (through the tools' pipes too)
        sent = time.perf_counter()
        into.write(f"{i}\n")
        into.flush()
        out.readline()
        trips.append(time.perf_counter() - sent)
    t0 = time.perf_counter()
    got = [0]

    def read():
        for _ in range(n):
            out.readline()
            got[0] += 1
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for _ in range(n):
        into.write("x\n")
    into.flush()
    reader.join(120)
    burst = got[0] / (time.perf_counter() - t0)
    into.close()
    pub.wait(10)
    sub.terminate()
    sub.wait(10)
    return {"round_trip_ms": {"p50": round(_pct(trips, 50) * 1000, 2), "p99": round(_pct(trips, 99) * 1000, 2)},
            "burst_messages_per_s": round(burst, 1), "burst_messages": n}


class _DashboardProcess:
    def __init__(self, broker_url: str, db: Path):
        from companion.cafe.mosquitto import free_port
        self.port = free_port()
        self.db = db
        self.proc = subprocess.Popen([sys.executable, "-m", "companion", "cafe", "serve", "--broker", broker_url,
                                      "--listen", f"127.0.0.1:{self.port}", "--db", str(db)],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.proc.stdout.readline()
        import psutil
        self.ps = psutil.Process(self.proc.pid)

    def stored(self, since: float = 0.0) -> int:
        """Actions the dashboard serves (every page of /api/plays), of plays that started after ``since``."""
        import urllib.request
        total = 0
        page: str | None = "/api/plays?limit=10000"
        while page:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{page}", timeout=60) as r:
                body = json.load(r)
            # a play's start is given to the second
            total += sum(p["actions"] for p in body["plays"] if since == 0.0 or (
                p["started"] and datetime.fromisoformat(p["started"]).timestamp() >= int(since)))
            page = body.get("next")
        return total

    def get(self, path: str) -> tuple[float, int]:
        """(milliseconds until the whole answer arrived, its bytes)."""
        import urllib.request
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=600) as r:
            n = len(r.read())
        return (time.perf_counter() - t0) * 1000, n

    def latencies(self, since: float) -> list[tuple[float, float]]:
        """(when the kiosk stored it, in seconds after ``since``; append -> dashboard) of each action."""
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return [(a - since, r - a) for a, r in con.execute("SELECT at, received FROM actions WHERE at >= ?",
                                                                (since,))]
        finally:
            con.close()

    def received(self, since: float) -> dict[tuple, float]:
        """(table, log, game_id, seq) -> when the dashboard stored it."""
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return {(t, log, g, n): r for t, log, g, n, r in con.execute(
                "SELECT table_name, log, game_id, seq, received FROM actions WHERE at >= ?", (since,))}
        finally:
            con.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(20)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(20)


class _Viewer(threading.Thread):
    """One staff page: loads ``/`` and reads its live stream, counting the bytes that arrive."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.bytes = 0
        self.page_ms: list[float] = []
        self.stop = threading.Event()

    def load_page(self) -> str:
        import urllib.request
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=60) as r:
            html = r.read().decode()
        self.page_ms.append((time.perf_counter() - t0) * 1000)
        return html.split('data-since="', 1)[1].split('"', 1)[0]

    def run(self) -> None:
        import http.client
        since = self.load_page()
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        con.request("GET", f"/events?lang=en&since={since}")
        r = con.getresponse()
        while not self.stop.is_set():
            chunk = r.read1(65536)
            if not chunk:
                return
            self.bytes += len(chunk)
        con.close()


def _per_slice(timed: list[tuple[float, float]]) -> dict:
    """p99 (ms) of the actions stored in each :data:`SLICE_S` of steady play, in order: where the tail
    is (the first slice alone: the start; one slice: an event such as a stall; all: the load)."""
    slices: dict[int, list[float]] = {}
    for at, t in timed:
        slices.setdefault(max(0, int(at // SLICE_S)), []).append(t)
    return {"seconds": SLICE_S, "p99_ms": [round(_pct(slices[i], 99) * 1000, 1) if i in slices else None
                                           for i in range(max(slices) + 1)] if slices else []}


def _split(tap: Path, received: dict[tuple, float]) -> dict:
    """p50/p99 of append -> broker (the tap's arrival) and broker -> dashboard, over the same actions."""
    kiosk, dashboard = [], []
    for line in tap.read_text(errors="replace").splitlines():
        at, _, payload = line.partition(" ")
        try:
            m = json.loads(payload)
            key = (m["table"], m["log"], m["game_id"], m["seq"])
            seen = float(at)
        except (ValueError, KeyError, TypeError):
            continue
        if m.get("kind") in ("action", "undo") and key in received:
            kiosk.append(seen - m["at"])
            dashboard.append(received.pop(key) - seen)
    out: dict = {"actions": len(kiosk)}
    for name, values in (("append_to_broker_ms", kiosk), ("broker_to_dashboard_ms", dashboard)):
        out[name] = {"p50": round(_pct(values, 50) * 1000, 1), "p99": round(_pct(values, 99) * 1000, 1)} \
            if values else {"p50": None, "p99": None}
    return out


def _flood(broker, dash: _DashboardProcess, names: list[str], url, args, folder: Path) -> dict:
    """Tables play at ``--per-minute`` while one more table's login sends ``--flood-items`` invalid
    items in ``--flood-seconds`` (a third of that first without the flood, for comparison): the
    latency of the other tables' actions before and during the flood."""
    import uuid

    from companion.broker import parse_broker
    from companion.cafe.fleet import Fleet

    (folder / "flood").mkdir()
    fleet = Fleet(names, folder / "flood", url, 10**6, 4, per_minute=args.per_minute,
                  elsewhere=args.kiosks_idle).start()
    quiet = time.time()
    fleet.go()
    time.sleep(args.flood_seconds / 3)
    log = uuid.uuid4().hex
    # the shapes a broken or hostile kiosk sends: bad JSON, a line too long, a mode of 30,000
    # characters, an unknown kind, and entries after the end of a game it finished (checked against
    # the database: "game 1 ... has already ended")
    client = parse_broker(broker.url).client(f"bench-{FLOOD_TABLE}")
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    topic = f"cafe/{FLOOD_TABLE}/log"
    base = {"log": log, "game_id": 1, "game": "timeline"}
    client.publish(topic, json.dumps({**base, "seq": 0, "kind": "setup", "at": time.time(),
                                      "line": {"type": "setup", "game": "timeline", "players": ["A", "B"]}}), qos=1)
    client.publish(topic, json.dumps({**base, "seq": -1, "kind": "end", "at": time.time(), "status": "finished",
                                      "last": 0, "players": []}), qos=1).wait_for_publish(10)
    shapes = [lambda n: b"{not json",
              lambda n: json.dumps({**base, "seq": n, "kind": "action", "at": time.time(),
                                    "line": {"x": "x" * 60_000}}),
              lambda n: json.dumps({**base, "game_id": n, "seq": 0, "kind": "setup", "at": time.time(),
                                    "line": {"type": "setup", "players": ["A"], "mode": "m" * 30_000}}),
              lambda n: json.dumps({**base, "seq": n, "kind": "rewrite", "at": time.time()}),
              lambda n: json.dumps({**base, "seq": n, "kind": "action", "at": time.time(), "line": {"type": "place"}})]
    start = time.time()
    t0 = time.perf_counter()
    sent = 0
    while sent < args.flood_items:          # paced: items/seconds, in steps of a tenth of a second
        due = min(args.flood_items, int((time.perf_counter() - t0) / args.flood_seconds * args.flood_items) + 1)
        while sent < due:
            sent += 1
            client.publish(topic, shapes[sent % len(shapes)](sent), qos=1)
        time.sleep(0.02)
    sending_s = time.perf_counter() - t0
    end = time.time()
    fleet.stop()
    per_table = fleet.wait()
    fleet.close()
    client.disconnect()
    client.loop_stop()
    played = sum(t["actions"] for t in per_table.values())
    deadline = time.monotonic() + 120
    while dash.stored(quiet) < played and time.monotonic() < deadline:
        time.sleep(0.2)
    timed = dash.latencies(quiet)
    before = [lat for at, lat in timed if at < start - quiet]
    during = [lat for at, lat in timed if start - quiet <= at < end - quiet]
    tiles = json.loads(_get_body(dash, "/api/tables"))["tables"]
    skipped = next((t["rejected"] for t in tiles if t["table"] == FLOOD_TABLE), 0)

    return {"tables": len(names), "items": sent, "seconds": round(sending_s, 1), "skipped_counted": skipped,
            "played": played, "stored": len(timed), "before_ms": _ms(before), "during_ms": _ms(during),
            "target_p99_ms": 1000}


def _ms(values: list[float]) -> dict:
    return {"p50": round(_pct(values, 50) * 1000, 1), "p99": round(_pct(values, 99) * 1000, 1),
            "actions": len(values)} if values else {"p50": None, "p99": None, "actions": 0}


def _get_body(dash: _DashboardProcess, path: str) -> bytes:
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{dash.port}{path}", timeout=120) as r:
        return r.read()


def make_history(path: Path, plays: int, tables: int = 100, seed: int = 1) -> float:
    """A year of a café's plays in a dashboard database at ``path``, written straight into its tables
    (a timeline game of 3 players and 3 actions each, ten minutes apart over the year) and then
    summarised by the dashboard's own code, as a database from before the summaries is on its first
    start. Returns the seconds it took."""
    import random
    import sqlite3
    import uuid

    from companion.cafe.store import CafeStore
    t0 = time.perf_counter()
    CafeStore(path).close()                 # the schema
    rng = random.Random(seed)
    logs = {f"T{t:03d}": uuid.uuid4().hex for t in range(1, tables + 1)}
    games = dict.fromkeys(logs, 0)
    year_ago = time.time() - 365 * 86400
    step = 365 * 86400 / max(1, plays)
    play_rows, action_rows = [], []
    for i in range(plays):
        table = f"T{rng.randint(1, tables):03d}"
        games[table] += 1
        at = year_ago + i * step
        names = ["Ana", "Bo", "Cai"]
        scores = [rng.randint(0, 9) for _ in names]
        players = [{"name": n, "score": sc, "winner": sc == max(scores)} for n, sc in zip(names, scores, strict=True)]
        play_rows.append((table, logs[table], games[table], "timeline", json.dumps(players), "finished", at,
                          at + 900, at + 1, at + 901, 3, 3, 3, at + 61, None, at + 181))
        action_rows += [(table, logs[table], games[table], k, "action",
                         '{"type": "place", "player": "Ana", "card": {"year": 1900}, "gap": 1}', at + 60 * k,
                         at + 60 * k + 1) for k in (1, 2, 3)]
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO plays (table_name, log, game_id, game, players, status, started, ended, "
                        "setup_received, end_received, high, last, actions, first_received, mode, last_received) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", play_rows)
        con.executemany("INSERT INTO actions (table_name, log, game_id, seq, kind, line, at, received) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", action_rows)
        con.executemany("INSERT INTO logs (table_name, log, through, updated) VALUES (?, ?, ?, ?)",
                        [(t, log, games[t], time.time()) for t, log in logs.items()])
        con.execute("PRAGMA user_version = 2")     # the summaries are counted when the dashboard opens it
    con.close()
    CafeStore(path).close()
    return time.perf_counter() - t0


def _history(broker, names: list[str], url, args, folder: Path) -> dict:
    """A dashboard over a year of plays: each page's time while tables play at ``--per-minute``, and
    the latency of their actions before and while the pages render (one page after another, without
    a pause, for ``--history-seconds``, while the whole year's exports are downloaded beside them)."""
    from companion.cafe.fleet import Fleet
    db = folder / "history.sqlite"
    build_s = make_history(db, args.history_plays)
    dash = _DashboardProcess(broker.url, db)
    (folder / "history").mkdir()
    fleet = Fleet(names, folder / "history", url, 10**6, 6, per_minute=args.per_minute,
                  elsewhere=args.kiosks_idle).start()
    try:
        quiet = time.time()
        fleet.go()
        time.sleep(args.history_seconds / 3)
        start = time.time()
        pages: dict[str, list[float]] = {p: [] for p in HISTORY_PAGES + HISTORY_EXPORTS}
        sizes: dict[str, int] = {}

        def load(paths: tuple[str, ...]) -> None:
            while time.time() - start < args.history_seconds or not all(pages[p] for p in paths):
                for path in paths:
                    ms, n = dash.get(path)
                    pages[path].append(ms)
                    sizes[path] = n
        # the whole year's exports on a thread of their own, so the pages are loaded while they render
        exports = threading.Thread(target=load, args=(HISTORY_EXPORTS,), daemon=True)
        exports.start()
        load(HISTORY_PAGES)
        exports.join()
        end = time.time()
        fleet.stop()
        per_table = fleet.wait()
        played = sum(t["actions"] for t in per_table.values())
        deadline = time.monotonic() + 120
        while dash.stored(quiet) < played and time.monotonic() < deadline:
            time.sleep(0.2)
        timed = dash.latencies(quiet)
    finally:
        fleet.close()
        dash.stop()
    before = [lat for at, lat in timed if at < start - quiet]
    during = [lat for at, lat in timed if start - quiet <= at < end - quiet]

    return {"plays": args.history_plays, "build_s": round(build_s, 1), "tables": len(names), "played": played,
            "stored": len(timed), "seconds": round(end - start, 1),
            "pages_ms": {p: {"median": round(_pct(v, 50), 1), "max": round(max(v), 1), "loads": len(v),
                             "bytes": sizes[p]} for p, v in pages.items()},
            "before_ms": _ms(before), "during_ms": _ms(during), "target_page_ms": 1000}


class _Cafe:
    """The bench's café: its broker, its dashboard (over ``cafe.sqlite``) and the actions it holds."""

    def __init__(self, broker, dash: _DashboardProcess, folder: Path, names: list[str]):
        from companion.broker import parse_broker
        self.broker, self.dash, self.folder, self.names = broker, dash, folder, names
        self.url = parse_broker(broker.url)
        self.total = 0          # actions every row so far played (the dashboard holds them all)

    def wait_stored(self, total: int, timeout: float, strict: bool = True) -> None:
        deadline = time.monotonic() + timeout
        while self.dash.stored() < total:
            if time.monotonic() > deadline:
                if strict:
                    raise RuntimeError(f"the dashboard holds {self.dash.stored()} of {total} actions after "
                                       f"{timeout:.0f} s")
                return
            time.sleep(0.2)


def _burst(cafe: _Cafe, reference: dict) -> dict:
    """One game per table, as fast as the broker takes them (tables in processes of 50); at most
    BURST_TABLES at once: a thousand game logs syncing flat out on one disk measure the disk."""
    from companion.cafe.fleet import Fleet
    (cafe.folder / "burst").mkdir()
    fleet = Fleet(cafe.names[:BURST_TABLES], cafe.folder / "burst", cafe.url, 1, 1).start()
    try:
        t0 = time.perf_counter()
        fleet.go()
        actions = sum(t["actions"] for t in fleet.wait().values())
    finally:
        fleet.close()
    cafe.wait_stored(cafe.total + actions, 300)
    burst_s = time.perf_counter() - t0
    stored = cafe.dash.stored() - cafe.total
    cafe.total += actions
    return {"tables": len(cafe.names[:BURST_TABLES]), "actions": actions, "stored": stored,
            "seconds": round(burst_s, 2), "actions_per_s": round(actions / burst_s, 1),
            "in_reference_bursts": round(actions / burst_s / reference["burst_messages_per_s"], 3)}


def _away(cafe: _Cafe, reference: dict) -> dict:
    """The dashboard away while every table plays a game, then the broker killed and back; the
    tables wait for the dashboard's confirmation of their whole logs."""
    from companion.cafe.fleet import Fleet
    cafe.dash.kill()
    (cafe.folder / "away").mkdir()
    fleet = Fleet(cafe.names[:BURST_TABLES], cafe.folder / "away", cafe.url, 1, 3, until_confirmed=True).start()
    try:
        fleet.go()
        played = fleet.wait_played()
        actions = sum(t["actions"] for t in played.values())
        items = actions + 2 * sum(t["games"] for t in played.values())    # with each game's setup and end
        cafe.broker.kill()
        cafe.broker.start()
        back = time.perf_counter()
        cafe.dash = _DashboardProcess(cafe.broker.url, cafe.folder / "cafe.sqlite")
        confirmed = fleet.wait(timeout=600)
    finally:
        fleet.close()
    cafe.wait_stored(cafe.total + actions, 600)
    away_s = time.perf_counter() - back
    cafe.total += actions
    return {"tables": len(cafe.names[:BURST_TABLES]), "actions": actions, "items": items,
            "reoffered": sum(t["published"] for t in confirmed.values()) - items,
            "seconds_until_exact": round(away_s, 2),
            "in_reference_bursts": round(away_s * reference["burst_messages_per_s"] / items, 3)}


def _steady(cafe: _Cafe, reference: dict, args) -> dict:
    """Steady play, paced like real tables; the dashboard sampled every few seconds, and staff pages
    open on it for the second half (the first fills the history and the figures)."""
    from companion.cafe.fleet import Fleet
    dash = cafe.dash
    viewers: list[_Viewer] = []
    viewer_bytes: list[int] = []
    (cafe.folder / "steady").mkdir()
    fleet = Fleet(cafe.names, cafe.folder / "steady", cafe.url, 10**6, 2, per_minute=args.per_minute,
                  elsewhere=args.kiosks_idle,
                  settle=True).start()
    try:
        since = time.time()
        cpu0, wall0 = dash.ps.cpu_times(), time.perf_counter()
        # a plain subscriber beside the dashboard: when each action passed the broker, to split the
        # latency into the kiosks' part (append -> broker) and the dashboard's (broker -> stored)
        tap_file = (cafe.folder / "tap.txt").open("w")
        tap = subprocess.Popen(["mosquitto_sub", "-p", str(cafe.broker.port), "-h", "127.0.0.1", "-q", "1",
                                "-t", "cafe/+/log", "-F", "%U %p"], stdout=tap_file)
        fleet.go()
        rss = []
        start = time.monotonic()
        end = start + args.minutes * 60
        watched = (0.0, 0.0)
        while time.monotonic() < end:
            rss.append((time.monotonic(), dash.ps.memory_info().rss / 2**20))
            if not viewers and time.monotonic() >= start + args.minutes * 30:
                viewers = [_Viewer(dash.port) for _ in range(args.viewers)]
                for v in viewers:
                    v.start()
                watched = (time.monotonic(), 0.0)
            time.sleep(min(5.0, max(0.0, end - time.monotonic())))
        if viewers:
            for v in viewers:
                v.load_page()                # the page itself, while the café plays on
            watched = (watched[0], time.monotonic())
            viewer_bytes = [v.bytes for v in viewers]
            for v in viewers:
                v.stop.set()
        fleet.stop()
        per_table = fleet.wait()
    finally:
        fleet.close()
    steady_actions = sum(t["actions"] for t in per_table.values())
    cpu1, wall1 = dash.ps.cpu_times(), time.perf_counter()
    cafe.wait_stored(cafe.total + steady_actions, 120, strict=False)
    cafe.total += steady_actions
    timed = dash.latencies(since)
    lat = [t for _, t in timed]
    tap.terminate()
    tap.wait(10)
    tap_file.close()
    split = _split(cafe.folder / "tap.txt", dash.received(since))
    cpu_share = ((cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)) / (wall1 - wall0)
    mem = [m for _, m in rss]
    quarter = max(1, len(mem) // 4)
    ref99 = reference["round_trip_ms"]["p99"] / 1000
    latency = {"p50": None, "p99": None, "target_p99": 1000, "p99_in_reference_round_trips": None,
               "p99_per_slice": _per_slice(timed)}
    if lat:
        p99 = _pct(lat, 99)
        latency.update(p50=round(_pct(lat, 50) * 1000, 1), p99=round(p99 * 1000, 1),
                       p99_in_reference_round_trips=round(p99 / ref99, 1) if ref99 else None)
    return {"minutes": args.minutes, "per_minute_per_table": args.per_minute, "actions": steady_actions,
            "received": len(lat),
            "viewers": {"count": len(viewers), "seconds": round(watched[1] - watched[0], 1),
                        "kb_per_s_each": [round(b / 1000 / max(0.1, watched[1] - watched[0]), 2)
                                          for b in viewer_bytes] if viewers else [],
                        "target_kb_per_s": 50,
                        "page_ms": sorted(round(ms, 1) for v in viewers for ms in v.page_ms)},
            "latency_ms": latency,
            "latency_split": split,
            "dashboard_cpu_share_of_one_core": round(cpu_share, 3),
            "dashboard_rss_mb": {"first": round(mem[0], 1), "last": round(mem[-1], 1),
                                 "min": round(min(mem), 1), "max": round(max(mem), 1),
                                 "last_quarter_min_minus_first_quarter_min":
                                     round(min(mem[-quarter:]) - min(mem[:quarter]), 2),
                                 "samples": len(mem)}}


def _interrupt() -> None:
    raise KeyboardInterrupt


def run(args) -> int:
    from companion.cafe.mosquitto import Mosquitto, mosquitto_binary
    from companion.cafe.simulate import MAX_TABLES, table_names
    from companion.errors import BadInput
    from companion.service import on_sigterm

    if mosquitto_binary() is None or shutil.which("mosquitto_pub") is None:
        raise BadInput("bench cafe",
                       "needs Mosquitto and its clients: sudo apt-get install mosquitto mosquitto-clients")
    if not 0 < args.tables <= MAX_TABLES or args.minutes <= 0 or args.per_minute <= 0 or args.viewers < 1:
        raise BadInput("bench cafe", f"--tables (1 to {MAX_TABLES}), --minutes, --per-minute and --viewers must be "
                                     "more than 0")
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    if not rows or any(r not in ROWS for r in rows):
        raise BadInput("--rows", f"{args.rows!r}: some of {', '.join(ROWS)}, comma-separated")
    if args.flood_items < 1 or args.flood_seconds <= 0 or args.history_plays < 1 or args.history_seconds <= 0:
        raise BadInput("bench cafe", "--flood-items, --flood-seconds, --history-plays and --history-seconds must be "
                                     "more than 0")
    # SIGTERM (a timeout, kill) stops the run as Ctrl-C does: the blocks below stop the private broker,
    # the dashboard and the fleet's workers and remove the folder (killed outright, they stayed behind)
    restore = on_sigterm(_interrupt)
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-cafe-"))
    broker = Mosquitto(folder / "broker").start()
    cafe = None
    result: dict = {"tables": args.tables}
    try:
        result["reference_mosquitto_clients"] = reference = _reference(broker.port)
        cafe = _Cafe(broker, _DashboardProcess(broker.url, folder / "cafe.sqlite"), folder,
                     table_names(args.tables, "T"))
        if "burst" in rows:
            result["burst"] = _burst(cafe, reference)
        if "away" in rows:
            result["dashboard_away"] = _away(cafe, reference)
        if "steady" in rows:
            result["steady"] = _steady(cafe, reference, args)
        if "flood" in rows:
            result["flood"] = _flood(broker, cafe.dash, cafe.names[:BURST_TABLES], cafe.url, args, folder)
        if "history" in rows:
            # the year's dashboard is the café's only one: a second on the same broker would be offered
            # every table's plays as well (and each would name the other), measuring two dashboards
            cafe.dash.stop()
            result["history"] = _history(broker, cafe.names[:BURST_TABLES], cafe.url, args, folder)
    finally:
        try:
            if cafe is not None:
                cafe.dash.stop()
            broker.stop()
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            restore()
    if args.json:
        print(json.dumps(result))
        return 0
    _say(result, args)
    return 0


def _say(r: dict, args) -> None:
    ref = r["reference_mosquitto_clients"]
    trip = ref["round_trip_ms"]
    print(f"reference (mosquitto_pub -> broker -> mosquitto_sub, QoS 1): round trip p50 {trip['p50']} ms, "
          f"p99 {trip['p99']} ms; a burst of {ref['burst_messages']} at {ref['burst_messages_per_s']} msg/s")
    if "burst" in r:
        b = r["burst"]
        print(f"burst: {b['tables']} tables, one game each as fast as they go: {b['actions']} actions "
              f"({b['stored']} stored) in {b['seconds']} s "
              f"= {b['actions_per_s']} actions/s kiosk log -> broker -> dashboard database "
              f"({b['in_reference_bursts']} x the reference burst)")
    if "dashboard_away" in r:
        a = r["dashboard_away"]
        print(f"dashboard away: {a['tables']} tables play {a['actions']} actions ({a['items']} log items) while it "
              f"is down, then the broker is SIGKILLed and restarted: {a['reoffered']} items offered again; every "
              f"table exact {a['seconds_until_exact']} s after the dashboard is back ({a['in_reference_bursts']} x the "
              f"time the reference burst takes for as many messages)")
    if "steady" in r:
        _say_steady(r["steady"], args)
    if "flood" in r:
        f = r["flood"]
        print(f"flood: one table sends {f['items']} invalid items in {f['seconds']} s ({f['skipped_counted']} counted "
              f"skipped on its tile) while {f['tables']} tables play {args.per_minute} actions/min: their "
              f"append -> dashboard latency p50 {f['during_ms']['p50']} ms, p99 {f['during_ms']['p99']} ms during the "
              f"flood ({f['during_ms']['actions']} actions; before it p50 {f['before_ms']['p50']} ms, p99 "
              f"{f['before_ms']['p99']} ms); {f['stored']} of {f['played']} stored (target p99 <= 1000 ms)")
    if "history" in r:
        h = r["history"]
        print(f"history: a dashboard over {h['plays']} plays (made in {h['build_s']} s); pages loaded one after "
              f"another for {h['seconds']} s while {h['tables']} tables play {args.per_minute} actions/min "
              f"(target: each page < 1000 ms):")
        for path, v in h["pages_ms"].items():
            print(f"  {path}: median {v['median']} ms, slowest {v['max']} ms over {v['loads']} loads, "
                  f"{v['bytes']} bytes")
        print(f"  recording while the pages render: append -> dashboard p50 {h['during_ms']['p50']} ms, p99 "
              f"{h['during_ms']['p99']} ms ({h['during_ms']['actions']} actions; before them p50 "
              f"{h['before_ms']['p50']} ms, p99 {h['before_ms']['p99']} ms); {h['stored']} of {h['played']} stored")


def _say_steady(s: dict, args) -> None:
    lt = s["latency_ms"]
    print(f"steady: {args.tables} tables x {s['per_minute_per_table']} actions/min for {s['minutes']} min: "
          f"{s['actions']} actions, {s['received']} stored; append -> dashboard latency p50 {lt['p50']} ms, "
          f"p99 {lt['p99']} ms (target p99 <= 1000 ms; {lt['p99_in_reference_round_trips']} reference round trips)")
    if args.kiosks_idle:
        print("  the virtual kiosks ran at idle priority (--kiosks-idle): their part below is this machine's, "
              "not a kiosk's")
    per = lt["p99_per_slice"]
    if per["p99_ms"]:
        print(f"  p99 of the actions stored in each {per['seconds']:.0f} s of play, in order: "
              f"{', '.join(str(v) for v in per['p99_ms'])} ms")
    sp = s["latency_split"]
    if sp["actions"]:
        print(f"  the same actions split at the broker (a plain mosquitto_sub beside the dashboard): append -> broker "
              f"p50 {sp['append_to_broker_ms']['p50']} ms, p99 {sp['append_to_broker_ms']['p99']} ms (the virtual "
              f"kiosks); broker -> dashboard database p50 {sp['broker_to_dashboard_ms']['p50']} ms, p99 "
              f"{sp['broker_to_dashboard_ms']['p99']} ms")
    v = s["viewers"]
    if v["count"]:
        print(f"live page: {v['count']} viewers for the last {v['seconds']} s: "
              f"{', '.join(str(k) for k in v['kb_per_s_each'])} kB/s each (target <= 50); the page itself "
              f"{v['page_ms'][0]}-{v['page_ms'][-1]} ms")
    m = s["dashboard_rss_mb"]
    print(f"dashboard: {s['dashboard_cpu_share_of_one_core'] * 100:.1f}% of one core; memory {m['first']} MB at the "
          f"start, {m['last']} MB at the end, {m['min']}-{m['max']} MB over {m['samples']} samples "
          f"(last quarter's lowest minus the first quarter's: {m['last_quarter_min_minus_first_quarter_min']:+} MB)")
