"""The demo's simulated players play the row games like people: right about two times in three, and
a wrong card only one gap off (a date misjudged by a little, never by centuries)."""

from __future__ import annotations

import random

import pytest

from companion.config import Config
from companion.games.base import fold


def _off_by(years: list[int], year: int, gap: int) -> int:
    """How many gaps ``gap`` lies from the nearest right one (0: right)."""
    right = [g for g in range(len(years) + 1)
             if (g == 0 or years[g - 1] <= year) and (g == len(years) or year <= years[g])]
    return min(abs(gap - g) for g in right)


def test_a_wrong_card_lands_one_gap_off_about_one_time_in_three():
    from companion.ui.demo import row_gap
    rng = random.Random(7)
    offs = []
    for _ in range(3000):
        years = sorted(rng.randrange(-3000, 2020) for _ in range(rng.randrange(1, 30)))
        year = rng.randrange(-3000, 2020)
        offs.append(_off_by(years, year, row_gap(years, year, rng, 0.3)))
    assert max(offs) == 1
    assert 0.27 <= sum(offs) / len(offs) <= 0.33


@pytest.mark.slow(10)
def test_the_cronologia_demo_players_are_wrong_a_third_of_the_time_by_one_gap():
    """A whole autoplayed game of Cronología (competitive), counted from its log: each placement
    against the row the engine held then."""
    from companion import app

    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    k.demo.tour = []
    k.demo.games = ["cronologia-competitive"]
    for _ in range(4000):
        k.demo.tick(k.clock())
        k.step()
        if k.stack.top is not None and k.stack.top.name == "score" and k.session is not None:
            break
    session = k.session
    assert session is not None and not session.in_progress()
    engine = session.engine
    offs = []
    for i, line in enumerate(session.lines):
        if line["type"] != "place":
            continue
        row = engine.cards_on_table(fold(engine, session.setup_line, session.lines[:i]))
        card = session.card(line["card"])
        offs.append(_off_by([c.year for c in row], card.year, line["gap"]))
    wrong = sum(1 for off in offs if off)
    assert len(offs) >= 10
    assert max(offs) == 1, offs                       # a near gap, never centuries off
    print(f"Cronología demo: {wrong} of {len(offs)} placements wrong, each {max(offs)} gap off")
    assert wrong / len(offs) <= 0.4, (wrong, len(offs))
