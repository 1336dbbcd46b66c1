"""Drawing on any surface size, with a record of what was drawn.

All sizes are given in reference pixels (800x480) and scaled by ``u``; positions are computed by the
screens from ``w`` and ``h``. Every piece of text and every touchable spot is recorded (``drawn``,
``hits``) so a test -- or the touch screen -- knows what is where without looking at pixels.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import pygame

from companion.i18n import Literal, Text, translate
from companion.inputs.commands import Command
from companion.paths import assets_dir
from companion.ui import theme

READ_TEXT = 24   # reference px: what a player must read to play (see PLAY_ROLES) is never smaller ...
MIN_TEXT = 16    # ... and nothing at all is; text shrinks to fit down to its floor, then it is cut (and
                 # recorded as cut: the UI tests fail on it)

# The roles of what a player must read to play: whose turn, the verdict, the next step, the scores and
# their explanation, card years and titles. A role may carry a suffix after ":" ("choice:focus").
PLAY_ROLES = frozenset({"turn", "headline", "verdict", "reason", "then", "prompt", "question", "refused",
                        "proposal", "score-label", "score-value", "score-explain", "card", "card-era",
                        "card-new", "card-title", "market"})


def must_read(role: str) -> bool:
    return role.split(":")[0] in PLAY_ROLES


def floor_of(role: str) -> int:
    """The smallest size (reference px) text of ``role`` may be drawn at."""
    return READ_TEXT if must_read(role) else MIN_TEXT


@dataclass(frozen=True)
class Drawn:
    text: str                      # what is on the screen: a cut line ends in "…", dropped lines are missing
    role: str
    rect: tuple[int, int, int, int]
    cut: bool = False              # the message did not fit whole
    px: int = 0                    # the font size it was drawn at, in real pixels


FAULT_KINDS = ("cut", "under-read", "under-min")


def text_faults(drawn: list[Drawn], u: float) -> list[tuple[str, Drawn]]:
    """Every text a player would miss part of: ``cut`` (it did not fit whole), ``under-read`` (a
    must-read role under READ_TEXT) or ``under-min`` (any text under MIN_TEXT), in reference pixels at
    the scale ``u``."""
    out = []
    for d in drawn:
        if d.cut:
            out.append(("cut", d))
        if d.px < round(MIN_TEXT * u):
            out.append(("under-min", d))
        elif must_read(d.role) and d.px < round(READ_TEXT * u):
            out.append(("under-read", d))
    return out


def size_faults(drawn: list[Drawn], u: float) -> list[str]:
    """Every text drawn smaller than its role allows (see PLAY_ROLES), as "role 'text' at N px (min M)"
    in reference pixels; ``u`` is the canvas's scale."""
    out = []
    for d in drawn:
        least = floor_of(d.role)
        if d.px < round(least * u):
            out.append(f"{d.role} {d.text!r} at {d.px / u:.0f} px (min {least})")
    return out


NUMBER = re.compile(r"[-+−]?\d[\d.,:/]*[.,;:)]?")


def _keep_numbers_with_their_words(words: list[str]) -> list[str]:
    """A number alone starts no line: "Lost -33" or "Ana 4" split over two lines is a number without
    its label."""
    out: list[str] = []
    for word in words:
        if out and out[-1] and NUMBER.fullmatch(word):
            out[-1] += " " + word
        else:
            out.append(word)
    return out


VOWELS = set("aeiouyáéíóúüàèìòùâêîôûäëïö")


def hyphenate(word: str, fits) -> list[str]:
    """A word too wide for its line, in pieces ending in "-" that ``fits`` accepts: split before a
    consonant that starts a syllable ("Stone-henge", "helio-céntrico", "Tenoch-titlan"), else wherever
    the line ends."""
    low = word.lower()

    def syllable_start(i: int) -> bool:
        a, b, after = low[i - 1], low[i], low[i + 1]
        if not (a.isalpha() and b.isalpha()) or b in VOWELS or not any(ch in VOWELS for ch in low[:i]):
            return False
        if (b == "h" and a in "cs") or (a == b and b in "lr") or (b in "lr" and a in "bcdfgkpt"):
            return False          # ch, sh, ll, rr, and a consonant with its r or l stay together
        return after in VOWELS or (after in "lr" and b in "bcdfgkpt" and low[i + 2:i + 3] in VOWELS)

    out: list[str] = []
    while not fits(word) and len(word) > 3:
        low = word.lower()
        cuts = [i for i in range(2, len(word) - 2) if syllable_start(i) and fits(word[:i] + "-")]
        if not cuts:
            cuts = [next((i for i in range(len(word) - 1, 1, -1) if fits(word[:i] + "-")), 2)]
        out.append(word[:cuts[-1]] + "-")
        word = word[cuts[-1]:]
    return out + [word]


