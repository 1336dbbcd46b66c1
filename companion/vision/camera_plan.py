"""``companion plan-camera``: how many pixels each sticker module gets, for a camera above the table.

A camera looking straight down at a flat table sees a rectangle of it whose width is
``2 x height x tan(hfov / 2)``; a rectilinear lens spreads its pixels evenly over a plane parallel to
the sensor, so every sticker in view gets the same pixels per millimetre. A printed square sticker is
28.9 code modules across (the 21-module code, its white margin and its number; companion stickers),
so its module is ``size / 28.9`` and its pixels per module ``px_per_mm x size / 28.9``.

What reads comes from ``companion bench vision --close-ups '' --printed 0`` (seed 0: photo-like
frames at 3.3, 2.7, 2.2 and 1.8 px/module; the table is in hardware/camera.md). Each threshold is the
lowest level at which every sticker was read, with no misread: single frames read 100 % of 1006,
1015 and 1022 stickers at 3.3, 2.7 and 2.2 (95.14 % of 1008 at 1.8); 5-frame bursts of a still table
read 100 % at every level down to 1.8; zxing-cpp's plain full-frame pass alone reads all only at 3.3
(97.73 % at 2.7), which is the room to spare (glare, a dirty lens, a sticker at the edge of the view).

The default plan is the recommended camera (Camera Module 3 Wide) at the kiosk's default picture size
(``[camera] width x height``, config.py), 36 cm above an 80 cm play area: ``default_sticker_mm()``, the
smallest sticker it reads in single frames, is the printer's default size (print/stickers.py).

A long Timeline row does not fit across any camera's view: players wrap it, as they would on a
crowded table, going on in a second line below the first (and a third...), each left to right; the
tracker reads the lines top to bottom, one after the other (vision/reading_order.py). ``row_plan``
says how many cards of the print-and-play size (63 x 88 mm, about a Timeline card) go in a line and
how many lines the view holds: with the defaults 12 and 4, 48 cards, where a finished 5-player game
lies in about 21 to 30 (tests/test_vision_long_row.py plays one to the end on the virtual table at
the default plan's scale).
"""

from __future__ import annotations

import json
import math

from companion.config import CameraSettings, load_config
from companion.errors import BadInput
from companion.words import counted

STICKER_MODULES = 28.9          # square sticker side in code modules (print/stickers.py StickerGeometry)
SINGLE_PPM = 2.2                # single frames read every sticker from here (bench vision)
BURST_PPM = 1.8                 # 5-frame bursts of a still table read every sticker from here
COMFORT_PPM = 3.3               # zxing-cpp's plain pass alone reads every sticker from here
SIZES_MM = tuple(range(10, 26))
HEIGHTS_CM = (30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 120)
# Camera Module 3 Wide (Sony IMX708): 4608x2592, 102 degrees horizontal field of view (120 diagonal).
DEFAULT_SENSOR = "4608x2592"
DEFAULT_HFOV = 102.0
DEFAULT_HEIGHT_CM = 36.0
DEFAULT_TABLE_CM = 80.0
DEFAULT_CAPTURE = f"{CameraSettings().width}x{CameraSettings().height}"   # what the kiosk asks the camera for
CARD_MM = (63.0, 88.0)          # a print-and-play card (companion cards), about a Timeline card
CARD_GAP_MM = (3.0, 10.0)       # what people leave between two cards of a line, and between two lines
ROW_SHARE = (0.9, 0.88)         # the share of the view a row may fill (the rest: a turned or tilted table)
FINISHED_ROW = 30               # a long finished 5-player Timeline game: 21 cards dealt and placed, plus sudden death


def add_arguments(parser) -> None:
    parser.add_argument("--sensor", default=DEFAULT_SENSOR, metavar="WxH",
                        help=f"sensor resolution in pixels (default {DEFAULT_SENSOR}: Camera Module 3)")
    parser.add_argument("--hfov", type=float, default=DEFAULT_HFOV, metavar="DEG",
                        help=f"horizontal field of view in degrees (default {DEFAULT_HFOV:g}: Camera Module 3 Wide; "
                             "the standard Module 3 is 66)")
    parser.add_argument("--height-cm", type=float, default=DEFAULT_HEIGHT_CM,
                        help=f"camera height above the table (default {DEFAULT_HEIGHT_CM:g} cm)")
    parser.add_argument("--table-cm", type=float, default=DEFAULT_TABLE_CM,
                        help=f"width of the play area the camera must see (default {DEFAULT_TABLE_CM:g} cm)")
    parser.add_argument("--capture", metavar="WxH",
                        help=f"picture size the kiosk reads (default: [camera] width x height of the settings "
                             f"file, else {DEFAULT_CAPTURE}); the sensor's binned and full sizes are shown beside it")
    parser.add_argument("--focus", metavar="auto|once|CM",
                        help="the camera.focus to plan with (default: the settings file's, else auto)")
    parser.add_argument("--json", action="store_true", help="one JSON document")


