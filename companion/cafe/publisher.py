"""The kiosk's publisher: a background thread that sends the game log to the café's broker.

It reads only the log (:class:`~companion.cafe.outbox.Outbox`), so the kiosk's screens never wait
on the network: they write the log as always, and this thread notices the commit and publishes.
Every log item goes out at QoS 1 in log order; what the broker acknowledges is recorded in the log's
database, so after a broker outage or a restart the thread carries on from the first item the broker
never confirmed. The table's state is published retained, and the broker announces ``offline`` by
itself when the kiosk disappears (the last will).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque

import paho.mqtt.client  # noqa: F401  (imported before the threads start, as the engines below)

from companion.cafe.broker import Broker, log_topic, online_topic, state_topic
from companion.cafe.outbox import Outbox
from companion.games.registry import engine_for

log = logging.getLogger(__name__)
WINDOW = 200                 # messages in flight at once; the rest stay in the log
POLL_S = 0.2                 # how often the log is looked at when nobody pokes
HEALTH_EVERY_S = 5.0
BACKOFF_S = (0.5, 1, 2, 5, 10, 30)


class Publisher:
    def __init__(self, table: str, log_path, broker: Broker, health=None, client_id: str | None = None):
        self.table = table
        self.log_path = log_path
        self.broker = broker
        self.health = health or (lambda: {"camera": True, "disk": True})
        self.client_id = client_id or f"companion-table-{table}"
        self.connected = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._inflight: deque = deque()  # (message, mid) in publish order
        self._acked_mids: set[int] = set()   # filled by paho's thread; set.add is atomic
        self._thread: threading.Thread | None = None
        self._outbox: Outbox | None = None

    # -- the kiosk's side ---------------------------------------------------------------------------
    def start(self) -> Publisher:
        try:
            self._outbox = Outbox(self.log_path)
            for game in self._outbox.games_played():
                engine_for(game)    # imported here, not in the thread: imports racing in threads can fail
        except Exception:           # the thread tries again; the kiosk starts whatever happens here
            log.exception("café publisher for %s", self.table)
        self._thread = threading.Thread(target=self._run, name=f"cafe-publisher-{self.table}", daemon=True)
        self._thread.start()
        return self

    def poke(self) -> None:
        """The log has news: look now instead of at the next poll."""
        self._wake.set()

    def stop(self, timeout: float = 3.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the thread ---------------------------------------------------------------------------------
    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                if self._outbox is None:
                    self._outbox = Outbox(self.log_path)
                if self._session(self._outbox):
                    attempt = 0
            except Exception:        # a fault here must never reach the kiosk; the log keeps everything
                log.exception("café publisher for %s", self.table)
            self.connected = False
            self._stop.wait(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1
        if self._outbox is not None:
            self._outbox.close()

    def _session(self, box: Outbox) -> bool:
        """One connection: publish until it drops or the kiosk stops. True if it got connected."""
        client = self.broker.client(self.client_id)
        client.will_set(online_topic(self.table), "offline", qos=1, retain=True)
        client.max_inflight_messages_set(WINDOW)
        up = threading.Event()

        def on_connect(c, userdata, flags, reason_code, properties=None):
            if reason_code.is_failure:      # a wrong login: said in the kiosk's log, tried again later
                log.warning("café broker %s refused table %s: %s", self.broker, self.table, reason_code)
            else:
                up.set()
        client.on_connect = on_connect

        def on_disconnect(*_):
            up.clear()
            self._wake.set()
        client.on_disconnect = on_disconnect
        client.on_publish = self._on_publish
        self._inflight.clear()
        self._acked_mids.clear()
        try:
            client.connect(self.broker.host, self.broker.port, keepalive=15)
        except (OSError, ValueError) as e:
            log.info("café broker %s unreachable: %s", self.broker, e)
            return False
        client.loop_start()
        try:
            if not up.wait(10) or self._stop.is_set():
                return False
            self.connected = True
            client.publish(online_topic(self.table), "online", qos=1, retain=True)
            self._publish_loop(client, up, box)
            if self._stop.is_set() and up.is_set():
                # a kiosk switched off on purpose says so itself (a clean disconnect fires no will)
                client.publish(online_topic(self.table), "offline", qos=1, retain=True).wait_for_publish(2)
            return True
        finally:
            client.disconnect()
            client.loop_stop()

    def _publish_loop(self, client, up: threading.Event, box: Outbox) -> None:
        marker: int | None = None
        state: dict | None = None
        health_at = 0.0
        while up.is_set() and not self._stop.is_set():
            self._wake.clear()          # before looking: a poke from now on is seen at the wait below
            self._record_acks(box)
            room = WINDOW - len(self._inflight)
            if room > 0:                # the log first: the table's state (a replay) can wait a moment
                sent = {(m["game_id"], m["seq"]) for m, _ in self._inflight}
                fresh_items = [m for m in box.pending(WINDOW) if (m["game_id"], m["seq"]) not in sent]
                for m in fresh_items[:room]:
                    info = client.publish(log_topic(self.table), json.dumps({"table": self.table, **m}), qos=1)
                    self._inflight.append((m, info.mid))
            now = time.monotonic()
            new_marker = box.changed_marker()
            if new_marker != marker or now - health_at > HEALTH_EVERY_S:
                marker, health_at = new_marker, now
                fresh = {"table": self.table, **box.table_state(), "health": self.health()}
                if fresh != state:
                    state = fresh
                    client.publish(state_topic(self.table), json.dumps({**state, "updated": time.time()}),
                                   qos=1, retain=True)
            self._wake.wait(POLL_S)

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self._acked_mids.add(mid)
        self._wake.set()

    def _record_acks(self, box: Outbox) -> None:
        """Persist the acknowledged run at the front of the window (later acks wait their turn, so the
        log's mark never passes an item the broker does not hold)."""
        done: list[dict] = []
        while self._inflight and self._inflight[0][1] in self._acked_mids:
            message, mid = self._inflight.popleft()
            self._acked_mids.discard(mid)
            done.append(message)
        if done:
            box.acknowledged(done)


def for_kiosk(config, store, table_feed=None) -> Publisher | None:
    """The kiosk's publisher when its settings name a broker and a table (else None), started.
    Health: the camera gives pictures (the table feed's last reading), the disk has room (as
    ``companion doctor`` counts it)."""
    import shutil

    from companion.cafe.broker import parse_broker
    from companion.store.log import MIN_FREE_MB

    cafe = config.cafe
    if not cafe.broker or not cafe.table or store is None:
        return None
    broker = parse_broker(cafe.broker, "config.toml: cafe.broker")
    broker = broker.with_login(cafe.username or (cafe.table if cafe.password else None), cafe.password)
    broker = broker.with_tls_files(cafe.ca_file, cafe.cert_file, cafe.key_file)

    def health() -> dict:
        try:
            disk = shutil.disk_usage(store.path.parent).free // 1_000_000 >= MIN_FREE_MB
        except OSError:
            disk = False
        return {"camera": getattr(table_feed, "camera_lost", None) is None, "disk": disk}
    return Publisher(cafe.table, store.path, broker, health=health).start()
