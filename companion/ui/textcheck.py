"""Every frame of a kiosk read whole: each new frame drawn again in every language at every size, and
the texts a player would miss part of (cut, or under their role's floor: ``Canvas.faults``) counted.

tests/test_demo_games.py runs it over whole games of the demo; ``tools/screens.py --check`` prints its
counts per game, language and size."""

from __future__ import annotations

import pygame

from companion.i18n import LANGUAGES
from companion.ui.canvas import FAULT_KINDS, Canvas


class FrameCheck:
    """Every new frame a kiosk draws, drawn again in each language at each size, and the texts among them
    that are cut or under their floor (``Canvas.faults``), counted per language and size.

    The kiosk draws its frame in its own language at its own size; each frame whose texts differ from the
    last one's is drawn again on a surface of every other (language, size) pair, with the screen's state
    put back afterwards, so the game the kiosk plays is not changed by the check. A score sheet is drawn
    at every page in each (a larger screen may take fewer pages)."""

    def __init__(self, kiosk, sizes=((800, 480), (1920, 1080)), langs=LANGUAGES):
        self.k = kiosk
        self.variants = [(lang, tuple(size)) for size in sizes for lang in langs]
        self.surfaces = {size: pygame.Surface(size) for _, size in self.variants}
        self.frames = {v: 0 for v in self.variants}           # distinct frames drawn, per (lang, size)
        self.faults: dict = {v: {} for v in self.variants}    # (lang, size) -> {(kind, role, text): screen}
        self._last = None

    def own(self):
        return self.k.lang, tuple(self.k.surface.get_size())

    def look(self) -> None:
        """After a kiosk step: the frame, and its twins in the other languages and sizes."""
        k, c = self.k, self.k.last
        top = k.stack.top
        if c is None or top is None:
            return
        key = (k.screen_key(), tuple((d.role, d.text, d.px) for d in c.drawn))
        if key == self._last:
            return
        self._last = key
        score = top.name == "score"
        for variant in self.variants:
            if variant == self.own() and not score:
                self.note(variant, c)
                continue
            saved, lang = dict(top.__dict__), k.lang
            try:
                k.lang = variant[0]
                pages = 1
                page = 0
                while page < pages:
                    if score:
                        top.page = page
                    canvas = Canvas(self.surfaces[variant[1]], variant[0], paint=False)
                    top.draw(canvas)
                    self.note(variant, canvas)
                    pages = top.pages() if score else 1
                    page += 1
            finally:
                k.lang = lang
                top.__dict__.clear()
                top.__dict__.update(saved)

    def note(self, variant, canvas) -> None:
        self.frames[variant] += 1
        for kind, d in canvas.faults():
            self.faults[variant].setdefault((kind, d.role, d.text, round(d.px / canvas.u)), self.k.screen_key())

    def counts(self, variant) -> dict[str, int]:
        found = self.faults[variant]
        return {kind: sum(1 for f in found if f[0] == kind) for kind in FAULT_KINDS}

    def total(self) -> int:
        return sum(len(found) for found in self.faults.values())

    def lines(self, label: str = "") -> list[str]:
        """Every fault found, one line each: what, where (language, size, screen), its role and size."""
        return [f"{label}{lang} {w}x{h} {screen}: {kind} {role} {text!r} at {px} px"
                for (lang, (w, h)), found in self.faults.items()
                for (kind, role, text, px), screen in sorted(found.items())]
