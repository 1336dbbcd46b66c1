"""What the companion knows about one card."""

from __future__ import annotations

from dataclasses import dataclass

from companion.words import date_words

CONTINENTS = ("OC", "SA", "AF", "AS", "EU", "NA")
PERIODS = ("prehistoria", "antigua", "media", "moderna", "contemporanea")
ICONS = ("replace_opp", "swap", "replace_own")
WHITES = ("1945", "einstein")

# A card's colours, on the kiosk's screen and on the printed cards alike (companion/ui/theme.py,
# companion/print/cards.py). Cronología's period backgrounds, as printed on the demo deck:
PERIOD_COLOURS = {
    "prehistoria": (150, 110, 80),
    "antigua": (196, 160, 64),
    "media": (70, 120, 190),
    "moderna": (150, 80, 160),
    "contemporanea": (200, 70, 70),
}
# Exhibition's continents: Okabe-Ito colours, told apart by most colour-blind players (the continent's
# code is written beside them too); the project's print-and-play uses them too (the box's are not public)
CONTINENT_COLOURS = {"OC": (0, 158, 115), "SA": (230, 159, 0), "AF": (204, 121, 167), "AS": (240, 228, 66),
                     "EU": (0, 114, 178), "NA": (86, 180, 233)}


@dataclass(frozen=True)
class Card:
    """One card's facts. Fields a game does not use stay None.

    - Timeline / Cronología: ``year`` (BC negative), ``title``/``title_es``, ``period``, ``icons``.
    - Exhibition: ``year`` and ``continent``; white cards have ``white`` = "1945" (year 1945, no
      continent) or "einstein" (no year, no continent).
    - Ancient Knowledge: ``ak_id``, the catalog id (numbers live in the catalog).
    ``code`` is the sticker payload when the card came from a deck (``TC:HIST:042``).
    """

    year: int | None = None
    title: str | None = None
    title_es: str | None = None
    period: str | None = None
    icons: tuple[str, ...] = ()
    continent: str | None = None
    white: str | None = None
    ak_id: str | None = None
    code: str | None = None
    circa: bool = False     # the date is a conventional approximation: "c. 300,000 BC"

    def title_in(self, lang: str) -> str | None:
        return (self.title_es if lang == "es" and self.title_es else self.title)

    def date(self, lang: str = "en") -> str:
        """The card's date as its printed face writes it ("c. 300,000 BC"); "?" for a card without one."""
        return "?" if self.year is None else date_words(self.year, lang, self.circa)

    def label(self) -> str:
        """Short human label: the title if known, else the year, else the code."""
        if self.white == "einstein":
            return "Einstein"
        if self.title:
            return self.title
        if self.year is not None:
            return self.date() + (f" {self.continent}" if self.continent else "")
        return self.ak_id or self.code or "?"


def year_label(year: int, lang: str = "en", circa: bool = False) -> str:
    """1969 -> '1969', -753 -> '753 BC', -300000 circa -> 'c. 300,000 BC' (Spanish '753 a. C.',
    'h. 300 000 a. C.'): :func:`companion.words.date_words`, the one way dates are written."""
    return date_words(year, lang, circa)
