"""Stickers "decoded" by hand for the tracker's tests: a payload and its place, as the decoder reports
them (the tracker names the card itself)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Det:
    payload: str
    corners: tuple
    center: tuple
    card: object = None


def det(payload: str, x: float, y: float, turn: float = 0.0, s: float = 12) -> Det:
    """A sticker ``2s`` pixels wide at (x, y), the table turned ``turn`` degrees about the origin."""
    c, si = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    x, y = x * c - y * si, x * si + y * c
    corners = tuple((x + dx * c - dy * si, y + dx * si + dy * c) for dx, dy in ((-s, -s), (s, -s), (s, s), (-s, s)))
    return Det(payload, corners, (float(x), float(y)))
