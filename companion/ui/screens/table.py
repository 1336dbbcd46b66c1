"""The table view: the live camera picture with the cards it recognised outlined, the game's board,
the turn bar, the action the camera proposes, and then a big verdict. The turn controller
(:mod:`companion.play.turns`) decides what happens; this screen draws it and passes the buttons on."""

from __future__ import annotations

import dataclasses

import pygame

from companion.i18n import N_, Text, render
from companion.play.turns import TurnController
from companion.ui import theme
from companion.ui.canvas import MIN_TEXT, Canvas, Literal, font
from companion.ui.screen import Screen, choice_size, draw_choice, draw_hints, hint_bar_height, screen


@screen("table")
class TableScreen(Screen):
    def __init__(self, kiosk, new_game: dict | None = None):
        super().__init__(kiosk)
        self.preview: pygame.Surface | None = None   # the last camera picture
        self.preview_scale = 1.0
        self._scaled: tuple[pygame.Surface, tuple[int, int], pygame.Surface] | None = None  # picture, size: scaled
        self.turns = TurnController(kiosk, new_game)

    # what the drawing reads, and what the demo's simulated players look at
    session = property(lambda self: self.kiosk.session)
    view = property(lambda self: self.turns.view)
    phase = property(lambda self: self.turns.phase)
    setup_codes = property(lambda self: self.turns.setup_codes)
    table_note = property(lambda self: self.turns.table_note)
    effects = property(lambda self: self.turns.effects)

    def resume(self, note: Text | None = None) -> None:
        self.turns.resume(note)

    def hints(self):
        return self.turns.hints()

    def handle(self, cmd):
        self.turns.command(cmd)

    def update(self, now):
        feed = self.kiosk.table
        if feed is None:
            return
        reading = feed.poll()
        if reading is None:
            return
        if not reading.lost and reading.frame is not None:
            f = reading.frame
            self.preview = pygame.image.frombuffer(f.tobytes(), (f.shape[1], f.shape[0]), "RGB").copy()
            self.preview_scale = reading.scale
        self.turns.reading_in(reading, self.kiosk.lang)

    # -- drawing -------------------------------------------------------------------------------
    def draw(self, c: Canvas):
        c.fill(theme.BG)
        bar_h = self.draw_turn_bar(c, pygame.Rect(0, 0, c.w, c.px(56)))
        bottom = c.h - hint_bar_height(c)
        band_h = self.band_height(c, bottom - bar_h)
        main = pygame.Rect(c.px(10), bar_h + c.px(8), c.w - c.px(20), bottom - bar_h - band_h - c.px(20))
        band = pygame.Rect(c.px(10), main.bottom + c.px(8), c.w - c.px(20), band_h)
        if self.phase == "verdict":
            self.draw_verdict(c, pygame.Rect(main.x, main.y, main.w, band.bottom - main.y))
        elif self.phase == "effect":
            self.draw_effects(c, pygame.Rect(main.x, main.y, main.w, band.bottom - main.y))
        elif self.phase == "ask":
            self.draw_ask(c, pygame.Rect(main.x, main.y, main.w, band.bottom - main.y))
        else:
            cam_w = int(main.w * self.view.camera_share)
            cam = pygame.Rect(main.x, main.y, cam_w, main.h)
            board = pygame.Rect(cam.right + c.px(10), main.y, main.w - cam_w - c.px(10), main.h) if cam_w else main
            if cam_w:
                self.draw_camera(c, cam)
            c.box(board, theme.PANEL)
            highlight = self.turns.pending_line() if self.phase == "propose" else None
            self.view.draw_board(c, board.inflate(-c.px(12), -c.px(12)), self.session, highlight)
            self.draw_band(c, band)
        draw_hints(c, self.button_hints())

    def draw_turn_bar(self, c: Canvas, rect: pygame.Rect) -> int:
        """Whose turn, the round and the game's figures; returns where the bar ends (lower than ``rect``
        when the counts in hand need a line of their own)."""
        c.box(rect, theme.PANEL, radius=0)
        if self.session is None:
            c.text(self.view.title, (rect.x + c.px(14), rect.centery), theme.LARGE, theme.ACCENT, bold=True,
                   anchor="midleft", max_width=rect.w - c.px(28), role="turn")
            return rect.bottom
        info = self.view.turn(self.session)
        if self.phase == "effect":
            info = dataclasses.replace(info, player=self.turns.effect_player())
        x = rect.x + c.px(12)
        # a verdict is about the card just judged: its player heads the bar, not the next one
        judged = self.turns.judged_player() if self.phase == "verdict" else None
        # a verdict on an action without a card (a search, an archive) is about the player's turn
        about_card = bool(self.turns.judged and self.turns.judged[0].get("card"))
        who = Text(N_("{player}'s card") if about_card else N_("{player}'s turn"), {"player": judged}) if judged else \
            Text(N_("{player}'s turn"), {"player": info.player}) if info.player else None
        if who is not None:
            r = c.text(who, (x, rect.centery), theme.LARGE, theme.ACCENT, bold=True, anchor="midleft",
                       max_width=int(rect.w * 0.36), role="turn")
            x = r.right + c.px(16)
        if info.round:
            r = c.text(Text(N_("Round {n}"), {"n": info.round}), (x, rect.centery), theme.SMALL, theme.MUTED,
                       anchor="midleft", role="round")
            x = r.right + c.px(12)
        if info.sudden_death:
            r = c.text(Text(N_("⚡ SUDDEN DEATH")), (x, rect.centery), theme.SMALL, theme.WRONG, bold=True,
                       anchor="midleft", role="sudden-death")
            x = r.right + c.px(12)
        # a verdict on the turn just ended: the next player's figures ("Actions left: 2") are not its
        for t in info.extra if not (judged and judged != info.player and info.players_own) else ():
            r = c.text(t, (x, rect.centery), theme.SMALL, theme.TEXT, bold=True, anchor="midleft", role="extra")
            x = r.right + c.px(12)
        parts = []
        for name, n in info.hands.items():
            mark = c.tr(N_("out")) if name in info.eliminated else str(n)
            parts.append(f"{name}\u00a0{mark}")        # a name and its count never part at a line break
        if not parts:
            return rect.bottom
        hands = Text(info.hands_label, {"hands": "\u00a0· ".join(parts)})    # a line never starts with "·"
        # The room is all the bar leaves, from the gap after the last figure (x) to the bar's margin, less
        # HANDS_MARGIN: the counts are laid out in that narrower room, so they fit with a margin by
        # construction, not by a pixel ("En la mano: … · David 0 ·" over "Elena 0 · … · Hugo 1" needs
        # 389 px at 16 px; beside "Turno de Hugo  Ronda 3" at 800x480 the bar leaves 390). On one line,
        # else on as many as they need beside the names, the bar growing the few pixels a third line
        # takes (3 x 19 px > 56 at 800x480), rather than a strip of its own that the board pays for.
        room = pygame.Rect(x, rect.y, rect.right - c.px(12) - x, rect.h)
        fit_w = room.w - c.px(self.HANDS_MARGIN)
        said = c.tr(hands)
        one_line = c.fit_size(said, theme.SMALL, False, fit_w, "hands", MIN_TEXT)
        if fit_w > c.px(60) and font(one_line, False).size(said)[0] <= fit_w:
            # on one line, a little smaller if need be ("Cards in hand: Ana 2 ·" over "Bruno 5" before)
            c.text(hands, (room.right, room.centery), theme.SMALL, theme.TEXT, anchor="midright", max_width=fit_w,
                   role="hands", least=MIN_TEXT)
            return rect.bottom
        tall = max(rect.h, c.height_of(hands, fit_w, theme.SMALL, role="hands") + c.px(2))
        if fit_w > c.px(60) and tall < rect.h + c.px(30):
            if tall > rect.h:
                c.box(pygame.Rect(rect.x, rect.bottom, rect.w, tall - rect.h), theme.PANEL, radius=0)
            c.paragraph(hands, (room.right - fit_w, rect.y, fit_w, tall), theme.SMALL, theme.TEXT, align="right",
                        valign="middle", role="hands")
            return rect.y + tall
        # many players or long names: a line of their own under the bar, rather than smaller type
        strip = pygame.Rect(rect.x, rect.bottom, rect.w, c.px(30))
        c.box(strip, theme.PANEL, radius=0)
        c.paragraph(hands, strip.inflate(-c.px(24), -c.px(4)), theme.SMALL * 0.9, theme.TEXT, align="right",
                    valign="middle", role="hands")
        return strip.bottom

    def draw_camera(self, c: Canvas, rect: pygame.Rect):
        c.box(rect, (0, 0, 0))
        if self.preview is None:
            c.paragraph(N_("Waiting for the camera…"), rect.inflate(-c.px(16), -c.px(16)), theme.BODY, theme.MUTED,
                        align="center", valign="middle", role="camera")
            return
        pw, ph = self.preview.get_size()
        s = min(rect.w / pw, rect.h / ph)
        size = (max(1, int(pw * s)), max(1, int(ph * s)))
        dest = pygame.Rect((0, 0), size)
        dest.center = rect.center
        if c.paint:
            c.surface.blit(self.scaled_preview(size), dest)
        k = s * self.preview_scale
        expected = set(self.view.codes_on_table(self.session)) if self.session else set()
        seen: list = self.turns.reading.detections if self.turns.reading else []
        for d in seen:
            corners = getattr(d, "corners", None)
            if corners is None:
                continue
            pts = [(dest.x + x * k, dest.y + y * k) for x, y in corners]
            payload = getattr(d, "payload", "")
            known = getattr(d, "card", True) is not None
            colour = (theme.OUTLINE_BAD if not known
                      else theme.OUTLINE_OK if payload in expected else theme.OUTLINE_NEW)
            pygame.draw.polygon(c.surface, colour, pts, max(2, c.px(2)))
        c.text(N_("camera"), (rect.x + c.px(6), rect.y + c.px(4)), theme.SMALL * 0.8, theme.MUTED, role="camera")

    def scaled_preview(self, size: tuple[int, int]) -> pygame.Surface:
        """The camera picture at ``size``, scaled once per picture (the screen is drawn more often than
        the camera gives a new one)."""
        assert self.preview is not None
        if self._scaled is None or self._scaled[0] is not self.preview or self._scaled[1] != size:
            self._scaled = (self.preview, size, pygame.transform.smoothscale(self.preview, size))
        return self._scaled[2]

    HANDS_MARGIN = 12         # reference px the counts in hand keep free beside the bar's other figures
    BAND_PAD = (20, 14)       # reference px: the band's margins, across and down
    BAND_GAP = 6              # reference px: between the band's parts

    def band_parts(self, c: Canvas) -> list[tuple]:
        """What the band under the board says now, in order: (message, size, colour, bold, role). The
        first is what the players do; a second, smaller, what the camera sees."""
        p = self.phase
        if p == "deal":
            note = self.turns.setup_note or Text(N_("Reading the table…"))
            colour = theme.CORRECT if self.setup_codes is not None else theme.MUTED
            return [(self.view.setup_prompt(self.turns.new_game, self.session), theme.BODY, theme.TEXT, True, "prompt"),
                    (note, theme.SMALL, colour, False, "setup-note")]
        if p == "watch":
            parts = [(self.view.watch_prompt(self.session), theme.LARGE * 0.9, theme.TEXT, True, "prompt")]
            if self.table_note:
                parts.append((self.table_note, theme.SMALL, theme.WARN, False, "table-note"))
            return parts
        if p == "propose":
            return [(Literal(render(self.view.describe(self.turns.pending_line(), self.session, c.lang), c.lang)),
                     theme.LARGE * 0.85, theme.TEXT, True, "proposal"),
                    (N_("OK if that is what happened, UNDO if the camera got it wrong."), theme.SMALL, theme.MUTED,
                     False, "proposal-help")]
        if p == "refused":
            return [(Text(N_("Not recorded: {reason}"), {"reason": self.turns.refused_reason or ""}), theme.BODY,
                     theme.WARN, True, "refused")]
        if p == "reset":
            return [(self.view.reset_prompt(self.session), theme.BODY, theme.TEXT, True, "prompt")]
        return []

    def band_width(self, c: Canvas, phase: str) -> int:
        inner = c.w - c.px(20) - c.px(2 * self.BAND_PAD[0])
        return inner - c.px(70) if phase == "refused" else inner      # the warning mark's room

    def band_height(self, c: Canvas, room: int) -> int:
        """The band's height: the view's, or more where its words need more to be read whole at their
        size's floor (a deal's instructions), up to two thirds of the room under the turn bar; the
        board gives it up."""
        width = self.band_width(c, self.phase)
        parts = self.band_parts(c)
        need = sum(c.height_of(msg, width, size, bold, role) for msg, size, _colour, bold, role in parts)
        need += c.px(2 * self.BAND_PAD[1]) + c.px(self.BAND_GAP) * max(0, len(parts) - 1)
        return min(max(c.px(self.view.band_height), need), room * 2 // 3)

    def draw_band(self, c: Canvas, band: pygame.Rect):
        p = self.phase
        c.box(band, theme.PANEL_HI if p == "propose" else theme.PANEL)
        inner = band.inflate(-c.px(2 * self.BAND_PAD[0]), -c.px(2 * self.BAND_PAD[1]))
        parts = self.band_parts(c)
        if not parts:
            return
        if p == "refused":
            c.warn_mark((inner.x + c.px(28), inner.centery), c.px(26))
            inner = pygame.Rect(inner.x + c.px(70), inner.y, inner.w - c.px(70), inner.h)
        # each part gets the room it needs at its floor, and the rest of the band in proportion to its size
        gap = c.px(self.BAND_GAP)
        needs = [c.height_of(msg, inner.w, size, bold, role) for msg, size, _colour, bold, role in parts]
        spare = max(0, inner.h - sum(needs) - gap * (len(parts) - 1))
        weights = [size * (2 if i == 0 else 1) for i, (_msg, size, *_rest) in enumerate(parts)]
        y = inner.y
        for (msg, size, colour, bold, role), need, weight in zip(parts, needs, weights, strict=True):
            h = need + spare * weight // sum(weights)
            c.paragraph(msg, (inner.x, y, inner.w, h), size, colour, bold=bold, role=role,
                        valign="middle" if len(parts) == 1 else "top")
            y += h + gap

    def draw_verdict(self, c: Canvas, rect: pygame.Rect):
        v = self.turns.verdict(c.lang)
        colour = theme.CORRECT if v.correct else (theme.WRONG if v.correct is False else theme.INFO)
        end = self.turns.ending
        c.box(rect, theme.PANEL)
        # the end of the game is framed as such: a big red cross beside "Ana wins" would read as her loss
        c.box(rect, theme.ACCENT if end else colour, width=c.px(8))
        reason = v.reason
        if end:
            said, why = render(v.headline, c.lang), render(v.reason or "", c.lang)
            reason = Literal(f"{said}{' ' if said[-1:] in '!?.' else ': '}{why}" if why else said)
        # what the players do now; what the camera sees waits for the table view (an orange "board not in
        # view" beside a green verdict read as a contradiction)
        then = None if end else v.then
        small = c.px(16)            # the card's own verdict beside the reason, when the game ends
        left = rect.x + c.px(30) + (small * 2 + c.px(14) if end and v.correct is not None else 0)
        width = rect.right - c.px(30) - left
        reason_need = c.height_of(reason, width, theme.LARGE, False, "reason") if reason else 0
        then_need = c.height_of(then, rect.w - c.px(60), theme.BODY, False, "then") + c.px(22) if then else 0
        # the mark and the headline give up height where the words under them need it to be read whole
        for radius in (min(c.px(64), rect.h // 4), c.px(44), c.px(32)):
            if rect.h - radius * 2 - c.px(52) >= reason_need + then_need:
                break
        centre = (rect.x + radius + c.px(30), rect.y + radius + c.px(24))
        if end or v.correct is None:         # no mark, and no empty room for one before the words
            x = rect.x + c.px(30)
        else:
            if v.correct:
                c.tick_mark(centre, radius)
            else:
                c.cross_mark(centre, radius)
            x = centre[0] + radius + c.px(24)
        headline = end or v.headline          # the winner first; the card's verdict follows in words
        c.paragraph(headline, (x, rect.y + c.px(20), rect.right - x - c.px(20), radius * 2 + c.px(8)), theme.HUGE,
                    theme.ACCENT if end else colour, bold=True, role="verdict", valign="middle")
        y = rect.y + radius * 2 + c.px(40)
        if end:
            if v.correct:
                c.tick_mark((rect.x + c.px(30) + small, y + small + c.px(4)), small)
            elif v.correct is False:
                c.cross_mark((rect.x + c.px(30) + small, y + small + c.px(4)), small)
        if reason:
            # the reason whole first (its room at its floor at least), then what to do in what is left
            room = max((rect.bottom - y) * 0.55 if then else rect.bottom - y - c.px(12),
                       min(reason_need, rect.bottom - y - then_need))
            used = c.paragraph(reason, (left, y, width, room), theme.LARGE, role="reason")
            y = used.bottom + c.px(10)
        if then:
            c.paragraph(then, (rect.x + c.px(30), y, rect.w - c.px(60), rect.bottom - y - c.px(12)), theme.BODY,
                        theme.MUTED, role="then")

    def draw_effects(self, c: Canvas, rect: pygame.Rect):
        c.box(rect, theme.PANEL)
        c.paragraph(self.view.effect_prompt(self.session), (rect.x + c.px(16), rect.y + c.px(10), rect.w - c.px(32),
                                                               c.px(64)), theme.BODY, bold=True, role="prompt")
        draw_choice(c, self.effects, (rect.x + c.px(16), rect.y + c.px(80), rect.w - c.px(32), rect.h - c.px(92)),
                          theme.BODY, columns=2 if len(self.effects.items) > 4 else 1)

    def draw_ask(self, c: Canvas, rect: pygame.Rect):
        """The board on the left (what the question is about), the question and its menu on the right;
        where the question and its answers cannot be read whole beside the board, the board gives up
        its room (a narrower board would cut its own words)."""
        ask, choice = self.turns.asks[-1]
        n = len(choice.items)
        wanted = ask.columns or (1 if n <= 5 else 2 if n <= 12 else 3)
        plans = [(share, cols) for share in (0.54, 0.0) for cols in range(wanted, 0, -1)]
        for share, columns in plans:
            layout = self.ask_layout(c, rect, share, ask, choice, columns)
            if layout[-1]:
                break
        board, panel, prompt_rect, note_rect, menu, _fits = layout
        if board is not None:
            c.box(board, theme.PANEL)
            self.view.draw_board(c, board.inflate(-c.px(12), -c.px(12)), self.session, None)
        c.box(panel, theme.PANEL_HI)
        c.paragraph(ask.prompt, prompt_rect, theme.BODY, bold=True, role="prompt")
        if note_rect is not None:
            if self.table_note:
                c.paragraph(self.table_note, note_rect, theme.SMALL * 0.8, theme.WARN, role="table-note")
            else:
                c.paragraph(ask.note, note_rect, theme.SMALL * 0.8, theme.MUTED, role="ask-note")
        draw_choice(c, choice, menu, theme.BODY, columns=columns, role="choice")

    def ask_layout(self, c: Canvas, rect: pygame.Rect, share: float, ask, choice, columns: int):
        """(board, panel, prompt, note, menu, whether all of it reads whole) with ``share`` of the width
        for the board (0: none) and the menu in ``columns``."""
        board = pygame.Rect(rect.x, rect.y, int(rect.w * share), rect.h) if share else None
        left = board.right + c.px(10) if board is not None else rect.x
        panel = pygame.Rect(left, rect.y, rect.right - left, rect.h)
        inner = panel.inflate(-c.px(20), -c.px(16))
        # the question whole first (at least its floor's room), then its note (what the camera said about
        # the table, when it said something: a misread), then the menu below them
        prompt_need = c.height_of(ask.prompt, inner.w, theme.BODY, True, "prompt")
        prompt = pygame.Rect(inner.x, inner.y, inner.w, prompt_need)
        y = prompt.bottom + c.px(6)
        note = None
        said = self.table_note or ask.note
        if said:
            note_h = c.height_of(said, inner.w, theme.SMALL * 0.8, False, "ask-note")
            note = pygame.Rect(inner.x, y, inner.w, note_h)
            y = note.bottom + c.px(6)
        menu = pygame.Rect(inner.x, y + c.px(4), inner.w, inner.bottom - y - c.px(4))
        fits = menu.h > 0 and choice_size(c, choice, menu, theme.BODY, columns, "choice")[1]
        return board, panel, prompt, note, menu, fits
