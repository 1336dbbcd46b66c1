"""What a deck's card entry needs for each game (a GameSpec's ``card_rule``): (field, message) when
something is missing or contradicts the game, else None."""

from __future__ import annotations


def dated(c):
    if c.year is None:
        return "year", "a timeline card needs a year"
    return None


def dated_with_period(c):
    if c.year is None:
        return "year", "a cronologia card needs a year"
    if c.period is None:
        return "period", "a cronologia card needs a period"
    return None


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
    return None


def ancient_knowledge(c):
    if not c.ak_id:
        return "ak_id", "an Ancient Knowledge card needs its catalog id"
    return None
