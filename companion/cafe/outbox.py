"""The game log read as an outbox: what the kiosk still has to offer the dashboard, and the table's state.

The SQLite game log is the truth, and :class:`~companion.store.log.GameLog` owns it: its schema
(the café's tables included, under its schema version) and its undo rule. This module opens the same
file through a GameLog of its own (WAL: it never blocks the kiosk's writes for longer than one tiny
commit).

End to end, not broker-deep: a broker's acknowledgement only frees room in the window; an item is
settled when the **dashboard** confirms it (``cafe/<table>/confirm``: per log and game, the highest
seq it has stored with none missing, and whether it holds the end). The confirmations are kept in
the log's database; everything after them is offered again at start, on every new connection, and
whenever the dashboard's confirmation stops advancing. Nothing waits in memory but the marks of what
this connection already sent.

One message per log item, in the order the log holds them: a game's ``setup`` (seq 0), every
``action`` and ``undo`` entry (seq 1, 2, ...), and an ``end`` once the game is finished or abandoned
(with ``last``, the seq of its last entry, and each player's score and whether they won, worked out
by the engine).
"""

from __future__ import annotations

import time
from pathlib import Path

from companion.games.base import winners
from companion.registry import GAMES
from companion.store import replay
from companion.store.log import GameLog

END_SEQ = -1          # the seq an ``end`` message carries
OTHER_SAID_EVERY_S = 60.0     # another dashboard heard again: the table's state says so at most this often


LOG_WAIT_S = 60.0     # the publisher's writes wait this long for the kiosk's commit (a shared, busy disk)


