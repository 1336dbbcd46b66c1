"""Cards written in JSON, as in cli.md: ``{"year": 1912, "continent": "EU"}``, ``{"white": "1945"}``,
``{"year": -753, "title": ..., "period": ..., "icons": [...]}``, a sticker payload ``"TC:EXH20:017"``,
or ``null`` for an empty spot. Ancient Knowledge ids (plain strings) are the catalog's business.
"""

from __future__ import annotations

from typing import Literal, overload

from companion.cards.decks import resolve
from companion.cards.model import CONTINENTS, ICONS, PERIODS, WHITES, Card
from companion.errors import BadInput

_FIELDS = {"year", "title", "title_es", "period", "icons", "continent", "white"}


@overload
def parse_card(obj, where: str, allow_empty: Literal[False] = False) -> Card: ...
@overload
def parse_card(obj, where: str, allow_empty: bool) -> Card | None: ...


def parse_card(obj, where: str, allow_empty: bool = False) -> Card | None:
    """A Card from its JSON form; BadInput names ``where`` (a JSON path) and the problem."""
    if obj is None:
        if allow_empty:
            return None
        raise BadInput(where, "a card is needed here, not null")
    if isinstance(obj, str):
        if obj.startswith("TC:"):
            return resolve(obj, where)
        raise BadInput(where, f"{obj!r} is not a card: use an object like {{\"year\": 1969}} "
                              "or a sticker code TC:<DECK>:<N>")
    if not isinstance(obj, dict):
        raise BadInput(where, f"a card must be an object, a sticker code or null, not {type(obj).__name__}")
    extra = set(obj) - _FIELDS
    if extra:
        raise BadInput(f"{where}.{sorted(extra)[0]}", f"unknown card field; known: {', '.join(sorted(_FIELDS))}")
    white = obj.get("white")
    if white is not None:
        if white not in WHITES:
            raise BadInput(f"{where}.white", f"{white!r} is not a white card; one of {', '.join(WHITES)}")
        if obj.get("continent") is not None:
            raise BadInput(f"{where}.continent", "a white card has no continent")
        year = obj.get("year")
        if white == "einstein" and year is not None:
            raise BadInput(f"{where}.year", "the Einstein card has no year")
        if white == "1945" and year not in (None, 1945):
            raise BadInput(f"{where}.year", "the 1945 white card's year is 1945")
        return Card(year=1945 if white == "1945" else None, white=white)
    year = obj.get("year")
    if not isinstance(year, int) or isinstance(year, bool):
        raise BadInput(f"{where}.year", "a card needs a whole-number year (BC as negative)"
                       if year is None else f"{year!r} is not a whole-number year")
    if year == 0:
        raise BadInput(f"{where}.year", "there is no year 0: 1 BC is -1")
    continent = obj.get("continent")
    if continent is not None and continent not in CONTINENTS:
        raise BadInput(f"{where}.continent", f"{continent!r} is not a continent; one of {' '.join(CONTINENTS)}")
    period = obj.get("period")
    if period is not None and period not in PERIODS:
        raise BadInput(f"{where}.period", f"{period!r} is not a period; one of {', '.join(PERIODS)}")
    icons = obj.get("icons", [])
    if not isinstance(icons, list) or any(i not in ICONS for i in icons):
        raise BadInput(f"{where}.icons", f"icons must be a list of {', '.join(ICONS)}")
    for key in ("title", "title_es"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise BadInput(f"{where}.{key}", "a title is text")
    return Card(year=year, title=obj.get("title"), title_es=obj.get("title_es"), period=period,
                icons=tuple(icons), continent=continent)


def card_to_json(card: Card | None):
    """The JSON form of a card (the sticker code when it came from a deck), for logs and output."""
    if card is None:
        return None
    if card.code:
        return card.code
    if card.white:
        return {"white": card.white}
    out: dict = {"year": card.year}
    for key in ("title", "title_es", "period", "continent"):
        if getattr(card, key) is not None:
            out[key] = getattr(card, key)
    if card.icons:
        out["icons"] = list(card.icons)
    return out
