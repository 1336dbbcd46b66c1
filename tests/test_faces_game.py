"""A Timeline game played to its end with an enrolled, unstickered deck: the tracker names each laid
card by its face, and every verdict is the one the same game gets with stickered cards. Both games are
played on the virtual table (1920x1080, cards 125 px wide, a row wrapped onto lines as people lay
it), whose frames are the Pi camera's (grey, with its colour planes); the faces are the project's
drawn faces of the deck's cards, enrolled flat (as from scanned pages)."""

from __future__ import annotations

import random

import pytest
from row_game import deal, gap_for, read

from companion.cards.decks import get_deck
from companion.games import timeline
from companion.play.proposals import CardPlaced, TableMatches
from companion.sim.face_art import deck_faces
from companion.sim.scene import CARD_H, CARD_W, release_scene_caches
from companion.sim.virtual_table import VirtualTable
from companion.vision import enrol
from companion.vision.faces_tracking import FaceReader
from companion.vision.layouts import RowLayout
from companion.vision.tracker import Tracker

PLAYERS = ["Ana", "Bruno", "Carla"]
FRAMES = 12


def _read(tracker: Tracker, table: VirtualTable, want: type):
    return read(tracker, table, want, FRAMES, differs_fails=True)


def _play(seed: int, faces: dict | None, index=None) -> list:
    """The game's verdicts (each placement's events), read from the table."""
    deck = get_deck("HIST")
    year = {c.code: c.year for c in deck.cards.values() if c.code}
    rng = random.Random(seed)
    pile = sorted(year)[:60]
    state, hands, row = deal(rng, pile, PLAYERS)
    table = VirtualTable(1920, 1080, 5, px_per_module=2.6, card=(CARD_W, CARD_H, 6, 10), wrap=True, faces=faces,
                         camera_frames=True)
    reader = FaceReader(index, card_px=table.card_px()) if index is not None else None
    tracker = Tracker("row", faces=reader)
    verdicts = []
    try:
        table.set_layout(RowLayout(row))
        tracker.expect(RowLayout(row))
        _read(tracker, table, TableMatches)
        while state.status == "in_progress":
            player = state.current
            code = rng.choice(hands[player])
            gap = gap_for(rng, [year[c] for c in row], year[code], 0.7)
            row.insert(gap, code)
            table.set_layout(RowLayout(row))
            said = _read(tracker, table, CardPlaced)
            hands[player].remove(code)
            state, events = timeline.apply(state, timeline.parse_action(
                {"type": "place", "player": player, "card": said.code, "gap": said.gap}))
            verdicts.append((said, [(e.kind, e.data) for e in events]))
            if not any(e.kind == "card_placed" and e.data["correct"] for e in events):
                row.remove(code)
            for e in events:
                if e.kind == "card_drawn":
                    hands[e.data["player"]].append(pile.pop())
            tracker.expect(RowLayout(row))
        verdicts.append(("winner", state.winner))
    finally:
        release_scene_caches()
    return verdicts


@pytest.mark.slow(60)
def test_a_timeline_game_with_an_enrolled_unstickered_deck_gets_the_stickered_games_verdicts():
    deck = get_deck("HIST")
    pictures = deck_faces(deck, "date", sorted(deck.cards)[:60])
    enrolment = enrol.Enrolment(deck)
    for payload, picture in pictures.items():
        enrolment.add(int(payload.split(":")[2]), "date", picture)
    enrolled = enrolment.result()
    assert enrol.look_alikes(enrolled) == []
    stickered = _play(8, None)
    by_face = _play(8, pictures, enrolled.index())
    assert by_face == stickered
    assert stickered[-1][1] in PLAYERS and len(stickered) >= 9
