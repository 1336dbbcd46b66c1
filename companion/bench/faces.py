"""``companion bench faces``: cards named by their printed faces, beside the stickers, on the same frames.

A deck of N faces (``--decks``, default 110, 500 and 1,000) is enrolled flat (as from scanned pages):
the pictures of ``--faces DIR`` (every image in it, sorted by name, one card each), or the project's
drawn faces (companion/sim/face_art.py) when no folder is given; one drawn card in twenty is a
look-alike of the card before it (its picture with a few shapes more, another title). Frames of the
table are drawn by the scene generator: rows wrapped onto lines (Timeline), Cronología's grids with
gaps, or Exhibition's board (``--layouts``), at 12 MP (the kiosk's 4608 x 2592 under the default
camera plan: 63 x 88 mm cards 326 px wide) or 1080p (the same table, 136 px), cards in a row
overlapping their neighbour by 0-30 % (``--overlap``), with glare, a tilted camera, a turned layout,
lens blur, noise and JPEG. One laid card in ten is a stranger: a card of another box, not enrolled
(the pictures after the deck's in the folder, else drawn ones of another seed), which must never be
named. Every card also carries its sticker, so the sticker path reads the very same frames.

What a kiosk reads is the card just laid: the tracker names it from the region where the table
changed, and then it lies over the neighbours it overlaps (laid last). A card that a later card
covers was named already and is kept by its place while the part of it in view does not change
(vision/faces_tracking.py); it is read again under its neighbours only when the table around it
moved (cards pushed aside). So in each row frame every other card lies over both its neighbours
(drawn last: the scene's ``on_top``; the odd places in one frame, the even ones in the next) and is
read as laid; the cards between, each under both neighbours (0-30 % of it on each side), are read
as a card pushed aside is read again, and reported on a line of their own. Grids and boards have no
card over another: every card is read as laid.

Per deck size and frame size:

- **per new card**, as laid: the region of that card grown by a third of a card, searched alone;
  named %, wrong (a name that is not the card lying at that place: the target is 0), and ms of one
  core per card (CPU time; OpenCV on one thread); the same regions read by the sticker decoder
  beside it; ``--cards`` counts these cards;
- **covered** (rows): the cards under both neighbours, read the same way: named %, wrong;
- **per frame** (the first frame of each set, read whole): ms of one core, named %, wrong;
- **the box as its owner sets it up** (``box:``): after enrolling, the bench runs the enrolment's
  own look-alike check (vision/enrol.py: ``look_alikes``, the pairs the product finds, not the
  bench's knowledge of which cards it drew alike); the owner is told to sticker both cards of each
  pair, so a laid card of those pairs is named by its sticker (the sticker path's read of the same
  region) or by its face, and every other card by its face only (a sticker read never rescues a card
  the owner was not told to sticker). Named % of the laid cards, wrong names on both paths, how many
  laid cards were of the pairs found and how many the sticker named; the face-only figure stays on
  the ``faces:`` line;
- **enrolment**: ms of features per face; the look-alike check's pairs and its seconds of one core;
- **the threshold**: every region (laid and covered) is read with no inlier threshold and the margin
  kept; the smallest threshold with 0 wrong in all of them on the first set of frames (``choose``)
  is then held on a second set drawn alike with other seeds (``hold``), whose figures are the ones
  that count. The kiosk's threshold is
  ``vision.faces.THRESHOLD`` (its one owner, read by the tracker): the hold set is measured at it
  too, and the bench says when it lies below the threshold chosen.

Figures only: no time is a pass or a fail.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")
SIZES = {"12mp": (4608, 2592), "1080p": (1920, 1080)}


def add_arguments(parser) -> None:
    parser.add_argument("--faces", metavar="DIR", help="a folder of face pictures, one card each (default: the "
                                                       "project's drawn faces)")
    parser.add_argument("--decks", default="110,500,1000", help="enrolled faces per deck, comma separated")
    parser.add_argument("--size", default="12mp,1080p", help="frame sizes: 12mp, 1080p (comma separated)")
    parser.add_argument("--layouts", default="row,grid,board", help="tables: row (wrapped Timeline rows), grid "
                                                                  "(Cronología), board (Exhibition), comma separated")
    parser.add_argument("--cards", type=int, default=1000, help="cards read as laid in the 'hold' set of each case "
                                                                      "(1000; a row's frames hold as many covered)")
    parser.add_argument("--choose", type=int, default=300, help="cards read as laid in the 'choose' set (300)")
    parser.add_argument("--overlap", default="0,0.3", help="share of a card its right neighbour covers: min,max")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a quick look: 110 faces, 1080p, rows, 48 + 96 cards")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


@dataclass
class Tally:
    cards: int = 0                                      # the deck's cards read as laid (on top)
    strangers: int = 0                                  # laid cards of another box (never to be named)
    covered: int = 0                                    # the deck's cards read under their neighbours
    covered_strangers: int = 0
    # (inliers, runner_up, right?, is the region's card?, does the region's card lie on top?)
    region_reads: list = field(default_factory=list)
    face_cpu: float = 0.0
    sticker_named: int = 0
    sticker_wrong: int = 0
    sticker_cpu: float = 0.0
    frame_cpu: list = field(default_factory=list)
    frame_named: int = 0
    frame_wrong: int = 0
    frame_cards: int = 0
    frame_sticker_named: int = 0
    # the laid cards of the look-alike pairs enrolment found (stickered by the owner):
    # (the sticker read in the card's region, its face's best right inliers, wrong codes read there)
    stickered: list = field(default_factory=list)

    def at(self, threshold: int, on_top: bool = True) -> tuple[int, int]:
        """(cards named right, names that are wrong) at this threshold, in the regions of the cards
        read on top of their neighbours (as laid), or of those read under them."""
        reads = [(inl, right, card) for inl, _r, right, card, top in self.region_reads if top == on_top]
        named = sum(1 for inl, right, card in reads if card and right and inl >= threshold)
        wrong = sum(1 for inl, right, _card in reads if not right and inl >= threshold)
        return named, wrong

    def wrong(self, threshold: int) -> int:
        """Wrong names at this threshold in every region read, laid and covered."""
        return self.at(threshold, True)[1] + self.at(threshold, False)[1]

    def box(self, threshold: int) -> tuple[int, int, int]:
        """The box as its owner sets it up: (laid cards named, wrong names, of them named by their
        sticker). The cards of the look-alike pairs enrolment found carry stickers and are named by
        the sticker or the face; every other card by its face only."""
        named, wrong = self.at(threshold)
        by_sticker = sum(1 for read, inl, _w in self.stickered if read and inl < threshold)
        return named + by_sticker, wrong + sum(w for _r, _i, w in self.stickered), by_sticker


LOOK_ALIKE_EVERY = 20          # drawn decks: card 20, 40, ... is a look-alike of the card before it
STRANGERS = 60                 # pictures of another box's cards, laid among the deck's
STRANGER_EVERY = 10            # one laid card in ten is a stranger
MIN_PICTURE_PX = 64            # a smaller picture in --faces DIR is no card's face (a 1 x 1 test image)


def _pictures(folder: str | None, n: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(the deck's n pictures, pictures of cards of another box)."""
    import cv2

    from companion.errors import BadInput
    from companion.sim.face_art import draw_face
    drawn_strangers = [draw_face(i, seed=seed + 1) for i in range(1, STRANGERS + 1)]
    if folder is None:
        return [draw_face(i, seed=seed, like=i - 1 if i % LOOK_ALIKE_EVERY == 0 else None)
                for i in range(1, n + 1)], drawn_strangers
    files = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in IMAGE_TYPES)
    out: list[np.ndarray] = []
    skipped: list[str] = []
    for p in files:
        if len(out) == n + STRANGERS:
            break
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None or min(img.shape[:2]) < MIN_PICTURE_PX:        # no card's picture: left out, and said
            skipped.append(p.name)
            continue
        h, w = img.shape[:2]
        if w > h:                                          # a landscape picture: the card turned upright
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        out.append(cv2.resize(img, (360, 504), interpolation=cv2.INTER_AREA))
    if skipped:
        print(f"{folder}: {len(skipped)} files left out (unreadable, or under {MIN_PICTURE_PX} px): "
              f"{', '.join(skipped[:5])}{' ...' if len(skipped) > 5 else ''}", file=sys.stderr)
    if len(out) < n:
        raise BadInput(folder, f"{len(out)} pictures; the deck needs {n} (one per card)")
    return out[:n], (out[n:] + drawn_strangers)[:STRANGERS]


