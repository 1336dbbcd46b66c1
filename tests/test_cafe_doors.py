"""The dashboard's doors (issue 29): proxy headers believed only from a named proxy, the password's
hash worked out off the event loop, a small login body, CSV cells that no spreadsheet runs, no short
plain passwords and private hash files, known host names only, a Secure cookie behind TLS, CSP and
framing headers, and the dashboard's own broker login never a table."""

from __future__ import annotations

import asyncio
import csv
import http.client
import io
import os
import stat
import subprocess
import sys
import threading
import urllib.parse

import pytest
from cafe_support import Dashboard, companion, needs_mosquitto, wait_until

from companion.cafe.auth import MAX_FAILURES, Gate
from companion.cafe.exports import plays_csv
from companion.cafe.mosquitto import Mosquitto, free_port
from companion.cafe.store import CafeStore

STAFF = "staff secret 1"


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        con.request(method, path, body=body, headers=headers or {})
        r = con.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        con.close()


def login(port: int, password: str, headers: dict | None = None):
    body = urllib.parse.urlencode({"password": password, "next": "/"}).encode()
    return request(port, "POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                  **(headers or {})})


@pytest.fixture
def staff_file(tmp_path):
    path = tmp_path / "staff-password"
    path.write_text(STAFF + "\n")
    return path


def test_forwarded_for_is_believed_only_from_a_named_proxy(tmp_path, staff_file):
    # no broker needed: the login and its limit are the web side's
    plain = Dashboard("mqtt://127.0.0.1:9", tmp_path / "a.sqlite", "--password-file", str(staff_file)).start()
    try:
        for i in range(MAX_FAILURES):
            assert login(plain.port, "guess", {"X-Forwarded-For": f"203.0.113.{i}"})[0] == 401
        # a made-up address changes nothing: every guess came from 127.0.0.1, which now waits
        assert login(plain.port, STAFF, {"X-Forwarded-For": "198.51.100.7"})[0] == 429
    finally:
        assert plain.stop() == 0
    proxied = Dashboard("mqtt://127.0.0.1:9", tmp_path / "b.sqlite", "--password-file", str(staff_file),
                        "--forwarded-allow-ips", "127.0.0.1").start()
    try:
        for i in range(MAX_FAILURES):
            assert login(proxied.port, "guess", {"X-Forwarded-For": f"203.0.113.{i}"})[0] == 401
        # behind a proxy it names, the dashboard counts the address the proxy saw
        assert login(proxied.port, STAFF, {"X-Forwarded-For": "198.51.100.7"})[0] == 303
        assert login(proxied.port, STAFF, {"X-Forwarded-For": "203.0.113.0"})[0] == 303
    finally:
        assert proxied.stop() == 0


def test_a_bad_proxy_address_is_named(tmp_path):
    run = companion("cafe", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", str(tmp_path / "db.sqlite"),
                    "--forwarded-allow-ips", "127.0.0.1,my-proxy")
    assert run.returncode == 2 and run.stderr.startswith("--forwarded-allow-ips: 'my-proxy'")
    assert run.stderr.count("\n") == 1


class SlowGate(Gate):
    """A password check that holds on until the test lets it go."""

    def __init__(self):
        super().__init__("a password that is long enough")
        self.checking = threading.Event()
        self.release = threading.Event()

    def login(self, address: str, attempt: str):
        self.checking.set()
        assert self.release.wait(30)
        return super().login(address, attempt)


def test_the_password_check_runs_off_the_event_loop(tmp_path):
    import uvicorn

    from companion.cafe.web import Dashboard as Web

    store = CafeStore(tmp_path / "cafe.sqlite")
    gate = SlowGate()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Web(store, gate).app, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, what="the web server")
        answer: list = []
        slow = threading.Thread(target=lambda: answer.append(login(port, "a password that is long enough")))
        slow.start()
        assert gate.checking.wait(30)
        # the check is under way and holds: the server still answers everyone else
        assert request(port, "GET", "/healthz")[0] == 200
        assert slow.is_alive()
        gate.release.set()
        slow.join(30)
        assert answer[0][0] == 303
    finally:
        gate.release.set()
        server.should_exit = True
        thread.join(10)
        store.close()


