"""Card facts, deck files and sticker payloads."""

from companion.cards.model import Card
from companion.cards.payload import Sticker, parse_sticker

__all__ = ["Card", "Sticker", "parse_sticker"]
