"""The table view: the live camera picture with the cards it recognised outlined, the game's board,
the turn bar, the action the camera proposes, and then a big verdict.

Phases (``phase``, also in the screenshot names):

- ``deal``: before the first action: what to lay out; the camera reads it; OK starts the game.
  Cooperative Cronología comes back here after a column scores (the new grid is a ``deal`` line).
- ``watch``: waiting for the player whose turn it is. The camera's proposals arrive here.
- ``propose``: "Ana put X between A and B" -- OK confirms (it is stored, then judged), UNDO says the
  camera misread (the players fix the table and it reads again).
- ``verdict``: correct or wrong, with the reason in words; shape and colour both tell it.
- ``effect``: Cronología's icon choice after a correct card (the engine lists what is allowed).
- ``reset``: the players do what the rule says (cooperative failure: box the union events, deal
  new ones) and press OK.
- ``refused``: the engine refused the reading (not that player's turn, a slot already taken...).
- ``ask``: a question only the buttons can answer (board games: the market card taken, knowledge
  tokens, an effect's outcome): the view's :class:`~companion.ui.games.Ask`, with sub-menus. The
  view opens one when the game waits for it (``view.ask``), or the players do from ``watch`` with
  OK (``view.actions``). Lines the view calls ``quiet`` (bookkeeping) skip the verdict screen; a
  view that ``judges_refusals`` shows the engine's refusal of a camera reading as a Wrong verdict.
"""

from __future__ import annotations

import dataclasses

import pygame

from companion.errors import BadInput
from companion.games.base import refusal
from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO
from companion.store.log import StoreError
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.screen import ListChoice, Screen, draw_hints, hint_bar_height
from companion.ui.screens import fault


