"""One place turns decoded codes into cards: the decoder returns codes, vision.identify names them, and
the tracker's detections carry the cards the kiosk reads."""

from companion.cards.model import Card
from companion.i18n import Text
from companion.sim.scene import demo_codes, render_table
from companion.vision.decode import Detection, decode
from companion.vision.identify import card_for, with_cards
from companion.vision.layouts import RowLayout
from companion.vision.tracker import Tracker


def test_a_known_code_names_its_card_and_an_unknown_one_says_why():
    card = card_for("TC:DEMO:001")
    assert isinstance(card, Card) and card.code == "TC:DEMO:001"
    for payload in ("TC:ZZZZ:001", "TC:DEMO:999", "https://example.com"):
        assert isinstance(card_for(payload), Text) and card_for(payload).render("en")


def test_with_cards_fills_in_the_card_and_leaves_the_rest():
    corners = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    known, unknown = Detection("TC:DEMO:002", corners, (5.0, 5.0)), Detection("TC:ZZZZ:001", corners, (5.0, 5.0))
    a, b = with_cards([known, unknown])
    assert a.card.code == "TC:DEMO:002" and a.payload == known.payload and a.corners == corners
    assert b.card is None and b.payload == "TC:ZZZZ:001"


def test_the_tracker_hands_the_kiosk_detections_with_their_cards():
    codes = demo_codes(5)
    scene = render_table(RowLayout(codes), width=1280, height=720, px_per_module=3.3, seed=2)
    assert all(d.card is None for d in decode(scene.image).codes)          # the decoder names no card
    tracker = Tracker("row")
    tracker.expect(RowLayout(codes))
    for _ in range(3):
        tracker.feed(scene.image)
    assert sorted(d.payload for d in tracker.detections) == sorted(codes)
    assert all(d.card is not None and d.card.code == d.payload for d in tracker.detections)
