"""A date on a card tile is always drawn whole: "44 …" next to "79" would read as AD 44."""

from __future__ import annotations

import pygame
import pytest

from companion.cards.model import Card, year_label
from companion.ui.canvas import Canvas
from companion.ui.games._draw import grid_of_cards, row_of_cards

YEARS = [-10000, -3000, -753, -44, -1, 79, 1066, 1492, 1969, 2001, -12345, 2024]


def _drawn(size, draw):
    pygame.init()
    c = Canvas(pygame.Surface(size), "en")
    draw(c)
    return c.drawn


def _mid(d) -> float:
    return d.rect[0] + d.rect[2] / 2


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
@pytest.mark.parametrize("n", [5, 12, 24])
def test_every_year_in_a_row_is_whole(size, n):
    cards = [Card(year=YEARS[i % len(YEARS)], title="A rather long title of a card") for i in range(n)]
    area = pygame.Rect(300, 60, size[0] - 320, size[1] // 2)
    drawn = _drawn(size, lambda c: row_of_cards(c, area, cards, gap_mark=n // 2, new_card=cards[0]))
    assert not [d for d in drawn if d.cut and d.role.startswith("card")], [d for d in drawn if d.cut]
    numbers = [d for d in drawn if d.role == "card"]
    eras = [d for d in drawn if d.role == "card-era"]
    # a year is whole on its line, or its number is over its era, as big as each other ("44" over "BC")
    for d in numbers:
        assert d.text in {year_label(card.year) for card in cards} or \
            any(e.px == d.px and abs(_mid(e) - _mid(d)) <= 1 and e.text == "BC" for e in eras), d
    # the cards left off the screen are counted at its ends
    more = sum(int(d.text[1:]) for d in drawn if d.role == "more" and d.text.startswith("+"))
    assert len(numbers) + len([d for d in drawn if d.role == "card-new"]) + more == n + 1


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_every_year_in_the_grid_is_whole(size):
    rows = [[Card(year=YEARS[(r * 5 + col) % len(YEARS)], title="Title") for col in range(5)] for r in range(5)]
    gaps = [[None] * 5 for _ in range(4)]
    area = pygame.Rect(300, 60, size[0] - 320, size[1] - 200)
    drawn = _drawn(size, lambda c: grid_of_cards(c, area, rows, gaps))
    assert not [d for d in drawn if d.cut and d.role.startswith("card")], [d for d in drawn if d.cut]


def test_the_start_card_read_back_says_bc_in_the_screen_language():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from board_kiosk import detection

    from companion.ui.games.timeline import TimelineView
    codes, said = TimelineView().read_setup([detection("TC:HIST:001", 100, 100)], True, None)
    assert codes == ["TC:HIST:001"]
    # as the printed card writes it: "c." (Spanish "h."), digits grouped (Spanish by spaces, as the RAE asks)
    assert said.render("en") == "Read: c.\u00a03,200,000 BC. Press OK to start."
    assert "h.\u00a03\u00a0200\u00a0000 a.\u00a0C." in said.render("es") and "BC" not in said.render("es")


def test_the_missing_start_cards_are_counted_in_good_grammar():
    from companion.ui.games.cronologia import CronologiaCompetitiveView
    from companion.ui.games.timeline import TimelineView
    _codes, said = TimelineView().read_setup([], True, None)
    assert said.render("en") == "The camera does not see the starting card yet."
    assert said.render("es") == "La cámara aún no ve la carta inicial."
    _codes, said = CronologiaCompetitiveView().read_setup([], True, None)
    assert said.render("en") == "The camera sees 0 of the 5 starting cards."
    assert said.render("es") == "La cámara ve 0 de las 5 cartas iniciales."


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_an_approximate_date_is_drawn_whole_with_its_c(size):
    cards = [Card(year=y, circa=True, title="Title") for y in (-3200000, -800000, -300000, -15000, -9500)]
    area = pygame.Rect(300, 60, size[0] - 320, size[1] // 2)
    drawn = _drawn(size, lambda c: row_of_cards(c, area, cards, gap_mark=2, new_card=cards[0]))
    assert not [d for d in drawn if d.cut and d.role.startswith("card")], [d for d in drawn if d.cut]
    # "c. 3,200,000" (its era may sit below it; on a narrow tile the "c." above its number, never dropped);
    # the cards the row has no room for are counted at its ends
    firsts = [d.text for d in drawn if d.role == "card"]
    assert firsts and all(t.startswith("c.") for t in firsts), firsts
    shown = " ".join(d.text for d in drawn if d.role in ("card", "card-era")).replace("\u00a0", " ")
    assert all(card.date("en").split(" ")[0].replace("\u00a0", " ") in shown
               for card in cards if card.date("en").split(" ")[0].split("\u00a0")[1] in shown)
    more = sum(int(d.text[1:]) for d in drawn if d.role == "more" and d.text.startswith("+"))
    assert len(firsts) + more == len(cards)


def test_a_date_that_ends_a_sentence_ends_it_with_its_own_stop():
    """"753 a. C." ends a sentence as it is: never "a. C.." (nor "B.C.."), in either language, wherever a
    message puts a date (or any words ending in a stop) last: every message is filled by ``i18n.fill``."""
    from companion.cards.decks import get_deck
    from companion.games.base import Event
    from companion.i18n import Text, fill
    from companion.ui.games.timeline import TimelineView

    bc = sorted((c for c in get_deck("HIST").cards.values() if c.year is not None and c.year < 0), key=lambda c: c.year)
    placed = [Event("card_placed", {"correct": True, "player": "Ana"})]
    for lang, era in (("en", "BC"), ("es", "a.\u00a0C.")):
        reason = TimelineView().verdict({"card": bc[10].code, "gap": 2, "player": "Ana"}, placed, [bc[0], bc[5]],
                                        None, lang).reason
        assert reason.endswith(f"{bc[5].date(lang)}" + ("." if lang == "en" else "")) and ".." not in reason, reason
        assert reason.endswith(era + ("." if lang == "en" else ""))
    assert Text("It is from {year}. Next: {what}.", {"year": "753 B.C.", "what": "Rome"}).render() == \
        "It is from 753 B.C. Next: Rome."
    assert fill("{a} and {b}.", {"a": "1 a. C.", "b": 5}) == "1 a. C. and 5."
