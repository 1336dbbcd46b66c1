"""What a deck's card entry needs for each game (a GameSpec's ``card_rule``): (field, message) when
something is missing or contradicts the game, else None. A rule that needs a game's own data lives
with the game (Ancient Knowledge's catalog ids: companion/games/ancient_knowledge/catalog.py)."""

from __future__ import annotations

import datetime


def _history(year: int):
    """A historical event has happened: a year after this one is a typing mistake (3000 for 300?)."""
    now = datetime.date.today().year
    return ("year", f"{year} is after this year ({now}): a card dates something that has happened") \
        if year > now else None


def dated(c):
    if c.year is None:
        return "year", "a timeline card needs a year"
    return _history(c.year)


def dated_with_period(c):
    if c.year is None:
        return "year", "a cronologia card needs a year"
    if c.period is None:
        return "period", "a cronologia card needs a period"
    return _history(c.year)


def exhibition(c):
    if c.white is None and (c.year is None or c.continent is None):
        field = "continent" if c.year is not None else "year"
        return field, "an Exhibition card needs a year and a continent, or white"
    if c.white is not None and c.continent is not None:
        return "continent", "a white card has no continent"
    if c.white == "einstein" and c.year is not None:
        return "year", "the Einstein card has no year"
    if c.white == "1945" and c.year not in (None, 1945):
        return "year", "the 1945 white card's year is 1945"
    if c.year is not None and not 1900 <= c.year <= 1999:
        return "year", f"{c.year} is not in the twentieth century: Exhibition's cards are from 1900 to 1999"
    return None

