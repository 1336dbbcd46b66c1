"""The game log: every game's setup line and every confirmed action, in SQLite.

- Crash-safe: WAL journal with ``synchronous=FULL``; :meth:`GameLog.append` returns only after the
  line is committed to disk, so an action the screen shows as done survives a power cut.
- Nothing is ever deleted: UNDO appends an ``undo`` entry that retracts the newest action still in
  force (again and again, back to the setup). The lines in force are what the engine replays; the
  rule is written once, in :func:`in_force`, and everything that reads a log uses it.
- A game is ``in_progress`` until ``finish`` (with its final summary) or ``abandon``; after a restart
  :meth:`in_progress` hands back the newest unfinished game so the kiosk resumes it.
Lines are stored as the JSON objects of cli.md's log format (docs/log-format.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from companion.errors import StoreError, present

T = TypeVar("T")
SCHEMA_VERSION = 3
# 2: the café's outbox tables (companion/cafe/outbox.py) live here, under the log's own version; their
#    marks now mean "the dashboard confirmed", no longer "the broker acknowledged" (version 1's
#    cafe_outbox is dropped when a version-1 log is opened, so its games are offered to the dashboard
#    once more and it confirms what it holds)
# 3: the log's chain (each setup, entry and end carries a hash of itself and of everything written before
#    it) and the machine each game was written on: a copied or restored card is told from a continuation
MIN_FREE_MB = 100            # free disk below this: the next action may not be stored (doctor, café health)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    game     TEXT NOT NULL,
    setup    TEXT NOT NULL,
    status   TEXT NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'finished', 'abandoned')),
    summary  TEXT,
    started  REAL NOT NULL,
    ended    REAL,
    machine  TEXT,                    -- the machine that started it (machine_id())
    hash     TEXT,                    -- the chain after its setup
    end_hash TEXT                     -- the chain after its end
);
CREATE TABLE IF NOT EXISTS entries (
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    line     TEXT,
    at       REAL NOT NULL,
    hash     TEXT,                    -- the chain after this entry
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS cafe_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cafe_confirmed (
    game_id  INTEGER PRIMARY KEY REFERENCES games(id),
    seq      INTEGER NOT NULL,        -- the dashboard holds seq 0 (the setup) .. this, none missing
    ended    INTEGER NOT NULL DEFAULT 0,   -- ... and the game's end
    done     INTEGER NOT NULL DEFAULT 0    -- all of it: nothing of this game is offered again
);
"""


# columns added by version 3 to a log written before
_CHAIN_COLUMNS = (("games", "machine"), ("games", "hash"), ("games", "end_hash"), ("entries", "hash"))
MACHINE_ENV = "COMPANION_MACHINE_ID"


def machine_id() -> str:
    """What tells this machine from another, even when its SD card is a copy of another's: the board's
    serial number (a Raspberry Pi's, burnt into the chip) with /etc/machine-id, hashed; or
    $COMPANION_MACHINE_ID where neither tells machines apart (a container, a test)."""
    if os.environ.get(MACHINE_ENV):
        return hashlib.sha256(os.environ[MACHINE_ENV].encode()).hexdigest()[:16]
    parts = []
    for path in ("/sys/firmware/devicetree/base/serial-number", "/etc/machine-id"):
        try:
            parts.append(Path(path).read_text(encoding="utf-8", errors="replace").strip("\x00 \n"))
        except OSError:
            parts.append("")
    if not parts[0]:
        try:
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
                if line.lower().startswith("serial"):
                    parts[0] = line.partition(":")[2].strip()
        except OSError:
            pass
    if not any(parts):
        import socket
        parts.append(socket.gethostname())
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def chained(head: str, *what) -> str:
    """The chain after one more write: a hash of the chain so far and of what was written."""
    return hashlib.sha256("\n".join(map(str, (head, *what))).encode()).hexdigest()[:32]


def _new_id() -> str:
    import uuid
    return uuid.uuid4().hex


def in_force(entries) -> list[dict]:
    """The undo rule: the action lines still in force after ``entries`` ((kind, line) pairs in seq
    order, as stored). An ``undo`` retracts the newest action still in force (none left: nothing)."""
    lines: list[dict] = []
    for kind, line in entries:
        if kind == "action":
            lines.append(line)
        elif kind == "undo" and lines:
            lines.pop()
    return lines


