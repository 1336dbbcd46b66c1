"""The dashboard's own SQLite database: every table, every play and every log item it received.

Only checked messages reach it (companion/cafe/schema.py). An action is stored under (table, log,
game, seq), its key in the kiosk's log, so a message the broker delivers twice is stored once
(``INSERT OR IGNORE``). A play's history is append-only: the first setup and the first ``end`` stand,
an entry once stored is never replaced, and nothing reopens a finished play. For each play the
database keeps how far it holds the log with none missing (``high``); the dashboard confirms that
to the kiosk (:meth:`CafeStore.confirmation`), which offers again whatever is missing.

A message is committed before the MQTT client acknowledges it, so a dashboard killed at any moment
loses nothing it acknowledged; a write that fails (a full disk) raises :class:`DiskFull` and the
item is not confirmed, so its kiosk offers it again later.
"""

from __future__ import annotations

import json
import logging
import math
import re
import sqlite3
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from companion.cafe import schema
from companion.errors import BadInput

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
    started    REAL,                  -- the kiosk's clock (the setup's at)
    ended      REAL,                  -- the kiosk's clock (the end's at)
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
CREATE TABLE IF NOT EXISTS logs (
    table_name TEXT NOT NULL,
    log        TEXT NOT NULL,
    through    INTEGER NOT NULL DEFAULT 0,   -- every game 1..through of this log is held whole
    updated    REAL NOT NULL,
    PRIMARY KEY (table_name, log)
);
CREATE TABLE IF NOT EXISTS rejected (
    table_name TEXT PRIMARY KEY,      -- '' when the topic names no table
    count      INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    at         REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS probe (x BLOB);
CREATE TABLE IF NOT EXISTS retired (
    name     TEXT PRIMARY KEY,       -- a table the staff took off the page, until its kiosk speaks again
    at       REAL NOT NULL
);
-- prepared summaries, kept in the same transaction as the plays they count, so no page counts a
-- year of plays again: each table's newest finished play (its tile names the winner), and the figures
CREATE TABLE IF NOT EXISTS table_results (
    table_name   TEXT PRIMARY KEY,
    players      TEXT,
    mode         TEXT,
    end_received REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS figure_counts (
    what     TEXT NOT NULL,          -- 'game' (game_key), 'table', 'hour' (0-23, local time)
    key      TEXT NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (what, key)
);
CREATE TABLE IF NOT EXISTS figure_lengths (
    game     TEXT NOT NULL,          -- game_key
    seconds  INTEGER NOT NULL,       -- a finished play's length, in whole seconds
    n        INTEGER NOT NULL,
    PRIMARY KEY (game, seconds)
);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS plays_recent ON plays (COALESCE(setup_received, started, 0) DESC, table_name);
CREATE INDEX IF NOT EXISTS plays_open ON plays (table_name, status);
CREATE INDEX IF NOT EXISTS plays_table_recent ON plays (table_name, COALESCE(setup_received, started, 0) DESC);
CREATE INDEX IF NOT EXISTS plays_simulated ON plays (table_name) WHERE simulated = 1;
"""
# version 2: what a play holds with none missing, its last seq, when the dashboard saw it start and end
# (and kept as they arrive, so no page counts them again: the entries received, the first one's time)
_PLAY_COLUMNS = {"high": "INTEGER NOT NULL DEFAULT -1", "last": "INTEGER", "setup_received": "REAL",
                 "end_received": "REAL", "actions": "INTEGER NOT NULL DEFAULT 0", "first_received": "REAL",
                 "last_received": "REAL", "mode": "TEXT",
                 # version 3: whether a simulated table (cafe simulate) played it; what it adds to the figures
                 "simulated": "INTEGER NOT NULL DEFAULT 0", "figure": "TEXT",
                 # version 4: the chain hash of the setup and of the end held (see _ADDED_COLUMNS)
                 "setup_hash": "TEXT", "end_hash": "TEXT"}
# version 4: the chain hash of each item held (a restored or copied card's other history is refused, not
# merged), and where a log came from (a kiosk log that took a new id from a copied or restored card)
_ADDED_COLUMNS = {"actions": {"hash": "TEXT"},
                  "logs": {"origin": "TEXT", "why": "TEXT", "first_game": "INTEGER NOT NULL DEFAULT 1",
                           "noticed": "REAL"}}
ABANDONED_AFTER_S = 3600.0   # a play is shown abandoned once its kiosk is offline and silent this long
CHECKPOINT_EVERY_S = 1.0
CHANGES_KEPT = 100_000      # changes remembered for the live page (it reads them twice a second)
CONFIRM_GAMES = 100          # games listed one by one in a confirmation (after the ones held whole)
CLOCK_SLACK_S = 300.0        # a kiosk's time this far after the dashboard received it: its clock is off
LONGEST_PLAY_S = 24 * 3600.0
MAX_OPEN_PLAYS = 20          # plays one table may have in progress (active in the last hour) at once
PLAYS_PAGE = 1000            # plays read at a time by the exports (and /api/plays without ?limit)


class DiskFull(Exception):
    """The dashboard's database could not be written: the message says where and why."""


def table_sort_key(name: str) -> str:
    """Tables in the order people count them (T2 before T10, madrid/T2 before madrid/T10), and
    names that differ only in zeros ("T01", "T001") side by side but each in its own place."""
    padded = "".join(part.zfill(12) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name))
    return f"{padded} {name}"


def game_key(game: object, mode: object) -> str:
    """A game and its mode as one row of the figures: ``timeline``, ``cronologia:cooperative``."""
    name = game if isinstance(game, str) else "?"
    return f"{name}:{mode}" if isinstance(mode, str) and mode else name


def iso(t: object) -> str | None:
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= schema.LATEST:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


class CafeStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        # the recorder's connection (the subscriber's writer and the confirmations) and its lock; the
        # pages read through connections of their own, one per thread (:meth:`_read`): WAL lets them
        # read while the recorder writes, so no page ever waits for a commit nor holds one up
        self._lock = threading.Lock()
        self._news = threading.Lock()        # the list of changes and what to confirm: memory only
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._pending_rejected: dict[str, tuple[int, str, float]] = {}
        # what changed, in order, so the live page re-renders only what moved: ("table", name) when a
        # table's state, online or skipped messages change, ("play", (table, log, game_id)) when a play
        # starts or ends (plays_version counts those: the figures come from the plays)
        self.change_seq = 0
        self._changes: deque[tuple[int, str, object]] = deque(maxlen=CHANGES_KEPT)
        self.plays_version = 0
        self.history_version = 0         # plays removed (the page's history is drawn again)
        self._figures: tuple[int, dict] | None = None
        self._touched: dict[str, dict[str, set[int]]] = {}     # what to confirm next, per table and log
        self._answered: set[tuple[str, str | None]] = set()     # (table, log) confirmed since the start
        self.replaces: str | None = None    # the database this one takes the place of (serve --replaces)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            # the WAL is copied into the database by a thread of its own (below), not by whichever
            # commit happens to pass 1000 pages: a checkpoint of tens of MB must not hold up the writer
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise BadInput(str(self.path), f"written by a newer companion (schema {version}); update the program")
            self._db.executescript(_SCHEMA)
            have = {row[1] for row in self._db.execute("PRAGMA table_info(plays)")}
            for name, decl in _PLAY_COLUMNS.items():
                if name not in have:
                    self._db.execute(f"ALTER TABLE plays ADD COLUMN {name} {decl}")
            for table, columns in _ADDED_COLUMNS.items():
                there = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
                for name, decl in columns.items():
                    if name not in there:
                        self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
            # the database's identity: made with it, kept in it, so a copy restored from a backup keeps it;
            # every confirmation carries it, and a kiosk counts only the database the café registered
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('db', ?)", (uuid.uuid4().hex[:16],))
            self.db_id: str = self._db.execute("SELECT value FROM meta WHERE key = 'db'").fetchone()[0]
            if "actions" not in have:        # counted once for a database from before the count was kept
                self._db.execute("UPDATE plays SET (actions, first_received) = (SELECT COUNT(*), MIN(a.received) "
                                 "FROM actions a WHERE a.table_name = plays.table_name AND a.log = plays.log "
                                 "AND a.game_id = plays.game_id)")
            self._db.executescript(_INDEXES)
            if version < 2:
                self._db.execute("DELETE FROM logs")     # recomputed from the plays as they are confirmed
            if version < 3:
                self._db.execute("BEGIN IMMEDIATE")
                self._rebuild_summaries(self._db)
                self._db.execute("COMMIT")
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as e:
            raise BadInput(str(self.path), f"cannot open the dashboard database: {e}") from None
        self._closing = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoints, name="cafe-checkpoints", daemon=True)
        self._checkpointer.start()

    def _write(self, steps):
        """One transaction; a full disk (or a failing one) is DiskFull, with nothing half-written."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = steps(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
                return result
            except sqlite3.OperationalError as e:
                text = str(e)
                if "full" in text or "disk I/O" in text:
                    raise DiskFull(f"{self.path}: {text}") from None
                raise

    def can_write(self) -> bool:
        """Whether a page can be written (after a full disk: is there room again?)."""
        with self._lock:
            try:       # committed, so it really reaches the disk (a rolled-back write may never leave memory)
                self._db.execute("INSERT INTO probe VALUES (zeroblob(16384))")
                self._db.execute("DELETE FROM probe")
                return True
            except sqlite3.Error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                return False

    # -- what the broker delivers (checked by companion.cafe.schema first) -------------------------
    def record_log_item(self, table: str, m: dict) -> str | None:
        """Store one checked log item. Returns why it was refused (history is append-only), or None."""
        return self.record_batch([("log", table, m)])[0]

    def record_batch(self, items: list[tuple[str, str, object]], retained: list[bool] | None = None
                     ) -> list[str | None]:
        """Checked messages in one transaction (one disk sync for all): ``(kind, table, body)`` with
        kind ``log``, ``state`` or ``online``. Returns, per item, why it was refused, or None. Under
        load the subscriber hands over everything that arrived since its last commit. ``retained``
        says, per item, whether the broker sent it as a retained message (at a new subscription):
        such a state or online of a retired table keeps it retired; a live one brings it back."""
        flags = retained or [False] * len(items)
        now = time.time()
        changes: list[tuple[str, object]] = []
        touched = [(table, body["log"], body["game_id"]) for kind, table, body in items
                   if kind == "log" and isinstance(body, dict)]
        # a delivery the database already holds is answered by a read, with nothing to write or sync
        known = [self._known((table, body["log"], body["game_id"]), body)
                 if kind == "log" and isinstance(body, dict) else None for kind, table, body in items]

        def steps(db) -> list[str | None]:
            out: list[str | None] = []
            for (kind, table, body), held, old in zip(items, known, flags, strict=True):
                if held is not None:
                    out.append(held[1])
                    continue
                if kind == "log":
                    assert isinstance(body, dict)
                    out.append(self._log_steps(db, table, body, now, changes))
                    continue
                if db.execute("SELECT 1 FROM retired WHERE name = ?", (table,)).fetchone():
                    if old:
                        out.append(None)
                        continue
                    db.execute("DELETE FROM retired WHERE name = ?", (table,))
                if kind == "state":
                    db.execute("INSERT INTO tables (name, state, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                               "DO UPDATE SET state = excluded.state, updated = excluded.updated",
                               (table, json.dumps(body), now))
                else:
                    db.execute("INSERT INTO tables (name, online, updated) VALUES (?, ?, ?) ON CONFLICT(name) "
                               "DO UPDATE SET online = excluded.online, updated = excluded.updated",
                               (table, int(bool(body)), now))
                changes.append(("table", table))
                out.append(None)
            return out
        if all(held is not None for held in known):
            refusals: list[str | None] = [held[1] for held in known if held is not None]
        else:
            refusals = self._write(steps)
        with self._news:                 # after the commit: the page reads only what is stored
            for table, log_id, gid in touched:
                self._touched.setdefault(table, {}).setdefault(log_id, set()).add(gid)
            for kind, table, body in items:
                # a kiosk's state names its log: confirmed once even when nothing of it is held here (an
                # empty or older database, another dashboard's), so the kiosk offers all it lacks
                log_id = body.get("log") if kind == "state" and isinstance(body, dict) else None
                if log_id and (table, log_id) not in self._answered:
                    self._touched.setdefault(table, {}).setdefault(log_id, set())
            self._changed(changes)
        return refusals

    def _changed(self, changes: list[tuple[str, object]]) -> None:
        for what, key in changes:
            self.change_seq += 1
            self._changes.append((self.change_seq, what, key))
            if what == "play":
                self.plays_version += 1

    def changes_since(self, seq: int) -> tuple[int, set[str], set[tuple], bool]:
        """(the newest change, tables changed, plays changed, complete) since change ``seq``;
        ``complete`` is False when more changed than is remembered (then reread everything)."""
        with self._news:
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

    def _log_steps(self, db, table: str, m: dict, now: float, changes: list) -> str | None:
        log, gid, kind = m["log"], m["game_id"], m["kind"]
        key = (table, log, gid)
        row = db.execute("SELECT game, status, last, high, mode FROM plays WHERE table_name = ? AND log = ? "
                         "AND game_id = ?", key).fetchone()
        if row is None:
            if kind != "end" and self._open_plays(db, table, now) >= MAX_OPEN_PLAYS:
                # not stored, so not confirmed: a real kiosk offers it again once its other plays end
                return f"{table} already has {MAX_OPEN_PLAYS} plays in progress; game {gid} waits"
            db.execute("INSERT INTO plays (table_name, log, game_id, simulated) VALUES (?, ?, ?, ?)",
                       (*key, int(m.get("sim") is True)))
            row = (None, "in_progress", None, -1, None)
        db.execute("INSERT INTO logs (table_name, log, updated) VALUES (?, ?, ?) ON CONFLICT(table_name, log) "
                   "DO UPDATE SET updated = excluded.updated", (table, log, now))
        game, status, last, high, mode = row
        if game is not None and m["game"] != game:
            return f"game {gid} of log {log[:8]} is {game}, not {m['game']}"
        refused = self._entry_steps(db, table, m, key, now, changes, row)
        if refused is None and (kind == "end" or status != "in_progress") and self._refigure(db, key):
            changes.append(("play", key))        # the figures moved (a finished play's times, or its end)
        return refused

    @staticmethod
    def _open_plays(db, table: str, now: float) -> int:
        """The table's plays in progress that heard something in the last hour (older ones are shown
        abandoned, and a kiosk that crashed mid-game leaves one behind for good)."""
        return db.execute("SELECT COUNT(*) FROM plays WHERE table_name = ? AND status = 'in_progress' AND "
                          "COALESCE(last_received, setup_received, first_received, 0) > ?",
                          (table, now - ABANDONED_AFTER_S)).fetchone()[0]

    def _entry_steps(self, db, table: str, m: dict, key: tuple, now: float, changes: list, row: tuple) -> str | None:
        log, gid, kind = key[1], key[2], m["kind"]
        game, status, last, high, mode = row
        if kind == "setup":
            if high >= 0:                     # the first setup stands; another one is another history
                held = db.execute("SELECT setup_hash FROM plays WHERE table_name = ? AND log = ? AND game_id = ?",
                                  key).fetchone()[0]
                return None if _same(held, m.get("chain")) else _forked(gid, 0, log)
            if m.get("origin"):
                self._origin(db, table, log, m["origin"], now, changes)
            names = [{"name": n, "score": None, "winner": False} for n in m["players"]]
            mode = m["line"].get("mode") if isinstance(m.get("line"), dict) else None
            db.execute("UPDATE plays SET game = ?, started = ?, players = COALESCE(players, ?), "
                       "setup_received = ?, last_received = ?, mode = ?, setup_hash = ? WHERE table_name = ? "
                       "AND log = ? AND game_id = ?", (m["game"], m["at"], json.dumps(names), now, now,
                                                       mode if isinstance(mode, str) and mode.isidentifier() else None,
                                                       m.get("chain"), *key))
            self._advance(db, key, 0)
            changes.append(("play", key))
        elif kind == "end":
            if status != "in_progress":
                held = db.execute("SELECT end_hash FROM plays WHERE table_name = ? AND log = ? AND game_id = ?",
                                  key).fetchone()[0]
                if last == m["last"] and not _same(held, m.get("chain")):
                    return _forked(gid, -1, log)
                return None if last == m["last"] else f"game {gid} of log {log[:8]} has already ended"
            beyond = db.execute("SELECT MAX(seq) FROM actions WHERE table_name = ? AND log = ? AND game_id = ?",
                                key).fetchone()[0]
            if beyond is not None and beyond > m["last"]:
                return f"the end of game {gid} says {m['last']} entries, but entry {beyond} is stored"
            db.execute("UPDATE plays SET status = ?, ended = ?, players = ?, game = COALESCE(game, ?), last = ?, "
                       "end_received = ?, end_hash = ? WHERE table_name = ? AND log = ? AND game_id = ?",
                       (m["status"], m["at"], json.dumps(m["players"]), m["game"], m["last"], now, m.get("chain"),
                        *key))
            if m["status"] == "finished":     # the table's newest result, for its tile
                db.execute("INSERT INTO table_results VALUES (?, ?, ?, ?) ON CONFLICT(table_name) DO UPDATE SET "
                           "players = excluded.players, mode = excluded.mode, end_received = excluded.end_received "
                           "WHERE excluded.end_received >= table_results.end_received",
                           (table, json.dumps(m["players"]), mode, now))
            changes += [("play", key), ("table", table)]       # a finished tile names its winner
        else:
            if last is not None and m["seq"] > last:
                return f"entry {m['seq']} comes after the end of game {gid} (its last entry is {last})"
            new = db.execute("INSERT OR IGNORE INTO actions (table_name, log, game_id, seq, kind, line, at, received, "
                             "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (*key, m["seq"], kind, json.dumps(m["line"]), m["at"], now, m.get("chain")))
            if new.rowcount == 0:
                held = db.execute("SELECT hash FROM actions WHERE table_name = ? AND log = ? AND game_id = ? "
                                  "AND seq = ?", (*key, m["seq"])).fetchone()[0]
                if not _same(held, m.get("chain")):
                    return _forked(gid, m["seq"], log)
            if new.rowcount == 1:
                db.execute("UPDATE plays SET actions = actions + 1, first_received = COALESCE(first_received, ?), "
                           "last_received = ? WHERE table_name = ? AND log = ? AND game_id = ?", (now, now, *key))
            if m["game"] and game is None:
                db.execute("UPDATE plays SET game = ? WHERE table_name = ? AND log = ? AND game_id = ?",
                           (m["game"], *key))
            if high >= 0 and m["seq"] == high + 1:
                self._advance(db, key, high)
        return None

    def _known(self, key: tuple, m: dict) -> tuple[bool, str | None] | None:
        """A delivery the database already holds (QoS 1 redelivers; kiosks offer again what they do not
        see confirmed): answered by a read, with nothing to write or sync. None: it needs the write."""
        row = self._rows("SELECT game, status, last, high, setup_hash, end_hash FROM plays WHERE table_name = ? "
                         "AND log = ? AND game_id = ?", key)
        if not row or (row[0][0] is not None and row[0][0] != m["game"]):
            return None
        _game, status, last, high, setup_hash, end_hash = row[0]
        if m["kind"] == "setup":
            return (True, None) if high >= 0 and _same(setup_hash, m.get("chain")) else None
        if m["kind"] == "end":
            return ((True, None) if status != "in_progress" and last == m["last"] and _same(end_hash, m.get("chain"))
                    else None)
        held = self._rows("SELECT hash FROM actions WHERE table_name = ? AND log = ? AND game_id = ? AND seq = ?",
                          (*key, m["seq"]))
        return (True, None) if held and _same(held[0][0], m.get("chain")) else None

    @staticmethod
    def _origin(db, table: str, log: str, origin: dict, now: float, changes: list) -> None:
        """A kiosk log that took a new id (a copied card, or one restored from an older copy): where it
        came from, kept for the table's tile (the first word stands)."""
        if db.execute("UPDATE logs SET origin = ?, why = ?, first_game = ?, noticed = ? WHERE table_name = ? "
                      "AND log = ? AND origin IS NULL", (origin["log"], origin["why"], origin["first"], now, table,
                                                         log)).rowcount:
            changes.append(("table", table))

    def origins(self, names: list[str] | None = None) -> dict[str, dict]:
        """Per table, the newest of its logs that came from a copied or restored card: ``why``
        (restored | copied), ``first`` (its first game), ``from_table`` (where the original log played),
        ``noticed`` (ISO)."""
        sql = ("SELECT l.table_name, l.why, l.first_game, l.noticed, (SELECT o.table_name FROM logs o WHERE "
               "o.log = l.origin ORDER BY o.updated LIMIT 1) FROM logs l WHERE l.origin IS NOT NULL")
        args: tuple = ()
        if names is not None:
            sql += f" AND l.table_name IN ({', '.join('?' * len(names))})"
            args = tuple(names)
        out: dict[str, dict] = {}
        for table, why, first, noticed, from_table in self._read(sql + " ORDER BY l.noticed", args):
            out[table] = {"why": why if why in schema.ORIGINS else "copied", "first": first,
                          "from_table": from_table or table, "noticed": iso(noticed)}
        return out

    @staticmethod
    def _advance(db, key: tuple, high: int) -> None:
        """Move the play's mark of what it holds with none missing as far as the stored entries go."""
        for (seq,) in db.execute("SELECT seq FROM actions WHERE table_name = ? AND log = ? AND game_id = ? "
                                 "AND seq > ? ORDER BY seq", (*key, high)).fetchall():
            if seq != high + 1:
                break
            high = seq
        db.execute("UPDATE plays SET high = ? WHERE table_name = ? AND log = ? AND game_id = ?", (high, *key))

    def retire(self, names: list[str] | None = None) -> list[str]:
        """Take tables off the page (``None``: every offline one); their plays stay. A table comes back
        when its kiosk next says something live. Returns the names retired."""
        def steps(db) -> list[str]:
            if names is None:
                gone = [n for (n,) in db.execute(
                    "SELECT name FROM tables WHERE online = 0 UNION SELECT table_name FROM rejected "
                    "WHERE table_name != '' AND table_name NOT IN (SELECT name FROM tables)")]
            else:
                gone = [n for n in names if db.execute(
                    "SELECT 1 FROM tables WHERE name = ? UNION SELECT 1 FROM rejected WHERE table_name = ?",
                    (n, n)).fetchone()]
            now = time.time()
            for n in gone:
                db.execute("INSERT OR REPLACE INTO retired VALUES (?, ?)", (n, now))
                db.execute("DELETE FROM tables WHERE name = ?", (n,))
                db.execute("DELETE FROM rejected WHERE table_name = ?", (n,))
            return gone
        gone = self._write(steps)
        with self._news:
            self._changed([("table", n) for n in gone])
        return gone

    def record_rejected(self, table: str | None, reason: str) -> None:
        """A message that was not stored (logged by the caller): counted per table for the page, in
        memory first (no disk work per message: a table sending thousands of bad ones a second costs
        the others nothing) and stored by :meth:`flush_rejected`, which the recorder calls every
        quarter second."""
        with self._news:
            n, _, _ = self._pending_rejected.get(table or "", (0, "", 0.0))
            self._pending_rejected[table or ""] = (n + 1, reason[:300], time.time())

    def flush_rejected(self) -> None:
        """The skipped messages counted since the last call, into the database in one transaction."""
        with self._news:
            pending, self._pending_rejected = self._pending_rejected, {}
        if not pending:
            return
        try:
            self._write(lambda db: db.executemany(
                "INSERT INTO rejected VALUES (?, ?, ?, ?) ON CONFLICT(table_name) DO UPDATE SET "
                "count = count + excluded.count, reason = excluded.reason, at = excluded.at",
                [(t, n, reason, at) for t, (n, reason, at) in pending.items()]))
        except DiskFull:
            with self._news:                 # counted next time
                for t, (n, reason, at) in pending.items():
                    m, _, _ = self._pending_rejected.get(t, (0, "", 0.0))
                    self._pending_rejected[t] = (n + m, reason, at)
            raise
        with self._news:
            self._changed([("table", t) for t in pending])

    # -- the confirmation the kiosks wait for ------------------------------------------------------
    def touched_tables(self) -> list[str]:
        """Tables with news to confirm since the last call (every table the first time, after a start)."""
        with self._news:
            tables = list(self._touched)
        return tables

    def touch_all(self) -> None:
        tables = self._rows("SELECT DISTINCT table_name FROM logs")
        with self._news:
            for (table,) in tables:
                self._touched.setdefault(table, {})

    def confirmation(self, table: str) -> dict:
        """``{"logs": {log: {"through": G, "games": {"7": [seq, end]}}}}`` for the logs of ``table``
        touched since the last confirmation and its newest log: every game 1..G held whole; of the
        games after G (the first CONFIRM_GAMES, and every one touched), the setup and the entries up to
        seq held with none missing, and whether the end is held."""
        with self._news:
            touched = self._touched.pop(table, {})
        newest = self._rows("SELECT log FROM logs WHERE table_name = ? ORDER BY updated DESC LIMIT 1", (table,))
        logs = set(touched) | {log for (log,) in newest}

        def steps(db) -> dict:
            out = {}
            for log in sorted(logs):
                row = db.execute("SELECT through, first_game FROM logs WHERE table_name = ? AND log = ?",
                                 (table, log)).fetchone()
                # a log that took a new id from a copied or restored card begins at its first game
                through = was = max(row[0], row[1] - 1) if row else 0
                for gid, status, high, last in db.execute(
                        "SELECT game_id, status, high, last FROM plays WHERE table_name = ? AND log = ? "
                        "AND game_id > ? ORDER BY game_id", (table, log, through)).fetchall():
                    if gid != through + 1 or status == "in_progress" or last is None or high < last:
                        break
                    through = gid
                if through != was:          # most rounds change nothing: no write, nothing to sync
                    db.execute("UPDATE logs SET through = ? WHERE table_name = ? AND log = ?", (through, table, log))
                wanted = touched.get(log, set())
                games = {}
                upto = through
                for n, (gid, status, high, _last) in enumerate(db.execute(
                        "SELECT game_id, status, high, last FROM plays WHERE table_name = ? AND log = ? "
                        "AND game_id > ? ORDER BY game_id", (table, log, through)).fetchall()):
                    if n < CONFIRM_GAMES:
                        upto = gid
                    if n < CONFIRM_GAMES or gid in wanted:
                        games[str(gid)] = [high, status != "in_progress"]
                out[log] = {"through": through, "games": games, **self._held(db, table, log, through, upto)}
            answer = {"db": self.db_id, "logs": out}
            return {**answer, "replaces": self.replaces} if self.replaces else answer
        try:
            answer = self._write(steps)
            with self._news:
                self._answered.update((table, log) for log in logs)
            return answer
        except DiskFull:
            with self._news:
                for log, gids in touched.items():      # confirmed on the next round
                    self._touched.setdefault(table, {}).setdefault(log, set()).update(gids)
            raise

    @staticmethod
    def _held(db, table: str, log: str, through: int, upto: int) -> dict:
        """What a confirmation says this database does not hold of a log, so a kiosk whose marks came
        from a fuller copy lowers them: ``held``, the newest game it holds anything of (nothing after
        it); ``upto``, up to which game the listing is whole (a game after ``through`` not listed holds
        nothing); ``head``, its newest item ``[game, seq, chain]`` (seq -1: the end), which the kiosk's
        log must hold too, or the card went back to an older copy."""
        row = db.execute("SELECT game_id, status, high, end_hash, setup_hash FROM plays WHERE table_name = ? "
                         "AND log = ? AND (high >= 0 OR actions > 0 OR status != 'in_progress') "
                         "ORDER BY game_id DESC LIMIT 1", (table, log)).fetchone()
        held = db.execute("SELECT COALESCE(MAX(game_id), 0) FROM plays WHERE table_name = ? AND log = ?",
                          (table, log)).fetchone()[0]
        out: dict = {"held": max(held, through), "upto": max(upto, held) if upto == through else upto}
        if row is None:
            return out
        gid, status, high, end_hash, setup_hash = row
        if status != "in_progress":
            out["head"] = [gid, -1, end_hash]
            return out
        top = db.execute("SELECT seq, hash FROM actions WHERE table_name = ? AND log = ? AND game_id = ? "
                         "ORDER BY seq DESC LIMIT 1", (table, log, gid)).fetchone()
        out["head"] = [gid, top[0], top[1]] if top else [gid, 0, setup_hash]
        return out

    # -- the prepared summaries (written with the plays they count) -------------------------------
    _FIGURE_ROW = ("SELECT game, table_name, started, ended, setup_received, end_received, first_received, mode, "
                   "status, figure FROM plays WHERE table_name = ? AND log = ? AND game_id = ?")

    def _refigure(self, db, key: tuple, gone: bool = False) -> bool:
        """Bring the figures up to date with one play (``gone``: it is being removed): what it added
        before is taken away and what it adds now is added. True if anything moved."""
        row = db.execute(self._FIGURE_ROW, key).fetchone()
        if row is None:
            return False
        *fields, old_text = row
        new = None if gone else figure_of(*fields)
        old = json.loads(old_text) if old_text else None
        if new == old:
            return False
        for sign, fig in ((-1, old), (1, new)):
            if fig is None:
                continue
            game, table, hour, seconds = fig
            counts = [("game", game), ("table", table)] + ([("hour", str(hour))] if hour is not None else [])
            for what, k in counts:
                db.execute("INSERT INTO figure_counts VALUES (?, ?, ?) ON CONFLICT(what, key) DO UPDATE SET "
                           "n = n + excluded.n", (what, k, sign))
            if seconds is not None:
                db.execute("INSERT INTO figure_lengths VALUES (?, ?, ?) ON CONFLICT(game, seconds) DO UPDATE SET "
                           "n = n + excluded.n", (game, seconds, sign))
        db.execute("DELETE FROM figure_counts WHERE n <= 0")
        db.execute("DELETE FROM figure_lengths WHERE n <= 0")
        db.execute("UPDATE plays SET figure = ? WHERE table_name = ? AND log = ? AND game_id = ?",
                   (None if new is None else json.dumps(new), *key))
        return True

    def _rebuild_summaries(self, db, tables: list[str] | None = None) -> None:
        """Every summary counted again from the plays (a database from before they were kept; the
        tables whose plays were removed)."""
        if tables is None:
            db.execute("DELETE FROM figure_counts")
            db.execute("DELETE FROM figure_lengths")
            db.execute("UPDATE plays SET figure = NULL")
            for key in db.execute("SELECT table_name, log, game_id FROM plays WHERE status = 'finished'").fetchall():
                self._refigure(db, key)
        names = tables if tables is not None else [t for (t,) in db.execute("SELECT DISTINCT table_name FROM plays")]
        for t in names:
            db.execute("DELETE FROM table_results WHERE table_name = ?", (t,))
            db.execute("INSERT INTO table_results SELECT table_name, players, mode, end_received FROM plays "
                       "WHERE table_name = ? AND status = 'finished' ORDER BY COALESCE(end_received, 0) DESC LIMIT 1",
                       (t,))

    def remove_simulated(self) -> dict:
        """Remove every play a simulated table (``cafe simulate``) recorded, with its entries, from the
        history, figures and exports; tables that played nothing else leave the page (retired: they
        come back if they speak again). Returns ``{"plays": n, "tables": [...]}``."""
        def steps(db) -> dict:
            keys = db.execute("SELECT table_name, log, game_id FROM plays WHERE simulated = 1").fetchall()
            for key in keys:
                self._refigure(db, key, gone=True)
                db.execute("DELETE FROM actions WHERE table_name = ? AND log = ? AND game_id = ?", key)
                db.execute("DELETE FROM plays WHERE table_name = ? AND log = ? AND game_id = ?", key)
            touched = sorted({k[0] for k in keys})
            self._rebuild_summaries(db, touched)
            only = [t for t in touched if not db.execute("SELECT 1 FROM plays WHERE table_name = ?", (t,)).fetchone()]
            now = time.time()
            for t in only:
                db.execute("INSERT OR REPLACE INTO retired VALUES (?, ?)", (t, now))
                db.execute("DELETE FROM tables WHERE name = ?", (t,))
                db.execute("DELETE FROM rejected WHERE table_name = ?", (t,))
                db.execute("DELETE FROM logs WHERE table_name = ?", (t,))
            return {"plays": len(keys), "tables": only, "keys": keys, "touched": touched}
        done = self._write(steps)
        with self._news:
            self._changed([("table", t) for t in done.pop("touched")] + [("play", tuple(k)) for k in done.pop("keys")])
            self.history_version += 1
        return done

    # -- what the page and the API read -----------------------------------------------------------
    def _rows(self, sql: str, args=()) -> list:
        """A read on the recorder's own connection (the recorder's threads only)."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _read(self, sql: str, args=()) -> list:
        """A read for a page: on this thread's own connection, so it never waits for the recorder
        (WAL: it reads the last commit) and never holds it up."""
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            con.execute("PRAGMA query_only=1")
            self._local.con = con
            with self._news:
                self._readers.append(con)
        return con.execute(sql, args).fetchall()

    def tables(self, names: list[str] | None = None) -> list[dict]:
        """Every table (or those named), in the order people count them."""
        sql, args = "SELECT name, online, state, updated FROM tables", ()   # type: tuple[str, tuple]
        bad_sql = "SELECT table_name, count, reason FROM rejected"
        last_sql = "SELECT table_name, players, mode FROM table_results"   # each table's newest finished play
        where = ""
        if names is not None:
            marks = ", ".join("?" * len(names))
            sql, bad_sql, last_sql = (sql + f" WHERE name IN ({marks})", bad_sql + f" WHERE table_name IN ({marks})",
                                      last_sql + f" WHERE table_name IN ({marks})")
            where, args = f" AND r.table_name IN ({marks})", tuple(names)
        out = []
        bad = {t: (n, reason) for t, n, reason in self._read(bad_sql, args)}
        results: dict[str, tuple] = {}
        for t, players, mode in self._read(last_sql, args):
            try:
                results[t] = (schema.results(json.loads(players)) if players else [], mode)
            except (ValueError, TypeError, RecursionError):
                pass
        rows = self._read(sql + " UNION ALL SELECT r.table_name, 0, NULL, r.at FROM rejected r "
                          "WHERE r.table_name != '' AND r.table_name NOT IN (SELECT name FROM tables)" + where,
                          args + args)
        for name, online, state, updated in rows:       # a table seen only through bad messages has a tile too
            try:    # checked when it arrived; checked again, so no stored value can break a page
                s = schema.state(json.loads(state)) if state else {}
            except (ValueError, TypeError, RecursionError):
                s = {}
            n, reason = bad.get(name, (0, None))
            out.append({"table": name, "sort": table_sort_key(name), "online": bool(online), "game": s.get("game"),
                        "status": s.get("status", "unknown"), "players": s.get("players", []),
                        "turn": s.get("turn"), "round": s.get("round"), "started": iso(s.get("started")),
                        "health": s.get("health", {}), "updated": iso(updated), "rejected": n,
                        "rejected_reason": reason})
            if out[-1]["status"] == "finished" and name in results:
                out[-1]["result"], out[-1]["mode"] = results[name]
        origins = self.origins(names)
        for tb in out:
            if tb["table"] in origins:
                tb["origin"] = origins[tb["table"]]
        return sorted(out, key=lambda tb: tb["sort"])

    def plays(self, limit: int | None = None, offset: int = 0, keys: list[tuple] | None = None,
              table: str | None = None, play: str | None = None, since: float | None = None,
              until: float | None = None, finished: bool = False) -> list[dict]:
        """The plays, newest first: all of them, a page (``limit`` from ``offset``), or those of ``keys``
        ((table, log, game_id) as :meth:`changes_since` names them); only one ``table``'s, one ``play``
        (its id, as the page shows it), those that started (the kiosk's clock) from ``since`` to
        before ``until`` (Unix times), or only finished ones."""
        # whether a play still in progress will go on (its kiosk online, no later game of its log): not
        # asked of finished plays (an export of a table's or a year's reads only the plays themselves)
        going_on = ("NULL, NULL" if finished else
                    "(SELECT online FROM tables t WHERE t.name = p.table_name), "
                    "(SELECT MAX(game_id) FROM plays q WHERE q.table_name = p.table_name AND q.log = p.log)")
        sql = ("SELECT table_name, log, game_id, game, status, started, ended, players, setup_received, "
               f"end_received, high, last, actions, first_received, mode, last_received, {going_on}, simulated "
               "FROM plays p")
        where: list[str] = []
        args: tuple = ()
        if keys is not None:
            if not keys:
                return []
            where.append("(table_name, log, game_id) IN (VALUES " + ", ".join(["(?, ?, ?)"] * len(keys)) + ")")
            args = tuple(v for k in keys for v in k)
        if table is not None:
            where.append("table_name = ?")
            args += (table,)
        if play is not None:
            t, log8, gid = (play.rsplit("-", 2) + ["", ""])[:3]
            where.append("table_name = ? AND substr(log, 1, 8) = ? AND game_id = ?")
            args += (t, log8, int(gid) if gid.isdigit() else -1)
        if since is not None:        # when it started, as its kiosk says (a backlog arrives days later)
            where.append("COALESCE(started, setup_received, first_received, 0) >= ?")
            args += (since,)
        if until is not None:
            where.append("COALESCE(started, setup_received, first_received, 0) < ?")
            args += (until,)
        if finished:
            where.append("status = 'finished'")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY COALESCE(setup_received, started, 0) DESC, table_name"
        if limit is not None or offset:
            sql += f" LIMIT {-1 if limit is None else int(limit)} OFFSET {int(offset)}"
        out = []
        now = time.time()
        for t, log, gid, game, status, started, ended, players, s_rx, e_rx, high, last, n, first_rx, mode, \
                last_rx, online, newest, simulated in self._read(sql, args):
            if status == "in_progress" and (newest > gid or (
                    not online and now - (last_rx or s_rx or first_rx or now) > ABANDONED_AFTER_S)):
                # a later game on the same kiosk, or a kiosk gone quiet for an hour: the play will not go on
                # (shown so, never stored: entries that still come take it back to in_progress)
                status = "abandoned"
            started, ended = _times(started, ended, s_rx or first_rx, e_rx)
            try:
                names = schema.results(json.loads(players)) if players else []
            except (ValueError, TypeError, RecursionError):
                names = []
            expected = last if last is not None else None
            out.append({"table": t, "game": game if isinstance(game, str) else None, "mode": mode,
                        "status": status if status in schema.STATUSES else "unknown",
                        "started": iso(started), "ended": iso(ended), "actions": n, "players": names,
                        "id": f"{t}-{log[:8]}-{gid}", "key": (t, log, gid), "simulated": bool(simulated),
                        "sort": f"{s_rx or started or 0:017.3f}",
                        "duration_s": None if started is None or ended is None else ended - started,
                        "missing": (0 if high >= 0 else 1) + (max(0, expected - n) if expected is not None else 0)})
        return out

    def plays_in_pages(self, **filters) -> Iterator[list[dict]]:
        """:meth:`plays` a page of :data:`PLAYS_PAGE` at a time (an export of a year of plays never
        holds it all, nor one long read)."""
        offset = 0
        while True:
            page = self.plays(PLAYS_PAGE, offset, **filters)
            if page:
                yield page
            if len(page) < PLAYS_PAGE:
                return
            offset += PLAYS_PAGE

    def simulated_plays(self) -> int:
        return self._read("SELECT COUNT(*) FROM plays WHERE simulated = 1")[0][0]

    def figures(self) -> dict:
        """Read from the prepared summaries (kept as the plays are stored), once per change of the plays."""
        version = self.plays_version
        cached = self._figures
        if cached is not None and cached[0] == version:
            return cached[1]
        per: dict[str, dict[str, int]] = {"game": {}, "table": {}, "hour": {}}
        for what, key, n in self._read("SELECT what, key, n FROM figure_counts"):
            if what in per:
                per[what][key] = n
        lengths: dict[str, list[tuple[int, int]]] = {}
        for game, seconds, n in self._read("SELECT game, seconds, n FROM figure_lengths ORDER BY game, seconds"):
            lengths.setdefault(game, []).append((seconds, n))
        hours = [per["hour"].get(str(h), 0) for h in range(24)]
        figures = {"plays": sum(per["game"].values()),
                   "per_game": dict(sorted(per["game"].items(), key=lambda kv: (-kv[1], kv[0]))),
                   "per_table": dict(sorted(per["table"].items(), key=lambda kv: table_sort_key(kv[0]))),
                   "median_minutes": {g: _weighted_median(v) / 60 for g, v in sorted(lengths.items())},
                   "hours": hours}
        self._figures = (version, figures)
        return figures

    def _checkpoints(self) -> None:
        """Every CHECKPOINT_EVERY_S, the WAL into the database on its own connection (PASSIVE: it waits
        for no reader or writer, and what it cannot copy now it copies next time)."""
        try:
            con = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
        except sqlite3.Error:
            log.exception("the dashboard's database checkpointer did not start; SQLite's own takes over")
            with self._lock:
                self._db.execute("PRAGMA wal_autocheckpoint=1000")
            return
        try:
            while not self._closing.wait(CHECKPOINT_EVERY_S):
                try:
                    con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as e:       # a full disk: said by the writer; tried again next time
                    log.debug("checkpoint: %s", e)
        finally:
            con.close()

    def close(self) -> None:
        self._closing.set()
        self._checkpointer.join(10)
        try:
            self.flush_rejected()
        except (DiskFull, sqlite3.Error):
            log.warning("the last skipped messages were not counted (the database could not be written)")
        with self._news:
            readers, self._readers = self._readers, []
        for con in readers:
            con.close()
        with self._lock:
            self._db.close()


def _same(held: str | None, chain: str | None) -> bool:
    """The same item of the log, as far as the chain tells (an item from before the chain tells nothing)."""
    return held is None or chain is None or held == chain


def _forked(gid: int, seq: int, log: str) -> str:
    what = "the setup" if seq == 0 else "the end" if seq < 0 else f"entry {seq}"
    return (f"{what} of game {gid} of log {log[:8]} is not the one held: another history under the same log "
            "(an SD card restored from an older copy, or copied); its kiosk sends it under a new log")

def figure_of(game, table, started, ended, s_rx, e_rx, first_rx, mode, status) -> list | None:
    """What one play adds to the figures: [game and mode, table, the local hour it started, its length
    in whole seconds]; None for a play that is not finished."""
    if status != "finished":
        return None
    started, ended = _times(started, ended, s_rx or first_rx, e_rx)
    hour = datetime.fromtimestamp(started).hour if started is not None and iso(started) else None
    seconds = round(ended - started) if hour is not None and ended is not None else None
    return [game_key(game, mode), table, hour, seconds]


def _weighted_median(values: list[tuple[int, int]]) -> float:
    """The median of sorted (value, how many) pairs, as statistics.median of the values repeated."""
    total = sum(n for _, n in values)
    wanted = [(total - 1) // 2, total // 2]
    found: list[float] = []
    seen = 0
    for value, n in values:
        while wanted and wanted[0] < seen + n:
            found.append(value)
            wanted.pop(0)
        seen += n
    return sum(found) / len(found)


def _plausible(t: object) -> bool:
    return isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and \
        schema.EARLIEST <= t <= schema.LATEST


def _times(started, ended, started_rx, ended_rx) -> tuple[float | None, float | None]:
    """A play's start and end: the kiosk's clock when it is believable (set, not ahead of the moment
    the dashboard received the item, and a play of 0 to 24 hours), else the dashboard's receive times."""
    kiosk_ok = (_plausible(started) and (started_rx is None or started <= started_rx + CLOCK_SLACK_S)
                and (ended is None or (_plausible(ended) and (ended_rx is None or ended <= ended_rx + CLOCK_SLACK_S)
                                       and 0 <= ended - started <= LONGEST_PLAY_S)))
    if kiosk_ok:
        return started, ended
    if started_rx is None:
        return None, None
    if ended_rx is not None and not 0 <= ended_rx - started_rx <= LONGEST_PLAY_S:
        return started_rx, None
    return started_rx, ended_rx
