"""Fault screens: say what happened, what it means and what to do, in words; never a traceback."""

from __future__ import annotations

import logging

from companion.i18n import MARKED, N_, Text
from companion.inputs.commands import BACK, OK, UNDO
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.screen import Screen, screen
from companion.words import Words

log = logging.getLogger(__name__)


class FaultScreen(Screen):
    """A headline, an explanation, and a list of things to check. ``on_ok``/``on_undo`` say what the
    buttons do (None: the button does nothing here)."""

    name = "fault"

    def __init__(self, kiosk, kind: str, headline, body, checks=(), on_ok=None, ok_label=N_("carry on"),
                 on_undo=None, undo_label=N_("back")):
        super().__init__(kiosk)
        self.name = f"fault:{kind}"
        self.headline, self.body, self.checks = headline, body, list(checks)
        self.on_ok, self.ok_label = on_ok, ok_label
        self.on_undo, self.undo_label = on_undo, undo_label

    def hints(self):
        h = {}
        if self.on_undo:
            h[UNDO] = self.undo_label
        if self.on_ok:
            h[OK] = self.ok_label
        return h

    def handle(self, cmd):
        if cmd.kind == OK and self.on_ok:
            self.on_ok()
        elif cmd.kind in (UNDO, BACK) and self.on_undo:
            self.on_undo()

    def draw(self, c: Canvas):
        c.fill(theme.BG)
        from companion.ui.screen import draw_hints
        draw_hints(c, self.button_hints())
        c.warn_mark((c.px(56), c.px(56)), c.px(34))
        c.paragraph(self.headline, (c.px(110), c.px(18), c.w - c.px(126), c.px(80)), theme.TITLE * 0.9, theme.WARN,
                    bold=True, role="headline", valign="middle")
        y = c.px(112)
        body = c.paragraph(self.body, (c.px(24), y, c.w - c.px(48), c.px(120)), theme.BODY, role="body")
        y = body.bottom + c.px(14)
        bottom = c.h - c.px(60)
        if self.checks:
            x, width = c.px(24) + c.px(34), c.w - c.px(48) - c.px(34)
            size, heights = check_layout(c, [c.tr(check) for check in self.checks], width, bottom - y)
            for i, (check, h) in enumerate(zip(self.checks, heights, strict=True)):
                c.text(Literal(f"{i + 1}."), (c.px(24), y), size, theme.ACCENT, bold=True, role="n")
                c.paragraph(check, (x, y, width, h), size, role="check")
                y += h + c.px(8)


def check_layout(c: Canvas, checks: list[str], width: int, room: int) -> tuple[float, list[int]]:
    """One size for every check, the largest at which all of them fit wrapped (each as tall as its
    lines): a list in mixed sizes reads as more and less important."""
    from companion.ui.canvas import MIN_TEXT, font
    size = float(theme.BODY)
    while True:
        px = c.px(size)
        line_h = font(px, False).get_linesize()
        heights = [len(c.wrap(check, px, False, width)) * line_h for check in checks]
        if sum(heights) + c.px(8) * (len(checks) - 1) <= room or size <= MIN_TEXT:
            return size, heights
        size = max(MIN_TEXT, size - 1)


@screen("fault:camera")
def camera_lost(kiosk, detail: str = "") -> FaultScreen:
    body = Text(N_("The camera is not sending pictures. The game is saved: it goes on by itself as soon as "
                   "the camera is back."))
    checks = [Text(N_("Is the camera cable pushed fully into the camera and into the Raspberry Pi?")),
              Text(N_("Is the camera's ribbon cable the right way round (contacts towards the board)?")),
              Text(N_("Is something covering the lens, or is the table in the dark?"))]
    if detail in MARKED:        # the camera's words the companion knows (the demo's): in the screen's language
        checks.append(Words(N_("What the camera said: {detail}"), {"detail": Text(detail)}))
    elif detail:                # a driver's own message, in English whatever the screen's language: said so
        checks.append(Text(N_("What the camera said, in its own words: {detail}"), {"detail": detail}))
    return FaultScreen(kiosk, "camera", Text(N_("Camera lost")), body, checks)


@screen("fault:unknown-card")
def unknown_card(kiosk, payload: str, on_ok) -> FaultScreen:
    """The sticker is ours but its deck or number is not registered. The players are told what to do
    at the table (no shell command, no file path: a café's customers read this); the exact command that
    registers the card goes to the kiosk's log, and docs/decks.md tells the owner how."""
    from companion.cards.decks import UnknownCard, reload_decks, resolve

    reload_decks()  # a deck registered on the command line since start-up counts
    try:
        resolve(payload)
        owner = Text(N_("{payload} is now registered: take the card off and lay it again."), {"payload": payload})
    except UnknownCard as e:
        log.warning("unknown card %s: %s", payload, e.text.render("en"))
        owner = Text(N_("For the owner, later: register this card on the computer (docs/decks.md tells how, "
                        "under “When the camera sees a sticker it does not know”)."))
    body = Text(N_("The camera read the sticker {payload}, but no registered card has it, so the companion "
                   "cannot say whether the card is right. Nothing was recorded."), {"payload": payload})
    checks = [Text(N_("Take that card off the table and play on with the other cards of the chosen deck.")), owner]
    return FaultScreen(kiosk, "unknown-card", Text(N_("Unknown card")), body, checks, on_ok=on_ok,
                       ok_label=N_("it is gone"))


@screen("fault:foreign-code")
def foreign_code(kiosk, text: str, on_ok) -> FaultScreen:
    body = Text(N_("The camera sees a code that is not a card sticker: \u201c{text}\u201d. Card stickers read "
                   "TC:<DECK>:<NUMBER>. Nothing was recorded."), {"text": text[:60]})
    checks = [Text(N_("Is a box, a phone or a leaflet with a barcode lying in view? Move it away."))]
    return FaultScreen(kiosk, "foreign-code", Text(N_("Not a card")), body, checks, on_ok=on_ok,
                       ok_label=N_("it is gone"))


@screen("fault:store")
def store_error(kiosk, message: str, on_retry, on_drop) -> FaultScreen:
    body = Text(N_("The companion could not save the last action, so it is not recorded yet: {message}. "
                   "Everything confirmed before it is safe."), {"message": message})
    checks = [Text(N_("Is the memory card full? Delete old files or use a bigger card.")),
              Text(N_("Then press OK to save the action again, or UNDO to forget it."))]
    return FaultScreen(kiosk, "store", Text(N_("Could not save")), body, checks, on_ok=on_retry,
                       ok_label=N_("save again"), on_undo=on_drop, undo_label=N_("forget it"))


@screen("fault:bug")
class BugScreen(FaultScreen):
    opens_menu = False

    def __init__(self, kiosk, log_path):
        body = Text(N_("Something went wrong inside the companion. The game is saved: nothing confirmed is "
                       "lost."))
        checks = [Text(N_("Press OK to go back to the start screen; a game in progress can be continued from there.")),
                  Text(N_("For the owner: the details are in {path}"), {"path": str(log_path)})]
        super().__init__(kiosk, "bug", Text(N_("Sorry, a fault")), body, checks, on_ok=self.back,
                         ok_label=N_("start screen"))

    def back(self):
        self.kiosk.stack.reset("attract")
