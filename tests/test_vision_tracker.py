"""The tracker's logic on hand-made detections: still-table gating, hands, rows, grids, boards, codes
that are foreign or unknown, a lost camera, flat memory. (Real rendered frames: test_vision_tracker_scenes.)"""

import tracemalloc
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from hand_detections import det

from companion.cards.decks import resolve
from companion.play.proposals import (
    CardPlaced,
    CardPlacedInGrid,
    CardPlacedOnSpot,
    CardRemoved,
    ForeignCode,
    TableDiffers,
    TableMatches,
    UnknownSticker,
)
from companion.vision import tracker as tr
from companion.vision.boards import draw_board, load_board
from companion.vision.layouts import BoardLayout, GridLayout, RowLayout
from companion.vision.tracker import Tracker


def code(n):
    return f"TC:DEMO:{n:03d}"


class FakeTable:
    """A table the test lays out by hand: ``place`` puts a sticker at a point; the frame shows a
    light rectangle per card (so laying one is a change the camera sees); ``decode`` reads back what
    lies there, except codes in ``unread`` (and those only fused frames read: ``needs_burst``)."""

    def __init__(self, size=(360, 640)):
        self.size = size
        self.items: dict[str, tuple] = {}
        self.unread: set = set()
        self.needs_burst: set = set()
        self.decodes = 0
        self.bursts = 0

    def place(self, payload, x, y):
        self.items[payload] = (x, y)

    def remove(self, payload):
        self.items.pop(payload, None)

    def frame(self, blob=None, noise_seed=None):
        h, w = self.size
        img = np.full((h, w, 3), 90, np.uint8)
        for x, y in self.items.values():
            cv2.rectangle(img, (int(x - 14), int(y - 20)), (int(x + 14), int(y + 20)), (230, 230, 230), -1)
        if blob is not None:
            cv2.circle(img, (int(blob[0]), int(blob[1])), 40, (60, 120, 190), -1)
        if noise_seed is not None:
            rng = np.random.default_rng(noise_seed)
            img = np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)
        return img

    def _result(self, skip):
        codes, foreign = [], []
        for p, (x, y) in self.items.items():
            if p in skip:
                continue
            (codes if p.startswith("TC:") else foreign).append(det(p, x, y))
        return SimpleNamespace(codes=codes, foreign=foreign)

    def decode(self, frame, known=(), upscale=True):
        self.decodes += 1
        return self._result(self.unread | self.needs_burst)

    def decode_burst(self, frames, **kw):
        self.bursts += 1
        return self._result(self.unread)


def by_x(detections, layout="row"):
    ordered = sorted(detections, key=lambda d: d.center[0])
    return ordered, [list(range(len(ordered)))]


def tracker(kind, table):
    return Tracker(kind, decoder=table.decode, burst_decoder=table.decode_burst, order=by_x)


def lay_row(table, codes, y=180, x0=60, step=60):
    for i, c in enumerate(codes):
        table.place(c, x0 + i * step, y)


def feed(t, table, n, **kw):
    return [t.feed(table.frame(**kw)) for _ in range(n)]


def read_row(unread=()):
    """A row of two cards, read until its reading agreed (settled, unless a code is in ``unread``)."""
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    table.unread.update(unread)
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    feed(t, table, 3)
    return table, t


# -- stillness ------------------------------------------------------------------------------------------

def test_nothing_is_said_until_two_still_frames_agree():
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    out = feed(t, table, 3)
    assert out == [[], [], [TableMatches()]]          # first frame: nothing to compare with; then 2 reads
    assert [d.payload for d in t.detections] == [code(1), code(5)]


def test_a_new_card_is_proposed_on_the_second_still_frame():
    table = FakeTable()
    lay_row(table, [code(1), code(5), code(9)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5), code(9)]))
    feed(t, table, 4)
    table.place(code(7), 150, 180)                     # between the 2nd and 3rd card
    out = feed(t, table, 3)
    assert out[0] == []                                # the frame in which it appeared: not still
    assert out[1] == []                                # first still frame: read once
    assert out[2] == [CardPlaced(code(7), 2)]          # second still frame: the same reading, proposed