class _Font(pygame.font.Font):
    """A font that remembers the sizes of the texts it measured: the layouts measure the same words
    again and again (each line tried at each size, every frame; the frame check draws every frame four
    times), and measuring was most of the drawing's time."""

    SIZES = 4096        # texts remembered per font, so a kiosk running all day does not grow

    def __init__(self, path: str, px: int):
        super().__init__(path, px)
        self._sizes: dict[str, tuple[int, int]] = {}

    def size(self, text, /) -> tuple[int, int]:
        got = self._sizes.get(text)
        if got is None:
            if len(self._sizes) >= self.SIZES:
                self._sizes.clear()
            got = self._sizes[text] = super().size(text)
        return got


@lru_cache(maxsize=64)
def font(px: int, bold: bool = False) -> pygame.font.Font:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return _Font(str(assets_dir() / "fonts" / name), max(6, px))


class _RenderCache:
    """Rendered text surfaces, bounded so a long-running kiosk does not grow."""

    def __init__(self, size: int = 600):
        self.size = size
        self.items: OrderedDict = OrderedDict()

    def get(self, text: str, px: int, bold: bool, color) -> pygame.Surface:
        key = (text, px, bold, color)
        surf = self.items.get(key)
        if surf is None:
            surf = font(px, bold).render(text, True, color)
            self.items[key] = surf
            if len(self.items) > self.size:
                self.items.popitem(last=False)
        else:
            self.items.move_to_end(key)
        return surf


RENDERED = _RenderCache()


@lru_cache(maxsize=4096)
def wrapped(s: str, px: int, bold: bool, width: int, hyphens: bool = False) -> tuple[str, ...]:
    """``s`` in lines of at most ``width`` at ``px``; with ``hyphens`` a word wider than that is split (see
    hyphenate). Remembered: a layout tries each text at each size, every frame, and each frame's texts
    are mostly the last one's."""
    f = font(px, bold)

    def fits(text: str) -> bool:
        return f.size(text)[0] <= width

    lines: list[str] = []
    for para in s.split("\n"):
        line = ""
        for word in _keep_numbers_with_their_words(para.split(" ")):
            pieces = hyphenate(word, fits) if hyphens and not fits(word) else [word]
            for i, piece in enumerate(pieces):
                trial = f"{line} {piece}" if line and i == 0 else line + piece if line else piece
                if fits(trial) or not line:
                    line = trial
                else:
                    lines.append(line)
                    line = piece
                if i < len(pieces) - 1:       # a hyphenated piece ends its line
                    lines.append(line)
                    line = ""
        lines.append(line)
    return tuple(lines)


