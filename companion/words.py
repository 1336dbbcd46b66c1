"""The words layer: messages built from other messages, rendered in the screen's language all the way down,
and dates written the one way the printed cards write them (docs/adding-a-game.md, "Words").

A :class:`~companion.i18n.Text` renders a parameter that is itself a message in the same language;
these add messages joined from parts and messages worded only when shown, so board views can name
showcases, continents and zones inside sentences in the language the screen asks for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.i18n import N_, Text, fill, translate


def _render(value, lang: str):
    return value.render(lang) if isinstance(value, Text) else value


@dataclass(frozen=True)
class Words(Text):
    """A Text whose Text parameters are rendered in the same language."""

    def render(self, lang: str = "en") -> str:
        params = {k: _render(v, lang) for k, v in self.params.items()}
        return fill(translate(self.msgid, lang), params)


@dataclass(frozen=True)
class Joined(Text):
    """Several messages (or plain strings) in a row, e.g. "One Era 2, Plain 4"."""

    parts: tuple = ()
    sep: str = ", "

    def render(self, lang: str = "en") -> str:
        return self.sep.join(str(_render(p, lang)) for p in self.parts)


def joined(parts, sep: str = ", ") -> Joined:
    return Joined("", {}, tuple(parts), sep)


@dataclass(frozen=True)
class Later(Text):
    """A message worded only when it is shown: ``fn(lang)`` gives the text."""

    fn: Callable[[str], str] = str

    def render(self, lang: str = "en") -> str:
        return self.fn(lang)


def later(fn) -> Later:
    return Later("", {}, fn)


NBSP = "\u00a0"


def date_words(year: int, lang: str = "en", circa: bool = False) -> str:
    """A card's date the one way the project writes it, as the printed card does: 1969, 753 BC,
    c. 300,000 BC; Spanish 753 a. C., h. 300 000 a. C. (RAE: groups of three split by a space, not a
    point; "h." for "hacia"). Digits are grouped from 10,000 up. No-break spaces hold "c. 300,000" and
    "a. C." together; the one plain space, before the era, is where a narrow card tile may break the
    date in two ("c. 300,000" over "BC")."""
    n = abs(year)
    digits = str(n) if n < 10000 else f"{n:,}".replace(",", NBSP if lang == "es" else ",")
    if circa:
        digits = translate(N_("c. {year}"), lang).format(year=digits).replace(" ", NBSP)
    if year >= 0:
        return digits
    return f"{digits} a.{NBSP}C." if lang == "es" else f"{digits} BC"


def counted(n: int, noun: str) -> str:
    """'1 card', '2 cards': English command-line output (the kiosk's messages go through translations)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
