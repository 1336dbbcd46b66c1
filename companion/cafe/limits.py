"""What one table may ask of the dashboard, checked in memory before any database work, so one
table's login (a password on a kiosk's SD card) cannot starve the others (docs/cafe.md, "Limits").

The sizes and lengths are checked with every message (``companion/cafe/schema.py``); the broker
refuses a message bigger than the dashboard takes at its door (``message_size_limit`` in
pi/mosquitto/companion-cafe.conf). Here: the rate. Each table has a bucket of :data:`BURST` messages
that fills at :data:`RATE` a second; a message that finds it empty is acknowledged and skipped
without being read, and counted on the table's tile. Nothing a kiosk sends is lost by it: a skipped
item is not confirmed, so the kiosk offers it again, and a real kiosk never comes near the limit (it
has at most 1,000 items unconfirmed at once, and a table plays a few actions a minute). The plays a
table may have open at once are limited by the store (:data:`companion.cafe.store.MAX_OPEN_PLAYS`).
"""

from __future__ import annotations

import threading
import time

RATE = 200.0          # messages a second, per table, sustained
BURST = 10_000        # messages a table may send at once (a kiosk's whole backlog after a day away)
MAX_BUCKETS = 10_000  # tables remembered; those whose bucket has filled again are forgotten beyond it
OVER_RATE = "more than {burst} messages at once, or {rate:.0f} a second: skipped, offered again later"


class RateLimits:
    """A token bucket per table (``None``, a topic that names no table, has one too)."""

    def __init__(self, rate: float = RATE, burst: float = BURST, clock=time.monotonic):
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str | None, tuple[float, float]] = {}     # table -> (tokens, when)
        self._lock = threading.Lock()

    def allow(self, table: str | None) -> bool:
        """Take one message's token from the table's bucket; False if it is empty."""
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(table, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self._buckets[table] = (tokens, now)
                return False
            self._buckets[table] = (tokens - 1, now)
            if len(self._buckets) > MAX_BUCKETS:        # names that came and went: a full bucket is no news
                self._buckets = {t: (k, w) for t, (k, w) in self._buckets.items()
                                 if k + (now - w) * self.rate < self.burst}
            return True

    def reason(self) -> str:
        return OVER_RATE.format(burst=self.burst, rate=self.rate)
