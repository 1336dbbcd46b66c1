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
from pathlib import Path

from companion.bench.kiosk import _pct

BURST_TABLES = 100
SLICE_S = 30.0       # steady play's p99 is also given per slice of this long: a tail in one slice is an event


def add_arguments(parser) -> None:
    parser.add_argument("--tables", type=int, default=100, help="virtual tables (100)")
    parser.add_argument("--per-minute", type=float, default=10.0, help="actions a minute per table in steady play (10)")
    parser.add_argument("--minutes", type=float, default=3.0,
                        help="steady play lasts this long (3; 60 for the memory-over-an-hour figure)")
    parser.add_argument("--viewers", type=int, default=3,
                        help="staff pages open on the live stream in the second half of steady play (3)")
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

    def stored(self) -> int:
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/plays", timeout=30) as r:
            return sum(p["actions"] for p in json.load(r)["plays"])

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


def run(args) -> int:
    from companion.broker import parse_broker
    from companion.cafe.fleet import Fleet
    from companion.cafe.mosquitto import Mosquitto, mosquitto_binary
    from companion.cafe.simulate import MAX_TABLES, table_names
    from companion.errors import BadInput

    if mosquitto_binary() is None or shutil.which("mosquitto_pub") is None:
        raise BadInput("bench cafe",
                       "needs Mosquitto and its clients: sudo apt-get install mosquitto mosquitto-clients")
    if not 0 < args.tables <= MAX_TABLES or args.minutes <= 0 or args.per_minute <= 0 or args.viewers < 1:
        raise BadInput("bench cafe", f"--tables (1 to {MAX_TABLES}), --minutes, --per-minute and --viewers must be "
                                     "more than 0")
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-cafe-"))
    broker = Mosquitto(folder / "broker").start()
    dash = None
    fleet = None
    viewers: list[_Viewer] = []
    viewer_bytes: list[int] = []
    try:
        reference = _reference(broker.port)
        dash = _DashboardProcess(broker.url, folder / "cafe.sqlite")
        url = parse_broker(broker.url)
        names = table_names(args.tables)

        # burst: one game per table, as fast as the broker takes them (tables in processes of 50); at
        # most BURST_TABLES at once: a thousand game logs syncing flat out on one disk measure the disk
        (folder / "burst").mkdir()
        fleet = Fleet(names[:BURST_TABLES], folder / "burst", url, 1, 1).start()
        t0 = time.perf_counter()
        fleet.go()
        total = sum(t["actions"] for t in fleet.wait().values())
        fleet.close()
        deadline = time.monotonic() + 300
        while dash.stored() < total:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the dashboard holds {dash.stored()} of {total} actions after 5 minutes")
            time.sleep(0.2)
        burst_s = time.perf_counter() - t0
        burst_stored = dash.stored()
        burst_total = total

        # the dashboard away while every table plays a game, then the broker killed and back; the
        # tables wait for the dashboard's confirmation of their whole logs
        dash.kill()
        (folder / "away").mkdir()
        fleet = Fleet(names[:BURST_TABLES], folder / "away", url, 1, 3, until_confirmed=True).start()
        fleet.go()
        played = fleet.wait_played()
        away_actions = sum(t["actions"] for t in played.values())
        items = away_actions + 2 * sum(t["games"] for t in played.values())    # with each game's setup and end
        broker.kill()
        broker.start()
        back = time.perf_counter()
        dash = _DashboardProcess(broker.url, folder / "cafe.sqlite")
        confirmed = fleet.wait(timeout=600)
        fleet.close()
        fleet = None
        deadline = time.monotonic() + 600
        while dash.stored() < total + away_actions:
            if time.monotonic() > deadline:
                raise RuntimeError("the dashboard does not hold every action 10 minutes after it came back")
            time.sleep(0.2)
        away_s = time.perf_counter() - back
        reoffered = sum(t["published"] for t in confirmed.values()) - items
        total += away_actions

        # steady play, paced like real tables; the dashboard sampled every few seconds, and staff
        # pages open on it for the second half (the first fills the history and the figures)
        (folder / "steady").mkdir()
        fleet = Fleet(names, folder / "steady", url, 10**6, 2, per_minute=args.per_minute).start()
        since = time.time()
        cpu0, wall0 = dash.ps.cpu_times(), time.perf_counter()
        # a plain subscriber beside the dashboard: when each action passed the broker, to split the
        # latency into the kiosks' part (append -> broker) and the dashboard's (broker -> stored)
        tap_file = (folder / "tap.txt").open("w")
        tap = subprocess.Popen(["mosquitto_sub", "-p", str(broker.port), "-h", "127.0.0.1", "-q", "1",
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
        fleet.close()
        fleet = None
        steady_actions = sum(t["actions"] for t in per_table.values())
        cpu1, wall1 = dash.ps.cpu_times(), time.perf_counter()
        deadline = time.monotonic() + 120
        while dash.stored() < total + steady_actions and time.monotonic() < deadline:
            time.sleep(0.2)
        timed = dash.latencies(since)
        lat = [t for _, t in timed]
        tap.terminate()
        tap.wait(10)
        tap_file.close()
        split = _split(folder / "tap.txt", dash.received(since))
    finally:
        if fleet is not None:
            fleet.close()
        if dash is not None:
            dash.stop()
        broker.stop()
        shutil.rmtree(folder, ignore_errors=True)

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
    result = {
        "tables": args.tables,
        "reference_mosquitto_clients": reference,
        "burst": {"tables": min(args.tables, BURST_TABLES), "actions": burst_total, "stored": burst_stored,
                  "seconds": round(burst_s, 2), "actions_per_s": round(burst_total / burst_s, 1),
                  "in_reference_bursts": round(burst_total / burst_s / reference["burst_messages_per_s"], 3)},
        "dashboard_away": {"tables": min(args.tables, BURST_TABLES), "actions": away_actions, "items": items,
                           "reoffered": reoffered,
                           "seconds_until_exact": round(away_s, 2),
                           "in_reference_bursts": round(away_s * reference["burst_messages_per_s"] / items, 3)},
        "steady": {"minutes": args.minutes, "per_minute_per_table": args.per_minute, "actions": steady_actions,
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
                                        "samples": len(mem)}},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    r, s = result, result["steady"]
    ref = r["reference_mosquitto_clients"]
    trip = ref["round_trip_ms"]
    print(f"reference (mosquitto_pub -> broker -> mosquitto_sub, QoS 1): round trip p50 {trip['p50']} ms, "
          f"p99 {trip['p99']} ms; a burst of {ref['burst_messages']} at {ref['burst_messages_per_s']} msg/s")
    b = r["burst"]
    print(f"burst: {r['burst']['tables']} tables, one game each as fast as they go: {b['actions']} actions "
          f"({b['stored']} stored) in {b['seconds']} s "
          f"= {b['actions_per_s']} actions/s kiosk log -> broker -> dashboard database "
          f"({b['in_reference_bursts']} x the reference burst)")
    a = r["dashboard_away"]
    print(f"dashboard away: {a['tables']} tables play {a['actions']} actions ({a['items']} log items) while it is "
          f"down, then the broker is SIGKILLed and restarted: {a['reoffered']} items offered again; every table "
          f"exact {a['seconds_until_exact']} s after the dashboard is back ({a['in_reference_bursts']} x the time the "
          f"reference burst takes for as many messages)")
    lt = s["latency_ms"]
    print(f"steady: {args.tables} tables x {s['per_minute_per_table']} actions/min for {s['minutes']} min: "
          f"{s['actions']} actions, {s['received']} stored; append -> dashboard latency p50 {lt['p50']} ms, "
          f"p99 {lt['p99']} ms (target p99 <= 1000 ms; {lt['p99_in_reference_round_trips']} reference round trips)")
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
    return 0
