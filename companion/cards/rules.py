"""What a deck's card entry needs for each game (a GameSpec's ``card_rule``): (field, message) when
something is missing or contradicts the game, else None."""

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
    """Exhibition's own card model holds its one check (years 1900-1999 included, decision A29)."""
    from companion.games.exhibition.cards import card_problem

    return card_problem(c)


def ancient_knowledge(c):
    if not c.ak_id:
        return "ak_id", "an Ancient Knowledge card needs its catalog id"
    from companion.games.ancient_knowledge.catalog import catalog

    known = catalog()
    if c.ak_id not in known.builders and c.ak_id not in known.techs:
        hint = known.suggest(c.ak_id)
        return "ak_id", f"{c.ak_id!r} is not an Ancient Knowledge card" + (f"; did you mean {hint[0]}?" if hint else "")
    return None
