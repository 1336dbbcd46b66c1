"""``companion cafe serve``: the dashboard. An MQTT subscriber with a persistent session feeds the
dashboard's database; uvicorn serves the page and the API from it.

The subscriber keeps the same client id for the same database, so while the dashboard is stopped
the broker keeps its QoS 1 messages, and a message is acknowledged only after it is committed.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import queue
import re
import signal
import socket
import sys
import threading
import time

from companion.cafe.broker import TOPIC_ROOT, Broker, parse_broker, table_of
from companion.errors import BadInput

log = logging.getLogger(__name__)


def add_arguments(parser) -> None:
    parser.add_argument("--broker", required=True, metavar="URL", help="mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://")
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
    parser.add_argument("--secure-cookie", action="store_true",
                        help="mark the login cookie Secure: the page is reached over HTTPS (a TLS proxy)")


class Subscriber:
    """Everything under ``cafe/`` into the store, acknowledged only once stored.

    paho's thread only queues what arrives; a writer thread commits whatever has queued up in one
    transaction (one disk sync for many messages under load, one for one when it is quiet) and then
    acknowledges those messages, in the order they came (``manual_ack``)."""

    BATCH = 500          # messages in one transaction at most

    def __init__(self, broker: Broker, store, client_id: str):
        self.store = store
        self.connected = threading.Event()
        self.client = broker.client(client_id, clean_session=False, manual_ack=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(0.5, 10)
        self.broker = broker
        # the dashboard's own login names no table: whatever arrives under it (the installed ACL lets
        # every login write cafe/<its name>/) is not a kiosk's
        self.own_login = broker.username
        self._queue: queue.Queue = queue.Queue()
        self._writer = threading.Thread(target=self._write, name="dashboard-writer", daemon=True)

    def start(self) -> None:
        self._writer.start()
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._queue.put(None)
        self._writer.join(10)

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.warning("broker refused the dashboard: %s", reason_code)
            return
        client.subscribe([(f"{TOPIC_ROOT}/+/+", 1), (f"+/{TOPIC_ROOT}/+/+", 1)])    # this café's, and bridged ones
        self.connected.set()

    def _on_message(self, client, userdata, msg) -> None:
        self._queue.put((msg.topic, msg.payload, msg.mid, msg.qos))

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
            items = [item for topic, payload, _, _ in got
                     if (item := _parse(topic, payload, self.own_login)) is not None]
            while True:
                try:
                    self.store.record_many(items)
                    break
                except Exception:     # the disk: nothing is acknowledged until it is stored
                    log.exception("the dashboard could not store %d messages; trying again", len(items))
                    time.sleep(1)
            for _, _, mid, qos in got:
                self.client.ack(mid, qos)


def _parse(topic: str, payload: bytes, own_login: str | None = None) -> tuple[str, str, object] | None:
    """(kind, table, body) for the store, or None for a message to skip (logged)."""
    table = table_of(topic)
    if table is None:
        return None
    if own_login is not None and table.rsplit("/", 1)[-1] == own_login:
        log.warning("skipped a message on %s: the dashboard's own login (%s) is not a table", topic, own_login)
        return None
    kind = topic.rsplit("/", 1)[1]
    try:
        if kind == "online":
            return ("online", table, payload == b"online")
        if kind in ("state", "log"):
            body = json.loads(payload)
            if not isinstance(body, dict):
                raise ValueError(f"a JSON object was expected, not {type(body).__name__}")
            return (kind, table, body)
    except ValueError as e:
        # a malformed message must not stop the café's page; it is logged and skipped
        log.warning("skipped a malformed message on %s: %s", topic, e)
    return None


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

    broker = parse_broker(args.broker)
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
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        raise BadInput("--listen", f"cannot listen on {host}:{port}: {e.strerror}") from None

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


def _serve(sock, store, gate, subscriber, host: str, port: int, web: dict, proxies: list[str]) -> int:
    import asyncio

    import uvicorn

    from companion.cafe.web import Dashboard

    dashboard = Dashboard(store, gate, is_connected=subscriber.connected.is_set, **web)
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
    while not stop.wait(0.5):
        if not web.is_alive():
            print("companion cafe serve: the web server stopped; see the log above", file=sys.stderr)
            return 1
    server.should_exit = True
    web.join(5)
    subscriber.stop()
    store.close()
    return 0