def transaction(db: sqlite3.Connection, steps: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``steps`` in one transaction on ``db`` (a connection opened with isolation_level=None):
    committed when they return, rolled back when they raise; what they return."""
    db.execute("BEGIN IMMEDIATE")
    try:
        result = steps(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:      # SQLite already rolled back after some errors (disk full)
            db.execute("ROLLBACK")
        raise
    return result


class GameLog:
    def __init__(self, path: str | Path, machine: str | None = None, wait_s: float = 5.0):
        """``wait_s``: how long a write waits for another connection's commit to the same file (the
        kiosk's session and the café's publisher each have one) before it fails as locked."""
        self.path = Path(path)
        self.machine = machine or machine_id()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                       timeout=wait_s)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer companion (schema {version}); update the program")
            if version == 1:
                self._db.execute("DROP TABLE IF EXISTS cafe_outbox")
            self._db.executescript(_SCHEMA)
            for table, column in _CHAIN_COLUMNS:
                if column not in {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
            if version != SCHEMA_VERSION:      # a write (and a sync) only when it changes
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            ok = self._db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as e:
            raise StoreError(self._explain(e)) from e
        if ok != "ok":
            raise StoreError(f"{self.path}: the database is damaged ({ok}); move it aside to start a new one")

    def _explain(self, e: sqlite3.Error) -> str:
        text = str(e)
        if "disk is full" in text:
            return f"{self.path}: the disk is full ({text}); nothing new was saved"
        if "disk I/O" in text:
            return f"{self.path}: the disk failed to write ({text}); nothing new was saved"
        if "not a database" in text or "malformed" in text:
            return f"{self.path}: not a readable game database ({text}); move it aside to start a new one"
        if "readonly" in text or "unable to open" in text:
            return f"{self.path}: cannot write there ({text})"
        return f"{self.path}: {text}"

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The connection, held by this thread alone; a SQLite error comes out as a StoreError that says
        what went wrong."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as e:
                raise StoreError(self._explain(e)) from e

    def _write(self, sql_steps: Callable[[sqlite3.Connection], T], durable: bool = True) -> T:
        """Run statements in one transaction, committed (and synced) before returning. Not ``durable``:
        committed in order but not synced (a power cut may take it back, never a write before it), for
        what costs only a repeat when lost: the café's marks of what the dashboard holds. A kiosk's
        actions are synced; a thousand tables on one disk must not sync their marks too."""
        with self._locked() as db:
            if durable:
                return transaction(db, sql_steps)
            db.execute("PRAGMA synchronous=NORMAL")      # WAL: the commit is written, the sync left to the next
            try:
                return transaction(db, sql_steps)
            finally:
                db.execute("PRAGMA synchronous=FULL")

    def _read(self, sql: str, args=()) -> list:
        with self._locked() as db:
            return db.execute(sql, args).fetchall()

    # -- writing ---------------------------------------------------------------------------------
    def new_game(self, setup_line: dict) -> int:
        text = json.dumps(setup_line, ensure_ascii=False)

        def step(db):
            gid = db.execute("INSERT INTO games (game, setup, started, machine) VALUES (?, ?, ?, ?)",
                             (str(setup_line.get("game")), text, time.time(), self.machine)).lastrowid
            db.execute("UPDATE games SET hash = ? WHERE id = ?", (self._chain(db, "setup", gid, text), gid))
            return gid
        return present(self._write(step), "the new game's row id")     # an INSERT always sets it

    @staticmethod
    def _chain(db, *what) -> str:
        """The chain after this write (kept in the same transaction as the write)."""
        row = db.execute("SELECT value FROM cafe_meta WHERE key = 'chain'").fetchone()
        head = chained(row[0] if row else "", *what)
        db.execute("INSERT OR REPLACE INTO cafe_meta VALUES ('chain', ?)", (head,))
        return head

    def append(self, game_id: int, line: dict) -> None:
        """Store one confirmed action; durable when this returns."""
        text = json.dumps(line, ensure_ascii=False)

        def step(db):
            self._check_open(db, game_id)
            seq = self._next_seq(db, game_id)
            db.execute("INSERT INTO entries (game_id, seq, kind, line, at, hash) VALUES (?, ?, 'action', ?, ?, ?)",
                       (game_id, seq, text, time.time(), self._chain(db, "action", game_id, seq, text)))
        self._write(step)

    def undo(self, game_id: int) -> dict | None:
        """Retract the newest action still in force; returns it (None when only the setup is left)."""
        def step(db):
            self._check_open(db, game_id)
            lines = self._in_force(db, game_id)
            if not lines:
                return None
            seq = self._next_seq(db, game_id)
            db.execute("INSERT INTO entries (game_id, seq, kind, line, at, hash) VALUES (?, ?, 'undo', NULL, ?, ?)",
                       (game_id, seq, time.time(), self._chain(db, "undo", game_id, seq)))
            return lines[-1]
        return self._write(step)

    def finish(self, game_id: int, summary: dict) -> None:
        self._end(game_id, "finished", summary)

    def abandon(self, game_id: int) -> None:
        self._end(game_id, "abandoned", None)

    def _end(self, game_id: int, status: str, summary: dict | None) -> None:
        text = None if summary is None else json.dumps(summary, ensure_ascii=False, default=str)
        self._write(lambda db: db.execute(
            "UPDATE games SET status = ?, summary = ?, ended = ?, end_hash = ? WHERE id = ?",
            (status, text, time.time(), self._chain(db, "end", game_id, status, text), game_id)))

    @staticmethod
    def _check_open(db, game_id: int) -> None:
        row = db.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"there is no game {game_id} in the log")
        if row[0] != "in_progress":
            raise StoreError(f"game {game_id} is {row[0]}; it takes no more actions")

    @staticmethod
    def _next_seq(db, game_id: int) -> int:
        return db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE game_id = ?", (game_id,)).fetchone()[0]

    @staticmethod
    def _in_force(db, game_id: int) -> list[dict]:
        rows = db.execute("SELECT kind, line FROM entries WHERE game_id = ? ORDER BY seq", (game_id,))
        return in_force((kind, json.loads(text) if text else None) for kind, text in rows)

    # -- reading ---------------------------------------------------------------------------------
    def setup(self, game_id: int) -> dict:
        rows = self._read("SELECT setup FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"{self.path}: there is no game {game_id}")
        return json.loads(rows[0][0])

    def lines(self, game_id: int) -> list[dict]:
        """The actions in force (undone ones left out), oldest first."""
        with self._locked() as db:
            return self._in_force(db, game_id)

    def entries(self, game_id: int) -> list[tuple[str, dict | None]]:
        """Everything stored for a game, undo entries included: [("action", line), ("undo", None), ...]."""
        rows = self._read("SELECT kind, line FROM entries WHERE game_id = ? ORDER BY seq", (game_id,))
        return [(kind, json.loads(text) if text else None) for kind, text in rows]

    def entries_after(self, game_id: int, seq: int, limit: int = -1) -> list[tuple[int, str, dict | None, float]]:
        """(seq, kind, line, at) of the entries after ``seq``, oldest first (at most ``limit``)."""
        rows = self._read("SELECT seq, kind, line, at FROM entries WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                          (game_id, seq, limit))
        return [(n, kind, json.loads(text) if text else None, at) for n, kind, text, at in rows]

    def data_version(self) -> int:
        """Changes whenever another connection commits to this file."""
        return self._read("PRAGMA data_version")[0][0]

    def newest_game(self) -> dict | None:
        rows = self._read("SELECT id, game, setup, status, started FROM games ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        gid, game, setup, status, started = rows[0]
        return {"id": gid, "game": game, "setup": json.loads(setup), "status": status, "started": started}

    # -- the café's outbox (companion/cafe/outbox.py): what the dashboard has confirmed -------------
    def cafe_identity(self) -> dict:
        """This log's name for the dashboard: ``{"log", "first", "origin"}``. A log takes a random id on
        the machine where it is first written (:func:`machine_id`); opened on another machine (a copied
        SD card) it takes a new one, for the games from ``first`` on (the ones before are the original
        card's), with ``origin`` naming the log it was copied from."""
        with self._locked() as db:         # most starts change nothing: read, and write only when needed
            meta = self._meta(db)
            if meta.get("log_id") and meta.get("log_machine") == self.machine:
                return self._identity(db)

        def step(db):
            meta = self._meta(db)
            if "log_id" not in meta:
                self._set_meta(db, log_id=_new_id(), log_machine=self.machine, log_first="1")
            elif "log_machine" not in meta:          # a log from before machines were kept: this one's
                self._set_meta(db, log_machine=self.machine)
            elif meta["log_machine"] != self.machine:
                newest = db.execute("SELECT id, status FROM games ORDER BY id DESC LIMIT 1").fetchone()
                first = 1 if newest is None else newest[0] + (newest[1] != "in_progress")
                mine = db.execute("SELECT MIN(id) FROM games WHERE machine = ?", (self.machine,)).fetchone()[0]
                self._fork(db, "copied", min(first, mine or first))
            return self._identity(db)
        return self._write(step)

    def cafe_fork(self, why: str) -> dict:
        """A new id for this log from its oldest game the dashboard does not hold whole: the dashboard
        holds entries of this log's id that this log does not (an SD card restored from an older copy),
        so what it writes from now on is another history."""
        def step(db):
            first = int(self._meta(db).get("log_first", "1"))
            row = db.execute("SELECT MIN(g.id) FROM games g LEFT JOIN cafe_confirmed c ON c.game_id = g.id "
                             "WHERE g.id >= ? AND COALESCE(c.done, 0) = 0", (first,)).fetchone()
            top = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()[0]
            self._fork(db, why, row[0] if row[0] is not None else top)
            return self._identity(db)
        return self._write(step)

    def _fork(self, db, why: str, first: int) -> None:
        old = self._meta(db).get("log_id", "")
        db.execute("DELETE FROM cafe_confirmed WHERE game_id >= ?", (first,))
        self._set_meta(db, log_id=_new_id(), log_machine=self.machine, log_first=str(first), log_parent=old,
                       log_why=why)

    @staticmethod
    def _identity(db) -> dict:
        meta = GameLog._meta(db)
        origin = ({"log": meta["log_parent"], "why": meta["log_why"], "first": int(meta["log_first"])}
                  if meta.get("log_parent") else None)
        return {"log": meta["log_id"], "first": int(meta.get("log_first", "1")), "origin": origin}

    @staticmethod
    def _meta(db) -> dict[str, str]:
        return dict(db.execute("SELECT key, value FROM cafe_meta").fetchall())

    @staticmethod
    def _set_meta(db, **values: str) -> None:
        db.executemany("INSERT OR REPLACE INTO cafe_meta VALUES (?, ?)", values.items())

    def cafe_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM cafe_meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def cafe_chain_at(self, game_id: int, seq: int) -> tuple[bool, str | None]:
        """Whether this log holds the item (seq 0: the setup, -1: the end), and its chain hash."""
        if seq == 0:
            rows = self._read("SELECT hash FROM games WHERE id = ?", (game_id,))
        elif seq < 0:
            rows = self._read("SELECT end_hash FROM games WHERE id = ? AND status != 'in_progress'", (game_id,))
        else:
            rows = self._read("SELECT hash FROM entries WHERE game_id = ? AND seq = ?", (game_id, seq))
        return (True, rows[0][0]) if rows else (False, None)

    def cafe_items_after(self, game_id: int, seq: int, limit: int = -1) -> list[tuple]:
        """(seq, kind, line, at, chain hash) of the entries after ``seq``, oldest first (at most ``limit``)."""
        rows = self._read("SELECT seq, kind, line, at, hash FROM entries WHERE game_id = ? AND seq > ? ORDER BY seq "
                          "LIMIT ?", (game_id, seq, limit))
        return [(n, kind, json.loads(text) if text else None, at, h) for n, kind, text, at, h in rows]

    def cafe_marks_after(self, game_id: int) -> dict[int, tuple[int, bool]]:
        """The dashboard's marks of the games after ``game_id``: {game: (seq, end held)}."""
        rows = self._read("SELECT game_id, seq, ended FROM cafe_confirmed WHERE game_id > ?", (game_id,))
        return {gid: (seq, bool(ended)) for gid, seq, ended in rows}

    def cafe_set_marks(self, marks: dict[int, tuple[int, bool]], forget: list[int], through: int,
                       first: int = 1) -> None:
        """The dashboard's word, exactly (lower as well as higher: a database restored from an older copy
        holds less than it said before): games ``first``..``through`` whole, the games of ``marks`` up to
        their seq (and their end), nothing of the games in ``forget``."""
        def step(db):
            if through >= first:
                self._through(db, through, first)
            db.executemany("DELETE FROM cafe_confirmed WHERE game_id = ?", [(g,) for g in forget])
            for gid, (seq, ended) in marks.items():
                mark = self._mark(db, gid, seq, ended)
                if mark is not None:
                    db.execute("INSERT OR REPLACE INTO cafe_confirmed (game_id, seq, ended, done) VALUES (?, ?, ?, ?)",
                               (gid, *mark))
        self._write(step, durable=False)

    @staticmethod
    def _mark(db, gid: int, seq: int, ended: bool) -> tuple[int, int, int] | None:
        """(seq, ended, done) of a dashboard's mark as this log can hold it (None: no such game): no seq
        beyond the game's last, no end of a game still going; done when it holds all of it."""
        row = db.execute("SELECT status, (SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?) "
                         "FROM games WHERE id = ?", (gid, gid)).fetchone()
        if row is None:
            return None
        status, last = row
        seq, ended = min(seq, last), ended and status != "in_progress"
        return seq, int(ended), int(ended and seq >= last)

    def cafe_heard(self, marks_db: str | None = None, registered: str | None = None) -> None:
        """A dashboard's database heard, in one write: ``registered``, the database the café counts, kept;
        ``marks_db``, whose word the marks are from now on (the marks of another are forgotten: this
        one says itself what it holds)."""
        def step(db):
            if registered is not None:
                self._set_meta(db, dashboard_db=registered)
            if marks_db is not None:
                db.execute("DELETE FROM cafe_confirmed")
                self._set_meta(db, marks_db=marks_db)
        self._write(step)

    @staticmethod
    def _through(db, through: int, first: int = 1) -> None:
        db.execute("INSERT INTO cafe_confirmed (game_id, seq, ended, done) "
                   "SELECT g.id, (SELECT COALESCE(MAX(e.seq), 0) FROM entries e WHERE e.game_id = g.id), 1, 1 "
                   "FROM games g LEFT JOIN cafe_confirmed c ON c.game_id = g.id "
                   "WHERE g.id BETWEEN ? AND ? AND g.status != 'in_progress' AND COALESCE(c.done, 0) = 0 "
                   "ON CONFLICT(game_id) DO UPDATE SET seq = excluded.seq, ended = 1, done = 1", (first, through))

    def unconfirmed_games(self, after: int = 0, limit: int = 64) -> list[dict]:
        """Games after id ``after`` the dashboard has not confirmed whole, oldest first, with what it
        has confirmed of each (seq -1: not even the setup)."""
        rows = self._read(
            "SELECT g.id, g.game, g.setup, g.status, g.summary, g.started, g.ended, COALESCE(c.seq, -1), "
            "COALESCE(c.ended, 0), (SELECT COALESCE(MAX(e.seq), 0) FROM entries e WHERE e.game_id = g.id), "
            "g.hash, g.end_hash FROM games g LEFT JOIN cafe_confirmed c ON c.game_id = g.id "
            "WHERE g.id > ? AND COALESCE(c.done, 0) = 0 ORDER BY g.id LIMIT ?", (after, limit))
        return [{"id": gid, "game": game, "setup": json.loads(setup), "status": status,
                 "summary": json.loads(summary) if summary else None, "started": started, "ended": ended,
                 "confirmed": seq, "end_confirmed": bool(end), "last": last, "hash": h, "end_hash": end_h}
                for gid, game, setup, status, summary, started, ended, seq, end, last, h, end_h in rows]

    def confirm(self, marks: dict[int, tuple[int, bool]], through: int = 0) -> None:
        """Record the dashboard's confirmation: every game up to ``through`` whole, and of the games in
        ``marks`` the seqs up to the first number and (second) their ends. Marks only ever move forward;
        a game the dashboard holds whole (its end and every entry) is done."""
        def step(db):
            if through > 0:
                self._through(db, through)
            for gid, (seq, ended) in marks.items():
                mark = self._mark(db, gid, seq, ended)
                if mark is not None:
                    db.execute("INSERT INTO cafe_confirmed (game_id, seq, ended, done) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT(game_id) DO UPDATE SET seq = MAX(seq, excluded.seq), "
                               "ended = MAX(ended, excluded.ended), done = MAX(done, excluded.done)", (gid, *mark))
        self._write(step, durable=False)

    def in_progress(self) -> tuple[int, dict, list[dict]] | None:
        """The newest unfinished game: (id, setup line, actions in force), or None."""
        rows = self._read("SELECT id FROM games WHERE status = 'in_progress' ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        game_id = rows[0][0]
        return game_id, self.setup(game_id), self.lines(game_id)

    def games(self) -> list[dict]:
        rows = self._read("SELECT g.id, g.game, g.status, g.started, g.ended, g.summary, "
                          "(SELECT COUNT(*) FROM entries e WHERE e.game_id = g.id) FROM games g ORDER BY g.id")
        return [{"id": i, "game": game, "status": status, "started": started, "ended": ended,
                 "summary": json.loads(summary) if summary else None, "entries": n}
                for i, game, status, started, ended, summary, n in rows]

    def export(self, game_id: int) -> str:
        """The game as a JSONL log for ``companion replay``: the setup, then the actions in force."""
        lines = [self.setup(game_id)] + self.lines(game_id)
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)

    def close(self) -> None:
        with self._lock:
            self._db.close()
