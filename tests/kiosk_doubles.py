"""Stand-ins used by the kiosk tests ONLY while the real engine, store and vision modules are not in
the tree yet (they are being written in other rooms). Each stand-in keeps the published contract
(shared/spec, helper brief); ``install()`` puts a stand-in in place only where the real module is
missing, so the tests run against the real pieces as soon as they land."""

from __future__ import annotations

import importlib
import sys
import types
from dataclasses import dataclass, field, replace

import numpy as np


def _missing(name: str) -> bool:
    try:
        importlib.import_module(name)
        return False
    except ImportError:
        return True


# -- vision ------------------------------------------------------------------------------------
@dataclass
class RowLayout:
    codes: list


@dataclass
class GridLayout:
    rows: list


class CameraLost(Exception):
    pass


@dataclass
class CardPlaced:
    code: str
    gap: int


@dataclass
class TableMatches:
    pass


@dataclass
class TableDiffers:
    message: str


@dataclass
class UnknownSticker:
    payload: str
    message: str


@dataclass
class ForeignCode:
    text: str


@dataclass
class Detection:
    payload: str
    center: tuple
    corners: list
    card: object = None


class VirtualTable:
    """Draws one rectangle per card; the stand-in tracker reads ``layout`` (no decoding)."""

    current = None

    def __init__(self, width=640, height=360, seed=0):
        self.w, self.h = width, height
        self.layout = RowLayout([])
        VirtualTable.current = self

    def set_layout(self, layout):
        self.layout = layout

    def read(self):
        frame = np.full((self.h, self.w, 3), (40, 90, 50), np.uint8)
        for d in _detections(self.layout, self.w, self.h):
            (x0, y0), _, (x1, y1), _ = d.corners
            frame[int(y0):int(y1), int(x0):int(x1)] = (220, 230, 235)
        return frame


def _detections(layout, w, h):
    from companion.cards.decks import resolve
    out = []
    rows = [layout.codes] if hasattr(layout, "codes") else layout.rows
    for r, row in enumerate(rows):
        for i, code in enumerate(row):
            if code is None:
                continue
            cx, cy = (i + 1) * w / (len(row) + 1), (r + 1) * h / (len(rows) + 1)
            try:
                card = resolve(code)
            except Exception:
                card = None
            s = min(w / (len(row) + 2), h / (len(rows) + 2)) * 0.35
            out.append(Detection(code, (cx, cy), [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)],
                                 card))
    return out


class Tracker:
    def __init__(self, kind, **_):
        self.kind = kind
        self.expected = RowLayout([])
        self.detections = []

    def expect(self, layout):
        self.expected = layout

    def feed(self, frame):
        from companion.cards.payload import parse_sticker
        table = VirtualTable.current
        seen = table.layout if hasattr(table.layout, "codes") else RowLayout([])
        self.detections = _detections(table.layout, frame.shape[1], frame.shape[0])
        for d in self.detections:
            if parse_sticker(d.payload) is None:
                return [ForeignCode(d.payload)]
            if d.card is None:
                return [UnknownSticker(d.payload, f"{d.payload}: deck DEMO has no card 999")]
        want = list(self.expected.codes)
        got = list(seen.codes)
        if got == want:
            return [TableMatches()]
        if len(got) == len(want) + 1:
            for i, code in enumerate(got):
                if got[:i] + got[i + 1:] == want:
                    return [CardPlaced(code, i)]
        return [TableDiffers("the row differs in more than one card")]


# -- store -------------------------------------------------------------------------------------
class StoreError(Exception):
    pass


class GameLog:
    def __init__(self, path=None):
        self.games = {}
        self.fail_next = None

    def new_game(self, setup_line):
        gid = len(self.games) + 1
        self.games[gid] = {"setup": setup_line, "lines": [], "status": "in_progress"}
        return gid

    def append(self, gid, line):
        if self.fail_next:
            err, self.fail_next = self.fail_next, None
            raise StoreError(err)
        self.games[gid]["lines"].append(line)

    def undo(self, gid):
        return self.games[gid]["lines"].pop()

    def in_progress(self):
        for gid, g in reversed(self.games.items()):
            if g["status"] == "in_progress":
                return gid, g["setup"], list(g["lines"])
        return None

    def finish(self, gid, summary):
        self.games[gid]["status"] = "finished"

    def abandon(self, gid):
        self.games[gid]["status"] = "abandoned"