def test_sensor_noise_and_exposure_drift_are_still():
    table = FakeTable()
    lay_row(table, [code(1)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1)]))
    outs = []
    for i in range(6):
        f = table.frame(noise_seed=i).astype(np.int16) + 3 * i   # the camera's exposure creeps up
        outs.append(t.feed(np.clip(f, 0, 255).astype(np.uint8)))
    assert outs[-1] == [TableMatches()]


def test_hands_over_the_table_are_ignored_and_not_decoded():
    table, t = read_row()
    before = table.decodes
    table.place(code(3), 90, 180)
    table.unread.add(code(5))                          # the hand covers a card
    for i in range(30):
        assert t.feed(table.frame(blob=(100 + 15 * i, 150 + (i % 4) * 10))) == []
    assert table.decodes == before                     # a moving table is not even decoded
    table.unread.clear()
    out = feed(t, table, 3)                            # the hand is gone
    assert out[-1] == [CardPlaced(code(3), 1)]


def test_what_was_read_is_forgotten_while_the_table_moves():
    # a setup read from the detections must never be the cards being cleared away
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    feed(t, table, 3)
    assert len(t.detections) == 2
    t.feed(table.frame(blob=(100, 150)))
    assert t.detections == []
    feed(t, table, 2)
    assert [d.payload for d in t.detections] == [code(1), code(5)]


def test_a_hand_resting_still_is_a_table_that_differs_never_a_removal():
    table = FakeTable()
    lay_row(table, [code(1), code(5), code(9)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5), code(9)]))
    table.unread.add(code(5))
    out = feed(t, table, 4, blob=(120, 180))
    assert len(out[-1]) == 1 and isinstance(out[-1][0], TableDiffers)
    assert out[-1][0].message.render("en") == "“First Olympic Games” (776 BC) is not seen in the row."
    assert "no se ve" in out[-1][0].message.render("es")


def test_an_expected_code_unread_in_single_frames_is_fused_from_the_still_ones():
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    table.needs_burst.add(code(5))
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    out = feed(t, table, 4)
    assert out[-1] == [TableMatches()]
    assert table.bursts >= 2


def test_a_still_table_keeps_its_proposal_and_a_flicker_interrupts_it():
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    out = feed(t, table, 30)
    assert all(o == [TableMatches()] for o in out[2:])
    table.unread.add(code(5))                       # frames miss a code (and fusing misses it too)
    out = feed(t, table, tr.RECHECK_EVERY)
    k = out.index([])                               # seen at the settled table's next reading: nothing said
    assert all(o == [TableMatches()] for o in out[:k])
    table.unread.clear()
    assert t.feed(table.frame()) == []              # differs from the one before: still nothing
    assert t.feed(table.frame()) == [TableMatches()]


def test_a_settled_table_is_read_again_only_now_and_then():
    table, t = read_row()
    before = table.decodes
    out = feed(t, table, 3 * tr.RECHECK_EVERY)
    assert all(o == [TableMatches()] for o in out)
    assert table.decodes - before == 3                  # one reading every RECHECK_EVERY still frames
    assert t.feed(table.frame(blob=(300, 180))) == []    # a hand: the table is no longer settled
    before = table.decodes
    out = feed(t, table, 3)
    assert out == [[], [], [TableMatches()]] and table.decodes - before == 2
    t.expect(RowLayout([code(1), code(5)]))             # a new expectation is read afresh
    assert t.feed(table.frame()) == [] and table.decodes - before == 3


