"""sd_notify against a fake systemd: a unix datagram socket in a temp dir (and in the abstract namespace)."""

import os
import socket
import types
import uuid

import pytest

from companion import service
from companion.service import Notifier, socket_address, watchdog_interval


class FakeSystemd:
    """What systemd's end of $NOTIFY_SOCKET sees: the datagrams, as dicts of KEY=value."""

    def __init__(self, address):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(0)

    def messages(self):
        out = []
        while True:
            try:
                data = self.sock.recv(4096)
            except BlockingIOError:
                return out
            out.append(dict(line.split("=", 1) for line in data.decode().split("\n")))

    def close(self):
        self.sock.close()


@pytest.fixture
def systemd(tmp_path):
    path = str(tmp_path / "notify")
    fake = FakeSystemd(path)
    yield path, fake
    fake.close()


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_ready_status_stopping_reach_the_socket(systemd):
    path, fake = systemd
    n = Notifier({"NOTIFY_SOCKET": path})
    assert n.enabled
    assert n.ready("showing the attract screen")
    assert n.status("Timeline, turn 3\nof 40")
    assert n.stopping()
    assert fake.messages() == [
        {"READY": "1", "STATUS": "showing the attract screen"},
        {"STATUS": "Timeline, turn 3 of 40"},
        {"STOPPING": "1", "STATUS": "stopping"},
    ]


def test_abstract_namespace_address():
    name = f"companion-test-{uuid.uuid4().hex}"
    fake = FakeSystemd(b"\0" + name.encode())
    try:
        n = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert n.ready()
        assert fake.messages() == [{"READY": "1", "STATUS": "running"}]
    finally:
        fake.close()


@pytest.mark.parametrize("value, address", [
    ("/run/systemd/notify", "/run/systemd/notify"),
    ("@abc", b"\0abc"),
    ("", None),
    (None, None),
    ("relative/path", None),
])
def test_socket_address(value, address):
    assert socket_address(value) == address


@pytest.mark.parametrize("env, interval", [
    ({"WATCHDOG_USEC": "30000000"}, 15.0),
    ({"WATCHDOG_USEC": "1000"}, 0.0005),
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"}, 15.0),   # this process is 4242
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),      # someone else's watchdog
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "x"}, None),
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "-5"}, None),
    ({"WATCHDOG_USEC": "30s"}, None),
    ({"WATCHDOG_USEC": "\u00b2"}, None),      # a unicode digit is not a number of microseconds
    ({}, None),
])
def test_watchdog_interval_is_half_the_timeout(env, interval):
    assert watchdog_interval(env, pid=4242) == interval


def test_watchdog_pings_at_half_the_timeout(systemd):
    path, fake = systemd
    clock = Clock()
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())}, clock)
    assert n.interval == 1.0
    sent = []
    for _ in range(100):              # 100 frames at 30 per second: 3.3 seconds
        sent.append(n.watchdog())
        clock.now += 1 / 30
    assert sent.count(True) == 4      # at 0, 1, 2 and 3 seconds
    assert sent[0] is True and sent[1] is False
    assert fake.messages() == [{"WATCHDOG": "1"}] * 4


def test_watchdog_off_without_watchdog_usec(systemd):
    path, fake = systemd
    n = Notifier({"NOTIFY_SOCKET": path})
    assert n.interval is None
    assert not n.watchdog()
    assert fake.messages() == []


def test_outside_systemd_everything_is_a_quiet_no_op():
    n = Notifier({"WATCHDOG_USEC": "2000000"})
    assert not n.enabled
    assert (n.ready(), n.status("x"), n.watchdog(), n.stopping()) == (False, False, False, False)


def test_a_vanished_socket_is_logged_once_and_never_raises(tmp_path, caplog):
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone"), "WATCHDOG_USEC": "1000000"}, Clock())
    assert not n.ready()
    assert not n.watchdog()
    assert not n.stopping()
    assert len([r for r in caplog.records if "cannot notify systemd" in r.getMessage()]) == 1


def test_module_functions_use_the_environment(systemd, monkeypatch):
    path, fake = systemd
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    service.reset()
    try:
        assert service.ready()
        assert service.watchdog()
        assert not service.watchdog()       # again within 5 s: no second ping
        assert service.status("ok")
        assert service.stopping()
    finally:
        service.reset()
    assert [list(m) for m in fake.messages()] == [["READY", "STATUS"], ["WATCHDOG"], ["STATUS"], ["STOPPING", "STATUS"]]


def test_the_kiosk_main_loop_notifies_ready_watchdog_stopping(systemd, monkeypatch):
    """companion/app.py's real main loop, around a stand-in kiosk that runs for a few frames."""
    import pygame

    from companion import app

    path, fake = systemd
    monkeypatch.setattr(pygame, "quit", lambda: None)     # the fonts cached for the other tests stay valid
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "20000")       # 20 ms: pings every 10 ms, so every frame at 30 fps
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    service.reset()
    pygame.display.init()
    surface = pygame.display.set_mode((80, 48))

    class StandIn:
        running, demo, frames, buttons = True, None, 0, None
        stack = types.SimpleNamespace(top=None)
        table = None
        signals = types.SimpleNamespace(close=lambda: None)

        def __init__(self):
            self.surface = surface

        def step(self):
            self.frames += 1
            self.running = self.frames < 4
            return self.running

    try:
        assert app.main_loop(StandIn()) == 0
    finally:
        service.reset()
    kinds = [next(iter(m)) for m in fake.messages()]
    assert kinds[0] == "READY" and kinds[-1] == "STOPPING"
    assert kinds.count("WATCHDOG") >= 3
