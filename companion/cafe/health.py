"""What keeps the dashboard from recording, if anything: read by ``/healthz``, the page's badge and
banner, and ``serve``'s line on stderr; set by the subscriber and the store (companion/cafe/serve.py)."""

from __future__ import annotations

import threading
import time
from datetime import datetime

from companion.i18n import Text


class Health:
    """What keeps the dashboard from recording, if anything: per part (broker, disk, subscriber) the
    reason and since when. ``None`` from :meth:`problem` means live."""

    # another dashboard first: it is why the connection keeps dropping, when it does
    ORDER = ("rival", "subscriber", "broker", "disk")
    WORDS = {"rival": "another dashboard", "subscriber": "stopped", "broker": "no broker", "disk": "disk full"}

    def __init__(self):
        self._lock = threading.Lock()
        self._problems: dict[str, tuple[Text, float]] = {}

    def set(self, part: str, msgid: str, since: float | None = None, **params) -> None:
        with self._lock:
            old = self._problems.get(part)
            self._problems[part] = (Text(msgid, params), since if since is not None else old[1] if old else time.time())

    def clear(self, part: str) -> None:
        with self._lock:
            self._problems.pop(part, None)

    def has(self, part: str) -> bool:
        return part in self._problems

    def problem(self) -> tuple[str, Text, float] | None:
        """(part, reason, since) of the first problem, or None."""
        with self._lock:
            for part in self.ORDER:
                if part in self._problems:
                    reason, since = self._problems[part]
                    return part, reason, since
        return None

    def sentence(self) -> str | None:
        """One line for people: ``no contact with the broker since 21:04: login refused``."""
        p = self.problem()
        if p is None:
            return None
        part, reason, since = p
        at = datetime.fromtimestamp(since).strftime("%H:%M")
        if part == "rival":
            return str(reason)
        return {"broker": f"no contact with the broker since {at}: {reason}",
                "disk": f"nothing recorded since {at}: {reason}",
                "subscriber": f"nothing recorded since {at}: {reason}"}[part]
