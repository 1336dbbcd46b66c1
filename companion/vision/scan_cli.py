"""``companion scan IMAGE... [--layout row|grid|free] [--frames K] [--json]`` (shared/spec/cli.md).

Finds the card stickers in photos of the table and prints them in reading order. ``ms`` is the time
this process took to read that image (decoders warmed up first, image file already loaded), so it
says what the kiosk would spend on such a frame.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import textwrap
import time
import warnings
from pathlib import Path

from companion.errors import BadInput
from companion.words import counted, date_words

LAYOUTS = ("row", "grid", "free")
# The largest picture a scan reads: 50 megapixels is four times a 12 MP camera's frame and more than
# most phones take, and keeps one scan's memory under about 600 MB (docs/limits.md). Bigger pictures
# are refused from their header, before a pixel is decoded.
MAX_PIXELS = 50_000_000
# OpenCV reads this once, when it is loaded: formats Pillow cannot measure are held to the same bound.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))


def add_arguments(parser) -> None:
    parser.add_argument("images", metavar="IMAGE", nargs="+", help="photos of the table (PNG, JPEG, ...)")
    parser.add_argument("--layout", choices=LAYOUTS, default="grid",
                        help="how the cards lie: one row (Timeline), rows of a grid (default), or anywhere (free)")
    parser.add_argument("--frames", type=int, default=1, metavar="K",
                        help="the images are bursts of K consecutive frames of one still table; each burst is "
                             "read as one (default 1: every image on its own)")
    parser.add_argument("--decoder", choices=("zxing-cpp", "pyzbar"), default=None,
                        help="barcode decoder (default zxing-cpp; pyzbar is the fallback)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def load_image(path: str):
    import cv2
    import numpy as np

    p = Path(path)
    if not p.exists():
        raise BadInput(path, "no such image file")
    if p.is_dir():
        raise BadInput(path, "is a folder, not an image file")
    size = _pixel_size(p)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        w, h = size
        raise BadInput(path, f"{w} x {h} pixels ({w * h / 1e6:.0f} MP) is more than a scan reads "
                             f"({MAX_PIXELS // 1_000_000} MP, which bounds its memory); scale the picture down")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as e:
        raise BadInput(path, f"cannot read: {e.strerror or e}") from None
    with _quiet_stderr():
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise BadInput(path, "not an image OpenCV can read (PNG, JPEG, BMP, TIFF, WebP), or a damaged or cut-off one"
                       + ("" if size else f", or one larger than {MAX_PIXELS // 1_000_000} MP"))
    return image


@contextlib.contextmanager
def _quiet_stderr():
    """OpenCV, libpng and libjpeg print a broken file's details on stderr themselves (C code, past
    Python's sys.stderr); the one line of BadInput says it for us, so their lines go to /dev/null."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _pixel_size(p: Path) -> tuple[int, int] | None:
    """Width and height from the file's header (Pillow reads no pixels to tell), or None when Pillow
    cannot tell (a format it does not know, a broken header: OpenCV then has the last word)."""
    from PIL import Image
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # a header it finds odd: OpenCV decides, we say why
            with Image.open(p) as im:
                return im.size
    except Image.DecompressionBombError:
        return (MAX_PIXELS + 1, 1)      # more than Pillow's own bound, which is above ours
    except Exception:  # Pillow's format plugins raise many kinds for a header they cannot parse
        return None


def card_json(card) -> dict:
    """A card's facts, as far as its deck knows them."""
    out = {}
    for key in ("year", "title", "title_es", "period", "continent", "white", "ak_id"):
        value = getattr(card, key, None)
        if value is not None:
            out[key] = value
    if getattr(card, "icons", ()):
        out["icons"] = list(card.icons)
    if getattr(card, "circa", False):
        out["circa"] = True         # the date is approximate: "c. 300,000 BC" on the printed card
    return out


def _point(p) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def entry(result, layout: str, ms: float) -> dict:
    from companion.vision.identify import with_cards
    from companion.vision.reading_order import reading_order

    ordered, rows = reading_order(with_cards(result.codes), layout)
    codes = []
    for d in ordered:
        code = {"payload": d.payload, "center": _point(d.center), "corners": [_point(c) for c in d.corners]}
        if d.card is not None:
            code["card"] = card_json(d.card)
        codes.append(code)
    foreign = [{"text": f.payload, "center": _point(f.center), "corners": [_point(c) for c in f.corners]}
               for f in sorted(result.foreign, key=lambda f: (f.center[1], f.center[0]))]
    return {"ms": round(ms, 1), "codes": codes, "rows": rows, "foreign": foreign}


def run(args) -> int:
    from companion.vision.decode import decode, decode_burst, decoder_status, note_once, warm_up

    k = args.frames
    if k < 1:
        raise BadInput("--frames", f"{k} is not a number of frames (1 or more)")
    if len(args.images) % k:
        raise BadInput("--frames", f"{len(args.images)} images are not a whole number of bursts of {k} frames")
    if args.decoder and not decoder_status()[args.decoder]:
        raise BadInput("--decoder", f"{args.decoder} is not available here: {decoder_status()['note']}")
    note_once()
    warm_up()
    out = []
    for i in range(0, len(args.images), k):      # one burst in memory at a time, however many files
        images = [load_image(p) for p in args.images[i:i + k]]
        if len({im.shape for im in images}) > 1:
            raise BadInput(args.images[i], f"the {k} frames of this burst differ in size")
        t0 = time.perf_counter()
        if k == 1:
            result = decode(images[0], decoder=args.decoder)
        else:
            result = decode_burst(images, decoder=args.decoder)
        ms = (time.perf_counter() - t0) * 1000
        item = entry(result, args.layout, ms)
        head = {"file": args.images[i]} if k == 1 else {"files": list(args.images[i:i + k])}
        out.append({**head, **item})
    if args.json:
        print(json.dumps({"images": out}, ensure_ascii=False))
    else:
        print(format_plain(out))
    return 0


def format_plain(images: list[dict]) -> str:
    lines = []
    for img in images:
        name = img.get("file") or " + ".join(img["files"])
        n = len(img["codes"])
        lines.append(f"{name}: {counted(n, 'code')} in {counted(len(img['rows']), 'row')}, {img['ms']} ms")
        for r, row in enumerate(img["rows"], 1):
            lines.append(f"  row {r}:")
            for i in row:
                c = img["codes"][i]
                lines.append(f"    {i + 1:>3}  {c['payload']:<18} {_describe(c.get('card')):<40} "
                             f"at ({c['center'][0]:.0f}, {c['center'][1]:.0f})")
        for f in img["foreign"]:
            lines.append(f"  foreign code (not a card sticker): {f['text']!r} at ({f['center'][0]:.0f}, "
                         f"{f['center'][1]:.0f})")
    return "\n".join(lines)


def _describe(card: dict | None) -> str:
    if card is None:
        return "(unknown card: no deck knows this code)"
    if card.get("white") == "einstein":
        return "Einstein (white)"
    parts = []
    if "year" in card:
        parts.append(date_words(card["year"], "en", card.get("circa", False)).replace("\u00a0", " "))
    for key in ("continent", "title", "ak_id"):
        if key in card:
            parts.append(str(card[key]))
    return textwrap.shorten(" ".join(parts), 40, placeholder=" …")  # whole words: a date is never cut