class Canvas:
    def __init__(self, surface: pygame.Surface, lang: str = "en", paint: bool = True):
        """``paint=False``: a canvas that lays out and records (``drawn``, ``hits``) without touching a
        pixel: its surface is clipped to nothing and no text is rendered (the frame check lays every
        frame out again in each language and size, and reads only what was drawn where)."""
        self.surface = surface
        self.paint = paint
        if not paint:
            surface.set_clip(pygame.Rect(0, 0, 0, 0))
        self.w, self.h = surface.get_size()
        self.u = min(self.w / 800, self.h / 480)
        self.lang = lang
        self.drawn: list[Drawn] = []
        self.hits: list[tuple[pygame.Rect, Command]] = []

    # -- words ---------------------------------------------------------------------------------
    def tr(self, msg) -> str:
        """A Text, a plain msgid, or a ready string (``str`` subclasses are not translated)."""
        if isinstance(msg, Text):
            return msg.render(self.lang)
        if isinstance(msg, Literal):
            return str(msg)
        return translate(str(msg), self.lang)

    def px(self, n: float) -> int:
        return max(1, round(n * self.u))

    def floor(self, size: float, role: str, least: float | None = None) -> int:
        """The smallest size text asked at ``size`` may shrink to (real px): its role's floor, or
        ``least`` where a screen knowingly goes under it (the size test lists those places)."""
        return self.px(min(size, floor_of(role) if least is None else least))

    def fit_size(self, text: str, size: float, bold: bool, max_width: int | None, role: str = "text",
                 least: float | None = None) -> int:
        px = self.px(size)
        if max_width is None:
            return px
        floor = self.floor(size, role, least)
        while px > floor and font(px, bold).size(text)[0] > max_width:
            px = max(floor, int(px * 0.9))
        return px

    def text(self, msg, pos, size: float = theme.BODY, color=theme.TEXT, bold: bool = False,
             anchor: str = "topleft", max_width: int | None = None, role: str = "text",
             least: float | None = None) -> pygame.Rect:
        """One line, shrunk to ``max_width`` if needed (and cut with an ellipsis only below the
        smallest readable size)."""
        s = self.tr(msg)
        px = self.fit_size(s, size, bold, max_width, role, least)
        shown = s
        if max_width is not None and font(px, bold).size(shown)[0] > max_width:
            while len(shown) > 1 and font(px, bold).size(shown + "…")[0] > max_width:
                shown = shown[:-1]
            shown += "…"
        rect = self._line(shown, px, bold, color, anchor, (int(pos[0]), int(pos[1])))
        self.drawn.append(Drawn(shown, role, (rect.x, rect.y, rect.w, rect.h), cut=shown != s, px=px))
        return rect

    def _line(self, text: str, px: int, bold: bool, color, anchor: str, pos) -> pygame.Rect:
        """One line of text with its ``anchor`` point (a pygame.Rect attribute) at ``pos``: where it lies,
        drawn there when this canvas paints."""
        if not self.paint:
            rect = pygame.Rect((0, 0), font(px, bold).size(text))
            setattr(rect, anchor, pos)
            return rect
        surf = RENDERED.get(text, px, bold, tuple(color))
        rect = surf.get_rect(**{anchor: pos})
        self.surface.blit(surf, rect)
        return rect

    def wrap(self, s: str, px: int, bold: bool, width: int, hyphens: bool = False) -> list[str]:
        """Lines of at most ``width``; with ``hyphens`` a word wider than that is split (see hyphenate)."""
        return list(wrapped(s, px, bold, width, hyphens))

    def layout(self, s: str, rect: pygame.Rect, size: float, bold: bool,
               role: str = "text") -> tuple[int, list[str], bool]:
        """(font size, lines, whether they fit): wrapped at ``size`` first, then shrunk until every line
        fits the width and all of them the height, down to the role's floor (see floor_of); then a word
        too wide for the line is hyphenated at that size."""
        fits = False
        floor = self.floor(size, role)
        for hyphens in (False, True):
            px = self.px(size)
            while True:
                lines = self.wrap(s, px, bold, rect.w, hyphens)
                line_h = font(px, bold).get_linesize()
                fits = line_h * len(lines) <= rect.h and all(font(px, bold).size(ln)[0] <= rect.w for ln in lines)
                if fits or px <= floor:
                    break
                px = max(floor, int(px * 0.9))
            if fits:
                return px, lines, fits
        return px, lines, fits

    def height_of(self, msg, width: int, size: float, bold: bool = False, role: str = "text") -> int:
        """The height (real px) :meth:`paragraph` needs to show ``msg`` whole at ``width``, at ``size``
        or its role's floor, whichever is smaller: the least room a layout must give it."""
        px = self.floor(size, role)
        lines = self.wrap(self.tr(msg), px, bold, width, hyphens=True)
        return len(lines) * font(px, bold).get_linesize() + 1

    def fits(self, msg, rect, size: float = theme.BODY, bold: bool = False, role: str = "text") -> bool:
        """Whether :meth:`paragraph` would show ``msg`` whole in ``rect`` as text of ``role``."""
        return self.layout(self.tr(msg), pygame.Rect(rect), size, bold, role)[2]

    def paragraph(self, msg, rect, size: float = theme.BODY, color=theme.TEXT, bold: bool = False,
                  align: str = "left", role: str = "text", valign: str = "top") -> pygame.Rect:
        """Wrapped text inside ``rect``, wrapped before it is shrunk (see :meth:`layout`)."""
        rect = pygame.Rect(rect)
        s = self.tr(msg)
        px, lines, _fits = self.layout(s, rect, size, bold, role)
        line_h = font(px, bold).get_linesize()
        total = line_h * len(lines)
        y = rect.y + (max(0, rect.h - total) // 2 if valign == "middle" else 0)
        used = pygame.Rect(rect.x, y, 0, 0)
        shown: list[str] = []
        cut = False
        for line in lines:
            if y + line_h > rect.bottom + line_h // 3:
                cut = True
                break
            shown.append(line)
            if align == "center":
                r = self._line(line, px, bold, color, "midtop", (rect.centerx, y))
            elif align == "right":
                r = self._line(line, px, bold, color, "topright", (rect.right, y))
            else:
                r = self._line(line, px, bold, color, "topleft", (rect.x, y))
            cut = cut or r.w > rect.w
            used.union_ip(r)
            y += line_h
        text = " ".join(shown) if cut else s        # whole: the message as given, line breaks and all
        self.drawn.append(Drawn(text, role, (used.x, used.y, used.w, used.h), cut=cut, px=px))
        return used

    # -- shapes --------------------------------------------------------------------------------
    def fill(self, color=theme.BG) -> None:
        self.surface.fill(color)

    def box(self, rect, color=theme.PANEL, radius: float = 10, width: int = 0) -> pygame.Rect:
        rect = pygame.Rect(rect)
        pygame.draw.rect(self.surface, color, rect, width, border_radius=self.px(radius))
        return rect

    def touch(self, rect, command: Command) -> None:
        self.hits.append((pygame.Rect(rect), command))

    def command_at(self, pos) -> Command | None:
        for rect, command in reversed(self.hits):
            if rect.collidepoint(pos):
                return command
        return None

    def tick_mark(self, center, radius: int, color=theme.CORRECT) -> None:
        """Correct: a filled disc with a white tick."""
        x, y = center
        pygame.draw.circle(self.surface, color, center, radius)
        r = radius
        pygame.draw.lines(self.surface, theme.TEXT, False,
                          [(x - r * 0.5, y + r * 0.02), (x - r * 0.12, y + r * 0.4), (x + r * 0.52, y - r * 0.38)],
                          max(3, r // 5))

    def cross_mark(self, center, radius: int, color=theme.WRONG) -> None:
        """Wrong: a filled square with a white cross (a different shape from the disc)."""
        x, y = center
        r = radius
        pygame.draw.rect(self.surface, color, (x - r, y - r, 2 * r, 2 * r), border_radius=max(2, r // 6))
        k = r * 0.5
        w = max(3, r // 5)
        pygame.draw.line(self.surface, theme.TEXT, (x - k, y - k), (x + k, y + k), w)
        pygame.draw.line(self.surface, theme.TEXT, (x - k, y + k), (x + k, y - k), w)

    def warn_mark(self, center, radius: int, color=theme.WARN) -> None:
        """A fault: a triangle with an exclamation mark."""
        x, y = center
        r = radius
        pygame.draw.polygon(self.surface, color, [(x, y - r), (x + r * 1.1, y + r * 0.85), (x - r * 1.1, y + r * 0.85)])
        pygame.draw.line(self.surface, theme.BG, (x, y - r * 0.45), (x, y + r * 0.3), max(3, r // 5))
        pygame.draw.circle(self.surface, theme.BG, (x, int(y + r * 0.58)), max(2, r // 9))

    def texts(self) -> list[str]:
        return [d.text for d in self.drawn]

    def faults(self) -> list[tuple[str, Drawn]]:
        """The texts of this frame a player would miss part of (see text_faults)."""
        return text_faults(self.drawn, self.u)