def _scene_args(size: str, overlap: float, layout_kind: str):
    """(width, height, px/module, card) for the kiosk's table under the default camera plan."""
    from companion.vision import camera_plan
    w, h = SIZES[size]
    capture = camera_plan.plan()["captures"][0]
    module_mm = camera_plan.default_sticker_mm() / camera_plan.STICKER_MODULES
    ppm = capture["px_per_mm"] * module_mm * (w / capture["size"][0])
    (cw, ch), (gx, gy) = camera_plan.CARD_MM, camera_plan.CARD_GAP_MM
    gx = -overlap * cw if overlap > 0 else gx
    return w, h, ppm, (cw / module_mm, ch / module_mm, gx / module_mm, gy / module_mm)


def _frames(n_cards: int, deck: int, size: str, layout_kind: str, overlap: tuple[float, float], seed: int):
    """(layout, render arguments, payloads laid) of frames holding about n_cards cards of the deck
    read as laid (strangers besides), drawn one at a time.

    A card is read by the kiosk when it is laid, and then it lies over the neighbours it overlaps (a
    card covered later is kept by its place: vision/faces_tracking.py). So in a row every other card
    of the frame is drawn over its neighbours (``on_top``; odd and even places in turn, frame by
    frame), read as laid; the others, each under both neighbours, are read as a card pushed aside is
    read again. Grids and boards: no card covers another, every card is read as laid."""
    from companion.sim.scene import render_table
    rng = np.random.default_rng([seed, 11])
    laid = 0
    k = 0
    while laid < n_cards:
        ov = float(rng.uniform(*overlap)) if layout_kind == "row" else 0.0
        w, h, ppm, card = _scene_args(size, ov, layout_kind)
        per_line = max(1, int((w / ppm * 0.9 - card[0]) // (card[0] + card[2])) + 1)
        lines = max(1, int((h / ppm * 0.88 - card[1]) // (card[1] + card[3])) + 1)
        layout, slots = _layout(layout_kind, per_line, lines, rng)
        per_laid = 2 if layout_kind == "row" else 1          # a row's frame reads every other card as laid
        need = n_cards - laid
        count = min(slots, per_laid * (need + need // (STRANGER_EVERY - 1)))
        numbers = [int(x) for x in rng.choice(deck, count, replace=False) + 1]
        strangers = set(rng.choice(count, count // STRANGER_EVERY, replace=False).tolist())
        codes = [f"TC:OTHER:{1 + int(rng.integers(STRANGERS)):04d}" if i in strangers else f"TC:BENCH:{x:04d}"
                 for i, x in enumerate(numbers)]
        codes = list(dict.fromkeys(codes))                 # a stranger drawn twice is laid once
        on_top = {c for i, c in enumerate(codes) if per_laid == 1 or i % 2 == k % 2}
        yield layout(codes), dict(width=w, height=h, px_per_module=ppm, card=card, wrap=True,
                                  seed=seed * 1000 + k, blur=(0.5, 1.2), noise=(2.0, 4.0), jpeg=(85, 93), glare=0.4,
                                  tilt=4.0, perspective=6.0, light=0.3, bayer=size != "12mp", card_detail=1.0,
                                  face_stickers=True, on_top=on_top, render=render_table), codes
        laid += sum(1 for c in on_top if c.startswith("TC:BENCH:"))
        k += 1


def _layout(kind: str, per_line: int, lines: int, rng):
    """(a function of the laid payloads to the layout, how many cards it holds)."""
    from companion.vision.layouts import BoardLayout, GridLayout, RowLayout
    if kind == "row":
        return RowLayout, per_line * lines
    if kind == "grid":
        # Cronología's grid: full rows of cards, and between them rows with a few cards in gaps
        shape = [[True] * per_line if r % 2 == 0 else list(rng.random(per_line) < 0.4) for r in range(lines)]
        slots = sum(map(sum, shape))

        def grid(codes):
            it = iter(codes)
            return GridLayout([[next(it, None) if cell else None for cell in row] for row in shape])
        return grid, slots
    from companion.vision.boards import load_board
    spots = load_board("exhibition").spot_names
    chosen = [spots[i] for i in sorted(rng.choice(len(spots), size=int(rng.integers(12, len(spots) + 1)),
                                                   replace=False))]
    return (lambda codes: BoardLayout("exhibition", dict(zip(chosen, codes, strict=False)))), len(chosen)


def _measure(index, pictures, n_cards, deck, size, layout_kind, overlap, seed, tally: Tally, say,
             stickered: frozenset = frozenset()) -> None:
    import cv2

    from companion.vision.decode import decode
    from companion.vision.faces import read_faces
    deck_pictures, strangers = pictures
    for f, (layout, args, codes) in enumerate(_frames(n_cards, deck, size, layout_kind, overlap, seed)):
        render = args.pop("render")
        on_top = args["on_top"]
        faces = {c: (deck_pictures if c.startswith("TC:BENCH:") else strangers)[int(c[-4:]) - 1] for c in codes}
        scene = render(layout, faces=faces, **args)
        grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        truth = scene.truth
        centers = np.array([t.center for t in truth])
        card_px = float(np.median([np.linalg.norm(t.corners[1] - t.corners[0]) for t in truth]))

        def right(read, centers=centers, truth=truth, card_px=card_px) -> bool:
            """The read names the card that lies at its place."""
            d = np.hypot(*(centers - read.center).T)
            i = int(np.argmin(d))
            return d[i] < card_px / 2 and truth[i].payload == read.payload

        if f == 0:
            t = time.process_time()
            whole = read_faces(grey, index, card_px=card_px)
            tally.frame_cpu.append(time.process_time() - t)
            tally.frame_cards += sum(1 for x in truth if x.payload.startswith("TC:BENCH:"))
            tally.frame_named += sum(1 for r in whole.reads if right(r))
            tally.frame_wrong += sum(1 for r in whole.reads if not right(r))
            t = time.process_time()
            codes = decode(grey).codes
            tally.frame_cpu.append(-(time.process_time() - t))     # the sticker path's frame, kept apart
            tally.frame_sticker_named += sum(1 for d in codes if d.payload.startswith("TC:BENCH:")
                                             and d.payload in {x.payload for x in truth})
        H, W = grey.shape
        grow = card_px / 3
        for tr in truth:
            x0, y0 = np.floor(tr.corners.min(0) - grow).astype(int)
            x1, y1 = np.ceil(tr.corners.max(0) + grow).astype(int)
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
            region = grey[y0:y1, x0:x1]
            top = tr.payload in on_top
            t = time.process_time()
            found = read_faces(region, index, card_px=card_px, threshold=1, offset=(x0, y0))
            if top:
                tally.face_cpu += time.process_time() - t
            stranger = not tr.payload.startswith("TC:BENCH:")
            if top:
                tally.strangers += stranger
                tally.cards += not stranger
            else:
                tally.covered_strangers += stranger
                tally.covered += not stranger
            own = 0                            # the inliers of the right read of this card
            for r in found.reads:
                its = np.hypot(*(np.subtract(r.center, tr.center))) < card_px / 2
                tally.region_reads.append((r.inliers, r.runner_up, right(r), its, top))
                if its and right(r):
                    own = max(own, r.inliers)
            if not top:
                continue                       # the sticker path beside the faces: on the laid cards
            t = time.process_time()
            codes = decode(region).codes
            tally.sticker_cpu += time.process_time() - t
            read = not stranger and any(d.payload == tr.payload for d in codes)
            misread = sum(1 for d in codes if d.payload not in {x.payload for x in truth})
            tally.sticker_named += read
            tally.sticker_wrong += misread
            if tr.payload in stickered:
                tally.stickered.append((read, own, misread))
        say(f"  frame {f + 1}: {len(truth)} cards, {tally.cards} of the deck and {tally.strangers} strangers read as "
            f"laid so far, {tally.covered} and {tally.covered_strangers} under their neighbours")


def run(args) -> int:
    import cv2

    from companion.errors import BadInput
    from companion.vision.enrol import look_alikes
    from companion.vision.faces import THRESHOLD, FaceIndex, face_features
    from companion.vision.faces_file import EnrolledDeck, EnrolledFace
    cv2.setNumThreads(1)
    sizes = ["1080p"] if args.quick else [s.strip() for s in args.size.split(",")]
    decks = [110] if args.quick else [int(x) for x in args.decks.split(",")]
    kinds = ["row"] if args.quick else [k.strip() for k in args.layouts.split(",")]
    for kind in kinds:
        if kind not in ("row", "grid", "board"):
            raise BadInput("--layouts", f"{kind!r} is no layout: row, grid or board")
    hold, choose = (96, 48) if args.quick else (args.cards, args.choose)
    lo, hi = (float(x) for x in args.overlap.split(","))
    say = (lambda m: print(m, file=sys.stderr)) if args.json else print
    results = []
    pictures = _pictures(args.faces, max(decks), args.seed)
    say(f"faces: {'the drawn faces (companion/sim/face_art.py)' if args.faces is None else args.faces}")
    for deck in decks:
        t = time.process_time()
        feats = [face_features(p) for p in pictures[0][:deck]]
        enrol_ms = 1000 * (time.process_time() - t) / deck
        index = FaceIndex([f"TC:BENCH:{i:04d}" for i in range(1, deck + 1)], feats)
        index.nearest(feats[0].descriptors[:1])           # the search index built before any timing
        # the enrolment's own look-alike check: the owner is told to sticker both cards of each pair
        t = time.process_time()
        pairs = look_alikes(EnrolledDeck("BENCH", [EnrolledFace(i, "face", f.points, f.descriptors)
                                                   for i, f in enumerate(feats, 1)]))
        check_s = time.process_time() - t
        stickered = frozenset(f"TC:BENCH:{n:04d}" for pair in pairs for n in pair)
        say(f"  enrolment found {len(pairs)} look-alike pairs in {check_s:.1f} s of one core "
            f"(their {len(stickered)} cards stickered)")
        for size in sizes:
            for kind in kinds:
                say(f"{deck} faces, {size}, {kind}s" + (f", overlap {lo:.0%}-{hi:.0%}" if kind == "row" else "") +
                    f": choosing on {choose} cards")
                a, b = Tally(), Tally()
                _measure(index, pictures, choose, deck, size, kind, (lo, hi), args.seed * 7 + 1, a, say)
                threshold = next((t for t in range(1, 200) if a.wrong(t) == 0), 200)
                say(f"  threshold with 0 wrong on the choosing set: {threshold} inliers (the kiosk's: {THRESHOLD}); "
                    f"holding it on {hold} other cards")
                _measure(index, pictures, hold, deck, size, kind, (lo, hi), args.seed * 7 + 2, b, say, stickered)
                row = _row(deck, size, kind, threshold, THRESHOLD, a, b, enrol_ms)
                row["look_alikes"] = {"pairs": len(pairs), "cards": len(stickered), "check_s": round(check_s, 1)}
                results.append(row)
                say(_line(row))
    if args.json:
        print(json.dumps({"faces": args.faces or "drawn", "results": results}))
    return 0


def _row(deck, size, kind, threshold, kiosk: int, a: Tally, b: Tally, enrol_ms) -> dict:
    named, wrong = b.at(threshold)
    box_named, box_wrong, by_sticker = b.box(threshold)
    new_cards = max(1, b.cards + b.strangers)
    frames = [c for c in b.frame_cpu if c > 0]
    sticker_frames = [-c for c in b.frame_cpu if c < 0]
    return {"deck": deck, "size": size, "layout": kind, "threshold": threshold,
            "choose": {"cards": a.cards, "covered": a.covered, "strangers": a.strangers + a.covered_strangers,
                       "named": a.at(threshold)[0], "wrong": a.wrong(threshold), "wrong_at_no_threshold": a.wrong(1),
                       "wrong_by_threshold": {t: a.wrong(t) for t in range(1, threshold + 1) if a.wrong(t)}},
            "hold": {"cards": b.cards, "strangers": b.strangers, "named": named,
                     "named_pct": round(100 * named / max(1, b.cards), 2),
                     "wrong": wrong, "wrong_at_no_threshold": b.at(1)[1],
                     "ms_per_new_card": round(1000 * b.face_cpu / new_cards, 1),
                     "frame_ms": round(1000 * float(np.median(frames)), 0) if frames else None,
                     "frame_named_pct": round(100 * b.frame_named / max(1, b.frame_cards), 1),
                     "frame_wrong": b.frame_wrong},
            "box": {"named": box_named, "named_pct": round(100 * box_named / max(1, b.cards), 2), "wrong": box_wrong,
                    "pair_cards": len(b.stickered), "by_sticker": by_sticker,
                    "pair_cards_by_sticker": sum(1 for read, _i, _w in b.stickered if read)},
            "covered": {"cards": b.covered, "strangers": b.covered_strangers, "named": b.at(threshold, False)[0],
                        "named_pct": round(100 * b.at(threshold, False)[0] / max(1, b.covered), 2),
                        "wrong": b.at(threshold, False)[1], "wrong_at_no_threshold": b.at(1, False)[1]},
            "stickers": {"named_pct": round(100 * b.sticker_named / max(1, b.cards), 2), "wrong": b.sticker_wrong,
                         "ms_per_new_card": round(1000 * b.sticker_cpu / new_cards, 1),
                         "frame_ms": round(1000 * float(np.median(sticker_frames)), 0) if sticker_frames else None,
                         "frame_named_pct": round(100 * b.frame_sticker_named / max(1, b.frame_cards), 1)},
            "kiosk": {"threshold": kiosk, "named_pct": round(100 * b.at(kiosk)[0] / max(1, b.cards), 2),
                      "box_named_pct": round(100 * b.box(kiosk)[0] / max(1, b.cards), 2), "box_wrong": b.box(kiosk)[1],
                      "wrong": b.wrong(kiosk), "choose_wrong": a.wrong(kiosk),
                      "covered_named_pct": round(100 * b.at(kiosk, False)[0] / max(1, b.covered), 2)},
            "enrol_ms_per_face": round(enrol_ms, 1)}


def _line(r: dict) -> str:
    h, v, s, c, k = r["hold"], r["covered"], r["stickers"], r["choose"], r["kiosk"]
    x, p = r["box"], r["look_alikes"]
    below = ", ".join(f"{n} at {t}" for t, n in c["wrong_by_threshold"].items()) or "none"
    covered = (f"    covered:  {v['named_pct']:.2f} % of {v['cards']} cards named when read again under both "
               f"neighbours, {v['wrong']} wrong (and {v['strangers']} strangers) "
               f"({v['wrong_at_no_threshold']} at no threshold)\n") if v["cards"] else ""
    return (f"  {r['deck']} faces, {r['size']}, {r['layout']}s: threshold {r['threshold']} (0 wrong on "
            f"{c['cards'] + c['covered']} choosing cards and {c['strangers']} strangers; wrong below it: {below})\n"
            f"    faces:    {h['named_pct']:.2f} % of {h['cards']} cards named as laid, {h['wrong']} wrong "
            f"(and {h['strangers']} strangers) "
            f"({h['wrong_at_no_threshold']} at no threshold), {h['ms_per_new_card']} ms a new card; "
            f"whole frame {h['frame_ms']} ms ({h['frame_named_pct']} % named, {h['frame_wrong']} wrong)\n"
            f"    box:      {x['named_pct']:.2f} % of {h['cards']} cards named as laid as the owner sets the box up, "
            f"{x['wrong']} wrong: the {x['pair_cards']} laid cards of the {p['pairs']} look-alike pairs enrolment "
            f"found stickered ({x['pair_cards_by_sticker']} read by their sticker, {x['by_sticker']} of them named "
            f"by it alone), every other card by its face only\n"
            + covered +
            f"    stickers: {s['named_pct']:.2f} % named, {s['wrong']} wrong, {s['ms_per_new_card']} ms a new card; "
            f"whole frame {s['frame_ms']} ms ({s['frame_named_pct']} % named)\n"
            f"    the kiosk's threshold {k['threshold']}: {k['named_pct']:.2f} % named as laid"
            + (f", {k['covered_named_pct']:.2f} % under both neighbours" if v["cards"] else "")
            + f", {k['wrong']} wrong ({k['choose_wrong']} wrong on the choosing set); the box as set up: "
            f"{k['box_named_pct']:.2f} % named as laid, {k['box_wrong']} wrong"
            + (" -- BELOW the one chosen: raise vision.faces.THRESHOLD" if k["threshold"] < r["threshold"] else "")
            + f"\n    enrolment: {r['enrol_ms_per_face']} ms of features a face; look-alike check {p['check_s']} s "
            f"of one core: {p['pairs']} pairs ({p['cards']} cards to sticker)")
