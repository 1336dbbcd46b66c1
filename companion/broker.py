"""Where the broker is (``mqtt://[USER[:PASSWORD]@]HOST[:PORT]`` or ``mqtts://``) and a paho client
set up for it. Topic names live here too, so the kiosk and the dashboard cannot disagree on them."""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from companion.errors import BadInput

TABLE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")   # a topic level: no MQTT wildcards, no slashes
TOPIC_ROOT = "cafe"


def log_topic(table: str) -> str:
    """Every log entry of the table, QoS 1, not retained."""
    return f"{TOPIC_ROOT}/{table}/log"


def state_topic(table: str) -> str:
    """The table's current state (game, players, turn, round, status, health), retained."""
    return f"{TOPIC_ROOT}/{table}/state"


def online_topic(table: str) -> str:
    """``online`` / ``offline``, retained; the broker writes ``offline`` as the kiosk's last will."""
    return f"{TOPIC_ROOT}/{table}/online"


def confirm_topic(table: str) -> str:
    """The dashboard's confirmation of what it holds of the table's logs, QoS 1, retained; only the
    dashboard's login may write it, and only the table's own login (and the dashboard) read it."""
    return f"{TOPIC_ROOT}/{table}/confirm"


def table_of(topic: str) -> str | None:
    """The table a topic is about: ``T01`` for ``cafe/T01/log``; ``madrid/T01`` for
    ``madrid/cafe/T01/log``, as a café's broker bridged to the office's forwards it (docs/cafe.md)."""
    parts = topic.split("/")
    if len(parts) == 3 and parts[0] == TOPIC_ROOT:
        return parts[1]
    if len(parts) == 4 and parts[1] == TOPIC_ROOT:
        return f"{parts[0]}/{parts[2]}"
    return None


def check_table_name(name: str, where: str = "table") -> str:
    if not isinstance(name, str) or not TABLE_NAME.match(name):
        raise BadInput(where, f"{name!r} is not a table name: 1 to 32 letters, digits, '-' or '_'")
    if name.lower() == "dashboard":
        raise BadInput(where, "'dashboard' is the dashboard's login on the broker; give the table another name")
    return name


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None        # TLS: the café's own CA (default: the system's)
    cert_file: str | None = None      # TLS client certificate, when the broker asks for one
    key_file: str | None = None

    def with_login(self, username: str | None, password: str | None) -> Broker:
        """The same broker with a login from the settings, unless the URL carries one."""
        if self.username or not username:
            return self
        return Broker(self.host, self.port, self.tls, username, password or None,
                      self.ca_file, self.cert_file, self.key_file)

    def with_tls_files(self, ca: str = "", cert: str = "", key: str = "") -> Broker:
        return Broker(self.host, self.port, self.tls, self.username, self.password, ca or None, cert or None,
                      key or None)

    def client(self, client_id: str, *, clean_session: bool = True, manual_ack: bool = False):
        import paho.mqtt.client as mqtt

        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                        protocol=mqtt.MQTTv311, manual_ack=manual_ack)
        if self.username:
            c.username_pw_set(self.username, self.password)
        if self.tls:
            c.tls_set(ca_certs=self.ca_file, certfile=self.cert_file, keyfile=self.key_file,
                      cert_reqs=ssl.CERT_REQUIRED)
        return c

    def __str__(self) -> str:
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def parse_broker(url: str, where: str = "--broker") -> Broker:
    """``mqtt://[USER[:PASSWORD]@]HOST[:PORT]`` (port 1883) or ``mqtts://...`` (8883, TLS)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise BadInput(where, f"{url!r} is not a broker URL ({e}); e.g. mqtt://cafe-pi.local:1883") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise BadInput(where, f"{url!r}: the URL must start with mqtt:// or mqtts://")
    if not parts.hostname:
        raise BadInput(where, f"{url!r} names no host; e.g. mqtt://cafe-pi.local:1883")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BadInput(where, f"{url!r}: a broker URL has no path or query, only mqtt://[USER[:PASSWORD]@]HOST[:PORT]")
    tls = parts.scheme == "mqtts"
    return Broker(parts.hostname, port or (8883 if tls else 1883), tls,
                  unquote(parts.username) if parts.username else None,
                  unquote(parts.password) if parts.password is not None else None)
