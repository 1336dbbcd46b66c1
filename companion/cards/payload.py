"""Sticker payloads: ``TC:<DECK>:<NUMBER>``.

A decoded barcode is either a sticker (this format) or foreign (anything else: a shop's EAN, a URL
QR code on a box). Whether a sticker's deck and number exist is the decks' business, not this one's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PAYLOAD_RE = re.compile(r"TC:([A-Z0-9]{2,8}):([0-9]{1,4})")


@dataclass(frozen=True, order=True)
class Sticker:
    deck: str
    number: int

    @property
    def payload(self) -> str:
        return format_payload(self.deck, self.number)


def format_payload(deck: str, number: int) -> str:
    """The canonical text printed in a sticker: three-digit numbers below 1000 (``TC:EXH20:017``)."""
    return f"TC:{deck}:{number:03d}"


def parse_sticker(text: str) -> Sticker | None:
    """The sticker a decoded text names, or None if the text is foreign (not our format)."""
    m = PAYLOAD_RE.fullmatch(text)
    if not m:
        return None
    return Sticker(m.group(1), int(m.group(2)))
