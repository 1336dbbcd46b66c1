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

from pathlib import Path

from companion.games.base import winners
from companion.registry import GAMES
from companion.store import replay
from companion.store.log import GameLog

END_SEQ = -1          # the seq an ``end`` message carries


class Outbox:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.log = GameLog(self.path)
        self.log_id = self.log.cafe_log_id()
        self._sent: dict[int, tuple[int, bool]] = {}        # this connection: (highest seq sent, end sent)
        self._confirmed: dict[int, tuple[int, bool]] = {}   # what the dashboard confirmed, of unsettled games
        self._fold: dict | None = None                      # the newest game's state, folded as it grows

    def games_played(self) -> list[str]:
        return sorted({g["game"] for g in self.log.games()})

    def changed_marker(self) -> int:
        """Changes whenever another connection (the kiosk's log) commits."""
        return self.log.data_version()

    # -- what to offer ------------------------------------------------------------------------------
    def pending(self, limit: int) -> list[dict]:
        """The next ``limit`` items neither sent on this connection nor confirmed, oldest game first."""
        out: list[dict] = []
        after = 0
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
                    out.append({**base, "seq": 0, "kind": "setup", "line": g["setup"], "at": g["started"]})
                    start = 0
                for seq, kind, line, at in self.log.entries_after(gid, start, limit - len(out)):
                    out.append({**base, "seq": seq, "kind": kind, "line": line, "at": at})
                    start = seq
                if (g["status"] != "in_progress" and not g["end_confirmed"] and len(out) < limit
                        and start >= g["last"]):
                    out.append({**base, "seq": END_SEQ, "kind": "end", "status": g["status"], "at": g["ended"],
                                "last": g["last"], "players": result(g["setup"], g["summary"])})
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
    def confirmed(self, confirmation: dict) -> bool:
        """Take the dashboard's confirmation (checked by companion.cafe.schema); True if it moved
        anything of this log forward."""
        mine = (confirmation.get("logs") or {}).get(self.log_id)
        if not mine:
            return False
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
        return not self.log.unconfirmed_games(0, 1)

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
