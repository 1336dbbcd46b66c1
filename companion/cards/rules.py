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

