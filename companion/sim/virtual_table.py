"""A camera that looks at a simulated table: the demo's and the tests' stand-in for the Pi camera.

The picture of a layout is rendered once by the scene generator (companion/sim/scene.py: cards, stickers, table
texture, light, blur) and cached while the layout stays the same; every ``read()`` adds fresh sensor
noise so consecutive frames differ like a real camera's. The tracker reads it exactly as it reads a
photo: nothing is passed on but pixels.

The look is a good camera on a stand: mild blur, even light, no glare, no JPEG, no Bayer mosaic (the
bench's harsher frames are for ``companion bench vision``). It is also quick to draw (about 0.1 s per
new layout at 1280x720), which matters because the demo changes the layout every turn.

Scale: the largest of 3.6 down to 1.0 pixels per module (steps of 0.1) at which the layout fits the
frame; it never refuses a layout. At 1280x720 that is 3.6 for rows of up to 8 cards, 3.0 for 12,
2.2 for 16, 1.8 for 20 and 2.2 for Cronología's 9-row grid, and every one of these reads completely
(tests/test_vision_virtual_table.py); at 1920x1080 a 20-card row gets 2.7. From about 24 cards in a
1280-pixel row the stickers get too small to read: a real table would need a wider picture or
bigger stickers (hardware/camera.md).

``VirtualTable.default_plan()`` is instead the real table under the default camera plan
(vision/camera_plan.py): the kiosk's 4608x2592 picture of the 88.9 x 50 cm seen from 36 cm, the
printer's default 12.5 mm stickers on 63 x 88 mm cards, all at their true sizes; a row too long for
a line goes on in the next, as people lay it (tests/test_vision_long_row.py plays a 5-player
Timeline game to the end on it).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, TypedDict

import numpy as np

from companion.cards.payload import parse_sticker
from companion.sim.scene import fits, release_scene_caches, render_table
from companion.vision.layouts import GridLayout, RowLayout, RowsLayout

BEST_PX_PER_MODULE = 3.6      # a well-mounted camera (hardware/camera.md)
LEAST_PX_PER_MODULE = 1.0     # below this nothing reads; above it a layout is always drawn, never refused
NOISE_FIELDS = 4
NOISE_SIGMA = 2.0             # grey levels of sensor noise, fresh in every frame
PICTURES_KEPT = 3             # the last layouts' pictures: a wrong card taken back leaves the table as it was


class Look(TypedDict):
    """The camera and the room, as ``render_table`` takes them."""

    blur: tuple[float, float]
    noise: float
    jpeg: None
    glare: float
    bayer: bool
    tilt: float
    perspective: float
    light: float
    jitter: float


LOOK: Look = {"blur": (0.4, 0.6), "noise": 0, "jpeg": None, "glare": 0, "bayer": False, "tilt": 1.5,
              "perspective": 2.0, "light": 0.15, "jitter": 1.5}


class VirtualTable:
    def __init__(self, width: int = 1280, height: int = 720, seed: int = 0, *, px_per_module: float | None = None,
                 card: tuple[float, float, float, float] | None = None, wrap: bool = False,
                 camera_frames: bool = False, faces=None):
        self.width, self.height, self.seed = int(width), int(height), seed
        self.camera_frames = camera_frames      # frames as the Pi camera gives them (``camera_frame``)
        self.fixed_ppm = px_per_module          # a camera plan's scale (None: the largest that fits)
        self.card = card                        # card size and spacing, modules (scene.render_table)
        self.wrap = wrap
        self.faces = dict(faces or {})          # payload -> printed face: a card without a sticker (scene.py)
        self.layout = RowLayout([])
        self._pictures: OrderedDict[str, np.ndarray] = OrderedDict()     # layout -> its picture, the newest last
        self._drawn_ppm: float | None = None    # the scale the last picture was drawn at
        self._frames = 0
        self._rng = np.random.default_rng([seed, 99])
        self._noise: list[np.ndarray] | None = None
        self._frames_of: np.ndarray | None = None   # the picture the frames below were made of
        self._noisy: list[np.ndarray] = []

    @classmethod
    def default_plan(cls, seed: int = 0, faces=None) -> VirtualTable:
        """The table as the default camera plan sees it, every size true (see the module's doc)."""
        from companion.vision import camera_plan
        capture = camera_plan.plan()["captures"][0]
        w, h = capture["size"]
        module_mm = camera_plan.default_sticker_mm() / camera_plan.STICKER_MODULES
        (cw, ch), (gx, gy) = camera_plan.CARD_MM, camera_plan.CARD_GAP_MM
        return cls(w, h, seed, px_per_module=capture["px_per_mm"] * module_mm,
                   card=(cw / module_mm, ch / module_mm, gx / module_mm, gy / module_mm), wrap=True, faces=faces)

    def set_layout(self, layout) -> None:
        self.layout = layout

    def set_faces(self, faces) -> None:
        """Cards drawn with these faces and no sticker from now on (payload -> picture): the same
        layout of other faces (cards turned over) is another picture."""
        self.faces = dict(faces)
        self._pictures.clear()

    def card_px(self) -> float:
        """A card's width in the picture, pixels (what face recognition is told: vision/faces.py)."""
        from companion.sim.scene import CARD_W
        return (self.card[0] if self.card else CARD_W) * self.px_per_module()

    def px_per_module(self, layout=None) -> float:
        """The scale the layout (its cards, foreign texts aside) is drawn at."""
        layout = split_foreign(self.layout)[0] if layout is None else layout
        if self.fixed_ppm is not None:
            return self.fixed_ppm
        ppm = BEST_PX_PER_MODULE
        while ppm > LEAST_PX_PER_MODULE and not fits(layout, width=self.width, height=self.height, px_per_module=ppm,
                                                     seed=self.seed, table="wood", tilt=LOOK["tilt"],
                                                     perspective=LOOK["perspective"], jitter=LOOK["jitter"]):
            ppm = round(ppm - 0.1, 2)
        return ppm

    def picture(self) -> np.ndarray:
        """The table as the layout lies now, without this frame's noise. A layout drawn lately is not
        drawn again (the same layout, seed and scale draw the same picture): a wrong card taken back
        leaves the table as it was before it was laid."""
        key = repr(self.layout)
        picture = self._pictures.get(key)
        if picture is not None:
            self._pictures.move_to_end(key)
            return picture
        layout, foreign = split_foreign(self.layout)
        ppm = self.px_per_module(layout)
        if ppm != self._drawn_ppm:
            # The scene's card and sticker textures are drawn at the picture's scale: each turn redraws the
            # cards still lying there at the same scale, until a longer row needs a smaller one; textures
            # of another scale would only hold memory (about 1 MB per card, bench kiosk's memory figure)
            release_scene_caches()
        # the same seed is the same table and light: another layout is another photo of it. The card
        # faces are drawn at the picture's own detail (the stickers are always drawn fine): twice as
        # fine cost three times as long (327 ms a 1080p row of 8 cards against 107), most of the demo's
        # time and of the tests that play it, for art the screen shows at a third of its size
        scene = render_table(layout, width=self.width, height=self.height, px_per_module=ppm,
                             seed=self.seed, table="wood", foreign_codes=foreign, card=self.card, wrap=self.wrap,
                             card_detail=1.0, faces=self.faces, **LOOK)
        self._drawn_ppm = ppm
        self._pictures[key] = scene.image
        while len(self._pictures) > PICTURES_KEPT:
            self._pictures.popitem(last=False)
        return scene.image

    def read(self) -> np.ndarray:
        """The next camera frame (BGR)."""
        picture = self.picture()
        if self._noise is None or self._noise[0].shape != picture.shape:
            self._noise = noise_fields(self._rng, picture.shape)
        if self._frames_of is not picture:
            self._frames_of, self._noisy = picture, []
        self._frames += 1
        k = self._frames % NOISE_FIELDS
        if k >= len(self._noisy):
            # A still table gives NOISE_FIELDS different frames in turn, each made once: adding noise to
            # a whole frame costs more than reading most frames does.
            dy, dx = self._rng.integers(0, 64, 2)
            # picture + shifted noise, clipped: summed into the shifted copy, in place (a 12 MP frame is
            # 72 MB at int16; every full-size temporary costs as much as the sum)
            wide = np.roll(self._noise[len(self._noisy)], (int(dy), int(dx)), axis=(0, 1))
            wide += picture
            frame = np.clip(wide, 0, 255, out=wide).astype(np.uint8)
            if self.camera_frames:
                frame = camera_frame(frame)
            frame.flags.writeable = False
            self._noisy.append(frame)
            return frame
        return self._noisy[k]

    def close(self) -> None:
        pass


_NOISE_MADE: dict[tuple, tuple[list[np.ndarray], Mapping[str, Any]]] = {}   # the last fields made, see noise_fields
NOISE_KEPT_SIZE = 1920 * 1080 * 3     # fields of pictures up to 1080p are kept (50 MB); a 12 MP table's are not


def noise_fields(rng: np.random.Generator, shape: tuple) -> list[np.ndarray]:
    """NOISE_FIELDS fields of sensor noise drawn from ``rng``, shifted at random for each frame:
    fresh-looking noise at little cost (drawn in float32, a third of the time of float64). Every
    kiosk a test builds (one per test, each with its demo's seed) draws the same ones at its first
    frame: the last ones made are kept with the state they leave ``rng`` in, and given again with it,
    so every frame is the same as if they had been drawn again."""
    key = (tuple(shape), repr(rng.bit_generator.state))
    made = _NOISE_MADE.get(key)
    if made is not None:
        rng.bit_generator.state = made[1]
        return made[0]
    fields = [np.clip(n * np.float32(NOISE_SIGMA), -8, 8).astype(np.int16)
              for n in (rng.standard_normal(shape, dtype=np.float32) for _ in range(NOISE_FIELDS))]
    for field in fields:
        field.flags.writeable = False         # shared by the tables that draw them again
    if math.prod(shape) <= NOISE_KEPT_SIZE:
        _NOISE_MADE.clear()
        _NOISE_MADE[key] = (fields, rng.bit_generator.state)
    return fields


def camera_frame(bgr: np.ndarray):
    """A frame as the Pi camera gives it (vision/sources.py: ``CameraFrame``): the picture made a
    YUV420 buffer as the camera's image processor makes its main stream, and read out of it as
    ``PiCameraDevice.grab`` reads one (the grey Y plane, the U and V planes as ``chroma``), with a
    small grey picture for the motion check and a preview for the screen. The demo's table holds still
    for many frames and repeats its few noisy frames, so each is made once, when it is drawn, instead
    of by the tracker and the screen at every frame; the small pictures are the ones they would compute
    (the same whole-number shrinks), not the camera's lores stream. The sides must be even (YUV420),
    as every camera size is."""
    import cv2

    from companion.vision.shrink import factor, shrink
    from companion.vision.sources import PREVIEW_WIDTH, yuv420_frame
    from companion.vision.tracker import MOTION_WIDTH

    height, width = bgr.shape[:2]
    frame = yuv420_frame(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420), width, height)
    frame.small = shrink(np.asarray(frame), factor(width, MOTION_WIDTH, at_most=False))
    frame.preview = shrink(bgr, factor(bgr.shape[1], PREVIEW_WIDTH))
    return frame


def split_foreign(layout):
    """A text that is not a sticker payload (the demo's shop leaflet) lies beside the cards as a
    foreign code of its own, as it would on a real table."""
    def card(text):
        return text is None or parse_sticker(text) is not None
    if isinstance(layout, RowLayout):
        return RowLayout([c for c in layout.codes if card(c)]), [c for c in layout.codes if not card(c)]
    if isinstance(layout, GridLayout):
        foreign = [c for row in layout.rows for c in row if not card(c)]
        return GridLayout([[c if card(c) else None for c in row] for row in layout.rows]), foreign
    if isinstance(layout, RowsLayout):
        foreign = [c for row in layout.rows for c in row if not card(c)]
        return RowsLayout([[c for c in row if card(c)] for row in layout.rows], layout.owners), foreign
    return layout, []