def test_a_settled_table_that_changes_by_creeping_steps_is_read_again():
    # each step is too small to count as motion, but together they are not the picture that was read
    table, t = read_row()
    before = table.decodes
    steps = tr.Motion()
    for step in range(tr.RECHECK_EVERY - 2):
        img = table.frame()
        img[250:262, 400:400 + 6 * step] = 250               # a light shape growing 6 pixels a frame
        assert steps.update(img) or step == 0                # no step is motion
        t.feed(img)
    assert table.decodes > before


def test_a_table_missing_an_expected_code_is_read_every_still_frame():
    table, t = read_row(unread={code(5)})
    before = table.decodes
    feed(t, table, tr.RECHECK_EVERY)
    assert table.decodes - before == tr.RECHECK_EVERY


def test_expect_starts_fresh_reads():
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1)]))
    feed(t, table, 3)
    assert t.feed(table.frame()) == [CardPlaced(code(5), 1)]
    t.expect(RowLayout([code(1), code(5)]))            # confirmed: the same table now matches
    assert t.feed(table.frame()) == []
    assert t.feed(table.frame()) == [TableMatches()]


# -- row -----------------------------------------------------------------------------------------------

def row(expected, seen):
    cards = {c: resolve(c) for c in set(expected) | set(seen)}
    return tr.row_proposals(RowLayout(expected), seen, cards)


def test_row_cases():
    a, b, c, d = code(1), code(5), code(9), code(20)
    assert row([a, b, c], [a, b, c]) == [TableMatches()]
    assert row([a, b, c], [d, a, b, c]) == [CardPlaced(d, 0)]
    assert row([a, b, c], [a, b, c, d]) == [CardPlaced(d, 3)]
    assert row([], [d]) == [CardPlaced(d, 0)]
    def msg(out):
        return out[0].message.render("en")

    assert msg(row([a, b, c], [a, c])) == "“First Olympic Games” (776 BC) is not seen in the row."
    assert msg(row([a, b, c], [a])).startswith("2 cards of the row are not seen")
    assert msg(row([a, b], [a, b, c, d])).startswith("2 cards lie in the row that were not there")
    assert msg(row([a, b, c], [b, a, c])).startswith("the cards are not in the order the game has them: "
                                                     "“End of the last Ice Age” (10,000 BC) is at place 2")
    assert isinstance(row([a, b, c], [b, a, c, d])[0], TableDiffers)          # an extra card and a swap


def test_foreign_code_is_reported_and_the_row_still_read():
    table = FakeTable()
    lay_row(table, [code(1), code(5)])
    table.place("https://example.com/shop", 500, 60)
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    out = feed(t, table, 3)
    assert out[-1] == [ForeignCode("https://example.com/shop"), TableMatches()]


def test_unknown_sticker_blocks_the_reading_with_the_decks_message():
    table = FakeTable()
    lay_row(table, [code(1), code(5), "TC:DEMO:999"])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    out = feed(t, table, 3)[-1]
    assert len(out) == 1 and isinstance(out[0], UnknownSticker) and out[0].payload == "TC:DEMO:999"
    assert "deck DEMO has no card 999" in out[0].message.render("en")
    table.remove("TC:DEMO:999")
    assert feed(t, table, 3)[-1] == [TableMatches()]


# -- grid ----------------------------------------------------------------------------------------------

def coop_grid(n0=1):
    """5 card rows of 5 codes and empty gap rows: 9 physical rows."""
    rows = []
    n = n0
    for r in range(5):
        rows.append([code(n + i) for i in range(5)])
        n += 5
        if r < 4:
            rows.append([None] * 5)
    return rows


