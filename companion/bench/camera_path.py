"""The per-frame cost of the camera path (part of ``companion bench kiosk``).

Every frame the kiosk takes from the Pi camera goes through fixed steps before and beside the
decoder: copy it out of the camera's buffer (the grey Y plane and the U and V planes card outlines
read the colour from), make it grey, the motion check, the preview. Each is
timed here at 1920x1080 and 4608x2592 on a generated photo-like table (up to 40 stickers at 3.3 px
per module), with the code the kiosk runs (``vision/sources.py``, ``vision/tracker.py``'s Motion,
``ui/table_feed.py``'s preview), next to zxing-cpp's plain full-frame pass over the same grey frame
in the same process: the reference. The camera's buffers are made as the Pi's ISP delivers them
(YUV420, the lores stream scaled beside the main one), so only the CPU's part is timed.

The same steps the way they were before the YUV420 main stream and the lores stream (an RGB888 frame
copied, turned grey, shrunk to 320 and to 479 wide by non-whole ratios) are timed beside them.

There is no Pi here, so the Pi 4 and Pi 5 figures are estimates: this machine's milliseconds times a
slowdown range. Pi 5: 3-4x (the relation hardware/camera.md gives for the decoder: a Cortex-A76 at
2.4 GHz against this machine's core); Pi 4: 6-10x, as the Pi 5 is 2-3x a Pi 4 (Raspberry Pi's own
launch figure for the CPU; its memory is about half as fast too, which the copy feels). The ratios to
the plain pass travel between machines better than the milliseconds do.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

SIZES = ((1920, 1080), (4608, 2592))
STICKERS = 40
PPM = 3.3
PI_SLOWDOWN = {"Pi 5": (3, 4), "Pi 4": (6, 10)}
TARGET_SHARE = 0.25         # the fixed steps at 12 MP: at most a quarter of the plain pass
FIXED = ("copy", "grey", "motion", "preview")


def _render(width: int, height: int, seed: int) -> tuple[np.ndarray, int]:
    """A photo-like table as the camera sees it (BGR), from the project's scene generator, with as
    many stickers as fit (up to STICKERS), and how many."""
    from companion.cards.decks import get_deck
    from companion.sim import scene as scene_module
    codes = get_deck("DEMO").payloads()
    for n in range(min(STICKERS, len(codes)), 0, -1):
        try:
            scene = scene_module.render_table(scene_module.FreeLayout(codes[:n]), width=width, height=height,
                                              px_per_module=PPM, seed=seed)
            return scene.image, n
        except ValueError:  # that many cards do not lie apart on this table: one fewer
            continue
    raise ValueError(f"no sticker fits a {width}x{height} table at {PPM} px/module")


def _timed(fn, reps: int) -> float:
    """Median milliseconds of ``reps`` calls."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_size(width: int, height: int, reps: int, seed: int = 0) -> dict:
    import cv2
    import zxingcpp

    from companion.ui.table_feed import _preview
    from companion.vision.decode import decode
    from companion.vision.sources import lores_size, yuv420_frame
    from companion.vision.tracker import MOTION_WIDTH, Motion

    bgr, stickers = _render(width, height, seed)
    lw, lh = lores_size(width, height)
    main = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)                 # the ISP's YUV420 main stream
    lores = cv2.cvtColor(cv2.resize(bgr, (lw, lh), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2YUV_I420)

    def grab():         # what PiCameraDevice.grab does with a completed request
        frame = yuv420_frame(main, width, height)
        frame.preview = cv2.cvtColor(lores, cv2.COLOR_YUV2BGR_I420)[:, :lw]
        frame.small = np.array(lores[:lh, :lw])
        return frame

    def preview(frame):  # the lores stream to BGR (grab), then to the screen's RGB (the table feed)
        frame.preview = cv2.cvtColor(lores, cv2.COLOR_YUV2BGR_I420)[:, :lw]
        return _preview(frame)
    frame = grab()
    motion = Motion()
    motion.update(frame)
    now = {
        "copy": _timed(lambda: yuv420_frame(main, width, height), reps),   # the Y plane and its chroma
        "grey": 0.0,                                                   # the Y plane is the grey frame
        "motion": _timed(lambda: motion.update(frame), reps),
        "preview": _timed(lambda: preview(frame), reps),
    }
    grey = np.ascontiguousarray(frame)
    qr = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCodeModel2)
    plain = _timed(lambda: zxingcpp.read_barcodes(grey, formats=qr), reps)
    decoded = _timed(lambda: decode(grey), reps)
    read = len(decode(grey).codes)

    rgb888 = np.ascontiguousarray(bgr)                                 # the old RGB888 main stream
    small_w = min(MOTION_WIDTH, width)
    scale = min(1.0, 480 / width)
    old_grey = cv2.cvtColor(rgb888, cv2.COLOR_BGR2GRAY)
    before = {
        "copy": _timed(lambda: np.array(rgb888), reps),                # capture_array's copy of the buffer
        "grey": _timed(lambda: cv2.cvtColor(rgb888, cv2.COLOR_BGR2GRAY), reps),
        "motion": _timed(lambda: cv2.resize(old_grey, (small_w, round(height * small_w / width)),
                                            interpolation=cv2.INTER_AREA), reps),
        "preview": _timed(lambda: cv2.cvtColor(cv2.resize(rgb888, (int(width * scale), int(height * scale)),
                                                          interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB), reps),
    }
    fixed = sum(now[k] for k in FIXED)
    return {"size": [width, height], "lores": [lw, lh], "stickers": stickers, "read": read,
            "ms": {k: round(v, 3) for k, v in now.items()}, "fixed_ms": round(fixed, 3),
            "decode_ms": round(decoded, 2), "plain_pass_ms": round(plain, 2),
            "fixed_share_of_plain": round(fixed / plain, 3) if plain else None,
            "decode_in_plain_passes": round(decoded / plain, 2) if plain else None,
            "before_ms": {k: round(v, 3) for k, v in before.items()},
            "before_fixed_ms": round(sum(before.values()), 2),
            "estimates_ms": {pi: {"fixed": [round(fixed * a, 1), round(fixed * b, 1)],
                                  "fixed_and_decode": [round((fixed + decoded) * a), round((fixed + decoded) * b)]}
                             for pi, (a, b) in PI_SLOWDOWN.items()}}


def measure(reps: int = 15, seed: int = 0) -> dict:
    return {"reference": "zxing-cpp's plain full-frame pass (QR Model 2) over the same grey frame",
            "target_fixed_share_at_12mp": TARGET_SHARE,
            "estimate": "this machine's ms x " + ", ".join(f"{a}-{b} for a {pi}" for pi, (a, b) in PI_SLOWDOWN.items())
                        + " (not measured on a Pi: see companion/bench/camera_path.py)",
            "sizes": [measure_size(w, h, reps, seed) for w, h in SIZES]}


def lines(result: dict) -> list[str]:
    out = [f"camera path per frame (reference: {result['reference']}):"]
    for s in result["sizes"]:
        w, h = s["size"]
        ms = s["ms"]
        out.append(f"  {w}x{h} (lores {s['lores'][0]}x{s['lores'][1]}): copy {ms['copy']:.2f}, grey {ms['grey']:.2f} "
                   f"(the Y plane), motion {ms['motion']:.2f}, preview {ms['preview']:.2f} ms = fixed "
                   f"{s['fixed_ms']:.2f} ms = {s['fixed_share_of_plain']:.1%} of the plain pass "
                   f"({s['plain_pass_ms']:.1f} ms)")
        b = s["before_ms"]
        out.append(f"      before (RGB888 main, non-whole shrinks): copy {b['copy']:.2f}, grey {b['grey']:.2f}, motion "
                   f"{b['motion']:.2f}, preview {b['preview']:.2f} ms = {s['before_fixed_ms']:.1f} ms")
        out.append(f"      decode {s['decode_ms']:.1f} ms = {s['decode_in_plain_passes']} plain passes "
                   f"({s['read']} of {s['stickers']} stickers read)")
        est = "; ".join(f"{pi}: fixed {e['fixed'][0]:g}-{e['fixed'][1]:g} ms, with decoding "
                        f"{e['fixed_and_decode'][0]}-{e['fixed_and_decode'][1]} ms"
                        for pi, e in s["estimates_ms"].items())
        out.append(f"      estimate {est}")
    big = result["sizes"][-1]
    out.append(f"  target: fixed steps at {big['size'][0]}x{big['size'][1]} <= "
               f"{result['target_fixed_share_at_12mp']:.0%} of the plain pass; "
               f"measured {big['fixed_share_of_plain']:.1%}")
    out.append(f"  estimates: {result['estimate']}")
    return out
