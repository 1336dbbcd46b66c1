"""Card faces the project draws itself: the printed side of a card without a sticker, for the face
recognition's tests, bench and demo (companion/vision/faces.py). No photograph is shipped.

Each face is drawn from its number alone (the same number, the same face), as a Timeline card is laid
out: a picture over most of the card and a title band under it; the date side adds the year in a box
over the picture. The picture is what tells cards apart, so it is drawn to vary as much as printed
cards' do: a sky-to-ground backdrop of two random colours split at a random horizon, then 6-14 shapes
of random kind (polygons, ellipses, rings, stripes, a blurred blotch, a stroked path, a grid of
windows), sizes, colours and places, some soft-edged and some sharp, and printed words of random
size. Two faces share only what every card of a box shares: the card's frame and the title band's
colour scheme (one of eight). This is procedural art, not photographs: its corners and edges are
as dense as a busy illustration's, denser than a soft photograph's; docs/faces.md says what that
means for the figures.
"""

from __future__ import annotations

import cv2
import numpy as np

FACE_PX = (360, 504)            # width, height of a drawn face: 63 x 88 mm at about 5.7 px/mm
SYLLABLES = ("ka", "lo", "mi", "ren", "tas", "bor", "vel", "dun", "qui", "sar", "ne", "to", "ham", "pri", "gol",
             "ist", "ur", "ba", "cel", "mon", "dra", "fi", "lum", "os", "ter", "va", "zen", "cor", "ith", "pe")
BANDS = ((40, 40, 120), (30, 90, 30), (120, 60, 20), (20, 20, 20), (90, 30, 100), (20, 100, 140), (60, 60, 60),
         (10, 60, 160))
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)


def title_of(number: int, seed: int = 0) -> str:
    rng = np.random.default_rng([seed, number, 7])
    words = []
    for _ in range(int(rng.integers(1, 4))):
        word = "".join(SYLLABLES[int(i)] for i in rng.integers(0, len(SYLLABLES), int(rng.integers(1, 4))))
        words.append(word.capitalize())
    return " ".join(words)


def draw_face(number: int, *, seed: int = 0, side: str = "title", year: int | None = None,
              title: str | None = None, like: int | None = None) -> np.ndarray:
    """The face of card ``number`` (BGR uint8, FACE_PX): ``side`` "title" or "date" (the date side
    shows ``year``, default one drawn from the number). ``like``: a look-alike of that card (as cards
    of one series are): its picture, with two or three shapes of this card's own over it, and this
    card's own title and band."""
    rng = np.random.default_rng([seed, number])
    W, H = FACE_PX
    pic_h = int(H * 0.78)
    if like is not None:
        img = draw_face(like, seed=seed)
        for _ in range(int(rng.integers(2, 4))):
            _shape(img[:pic_h], rng)
        return _titled(img, number, seed, rng, side, year, title)
    img = np.empty((H, W, 3), np.uint8)
    horizon = int(rng.uniform(0.25, 0.75) * pic_h)
    sky, ground = rng.integers(0, 256, 3), rng.integers(0, 256, 3)
    t = np.linspace(0, 1, horizon)[:, None, None]
    img[:horizon] = (sky * (1 - t * 0.5) + 255 * t * 0.5).astype(np.uint8)
    img[horizon:pic_h] = ground.astype(np.uint8)
    for _ in range(int(rng.integers(6, 15))):
        _shape(img[:pic_h], rng)
    return _titled(img, number, seed, rng, side, year, title)


def _titled(img: np.ndarray, number: int, seed: int, rng, side: str, year: int | None, title: str | None):
    """The face's title band, title, date box and frame, over its picture."""
    W, H = FACE_PX
    pic_h = int(H * 0.78)
    band = BANDS[int(rng.integers(len(BANDS)))]
    img[pic_h:] = band
    text = title if title is not None else title_of(number, seed)
    _fit_text(img, text, (8, pic_h + 8, W - 16, H - pic_h - 16), (235, 235, 235), FONTS[number % len(FONTS)])
    if side == "date":
        y = year if year is not None else int(rng.integers(-3000, 2020))
        box = (int(W * 0.2), int(pic_h * 0.35), int(W * 0.6), int(pic_h * 0.22))
        cv2.rectangle(img, box[:2], (box[0] + box[2], box[1] + box[3]), (245, 245, 245), -1)
        _fit_text(img, str(y), (box[0] + 6, box[1] + 6, box[2] - 12, box[3] - 12), (30, 30, 170),
                  cv2.FONT_HERSHEY_DUPLEX)
    cv2.rectangle(img, (0, 0), (W - 1, H - 1), (250, 250, 250), 6)
    return img


