"""Enrolling a box by its faces at the kiosk (MENU > "Enrol a deck by its faces", behind the café PIN):
choose the deck, then lay its cards under the kiosk's own camera as the screen asks.

The enrolment itself is ``vision/enrol.py: CameraEnrolment``, the one ``companion deck enrol`` drives
from the command line: this screen hands it the buttons and the camera's frames, and draws what it
asks (the cards of the round in their lines, each with its number), what it took (each card's picture
as the camera saw it), its progress, what went wrong, and at the end the look-alike pairs to sticker.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygame

from companion.i18n import N_, NP_, Literal, Text, plural
from companion.inputs.commands import BACK, MENU, NEXT, OK, PREV, UNDO
from companion.ui import theme
from companion.ui.canvas import Canvas
from companion.ui.screen import ListChoice, Screen, screen
from companion.vision.enrol import number_ranges

TIPS = [N_("Even light: no lamp reflected in the cards."),
        N_("Have the cards in the order of the deck: the screen asks for them by their numbers.")]


def _enrolled_cards(deck) -> int:
    """Cards of ``deck`` with a face enrolled (0: none, or a file this program cannot read)."""
    from companion.errors import BadInput
    from companion.vision.faces_file import load_faces
    try:
        enrolled = load_faces(deck.id)
    except BadInput:
        return 0
    return len(enrolled.numbers() & set(deck.cards)) if enrolled is not None else 0


@screen("enrol:decks")
class EnrolDecksScreen(Screen):
    """Which deck to enrol: every deck, with how many of its cards are enrolled already."""

    title = N_("Enrol a deck by its faces")

    def __init__(self, kiosk):
        super().__init__(kiosk)
        from companion.cards.decks import all_decks
        self.decks = [d for d in all_decks() if len(d)]
        items = []
        for deck in self.decks:
            done = _enrolled_cards(deck)
            items.append((Text(N_("{deck}: {name}, {done} of {n} cards enrolled"),
                               {"deck": deck.id, "name": Literal(deck.name), "done": done, "n": len(deck)}), deck))
        self.choice = ListChoice(items)

    @property
    def phase(self):
        return self.decks[self.choice.focus].id if self.decks else ""

    def hints(self):
        return {NEXT: N_("next deck"), UNDO: N_("back"), OK: N_("choose")}

    def handle(self, cmd):
        if cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
        elif cmd.kind in (NEXT, PREV, OK):
            deck = self.choice.handle(cmd)
            if deck is not None:
                self.kiosk.stack.push("enrol", deck.id)

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        tips_h = c.px(64)
        self.choice.draw(c, (area.x, area.y, area.w, area.h - tips_h), theme.BODY)
        c.paragraph(Text(N_("A box enrolled once is read by its printed faces, without stickers. It takes about "
                            "ten minutes for a box of 110 cards.")),
                    (area.x, area.bottom - tips_h + c.px(6), area.w, tips_h - c.px(6)), theme.SMALL, theme.MUTED,
                    role="info")


@screen("enrol")
class EnrolScreen(Screen):
    """One deck enrolled under the kiosk's camera: the cards not enrolled yet, or all of them again
    when none (or every one) is."""

    opens_menu = False          # MENU stops the enrolment (what is taken is saved)

    def __init__(self, kiosk, deck_id: str):
        super().__init__(kiosk)
        from companion.cards.decks import get_deck
        from companion.errors import BadInput
        from companion.vision.enrol import CameraEnrolment, round_shape, sides_of
        from companion.vision.faces_file import faces_path, load_faces
        self.deck = get_deck(deck_id)
        try:
            previous = load_faces(deck_id)
        except BadInput:
            previous = None
        sides = sides_of(self.deck)
        have: dict[int, set[str]] = {}
        for f in previous.faces if previous is not None else []:
            have.setdefault(f.number, set()).add(f.side)
        missing = [n for n in sorted(self.deck.cards) if not set(sides) <= have.get(n, set())]
        numbers = missing if 0 < len(missing) < len(self.deck) else sorted(self.deck.cards)
        # the demo's enrolment is not the owner's: it is written beside the demo's own game log
        save_to = None
        if kiosk.demo is not None and kiosk.store is not None:
            save_to = Path(kiosk.store.path).parent / faces_path(deck_id).name
        self.run = CameraEnrolment(self.deck, sides=sides, shape=self.shape(round_shape()), numbers=numbers,
                                   previous=previous, save_to=save_to)
        self.thumbs: dict[tuple[int, str], pygame.Surface] = {}
        self.preview: pygame.Surface | None = None
        self.camera_note: Text | None = None
        if kiosk.table is not None:
            kiosk.table.expect(None)      # no game's tracker: the frames come here as they are

    def shape(self, planned: tuple[int, int]) -> tuple[int, int]:
        """The rounds' lines and cards a line: the camera plan's, or the demo table's own."""
        demo = getattr(self.kiosk.demo, "enrol_shape", None)
        return demo if demo is not None else planned

    @property
    def phase(self) -> str:
        return self.run.phase

    @property
    def title(self):
        return Text(N_("Enrolling {deck}: {n} of {total} cards"),
                    {"deck": self.deck.id, "n": self.run.enrolled(), "total": len(self.run.numbers)})

    def hints(self):
        phase = self.run.phase
        if phase == "clear":
            return {OK: N_("the table is clear"), MENU: N_("stop")}
        if phase == "lay":
            hints = {NEXT: N_("skip these"), OK: N_("they lie there"), MENU: N_("stop")}
            if self.run.history:
                hints[UNDO] = N_("step back")
            return hints
        if phase == "look":
            return {UNDO: N_("not yet")}
        if phase == "done":
            return {OK: N_("done")}
        return {}

    def handle(self, cmd):
        run, k = self.run, self.kiosk
        if run.phase == "done":
            if cmd.kind in (OK, BACK, MENU):
                k.stack.pop()
            return
        if cmd.kind == MENU and run.phase in ("clear", "lay"):
            if not run.enrolled():
                k.stack.pop()
                return
            question = plural(NP_("Stop enrolling? The card taken so far is saved; the others can be enrolled later.",
                                  "Stop enrolling? The {n} cards taken so far are saved; the others can be enrolled "
                                  "later."), run.enrolled())
            k.stack.push("confirm", question, self.stop)
            return
        run.command(UNDO if cmd.kind == BACK else cmd.kind)

    def stop(self) -> None:
        self.kiosk.stack.pop()          # the question
        self.run.command(MENU)

    def update(self, now):
        run = self.run
        if run.phase != "done":
            self.kiosk.last_input = now     # laying a box is no idle table: the start screen waits for the end
        if run.phase == "check":
            run.work(0.1)
            return
        feed = self.kiosk.table
        if feed is None:
            self.camera_note = Text(N_("This kiosk has no camera."))
            return
        reading = feed.poll()
        if reading is None:
            return
        if reading.lost:
            self.camera_note = Text(N_("The camera is not sending pictures: is its cable pushed in?"))
            return
        self.camera_note = None
        if reading.frame is not None:
            f = reading.frame
            self.preview = pygame.image.frombuffer(f.tobytes(), (f.shape[1], f.shape[0]), "RGB").copy()
        run.feed(reading.picture)

    def on_enter(self) -> None:
        if self.kiosk.table is not None and self.run.phase != "done":
            self.kiosk.table.expect(None)

    # -- drawing -------------------------------------------------------------------------------
    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        run = self.run
        left_w = int(area.w * 0.52)
        left = pygame.Rect(area.x, area.y, left_w, area.h)
        right = pygame.Rect(left.right + c.px(12), area.y, area.right - left.right - c.px(12), area.h)
        y = left.y
        note = self.camera_note or run.note
        if note is not None:
            h = max(c.height_of(note, left.w - c.px(40), theme.BODY, role="refused"), c.px(34))
            c.warn_mark((left.x + c.px(14), y + c.px(16)), c.px(12))
            c.paragraph(note, (left.x + c.px(34), y, left.w - c.px(34), h), theme.BODY, theme.WARN,
                        role="refused")
            y += h + c.px(8)
        bar_h = c.px(34)
        room = left.bottom - bar_h - c.px(8) - y
        size = theme.TITLE * 0.8
        extra = self.extra_lines()
        extra_h = self.extra_height(c, left.w, extra)
        if c.height_of(run.prompt(), left.w, size, bold=True, role="prompt") + c.px(10) + extra_h > room:
            extra, extra_h = [], 0          # the question first: the card titles give way to it
        used = c.paragraph(run.prompt(), (left.x, y, left.w, room - extra_h - c.px(10) * bool(extra)), size,
                           bold=True, role="prompt")
        self.draw_extra(c, pygame.Rect(left.x, used.bottom + c.px(10), left.w, extra_h), extra)
        self.draw_progress(c, pygame.Rect(left.x, left.bottom - bar_h, left.w, bar_h))
        if run.phase == "lay":
            self.draw_round(c, right)
        elif run.phase in ("check", "done"):
            self.draw_summary(c, right)
        else:
            self.draw_camera(c, right)

    def extra_lines(self) -> list:
        """What goes under the prompt: the first and last card asked for, or the last step taken."""
        run = self.run
        if run.phase == "clear":
            return [Text(t) for t in TIPS]
        if run.phase == "lay" and run.side_index == 0:
            first, last = run.group[0], run.group[-1]
            lines = [Text(N_("First: {number}. {title}"), {"number": first, "title": self.card_title(first)})]
            if last != first:
                lines.append(Text(N_("Last: {number}. {title}"), {"number": last, "title": self.card_title(last)}))
            return lines
        if run.phase == "lay" and run.log:
            return [run.log[-1]]
        return []

    def card_title(self, number: int) -> Literal:
        card = self.deck.cards[number]
        return Literal(card.title_in(self.kiosk.lang) or card.label())

    @staticmethod
    def extra_height(c: Canvas, width: int, lines: list) -> int:
        return sum(c.height_of(line, width, theme.BODY, role="then") + c.px(4) for line in lines)

    @staticmethod
    def draw_extra(c: Canvas, rect: pygame.Rect, lines: list) -> None:
        y = rect.y
        for line in lines:
            h = c.height_of(line, rect.w, theme.BODY, role="then")
            c.paragraph(line, (rect.x, y, rect.w, h), theme.BODY, theme.MUTED, role="then")
            y += h + c.px(4)

    def draw_progress(self, c: Canvas, rect: pygame.Rect) -> None:
        run = self.run
        total = max(1, len(run.numbers))
        c.box(rect, theme.PANEL, radius=8)
        done = rect.copy()
        done.w = int(rect.w * min(1.0, run.enrolled() / total))
        if done.w:
            c.box(done, theme.CORRECT, radius=8)
        c.text(Text(N_("{n} of {total} cards"), {"n": run.enrolled(), "total": total}), rect.center, theme.SMALL,
               theme.TEXT, bold=True, anchor="center", max_width=rect.w - c.px(8), role="progress")

    def thumb(self, number: int, side: str, picture: np.ndarray) -> pygame.Surface:
        key = (number, side)
        if key not in self.thumbs:
            rgb = np.ascontiguousarray(np.stack([picture] * 3, -1) if picture.ndim == 2 else picture[:, :, ::-1])
            self.thumbs[key] = pygame.image.frombuffer(rgb.tobytes(), (rgb.shape[1], rgb.shape[0]), "RGB").copy()
        return self.thumbs[key]

    def draw_round(self, c: Canvas, rect: pygame.Rect) -> None:
        """The cards of the round in the lines they are laid in: each card's number, or its picture as
        the camera took it (the side just taken, before it is turned over)."""
        run = self.run
        per_line = run.shape[1]
        group = run.group
        if run.side_index == 0 and run.taken:      # the round before, as the camera took it
            strip = pygame.Rect(rect.x, rect.bottom - int(rect.h * 0.3), rect.w, int(rect.h * 0.3))
            self.draw_taken(c, strip)
            rect = pygame.Rect(rect.x, rect.y, rect.w, strip.y - c.px(10) - rect.y)
        lines = -(-len(group) // per_line)
        cols = min(per_line, len(group))
        gap = c.px(6)
        cell_w = min((rect.w - gap * (cols - 1)) / cols, (rect.h - gap * (lines - 1)) / lines * 63 / 88)
        cell_h = cell_w * 88 / 63
        x0 = rect.x + (rect.w - (cols * cell_w + (cols - 1) * gap)) / 2
        taken = {n: pic for n, side, pic in run.taken if side == run.sides[max(0, run.side_index - 1)]}
        for i, number in enumerate(group):
            line, col = divmod(i, per_line)
            r = pygame.Rect(int(x0 + col * (cell_w + gap)), int(rect.y + line * (cell_h + gap)), int(cell_w),
                            int(cell_h))
            pic = taken.get(number) if run.side_index > 0 else None
            if pic is not None:
                c.surface.blit(pygame.transform.smoothscale(self.thumb(number, run.sides[run.side_index - 1], pic),
                                                            r.size), r)
                c.box(r, theme.CORRECT, radius=4, width=max(1, c.px(2)))
            else:
                c.box(r, theme.CARD, radius=4)
                c.text(Literal(str(number)), r.center, min(theme.BODY, cell_w / c.u * 0.45), theme.CARD_TEXT,
                       bold=True, anchor="center", max_width=r.w - 2, role="card-number")

    def draw_taken(self, c: Canvas, rect: pygame.Rect) -> None:
        """The cards the last step took, small, in a line (as many as fit), under a caption."""
        caption = c.text(Text(N_("Just taken:")), (rect.x, rect.y), theme.SMALL, theme.MUTED, role="caption",
                         max_width=rect.w)
        h = rect.bottom - caption.bottom - c.px(4)
        w = int(h * 63 / 88)
        x = rect.x
        for number, side, picture in self.run.taken:
            if x + w > rect.right:
                break
            r = pygame.Rect(x, caption.bottom + c.px(4), w, h)
            c.surface.blit(pygame.transform.smoothscale(self.thumb(number, side, picture), r.size), r)
            c.box(r, theme.CORRECT, radius=3, width=max(1, c.px(2)))
            x += w + c.px(4)

    def draw_camera(self, c: Canvas, rect: pygame.Rect) -> None:
        c.box(rect, theme.PANEL)
        if self.preview is None:
            return
        pw, ph = self.preview.get_size()
        scale = min(rect.w / pw, rect.h / ph)
        size = (max(1, int(pw * scale)), max(1, int(ph * scale)))
        img = pygame.transform.smoothscale(self.preview, size)
        c.surface.blit(img, img.get_rect(center=rect.center))

    def draw_summary(self, c: Canvas, rect: pygame.Rect) -> None:
        """At the end: the look-alike pairs to sticker, and the cards not enrolled."""
        run = self.run
        lines: list[Text] = []
        if run.phase == "done":
            if run.look_alikes:
                pairs = ", ".join(f"{a}\u00a0&\u00a0{b}" for a, b in run.look_alikes)
                # both: one sticker leaves the other card unsure (its twin's face stays enrolled)
                lines.append(Text(N_("Too alike to tell apart: cards {pairs}. Put a sticker on both cards of each "
                                     "pair."), {"pairs": pairs}))
            elif run.path is not None:
                lines.append(Text(N_("No two cards look alike.")))
            missing = run.missing()
            if missing:
                lines.append(plural(NP_("Not enrolled: card {list}. Enrol this deck again later (only it is asked), "
                                        "or sticker it.", "Not enrolled: cards {list}. Enrol this deck again later "
                                        "(only those are asked), or sticker them."), len(missing),
                                    list=number_ranges(missing)))
        y = rect.y
        for line in lines:
            h = c.height_of(line, rect.w, theme.BODY, role="then")
            c.paragraph(line, (rect.x, y, rect.w, h), theme.BODY, role="then")
            y += h + c.px(10)
