"""Stand-ins used by the kiosk tests ONLY while the real engine, store and vision modules are not in
the tree yet (they are being written in other rooms). Each stand-in keeps the published contract
(shared/spec, helper brief); ``install()`` puts a stand-in in place only where the real module is
missing, so the tests run against the real pieces as soon as they land."""

from __future__ import annotations

import importlib
import sys
import types
from dataclasses import dataclass

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
    return stood_in
