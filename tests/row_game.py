"""A Timeline game laid on the virtual table, for the tests that read one with the tracker
(tests/test_vision_long_row.py, tests/test_faces_game.py): the deal, where a player lays a card, how
far from a right gap it lies, and the frames until the tracker says what happened."""

from __future__ import annotations

import random

from companion.games import timeline
from companion.play.proposals import TableDiffers


def deal(rng: random.Random, pile: list[str], players: list[str]):
    """The shuffled ``pile``'s top card starts the row, then each player's hand: (state, hands, row)."""
    rng.shuffle(pile)
    start = pile.pop()
    state = timeline.setup(timeline.complete_setup({"type": "setup", "game": "timeline", "players": players,
                                                     "start": start}))
    hands = {p: [pile.pop() for _ in range(state.hand(p))] for p in players}
    return state, hands, [start]


def right_gaps(years: list[int], year: int) -> list[int]:
    """The gaps of a row of ``years`` where a card of ``year`` is right."""
    return [g for g in range(len(years) + 1)
            if (g == 0 or years[g - 1] <= year) and (g == len(years) or year <= years[g])]


def gap_for(rng: random.Random, years: list[int], year: int, right: float) -> int:
    """Where a player lays a card of ``year`` into a row of ``years``: a right gap ``right`` of the time,
    else the gap beside the right ones (people misjudge a date by a little)."""
    fits = right_gaps(years, year)
    near = [g for g in (fits[0] - 1, fits[-1] + 1) if 0 <= g <= len(years)]
    return rng.choice(fits if rng.random() < right or not near else near)


def off_by(years: list[int], year: int, gap: int) -> int:
    """How many gaps ``gap`` lies from the nearest right one (0: right)."""
    return min(abs(gap - g) for g in right_gaps(years, year))


def read(tracker, table, want: type, frames: int = 12, differs_fails: bool = False):
    """Frames until the tracker says something of kind ``want`` (it waits for a still table); with
    ``differs_fails`` a table said to differ fails at once."""
    said: list = []
    for _ in range(frames):
        said = tracker.feed(table.read())
        if differs_fails and any(isinstance(p, TableDiffers) for p in said):
            raise AssertionError(f"the tracker said {said}")
        found = [p for p in said if isinstance(p, want)]
        if found:
            return found[0]
    raise AssertionError(f"no {want.__name__} in {frames} frames; the tracker said {said}")
