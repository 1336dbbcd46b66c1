"""``companion cafe serve``: the dashboard. An MQTT subscriber with a persistent session feeds the
dashboard's database; uvicorn serves the page and the API from it.

The subscriber logs in as the dashboard (its client id is its login's when the broker binds ids to
logins, as the installed settings do), checks every message before storing it, and acknowledges a
message only after it is committed. It confirms to each table what it holds
(``cafe/<table>/confirm``), so the kiosks offer again whatever never arrived. It tells the truth about
itself (:class:`Health`): ``/healthz``, the page's badge and banner, and one line on stderr whenever
the reason changes.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import os
import queue
import re
import signal
import socket
import sys
import threading
import time
from datetime import datetime

from companion.broker import TOPIC_ROOT, Broker, confirm_topic, parse_broker, table_of
from companion.cafe import schema
from companion.cafe.health import Health
from companion.cafe.limits import RateLimits
from companion.errors import BadInput
from companion.i18n import N_

log = logging.getLogger(__name__)
PASSWORD_ENV = "COMPANION_BROKER_PASSWORD"
# why the dashboard does not record (English on stderr and /healthz; the page's language on the page)
CONNECTING = N_("connecting")
LOGIN_REFUSED = N_("login refused ({code})")
REFUSED = N_("refused ({code})")
UNREACHABLE = N_("cannot reach {where}")
LOST = N_("the connection was lost")
DISK_FULL = N_("the disk is full ({error})")
STOPPED = N_("the subscriber stopped")
STOPPED_BY = N_("the subscriber stopped ({error})")
RIVAL_TOOK = N_("another dashboard (database {db}) took the connection at {time}: {table} heard it")
RIVAL_COUNTS = N_("{table} counts the dashboard database {db}, not this one ({own}): another dashboard is the "
                  "café's, or this one takes its place with --replaces {db}")
RIVAL_SET = N_("{table} is set to count the dashboard database {db} (cafe.dashboard_db in its config.toml), not "
               "this one ({own})")
RIVAL_SHOWN_S = 600.0       # another dashboard heard: said this long after the last word of it
RECONNECT_DELAY_S = (0.5, 5)
YIELD_DELAY_S = (30, 60)    # the tables count another database: reconnect slowly (the login is shared)
CONFIRM_EVERY_S = 0.25
CONFIRM_PAUSE_S = 0.002


def add_arguments(parser) -> None:
    parser.add_argument("--broker", required=True, metavar="URL",
                        help="mqtt://[USER@]HOST[:PORT] or mqtts://; the login's password from --broker-password-file "
                             f"or ${PASSWORD_ENV} (a password in the URL shows in 'ps' to every local user)")
    parser.add_argument("--broker-password-file", metavar="FILE",
                        help="a file holding the dashboard's broker password (one line)")
    parser.add_argument("--listen", default="127.0.0.1:8080", metavar="HOST:PORT",
                        help="where the page is served (default 127.0.0.1:8080)")
    parser.add_argument("--db", metavar="PATH",
                        help="the dashboard's database (default: cafe.sqlite in the data folder)")
    parser.add_argument("--password-file", metavar="FILE",
                        help="the staff password or its hash ('companion cafe password'); needed off loopback")
    parser.add_argument("--ca-file", metavar="FILE", help="mqtts: the CA that signed the broker's certificate")
    parser.add_argument("--allowed-hosts", metavar="NAMES",
                        help="host names the page answers to, comma-separated (default: on loopback, localhost "
                             "and the loopback addresses only; elsewhere any)")
    parser.add_argument("--forwarded-allow-ips", metavar="IPS", default="",
                        help="addresses of a reverse proxy whose X-Forwarded-For/-Proto headers are believed, "
                             "comma-separated (default: none, the headers are ignored)")
    parser.add_argument("--replaces", metavar="DATABASE",
                        help="this database takes the place of the dashboard database DATABASE (its id, as the page "
                             "names it): the kiosks that counted that one count this one from now on (not those "
                             "whose settings name it: cafe.dashboard_db)")
    parser.add_argument("--secure-cookie", action="store_true",
                        help="mark the login cookie Secure: the page is reached over HTTPS (a TLS proxy)")


class Subscriber:
    """Everything under ``cafe/`` into the store, checked, and acknowledged only once stored; the
    confirmations back to the tables.

    paho's thread only queues what arrives; a writer thread checks and commits whatever has queued
    up in one transaction (one disk sync for many messages under load, one for one when it is
    quiet) and then acknowledges those messages, in the order they came (``manual_ack``)."""

    BATCH = 500          # messages in one transaction at most

    def __init__(self, broker: Broker, store, client_id: str, health: Health | None = None):
        self.store = store
        self.broker = broker
        self.health = health or Health()
        self.health.set("broker", CONNECTING)
        self.connected = threading.Event()
        self.client = broker.client(client_id, clean_session=False, manual_ack=True)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(*RECONNECT_DELAY_S)
        self._stop = threading.Event()
        self._loop: threading.Thread | None = None
        self._confirmer: threading.Thread | None = None
        # the dashboard's own login names no table, whatever it is called (the installed ACL lets every
        # login write cafe/<its name>/)
        self.own_login = (broker.username or "").lower() or None
        self._queue: queue.Queue = queue.Queue()
        self.limits = RateLimits()
        self._said: dict[str | None, float] = {}
        self._writer = threading.Thread(target=self._write, name="cafe-writer", daemon=True)
        self._rivals: dict[str, tuple[float, str, dict]] = {}   # table -> (when, msgid, params): another dashboard
        self._rivals_lock = threading.Lock()
        self._yielding = False

    def start(self) -> None:
        self._writer.start()
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self._loop = threading.Thread(target=self._network, name="cafe-subscriber", daemon=True)
        self._loop.start()
        self._confirmer = threading.Thread(target=self._confirm_loop, name="cafe-confirmer", daemon=True)
        self._confirmer.start()

    def _network(self) -> None:
        try:
            self.client.loop_forever(retry_first_connection=True)
        except BaseException as e:        # whatever it was, the page must say that nothing is recorded
            log.exception("the dashboard's subscriber stopped")
            self.health.set("subscriber", STOPPED_BY, error=f"{type(e).__name__}: {e}")
            self.connected.clear()
            return                          # logged above, and said on /healthz, the page and stderr
        if not self._stop.is_set():
            self.health.set("subscriber", STOPPED)

    def alive(self) -> bool:
        return self._loop is not None and self._loop.is_alive()

    def stop(self) -> None:
        self._stop.set()
        self.client.disconnect()
        if self._loop is not None:
            self._loop.join(5)
        if self._confirmer is not None:
            self._confirmer.join(5)
        self._queue.put(None)
        self._writer.join(10)

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            login = reason_code in ("Not authorized", "Bad user name or password")
            self.health.set("broker", LOGIN_REFUSED if login else REFUSED, code=str(reason_code))
            log.debug("broker %s refused the dashboard: %s", self.broker, reason_code)   # said by serve, once
            return
        # this café's tables, and bridged ones (the ACL lets the dashboard read exactly these)
        client.subscribe([(f"{root}/+/{kind}", 1) for root in (TOPIC_ROOT, f"+/{TOPIC_ROOT}")
                          for kind in ("log", "state", "online")])
        self.store.touch_all()          # every table learns what the dashboard holds, once it is back
        self.health.clear("broker")
        self.connected.set()

    def _on_connect_fail(self, client, userdata) -> None:
        self.health.set("broker", UNREACHABLE, where=f"{self.broker.host}:{self.broker.port}")

    def _on_disconnect(self, client, userdata, flags=None, reason_code=None, properties=None) -> None:
        self.connected.clear()
        if not self._stop.is_set() and not self.health.has("broker"):
            self.health.set("broker", LOST)

    def _on_message(self, client, userdata, msg) -> None:
        self._queue.put((msg.topic, msg.payload, msg.mid, msg.qos, bool(msg.retain)))

    def _write(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            got = [first]
            while len(got) < self.BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                got.append(more)
            for mid, qos in self._store(got):
                self.client.ack(mid, qos)

    def _store(self, got: list[tuple]) -> list[tuple[int, int]]:
        """Check each message, store the good ones in one transaction, count the others. A message
        refused by the checks (over its table's rate, too big, not valid) costs no database work and
        is acknowledged at once; the returned ones (mid, qos) once the good ones are committed."""
        items: list[tuple[str, str, object]] = []
        retained: list[bool] = []
        stored: list[tuple[int, int]] = []
        for topic, payload, mid, qos, old in got:
            table = table_of(topic)
            if not self._is_table(table):
                table = None                 # counted with no tile: a name that is no table makes none
            try:
                if not self.limits.allow(table):
                    raise schema.BadMessage(self.limits.reason())
                items.append(self._check(topic, table, payload))
                retained.append(old)
                stored.append((mid, qos))
                continue
            except schema.BadMessage as e:
                self._skipped(topic, str(e))
                self._count(table, f"{topic}: {e}")
            except Exception as e:          # a fault of ours must not stop the café's recording either
                log.exception("could not read a message on %s", topic)
                self._count(table, f"{topic}: {type(e).__name__}: {e}")
            self.client.ack(mid, qos)
        if not items:
            return stored
        try:
            refusals = self.store.record_batch(items, retained)
            if self.health.has("disk"):
                self.health.clear("disk")
                self.store.touch_all()
        except _disk_full() as e:
            # not stored, so not confirmed: its kiosk offers it again once there is room
            self.health.set("disk", DISK_FULL, error=str(e))
            return stored
        except Exception as e:
            log.exception("could not store %d messages", len(items))
            for _, table, _ in items:
                self._count(table, f"{type(e).__name__}: {e}")
            return stored
        self._notice_rivals(items)
        for (kind, table, _), refused in zip(items, refusals, strict=True):
            if refused:
                self._skipped(table, refused)
                self._count(table, f"{table} {kind}: {refused}")
        return stored

    def _skipped(self, where: str | None, why: str) -> None:
        """Said in the log, at most once a second per table: a table sending thousands of bad messages
        must not fill the disk with their lines (the page counts every one)."""
        now = time.monotonic()
        if now - self._said.get(where, 0.0) >= 1.0:
            if len(self._said) > 10_000:
                self._said.clear()
            self._said[where] = now
            log.warning("skipped a message on %s: %s", where, why)

    def _notice_rivals(self, items: list[tuple[str, str, object]]) -> None:
        """Another dashboard, as the kiosks' states tell it: a table that counts another database, or
        heard another database's confirmation. Named on the page and in /healthz (:meth:`_say_rivals`)."""
        own, now = self.store.db_id, time.time()
        with self._rivals_lock:
            for kind, table, body in items:
                seen = body.get("dashboards") if kind == "state" and isinstance(body, dict) else None
                if not seen or not seen.get("registered") or "/" in table:   # a bridged café counts its own
                    continue
                registered, other, at = seen["registered"], seen.get("other"), seen.get("other_at")
                if registered != own:
                    self._rivals[table] = (now, RIVAL_SET if seen.get("set") else RIVAL_COUNTS,
                                           {"table": table, "db": registered, "own": own})
                elif other and other != own and at is not None and now - at < RIVAL_SHOWN_S:
                    when = datetime.fromtimestamp(at).strftime("%H:%M")
                    self._rivals[table] = (at, RIVAL_TOOK, {"table": table, "db": other, "time": when})
                else:
                    self._rivals.pop(table, None)

    def _say_rivals(self) -> None:
        now = time.time()
        with self._rivals_lock:
            for table in [t for t, (at, _, _) in self._rivals.items() if now - at > RIVAL_SHOWN_S]:
                self._rivals.pop(table)
            newest = max(self._rivals.values(), key=lambda r: r[0], default=None)
            counts_another = any(msgid in (RIVAL_COUNTS, RIVAL_SET) for _, msgid, _ in self._rivals.values())
        # a dashboard whose tables count another database gives the login's connection back: it takes it
        # again only after a while when it loses it (alone on the login, it never loses it)
        if counts_another != self._yielding:
            self._yielding = counts_another
            self.client.reconnect_delay_set(*(YIELD_DELAY_S if counts_another else RECONNECT_DELAY_S))
        if newest is None:
            self.health.clear("rival")
        else:
            at, msgid, params = newest
            self.health.set("rival", msgid, since=at, **params)

    def _is_table(self, table: str | None) -> bool:
        return (table is not None and all(schema.TABLE_LEVEL.match(p) for p in table.split("/"))
                and table.rsplit("/", 1)[-1].lower() not in (*schema.RESERVED, self.own_login))

    def _check(self, topic: str, table: str | None, payload: bytes) -> tuple[str, str, object]:
        """(kind, table, checked body), or BadMessage."""
        kind = topic.rsplit("/", 1)[1]
        if table is None:
            raise schema.BadMessage(f"{topic!r} names no table")
        if kind == "online":
            return ("online", table, schema.online(payload))
        if kind == "state":
            return ("state", table, schema.state(schema.parse(payload)))
        if kind == "log":
            return ("log", table, schema.log_item(schema.parse(payload)))
        raise schema.BadMessage(f"{topic!r}: no such topic")

    def _count(self, table: str | None, reason: str) -> None:
        try:
            self.store.record_rejected(table, reason)
        except Exception:
            log.exception("could not count a skipped message")

    def _confirm_loop(self) -> None:
        while not self._stop.wait(CONFIRM_EVERY_S):
            try:
                self._say_rivals()
                if self.health.has("disk") and self.store.can_write():
                    self.health.clear("disk")               # room again: writing resumes by itself, and
                    self.store.touch_all()                  # every table hears what is still missing
                self.store.flush_rejected()
                if not self.connected.is_set():
                    continue
                for table in self.store.touched_tables():
                    payload = self.store.confirmation(table)
                    if "/" not in table:                   # a bridged café's kiosks are not ours to answer
                        self.client.publish(confirm_topic(table), json.dumps(payload, separators=(",", ":")),
                                            qos=1, retain=True)
                    # the database's lock is not fair: a moment between tables lets the writer in, so a
                    # round over hundreds of tables never holds up what arrives meanwhile
                    time.sleep(CONFIRM_PAUSE_S)
            except _disk_full() as e:
                self.health.set("disk", DISK_FULL, error=str(e))
            except Exception:
                log.exception("could not confirm to the tables")


def _disk_full():
    from companion.cafe.store import DiskFull
    return DiskFull


def broker_password(args, broker: Broker) -> Broker:
    """The dashboard's broker password: from --broker-password-file, else $COMPANION_BROKER_PASSWORD, else
    the URL (which 'ps' shows to every local user: said once on stderr)."""
    password = None
    if args.broker_password_file:
        try:
            with open(args.broker_password_file, encoding="utf-8") as f:
                password = f.readline().rstrip("\r\n")
        except OSError as e:
            raise BadInput(args.broker_password_file, f"cannot read the broker password file: {e.strerror}") from None
        if not password:
            raise BadInput(args.broker_password_file, "the broker password file is empty")
    elif os.environ.get(PASSWORD_ENV):
        password = os.environ[PASSWORD_ENV]
    elif broker.password:
        print(f"companion cafe serve: the broker password is on the command line, where 'ps' shows it; use "
              f"--broker-password-file or ${PASSWORD_ENV}", file=sys.stderr, flush=True)
        return broker
    if password is None:
        return broker
    if not broker.username:
        raise BadInput("--broker", "give the login in the URL (mqtt://dashboard@HOST) to go with the password")
    return Broker(broker.host, broker.port, broker.tls, broker.username, password, broker.ca_file,
                  broker.cert_file, broker.key_file)


def _listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadInput("--listen", f"{text!r} is not HOST:PORT, e.g. 127.0.0.1:8080 or 0.0.0.0:8080")
    return host, int(port)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args) -> int:
    from companion.cafe.auth import Gate, read_password_file
    from companion.cafe.store import CafeStore
    from companion.paths import data_dir

    broker = broker_password(args, parse_broker(args.broker))
    if args.ca_file:
        broker = broker.with_tls_files(ca=args.ca_file)
    host, port = _listen(args.listen)
    if not _is_loopback(host) and not args.password_file:
        raise BadInput("--listen", f"{host} is reachable from other machines; give --password-file with the staff "
                                   "password (or its hash) to serve there")
    gate = Gate(read_password_file(args.password_file) if args.password_file else None)
    hosts = _allowed_hosts(args.allowed_hosts, host)
    proxies = [a.strip() for a in args.forwarded_allow_ips.split(",") if a.strip()]
    for address in proxies:
        try:
            ipaddress.ip_network(address, strict=False)
        except ValueError:
            raise BadInput("--forwarded-allow-ips", f"{address!r} is not an IP address or network "
                                                    "(e.g. 127.0.0.1 or 10.0.0.0/8)") from None
    db_path = args.db or str(data_dir() / "cafe.sqlite")
    store = CafeStore(db_path)
    if args.replaces:
        if not schema.LOG_ID.match(args.replaces):
            raise BadInput("--replaces", f"{args.replaces!r} is not a dashboard database's id (hex digits, as the "
                                         "page names it)")
        store.replaces = args.replaces
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        raise BadInput("--listen", f"cannot listen on {host}:{port}: {e.strerror}") from None

    # the broker binds a client id to its login where it is set up as docs/cafe.md says (the id is then
    # the login's); elsewhere this id, fixed for the database, keeps the persistent session
    client_id = "companion-dashboard-" + hashlib.sha256(str(store.path.resolve()).encode()).hexdigest()[:12]
    subscriber = Subscriber(broker, store, client_id)
    subscriber.start()
    web = {"allowed_hosts": hosts, "secure_cookie": args.secure_cookie}
    return _serve(sock, store, gate, subscriber, host, port, web, proxies)


