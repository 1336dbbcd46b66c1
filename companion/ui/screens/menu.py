"""The menu (hold MENU): continue, history, language, settings, end the game, start screen.
Settings and ending a game early ask for the café PIN when one is set."""

from __future__ import annotations

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, MENU, NEXT, OK, UNDO
from companion.play.turns import TurnController
from companion.ui import theme
from companion.ui.canvas import Canvas
from companion.ui.keypad import DELETE, DONE, KeypadScreen
from companion.ui.screen import ListChoice, Screen, screen


@screen("menu")
class MenuScreen(Screen):
    opens_menu = False
    title = N_("Menu")

    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.choice = ListChoice(self.items())

    def items(self):
        k = self.kiosk
        items = [(Text(N_("Continue")), "continue")]
        if k.session is not None:
            items.append((Text(N_("History and undo")), "history"))
        items.append((Text(N_("Language: English")) if k.lang == "en" else Text(N_("Language: Español")), "lang"))
        items.append((Text(N_("Settings")), "settings"))
        if k.table is not None and not k.game_in_progress():
            items.append((Text(N_("Enrol a deck by its faces")), "enrol"))
        if k.game_in_progress():
            items.append((Text(N_("End this game now")), "end"))
        items.append((Text(N_("Start screen")), "attract"))
        if k.demo is not None:
            items.append((Text(N_("Close the demo")), "quit"))
        return items

    def hints(self):
        return {NEXT: N_("next"), UNDO: N_("close"), OK: N_("choose"), MENU: N_("close")}

    def on_enter(self):
        self.kiosk.unlocked = False
        if hasattr(self, "choice"):
            focus = self.choice.focus
            self.choice = ListChoice(self.items(), min(focus, len(self.items()) - 1))

    def handle(self, cmd):
        k = self.kiosk
        if cmd.kind in (UNDO, BACK, MENU):       # MENU held again closes it as a short press does
            k.stack.pop()
            return
        what = self.choice.handle(cmd)
        if what == "continue":
            k.stack.pop()
        elif what == "history":
            k.stack.replace("history")
        elif what == "lang":
            k.set_language("es" if k.lang == "en" else "en")
        elif what == "settings":
            guarded(k, lambda: k.stack.replace("settings"))
        elif what == "enrol":
            guarded(k, lambda: k.stack.replace("enrol:decks"))
        elif what == "end":
            guarded(k, lambda: k.stack.replace(
                "confirm", Text(N_("End this game now? It is kept in the log as ended early.")), self.end_game))
        elif what == "attract":
            k.stack.reset("attract")
        elif what == "quit":
            k.running = False

    def end_game(self):
        k = self.kiosk
        if not TurnController.end_early(k, again=self.end_game):
            return
        k.stack.reset("attract")

    def draw(self, c: Canvas):
        # the items say the kiosk's state (its language, a game on or not) as it is when drawn
        self.choice.items = self.items()
        self.draw_frame(c)
        area = self.content_rect(c)
        self.choice.draw(c, area, theme.LARGE, columns=2 if len(self.choice.items) > 5 else 1)


def guarded(kiosk, then) -> None:
    """Run ``then`` now, or after the café PIN when one is set."""
    if kiosk.pin_required():
        kiosk.stack.push("pin", check=kiosk.config.kiosk.cafe_pin, then=then)
    else:
        then()


@screen("confirm")
class ConfirmScreen(Screen):
    title = N_("Are you sure?")

    def __init__(self, kiosk, question, yes):
        super().__init__(kiosk)
        self.question, self.yes = question, yes

    def hints(self):
        return {UNDO: N_("no"), OK: N_("yes")}

    def handle(self, cmd):
        if cmd.kind == OK:
            self.yes()
        elif cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()

    def draw(self, c: Canvas):
        self.draw_frame(c)
        c.paragraph(self.question, self.content_rect(c), theme.TITLE, bold=True, align="center", valign="middle",
                    role="question")


@screen("pin")
class PinScreen(KeypadScreen):
    """Digits on a keypad. ``check``: the PIN to match (then ``then()`` runs); else the typed PIN is
    handed to ``then(pin)``."""

    opens_menu = False
    keys = list("1234567890") + [DELETE, DONE]
    columns = 6
    key_size = theme.TITLE
    note_colour = theme.WRONG

    def __init__(self, kiosk, then, check: str | None = None):
        super().__init__(kiosk)
        self.then, self.check = then, check

    @property
    def title(self):
        return N_("Café PIN") if self.check else N_("New café PIN (empty: none)")

    def hints(self):
        return {NEXT: N_("next key"), UNDO: N_("delete"), OK: N_("press key")}

    def type(self, ch: str) -> None:
        if ch == "\b":
            self.value = self.value[:-1]
        elif ch.isdigit() and len(self.value) < 8:
            self.value += ch

    def shown_value(self):
        return ("● " * len(self.value) if self.check else self.value), "center"

    def done(self):
        if self.check is None:
            self.kiosk.stack.pop()
            self.then(self.value)
        elif self.value == self.check:
            self.kiosk.unlocked = True
            self.kiosk.stack.pop()
            self.then()
        else:
            self.value = ""
            self.note = N_("Wrong PIN")
