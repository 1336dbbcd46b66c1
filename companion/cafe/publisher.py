"""The kiosk's publisher: a background thread that offers the game log to the café's dashboard,
through the café's broker.

It reads only the log (:class:`~companion.cafe.outbox.Outbox`), so the kiosk's screens never wait
on the network: they write the log as always, and this thread notices the commit and publishes.
Every log item goes out at QoS 1 in log order. The broker's acknowledgement only frees room in the
window: an item is settled when the dashboard confirms it (``cafe/<table>/confirm``, retained, so a
kiosk learns it as soon as it connects). Whatever the dashboard has not confirmed is offered again
from the log at start, on every new connection, and when the confirmation stops advancing: after
``STALL_S`` (then twice as long each time, up to ``STALL_MAX_S``) one probe, the oldest item not
confirmed, goes out; the dashboard's next confirmation (it is there) brings all the rest again. The table's
state is published retained, and the broker announces ``offline`` by itself when the kiosk
disappears (the last will).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque

import paho.mqtt.client  # noqa: F401  (imported before the threads start, as the engines below)

from companion.broker import Broker, confirm_topic, log_topic, online_topic, state_topic
from companion.cafe import schema
from companion.cafe.outbox import Outbox
from companion.errors import StoreError
from companion.registry import engine_for

log = logging.getLogger(__name__)
WINDOW = 200                 # messages the broker has not acknowledged yet, at once
UNCONFIRMED = 1000           # messages the dashboard has not confirmed yet, at once; the rest wait in the log
POLL_S = 0.2                 # how often the log is looked at when nobody pokes
HEALTH_EVERY_S = 5.0
STALL_S = 5.0                # no confirmation for this long while some are due: a probe
STALL_MAX_S = 60.0
QUIET_S = 2.0                # a confirmation that moves nothing this long after the last send: offer again now
BACKOFF_S = (0.5, 1, 2, 5, 10, 30)


class Publisher:
    def __init__(self, table: str, log_path, broker: Broker, health=None, client_id: str | None = None,
                 unconfirmed: int | None = UNCONFIRMED, poll_s: float = POLL_S, simulated: bool = False,
                 machine: str | None = None, dashboard_db: str | None = None):
        self.table = table
        self.machine = machine              # None: this machine's (companion.store.log.machine_id)
        self.dashboard_db = dashboard_db    # the café's database, as set (None: the first one met)
        # every item of a simulated table (cafe simulate) says so: the staff can remove them from the history
        self.envelope = {"table": table, **({"sim": True} if simulated else {})}
        self.poll_s = poll_s                # a writer that pokes on every write can let it look less often
        self.log_path = log_path
        self.broker = broker
        self.health = health or (lambda: {"camera": True, "disk": True})
        self.client_id = client_id or f"companion-table-{table}"
        self.unconfirmed = unconfirmed      # None: no limit (cafe simulate without --until-confirmed)
        self.connected = False
        self.refused: str | None = None     # the broker's answer when it refused the login
        self.confirmed_at: float | None = None   # when a dashboard's confirmation last arrived
        self.caught_up = False              # connected, every item sent and acknowledged by the broker
        self.sessions = 0                   # connections the broker accepted
        self.published = 0                  # log items published, offered again ones included
        self.rounds = 0                     # looks at the log so far (simulate waits for a fresh one)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._confirmations: deque = deque()   # filled by paho's thread, emptied by ours
        self._thread: threading.Thread | None = None
        self._outbox: Outbox | None = None
        self._store_said = -1e9

    # -- the kiosk's side ---------------------------------------------------------------------------
    def start(self) -> Publisher:
        try:
            self._outbox = Outbox(self.log_path, self.machine, self.dashboard_db)
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
                    self._outbox = Outbox(self.log_path, self.machine, self.dashboard_db)
                if self._session(self._outbox):
                    attempt = 0
            except Exception:        # a fault here must never reach the kiosk; the log keeps everything
                log.exception("café publisher for %s", self.table)
            self.connected = self.caught_up = False
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
                self.refused = str(reason_code)
                log.warning("café broker %s refused table %s: %s", self.broker, self.table, reason_code)
            else:
                self.refused = None
                c.subscribe(confirm_topic(self.table), qos=1)
                up.set()
        client.on_connect = on_connect

        def on_disconnect(*_):
            up.clear()
            self._wake.set()
        client.on_disconnect = on_disconnect
        acked: list[int] = []
        inflight: set[int] = set()          # sent on this connection, not yet acknowledged by the broker

        def on_publish(c, userdata, mid, reason_code=None, properties=None):
            acked.append(mid)
            # a round for the broker's acknowledgements only when they change something: the window was
            # full (room again) or all are in (caught up). Each acknowledgement waking a round cost a
            # thousand virtual tables most of their CPU (the next round sees the rest anyway)
            if len(acked) >= len(inflight) or len(inflight) >= WINDOW:
                self._wake.set()
        client.on_publish = on_publish

        def on_message(c, userdata, msg):
            self.confirmed_at = time.time()
            self._confirmations.append(msg.payload)
            self._wake.set()
        client.on_message = on_message
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
            self.sessions += 1
            client.publish(online_topic(self.table), "online", qos=1, retain=True)
            box.new_connection()        # whatever is not confirmed goes out again
            self._publish_loop(client, up, box, acked, inflight)
            if self._stop.is_set() and up.is_set():
                # a kiosk switched off on purpose says so itself (a clean disconnect fires no will)
                client.publish(online_topic(self.table), "offline", qos=1, retain=True).wait_for_publish(2)
            return True
        finally:
            client.disconnect()
            try:
                client.loop_stop()
            except AttributeError:      # paho's thread ended by itself between its check and its join
                pass

    def _say_store(self, e: StoreError) -> None:
        """Said in the kiosk's log at most once a minute (a round comes every few hundred ms)."""
        now = time.monotonic()
        if now - self._store_said > 60:
            self._store_said = now
            log.warning("café publisher for %s: %s (tried again; nothing is lost)", self.table, e)

    def _publish_loop(self, client, up: threading.Event, box: Outbox, acked: list[int], inflight: set[int]) -> None:
        marker: int | None = None      # the log's data version last looked at (None: not yet)
        tile: dict = {}                # the table's state as of ``marker``
        state: dict | None = None
        health_at = 0.0
        last_sent = last_progress = time.monotonic()
        stall_s = STALL_S
        probing = False
        # whether the log may hold items not offered yet on this connection. A round that only takes the
        # broker's acknowledgements or the poll's tick, with nothing new in the log, reads nothing: the
        # kiosk's idle rounds (five a second) and a thousand virtual tables' cost one PRAGMA each
        look = True
        while up.is_set() and not self._stop.is_set():
            self._wake.clear()          # before looking: a poke from now on is seen at the wait below
            try:
                # read first: a commit after this changes it again, and the next round sees it
                new_marker = box.changed_marker()
                changed = new_marker != marker
                look = look or changed
                while acked:
                    inflight.discard(acked.pop())
                now = time.monotonic()
                heard = quiet = False
                while self._confirmations:
                    try:
                        # off the queue once the log has taken it: a busy log takes it on a later round
                        moved = box.confirmed(schema.confirmation(schema.parse(self._confirmations[0])))
                    except schema.BadMessage as e:
                        log.warning("café: a confirmation for %s that is not one: %s", self.table, e)
                        self._confirmations.popleft()
                        continue
                    self._confirmations.popleft()
                    heard = look = True     # room again, or the dashboard lacks some: the log is read again
                    if moved:
                        last_progress, stall_s = now, STALL_S
                    else:
                        quiet = True
                due = box.outstanding()
                if not due:
                    last_progress, probing = now, False
                elif (heard and probing) or (quiet and now - last_sent > QUIET_S):
                    # the dashboard is there and has not got what it was sent: from the log, all of it again
                    box.reoffer()
                    last_progress, probing, due, look = now, False, 0, True
                elif now - last_progress > stall_s and box.may_offer():
                    # no word from the dashboard: one item (the oldest it has not confirmed) asks whether it is
                    # back; its answer brings the rest. An absent dashboard costs one message, not a backlog
                    probe = box.first_unconfirmed()
                    if probe is not None and len(inflight) < WINDOW:
                        info = client.publish(log_topic(self.table), json.dumps({**self.envelope, **probe}), qos=1)
                        inflight.add(info.mid)
                        self.published += 1
                        last_sent = now
                    probing = True
                    last_progress, stall_s = now, min(stall_s * 2, STALL_MAX_S)
                room = WINDOW - len(inflight)
                if self.unconfirmed is not None:
                    room = min(room, self.unconfirmed - due)
                fresh: list[dict] = []
                if look and room > 0 and box.may_offer():
                    fresh = box.pending(room)
                    look = len(fresh) >= room          # a full page: more may wait
                for m in fresh:
                    info = client.publish(log_topic(self.table), json.dumps({**self.envelope, **m}), qos=1)
                    inflight.add(info.mid)
                if fresh:
                    self.published += len(fresh)
                    box.sent(fresh)
                    last_sent = now
                self.caught_up = not look and not inflight
                # a confirmation may name another dashboard (box.dashboards): said on the next round, not
                # at the next health tick
                if changed or heard or now - health_at > HEALTH_EVERY_S:
                    if changed:
                        tile = box.table_state()
                    health_at = now
                    latest = {"table": self.table, **tile, "health": self.health(), **box.dashboards()}
                    if latest != state:
                        state = latest
                        client.publish(state_topic(self.table), json.dumps({**state, "updated": time.time()}),
                                       qos=1, retain=True)
                marker = new_marker
            except StoreError as e:
                # the kiosk's log busy (or failing) for longer than a write waits: the session goes on and
                # the round is done again later; the log keeps everything meanwhile
                self._say_store(e)
            self.rounds += 1
            self._wake.wait(self.poll_s)


def for_kiosk(config, store, table_feed=None) -> Publisher | None:
    """The kiosk's publisher when its settings name a broker and a table (else None), started.
    Health: the camera gives pictures (the table feed's last reading), the disk has room (as
    ``companion doctor`` counts it)."""
    import shutil

    from companion.broker import parse_broker
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
    return Publisher(cafe.table, store.path, broker, health=health, dashboard_db=cafe.dashboard_db or None).start()
