"""What the café's tests share: a real Mosquitto, a real ``companion cafe serve`` process, a TCP relay
that can cut one kiosk off the broker, and small waiting/HTTP helpers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion.cafe.mosquitto import Mosquitto, free_port, mosquitto_binary


def needs(missing: bool, what: str):
    """Skip where a real part is missing on a developer's machine; in CI (where ./dev.sh installs it)
    the tests run and fail, so a failed install never passes as a skip."""
    return pytest.mark.skipif(missing and not os.environ.get("CI"), reason=f"{what} (./dev.sh installs it)")


def require(missing: bool, what: str) -> None:
    """In a fixture: fail in CI, skip elsewhere, when a real part is missing."""
    if missing:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{what} (./dev.sh installs it)")


needs_mosquitto = needs(mosquitto_binary() is None, "mosquitto is not installed")


def wait_until(pred, timeout: float = 20.0, every: float = 0.1, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def watch(broker, topic: str, name: str = "watcher") -> tuple[object, list[dict]]:
    """A client subscribed to ``topic`` on ``broker`` (QoS 1) and the JSON messages it has received so
    far (a list that grows); returns once the broker has granted the subscription."""
    from companion.broker import parse_broker
    got: list[dict] = []
    subscribed = threading.Event()
    client = parse_broker(broker.url).client(name)
    client.on_connect = lambda c, u, f, rc, p=None: c.subscribe(topic, qos=1)
    client.on_subscribe = lambda c, u, mid, codes, p=None: subscribed.set()
    client.on_message = lambda c, u, msg: got.append(json.loads(msg.payload))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    assert subscribed.wait(10), "the watcher to subscribe"
    return client, got


def companion(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, **kw)


class Dashboard:
    """``companion cafe serve`` as its own process, as the café runs it."""

    def __init__(self, broker_url: str, db: Path, *extra: str, port: int | None = None):
        self.port = port or free_port()
        self.args = [sys.executable, "-m", "companion", "cafe", "serve", "--broker", broker_url,
                     "--listen", f"127.0.0.1:{self.port}", "--db", str(db), *extra]
        self.proc: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{self.port}/"

    def start(self) -> Dashboard:
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line == f"dashboard: http://127.0.0.1:{self.port}/", (line, self.proc.stderr.read() if not line else "")
        return self

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        return self.proc.wait(15)

    def get(self, path: str, cookie: str | None = None):
        req = urllib.request.Request(self.url.rstrip("/") + path, headers={"Cookie": cookie} if cookie else {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, path: str):
        status, body = self.get(path)
        assert status == 200, (path, status, body[:200])
        return json.loads(body)

    def connected(self) -> bool:
        return self.get("/healthz")[0] == 200


class Relay:
    """A TCP relay between one kiosk and the broker; ``cut()`` drops its connections and refuses new
    ones (the kiosk's network is gone), ``mend()`` lets them through again."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.open = threading.Event()
        self.open.set()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.open.clear()
        with self._lock:
            for s in self._conns:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._conns.clear()

    def mend(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture(name="broker")
def broker_fixture(tmp_path):
    require(mosquitto_binary() is None, "mosquitto is not installed")
    m = Mosquitto(tmp_path / "broker").start()
    yield m
    m.stop()


@pytest.fixture(name="dashboard")
def dashboard_fixture(broker, tmp_path):
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    wait_until(d.connected, what="the dashboard to reach the broker")
    yield d
    if d.proc.poll() is None:
        d.stop()




KIOSK_SCRIPT = """
import sys, time
from companion.broker import parse_broker
from companion.cafe.publisher import Publisher
Publisher(sys.argv[1], sys.argv[2], parse_broker(sys.argv[3])).start()
print("started", flush=True)
time.sleep(3600)
"""


def kiosk_process(table: str, log_path, broker_url: str) -> subprocess.Popen:
    """A kiosk's publisher in a process of its own (the test writes its game log), so the test can
    SIGKILL it the way a pulled plug does."""
    proc = subprocess.Popen([sys.executable, "-c", KIOSK_SCRIPT, table, str(log_path), broker_url],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "started"
    return proc
