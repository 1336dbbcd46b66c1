"""From camera frames to proposed actions: "TC:TL1:042 was placed in gap 3".

``Tracker(kind)`` reads a row (Timeline, Cronología competitive), a grid (Cronología cooperative),
several players' own rows at once (personal timelines: ``rows``) or a board (Exhibition, Ancient
Knowledge). The kiosk says what the table should look like now with
``expect(layout)`` (after every confirmed action) and hands it every frame with ``feed(frame)``;
``feed`` returns proposals (the types of ``companion.play.proposals``, which the turn controller takes
in) and leaves the stickers it decoded in ``.detections`` for drawing.

Safety before speed:

- A frame that differs from the one before it (a hand over the table, a card being laid) is not
  still: nothing is decoded and nothing is said.
- A proposal needs the same reading from two consecutive still frames, so a newly placed card is
  proposed on the second still frame after it was put down.
- A settled table (two still frames agreed, every expected code read, and the picture the same as
  then, to a few pixels) keeps its reading and is read again only every ``RECHECK_EVERY`` still
  frames: no card comes or goes without changing the picture, and the CPU rests meanwhile.
- A code is reported only when it was decoded. One that is expected but unread in a frame is looked
  for again in the still frames fused (``decode_burst``); still unread, it is "not seen", which makes
  the table differ -- never "removed", except on a board where its spot is visible and plainly empty.
- Memory is flat: the tracker keeps the last small grey frame, at most ``BURST`` still frames (grey)
  and the last reading.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.cards.model import Card
from companion.i18n import N_, Text, fill, translate
from companion.play.proposals import (
    CardPlaced,
    CardPlacedInGrid,
    CardPlacedInRow,
    CardPlacedOnSpot,
    CardRemoved,
    ForeignCode,
    Proposal,
    TableDiffers,
    TableMatches,
    UnknownSticker,
)
from companion.vision.identify import card_for, with_cards
from companion.vision.shrink import factor, shrink

BURST = 4                   # still frames kept for fusing
RECHECK_EVERY = 10          # still frames between two readings of a settled table
MOTION_WIDTH = 320          # frames are compared at about this width (a whole-number shrink)
MOTION_BLUR = 0.8           # pixels (at MOTION_WIDTH) of blur before comparing
MOTION_LEVEL = 16           # grey levels (0-255) that count as a change at MOTION_WIDTH
MOTION_SHARE = 0.002        # the share of changed pixels above which the table is moving
SETTLED_SHARE = 0.0003      # ... above which a settled table is no longer the one that was read


# -- messages ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Said(Text):
    """A message whose card parameters are named in the reader's language."""

    def render(self, lang: str = "en") -> str:
        params = {k: card_name(v, lang) if isinstance(v, Card) else v.render(lang) if isinstance(v, Text) else v
                  for k, v in self.params.items()}
        return fill(translate(self.msgid, lang), params)


def card_name(card: Card, lang: str = "en") -> str:
    title = card.title_in(lang)
    if title and card.year is not None:
        return f"“{title}” ({card.date(lang)})"
    return f"“{title}”" if title else card.label()


# -- stillness --------------------------------------------------------------------------------------------

class Motion:
    """Is the table still? Compares each frame with the one before at a small size. A pixel counts as
    changed only if it is outside the range of its neighbours in the frame before, so a camera that
    shakes by a pixel or two stays still; a change of the whole picture's brightness (the camera's
    exposure) does not count either. A hand or a card laid down does."""

    def __init__(self):
        self._last: np.ndarray | None = None

    def update(self, frame: np.ndarray) -> bool:
        import cv2
        # the Pi camera sends its own small picture of the same moment (its lores stream)
        grey = getattr(frame, "small", None)
        if grey is None:
            grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = shrink(grey, factor(grey.shape[1], MOTION_WIDTH, at_most=False))
        # the stickers' fine print shimmers from frame to frame (shake, noise, JPEG): blur it away
        small = cv2.GaussianBlur(small, (0, 0), MOTION_BLUR).astype(np.int16)
        last, self._last = self._last, small
        return _alike(small, last, MOTION_SHARE)

    def unchanged_since(self, view: np.ndarray | None) -> bool:
        """The last frame is the same picture as ``view`` (an earlier ``view()``), to a few pixels."""
        return _alike(self._last, view, SETTLED_SHARE)

    def view(self) -> np.ndarray | None:
        """The last frame as compared (small, blurred)."""
        return self._last

    def reset(self) -> None:
        self._last = None


