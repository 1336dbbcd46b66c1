"""A finished 5-player Timeline game fits the default camera plan: its row, wrapped onto lines as
people lay a long row (each line left to right, the next one below), lies in the view of the camera
36 cm above the table, and the tracker reads every placement from the virtual table drawn at the
plan's true sizes (4608x2592, 12.5 mm stickers on 63 x 88 mm cards): every card in the gap where it
was laid, from the first card to the last, the engine judging each one."""

from __future__ import annotations

import random

import pytest
from row_game import deal, gap_for, read

from companion.cards.decks import get_deck
from companion.games import timeline
from companion.play.proposals import CardPlaced, TableMatches
from companion.sim.scene import release_scene_caches
from companion.sim.virtual_table import VirtualTable
from companion.vision import camera_plan
from companion.vision.layouts import RowLayout
from companion.vision.tracker import Tracker

PLAYERS = ["Ana", "Bruno", "Carla", "Dani", "Eva"]
RIGHT = 0.8                 # people who know the game: mostly right
FRAMES = 12                 # a placement is proposed on the second still frame; this is plenty


def _read(tracker: Tracker, table: VirtualTable, want: type):
    return read(tracker, table, want, FRAMES)


def test_the_default_plan_holds_a_finished_five_player_row():
    r = camera_plan.plan()
    assert r["row"]["per_line"] * r["row"]["lines"] >= camera_plan.FINISHED_ROW
    assert r["row"]["lines_for"]["lines"] <= r["row"]["lines"]


@pytest.mark.slow(36)
def test_a_five_player_game_is_read_to_the_end_under_the_default_plan():
    deck = get_deck("HIST")
    year = {c.code: c.year for c in deck.cards.values() if c.code}
    rng = random.Random(31)
    pile = sorted(year)
    state, hands, row = deal(rng, pile, PLAYERS)
    table = VirtualTable.default_plan(seed=4)
    tracker = Tracker("row")
    try:
        table.set_layout(RowLayout(row))
        tracker.expect(RowLayout(row))
        assert isinstance(_read(tracker, table, TableMatches), TableMatches)
        most_lines = 1
        while state.status == "in_progress":
            player = state.current
            assert player is not None
            code = rng.choice(hands[player])
            gap = gap_for(rng, [year[c] for c in row], year[code], RIGHT)
            row.insert(gap, code)
            table.set_layout(RowLayout(row))
            said = _read(tracker, table, CardPlaced)
            assert said == CardPlaced(code, gap), f"laid {code} in gap {gap} of {len(row) - 1} cards"
            most_lines = max(most_lines, _lines(tracker))
            hands[player].remove(code)
            state, events = timeline.apply(state, timeline.parse_action(
                {"type": "place", "player": player, "card": code, "gap": gap}))
            kinds = [e.kind for e in events]
            assert "illegal" not in kinds, events
            if not any(e.kind == "card_placed" and e.data["correct"] for e in events):
                row.remove(code)                # a wrong card leaves the row (Timeline: into the box)
            for e in events:
                if e.kind == "card_drawn":      # after a wrong card, and between sudden-death rounds
                    hands[e.data["player"]].append(pile.pop())
            assert {p: len(h) for p, h in hands.items()} == {p: state.hand(p) for p in PLAYERS}
            tracker.expect(RowLayout(row))
        assert state.winner in PLAYERS
        assert len(row) == len(state.row) >= 21         # 5 x 4 cards and the start card, and more
        assert most_lines >= 2                          # the row did not fit one line: it wrapped
    finally:
        release_scene_caches()


def _lines(tracker: Tracker) -> int:
    """How many lines the row the tracker has just read lies in."""
    from companion.vision.reading_order import reading_order
    return len(reading_order(tracker.detections, "row")[1]) if tracker.detections else 0


class _Code:
    def __init__(self, payload, x, y, angle, side=21.0):
        import numpy as np
        c, s = np.cos(angle), np.sin(angle)
        half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * side / 2
        self.payload = payload
        self.center = (x, y)
        self.corners = half @ np.array([[c, s], [-s, c]]) + (x, y)


def test_a_wrapped_row_reads_line_by_line_as_one_row():
    """Three lines of a turned table, cards laid by hand: lines top to bottom, each left to right."""
    import math

    rng = random.Random(2)
    angle = math.radians(4)
    codes, dets = [], []
    for i in range(29):
        line, place = divmod(i, 12)
        x, y = place * 150 + rng.gauss(0, 3), line * 215 + rng.gauss(0, 4)
        xr, yr = x * math.cos(angle) - y * math.sin(angle), x * math.sin(angle) + y * math.cos(angle)
        codes.append(f"TC:HIST:{i + 1:03d}")
        dets.append(_Code(codes[-1], 500 + xr, 300 + yr, angle + math.radians(rng.gauss(0, 1.5))))
    from companion.vision.reading_order import reading_order
    ordered, lines = reading_order(list(reversed(dets)), "row")
    assert [d.payload for d in ordered] == codes
    assert [len(line) for line in lines] == [12, 12, 5]
    # one line with its cards a little up and down stays one line
    ordered, lines = reading_order(dets[:12], "row")
    assert [d.payload for d in ordered] == codes[:12] and len(lines) == 1