def test_a_login_body_is_small(tmp_path, staff_file):
    dash = Dashboard("mqtt://127.0.0.1:9", tmp_path / "cafe.sqlite", "--password-file", str(staff_file)).start()
    try:
        big = b"password=" + b"x" * 1_000_000
        status, _, body = request(dash.port, "POST", "/login", big,
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 413 and b"4096 bytes" in body
        # sent without a length (chunked), it is cut off all the same
        con = http.client.HTTPConnection("127.0.0.1", dash.port, timeout=30)
        con.request("POST", "/login", body=iter([b"password=", b"y" * 5000, b"z" * 5000]),
                    headers={"Content-Type": "application/x-www-form-urlencoded"}, encode_chunked=True)
        assert con.getresponse().status == 413
        con.close()
        assert login(dash.port, STAFF)[0] == 303            # and the right password still works
    finally:
        assert dash.stop() == 0


def test_csv_cells_never_run_as_formulas():
    names = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)", "\tTab",
             "Ana", "Bo-Ré"]
    plays = [{"id": "=1", "table": "T01", "game": "timeline", "status": "finished", "started": None, "ended": None,
              "duration_s": None, "actions": 3, "players": [{"name": n, "score": -2, "winner": False}
                                                            for n in names]}]
    rows = list(csv.DictReader(io.StringIO(plays_csv(plays))))
    assert [r["player"] for r in rows] == ["'" + n for n in names[:5]] + ["Ana", "Bo-Ré"]
    assert rows[0]["play"] == "'=1"
    assert {r["score"] for r in rows} == {"-2"}       # a number stays a number


def test_a_short_plain_password_file_is_refused(tmp_path):
    short = tmp_path / "short"
    short.write_text("1\n")
    run = companion("cafe", "serve", "--broker", "mqtt://127.0.0.1:9", "--password-file", str(short),
                    "--db", str(tmp_path / "db.sqlite"))
    assert run.returncode == 2 and run.stderr.startswith(f"{short}: the password on line 1 is shorter than 8")
    assert run.stderr.count("\n") == 1


