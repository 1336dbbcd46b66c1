"""Every message the café's broker carries, checked before anything is stored (docs/cafe.md, "Topics
and messages"). A table's login sits on an SD card at a customer's table: whatever arrives is only
data, and one bad message must never stop the dashboard or make a page fail.

Each check returns the message rebuilt from the checked fields only (nothing else is stored) or
raises :class:`BadMessage` naming the field and what is wrong with it. The same checks clean what
the page reads back from the database, so a value stored by an older version cannot break a page.
"""

from __future__ import annotations

import json
import math
import re

MAX_PAYLOAD = 64 * 1024          # bytes of one message (the broker's message_size_limit is above this)
MAX_DEPTH = 16                   # nesting of a log item's line
MAX_TEXT = 200                   # characters of a name, a game, a turn
MAX_LINE = 8 * 1024              # bytes of an action's line as JSON (a real one is a few hundred)
MODE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")    # a game's mode (cooperative, competitive)
MAX_PLAYERS = 16
MAX_SEQ = 10 ** 7                # entries of one game (a game of years)
MAX_GAME_ID = 2 ** 53            # games of one log
MAX_SCORE = 10 ** 9
MAX_ROUND = 10 ** 6
EARLIEST = 946684800.0           # 2000-01-01: a kiosk time before it is a clock that was never set
LATEST = 4102444800.0            # 2100-01-01
TABLE_LEVEL = re.compile(r"^[A-Za-z0-9_-]{1,32}$")    # as companion.broker.TABLE_NAME
RESERVED = ("dashboard",)        # the dashboard's login: no table has its name (the ACL's patterns)
LOG_ID = re.compile(r"^[0-9a-f]{8,64}$")        # a kiosk log's id, a dashboard database's id, a chain hash
ORIGINS = ("restored", "copied")
GAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
KINDS = ("setup", "action", "undo", "end")
STATUSES = ("in_progress", "finished", "abandoned", "idle")
END_STATUSES = ("finished", "abandoned")


class BadMessage(ValueError):
    """A message refused: ``str()`` says which field and why."""