class TableScreen(Screen):
    name = "table"

    def __init__(self, kiosk, new_game: dict | None = None):
        super().__init__(kiosk)
        self.new_game = new_game
        self.view = new_game["view"] if new_game else kiosk.session.view
        self.phase = "deal" if new_game else "watch"
        self.reading = None
        self.preview = None               # pygame surface of the last camera picture
        self.preview_scale = 1.0
        self.setup_codes = None           # deal: what the camera read, ready to start
        self.setup_note: Text | None = None
        self.pending: dict | None = None  # the proposed action line
        self.judged = None                # (line, events, what the view needs from before it)
        self.verdict_at = 0.0
        self.after_verdict = "watch"
        self.table_note: Text | None = None
        self.refused_reason: Text | None = None
        self.effects: ListChoice | None = None
        self.ignored: set = set()         # unknown/foreign codes already reported
        self.rejected: dict | None = None # a reading the players called a misread (until the table changes)
        self.camera_fault = None
        self.asks: list = []              # ask: the open (sub-)menus, [(Ask, ListChoice)]
        self.now = kiosk.clock()
        self.expect()
        if self.phase == "watch":
            self.open_ask()

    # -- helpers -------------------------------------------------------------------------------
    @property
    def session(self):
        return self.kiosk.session

    def expect(self) -> None:
        feed = self.kiosk.table
        if feed is None:
            return
        if self.phase == "deal":
            feed.expect(self.view.empty_layout())
        else:
            feed.expect(self.view.expected_layout(self.session))

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        if phase in ("watch", "deal"):
            self.pending = None
            self.table_note = None
            self.expect()
        if phase == "watch" and self.session is not None and not self.session.in_progress():
            self.finish()
            return
        if phase == "watch":
            self.open_ask()

    def open_ask(self, ask=None) -> None:
        """Show the view's question (``ask``: one the players opened), if the game waits for one."""
        if ask is None:
            view_ask = getattr(self.view, "ask", None)
            ask = view_ask(self.session) if view_ask is not None and self.session is not None else None
        if ask is not None:
            self.asks = [(ask, ListChoice(ask.choices, ask.focus))]
            self.phase = "ask"

    def optional_actions(self):
        actions = getattr(self.view, "actions", None)
        return actions(self.session) if actions is not None and self.session is not None else None

    def finish(self) -> None:
        from companion.ui.screens.score import ScoreScreen
        self.kiosk.stack.replace(ScoreScreen(self.kiosk))

    # -- commands ------------------------------------------------------------------------------
    def hints(self):
        p = self.phase
        if p == "deal":
            h = {UNDO: N_("back")}
            if self.setup_codes is not None:
                h[OK] = N_("start the game") if self.new_game else N_("confirm the new grid")
            return h
        if p == "watch":
            h = {UNDO: N_("history / undo"), NEXT: N_("read again")}
            more = self.optional_actions()
            if more is not None:
                h[OK] = more.hint
            return h
        if p == "ask":
            ask = self.asks[-1][0]
            back = len(self.asks) > 1 or ask.optional
            return {NEXT: N_("next choice"), UNDO: N_("back") if back else N_("history / undo"), OK: N_("choose")}
        if p == "propose":
            return {UNDO: N_("misread"), OK: N_("confirm")}
        if p == "verdict":
            return {OK: N_("next turn")}
        if p == "effect":
            return {NEXT: N_("next choice"), OK: N_("choose")}
        if p in ("reset", "refused"):
            return {OK: N_("done")}
        return {}

    def handle(self, cmd):
        k = self.kiosk
        p = self.phase
        if p == "deal":
            if cmd.kind in (UNDO, BACK) and self.new_game:
                k.stack.pop()
            elif cmd.kind == OK and self.setup_codes is not None:
                self.start_or_deal()
        elif p == "watch":
            if cmd.kind == UNDO:
                from companion.ui.screens.history import HistoryScreen
                k.stack.push(HistoryScreen(k))
            elif cmd.kind == NEXT:
                self.expect()
            elif cmd.kind == OK:
                self.open_ask(self.optional_actions())
        elif p == "ask":
            self.handle_ask(cmd)
        elif p == "propose":
            if cmd.kind == OK:
                self.confirm(self.pending)
            elif cmd.kind in (UNDO, BACK):
                self.rejected = self.pending
                self.set_phase("watch")
                self.table_note = Text(N_("Put the cards as they really are; the camera reads the table again."))
        elif p == "verdict":
            if cmd.kind in (OK, NEXT):
                self.leave_verdict()
        elif p == "effect":
            if cmd.kind in (NEXT, PREV, OK):
                line = self.effects.handle(cmd)
                if cmd.kind == OK:
                    if line == "none":
                        self.set_phase("watch")
                    elif line is not None:
                        self.confirm(line)
        elif p in ("reset", "refused"):
            if cmd.kind in (OK, NEXT, UNDO, BACK):
                self.set_phase("watch")

    def handle_ask(self, cmd) -> None:
        _ask, choice = self.asks[-1]
        if cmd.kind in (UNDO, BACK):
            self.ask_back()
        elif cmd.kind in (NEXT, PREV, OK):
            value = choice.handle(cmd)
            if cmd.kind != OK or not choice.items:
                return
            if callable(value):
                value = value()
            if value is None:
                self.ask_back()
            elif isinstance(value, dict):
                self.asks = []
                self.confirm(value)
            else:
                self.asks.append((value, ListChoice(value.choices, value.focus)))

    def ask_back(self) -> None:
        """Back one menu level; from the top of a question the game waits for: the history (undo)."""
        if len(self.asks) > 1:
            self.asks.pop()
        elif self.asks and self.asks[0][0].optional:
            self.asks = []
            self.phase = "watch"
        else:
            from companion.ui.screens.history import HistoryScreen
            self.kiosk.stack.push(HistoryScreen(self.kiosk))

    def start_or_deal(self) -> None:
        k = self.kiosk
        from companion.ui.session import GameSession
        if self.new_game:
            g = self.new_game
            line = self.view.setup_line(g["players"], g["options"], self.setup_codes)
            try:
                k.session = GameSession.start(k.store, self.view, line)
            except BadInput as e:
                self.setup_note = Text(N_("The companion cannot start this game: {error}"), {"error": str(e)})
                return
            except Exception as e:
                if _is_store_error(e):
                    k.stack.push(fault.store_error(k, str(e), on_retry=lambda: (k.stack.pop(), self.start_or_deal()),
                                                   on_drop=lambda: k.stack.pop()))
                    return
                raise
            self.new_game = None
            self.set_phase("watch")
        else:
            self.confirm(self.view.deal_line(self.setup_codes))

    def confirm(self, line: dict) -> None:
        """Store the action (the store answers only when it is on disk), then show it as done."""
        k = self.kiosk
        before = self.view.context(self.session)
        try:
            events = self.session.confirm(line)
        except Exception as e:
            if not _is_store_error(e):
                raise
            k.stack.push(fault.store_error(k, str(e), on_retry=lambda: (k.stack.pop(), self.confirm(line)),
                                           on_drop=lambda: (k.stack.pop(), self.set_phase("watch"))))
            return
        reason = refusal(events)
        if reason is not None:
            self.refused_reason = reason
            self.phase = "refused"
            return
        self.judged = (line, events, before)
        self.after_verdict = self.view.next_step(line, events, self.session)
        self.pending = None
        self.setup_codes = None
        quiet = getattr(self.view, "quiet", None)
        if quiet is not None and quiet(line, events, self.session):
            self.leave_verdict()
            return
        correct = self.view.is_correct(events)
        if correct is not None:
            k.signals.verdict(correct)
        self.verdict_at = self.now
        self.phase = "verdict"
        self.expect()

    def leave_verdict(self) -> None:
        nxt = self.after_verdict
        if not self.session.in_progress():
            self.finish()
        elif nxt == "effect":
            choices = [(Text(N_("No effect")), "none")] + self.view.follow_ups(self.session)
            if len(choices) == 1:
                self.set_phase("watch")
            else:
                self.effects = ListChoice(choices)
                self.phase = "effect"
        elif nxt == "deal":
            self.setup_codes = None
            self.set_phase("deal")
        elif nxt == "reset":
            self.phase = "reset"
        else:
            self.set_phase("watch")

    # -- the camera ----------------------------------------------------------------------------
    def update(self, now):
        self.now = now
        feed = self.kiosk.table
        if feed is None:
            return
        reading = feed.poll()
        if reading is None:
            return
        k = self.kiosk
        if reading.lost:
            if self.camera_fault is None:
                self.camera_fault = fault.camera_lost(k, reading.lost, watch=self.update)
                k.stack.push(self.camera_fault)
                k.signals.fault(True)
            return
        if self.camera_fault is not None:
            if k.stack.top is self.camera_fault:
                k.stack.pop()
            self.camera_fault = None
            k.signals.fault(False)
        self.reading = reading
        if reading.frame is not None:
            f = reading.frame
            self.preview = pygame.image.frombuffer(f.tobytes(), (f.shape[1], f.shape[0]), "RGB").copy()
            self.preview_scale = reading.scale
        for p in reading.proposals:
            self.on_proposal(p)
        if self.phase == "deal":
            codes, note = self.view.read_setup(reading.detections, self.new_game, self.session)
            self.setup_codes, self.setup_note = codes, note

    def on_proposal(self, p) -> None:
        kind = type(p).__name__
        k = self.kiosk
        if kind == "UnknownSticker":
            if p.payload not in self.ignored:
                self.ignored.add(p.payload)
                k.stack.push(fault.unknown_card(k, p.payload, on_ok=k.stack.pop))
            return
        if kind == "ForeignCode":
            if p.text not in self.ignored:
                self.ignored.add(p.text)
                k.stack.push(fault.foreign_code(k, p.text, on_ok=k.stack.pop))
            return
        if kind == "TableDiffers":
            self.table_note = Text(N_("The table does not look as expected: {message}"), {"message": _msg(p.message, k.lang)})
            return
        if kind == "TableMatches":
            self.table_note = None
            self.rejected = None
            return
        camera_ask = self.phase == "ask" and self.asks[0][0].camera
        if (self.phase != "watch" and not camera_ask) or self.session is None:
            return
        line = self.view.action_for(p, self.session)
        if line is None or line == self.rejected:
            return
        self.rejected = None
        _state, events = self.session.preview(line)
        reason = refusal(events)
        if reason is not None and getattr(self.view, "judges_refusals", False):
            # the card lies where the rules forbid it: a Wrong verdict, and this reading is not
            # proposed again until the table changes
            self.asks = []
            self.rejected = line
            self.judged = (line, events, self.view.context(self.session))
            self.after_verdict = "watch"
            self.kiosk.signals.verdict(False)
            self.verdict_at = self.now
            self.phase = "verdict"
            return
        if reason is not None:
            self.refused_reason = reason
            self.phase = "refused"
            return
        self.asks = []
        self.pending = line
        self.phase = "propose"

    # -- drawing -------------------------------------------------------------------------------
    def draw(self, c: Canvas):
        c.fill(theme.BG)
        bar_h = c.px(56)
        self.draw_turn_bar(c, pygame.Rect(0, 0, c.w, bar_h))
        bottom = c.h - hint_bar_height(c)
        band_h = c.px(self.view.band_height)
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
            board = pygame.Rect(cam.right + c.px(10), main.y, main.w - cam_w - c.px(10), main.h)
            self.draw_camera(c, cam)
            c.box(board, theme.PANEL)
            highlight = self.pending if self.phase == "propose" else None
            self.view.draw_board(c, board.inflate(-c.px(12), -c.px(12)), self.session, highlight)
            self.draw_band(c, band)
        draw_hints(c, self.hints())

    def draw_turn_bar(self, c: Canvas, rect: pygame.Rect):
        c.box(rect, theme.PANEL, radius=0)
        if self.session is None:
            c.text(self.view.title, (rect.x + c.px(14), rect.centery), theme.LARGE, theme.ACCENT, bold=True,
                   anchor="midleft", max_width=rect.w - c.px(28), role="turn")
            return
        info = self.view.turn(self.session)
        if self.phase == "effect":
            info = dataclasses.replace(info, player=self.view.effect_player(self.session))
        x = rect.x + c.px(12)
        if info.player:
            r = c.text(Text(N_("{player}'s turn"), {"player": info.player}), (x, rect.centery), theme.LARGE,
                       theme.ACCENT, bold=True, anchor="midleft", max_width=int(rect.w * 0.36), role="turn")
            x = r.right + c.px(16)
        if info.round:
            r = c.text(Text(N_("Round {n}"), {"n": info.round}), (x, rect.centery), theme.SMALL, theme.MUTED,
                       anchor="midleft", role="round")
            x = r.right + c.px(12)
        if info.sudden_death:
            r = c.text(Text(N_("⚡ SUDDEN DEATH")), (x, rect.centery), theme.SMALL, theme.WRONG, bold=True,
                       anchor="midleft", role="sudden-death")
            x = r.right + c.px(12)
        for t in info.extra:
            r = c.text(t, (x, rect.centery), theme.SMALL, theme.TEXT, bold=True, anchor="midleft", role="extra")
            x = r.right + c.px(12)
        parts = []
        for name, n in info.hands.items():
            mark = "✗" if name in info.eliminated else str(n)
            parts.append(f"{name} {mark}")
        if parts:
            c.text(Literal(" · ".join(parts)), (rect.right - c.px(12), rect.centery), theme.SMALL, theme.TEXT,
                   anchor="midright", max_width=max(c.px(60), rect.right - c.px(12) - x), role="hands")

    def draw_camera(self, c: Canvas, rect: pygame.Rect):
        c.box(rect, (0, 0, 0))
        if self.preview is None:
            c.paragraph(N_("Waiting for the camera…"), rect.inflate(-c.px(16), -c.px(16)), theme.BODY, theme.MUTED,
                        align="center", valign="middle", role="camera")
            return
        pw, ph = self.preview.get_size()
        s = min(rect.w / pw, rect.h / ph)
        size = (max(1, int(pw * s)), max(1, int(ph * s)))
        img = pygame.transform.smoothscale(self.preview, size)
        dest = img.get_rect(center=rect.center)
        c.surface.blit(img, dest)
        k = s * self.preview_scale
        expected = set(self.view.codes_on_table(self.session)) if self.session else set()
        for d in (self.reading.detections if self.reading else []):
            corners = getattr(d, "corners", None)
            if corners is None:
                continue
            pts = [(dest.x + x * k, dest.y + y * k) for x, y in corners]
            payload = getattr(d, "payload", "")
            known = getattr(d, "card", True) is not None
            colour = theme.OUTLINE_BAD if not known else (theme.OUTLINE_OK if payload in expected else theme.OUTLINE_NEW)
            pygame.draw.polygon(c.surface, colour, pts, max(2, c.px(2)))
        c.text(N_("camera"), (rect.x + c.px(6), rect.y + c.px(4)), theme.SMALL * 0.8, theme.MUTED, role="camera")

    def draw_band(self, c: Canvas, band: pygame.Rect):
        p = self.phase
        c.box(band, theme.PANEL_HI if p == "propose" else theme.PANEL)
        inner = band.inflate(-c.px(20), -c.px(14))
        if p == "deal":
            prompt = self.view.setup_prompt(self.new_game, self.session)
            c.paragraph(prompt, (inner.x, inner.y, inner.w, inner.h * 0.6), theme.BODY, bold=True, role="prompt")
            note = self.setup_note or Text(N_("Reading the table…"))
            colour = theme.CORRECT if self.setup_codes is not None else theme.MUTED
            c.paragraph(note, (inner.x, inner.y + inner.h * 0.62, inner.w, inner.h * 0.38), theme.SMALL, colour,
                        role="setup-note")
        elif p == "watch":
            c.paragraph(self.view.watch_prompt(self.session), (inner.x, inner.y, inner.w, inner.h * 0.55),
                        theme.LARGE * 0.9, bold=True, role="prompt")
            if self.table_note:
                c.paragraph(self.table_note, (inner.x, inner.y + inner.h * 0.58, inner.w, inner.h * 0.42), theme.SMALL,
                            theme.WARN, role="table-note")
        elif p == "propose":
            c.paragraph(self.view.describe(self.pending, self.session, c.lang), (inner.x, inner.y, inner.w, inner.h * 0.62), theme.LARGE * 0.85, bold=True,
                        role="proposal")
            c.paragraph(N_("OK if that is what happened, UNDO if the camera got it wrong."),
                        (inner.x, inner.y + inner.h * 0.66, inner.w, inner.h * 0.34), theme.SMALL, theme.MUTED,
                        role="proposal-help")
        elif p == "refused":
            c.warn_mark((inner.x + c.px(28), inner.centery), c.px(26))
            c.paragraph(Text(N_("Not recorded: {reason}"), {"reason": self.refused_reason.render(c.lang)}),
                        (inner.x + c.px(70), inner.y, inner.w - c.px(70), inner.h), theme.BODY, theme.WARN, bold=True,
                        role="refused", valign="middle")
        elif p == "reset":
            c.paragraph(self.view.reset_prompt(self.session), inner, theme.BODY, bold=True, role="prompt",
                        valign="middle")

    def draw_verdict(self, c: Canvas, rect: pygame.Rect):
        line, events, before = self.judged
        v = self.view.verdict(line, events, before, self.session, c.lang)
        colour = theme.CORRECT if v.correct else (theme.WRONG if v.correct is False else theme.INFO)
        c.box(rect, theme.PANEL)
        c.box(rect, colour, width=c.px(8))
        radius = min(c.px(64), rect.h // 4)
        centre = (rect.x + radius + c.px(30), rect.y + radius + c.px(24))
        if v.correct:
            c.tick_mark(centre, radius)
        elif v.correct is False:
            c.cross_mark(centre, radius)
        x = centre[0] + radius + c.px(24)
        c.paragraph(v.headline, (x, rect.y + c.px(20), rect.right - x - c.px(20), radius * 2 + c.px(8)), theme.HUGE,
                    colour, bold=True, role="verdict", valign="middle")
        y = rect.y + radius * 2 + c.px(40)
        if v.reason:
            used = c.paragraph(v.reason, (rect.x + c.px(30), y, rect.w - c.px(60), (rect.bottom - y) * 0.55),
                               theme.LARGE, role="reason")
            y = used.bottom + c.px(10)
        then = self.table_note or v.then
        if then:
            c.paragraph(then, (rect.x + c.px(30), y, rect.w - c.px(60), rect.bottom - y - c.px(12)), theme.BODY,
                        theme.WARN if self.table_note else theme.MUTED, role="then")

    def draw_effects(self, c: Canvas, rect: pygame.Rect):
        c.box(rect, theme.PANEL)
        c.paragraph(self.view.effect_prompt(self.session), (rect.x + c.px(16), rect.y + c.px(10), rect.w - c.px(32),
                                                               c.px(64)), theme.BODY, bold=True, role="prompt")
        self.effects.draw(c, (rect.x + c.px(16), rect.y + c.px(80), rect.w - c.px(32), rect.h - c.px(92)),
                          theme.BODY, columns=2 if len(self.effects.items) > 4 else 1)

    def draw_ask(self, c: Canvas, rect: pygame.Rect):
        """The board on the left (what the question is about), the question and its menu on the right."""
        ask, choice = self.asks[-1]
        board_w = int(rect.w * 0.54)
        board = pygame.Rect(rect.x, rect.y, board_w, rect.h)
        c.box(board, theme.PANEL)
        self.view.draw_board(c, board.inflate(-c.px(12), -c.px(12)), self.session, None)
        panel = pygame.Rect(board.right + c.px(10), rect.y, rect.right - board.right - c.px(10), rect.h)
        c.box(panel, theme.PANEL_HI)
        inner = panel.inflate(-c.px(20), -c.px(16))
        used = c.paragraph(ask.prompt, (inner.x, inner.y, inner.w, c.px(100)), theme.BODY, bold=True, role="prompt")
        y = used.bottom + c.px(6)
        if ask.note:
            used = c.paragraph(ask.note, (inner.x, y, inner.w, c.px(48)), theme.SMALL * 0.8, theme.MUTED,
                               role="ask-note")
            y = used.bottom + c.px(6)
        n = len(choice.items)
        columns = ask.columns or (1 if n <= 5 else 2 if n <= 12 else 3)
        choice.draw(c, (inner.x, y + c.px(4), inner.w, inner.bottom - y - c.px(4)), theme.BODY, columns=columns,
                    role="choice")


def _is_store_error(e: Exception) -> bool:
    return isinstance(e, (StoreError, OSError))


def _msg(message, lang):
    return message.render(lang) if isinstance(message, Text) else str(message)