# -- a Timeline engine following shared/spec/games/timeline.md (the parts the kiosk uses) ------
@dataclass(frozen=True)
class TState:
    players: tuple
    hands: tuple
    row: tuple
    turn: int = 0
    round: int = 1
    done: tuple = ()
    status: str = "in_progress"
    winner: str | None = None
    active: tuple = ()
    sudden_death: bool = False


def _engine_module():
    from companion.cards.json_cards import parse_card
    from companion.games.base import Event, refuse
    from companion.i18n import N_

    m = types.ModuleType("companion.games.timeline")
    m.GAME_ID = "timeline"

    def setup(line):
        start = parse_card(line["start"], "start")
        hand = line.get("hand", 4)
        hand = 4 if not isinstance(hand, int) else hand
        players = tuple(line["players"])
        return TState(players, tuple([hand] * len(players)), (start,), active=players)

    def parse_action(line):
        return dict(line)

    def apply(state, a):
        if state.status != "in_progress":
            return state, refuse(N_("the game is over"))
        cur = state.active[state.turn]
        if a.get("player") != cur:
            return state, refuse(N_("it is {expected}'s turn"), expected=cur)
        card = parse_card(a["card"], "card")
        g = a["gap"]
        row = state.row
        if not 0 <= g <= len(row):
            return state, refuse(N_("gap {gap} is outside 0..{n}"), gap=g, n=len(row))
        ok = (g == 0 or row[g - 1].year <= card.year) and (g == len(row) or card.year <= row[g].year)
        i = state.players.index(cur)
        hands = list(state.hands)
        events = [Event("card_placed", {"player": cur, "year": card.year, "gap": g, "correct": ok})]
        if ok:
            row = row[:g] + (card,) + row[g:]
            hands[i] -= 1
        s = replace(state, row=row, hands=tuple(hands), turn=state.turn + 1)
        if s.turn == len(s.active):
            fin = [p for p in s.active if hands[s.players.index(p)] == 0]
            if len(fin) == 1:
                s = replace(s, status="finished", winner=fin[0])
                events.append(Event("game_won", {"player": fin[0]}))
            else:
                if len(fin) >= 2:
                    for p in fin:
                        hands[s.players.index(p)] += 1
                    s = replace(s, active=tuple(fin), sudden_death=True, hands=tuple(hands))
                    events.append(Event("sudden_death_started", {"players": fin}))
                s = replace(s, turn=0, round=s.round + 1)
        return s, events

    def summary(s):
        return {"game": "timeline", "status": s.status, "winner": s.winner, "round": s.round,
                "eliminated": [p for p in s.players if p not in s.active],
                "hands": dict(zip(s.players, s.hands)), "timeline": [c.year for c in s.row],
                "sudden_death": s.sudden_death}

    def action_to_json(a):
        return dict(a)

    m.setup, m.parse_action, m.apply, m.summary, m.action_to_json = setup, parse_action, apply, summary, action_to_json
    m.current_player = lambda s: s.active[s.turn] if s.status == "in_progress" else None
    m.row_cards = lambda s: list(s.row)
    return m


def install() -> list[str]:
    """Put the stand-ins where the real modules are missing; returns the names stood in for."""
    stood_in = []

    def put(name, **attrs):
        mod = types.ModuleType(name)
        for k, v in attrs.items():
            setattr(mod, k, v)
        sys.modules[name] = mod
        stood_in.append(name)

    if _missing("companion.vision.layouts"):
        put("companion.vision.layouts", RowLayout=RowLayout, GridLayout=GridLayout)
    if _missing("companion.vision.sources"):
        put("companion.vision.sources", CameraLost=CameraLost)
    if _missing("companion.vision.virtual_table"):
        put("companion.vision.virtual_table", VirtualTable=VirtualTable)
    if _missing("companion.vision.tracker"):
        put("companion.vision.tracker", Tracker=Tracker)
    if _missing("companion.store.log"):
        put("companion.store.log", GameLog=GameLog, StoreError=StoreError)
    if _missing("companion.games.timeline"):
        sys.modules["companion.games.timeline"] = _engine_module()
        stood_in.append("companion.games.timeline")
    return stood_in