def _allowed_hosts(text: str | None, listen_host: str) -> list[str]:
    """The Host names the page answers to: a page on loopback without a login must not answer a
    name that some web site's DNS points at 127.0.0.1 (DNS rebinding)."""
    if text:
        names = [n.strip().lower() for n in text.split(",") if n.strip()]
        for n in names:
            if n != "*" and not re.fullmatch(r"(\*\.)?[a-z0-9.:\[\]-]+", n):
                raise BadInput("--allowed-hosts", f"{n!r} is not a host name (e.g. cafe-pc.local,192.168.1.20)")
        return names
    if _is_loopback(listen_host):
        return sorted({"localhost", "127.0.0.1", "::1", "[::1]", listen_host.lower()})
    return ["*"]


def _serve(sock, store, gate, subscriber, host: str, port: int, options: dict, proxies: list[str]) -> int:
    import asyncio

    import uvicorn

    from companion.cafe.web import Dashboard

    health = subscriber.health
    dashboard = Dashboard(store, gate, health=health, **options)
    # X-Forwarded-For is believed only from the proxies named (uvicorn's own default trusts loopback,
    # which would let anyone on this machine pick the address the login's rate limit counts)
    server = uvicorn.Server(uvicorn.Config(dashboard.app, log_level="warning", timeout_graceful_shutdown=2,
                                           lifespan="off", proxy_headers=bool(proxies),
                                           forwarded_allow_ips=proxies or [], server_header=False))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # uvicorn runs off the main thread so it leaves the signals to us (and we exit 0 on them)
    web = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), name="dashboard-web", daemon=True)
    web.start()
    shown = f"[{host}]" if ":" in host else host
    print(f"dashboard: http://{shown}:{port}/", flush=True)
    said: str | None = "broker: connecting"      # the first line comes when it is live, or when that fails
    while not stop.wait(0.5):
        if not subscriber.alive() and not health.has("subscriber"):
            health.set("subscriber", STOPPED)
        problem = health.problem()
        reason = None if problem is None else f"{problem[0]}: {problem[1]}"
        if reason != said:          # once per change: the reason, or that it is live again
            sentence = health.sentence()
            print(f"companion cafe serve: {sentence}" if sentence else
                  f"companion cafe serve: live (connected to {subscriber.broker}, recording)",
                  file=sys.stderr, flush=True)
            said = reason
        if not web.is_alive():
            print("companion cafe serve: the web server stopped; see the log above", file=sys.stderr)
            return 1
    server.should_exit = True
    web.join(5)
    subscriber.stop()
    store.close()
    return 0