def test_a_written_hash_is_readable_by_its_owner_only(tmp_path):
    redirected = tmp_path / "staff.hash"
    with redirected.open("w") as out:          # 'companion cafe password > staff.hash'
        os.chmod(redirected, 0o644)
        run = subprocess.run([sys.executable, "-m", "companion", "cafe", "password"], input=STAFF + "\n",
                             stdout=out, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 0, run.stderr
    assert stat.S_IMODE(redirected.stat().st_mode) == 0o600
    assert redirected.read_text().startswith("scrypt$")
    named = tmp_path / "named.hash"
    named.write_text("old")
    os.chmod(named, 0o644)
    run = companion("cafe", "password", "-o", str(named), input=STAFF + "\n")
    assert run.returncode == 0 and run.stdout == ""
    assert stat.S_IMODE(named.stat().st_mode) == 0o600 and named.read_text().startswith("scrypt$")
    run = companion("cafe", "password", input="short\n")
    assert run.returncode == 2 and "at least 8 characters" in run.stderr


def test_only_known_host_names_are_answered(tmp_path):
    dash = Dashboard("mqtt://127.0.0.1:9", tmp_path / "cafe.sqlite").start()
    try:
        # a web site whose name now points at 127.0.0.1 (DNS rebinding) gets nothing from the page
        for path in ("/", "/api/tables", "/export/plays.csv"):
            assert request(dash.port, "GET", path, headers={"Host": f"evil.example:{dash.port}"})[0] == 400
        for host in (f"127.0.0.1:{dash.port}", f"localhost:{dash.port}"):
            assert request(dash.port, "GET", "/api/tables", headers={"Host": host})[0] == 200
    finally:
        assert dash.stop() == 0
    named = Dashboard("mqtt://127.0.0.1:9", tmp_path / "cafe.sqlite", "--allowed-hosts", "cafe-pc.local").start()
    try:
        assert request(named.port, "GET", "/api/tables", headers={"Host": "cafe-pc.local:8080"})[0] == 200
        assert request(named.port, "GET", "/api/tables", headers={"Host": "evil.example"})[0] == 400
    finally:
        assert named.stop() == 0


def test_the_cookie_is_secure_when_asked_and_every_answer_has_csp_and_framing_headers(tmp_path, staff_file):
    plain = Dashboard("mqtt://127.0.0.1:9", tmp_path / "a.sqlite", "--password-file", str(staff_file)).start()
    secure = Dashboard("mqtt://127.0.0.1:9", tmp_path / "b.sqlite", "--password-file", str(staff_file),
                       "--secure-cookie").start()
    try:
        status, headers, _ = login(plain.port, STAFF)
        assert status == 303 and "httponly" in headers["set-cookie"].lower()
        assert "secure" not in headers["set-cookie"].lower()
        status, headers, _ = login(secure.port, STAFF)
        assert status == 303 and "; secure" in headers["set-cookie"].lower()
        cookie = headers["set-cookie"].split(";")[0]
        for path in ("/", "/login", "/api/tables", "/healthz", "/style.css"):
            _, h, _ = request(secure.port, "GET", path, headers={"Cookie": cookie})
            assert "frame-ancestors 'none'" in h["content-security-policy"], path
            assert "script-src 'self'" in h["content-security-policy"] and "unsafe" not in h["content-security-policy"]
            assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff", path
    finally:
        assert plain.stop() == 0 and secure.stop() == 0


@needs_mosquitto
def test_the_dashboards_own_login_is_never_a_table(tmp_path):
    from test_cafe_security import connect

    users = {"T01": "table-one-pw", "dashboard": "dashboard-pw"}
    broker = Mosquitto(tmp_path / "broker", users=users).start()
    dash = Dashboard(broker.url_for("dashboard"), tmp_path / "cafe.sqlite")
    dash.start()
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(iter(dash.proc.stderr.readline, "")), daemon=True).start()
    try:
        wait_until(dash.connected, what="the dashboard to log in to the broker")
        # the installed ACL lets every login write cafe/<its name>/: the dashboard's login too
        forger = connect(broker, "dashboard", users["dashboard"])
        forger.publish("cafe/dashboard/online", "online", qos=1, retain=True).wait_for_publish(10)
        forger.publish("cafe/dashboard/state", '{"game": "timeline", "status": "in_progress"}', qos=1,
                       retain=True).wait_for_publish(10)
        forger.loop_stop()
        t01 = connect(broker, "T01", users["T01"])
        t01.publish("cafe/T01/online", "online", qos=1, retain=True).wait_for_publish(10)
        t01.loop_stop()
        wait_until(lambda: sum("cafe/dashboard/" in line for line in said) >= 2,
                   what="the dashboard to turn down both messages of its own login")
        wait_until(lambda: [t["table"] for t in dash.json("/api/tables")["tables"]] == ["T01"],
                   what="T01, and no table named 'dashboard'")
    finally:
        dash.stop()
        broker.stop()


def test_host_names_are_read_as_hosts_ipv6_and_subdomains_included():
    from companion.cafe.web import _AllowedHosts

    loopback = _AllowedHosts(None, ["localhost", "127.0.0.1", "::1", "[::1]"])
    assert all(loopback.ok(h) for h in ("localhost:8080", "127.0.0.1", "[::1]:8080", "[::1]", "LOCALHOST:1"))
    assert not any(loopback.ok(h) for h in ("evil.example", "127.0.0.1.evil.example:8080", "", "[::2]:80"))
    cafe = _AllowedHosts(None, ["cafe-pc.local", "*.cafe.example"])
    assert cafe.ok("cafe-pc.local:8080") and cafe.ok("staff.cafe.example") and not cafe.ok("cafe.example.evil")
