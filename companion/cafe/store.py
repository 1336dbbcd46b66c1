"""The dashboard's own SQLite database: every table, every play and every log item it received.

An action is stored under (table, log, game, seq), its key in the kiosk's log, so a message the
broker delivers twice is stored once (``INSERT OR IGNORE``). A message is committed before the MQTT
client acknowledges it, so a dashboard killed at any moment loses nothing it acknowledged.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import statistics
import threading
import time
from collections import deque
from datetime import UTC, datetime
from pathlib import Path

from companion.errors import BadInput

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    name     TEXT PRIMARY KEY,
    online   INTEGER NOT NULL DEFAULT 0,
    state    TEXT,
    updated  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS plays (
    table_name TEXT NOT NULL,
    log        TEXT NOT NULL,
    game_id    INTEGER NOT NULL,
    game       TEXT,
    players    TEXT,                  -- JSON [{"name", "score", "winner"}]
    status     TEXT NOT NULL DEFAULT 'in_progress',
    started    REAL,
    ended      REAL,
    actions    INTEGER NOT NULL DEFAULT 0,  -- log entries received (kept as they arrive)
    PRIMARY KEY (table_name, log, game_id)
);
CREATE TABLE IF NOT EXISTS actions (
    table_name TEXT NOT NULL,
    log        TEXT NOT NULL,
    game_id    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    line       TEXT,
    at         REAL NOT NULL,         -- when the kiosk stored it
    received   REAL NOT NULL,         -- when the dashboard stored it
    PRIMARY KEY (table_name, log, game_id, seq)
);
CREATE INDEX IF NOT EXISTS plays_recent ON plays (COALESCE(started, 0) DESC, table_name);
"""
CHANGES_KEPT = 100_000      # changes remembered for the live page (it reads them twice a second)


def table_sort_key(name: str) -> str:
    """Tables in the order people count them (T2 before T10, madrid/T2 before madrid/T10), and
    names that differ only in zeros ("T01", "T001") side by side but each in its own place."""
    padded = "".join(part.zfill(12) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name))
    return f"{padded} {name}"


def iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


class CafeStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        # what changed, in order, so the live page re-renders only what moved: ("table", name) when a
        # table's state or online changes, ("play", (table, log, game_id)) when a play starts or ends
        self.change_seq = 0
        self._changes: deque[tuple[int, str, object]] = deque(maxlen=CHANGES_KEPT)
        self._figures: tuple[int, dict] | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(plays)")]
            if columns and "actions" not in columns:      # a database from before the count was kept
                self._db.execute("ALTER TABLE plays ADD COLUMN actions INTEGER NOT NULL DEFAULT 0")
                self._db.execute("UPDATE plays SET actions = (SELECT COUNT(*) FROM actions a WHERE "
                                 "a.table_name = plays.table_name AND a.log = plays.log AND a.game_id = plays.game_id)")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise BadInput(str(self.path), f"cannot open the dashboard database: {e}") from None
        self.plays_version = 0      # bumped when a play starts or ends (the figures come from the plays)

    # -- what the broker delivers ---------------------------------------------------------------
    def record_many(self, items: list[tuple[str, str, object]]) -> None:
        """Several messages in one transaction (one disk sync): ``(kind, table, body)`` with kind
        ``log`` (a log item), ``state`` (a table's state) or ``online`` (bool). Under load the
        subscriber hands over everything that arrived since the last commit."""
        changed: list[tuple[str, object]] = []
        now = time.time()
        with self._lock:
            with self._db:
                self._db.execute("BEGIN")
                for kind, table, body in items:
                    # one message that cannot be stored is skipped (and logged), not the whole batch
                    self._db.execute("SAVEPOINT item")
                    try:
                        changed += self._item(kind, table, body, now)
                    except (ValueError, KeyError, TypeError, sqlite3.IntegrityError) as e:
                        self._db.execute("ROLLBACK TO item")
                        log.warning("skipped a malformed %s message of table %s: %s", kind, table, e)
                    self._db.execute("RELEASE item")
            for what, key in changed:    # after the commit: the page reads only what is stored
                self.change_seq += 1
                self._changes.append((self.change_seq, what, key))
                if what == "play":
                    self.plays_version += 1

    def _item(self, kind: str, table: str, body: object, now: float) -> list[tuple[str, object]]:
        if kind == "log":
            if not isinstance(body, dict):
                raise TypeError(f"a JSON object was expected, not {type(body).__name__}")
            return self._log_item(table, body, now)
        if kind == "state":
            self._db.execute("INSERT INTO tables (name, state, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                             "DO UPDATE SET state = excluded.state, updated = excluded.updated",
                             (table, json.dumps(body), now))
        else:
            self._db.execute("INSERT INTO tables (name, online, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                             "DO UPDATE SET online = excluded.online, updated = excluded.updated",
                             (table, int(bool(body)), now))
        return [("table", table)]

    def _log_item(self, table: str, m: dict, now: float) -> list[tuple[str, object]]:
        log, gid, kind = str(m["log"]), int(m["game_id"]), m["kind"]
        key = (table, log, gid)
        self._db.execute("INSERT OR IGNORE INTO plays (table_name, log, game_id) VALUES (?, ?, ?)", key)
        if kind == "setup":
            names = [{"name": n, "score": None, "winner": False} for n in _names(m.get("line") or {})]
            self._db.execute("UPDATE plays SET game = ?, started = ?, players = COALESCE(players, ?) "
                             "WHERE table_name = ? AND log = ? AND game_id = ?",
                             (m.get("game"), m.get("at"), json.dumps(names), *key))
        elif kind == "end":
            self._db.execute("UPDATE plays SET status = ?, ended = ?, players = ?, game = COALESCE(game, ?) "
                             "WHERE table_name = ? AND log = ? AND game_id = ?",
                             (m.get("status"), m.get("at"), json.dumps(m.get("players") or []), m.get("game"), *key))
        else:
            new = self._db.execute("INSERT OR IGNORE INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                   (*key, int(m["seq"]), kind, json.dumps(m.get("line")), float(m["at"]), now))
            if new.rowcount == 1:
                self._db.execute("UPDATE plays SET actions = actions + 1 WHERE table_name = ? AND log = ? "
                                 "AND game_id = ?", key)
            return []
        return [("play", key)]

    def record_log_item(self, table: str, m: dict) -> None:
        self.record_many([("log", table, m)])

    def record_state(self, table: str, state: dict) -> None:
        self.record_many([("state", table, state)])

    def record_online(self, table: str, online: bool) -> None:
        self.record_many([("online", table, online)])

    def changes_since(self, seq: int) -> tuple[int, set[str], set[tuple], bool]:
        """(the newest change, tables changed, plays changed, complete) since change ``seq``;
        ``complete`` is False when more changed than is remembered (then reread everything)."""
        with self._lock:
            now = self.change_seq
            changes = list(self._changes)
        complete = not changes or changes[0][0] <= seq + 1 or seq >= now
        tables: set[str] = set()
        plays: set[tuple] = set()
        for n, what, key in reversed(changes):
            if n <= seq:
                break
            if what == "table":
                tables.add(str(key))
            else:
                plays.add(tuple(key))      # type: ignore[arg-type]
        return now, tables, plays, complete

    # -- what the page and the API read -----------------------------------------------------------
    def _rows(self, sql: str, args=()) -> list:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def tables(self, names: list[str] | None = None) -> list[dict]:
        """Every table (or those named), by name."""
        sql = "SELECT name, online, state, updated FROM tables"
        args: tuple = ()
        if names is not None:
            sql += f" WHERE name IN ({', '.join('?' * len(names))})"
            args = tuple(names)
        out = []
        for name, online, state, updated in self._rows(sql, args):
            s = json.loads(state) if state else {}
            out.append({"table": name, "sort": table_sort_key(name), "online": bool(online), "game": s.get("game"),
                        "status": s.get("status", "unknown"), "players": s.get("players", []),
                        "turn": s.get("turn"), "round": s.get("round"), "started": iso(s.get("started")),
                        "health": s.get("health", {}), "updated": iso(updated)})
        return sorted(out, key=lambda tb: tb["sort"])

    def plays(self, limit: int | None = None, offset: int = 0, keys: list[tuple] | None = None) -> list[dict]:
        """The plays, newest first: all of them, a page (``limit`` from ``offset``), or those of ``keys``
        ((table, log, game_id) as :meth:`changes_since` names them)."""
        sql = ("SELECT table_name, log, game_id, game, status, started, ended, players, actions FROM plays")
        args: tuple = ()
        if keys is not None:
            if not keys:
                return []
            sql += " WHERE (table_name, log, game_id) IN (VALUES " + ", ".join(["(?, ?, ?)"] * len(keys)) + ")"
            args = tuple(v for k in keys for v in k)
        sql += " ORDER BY COALESCE(started, 0) DESC, table_name"
        if limit is not None or offset:
            sql += f" LIMIT {-1 if limit is None else int(limit)} OFFSET {int(offset)}"
        return [_play(*row) for row in self._rows(sql, args)]

    def count_plays(self) -> int:
        return self._rows("SELECT COUNT(*) FROM plays")[0][0]

    def actions_of(self, table: str) -> list[tuple]:
        """(log, game_id, seq, kind) in the order they arrived (tests: the backlog's order)."""
        return self._rows("SELECT log, game_id, seq, kind FROM actions WHERE table_name = ? ORDER BY rowid", (table,))

    def figures(self) -> dict:
        """Worked out once per change of the plays (a play started or ended), whoever asks."""
        version = self.plays_version
        cached = self._figures
        if cached is not None and cached[0] == version:
            return cached[1]
        per_game: dict[str, int] = {}
        per_table: dict[str, int] = {}
        hours = [0] * 24
        durations: dict[str, list[float]] = {}
        rows = self._rows("SELECT game, table_name, started, ended FROM plays WHERE status = 'finished'")
        for game, table, started, ended in rows:
            per_game[game] = per_game.get(game, 0) + 1
            per_table[table] = per_table.get(table, 0) + 1
            if started:
                hours[datetime.fromtimestamp(started).hour] += 1
                if ended:
                    durations.setdefault(game, []).append(ended - started)
        figures = {"plays": len(rows), "per_game": dict(sorted(per_game.items(), key=lambda kv: -kv[1])),
                   "per_table": dict(sorted(per_table.items())),
                   "median_minutes": {g: statistics.median(d) / 60 for g, d in sorted(durations.items())},
                   "hours": hours}
        self._figures = (version, figures)
        return figures

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _names(setup: dict) -> list[str]:
    from companion.cafe.outbox import player_names
    return player_names(setup) if isinstance(setup, dict) else []


def _play(t, log, gid, game, status, started, ended, players, n) -> dict:
    return {"table": t, "game": game, "status": status, "started": iso(started), "ended": iso(ended),
            "actions": n, "players": json.loads(players) if players else [],
            "id": f"{t}-{log[:8]}-{gid}", "key": (t, log, gid), "sort": f"{started or 0:017.3f}",
            "duration_s": None if not (started and ended) else ended - started}
