"""A camera that looks at a simulated table: the demo's and the tests' stand-in for the Pi camera.

The picture of a layout is rendered once by the scene generator (scene.py: cards, stickers, table
texture, light, blur) at the largest sticker scale that fits the frame, never above what a real
camera gives, and every ``read()`` adds fresh sensor noise so consecutive frames differ like a real
camera's. The tracker reads it exactly as it reads a photo: nothing is passed on but pixels.
"""

from __future__ import annotations

import numpy as np

from companion.cards.payload import parse_sticker
from companion.vision.layouts import GridLayout, RowLayout
from companion.vision.scene import fits, render_table

BEST_PX_PER_MODULE = 3.6      # a well-mounted camera (hardware/camera.md)
LEAST_PX_PER_MODULE = 2.4     # a long row in a small frame still reads (single frames need >= 2.2)


class VirtualTable:
    def __init__(self, width: int = 1280, height: int = 720, seed: int = 0):
        self.width, self.height, self.seed = width, height, seed
        self.layout = RowLayout([])
        self._key = None
        self._picture: np.ndarray | None = None
        self._frames = 0

    def set_layout(self, layout) -> None:
        self.layout = layout

    def px_per_module(self, layout) -> float:
        ppm = BEST_PX_PER_MODULE
        while ppm > LEAST_PX_PER_MODULE and not fits(layout, width=self.width, height=self.height,
                                                     px_per_module=ppm, seed=self.seed):
            ppm -= 0.1
        return ppm

    def read(self) -> np.ndarray:
        key = repr(self.layout)
        if key != self._key:
            layout, foreign = split_foreign(self.layout)
            scene = render_table(layout, width=self.width, height=self.height, px_per_module=self.px_per_module(layout),
                                 seed=self.seed, jpeg=None, glare=0.2, foreign_codes=foreign)
            self._key, self._picture = key, scene.image
        self._frames += 1
        rng = np.random.default_rng(self._frames)
        noisy = self._picture.astype(np.int16) + rng.integers(-2, 3, self._picture.shape, dtype=np.int16)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def close(self) -> None:
        pass


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
    return layout, []