def _alike(small: np.ndarray | None, last: np.ndarray | None, share: float) -> bool:
    """No more than ``share`` of the pixels of ``small`` changed from ``last``: a pixel counts as changed
    only if it is outside the range of its neighbours in ``last``, after the whole picture's brightness
    is matched."""
    import cv2
    if last is None or small is None or last.shape != small.shape:
        return False
    small = small - np.int16(np.median(small - last))
    kernel = np.ones((3, 3), np.uint8)
    above = small - cv2.dilate(last, kernel)
    below = cv2.erode(last, kernel) - small
    changed = np.count_nonzero(np.maximum(above, below) > MOTION_LEVEL)
    return changed <= max(2, share * small.size)


# -- the tracker ------------------------------------------------------------------------------------------

KINDS = ("row", "grid", "rows", "board")   # the tables a tracker reads (vision/layouts.py, by class name)


class Tracker:
    def __init__(self, kind: str, *, decoder=None, burst_decoder=None, order=None, faces=None):
        if kind not in KINDS:
            raise ValueError(f"tracker kind {kind!r}: {', '.join(KINDS)}")
        self.kind = kind
        self.expected = None
        self.detections: list = []
        self._decode = decoder            # (frame, known=...) -> DecodeResult; default: vision.decode
        self._decode_burst = burst_decoder
        self._order = order               # (detections, layout) -> (ordered, rows); default: reading_order
        self.faces = faces                # a vision.faces_tracking.FaceReader: cards known by their faces too
        self._motion = Motion()
        self._still: deque = deque(maxlen=BURST)
        self._known: list = []            # the detections of the last still reading (a hint to the decoder)
        # the last still frame's reading: (what was read, the proposals)
        self._previous: tuple[tuple, tuple[Proposal, ...]] | None = None
        self._settled = 0                 # still frames since the table settled (0: not settled)
        self._settled_view: np.ndarray | None = None    # the table as it settled (Motion's small picture)
        self._pose: tuple[str, Any, np.ndarray | None] | None = None   # board, its pose, the picture it was found in

    # -- the kiosk's side ---------------------------------------------------------------------------
    def expect(self, layout) -> None:
        """The table the game expects now. The next proposals are about this layout, from fresh reads."""
        self.expected = layout
        self._previous = None
        self._settled = 0

    def feed(self, frame: np.ndarray) -> list[Proposal]:
        # everything after this reads grey levels; the kept still frames take a third of the memory
        # (4 frames of a 4608x2592 camera: 48 MB instead of 143)
        frame = _grey(frame)
        if not self._motion.update(frame):
            # what was read before the table moved is no longer known to lie there (a setup must not
            # be read from the cards that were being cleared away)
            self._still.clear()
            self._previous = None
            self._settled = 0
            self.detections = []
            return []
        self._still.append(frame)
        if (0 < self._settled < RECHECK_EVERY and self._previous is not None
                and self._motion.unchanged_since(self._settled_view)):
            # Settled: two still frames agreed, every expected code was read, and the picture is the
            # one that was read, to a few pixels (a card cannot come or go without changing it). The
            # reading stands, and is read again every RECHECK_EVERY frames; the CPU rests meanwhile.
            self._settled += 1
            return list(self._previous[1])
        reading = self._read(frame)
        agreed = reading == self._previous
        self._previous = reading
        self._settled = 1 if agreed and not expected_codes(self.expected) - {d.payload for d in self._known} else 0
        self._settled_view = self._motion.view() if self._settled else None
        return list(reading[1]) if agreed else []

    # -- one still frame ------------------------------------------------------------------------------
    def _decoders(self):
        if self._decode is None or self._decode_burst is None:
            from companion.vision import decode as decode_module
            self._decode = self._decode or decode_module.decode
            self._decode_burst = self._decode_burst or decode_module.decode_burst
        return self._decode, self._decode_burst

    def _read(self, frame: np.ndarray) -> tuple[tuple, tuple[Proposal, ...]]:
        decode, decode_burst = self._decoders()
        result = decode(frame, known=tuple(self._known))
        codes, foreign = list(result.codes), list(result.foreign)
        wanted = expected_codes(self.expected)
        if wanted - {d.payload for d in codes} and len(self._still) > 1:
            fused = decode_burst(list(self._still), known=tuple(self._known))
            codes = _merge(codes, fused.codes)
            foreign = _merge(foreign, fused.foreign)
        if self.faces is not None:
            codes += self.faces.read(frame, codes)
        codes = with_cards(_one_each(codes))
        self.detections = codes + foreign
        self._known = codes
        proposals = self._propose(frame, codes, foreign)
        key = (tuple(sorted(d.payload for d in codes)), tuple(sorted({d.payload for d in foreign})))
        return key, tuple(proposals)

    def _propose(self, frame, codes, foreign) -> list[Proposal]:
        out: list[Proposal] = [ForeignCode(t) for t in sorted({d.payload for d in foreign})]
        cards, unknown = {}, []
        for d in codes:
            card = d.card if d.card is not None else card_for(d.payload)
            if isinstance(card, Text):
                unknown.append(UnknownSticker(d.payload, card))
            else:
                cards[d.payload] = card
        if unknown:
            # a card nobody can judge is on the table: the players take it away before anything else
            return out + unknown
        if self.faces is not None and self.faces.unsure:
            # a card seen but not named for sure: never a guess, the players lay it again
            from companion.vision.faces_tracking import unsure_message
            return out + [TableDiffers(unsure_message())]
        known = [d for d in codes if d.payload in cards]
        if self.kind == "row":
            ordered = self._ordered(known)
            out += row_proposals(self.expected, [d.payload for d in ordered], cards)
        elif self.kind == "grid":
            out += grid_proposals(self.expected, known, cards)
        elif self.kind == "rows":
            out += rows_proposals(self.expected, known, cards)
        else:
            out += self._on_board(frame, known, cards)
        return out

    def _on_board(self, frame, codes, cards) -> list[Proposal]:
        """Which card lies on which spot. The board is found again by its markers unless the picture
        is the one it was found in, to a few pixels, as a settled reading is kept: a board cannot
        move without changing the picture. (Reading a still table twice, and again for each new
        expectation, measured the same pose three times in four: a quarter of the board games'
        reading time.)"""
        if self.expected is None:
            return []
        kept = self._pose
        if kept is not None and kept[0] == self.expected.board and self._motion.unchanged_since(kept[2]):
            pose = kept[1]
        else:
            pose = board_pose(self.expected.board, frame, codes)
            if isinstance(pose, Text):
                self._pose = None
                return [TableDiffers(pose)]
            self._pose = (self.expected.board, pose, self._motion.view())
        return board_proposals(self.expected, frame, codes, cards, pose=pose)

    def _ordered(self, detections):
        if not detections:
            return []
        if self._order is None:
            from companion.vision.reading_order import reading_order
            self._order = reading_order
        ordered, _rows = self._order(detections, "row")
        return list(ordered)