def parse(payload: bytes) -> object:
    """JSON, within the size and nesting the café allows."""
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{len(payload)} bytes, more than the {MAX_PAYLOAD} a message may have")
    try:
        value = json.loads(payload, parse_constant=_no_constant)
    except RecursionError:
        raise BadMessage("nested too deep") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise BadMessage(f"not JSON ({e})") from None
    if _depth(value) > MAX_DEPTH:
        raise BadMessage(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _depth(value, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _int(m: dict, key: str, low: int, high: int) -> int:
    v = m.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise BadMessage(f"{key}: {_show(v)} is not a whole number from {low} to {high}")
    return v


def _time(m: dict, key: str, optional: bool = False) -> float | None:
    v = m.get(key)
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= LATEST:
        raise BadMessage(f"{key}: {_show(v)} is not a Unix time")
    return float(v)


def _text(v, key: str, optional: bool = False) -> str | None:
    if v is None and optional:
        return None
    if not isinstance(v, str) or not v or len(v) > MAX_TEXT or not v.isprintable():
        raise BadMessage(f"{key}: {_show(v)} is not a name (1 to {MAX_TEXT} printable characters)")
    return v


def _game(v, key: str = "game") -> str:
    if not isinstance(v, str) or not GAME.match(v):
        raise BadMessage(f"{key}: {_show(v)} is not a game's name")
    return v


def _show(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def log_item(m: object) -> dict:
    """A ``cafe/<table>/log`` item: setup (seq 0), action or undo (seq 1...), end (seq -1)."""
    if not isinstance(m, dict):
        raise BadMessage(f"a log item is a JSON object, not {type(m).__name__}")
    kind = m.get("kind")
    if kind not in KINDS:
        raise BadMessage(f"kind: {_show(kind)} is not one of {', '.join(KINDS)}")
    log = m.get("log")
    if not isinstance(log, str) or not LOG_ID.match(log):
        raise BadMessage(f"log: {_show(log)} is not a log's id (8 to 64 hex digits)")
    out: dict = {"kind": kind, "log": log, "game_id": _int(m, "game_id", 1, MAX_GAME_ID),
                 "game": _game(m.get("game")), "at": _time(m, "at")}
    if m.get("chain") is not None:
        out["chain"] = _hex(m.get("chain"), "chain")
    if kind == "setup":
        out["seq"] = _int(m, "seq", 0, 0)
        line = m.get("line")
        if not isinstance(line, dict):
            raise BadMessage("line: the setup line is a JSON object")
        mode = line.get("mode")
        if mode is not None and (not isinstance(mode, str) or not MODE.match(mode)):
            raise BadMessage(f"line.mode: {_show(mode)} is not a mode (1 to 32 lowercase letters, digits, - or _)")
        out["line"] = line
        out["players"] = players_of_setup(line)
        origin = m.get("origin")
        if origin is not None:
            if not isinstance(origin, dict) or origin.get("why") not in ORIGINS:
                raise BadMessage(f"origin: {_show(origin)} is not {{\"log\", \"why\": restored|copied, \"first\"}}")
            out["origin"] = {"log": _hex(origin.get("log"), "origin.log", optional=False), "why": origin["why"],
                             "first": _int(origin, "first", 1, MAX_GAME_ID)}
    elif kind == "end":
        out["seq"] = _int(m, "seq", -1, -1)
        status = m.get("status")
        if status not in END_STATUSES:
            raise BadMessage(f"status: {_show(status)} is not finished or abandoned")
        out["status"] = status
        out["last"] = _int(m, "last", 0, MAX_SEQ)
        out["players"] = results(m.get("players"))
    else:
        out["seq"] = _int(m, "seq", 1, MAX_SEQ)
        line = m.get("line")
        if kind == "action" and not isinstance(line, dict):
            raise BadMessage("line: an action's line is a JSON object")
        if kind == "undo" and line is not None:
            raise BadMessage("line: an undo carries no line")
        if line is not None and len(json.dumps(line)) > MAX_LINE:
            raise BadMessage(f"line: more than {MAX_LINE} bytes (an action's line is a few hundred)")
        out["line"] = line
    if m.get("sim") is True:         # played by cafe simulate: the staff can remove it from the history
        out["sim"] = True
    return out


def _hex(v, key: str, optional: bool = True) -> str | None:
    if v is None and optional:
        return None
    if not isinstance(v, str) or not LOG_ID.match(v):
        raise BadMessage(f"{key}: {_show(v)} is not an id (8 to 64 hex digits)")
    return v


def players_of_setup(line: dict) -> list[str]:
    players = line.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        raise BadMessage(f"line.players: {_show(players)} is not a list of 1 to {MAX_PLAYERS} players")
    names = []
    for p in players:
        name = p.get("name") if isinstance(p, dict) else p
        names.append(_text(name, "line.players: a name"))
    return [n for n in names if n is not None]


def results(players: object) -> list[dict]:
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        raise BadMessage(f"players: {_show(players)} is not a list of at most {MAX_PLAYERS} results")
    out = []
    for p in players:
        if not isinstance(p, dict):
            raise BadMessage(f"players: {_show(p)} is not a player's result")
        score = p.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                  or not math.isfinite(score) or abs(score) > MAX_SCORE):
            raise BadMessage(f"players: score {_show(score)} is not a number")
        if not isinstance(p.get("winner"), bool):
            raise BadMessage(f"players: winner {_show(p.get('winner'))} is not true or false")
        out.append({"name": _text(p.get("name"), "players: a name"), "score": score, "winner": p["winner"]})
    return out


def state(m: object) -> dict:
    """A ``cafe/<table>/state`` (retained): what the tile shows."""
    if not isinstance(m, dict):
        raise BadMessage(f"a state is a JSON object, not {type(m).__name__}")
    status = m.get("status", "idle")
    if status not in STATUSES:
        raise BadMessage(f"status: {_show(status)} is not one of {', '.join(STATUSES)}")
    players = m.get("players") or []
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        raise BadMessage(f"players: {_show(players)} is not a list of at most {MAX_PLAYERS} names")
    health = m.get("health") or {}
    if not isinstance(health, dict) or any(not isinstance(health.get(k, True), bool) for k in ("camera", "disk")):
        raise BadMessage(f"health: {_show(health)} is not {{\"camera\": true|false, \"disk\": true|false}}")
    rnd = m.get("round")
    if rnd is not None:
        _int(m, "round", 0, MAX_ROUND)
    actions = m.get("actions")
    if actions is not None:
        _int(m, "actions", 0, MAX_SEQ)
    dashboards = m.get("dashboards") or {}
    if not isinstance(dashboards, dict):
        raise BadMessage(f"dashboards: {_show(dashboards)} is not {{\"registered\", \"set\", \"other\", \"other_at\"}}")
    return {"game": None if m.get("game") is None else _game(m.get("game")), "status": status,
            "log": _hex(m.get("log"), "log"),
            "dashboards": {"registered": _hex(dashboards.get("registered"), "dashboards.registered"),
                           "other": _hex(dashboards.get("other"), "dashboards.other"),
                           "other_at": _time(dashboards, "other_at", optional=True),
                           # registered by the kiosk's settings (cafe.dashboard_db), not by meeting it first
                           "set": dashboards.get("set") is True},
            "players": [_text(p, "players: a name") for p in players],
            "turn": _text(m.get("turn"), "turn", optional=True), "round": rnd,
            "started": _time(m, "started", optional=True), "actions": actions,
            "health": {k: health[k] for k in ("camera", "disk") if k in health},
            "updated": _time(m, "updated", optional=True)}


def online(payload: bytes) -> bool:
    if payload not in (b"online", b"offline"):
        raise BadMessage(f"{_show(payload[:40])} is not online or offline")
    return payload == b"online"


def confirmation(m: object) -> dict:
    """A ``cafe/<table>/confirm`` (the dashboard's, retained): the database's id (``db``), and per log
    every game up to ``through`` held whole, and of the games after it ``[seq, end]``: the setup and
    entries up to seq, none missing, and whether the end is held too; ``held``, ``upto`` and ``head``
    (docs/cafe.md) say what it does not hold."""
    if not isinstance(m, dict) or not isinstance(m.get("logs"), dict):
        raise BadMessage('a confirmation is {"logs": {...}}')
    out: dict = {}
    db, replaces = _hex(m.get("db"), "db"), _hex(m.get("replaces"), "replaces")
    for log, body in m["logs"].items():
        if not LOG_ID.match(log) or not isinstance(body, dict) or not isinstance(body.get("games"), dict):
            raise BadMessage(f"logs: {_show(log)} is not a log's confirmation")
        games = {}
        for gid, mark in body["games"].items():
            if (not gid.isdigit() or not isinstance(mark, list) or len(mark) != 2 or isinstance(mark[0], bool)
                    or not isinstance(mark[0], int) or not isinstance(mark[1], bool)):
                raise BadMessage(f"logs.{log}.games: {_show(gid)}: {_show(mark)} is not [seq, end]")
            games[gid] = (mark[0], mark[1])
        out[log] = {"through": _int(body, "through", 0, MAX_GAME_ID), "games": games}
        for key in ("held", "upto"):
            if key in body:
                out[log][key] = _int(body, key, 0, MAX_GAME_ID)
        head = body.get("head")
        if head is not None:
            if (not isinstance(head, list) or len(head) != 3 or any(isinstance(v, bool) for v in head[:2])
                    or not isinstance(head[0], int) or not isinstance(head[1], int)):
                raise BadMessage(f"logs.{log}.head: {_show(head)} is not [game, seq, chain]")
            out[log]["head"] = [head[0], head[1], _hex(head[2], f"logs.{log}.head")]
    return {"logs": out, "db": db, "replaces": replaces}