def lay_grid(table, rows, turn_deg=0.0, origin=(320, 180), pitch=(60, 34)):
    a = np.radians(turn_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    for r, line in enumerate(rows):
        for c, payload in enumerate(line):
            if payload:
                p = R @ np.array([(c - 2) * pitch[0], (r - 4) * pitch[1]]) + origin
                table.place(payload, *p)


def grid_point(r, c, turn_deg=0.0, origin=(320, 180), pitch=(60, 34), dx=0.0, dy=0.0):
    a = np.radians(turn_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return R @ np.array([(c - 2) * pitch[0] + dx, (r - 4) * pitch[1] + dy]) + origin


@pytest.mark.parametrize("turn", [0.0, 14.0, -25.0])
def test_a_card_in_a_gap_row_gives_its_gap_row_and_column(turn):
    rows = coop_grid()
    table = FakeTable()
    lay_grid(table, rows, turn)
    t = tracker("grid", table)
    t.expect(GridLayout(rows))
    assert feed(t, table, 3)[-1] == [TableMatches()]
    table.place(code(30), *grid_point(3, 3, turn, dx=4, dy=-3))   # between card rows 2 and 3, column 4
    assert feed(t, table, 3)[-1] == [CardPlacedInGrid(code(30), 2, 4)]


def test_grid_with_cards_already_in_gaps():
    rows = coop_grid()
    rows[1][0] = code(31)
    rows[7][4] = code(32)
    table = FakeTable()
    lay_grid(table, rows)
    t = tracker("grid", table)
    t.expect(GridLayout(rows))
    assert feed(t, table, 3)[-1] == [TableMatches()]
    table.place(code(33), *grid_point(7, 2))
    assert feed(t, table, 3)[-1] == [CardPlacedInGrid(code(33), 4, 3)]


@pytest.mark.parametrize("where, words", [
    ((3, 3, 0, 17), "does not lie clearly in a gap"),     # halfway between a gap row and a card row
    ((3, 3, 30, 0), "does not lie clearly in a gap"),     # halfway between two columns
    ((4, 1, 0, 0), "does not lie clearly in a gap"),      # on top of a fixed card
])
def test_a_grid_card_that_is_not_clearly_in_a_gap(where, words):
    rows = coop_grid()
    table = FakeTable()
    lay_grid(table, rows)
    r, c, dx, dy = where
    table.place(code(30), *grid_point(r, c, dx=dx, dy=dy))
    t = tracker("grid", table)
    t.expect(GridLayout(rows))
    out = feed(t, table, 3)[-1]
    assert isinstance(out[0], TableDiffers) and words in out[0].message.render("en")


def test_a_gap_that_is_taken_and_a_moved_card():
    rows = coop_grid()
    rows[3][1] = code(31)
    table = FakeTable()
    lay_grid(table, rows)
    table.place(code(30), *grid_point(3, 1, dx=3))       # the same gap as code 31... 31 moves aside
    table.place(code(31), *grid_point(3, 2))
    t = tracker("grid", table)
    t.expect(GridLayout(rows))
    out = feed(t, table, 3)[-1]
    assert isinstance(out[0], TableDiffers)
    assert "is not where the game has it (row 4, column 2)" in out[0].message.render("en")


def test_the_dealt_grid_is_read_from_the_detections_only():
    rows = coop_grid()
    table = FakeTable()
    lay_grid(table, rows)
    t = tracker("grid", table)
    t.expect(GridLayout([]))
    assert feed(t, table, 3)[-1] == []
    assert len(t.detections) == 25


# -- board ---------------------------------------------------------------------------------------------

class BoardTable(FakeTable):
    """A board seen at an angle: frames are the rendered board; a card is a textured patch."""

    def __init__(self, name, turn=25.0, tilt=0.15, size=(1080, 1920)):
        super().__init__(size)
        self.board = load_board(name)
        b = self.board
        ppm = 2.0
        flat = draw_board(b, ppm)
        h, w = flat.shape[:2]
        scale = 1000 / np.hypot(b.width, b.height)
        W, H = b.width * scale, b.height * scale
        quad = np.array([(-W / 2 * (1 - tilt), -H / 2), (W / 2 * (1 - tilt), -H / 2), (W / 2, H / 2), (-W / 2, H / 2)])
        a = np.radians(turn)
        quad = quad @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T + (size[1] / 2, size[0] / 2)
        M = cv2.getPerspectiveTransform(np.float32([(0, 0), (w, 0), (w, h), (0, h)]), np.float32(quad))
        self.M = M @ np.diag([ppm, ppm, 1.0])            # board mm -> picture px
        self.background = cv2.warpPerspective(flat, M, (size[1], size[0]), flags=cv2.INTER_AREA,
                                              borderValue=(60, 90, 120))
        self.cards: dict[str, str] = {}                   # payload -> spot (drawn), or "" for off-board

    def mm(self, x, y):
        v = self.M @ np.array([x, y, 1.0])
        return v[0] / v[2], v[1] / v[2]

    def put(self, payload, spot):
        s = self.board.spot(spot)
        self.cards[payload] = spot
        self.place(payload, *self.mm(s.x + 0.3 * s.w, s.y + 0.25 * s.h))   # stickers sit near a corner

    def take(self, payload):
        self.cards.pop(payload, None)
        self.remove(payload)

    def frame(self, blob=None, noise_seed=None):
        img = self.background.copy()
        rng = np.random.default_rng(7)
        for spot in self.cards.values():
            s = self.board.spot(spot)
            poly = np.int32([self.mm(x, y) for x, y in s.corners])
            cv2.fillConvexPoly(img, poly, (235, 235, 235))
            # the card's picture: a pattern of dark strokes (cards are never blank)
            for _ in range(40):
                x, y = s.x + rng.uniform(0.1, 0.9) * s.w, s.y + rng.uniform(0.1, 0.9) * s.h
                p0, p1 = self.mm(x, y), self.mm(x + rng.uniform(-6, 6), y + rng.uniform(-6, 6))
                cv2.line(img, tuple(map(int, p0)), tuple(map(int, p1)), (40, 40, 40), 2)
        if blob is not None:
            cv2.circle(img, (int(blob[0]), int(blob[1])), 120, (60, 120, 190), -1)
        return img


@pytest.mark.parametrize("turn, tilt", [(0.0, 0.0), (25.0, 0.15), (-100.0, 0.1), (180.0, 0.0)])
def test_board_placement_maps_to_the_right_spot_turned_and_tilted(turn, tilt):
    table = BoardTable("exhibition", turn, tilt)
    table.put(code(1), "one_era[0]")
    t = tracker("board", table)
    t.expect(BoardLayout("exhibition", {"one_era[0]": code(1)}))
    assert feed(t, table, 3)[-1] == [TableMatches()]
    table.put(code(2), "plain[3]")
    assert feed(t, table, 3)[-1] == [CardPlacedOnSpot(code(2), "plain[3]")]
    table.put(code(3), "depot[2]")
    t.expect(BoardLayout("exhibition", {"one_era[0]": code(1), "plain[3]": code(2)}))
    assert feed(t, table, 3)[-1] == [CardPlacedOnSpot(code(3), "depot[2]")]


def test_board_removal_only_when_the_spot_is_plainly_empty():
    table = BoardTable("exhibition")
    table.put(code(1), "one_era[0]")
    table.put(code(2), "plain[1]")
    t = tracker("board", table)
    layout = BoardLayout("exhibition", {"one_era[0]": code(1), "plain[1]": code(2)})
    t.expect(layout)
    feed(t, table, 3)
    table.unread.add(code(2))                           # still there, but unreadable (glare)
    out = feed(t, table, tr.RECHECK_EVERY + 2)[-1]       # the picture did not change: seen at a recheck
    assert isinstance(out[0], TableDiffers)
    assert out[0].message.render("en").startswith("the card on plain[1] cannot be read")
    table.unread.clear()
    table.take(code(2))                                 # really gone: the spot shows bare board
    assert feed(t, table, 3)[-1] == [CardRemoved(code(2))]


def test_ancient_knowledge_a_monument_declines_into_the_past():
    table = BoardTable("ancient-knowledge", turn=-12.0, tilt=0.1)
    table.put("TC:AK:001", "zone1.lower")
    table.put("TC:AK:002", "zone1.upper")
    t = tracker("board", table)
    t.expect(BoardLayout("ancient-knowledge", {"zone1.lower": "TC:AK:001", "zone1.upper": "TC:AK:002"}))
    assert feed(t, table, 3)[-1] == [TableMatches()]
    table.take("TC:AK:001")
    table.put("TC:AK:001", "past[0]")
    table.take("TC:AK:002")
    table.put("TC:AK:002", "zone1.lower")               # the upper one slides down
    out = set(feed(t, table, 3)[-1])
    assert out == {CardRemoved("TC:AK:001"), CardPlacedOnSpot("TC:AK:001", "past[0]"),
                   CardRemoved("TC:AK:002"), CardPlacedOnSpot("TC:AK:002", "zone1.lower")}


def test_a_covered_board_marker_says_which_corner():
    table = BoardTable("exhibition", 0.0, 0.0)
    t = tracker("board", table)
    t.expect(BoardLayout("exhibition", {}))
    m = table.board.markers[1]
    x, y = table.mm(m.x + m.size / 2, m.y + m.size / 2)
    out = feed(t, table, 3, blob=None)
    assert out[-1] == [TableMatches()]
    table.background = table.background.copy()
    cv2.circle(table.background, (int(x), int(y)), 60, (60, 120, 190), -1)   # a resting hand
    out = feed(t, table, 3)[-1]
    assert out[0].message.render("en") == ("the board is not fully in view: its top right corner marker is not "
                                           "seen (covered, or outside the picture).")
    assert "arriba a la derecha" in out[0].message.render("es")


# -- the camera --------------------------------------------------------------------------------------------

def test_camera_lost_and_back_through_the_feed():
    from companion.ui.table_feed import TableFeed
    from companion.vision.sources import ReconnectingSource

    table = FakeTable()
    lay_row(table, [code(1)])
    state = {"plugged": True, "t": 0.0}

    class Cam:
        def grab(self):
            if not state["plugged"]:
                raise OSError("the USB camera stopped sending pictures")
            return table.frame()

        def close(self):
            pass

    def opener():
        if not state["plugged"]:
            raise OSError("/dev/video0 does not exist")
        return Cam()

    source = ReconnectingSource("usb:0", opener, clock=lambda: state["t"])
    feed_ = TableFeed(source, lambda kind: tracker(kind, table), threaded=False)
    feed_.expect(RowLayout([code(1)]))
    readings = [feed_.poll() for _ in range(3)]
    assert readings[-1].proposals == [TableMatches()] and readings[-1].lost is None
    state["plugged"] = False
    lost = [feed_.poll() for _ in range(3)]
    assert all(r.lost for r in lost) and "stopped sending pictures" in lost[0].lost
    state["plugged"] = True
    state["t"] += 10
    back = [feed_.poll() for _ in range(3)]
    assert back[0].lost is None and back[-1].proposals == [TableMatches()]


def test_memory_stays_flat_over_10000_frames():
    table = FakeTable(size=(90, 160))
    lay_row(table, [code(1), code(5)])
    t = tracker("row", table)
    t.expect(RowLayout([code(1), code(5)]))
    frames = [table.frame(), table.frame(blob=(40, 40)), table.frame(blob=(90, 60))]

    def run(n, start):
        for i in range(start, start + n):
            # still stretches and hands, alternating, and a re-expect now and then
            t.feed(frames[0] if (i // 7) % 3 else frames[1 + i % 2])
            if i % 500 == 0:
                t.expect(RowLayout([code(1), code(5)]))
    run(1000, 0)
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    run(9000, 1000)
    now, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert now - base < 200_000
    assert len(t._still) <= tr.BURST