def expected_codes(layout) -> set[str]:
    if layout is None:
        return set()
    if hasattr(layout, "codes"):
        return {c for c in layout.codes if c}
    if hasattr(layout, "rows"):
        return {c for row in layout.rows for c in row if c}
    return {c for c in getattr(layout, "spots", {}).values() if c}


def _merge(first: list, more: list) -> list:
    seen = {d.payload for d in first}
    return first + [d for d in more if d.payload not in seen]


def _one_each(codes: list) -> list:
    """One detection per payload (a fused burst may hold the same sticker twice)."""
    out, seen = [], set()
    for d in codes:
        if d.payload not in seen:
            seen.add(d.payload)
            out.append(d)
    return out


def _name(payload: str, cards: dict):
    """The card for a message (an expected card that is not seen is looked up too)."""
    card = cards.get(payload)
    if card is None:
        card = card_for(payload) if payload.startswith("TC:") else None
    return card if isinstance(card, Card) else payload


# -- row ----------------------------------------------------------------------------------------------------

def row_proposals(expected, seen: list[str], cards: dict) -> list:
    """Compare the row read left to right with the expected one."""
    want = [c for c in (expected.codes if expected is not None else ()) if c]
    if seen == want:
        return [TableMatches()]
    if len(seen) == len(want) + 1:
        for i, code in enumerate(seen):
            if code not in want and seen[:i] + seen[i + 1:] == want:
                return [CardPlaced(code, i)]
    return [TableDiffers(_row_difference(want, seen, cards))]


