"""The dashboard's own SQLite database: every table, every play and every log item it received.

An action is stored under (table, log, game, seq), its key in the kiosk's log, so a message the
broker delivers twice is stored once (``INSERT OR IGNORE``). A message is committed before the MQTT
client acknowledges it, so a dashboard killed at any moment loses nothing it acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from companion.errors import BadInput

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
"""


def iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


class CafeStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        # bumped on change, so the live page re-renders only what moved: tiles (a table's state or
        # online), plays (a game started or ended; the figures come from them)
        self.tiles_version = 0
        self.plays_version = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise BadInput(str(self.path), f"cannot open the dashboard database: {e}") from None

    # -- what the broker delivers ---------------------------------------------------------------
    def record_log_item(self, table: str, m: dict) -> None:
        log, gid, kind = str(m["log"]), int(m["game_id"]), m["kind"]
        with self._lock, self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR IGNORE INTO plays (table_name, log, game_id) VALUES (?, ?, ?)",
                             (table, log, gid))
            if kind == "setup":
                names = [{"name": n, "score": None, "winner": False} for n in _names(m.get("line") or {})]
                self._db.execute("UPDATE plays SET game = ?, started = ?, players = COALESCE(players, ?) "
                                 "WHERE table_name = ? AND log = ? AND game_id = ?",
                                 (m.get("game"), m.get("at"), json.dumps(names), table, log, gid))
            elif kind == "end":
                self._db.execute("UPDATE plays SET status = ?, ended = ?, players = ?, game = COALESCE(game, ?) "
                                 "WHERE table_name = ? AND log = ? AND game_id = ?",
                                 (m.get("status"), m.get("at"), json.dumps(m.get("players") or []), m.get("game"),
                                  table, log, gid))
            else:
                self._db.execute("INSERT OR IGNORE INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 (table, log, gid, int(m["seq"]), kind, json.dumps(m.get("line")), float(m["at"]),
                                  time.time()))
                return
            self.plays_version += 1

    def record_state(self, table: str, state: dict) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT INTO tables (name, state, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                             "DO UPDATE SET state = excluded.state, updated = excluded.updated",
                             (table, json.dumps(state), time.time()))
            self.tiles_version += 1

    def record_online(self, table: str, online: bool) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT INTO tables (name, online, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                             "DO UPDATE SET online = excluded.online, updated = excluded.updated",
                             (table, int(online), time.time()))
            self.tiles_version += 1

    # -- what the page and the API read -----------------------------------------------------------
    def _rows(self, sql: str, args=()) -> list:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def tables(self) -> list[dict]:
        out = []
        for name, online, state, updated in self._rows("SELECT name, online, state, updated FROM tables ORDER BY name"):
            s = json.loads(state) if state else {}
            out.append({"table": name, "online": bool(online), "game": s.get("game"),
                        "status": s.get("status", "unknown"), "players": s.get("players", []),
                        "turn": s.get("turn"), "round": s.get("round"), "started": iso(s.get("started")),
                        "health": s.get("health", {}), "updated": iso(updated)})
        return out

    def plays(self, limit: int | None = None) -> list[dict]:
        rows = self._rows(
            "SELECT p.table_name, p.log, p.game_id, p.game, p.status, p.started, p.ended, p.players, "
            "(SELECT COUNT(*) FROM actions a WHERE a.table_name = p.table_name AND a.log = p.log "
            " AND a.game_id = p.game_id) FROM plays p ORDER BY COALESCE(p.started, 0) DESC, p.table_name"
            + (f" LIMIT {int(limit)}" if limit else ""))
        return [{"table": t, "game": game, "status": status, "started": iso(started), "ended": iso(ended),
                 "actions": n, "players": json.loads(players) if players else [],
                 "id": f"{t}-{log[:8]}-{gid}", "duration_s": None if not (started and ended) else ended - started}
                for t, log, gid, game, status, started, ended, players, n in rows]

    def actions_of(self, table: str) -> list[tuple]:
        """(log, game_id, seq, kind) in the order they arrived (tests: the backlog's order)."""
        return self._rows("SELECT log, game_id, seq, kind FROM actions WHERE table_name = ? ORDER BY rowid", (table,))

    def figures(self) -> dict:
        finished = [p for p in self.plays() if p["status"] == "finished"]
        per_game: dict[str, int] = {}
        per_table: dict[str, int] = {}
        hours = [0] * 24
        durations: dict[str, list[float]] = {}
        for p in finished:
            per_game[p["game"]] = per_game.get(p["game"], 0) + 1
            per_table[p["table"]] = per_table.get(p["table"], 0) + 1
            if p["started"]:
                hours[datetime.fromisoformat(p["started"]).astimezone().hour] += 1
            if p["duration_s"] is not None:
                durations.setdefault(p["game"], []).append(p["duration_s"])
        return {"plays": len(finished), "per_game": dict(sorted(per_game.items(), key=lambda kv: -kv[1])),
                "per_table": dict(sorted(per_table.items())),
                "median_minutes": {g: statistics.median(d) / 60 for g, d in sorted(durations.items())},
                "hours": hours}

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _names(setup: dict) -> list[str]:
    from companion.cafe.outbox import player_names
    return player_names(setup) if isinstance(setup, dict) else []
