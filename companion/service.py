"""Telling systemd how the kiosk is doing (the sd_notify protocol), for ``Type=notify`` and the watchdog.

systemd passes ``$NOTIFY_SOCKET`` (a unix datagram socket: a path, or ``@name`` in the abstract
namespace) and, with ``WatchdogSec=``, ``$WATCHDOG_USEC`` (and ``$WATCHDOG_PID``). Each message is one
datagram of ``KEY=value`` lines. The protocol is this small, so it is written here with the socket
module instead of a dependency. Outside systemd (a laptop, the tests without a fake socket) every
call does nothing and returns False.

The kiosk's main loop (``companion/app.py``) calls:

- :func:`ready` once the screen is up (systemd then counts the service as started),
- :func:`watchdog` on every frame: it sends ``WATCHDOG=1`` only when half the watchdog time has
  passed since the last ping, so a frozen loop is restarted by systemd and a healthy one costs
  one clock read per frame,
- :func:`stopping` when it leaves the loop.

:func:`on_sigterm` turns ``systemctl stop`` (SIGTERM) into a request to leave the loop, so the
kiosk's cleanup (LEDs off, camera closed, ``STOPPING=1``) runs instead of the process dying mid-frame.

:func:`status` sets the one-line text ``systemctl status`` shows.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)


def socket_address(value: str | None) -> str | bytes | None:
    """The address to send to, from ``$NOTIFY_SOCKET``: a filesystem path, or ``@name`` for the
    abstract namespace (a leading NUL byte). Anything else (unset, empty, relative) is no socket."""
    if not value:
        return None
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None


def watchdog_interval(env: Mapping[str, str], pid: int | None = None) -> float | None:
    """Seconds between watchdog pings: half of ``$WATCHDOG_USEC``, as systemd recommends. None when
    there is no watchdog for this process (unset or malformed value, or ``$WATCHDOG_PID`` names
    another process)."""
    usec = _number(env.get("WATCHDOG_USEC"))
    if not usec:
        return None
    owner = env.get("WATCHDOG_PID")
    if owner is not None and _number(owner) != (os.getpid() if pid is None else pid):
        return None
    return usec / 1_000_000 / 2


def _number(text: str | None) -> int | None:
    return int(text) if text and text.isascii() and text.isdigit() else None


class Notifier:
    """One process's line to systemd. ``env`` and ``clock`` are parameters so tests can fake both."""

    def __init__(self, env: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic):
        env = os.environ if env is None else env
        self.address = socket_address(env.get("NOTIFY_SOCKET"))
        self.interval = watchdog_interval(env) if self.address is not None else None
        self.clock = clock
        self._last_ping: float | None = None
        self._sock: socket.socket | None = None
        self._warned = False

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, **fields: str | int) -> bool:
        """One datagram of ``KEY=value`` lines. False (and one log line, once) if it cannot be sent:
        a broken notify socket must never stop the kiosk."""
        if self.address is None:
            return False
        message = "\n".join(f"{k}={v}" for k, v in fields.items()).encode()
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message, self.address)
        except OSError as e:
            if not self._warned:
                log.warning("cannot notify systemd at %r: %s", self.address, e)
                self._warned = True
            return False
        return True

    def ready(self, status: str = "running") -> bool:
        return self.send(READY=1, STATUS=status)

    def status(self, text: str) -> bool:
        return self.send(STATUS=text.replace("\n", " "))

    def watchdog(self) -> bool:
        """Ping the watchdog if half its time has passed since the last ping (or never pinged)."""
        if self.interval is None:
            return False
        now = self.clock()
        if self._last_ping is not None and now - self._last_ping < self.interval:
            return False
        if self.send(WATCHDOG=1):
            self._last_ping = now
            return True
        return False

    def stopping(self, status: str = "stopping") -> bool:
        return self.send(STOPPING=1, STATUS=status)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


_notifier: Notifier | None = None


def notifier() -> Notifier:
    """The process's notifier, made from the environment on first use."""
    global _notifier
    if _notifier is None:
        _notifier = Notifier()
    return _notifier


def reset() -> None:
    """Forget the process's notifier (the next call reads the environment again)."""
    global _notifier
    if _notifier is not None:
        _notifier.close()
    _notifier = None


def ready(status: str = "running") -> bool:
    return notifier().ready(status)


def status(text: str) -> bool:
    return notifier().status(text)


def watchdog() -> bool:
    return notifier().watchdog()


def stopping(status: str = "stopping") -> bool:
    return notifier().stopping(status)


def on_sigterm(stop: Callable[[], None]) -> Callable[[], None]:
    """Call ``stop()`` on SIGTERM instead of dying (it should only ask the main loop to end: it runs
    between two lines of that loop). Returns what puts the previous handler back. Only the main
    thread may set signal handlers; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, lambda _signum, _frame: stop())

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)
    return restore
