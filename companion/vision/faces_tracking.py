"""Face recognition in the tracker (vision/tracker.py), beside the stickers and with their contract:
a card is reported only when it is named for sure; a card seen but not named makes the players lift
it and lay it again.

``FaceReader.read(frame, codes)`` keeps the cards it named on the last still frame it read, and reads
again only where the picture changed since (the newly laid card; cards that were pushed aside): the
changed pixels, grown by a card's width, cut into regions, each searched in the deck's enrolled
faces. A card already named by a sticker is not named again by its face; a face read where a sticker
names another card gives way to the sticker.

A card is named when it is laid, lying over the neighbours it overlaps. A card named before that the
new card now partly covers is kept by its place, not read again: the part of it left in view did not
change, so it was neither moved nor taken away (a card lifted changes all of its place, a card pushed
aside all of its outline). Read again under its neighbour, with a third of its face hidden, it might
well not be named, and the row would lose a card nobody touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.faces import FaceIndex, FaceRead, FaceUnsure, read_faces

CHANGE_WIDTH = 480              # pictures are compared at about this width
CHANGE_LEVEL = 24               # grey levels that count as a change
CHANGE_BLUR = 1.2
KEPT_IN_VIEW = 0.25           # a card covered by a new one is kept when at least this share of it is in view ...
KEPT_CHANGED = 0.02             # ... and at most this share of its area changed outside the cards that cover it


@dataclass
class FaceReader:
    index: FaceIndex
    card_px: float | None = None            # a card's width in the frame's pixels, if known (else measured)
    reads: list[FaceRead] = field(default_factory=list)
    unsure: list[FaceUnsure] = field(default_factory=list)
    _seen: np.ndarray | None = None         # the frame of the last read, small and blurred
    _scale: float = 1.0

    def read(self, frame: np.ndarray, codes: list) -> list:
        """The cards named by their faces in ``frame`` (grey), as detections like the decoder's."""
        from companion.vision.decode.frame import Detection
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        scale = min(1.0, CHANGE_WIDTH / grey.shape[1])
        small = cv2.GaussianBlur(cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0),
                                 CHANGE_BLUR).astype(np.int16)
        card_px = self._card_px(grey)
        touched: list[FaceRead] = []
        change = None
        if self._seen is None or self._seen.shape != small.shape:
            self.reads, self.unsure = [], []
            regions = [(0, 0, grey.shape[1], grey.shape[0])]
        else:
            change = self._change(small, self._seen)
            regions, touched = self._regions(change, scale, card_px, grey.shape) if change is not None else ([], [])
        self._seen = small
        new_reads: list[FaceRead] = []
        new_unsure: list[FaceUnsure] = []
        for box in regions:
            x, y, w, h = box
            found = read_faces(grey[y:y + h, x:x + w], self.index, card_px=card_px, offset=(x, y))
            named = {r.payload for r in found.reads}
            self.reads = [r for r in self.reads if r.payload not in named] + found.reads
            self.unsure += found.unsure
            new_reads += found.reads
            new_unsure += found.unsure
        if change is not None:
            self._keep_covered(touched, change, scale, new_reads, new_unsure)
        if self.reads and self.card_px is None:
            self._measured = float(np.median([np.linalg.norm(r.corners[1] - r.corners[0]) for r in self.reads]))
        stickers = {d.payload for d in codes}
        # a card whose sticker is read is known by it: its face unsure (a card of a look-alike pair,
        # both stickered as enrolment advises) asks nothing
        self.unsure = [u for u in self.unsure
                       if not any(cv2.pointPolygonTest(u.corners.reshape(-1, 1, 2).astype(np.float32),
                                                       tuple(map(float, d.center)), False) >= 0 for d in codes)]
        out = []
        for r in self.reads:
            outline = r.corners.reshape(-1, 1, 2)
            if r.payload in stickers or any(cv2.pointPolygonTest(outline, tuple(map(float, d.center)), False) >= 0
                                            for d in codes):
                continue
            out.append(Detection(r.payload, tuple(map(tuple, r.corners.tolist())), r.center))
        return out

    _measured: float | None = None

    def _card_px(self, grey) -> float:
        if self.card_px:
            return self.card_px
        if self._measured:
            return self._measured
        return grey.shape[1] / 12         # a first guess: twelve cards across; the search tolerates 2x

    @staticmethod
    def _change(small, seen) -> np.ndarray | None:
        """Where the picture changed (small pixels), None where nothing did."""
        moved = small - np.int16(np.median(small - seen))
        mask = (np.abs(moved - seen) > CHANGE_LEVEL).astype(np.uint8)
        return mask if np.count_nonzero(mask) >= 4 else None

    def _regions(self, change, scale, card_px, shape) -> tuple[list[tuple[int, int, int, int]], list[FaceRead]]:
        """(the regions to read again, the cards named before that the change touched): where the
        picture changed, grown by a third of a card, and widened to hold whole every card named
        before that the change touches (those are forgotten until read again, or kept by their
        place when a new card covers them: ``_keep_covered``)."""
        mask = change.copy()
        touched = [r for r in self.reads + self.unsure if _changed_share(mask, r.corners * scale) > KEPT_CHANGED]
        self.reads = [r for r in self.reads if r not in touched]
        self.unsure = [u for u in self.unsure if u not in touched]
        grow = max(3, int(card_px * scale * 0.35))
        for r in touched:        # the whole of a touched card is read again
            cv2.fillConvexPoly(mask, np.round(r.corners * scale).astype(np.int32), 1)
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1, 2 * grow + 1)))
        n, _labels, stats, _c = cv2.connectedComponentsWithStats(mask)
        H, W = shape
        out = []
        for i in range(1, n):
            x, y, w, h = (int(v) for v in stats[i, :4])
            x0, y0 = max(0, int(x / scale)), max(0, int(y / scale))
            x1, y1 = min(W, int((x + w) / scale) + 1), min(H, int((y + h) / scale) + 1)
            out.append((x0, y0, x1 - x0, y1 - y0))
        return out, [r for r in touched if isinstance(r, FaceRead)]

    def _keep_covered(self, touched, change, scale, new_reads, new_unsure) -> None:
        """Keep the cards named before that a newly seen card now lies over, where they were not named
        again: a card is kept when the cards seen now (named or unsure) leave at least KEPT_IN_VIEW of
        it in view and that part did not change (a card lifted, or pushed aside, changes all of its
        place; another card laid in its place covers it whole). A card named elsewhere now is not
        kept; the card itself seen but unsure at its place is that card, now known."""
        named = {r.payload for r in self.reads}
        edge = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))    # a card's shadow and the blur beside it
        for old in touched:
            if old.payload in named:
                continue
            place = np.zeros_like(change)
            cv2.fillConvexPoly(place, np.round(old.corners * scale).astype(np.int32), 1)
            outline = old.corners.reshape(-1, 1, 2).astype(np.float32)

            def itself(seen, old=old, outline=outline) -> bool:
                return (isinstance(seen, FaceUnsure) and seen.best == old.payload
                        and cv2.pointPolygonTest(outline, tuple(map(float, seen.center)), False) >= 0)

            over = np.zeros_like(change)
            for seen in new_reads + new_unsure:
                if not itself(seen):
                    cv2.fillConvexPoly(over, np.round(seen.corners * scale).astype(np.int32), 1)
            if not over.any():
                continue                      # nothing seen lies over it: it changed some other way
            in_view = place & (1 - cv2.dilate(over, edge))
            area = max(1, np.count_nonzero(place))
            if (np.count_nonzero(in_view) < KEPT_IN_VIEW * area
                    or np.count_nonzero(change & in_view) > KEPT_CHANGED * area):
                continue
            self.reads.append(old)
            named.add(old.payload)
            self.unsure = [u for u in self.unsure if not itself(u)]


def _changed_share(mask: np.ndarray, quad: np.ndarray) -> float:
    inside = np.zeros_like(mask)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
    area = np.count_nonzero(inside)
    return np.count_nonzero(mask & inside) / area if area else 1.0


def unsure_message():
    """What the players are told of a card seen but not named (FaceUnsure)."""
    from companion.i18n import N_, Text
    return Text(N_("a card cannot be told for sure by its face: lift the card you just laid and lay it again."), {})
