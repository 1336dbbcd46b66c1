"""Translations: English in the code, Spanish in gettext catalogs under assets/translations/.

Engines never translate: they return a :class:`Text` (an English msgid plus its parameters), and
whoever shows it -- the kiosk, the command line -- renders it in the player's language. Catalogs are
plain ``.po`` files, one per room (``assets/translations/es/<room>.po``), compiled in memory at
start-up with Babel, so no binary files live in the repository.
"""

from __future__ import annotations

import gettext
import io
from dataclasses import dataclass, field
from functools import cache, lru_cache

from companion.paths import assets_dir

LANGUAGES = ("en", "es")

# Every msgid marked with N_ anywhere in the code; a test checks each has a Spanish translation.
MARKED: set[str] = set()


def N_(msgid: str) -> str:
    """Mark a string for translation without translating it now."""
    MARKED.add(msgid)
    return msgid


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message whose wording depends on a count (its singular and plural English msgids) for
    translation without translating it now; see :class:`Plural`."""
    MARKED.update((singular, plural))
    return singular, plural


def fill(template: str, params: dict) -> str:
    """``template`` with its ``{named}`` parameters put in (``str.format``), without a sentence's full
    stop after a parameter that already ends in one: a date ends a sentence as "753 a. C." or "753
    B.C.", never "a. C.." (after an abbreviation's stop the sentence takes no other, in Spanish as in
    English). Every message is filled here, so no message can double it."""
    for name, value in params.items():
        if isinstance(value, str) and value.endswith("."):
            template = template.replace("{" + name + "}.", "{" + name + "}")
    return template.format(**params)


@dataclass(frozen=True)
class Text:
    """A message to show a person: an English msgid with ``{named}`` parameters."""

    msgid: str
    params: dict = field(default_factory=dict)

    def render(self, lang: str = "en") -> str:
        """The message in ``lang``; a parameter that is itself a message is worded in ``lang`` too."""
        params = {k: v.render(lang) if isinstance(v, Text) else v for k, v in self.params.items()}
        return fill(translate(self.msgid, lang), params)

    def __str__(self) -> str:
        return self.render("en")


@dataclass(frozen=True)
class Plural(Text):
    """A message worded by a count, the way gettext's ngettext does it: ``msgid`` the singular,
    ``plural`` the plural, ``count`` the parameter that picks the form (the catalog's Plural-Forms
    in Spanish; "1 card", "0 cards" in English)."""

    plural: str = ""
    count: str = "n"

    def render(self, lang: str = "en") -> str:
        params = {k: v.render(lang) if isinstance(v, Text) else v for k, v in self.params.items()}
        return fill(translate_plural(self.msgid, self.plural, int(self.params[self.count]), lang), params)


def plural(forms: tuple[str, str], n: int, **params) -> Plural:
    """A count in words, its noun agreeing with it: ``forms`` are the singular and plural msgids (marked
    with NP_), ``{n}`` the count in them ("1 monument", "6 megalitos")."""
    return Plural(forms[0], {"n": n, **params}, plural=forms[1])


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    merged = gettext.NullTranslations()
    folder = assets_dir() / "translations" / lang
    for po in sorted(folder.glob("*.po")):
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=lang)
        buf = io.BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        part = gettext.GNUTranslations(buf)
        part.add_fallback(merged)
        merged = part
    return merged


@lru_cache(maxsize=8192)
def translate(msgid: str, lang: str = "en") -> str:
    """``msgid`` in ``lang`` (remembered: the kiosk words every text of every frame, and a miss walks
    every room's catalog)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    return _catalog(lang).gettext(msgid)


def translate_plural(singular: str, plural: str, n: int, lang: str = "en") -> str:
    """ngettext: the form of a message for the count ``n`` in ``lang``."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    return _catalog(lang).ngettext(singular, plural, n)


class Literal(str):
    """A string that is already in the reader's language (a name, a card title, a number): shown as it
    is, never looked up as a message."""


def render(msg, lang: str) -> str:
    """A message (Text) in ``lang``; a plain or Literal string as it is."""
    return msg.render(lang) if isinstance(msg, Text) else str(msg)


Msg = Text | str      # something to show: a message to translate (Text, a msgid) or a Literal to show as it is
