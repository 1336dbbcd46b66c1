"""Exhibition cards as the rules see them: a year (None for Einstein) and a continent (None for the
two white cards). The cards themselves are :class:`companion.cards.model.Card`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeGuard, overload

from companion.cards.json_cards import card_to_json, parse_card
from companion.cards.model import Card, year_label
from companion.errors import BadInput
from companion.i18n import N_, Text
from companion.words import joined

__all__ = ["DECADES", "FIRST_YEAR", "LAST_YEAR", "Card", "card_json", "card_problem", "coloured", "decade", "fixed",
           "from_text", "label", "parse", "said", "said_all", "same_card"]

DECADES = tuple(range(1900, 2000, 10))     # the Secret Decade cards: 1900s to 1990s
FIRST_YEAR, LAST_YEAR = 1900, 1999         # every subject card dates from the twentieth century (A29)

if TYPE_CHECKING:
    # What fixed() and coloured() tell the type checker about a card; no such objects exist.
    class Dated(Card):
        year: int

    class Coloured(Dated):
        continent: str     # and a year: parse() lets in no card with a continent but no year


def fixed(c: Card | None) -> TypeGuard[Dated]:
    """Every card except Einstein (and an empty spot) has a year."""
    return c is not None and c.year is not None


def coloured(c: Card | None) -> TypeGuard[Coloured]:
    """Every card except the two white cards has a continent."""
    return c is not None and c.continent is not None


def decade(year: int) -> int:
    """1900 is in the 1900s, 1999 in the 1990s."""
    return year // 10 * 10


def label(c: Card | None) -> str:
    """How players name a card: ``1953 AF``, ``1945 white``, ``Einstein``; ``empty`` for no card."""
    if c is None:
        return "empty"
    if c.white == "einstein":
        return "Einstein"
    if c.white == "1945":
        return "1945 white"
    return f"{c.year} {c.continent}"


def said(c: Card | None) -> Text | str:
    """A card named in a reason: :func:`label`, with the white 1945 card and an empty spot worded in the
    reader's language (Spanish "1945 blanca", "un hueco vacío")."""
    if c is None:
        return Text(N_("an empty spot"))
    if c.white == "1945":
        return Text(N_("1945 white"))
    return label(c)


def said_all(cards) -> Text:
    """Several cards named in a reason, each as :func:`said` names it."""
    return joined([said(c) for c in cards])


def same_card(a: Card, b: Card) -> bool:
    """The same physical card: by sticker code when both have one, else by the facts (decks may hold
    duplicate years, decision A14, so equal facts are interchangeable)."""
    if a.code and b.code:
        return a.code == b.code
    return (a.year, a.continent, a.white) == (b.year, b.continent, b.white)


def card_problem(c: Card) -> tuple[str, str] | None:
    """What makes ``c`` no Exhibition card, as (field, message), or None: the one check of Exhibition's
    cards, for tables and log lines (:func:`parse`) and for decks (the game's ``card_rule``). The shared
    parser lets any whole year through, as Timeline needs (-753); Exhibition's cards are from 1900 to
    1999 only (decision A29: one Secret Decade card per decade, Number of Decades at most 10)."""
    if c.white is None and (c.year is None or c.continent is None):
        field = "continent" if c.year is not None else "year"
        return field, "an Exhibition card needs a year and a continent, or white"
    if c.white is not None and c.continent is not None:
        return "continent", "a white card has no continent"
    if c.white == "einstein" and c.year is not None:
        return "year", "the Einstein card has no year"
    if c.white == "1945" and c.year not in (None, 1945):
        return "year", "the 1945 white card's year is 1945"
    if c.year is not None and not FIRST_YEAR <= c.year <= LAST_YEAR:
        return "year", (f"{year_label(c.year)} is not in the twentieth century: Exhibition's cards are from "
                        f"{FIRST_YEAR} to {LAST_YEAR}")
    return None


@overload
def parse(obj, where: str, allow_empty: Literal[False] = False) -> Card: ...
@overload
def parse(obj, where: str, allow_empty: bool) -> Card | None: ...


def parse(obj, where: str, allow_empty: bool = False) -> Card | None:
    """An Exhibition card from its JSON form (cli.md) or a sticker payload; BadInput names where."""
    card = parse_card(obj, where, allow_empty=allow_empty)
    if card is None:
        return None
    if card.white is None and card.continent is None:
        if isinstance(obj, str):
            raise BadInput(where, f"{obj} ({card.label()}) is not an Exhibition card: it has no continent")
        raise BadInput(f"{where}.continent", "an Exhibition card needs a continent (OC SA AF AS EU NA), or is white")
    if card.white is None and card.year is None:
        raise BadInput(where, f"{obj} ({card.label()}) is not an Exhibition card: it has no year")
    wrong = card_problem(card)
    if wrong is not None:
        field, message = wrong
        if isinstance(obj, str):        # a sticker code: its deck holds the card, the code is what was written
            raise BadInput(where, f"{obj} ({card.label()}): {message}")
        raise BadInput(f"{where}.{field}", message)
    return card


def from_text(text: str | None) -> Card | None:
    """A card from the way players write it: ``"1953 AF"``, ``"1945"`` (the white card), ``"Einstein"``;
    ``None`` or ``"-"`` for an empty spot. For tests, docs and typing at a console."""
    if text is None or text == "-":
        return None
    if text.lower() == "einstein":
        return Card(white="einstein")
    if text in ("1945", "1945 white"):
        return Card(year=1945, white="1945")
    year, continent = text.split()
    if continent not in ("OC", "SA", "AF", "AS", "EU", "NA"):
        raise ValueError(f"{text!r}: unknown continent {continent!r}")
    return Card(year=int(year), continent=continent)


def card_json(c: Card | None):
    """The cli.md JSON form of a card (its sticker code when it came from a deck)."""
    return card_to_json(c)