def _size(text: str, where: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise BadInput(where, f"{text!r} is not a size like 4608x2592") from None
    if not (16 <= w <= 100000 and 16 <= h <= 100000):
        raise BadInput(where, f"{text} is not a camera picture size")
    return w, h


def view_cm(height_cm: float, hfov: float, aspect: float) -> tuple[float, float]:
    """Width and depth of table seen from ``height_cm`` straight above it."""
    w = 2 * height_cm * math.tan(math.radians(hfov) / 2)
    return w, w * aspect


def smallest_mm(px_per_mm: float, ppm: float) -> float:
    """The smallest square sticker (mm, rounded up to 0.5) whose modules get ``ppm`` pixels."""
    return math.ceil(ppm * STICKER_MODULES / px_per_mm * 2) / 2


def plan(sensor=None, hfov=DEFAULT_HFOV, height_cm=DEFAULT_HEIGHT_CM, table_cm=DEFAULT_TABLE_CM,
         capture=None) -> dict:
    sensor = sensor or _size(DEFAULT_SENSOR, "--sensor")
    capture = capture or _size(DEFAULT_CAPTURE, "--capture")
    if not 10 <= hfov <= 170:
        raise BadInput("--hfov", f"{hfov:g} degrees is not a lens's field of view (10 to 170)")
    if not 5 <= height_cm <= 1000:
        raise BadInput("--height-cm", f"{height_cm:g} cm is not a camera height (5 to 1000)")
    if not 5 <= table_cm <= 1000:
        raise BadInput("--table-cm", f"{table_cm:g} cm is not a table width (5 to 1000)")
    aspect = sensor[1] / sensor[0]
    vw, vh = view_cm(height_cm, hfov, aspect)
    modes = [tuple(capture)]
    for m in ((sensor[0] // 2, sensor[1] // 2), tuple(sensor)):
        if m not in modes:
            modes.append(m)
    captures = []
    for w, h in modes:
        # a capture of another aspect than the sensor's is cut from the full width (what picamera2 does
        # for a 16:9 picture from a 16:9 sensor: scaled, the whole field of view kept)
        px_mm = w / (vw * 10)
        captures.append({
            "size": [w, h], "px_per_mm": round(px_mm, 3),
            "stickers": [{"mm": s, "module_mm": round(s / STICKER_MODULES, 3),
                          "px_per_module": round(px_mm * s / STICKER_MODULES, 2)} for s in SIZES_MM],
            "smallest_mm": {"single_frames": smallest_mm(px_mm, SINGLE_PPM),
                            "bursts": smallest_mm(px_mm, BURST_PPM),
                            "comfortable": smallest_mm(px_mm, COMFORT_PPM)},
        })
    heights = []
    for hc in sorted(set(HEIGHTS_CM) | {round(height_cm, 1)}):
        w_cm, _ = view_cm(hc, hfov, aspect)
        heights.append({"height_cm": hc, "view_width_cm": round(w_cm, 1), "sees_table": w_cm >= table_cm,
                        "smallest_mm_single_frames": {f"{w}x{h}": smallest_mm(w / (w_cm * 10), SINGLE_PPM)
                                                      for w, h in modes}})
    min_height = table_cm / (2 * math.tan(math.radians(hfov) / 2))
    return {"sensor": list(sensor), "hfov_deg": hfov, "row": row_plan(vw, vh, FINISHED_ROW),
            "vfov_deg": round(math.degrees(2 * math.atan(math.tan(math.radians(hfov) / 2) * aspect)), 1),
            "height_cm": height_cm, "table_cm": table_cm, "view_cm": [round(vw, 1), round(vh, 1)],
            "sees_table": vw >= table_cm, "lowest_height_cm": round(min_height, 1),
            "thresholds_px_per_module": {"single_frames": SINGLE_PPM, "bursts": BURST_PPM, "comfortable": COMFORT_PPM},
            "captures": captures, "heights": heights}


def row_plan(view_w_cm: float, view_h_cm: float, cards: int | None = None) -> dict:
    """A Timeline row in the view, wrapped onto lines: cards per line, lines, cards in all (and, for
    ``cards``, the lines they take)."""
    w, h = view_w_cm * 10 * ROW_SHARE[0], view_h_cm * 10 * ROW_SHARE[1]
    (cw, ch), (gx, gy) = CARD_MM, CARD_GAP_MM
    per_line = int((w - cw) // (cw + gx)) + 1 if w >= cw else 0
    lines = int((h - ch) // (ch + gy)) + 1 if h >= ch else 0
    out = {"card_mm": list(CARD_MM), "gap_mm": list(CARD_GAP_MM), "per_line": per_line, "lines": lines,
           "cards": per_line * lines}
    if cards is not None:
        out["lines_for"] = {"cards": cards, "lines": -(-cards // per_line) if per_line else None}
    return out


def default_sticker_mm() -> float:
    """The smallest square sticker the default plan reads in single frames (the printer's default)."""
    return plan()["captures"][0]["smallest_mm"]["single_frames"]


def _settings() -> CameraSettings:
    """The settings file's [camera] (its defaults when the file is missing or broken: this command
    plans, ``companion doctor`` checks the file)."""
    try:
        return load_config().camera
    except BadInput:
        return CameraSettings()


def _focus(text: str | None):
    """--focus, else camera.focus of the settings file."""
    from pydantic import ValidationError

    if text is None:
        return _settings().focus
    try:
        return CameraSettings(focus=text).focus
    except ValidationError as e:
        raise BadInput("--focus", e.errors()[0]["msg"].removeprefix("Value error, ")) from None


def focus_plan(focus, height_cm: float) -> dict:
    """What the lens needs at this height, and what the focus setting does about it."""
    from companion.vision.sources import focus_text
    need = 100 / height_cm
    return {"setting": focus, "does": focus_text(focus), "lens_position_needed": round(need, 2),
            "suggested_fixed": round(height_cm),
            "fixed_off_by_dioptres": round(abs(100 / focus - need), 2) if isinstance(focus, float) else None}


def _setting(focus) -> str:
    return f"{focus:g}" if isinstance(focus, float) else str(focus)


def streams(capture, sensor) -> dict:
    """The Pi camera's streams for a picture size (vision/sources.py) and the camera memory they take:
    each buffer holds the YUV420 main and lores pictures and the sensor's raw picture (10-bit packed,
    from the binned mode when the picture fits it, else the full one). A Pi 4 has 512 MB of it."""
    from companion.vision.sources import BUFFERS, lores_size
    w, h = capture
    lw, lh = lores_size(w, h)
    binned = (sensor[0] // 2, sensor[1] // 2)
    raw = binned if w <= binned[0] and h <= binned[1] else tuple(sensor)
    raw_mb = raw[0] * raw[1] * 10 / 8 / 1e6
    per_buffer = (w * h + lw * lh) * 1.5 / 1e6 + raw_mb
    return {"main": [w, h], "lores": [lw, lh], "buffers": BUFFERS, "raw": list(raw),
            "camera_memory_mb": round(per_buffer * BUFFERS, 1),
            "before_mb": round((w * h * 3 / 1e6 + raw_mb) * 6, 1)}     # RGB888 main, 6 buffers


def run(args) -> int:
    if args.capture:
        capture = _size(args.capture, "--capture")
    else:
        settings = _settings()
        capture = (settings.width, settings.height)
    result = plan(_size(args.sensor, "--sensor"), args.hfov, args.height_cm, args.table_cm, capture)
    result["focus"] = focus_plan(_focus(args.focus), args.height_cm)
    result["streams"] = streams(capture, _size(args.sensor, "--sensor"))
    if args.json:
        print(json.dumps(result))
    else:
        print(format_plan(result))
    return 0


def _mark(ppm: float) -> str:
    if ppm >= COMFORT_PPM:
        return "good"
    if ppm >= SINGLE_PPM:
        return "reads"
    if ppm >= BURST_PPM:
        return "bursts"
    return "too small"


def format_plan(r: dict) -> str:
    sw, sh = r["sensor"]
    vw, vh = r["view_cm"]
    lines = [f"Camera {sw}x{sh}, {r['hfov_deg']:g} deg across ({r['vfov_deg']:g} deg down), {r['height_cm']:g} cm "
             f"above the table, looking straight down: it sees {vw:g} x {vh:g} cm.",
             (f"The {r['table_cm']:g} cm play area fits (from {r['lowest_height_cm']:g} cm up)." if r["sees_table"] else
              f"The {r['table_cm']:g} cm play area does NOT fit: mount the camera at least "
              f"{r['lowest_height_cm']:g} cm "
              f"high."),
             "",
             "Pixels per code module for square stickers (companion stickers --size MM); reliable: "
             f">= {SINGLE_PPM} single frames, >= {BURST_PPM} with 5-frame bursts, >= {COMFORT_PPM} with room to spare."]
    head = "  sticker  module   " + "  ".join(f"{c['size'][0]}x{c['size'][1]}".ljust(14) for c in r["captures"])
    lines.append(head.rstrip())
    for i, s in enumerate(SIZES_MM):
        row = f"  {s:>4} mm  {s / STICKER_MODULES:.2f} mm"
        for c in r["captures"]:
            ppm = c["stickers"][i]["px_per_module"]
            row += f"   {ppm:>4.2f} {_mark(ppm):<9}"
        lines.append(row.rstrip())
    lines.append("")
    for c in r["captures"]:
        m = c["smallest_mm"]
        lines.append(f"At {c['size'][0]}x{c['size'][1]} ({c['px_per_mm']:.2f} px/mm): smallest sticker "
                     f"{m['single_frames']:g} mm for single frames, {m['bursts']:g} mm with bursts, "
                     f"{m['comfortable']:g} mm with room to spare.")
    lines.append("")
    lines.append("Other heights (smallest sticker for single frames, per picture size):")
    lines.append("  height      sees  " + "".join(f"{c['size'][0]}x{c['size'][1]}".rjust(12) for c in r["captures"]))
    for h in r["heights"]:
        cells = "".join(f"{v:g} mm".rjust(12) for v in h["smallest_mm_single_frames"].values())
        mark = " " if h["sees_table"] else "*"
        lines.append(f"  {h['height_cm']:>4g} cm  {h['view_width_cm']:>6.1f} cm{mark}{cells}")
    if any(not h["sees_table"] for h in r["heights"]):
        lines.append(f"  (* does not see the {r['table_cm']:g} cm play area)")
    row = r["row"]
    cw, ch = row["card_mm"]
    lines += ["", f"A Timeline row of {cw:g} x {ch:g} mm cards wraps onto lines, each read left to right, top to "
                  f"bottom: {row['per_line']} cards a line, {row['lines']} lines in view, {row['cards']} cards in all"
                  + (f" (a finished 5-player game, about {row['lines_for']['cards']} cards, takes "
                     f"{counted(row['lines_for']['lines'], 'line')})." if row["per_line"] and row["lines"] else ".")]
    if "focus" in r:
        f = r["focus"]
        lines += ["", f"Focus: at {r['height_cm']:g} cm the lens needs {f['lens_position_needed']:.2f} dioptres "
                      f"(LensPosition = 100 / cm); the Camera Module 3 rests at 1 dioptre, sharp at 1 m. "
                      f"camera.focus = {_setting(f['setting'])}: {f['does']}"
                      + (f", {f['fixed_off_by_dioptres']:.2f} dioptres off" if f["fixed_off_by_dioptres"] else "")
                      + f". For a fixed mount: camera.focus = {f['suggested_fixed']}."]
    if "streams" in r:
        st = r["streams"]
        lines.append(f"Camera streams at {st['main'][0]}x{st['main'][1]}: YUV420 main (its Y plane is the grey "
                     f"picture), lores {st['lores'][0]}x{st['lores'][1]} (motion check, preview), {st['buffers']} "
                     f"buffers with the raw {st['raw'][0]}x{st['raw'][1]}: about {st['camera_memory_mb']:g} MB of "
                     f"camera memory (a Pi 4 has 512 MB; RGB888 with 6 buffers took {st['before_mb']:g} MB).")
    return "\n".join(lines)
