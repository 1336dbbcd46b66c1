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

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from companion.errors import StoreError, present

T = TypeVar("T")
SCHEMA_VERSION = 2
# 2: the café's outbox tables (companion/cafe/outbox.py) live here, under the log's own version; their
#    marks now mean "the dashboard confirmed", no longer "the broker acknowledged" (version 1's
#    cafe_outbox is dropped when a version-1 log is opened, so its games are offered to the dashboard
#    once more and it confirms what it holds)
MIN_FREE_MB = 100            # free disk below this: the next action may not be stored (doctor, café health)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    game     TEXT NOT NULL,
    setup    TEXT NOT NULL,
    status   TEXT NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'finished', 'abandoned')),
    summary  TEXT,
    started  REAL NOT NULL,
    ended    REAL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    line     TEXT,
    at       REAL NOT NULL,
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
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer companion (schema {version}); update the program")
            if version == 1:
                self._db.execute("DROP TABLE IF EXISTS cafe_outbox")
            self._db.executescript(_SCHEMA)
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

    def _write(self, sql_steps: Callable[[sqlite3.Connection], T]) -> T:
        """Run statements in one transaction, committed (and synced) before returning."""
        with self._locked() as db:
            return transaction(db, sql_steps)

    def _read(self, sql: str, args=()) -> list:
        with self._locked() as db:
            return db.execute(sql, args).fetchall()

    # -- writing ---------------------------------------------------------------------------------
    def new_game(self, setup_line: dict) -> int:
        text = json.dumps(setup_line, ensure_ascii=False)
        row_id = self._write(lambda db: db.execute("INSERT INTO games (game, setup, started) VALUES (?, ?, ?)",
                                                   (str(setup_line.get("game")), text, time.time())).lastrowid)
        return present(row_id, "the new game's row id")     # an INSERT always sets it

    def append(self, game_id: int, line: dict) -> None:
        """Store one confirmed action; durable when this returns."""
        text = json.dumps(line, ensure_ascii=False)

        def step(db):
            self._check_open(db, game_id)
            db.execute("INSERT INTO entries (game_id, seq, kind, line, at) VALUES (?, ?, 'action', ?, ?)",
                       (game_id, self._next_seq(db, game_id), text, time.time()))
        self._write(step)

    def undo(self, game_id: int) -> dict | None:
        """Retract the newest action still in force; returns it (None when only the setup is left)."""
        def step(db):
            self._check_open(db, game_id)
            lines = self._in_force(db, game_id)
            if not lines:
                return None
            db.execute("INSERT INTO entries (game_id, seq, kind, line, at) VALUES (?, ?, 'undo', NULL, ?)",
                       (game_id, self._next_seq(db, game_id), time.time()))
            return lines[-1]
        return self._write(step)

    def finish(self, game_id: int, summary: dict) -> None:
        self._end(game_id, "finished", summary)

    def abandon(self, game_id: int) -> None:
        self._end(game_id, "abandoned", None)

    def _end(self, game_id: int, status: str, summary: dict | None) -> None:
        text = None if summary is None else json.dumps(summary, ensure_ascii=False, default=str)
        self._write(lambda db: db.execute("UPDATE games SET status = ?, summary = ?, ended = ? WHERE id = ?",
                                          (status, text, time.time(), game_id)))

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
    def cafe_log_id(self) -> str:
        """A random id naming this log file for the dashboard (a new Pi, a wiped card: new plays)."""
        import uuid

        def step(db):
            db.execute("INSERT OR IGNORE INTO cafe_meta VALUES ('log_id', ?)", (uuid.uuid4().hex,))
            return db.execute("SELECT value FROM cafe_meta WHERE key = 'log_id'").fetchone()[0]
        return self._write(step)

    def unconfirmed_games(self, after: int = 0, limit: int = 64) -> list[dict]:
        """Games after id ``after`` the dashboard has not confirmed whole, oldest first, with what it
        has confirmed of each (seq -1: not even the setup)."""
        rows = self._read(
            "SELECT g.id, g.game, g.setup, g.status, g.summary, g.started, g.ended, COALESCE(c.seq, -1), "
            "COALESCE(c.ended, 0), (SELECT COALESCE(MAX(e.seq), 0) FROM entries e WHERE e.game_id = g.id) "
            "FROM games g LEFT JOIN cafe_confirmed c ON c.game_id = g.id "
            "WHERE g.id > ? AND COALESCE(c.done, 0) = 0 ORDER BY g.id LIMIT ?", (after, limit))
        return [{"id": gid, "game": game, "setup": json.loads(setup), "status": status,
                 "summary": json.loads(summary) if summary else None, "started": started, "ended": ended,
                 "confirmed": seq, "end_confirmed": bool(end), "last": last}
                for gid, game, setup, status, summary, started, ended, seq, end, last in rows]

    def confirm(self, marks: dict[int, tuple[int, bool]], through: int = 0) -> None:
        """Record the dashboard's confirmation: every game up to ``through`` whole, and of the games in
        ``marks`` the seqs up to the first number and (second) their ends. Marks only ever move forward;
        a game the dashboard holds whole (its end and every entry) is done."""
        def step(db):
            if through > 0:
                db.execute("INSERT INTO cafe_confirmed (game_id, seq, ended, done) "
                           "SELECT g.id, (SELECT COALESCE(MAX(e.seq), 0) FROM entries e WHERE e.game_id = g.id), 1, 1 "
                           "FROM games g LEFT JOIN cafe_confirmed c ON c.game_id = g.id "
                           "WHERE g.id <= ? AND g.status != 'in_progress' AND COALESCE(c.done, 0) = 0 "
                           "ON CONFLICT(game_id) DO UPDATE SET seq = excluded.seq, ended = 1, done = 1", (through,))
            for gid, (seq, ended) in marks.items():
                row = db.execute("SELECT status, (SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?) "
                                 "FROM games WHERE id = ?", (gid, gid)).fetchone()
                if row is None:
                    continue
                status, last = row
                seq = min(seq, last)
                ended = ended and status != "in_progress"
                done = ended and seq >= last
                db.execute("INSERT INTO cafe_confirmed (game_id, seq, ended, done) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT(game_id) DO UPDATE SET seq = MAX(seq, excluded.seq), "
                           "ended = MAX(ended, excluded.ended), done = MAX(done, excluded.done)",
                           (gid, seq, int(ended), int(done)))
        self._write(step)

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