def _colour(rng) -> tuple[int, int, int]:
    c = rng.integers(0, 256, 3)
    return int(c[0]), int(c[1]), int(c[2])


def _shape(pic: np.ndarray, rng) -> None:
    h, w = pic.shape[:2]
    kind = int(rng.integers(8))
    cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
    size = rng.uniform(0.08, 0.45) * min(w, h)
    colour = _colour(rng)
    if kind == 0:                                   # a polygon
        n = int(rng.integers(3, 9))
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        radii = size * rng.uniform(0.4, 1.0, n)
        pts = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1).astype(np.int32)
        cv2.fillPoly(pic, [pts], colour, cv2.LINE_AA)
    elif kind == 1:                                 # an ellipse
        cv2.ellipse(pic, (cx, cy), (int(size), int(size * rng.uniform(0.3, 1.0))), float(rng.uniform(0, 180)), 0,
                    360, colour, -1, cv2.LINE_AA)
    elif kind == 2:                                 # a ring
        cv2.circle(pic, (cx, cy), int(size), colour, int(rng.integers(3, 12)), cv2.LINE_AA)
    elif kind == 3:                                 # stripes
        step = int(rng.integers(6, 24))
        x0, y0 = max(0, cx - int(size)), max(0, cy - int(size))
        for k in range(0, int(2 * size), step):
            cv2.line(pic, (x0 + k, y0), (x0 + k + int(size * rng.uniform(-0.5, 0.5)), y0 + int(2 * size)), colour,
                     max(1, step // 3), cv2.LINE_AA)
    elif kind == 4:                                 # a soft blotch
        blob = np.zeros((h, w), np.float32)
        cv2.circle(blob, (cx, cy), int(size), 1.0, -1)
        blob = cv2.GaussianBlur(blob, (0, 0), size / 3)[..., None]
        pic[:] = (pic * (1 - blob) + np.array(colour, np.float32) * blob).astype(np.uint8)
    elif kind == 5:                                 # a stroked path
        path = np.cumsum(rng.normal(0, size / 3, (int(rng.integers(4, 12)), 2)), 0) + (cx, cy)
        cv2.polylines(pic, [path.astype(np.int32)], False, colour, int(rng.integers(2, 8)), cv2.LINE_AA)
    elif kind == 6:                                 # a building: a block with a grid of windows
        bw, bh = int(size), int(size * rng.uniform(0.8, 2.0))
        cv2.rectangle(pic, (cx, cy), (cx + bw, cy + bh), colour, -1)
        win = _colour(rng)
        step = int(rng.integers(8, 20))
        for yy in range(cy + 4, cy + bh - 4, step):
            for xx in range(cx + 4, cx + bw - 4, step):
                if rng.random() < 0.7:
                    cv2.rectangle(pic, (xx, yy), (xx + step // 2, yy + step // 2), win, -1)
    else:                                           # printed words
        words = title_of(int(rng.integers(1 << 30)))
        cv2.putText(pic, words, (int(rng.uniform(0, w * 0.6)), cy), FONTS[int(rng.integers(len(FONTS)))],
                    rng.uniform(0.4, 1.2), colour, int(rng.integers(1, 3)), cv2.LINE_AA)


def _fit_text(img: np.ndarray, text: str, box: tuple[int, int, int, int], colour, font) -> None:
    x, y, w, h = box
    scale = 3.0
    while scale > 0.3:
        (tw, th), base = cv2.getTextSize(text, font, scale, max(1, int(scale * 1.5)))
        if tw <= w and th + base <= h:
            break
        scale *= 0.9
    thick = max(1, int(scale * 1.5))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (x + (w - tw) // 2, y + (h + th) // 2 - base // 2), font, scale, colour, thick, cv2.LINE_AA)


def deck_face(deck, number: int, side: str = "face") -> np.ndarray:
    """The drawn face of one card of a deck, titled with the card's own title; ``side`` "date" shows
    its year (Timeline's date side), "title" and "face" do not."""
    import zlib
    card = deck.cards[number]
    return draw_face(number, seed=zlib.crc32(deck.id.encode()), side="date" if side == "date" else "title",
                     year=card.year, title=card.title or card.label())


def deck_faces(deck, side: str = "face", numbers=None) -> dict[str, np.ndarray]:
    """payload -> drawn face, for the deck's cards (or those ``numbers``)."""
    from companion.cards.payload import format_payload
    chosen = sorted(deck.cards if numbers is None else numbers)
    return {format_payload(deck.id, n): deck_face(deck, n, side) for n in chosen}
