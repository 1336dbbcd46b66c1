"""The demo's simulated players play the row games like people: right about two times in three, and
a wrong card only one gap off (a date misjudged by a little, never by centuries). A whole autoplayed
Cronología game is counted the same way in tests/test_demo_games.py, which plays it anyway."""

from __future__ import annotations

import random

from row_game import off_by


def test_a_wrong_card_lands_one_gap_off_about_one_time_in_three():
    from companion.ui.demo import row_gap
    rng = random.Random(7)
    offs = []
    for _ in range(3000):
        years = sorted(rng.randrange(-3000, 2020) for _ in range(rng.randrange(1, 30)))
        year = rng.randrange(-3000, 2020)
        offs.append(off_by(years, year, row_gap(years, year, rng, 0.3)))
    assert max(offs) == 1
    assert 0.27 <= sum(offs) / len(offs) <= 0.33
