"""The screen base and the screen stack.

A screen draws what it is given and turns commands into calls on the kiosk (start a game, confirm
an action, undo); it never decides a rule. The stack works like Tuxemon's state stack: the top
screen gets the commands and is drawn; ``push`` a menu over the table, ``pop`` back to it.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from companion.i18n import N_, Msg
from companion.inputs.commands import MENU, NEXT, OK, UNDO, Command
from companion.play.choice import Choice
from companion.ui import theme
from companion.ui.canvas import MIN_TEXT, Canvas, Literal, floor_of, font

BUTTON_LABELS = {NEXT: N_("NEXT"), OK: N_("OK"), UNDO: N_("UNDO"), MENU: N_("MENU")}
BUTTON_COLOURS = {NEXT: theme.INFO, OK: theme.CORRECT, UNDO: theme.WARN, MENU: theme.MUTED}


class Screen:
    name = "screen"           # a registered class: the name @screen gives it
    typing: bool = False      # True while the keyboard types letters (a name)
    opens_menu = True         # MENU opens the menu over this screen (and its box says so)
    @property
    def title(self) -> Msg:   # a msgid or Text for the title bar ("": none); a screen may compute it
        return ""

    def __init__(self, kiosk):
        self.kiosk = kiosk

    # what the four buttons do here: {NEXT: msgid, ...}; shown in the bar at the bottom
    def hints(self) -> dict:
        return {}

    def button_hints(self) -> dict:
        """The hints with MENU's, where MENU opens the menu."""
        hints = dict(self.hints())
        if self.opens_menu:
            hints.setdefault(MENU, N_("menu"))
        return hints

    def handle(self, cmd: Command) -> None:
        """A command (a button, a key, a touch) while this screen is on top; not MENU where it opens the
        menu, and typed letters only while ``typing``."""

    def update(self, now: float) -> None:
        """Once a frame while on top, before drawing (``now``: the kiosk's clock, in seconds); the table
        screen also under the camera's fault screen, to see the camera come back."""

    def draw(self, c: Canvas) -> None:
        """The whole screen, once a frame while on top."""

    def on_enter(self) -> None:
        """When the screen becomes the top one: pushed, or uncovered by a pop."""

    # -- the common frame --------------------------------------------------------------------
    def content_rect(self, c: Canvas) -> pygame.Rect:
        top = c.px(56) if self.title else 0
        return pygame.Rect(c.px(16), top + c.px(8), c.w - c.px(32), c.h - top - c.px(8) - hint_bar_height(c) - c.px(8))

    def draw_frame(self, c: Canvas) -> None:
        c.fill(theme.BG)
        if self.title:
            c.box((0, 0, c.w, c.px(56)), theme.PANEL, radius=0)
            c.text(self.title, (c.px(16), c.px(28)), theme.TITLE * 0.85, bold=True, anchor="midleft",
                   max_width=c.w - c.px(140), role="title")
            c.text(Literal(self.kiosk.lang.upper()), (c.w - c.px(16), c.px(28)), theme.SMALL, theme.MUTED,
                   anchor="midright", role="lang")
        draw_hints(c, self.button_hints())


def hint_bar_height(c: Canvas) -> int:
    return c.px(52)


