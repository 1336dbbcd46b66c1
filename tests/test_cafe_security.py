"""Security as the install writes it: no anonymous access to the broker, a kiosk may publish only
under its own table's name, and the dashboard wants the staff's login for everything but /healthz."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest
from cafe_support import Dashboard, companion, needs_mosquitto, wait_until

from companion.broker import parse_broker
from companion.cafe.mosquitto import Mosquitto

pytestmark = needs_mosquitto
USERS = {"T01": "table-one-pw", "T02": "table-two-pw", "dashboard": "dashboard-pw"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, data: bytes | None = None, cookie: str | None = None):
    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(url, data=data, headers={"Cookie": cookie} if cookie else {})
    try:
        with opener.open(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.fixture
def secure_broker(tmp_path):
    m = Mosquitto(tmp_path / "broker", users=USERS).start()
    yield m
    m.stop()


def connect(broker: Mosquitto, user: str | None, password: str | None = None):
    """A connected paho client, or the broker's refusal as a string."""
    url = f"mqtt://{user}:{password}@127.0.0.1:{broker.port}" if user else broker.url
    client = parse_broker(url).client(f"test-{user}")
    answer: dict = {}
    done = threading.Event()

    def on_connect(c, u, flags, reason_code, properties=None):
        answer["rc"] = reason_code
        done.set()
    client.on_connect = on_connect
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    assert done.wait(10)
    if answer["rc"].is_failure:
        client.loop_stop()
        return str(answer["rc"])
    return client


def test_no_anonymous_access_and_no_wrong_password(secure_broker):
    assert connect(secure_broker, None) == "Not authorized"
    assert connect(secure_broker, "T01", "not-the-password") == "Not authorized"


def publish_as(broker: Mosquitto, user: str, topic: str, payload: str) -> None:
    """Publish once at QoS 1 on a fresh connection and return when the broker has judged it: it
    acknowledges the publish, or drops the connection for a denied one."""
    client = connect(broker, user, USERS[user])
    gone = threading.Event()
    client.on_disconnect = lambda *args: gone.set()
    sent = client.publish(topic, payload, qos=1, retain=topic.endswith("online"))
    wait_until(lambda: sent.is_published() or gone.is_set(), what=f"the broker's answer to {topic}")
    client.loop_stop()


def test_a_kiosk_cannot_publish_as_another_table(secure_broker, tmp_path):
    dash = Dashboard(secure_broker.url_for("dashboard"), tmp_path / "cafe.sqlite").start()
    try:
        wait_until(dash.connected, what="the dashboard to log in to the broker")
        forged = {"log": "f" * 32, "game_id": 1, "seq": 0, "kind": "setup", "game": "timeline", "at": 1.0,
                  "line": {"type": "setup", "game": "timeline", "players": ["Mallory"]}}
        for topic, payload in (("cafe/T02/online", "online"), ("cafe/T02/state", json.dumps({"game": "timeline"})),
                               ("cafe/T02/log", json.dumps(forged)), ("cafe/T01/online", "online")):
            # one connection each: Mosquitto 2.0.11 answers a denied QoS 1 publish with an MQTT 5 reason
            # code that a 3.1.1 client takes for a broken connection
            publish_as(secure_broker, "T01", topic, payload)
        # T01's own message went last: the broker judged each forged one before it and delivers in
        # order, so once the dashboard shows T01 nothing forged can still be on its way
        wait_until(lambda: [t["table"] for t in dash.json("/api/tables")["tables"]] == ["T01"],
                   what="T01's own message")
        assert dash.json("/api/plays")["plays"] == []         # the forged game never arrived
    finally:
        dash.stop()


def test_the_dashboard_wants_the_login_for_everything_but_healthz(tmp_path):
    hashed = companion("cafe", "password", input="staff secret 1\n")
    assert hashed.returncode == 0 and hashed.stdout.startswith("scrypt$")
    secret = tmp_path / "staff.hash"
    secret.write_text(hashed.stdout)
    dash = Dashboard("mqtt://127.0.0.1:9", tmp_path / "cafe.sqlite", "--password-file", str(secret)).start()
    base = dash.url.rstrip("/")
    try:
        assert fetch(base + "/healthz")[0] == 503             # open, and honest: no broker on port 9
        paths = ["/", "/events", "/api/tables", "/api/plays", "/api/figures", "/export/plays.csv",
                 "/export/plays.bgsplay", "/nothing-here"]
        for path in paths:
            status, headers, _ = fetch(base + path)
            assert status in (303, 401), path
            if status == 303:
                assert headers["location"].startswith("/login")
        assert fetch(base + "/login")[0] == 200

        def login(password: str):
            return fetch(base + "/login", data=urllib.parse.urlencode({"password": password, "next": "/"}).encode())
        status, headers, _ = login("staff secret 1")
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"].split(";")[0]
        for path in ("/", "/api/tables", "/api/plays", "/export/plays.csv", "/export/plays.bgsplay"):
            assert fetch(base + path, cookie=cookie)[0] == 200, path

        for _ in range(5):
            assert login("guess")[0] == 401
        status, _, body = login("staff secret 1")             # even the right one waits now
        assert status == 429 and b"Too many wrong passwords" in body
    finally:
        assert dash.stop() == 0


def test_a_password_file_that_cannot_be_used_is_named(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    run = companion("cafe", "serve", "--broker", "mqtt://127.0.0.1:9", "--password-file", str(empty),
                    "--db", str(tmp_path / "db.sqlite"))
    assert run.returncode == 2 and run.stderr.startswith(str(empty)) and run.stderr.count("\n") == 1
    run = companion("cafe", "serve", "--broker", "mqtt://127.0.0.1:9", "--password-file", str(tmp_path / "missing"),
                    "--db", str(tmp_path / "db.sqlite"))
    assert run.returncode == 2 and "cannot read the password file" in run.stderr


def test_the_install_with_broker_writes_the_settings_these_tests_run_under(tmp_path):
    import subprocess

    from companion.paths import PROJECT_ROOT
    plan = subprocess.run(["bash", str(PROJECT_ROOT / "pi" / "install.sh"), "--dry-run-fresh", "--with-broker"],
                          capture_output=True, text=True, env={"DESTDIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert plan.returncode == 0, plan.stderr
    broker_part = plan.stdout.split("==> The café's broker (Mosquitto)")[1]
    assert "pi/mosquitto/companion-cafe.conf" in broker_part
    assert "/etc/mosquitto/conf.d/companion-cafe.conf" in broker_part
    assert "pi/mosquitto/companion-cafe.acl" in broker_part and "/etc/mosquitto/companion.passwd" in broker_part
    conf = (PROJECT_ROOT / "pi" / "mosquitto" / "companion-cafe.conf").read_text()
    assert "allow_anonymous false" in conf and "acl_file" in conf and "password_file" in conf
    assert "use_username_as_clientid true" in conf
    acl = (PROJECT_ROOT / "pi" / "mosquitto" / "companion-cafe.acl").read_text().splitlines()
    assert {"pattern write cafe/%u/log", "pattern write cafe/%u/state", "pattern write cafe/%u/online",
            "pattern read cafe/%u/confirm", "topic write cafe/+/confirm"} <= set(acl)
    assert not [line for line in acl if line.startswith("pattern write") and line.endswith("#")]