class Outbox:
    def __init__(self, path: str | Path, machine: str | None = None, dashboard_db: str | None = None):
        """``dashboard_db``: the café's dashboard database, set in the kiosk's settings (cafe.dashboard_db);
        None: the first one met counts (or the one a database told to take its place replaces)."""
        self.path = Path(path)
        self.log = GameLog(self.path, machine, wait_s=LOG_WAIT_S)
        self._take(self.log.cafe_identity())
        # the dashboard's database the café registered (the setting, else the first met, or the one a
        # database told to take its place replaces); whose marks the log holds now (the database heard
        # last); another heard
        self.set_db = dashboard_db
        self.registered = dashboard_db or self.log.cafe_meta("dashboard_db")
        self.marks_db = self.log.cafe_meta("marks_db")
        self.other: tuple[str, float] | None = None
        self.heard = False                                  # a confirmation on this connection
        self._through = 0                                   # games up to this one are marked whole
        self._sent: dict[int, tuple[int, bool]] = {}        # this connection: (highest seq sent, end sent)
        self._confirmed: dict[int, tuple[int, bool]] = {}   # what the dashboard confirmed, of unsettled games
        self._fold: dict | None = None                      # the newest game's state, folded as it grows

    def _take(self, identity: dict) -> None:
        self.log_id, self.first, self.origin = identity["log"], identity["first"], identity["origin"]

    def games_played(self) -> list[str]:
        return sorted({g["game"] for g in self.log.games()})

    def changed_marker(self) -> int:
        """Changes whenever another connection (the kiosk's log) commits."""
        return self.log.data_version()

    # -- what to offer ------------------------------------------------------------------------------
    def pending(self, limit: int) -> list[dict]:
        """The next ``limit`` items neither sent on this connection nor confirmed, oldest game first."""
        out: list[dict] = []
        after = self.first - 1             # the games before are another log's (this card's original)
        while len(out) < limit:
            games = self.log.unconfirmed_games(after)
            if not games:
                break
            for g in games:
                after = gid = g["id"]
                self._confirmed[gid] = (g["confirmed"], g["end_confirmed"])
                sent, end_sent = self._sent.get(gid, (-1, False))
                if end_sent or len(out) >= limit:
                    continue
                base = {"log": self.log_id, "game_id": gid, "game": g["game"]}
                start = max(sent, g["confirmed"])
                if start < 0:
                    setup = {**base, "seq": 0, "kind": "setup", "line": g["setup"], "at": g["started"]}
                    out.append(_chain({**setup, "origin": self.origin} if self.origin else setup, g["hash"]))
                    start = 0
                for seq, kind, line, at, h in self.log.cafe_items_after(gid, start, limit - len(out)):
                    out.append(_chain({**base, "seq": seq, "kind": kind, "line": line, "at": at}, h))
                    start = seq
                if (g["status"] != "in_progress" and not g["end_confirmed"] and len(out) < limit
                        and start >= g["last"]):
                    out.append(_chain({**base, "seq": END_SEQ, "kind": "end", "status": g["status"],
                                       "at": g["ended"], "last": g["last"],
                                       "players": result(g["setup"], g["summary"])}, g["end_hash"]))
        return out

    def sent(self, messages: list[dict]) -> None:
        """These went out on this connection: not offered again until :meth:`reoffer`."""
        for m in messages:
            seq, end = self._sent.get(m["game_id"], (-1, False))
            if m["kind"] == "end":
                self._sent[m["game_id"]] = (seq, True)
            else:
                self._sent[m["game_id"]] = (max(seq, m["seq"]), end)

    def first_unconfirmed(self) -> dict | None:
        """The oldest item the dashboard has not confirmed, sent or not (a probe: is it there?)."""
        sent, self._sent = self._sent, {}
        try:
            items = self.pending(1)
        finally:
            self._sent = sent
        return items[0] if items else None

    def new_connection(self) -> None:
        """A new connection: nothing heard on it yet, and whatever is not confirmed goes out again."""
        self.heard = False
        self.reoffer()

    def reoffer(self) -> None:
        """Offer everything the dashboard has not confirmed again (a new connection, or a stall)."""
        self._sent.clear()

    def outstanding(self) -> int:
        """Items sent on this connection that the dashboard has not confirmed yet."""
        n = 0
        for gid, (seq, end) in self._sent.items():
            cseq, cend = self._confirmed.get(gid, (-1, False))
            n += max(0, seq - cseq) + (1 if end and not cend else 0)
        return n

    # -- what the dashboard confirms ----------------------------------------------------------------
    def may_offer(self) -> bool:
        """Whether to offer items now: a kiosk that has met a dashboard first hears, on each connection,
        what the dashboard holds (its retained confirmation, or one it sends on hearing the table), so a
        card restored from an older copy learns that its log went on elsewhere before it sends anything
        under that log's id."""
        return self.heard or self.registered is None

    def confirmed(self, confirmation: dict) -> bool:
        """Take the dashboard's confirmation (checked by companion.cafe.schema); True if it changed
        anything this log holds as confirmed.

        A confirmation that names its database (``db``) is that database's word for what it holds, and
        the marks follow it down as well as up: a database restored from an older copy, an empty one, or
        another dashboard's is offered again whatever it lacks. An unnamed one (a dashboard of an older
        version) only ever moves the marks forward."""
        self.heard = True
        db = confirmation.get("db")
        changed = False
        if db is not None:
            registered = self._hear(db, confirmation.get("replaces"))
            switched = db != self.marks_db     # the marks were another database's: this one says what it holds
            if switched or registered:
                self.log.cafe_heard(db if switched else None, registered)    # kept before it is believed
            if registered:
                self.registered, self.other = registered, None
            if switched:
                self.marks_db, self._through = db, 0
                self._confirmed.clear()
                self.reoffer()
                changed = True
        mine = (confirmation.get("logs") or {}).get(self.log_id)
        if not mine:
            return changed
        head = mine.get("head")
        if head is not None and not self._holds(head):
            # the dashboard holds of this log's id what this log does not: the card was restored from an
            # older copy (or copied without a machine of its own). What it writes now is another history
            self._take(self.log.cafe_fork("restored"))
            self._confirmed.clear()
            self._through = 0
            self.reoffer()
            return True
        if db is None:
            return self._forward(mine) or changed
        return self._exactly(mine) or changed

    def _holds(self, head: list) -> bool:
        game_id, seq, chain = head
        if game_id < self.first:
            return True
        held, mine = self.log.cafe_chain_at(game_id, seq)
        return held and (chain is None or mine is None or chain == mine)

    def _hear(self, db: str, replaces: str | None) -> str | None:
        """Who is heard: the database to register now (to keep in the log), or None. A kiosk set to a
        database (its settings) counts that one whatever another says it replaces."""
        if self.registered is None or (replaces is not None and replaces == self.registered
                                       and self.set_db is None):
            return db
        if db != self.registered:
            now = time.time()
            if self.other is None or self.other[0] != db or now - self.other[1] > OTHER_SAID_EVERY_S:
                self.other = (db, now)
        return None

    def _exactly(self, mine: dict) -> bool:
        through = max(int(mine.get("through", 0)), self.first - 1)
        upto = int(mine.get("upto", through))
        held = mine.get("held")
        listed = {int(k): (seq, bool(end)) for k, (seq, end) in (mine.get("games") or {}).items()
                  if int(k) > through}
        marks = self.log.cafe_marks_after(through)
        want = {gid: m for gid, m in listed.items() if marks.get(gid) != m}
        forget = [gid for gid in marks if gid not in listed and (gid <= upto or (held is not None and gid > held))]
        lowered = bool(forget) or any(gid in marks and (m[0] < marks[gid][0] or (marks[gid][1] and not m[1]))
                                      for gid, m in want.items())
        if not (want or forget or through > self._through):
            return False
        self.log.cafe_set_marks(want, forget, through, self.first)
        self._through = through
        for gid in [g for g in self._confirmed if g <= through]:
            self._confirmed.pop(gid)
            self._sent.pop(gid, None)
        for gid in forget:
            self._confirmed[gid] = (-1, False)
        self._confirmed.update(want)
        if lowered:                       # the database holds less than it said: offer it again
            self.reoffer()
        return True

    def _forward(self, mine: dict) -> bool:
        through = int(mine.get("through", 0))
        marks: dict[int, tuple[int, bool]] = {}
        for key, (seq, end) in (mine.get("games") or {}).items():
            gid = int(key)
            if gid <= through:
                continue
            old = self._confirmed.get(gid, (-1, False))
            if seq > old[0] or (end and not old[1]):
                marks[gid] = (max(seq, old[0]), bool(end) or old[1])
        moved = bool(marks) or any(gid <= through for gid in self._confirmed)
        if not moved:
            return False
        self.log.confirm(marks, through)
        for gid in [g for g in self._confirmed if g <= through]:
            self._confirmed.pop(gid)
            self._sent.pop(gid, None)
        self._confirmed.update(marks)
        return True

    def all_confirmed(self) -> bool:
        """Every item held by the database the café registered (when it has met one)."""
        if self.registered is not None and self.marks_db != self.registered:
            return False
        return not self.log.unconfirmed_games(self.first - 1, 1)

    def dashboards(self) -> dict:
        """For the table's state: this log's id (the dashboard confirms it even when it holds nothing of
        it), the database this kiosk counts, and another it heard (the dashboards
        name it on their page and in /healthz)."""
        if self.registered is None:
            return {"log": self.log_id}
        out: dict = {"registered": self.registered, **({"set": True} if self.set_db else {})}
        if self.other is not None:
            out.update(other=self.other[0], other_at=self.other[1])
        return {"log": self.log_id, "dashboards": out}

    # -- the table's state --------------------------------------------------------------------------
    def table_state(self) -> dict:
        """The newest game, as its engine sees it: what the staff's tile shows. The stored lines are read
        as ``companion replay`` reads them (companion/store/replay.py: their card facts applied); the
        replay is kept and moved on by the new entries only (an undo replays the lines in force again)."""
        newest = self.log.newest_game()
        if newest is None:
            return {"game": None, "status": "idle", "players": [], "turn": None, "round": None, "started": None}
        gid, setup = newest["id"], newest["setup"]
        f = self._fold
        if f is None or f["id"] != gid:
            f = self._fold = {"id": gid, "seq": 0, "lines": [], "replayed": None}
            try:
                f["replayed"] = replay.start(setup)
            except Exception:   # a log this program cannot replay (a newer game) still gets its tile
                f["replayed"] = None
        news = self.log.entries_after(gid, f["seq"])
        if news:
            f["seq"] = news[-1][0]
            undone = any(kind == "undo" for _seq, kind, _line, _at in news)
            f["lines"] = self.log.lines(gid) if undone else f["lines"] + [line for _seq, _kind, line, _at in news]
            if f["replayed"] is not None:
                try:
                    r = replay.start(setup) if undone else f["replayed"]   # GameLog's undo rule, not a copy
                    for line in (f["lines"] if undone else [line for _seq, _kind, line, _at in news]):
                        r = replay.step(r, line, "log")
                    f["replayed"] = r
                except Exception:
                    f["replayed"] = None
        r = f["replayed"]
        summary = {} if r is None else r.engine.summary(r.state)
        return {"game": newest["game"], "status": newest["status"], "players": player_names(setup),
                "turn": summary.get("turn"), "round": summary.get("round"), "started": newest["started"],
                "actions": len(f["lines"])}

    def close(self) -> None:
        self.log.close()


def _chain(item: dict, chain: str | None) -> dict:
    """A log item with its chain hash (entries written before the log kept one carry none)."""
    return {**item, "chain": chain} if chain else item


def player_names(setup: dict) -> list[str]:
    return [p if isinstance(p, str) else str(p.get("name")) for p in setup.get("players") or []]


def result(setup: dict, summary: dict | None) -> list[dict]:
    """Each player's final score (None when the game keeps none) and whether they won."""
    summary = summary or {}
    scores = {s.get("name"): s.get("total") for s in summary.get("scores") or [] if isinstance(s, dict)}
    spec = GAMES.get(str(summary.get("game", setup.get("game"))))
    if spec is not None and spec.cooperative(summary.get("mode", setup.get("mode"))):    # the team wins or loses
        won = summary.get("status") == "finished"
        return [{"name": n, "score": summary.get("score"), "winner": won} for n in player_names(setup)]
    won_by = set(winners(summary))
    return [{"name": n, "score": scores.get(n), "winner": n in won_by} for n in player_names(setup)]
