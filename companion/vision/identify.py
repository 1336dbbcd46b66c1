"""Codes to cards: the one place vision looks up which card a sticker names (the decoder returns
codes only)."""

from __future__ import annotations

from dataclasses import replace

from companion.cards.model import Card
from companion.i18n import Text


def card_for(payload: str) -> Card | Text:
    """The card a sticker names, or the message saying why there is none (an unknown deck or number;
    a text that is no sticker at all)."""
    from companion.cards.decks import ForeignCode, UnknownCard, resolve
    try:
        return resolve(payload)
    except (UnknownCard, ForeignCode) as e:
        return e.text


def with_cards(detections: list) -> list:
    """The detections, each with ``card`` set to the card it names (None where no deck knows it)."""
    out = []
    for d in detections:
        card = card_for(d.payload)
        out.append(replace(d, card=card if isinstance(card, Card) else None))
    return out
