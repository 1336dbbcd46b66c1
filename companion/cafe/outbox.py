"""The game log read as an outbox: what the kiosk still has to publish, and the table's state.

The SQLite game log is the truth. This module opens the same database with its own connection
(WAL: it never blocks the kiosk's writes for longer than one tiny commit) and keeps, in two tables
of its own, how far the broker has acknowledged each game. A kiosk cut off for days therefore
publishes everything it missed, in order, straight from the log; nothing is queued in memory.

One message per log item, in the order the log holds them: a game's ``setup`` (seq 0), every
``action`` and ``undo`` entry (seq 1, 2, ...), and an ``end`` once the game is finished or
abandoned (with each player's score and whether they won, worked out by the engine).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

from companion.games.registry import engine_for
from companion.store.replay import fold

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cafe_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cafe_outbox (
    game_id  INTEGER PRIMARY KEY,
    seq      INTEGER NOT NULL,        -- the highest seq the broker acknowledged (0: the setup)
    ended    INTEGER NOT NULL DEFAULT 0
);
"""
END_SEQ = -1          # the key an ``end`` message is acknowledged under


class Outbox:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM cafe_meta WHERE key = 'log_id'").fetchone()
        if row is None:
            # names this log file for the dashboard: a new file (a new Pi, a wiped card) starts new plays
            self._db.execute("INSERT OR IGNORE INTO cafe_meta VALUES ('log_id', ?)", (uuid.uuid4().hex,))
            row = self._db.execute("SELECT value FROM cafe_meta WHERE key = 'log_id'").fetchone()
        self.log_id = row[0]

    def games_played(self) -> list[str]:
        return [g for (g,) in self._db.execute("SELECT DISTINCT game FROM games")]

    def changed_marker(self) -> int:
        """Changes whenever another connection (the kiosk's log) commits."""
        return self._db.execute("PRAGMA data_version").fetchone()[0]

    def pending(self, limit: int) -> list[dict]:
        """The next ``limit`` messages the broker has not acknowledged, oldest game first."""
        out: list[dict] = []
        games = self._db.execute(
            "SELECT g.id, g.game, g.setup, g.status, g.summary, g.started, g.ended, o.seq, o.ended "
            "FROM games g LEFT JOIN cafe_outbox o ON o.game_id = g.id "
            "WHERE o.game_id IS NULL OR o.ended = 0 ORDER BY g.id").fetchall()
        for gid, game, setup, status, summary, started, ended, acked, _ in games:
            if len(out) >= limit:
                break
            base = {"log": self.log_id, "game_id": gid, "game": game}
            if acked is None:
                out.append({**base, "seq": 0, "kind": "setup", "line": json.loads(setup), "at": started})
                acked = 0
            rows = self._db.execute("SELECT seq, kind, line, at FROM entries WHERE game_id = ? AND seq > ? "
                                    "ORDER BY seq LIMIT ?", (gid, acked, limit - len(out))).fetchall()
            for seq, kind, line, at in rows:
                out.append({**base, "seq": seq, "kind": kind, "line": json.loads(line) if line else None, "at": at})
            last = rows[-1][0] if rows else acked
            if status != "in_progress" and len(out) < limit and last == self._last_seq(gid):
                out.append({**base, "seq": END_SEQ, "kind": "end", "status": status, "at": ended,
                            "players": result(json.loads(setup), json.loads(summary) if summary else None)})
        return out

    def _last_seq(self, game_id: int) -> int:
        return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?",
                                (game_id,)).fetchone()[0]

    def acknowledged(self, messages: list[dict]) -> None:
        """Record that the broker holds these (a contiguous run from the front of :meth:`pending`)."""
        with self._db:
            self._db.execute("BEGIN")
            for m in messages:
                if m["kind"] == "end":
                    self._db.execute("UPDATE cafe_outbox SET ended = 1 WHERE game_id = ?", (m["game_id"],))
                else:
                    self._db.execute("INSERT INTO cafe_outbox (game_id, seq) VALUES (?, ?) ON CONFLICT(game_id) "
                                     "DO UPDATE SET seq = MAX(seq, excluded.seq)", (m["game_id"], m["seq"]))

    def table_state(self) -> dict:
        """The newest game, replayed through its engine: what the staff's tile shows."""
        row = self._db.execute("SELECT id, game, setup, status, started FROM games ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return {"game": None, "status": "idle", "players": [], "turn": None, "round": None, "started": None}
        gid, game, setup_text, status, started = row
        setup = json.loads(setup_text)
        lines: list[dict] = []
        for kind, text in self._db.execute("SELECT kind, line FROM entries WHERE game_id = ? ORDER BY seq", (gid,)):
            if kind == "action":
                lines.append(json.loads(text))
            elif lines:
                lines.pop()
        try:
            engine = engine_for(game)
            summary = engine.summary(fold(engine, setup, lines))
        except Exception:   # a log this program cannot replay (a newer game) still gets its tile, without the turn
            summary = {}
        return {"game": game, "status": status, "players": player_names(setup), "turn": summary.get("turn"),
                "round": summary.get("round"), "started": started, "actions": len(lines)}

    def close(self) -> None:
        self._db.close()


def player_names(setup: dict) -> list[str]:
    return [p if isinstance(p, str) else str(p.get("name")) for p in setup.get("players") or []]


def result(setup: dict, summary: dict | None) -> list[dict]:
    """Each player's final score (None when the game keeps none) and whether they won."""
    summary = summary or {}
    scores = {s.get("name"): s.get("total") for s in summary.get("scores") or [] if isinstance(s, dict)}
    winners = set(summary.get("winners") or ([summary["winner"]] if summary.get("winner") else []))
    team = summary.get("score") if summary.get("mode") == "cooperative" else None
    return [{"name": n, "score": scores.get(n, team), "winner": n in winners} for n in player_names(setup)]