def hint_widths(needs: list[int], width: int) -> list[int]:
    """The widths of the four boxes, in the buttons' order: a quarter each where the words fit in it; a
    box whose words need more takes it from the others (an absent button's box first gives its
    share), never leaving another less than its own words need; where all cannot fit, in proportion."""
    if sum(needs) > width:
        return [width * n // sum(needs) for n in needs]
    fixed: dict[int, int] = {}
    while True:
        free = [i for i in range(len(needs)) if i not in fixed]
        share = (width - sum(fixed.values())) // len(free)
        more = [i for i in free if needs[i] > share]
        if not more:
            return [fixed.get(i, share) for i in range(len(needs))]
        fixed.update({i: needs[i] for i in more})


def draw_hints(c: Canvas, hints: dict) -> None:
    """The bottom bar: one box per button, in the order of the buttons on the cabinet, the button's
    name and what it does on one line; touching a box is the same as pressing the button."""
    if not hints:
        return
    h = hint_bar_height(c)
    y = c.h - h
    c.box((0, y, c.w, h), theme.PANEL, radius=0)
    size = theme.SMALL * 0.9
    lines = {kind: f"{c.tr(BUTTON_LABELS[kind])}: {c.tr(hints[kind])}" for kind in (NEXT, UNDO, OK, MENU)
             if kind in hints}
    pad = c.px(26)          # the colour tab, the margins and the gap between boxes
    needs = [font(c.px(size)).size(lines[kind])[0] + pad if kind in lines else 0 for kind in (NEXT, UNDO, OK, MENU)]
    x = 0
    for kind, w in zip((NEXT, UNDO, OK, MENU), hint_widths(needs, c.w), strict=True):
        if kind in lines:
            rect = pygame.Rect(x + c.px(4), y + c.px(4), w - c.px(8), h - c.px(8))
            c.box(rect, theme.PANEL_HI, radius=8)
            c.box((rect.x, rect.y, c.px(8), rect.h), BUTTON_COLOURS[kind], radius=3)
            c.text(Literal(lines[kind]), (rect.x + c.px(14), rect.centery), size, theme.TEXT, anchor="midleft",
                   max_width=rect.w - c.px(18), role=f"hint:{kind}")
            c.touch(rect, Command(kind, source="touch"))
        x += w


SCREENS: dict[str, Callable[..., Screen]] = {}


def screen(name: str):
    """Register a screen class, or a function that builds one, under ``name``: screens open each other
    by name through the stack, so no screen imports another. A class is given ``name`` as its own (a
    function names the screen it builds)."""
    def register(maker):
        SCREENS[name] = maker
        if isinstance(maker, type) and issubclass(maker, Screen):
            maker.name = name
        return maker
    return register


class ScreenStack:
    """The navigator: screens are opened by name (``stack.push("history")``), with the arguments their
    maker takes after the kiosk."""

    def __init__(self, kiosk):
        self.kiosk = kiosk
        self.screens: list[Screen] = []

    def make(self, name: str, *args, **kwargs) -> Screen:
        if name not in SCREENS:
            raise KeyError(f"no screen named {name!r}; screens: {', '.join(sorted(SCREENS))}")
        return SCREENS[name](self.kiosk, *args, **kwargs)

    @property
    def top(self) -> Screen | None:
        return self.screens[-1] if self.screens else None

    def push(self, name: str, *args, **kwargs) -> Screen:
        return self._enter(self.make(name, *args, **kwargs))

    def _enter(self, screen: Screen) -> Screen:
        self.screens.append(screen)
        screen.on_enter()
        return screen

    def pop(self) -> Screen | None:
        if len(self.screens) > 1:
            gone = self.screens.pop()
            self.screens[-1].on_enter()
            return gone
        return None

    def replace(self, name: str, *args, **kwargs) -> Screen:
        screen = self.make(name, *args, **kwargs)
        if self.screens:
            self.screens.pop()
        return self._enter(screen)

    def reset(self, name: str, *args, **kwargs) -> Screen:
        screen = self.make(name, *args, **kwargs)
        self.screens.clear()
        return self._enter(screen)

    def find(self, name: str) -> Screen | None:
        for s in reversed(self.screens):
            if s.name == name:
                return s
        return None

    def pop_to(self, name: str) -> Screen | None:
        while len(self.screens) > 1 and self.screens[-1].name != name:
            self.screens.pop()
        if self.screens:
            self.screens[-1].on_enter()
        return self.top

    def names(self) -> list[str]:
        return [s.name for s in self.screens]


class ListChoice(Choice):
    """A :class:`~companion.play.choice.Choice` that draws itself (see :func:`draw_choice`)."""

    def draw(self, c: Canvas, rect, size: float = theme.LARGE, columns: int = 1, role: str = "item") -> None:
        draw_choice(c, self, rect, size, columns, role)


def choice_size(c: Canvas, choice: Choice, rect, size: float = theme.LARGE, columns: int = 1,
                role: str = "item") -> tuple[float, bool]:
    """The size (reference px) every item of ``choice`` is drawn at in ``rect`` over ``columns``, and
    whether each shows whole at it: the largest at which each fits its box (wrapped first), never under
    the role's floor."""
    rect = pygame.Rect(rect)
    n = len(choice.items)
    rows = -(-n // columns)
    gap = c.px(8)
    item_h = min(c.px(size * 1.9), (rect.h - gap * (rows - 1)) // rows)
    col_w = (rect.w - gap * (columns - 1)) // columns
    box = pygame.Rect(0, 0, col_w - c.px(56), item_h - c.px(4))
    size = max(min(size, item_h / c.u * 0.55), min(size, floor_of(role)))
    fitted = [c.layout(c.tr(label), box, size, True, role) for label, _value in choice.items]
    return min(px for px, _lines, _fits in fitted) / c.u, all(fits for _px, _lines, fits in fitted)


def draw_choice(c: Canvas, choice: Choice, rect, size: float = theme.LARGE, columns: int = 1,
                role: str = "item") -> None:
    """A choice as a list of boxes, the focused one marked; touching a box chooses it."""
    rect = pygame.Rect(rect)
    n = len(choice.items)
    if not n:
        return
    rows = -(-n // columns)
    gap = c.px(8)
    item_h = min(c.px(size * 1.9), (rect.h - gap * (rows - 1)) // rows)
    col_w = (rect.w - gap * (columns - 1)) // columns
    # one size for every item, the largest at which each fits its box (wrapped first): items side by
    # side in different sizes read as more and less important
    size = choice_size(c, choice, rect, size, columns, role)[0]
    for i, (label, _value) in enumerate(choice.items):
        row, col = divmod(i, columns)       # in reading order: 0 1 2 / 3 4 5, as NEXT goes through them
        r = pygame.Rect(rect.x + col * (col_w + gap), rect.y + row * (item_h + gap), col_w, item_h)
        focused = i == choice.focus
        c.box(r, theme.PANEL_HI if focused else theme.PANEL, radius=10)
        if focused:
            c.box(r, theme.ACCENT, radius=10, width=c.px(4))
            c.text(Literal("▶"), (r.x + c.px(14), r.centery), max(MIN_TEXT, size * 0.8), theme.ACCENT, anchor="midleft",
                   role="focus")
        c.paragraph(label, (r.x + c.px(44), r.y + c.px(2), r.w - c.px(56), r.h - c.px(4)),
                    size, theme.TEXT, bold=focused, valign="middle",
                    role=role + (":focus" if focused else ""))
        c.touch(r, Command(OK, index=i, source="touch"))