def _row_difference(want: list[str], seen: list[str], cards: dict) -> Text:
    missing = [c for c in want if c not in seen]
    extra = [c for c in seen if c not in want]
    if missing:
        if len(missing) == 1:
            return Said(N_("{card} is not seen in the row."), {"card": _name(missing[0], cards)})
        return Said(N_("{count} cards of the row are not seen, among them {card}."),
                    {"count": len(missing), "card": _name(missing[0], cards)})
    if len(extra) > 1:
        return Said(N_("{count} cards lie in the row that were not there, among them {card}: lay one card at "
                       "a time."), {"count": len(extra), "card": _name(extra[0], cards)})
    rest = [c for c in seen if c in want]
    # (as long as want, unless the game's row names a card twice: then the last sentence below says it)
    for i, (a, b) in enumerate(zip(rest, want, strict=False)):
        if a != b:
            return Said(N_("the cards are not in the order the game has them: {card} is at place {seen}, "
                           "the game has it at place {want}."),
                        {"card": _name(b, cards), "seen": rest.index(b) + 1, "want": i + 1})
    return Said(N_("the row is not the one the game has."), {})


# -- grid ---------------------------------------------------------------------------------------------------

def grid_proposals(expected, detections: list, cards: dict) -> list:
    """Cronología cooperative: 9 physical rows (cards in rows 0, 2, 4, 6, 8; gaps 1, 3, 5, 7)."""
    rows = [list(r) for r in (expected.rows if expected is not None else ())]
    at = {d.payload: np.asarray(d.center, float) for d in detections}
    if not rows:
        return []           # a new grid is being dealt: the kiosk reads it from the detections
    where = {}              # code -> (physical row, column 0-based)
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            if code:
                where[code] = (r, c)
    missing = [code for code in where if code not in at]
    extra = [code for code in at if code not in where]
    if missing:
        if len(missing) == 1:
            return [TableDiffers(Said(N_("{card} is not seen in the grid."), {"card": _name(missing[0], cards)}))]
        return [TableDiffers(Said(N_("{count} cards of the grid are not seen, among them {card}."),
                                  {"count": len(missing), "card": _name(missing[0], cards)}))]
    if len(extra) > 1:
        return [TableDiffers(Said(N_("{count} cards lie in the grid that were not there, among them {card}: "
                                     "lay one card at a time."),
                                  {"count": len(extra), "card": _name(extra[0], cards)}))]
    to_grid = _grid_mapping(rows, at)
    if to_grid is None:
        return [TableDiffers(Said(N_("the grid is not clear: lay its cards in straight rows and columns."), {}))]
    # every expected card must still be where the game has it
    for code, (r, c) in where.items():
        if _grid_place(to_grid, at[code], rows) != (r, c):
            return [TableDiffers(Said(N_("{card} is not where the game has it (row {row}, column {col})."),
                                      {"card": _name(code, cards), "row": r + 1, "col": c + 1}))]
    if not extra:
        return [TableMatches()]
    code = extra[0]
    place = _grid_place(to_grid, at[code], rows)
    if place is None or place[0] % 2 == 0:
        return [TableDiffers(Said(N_("{card} does not lie clearly in a gap between two rows, under a column."),
                                  {"card": _name(code, cards)}))]
    r, c = place
    if rows[r][c]:
        return [TableDiffers(Said(N_("{card} lies in a gap that already holds a card."), {"card": _name(code, cards)}))]
    return [CardPlacedInGrid(code, r // 2 + 1, c + 1)]


CARD_ROW_TOLERANCE = 0.3    # grid units (one column, one physical row) a sticker may be off its place
GAP_ROW_TOLERANCE = 0.4     # cards in gaps lie less exactly; between the two is "not clear"


def _grid_mapping(rows, at: dict):
    """Picture -> grid coordinates (column, physical row), fitted to the fixed cards' stickers; a
    homography, so a turned or tilted grid reads the same. A fixed card that was moved is an
    outlier of the fit and then found out of place."""
    import cv2
    src, dst = [], []
    for r in range(0, len(rows), 2):
        for c, code in enumerate(rows[r]):
            if code and code in at:
                src.append(at[code])
                dst.append((c, r))
    if len(src) < 4:
        return None
    H, _mask = cv2.findHomography(np.array(src, np.float32), np.array(dst, np.float32), cv2.RANSAC,
                                  CARD_ROW_TOLERANCE)
    if H is None or not np.all(np.isfinite(H)):
        return None
    return H


def _grid_place(to_grid, p, rows) -> tuple[int, int] | None:
    """The physical (row, column) a sticker centre lies in, or None when that is not clear."""
    v3 = to_grid @ np.array([p[0], p[1], 1.0])
    u, v = v3[0] / v3[2], v3[1] / v3[2]
    c = round(u)
    if abs(u - c) > CARD_ROW_TOLERANCE or not 0 <= c < max(len(r) for r in rows):
        return None
    even = 2 * round(v / 2)
    if abs(v - even) <= CARD_ROW_TOLERANCE:
        r = even
    else:
        odd = 2 * int(np.floor(v / 2)) + 1
        if abs(v - odd) > GAP_ROW_TOLERANCE:
            return None
        r = odd
    if not 0 <= r < len(rows) or c >= len(rows[r]):
        return None
    return r, c


# -- several rows, each its owner's -------------------------------------------------------------------------

ROWS_TOLERANCE = 0.3    # the share of the distance between two rows a sticker may lie off its own row's line


def rows_proposals(expected, detections: list, cards: dict) -> list:
    """Several parallel rows in one frame (``RowsLayout``), each a player's own: which row a card lies
    in is known from where it lies, as a board's spots are. Each expected row is found by its own
    cards: the median height of their stickers across the rows' direction (measured from the codes,
    so a turned table reads the same). A new card belongs to the row whose height is nearest, if it
    lies within ROWS_TOLERANCE of the rows' spacing from it, and its gap is its place among that
    row's cards left to right. Rows must lie in their order, the top one first; a row with no card
    cannot be found (the game deals each player's row its first card)."""
    rows = [list(r) for r in (expected.rows if expected is not None else ())]
    if not any(rows):
        return []           # a new table is being laid: the kiosk reads it from the detections
    owners = tuple(expected.owners)

    def row_name(k: int) -> Text:
        if k < len(owners):
            return Text(N_("{owner}'s row"), {"owner": owners[k]})
        return Text(N_("row {n}"), {"n": k + 1})

    by_code = {d.payload: d for d in detections}
    own = {code: k for k, row in enumerate(rows) for code in row if code}
    missing = [code for code in own if code not in by_code]
    if missing:
        return [TableDiffers(Said(N_("{card} is not seen in {row}."),
                                  {"card": _name(missing[0], cards), "row": row_name(own[missing[0]])}))]
    extra = [code for code in by_code if code not in own]
    if len(extra) > 1:
        return [TableDiffers(Said(N_("{count} cards lie in the rows that were not there, among them {card}: lay "
                                     "one card at a time."), {"count": len(extra), "card": _name(extra[0], cards)}))]
    from companion.vision.reading_order import across_and_along
    u, v, side = across_and_along(list(by_code.values()))
    at = {code: i for i, code in enumerate(by_code)}
    # each row's height across the rows' direction: the median of its stickers' (a card moved out of
    # the row moves no line; the rows' direction is measured from all the codes)
    heights = {k: float(np.median([v[at[c]] for c in row if c])) for k, row in enumerate(rows) if any(row)}
    ks = list(heights)
    for k1, k2 in zip(ks, ks[1:], strict=False):
        if heights[k2] <= heights[k1]:
            return [TableDiffers(Said(N_("{row} lies above {other}: the rows must lie in the players' order, the "
                                         "first player's at the top."), {"row": row_name(k2), "other": row_name(k1)}))]
    spacing = float(np.median(np.diff(list(heights.values())))) if len(heights) > 1 else 3 * side

    def nearest(code: str) -> tuple[int, float]:
        return min(((k, abs(v[at[code]] - h)) for k, h in heights.items()), key=lambda kd: kd[1])

    for code, k in own.items():
        found, off = nearest(code)
        if found != k or off > ROWS_TOLERANCE * spacing:
            return [TableDiffers(Said(N_("{card} is no longer in {row}."), {"card": _name(code, cards),
                                                                             "row": row_name(k)}))]
    for k, row in enumerate(rows):
        codes = [c for c in row if c]
        if sorted(codes, key=lambda c: u[at[c]]) != codes:
            return [TableDiffers(Said(N_("the cards of {row} are not in the order the game has them."),
                                      {"row": row_name(k)}))]
    if not extra:
        return [TableMatches()]
    code = extra[0]
    k, off = nearest(code)
    if off > ROWS_TOLERANCE * spacing:
        return [TableDiffers(Said(N_("{card} lies between two rows: lay it in its player's row."),
                                  {"card": _name(code, cards)}))]
    gap = sum(1 for c in rows[k] if c and u[at[c]] < u[at[code]])
    return [CardPlacedInRow(code, k, gap)]


# -- board --------------------------------------------------------------------------------------------------

CORNERS = (N_("top left"), N_("top right"), N_("bottom right"), N_("bottom left"))


def board_pose(board_name: str, frame, detections: list) -> Any:
    """The board's pose in the frame (a ``boards.BoardPose``), or what to tell the players (a Text)."""
    from companion.vision.boards import detect_markers, find_board, load_board
    board = load_board(board_name)
    markers = detect_markers(frame, codes=[d.corners for d in detections])
    pose, _why = find_board(frame, board, markers=markers)
    return pose if pose is not None else _board_not_found(board, markers)


def board_proposals(expected, frame, detections: list, cards: dict, *, pose) -> list:
    """Exhibition / Ancient Knowledge: which card lies on which spot of the board (``pose``: where the
    board lies in the frame, ``board_pose``'s)."""
    from companion.vision.boards import spot_of
    want = {code: spot for spot, code in expected.spots.items() if code}
    found: dict[str, str | None] = {d.payload: spot_of(pose, d.center) for d in detections}
    placed, removed, problems = [], [], []
    for code, spot in found.items():
        if spot is None:
            problems.append(Said(N_("{card} lies on no spot of the board."), {"card": _name(code, cards)}))
        elif want.get(code) == spot:
            continue
        else:
            holder = expected.spots.get(spot)
            if holder and holder != code and found.get(holder) == spot:
                problems.append(Said(N_("{card} lies on {spot}, which holds another card."),
                                     {"card": _name(code, cards), "spot": spot}))
            else:
                if code in want:
                    removed.append(CardRemoved(code))
                placed.append(CardPlacedOnSpot(code, spot))
    grey = None
    for code, spot in want.items():
        if code in found:
            continue
        if grey is None:
            grey = _grey(frame)
        if _spot_is_empty(grey, pose, spot):
            removed.append(CardRemoved(code))
        else:
            problems.append(Said(N_("the card on {spot} cannot be read ({card} should lie there)."),
                                 {"spot": spot, "card": _name(code, cards)}))
    if problems:
        return [TableDiffers(problems[0])]
    if not placed and not removed:
        return [TableMatches()]
    return removed + placed


def _board_not_found(board, markers: dict) -> Text:
    missing = [i for i, m in enumerate(board.markers) if m.id not in markers]
    if len(missing) == 4:
        return Said(N_("the board is not in view: none of its four corner markers is seen."), {})
    if missing:
        return Said(N_("the board is not fully in view: its {corner} corner marker is not seen (covered, or "
                       "outside the picture)."), {"corner": Text(CORNERS[missing[0]])})
    return Said(N_("the board's corner markers are not where its board file puts them."), {})


def _grey(frame):
    import cv2
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


EMPTY_EDGE_SHARE = 0.01         # an empty spot has (almost) no sharp edges inside its outline


def _spot_is_empty(grey: np.ndarray, pose, spot_name: str) -> bool:
    """Is the spot's inside plain board (no card, no sticker)? Looked at straight on, its middle part
    (clear of the outline and the printed name) must be nearly free of edges. Anything unsure is
    "not empty", so a card that only could not be read is never taken for gone."""
    import cv2
    spot = pose.board.spot(spot_name)
    ppm = 3.0
    w, h = max(8, round(spot.w * ppm)), max(8, round(spot.h * ppm))
    x0, y0, x1, y1 = spot.x + 0.15 * spot.w, spot.y + 0.15 * spot.h, spot.x + 0.85 * spot.w, spot.y + 0.85 * spot.h
    src = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float32)
    dst = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    to_patch = cv2.getPerspectiveTransform(src, dst) @ pose.to_board
    corners = np.array([pose.image_point(p) for p in src])
    H, W = grey.shape[:2]
    if corners.min() < 0 or corners[:, 0].max() >= W or corners[:, 1].max() >= H:
        return False
    patch = cv2.warpPerspective(grey, to_patch, (w, h), flags=cv2.INTER_AREA)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    edges = np.count_nonzero(np.hypot(gx, gy) > 160)
    return edges <= EMPTY_EDGE_SHARE * patch.size

