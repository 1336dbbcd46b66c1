"""The turn controller: the table's phases, without pygame (the kiosk's table screen only draws it).

Readings come in from the camera feed (:meth:`TurnController.reading`), commands from the buttons
(:meth:`TurnController.command`); out go proposals ("Ana put X between A and B": OK confirms), the
game view's questions (:class:`~companion.ui.games.Ask`), confirmed actions to the game session (which
stores them before anything moves on) and, by name, the screens to open: the history, the score, a
fault. Phases (``phase``):

- ``deal``: before the first action: what to lay out; the camera reads it; OK starts the game.
  Cooperative Cronología comes back here after a column scores (the new grid is a ``deal`` line).
- ``watch``: waiting for the player whose turn it is. The camera's proposals arrive here. NEXT reads
  the table again; OK opens the view's optional actions, or (a row game) the whole row, a page at a time.
- ``propose``: OK confirms (stored, then judged), UNDO says the camera misread: the players fix the
  table and the camera reads it again, or they press NEXT ("read again") and it proposes what it
  sees now, the same card included (in a question the camera answers too, NEXT moves in its menu:
  there "Read the table again" is its last choice). The same card called a misread twice: lift it
  and lay it again.
- ``verdict``: correct or wrong, with the reason in words.
- ``effect``: Cronología's icon choice after a correct card (the engine lists what is allowed).
- ``reset``: the players do what the rule says (cooperative failure) and press OK.
- ``refused``: the engine refused the reading (not that player's turn, a slot already taken...).
- ``ask``: a question only the buttons can answer, with sub-menus. The view opens one when the game
  waits for it (``view.ask``), or the players do from ``watch`` with OK (``view.actions``). Lines the
  view calls ``quiet`` skip the verdict; a view that ``judges_refusals`` shows the engine's refusal of
  a camera reading as a Wrong verdict.

The host is the kiosk, or anything with ``session`` (settable), ``store``, ``table`` (the camera feed
or None), ``signals`` (``verdict(correct)``, ``fault(on)``) and ``stack`` (``push``/``pop``/``replace``
screens by name, ``top``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from companion.errors import BadInput
from companion.games.base import refusal
from companion.i18n import N_, Msg, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO, Command
from companion.play.choice import Ask, Choice
from companion.play.proposals import ForeignCode, Proposal, TableDiffers, TableMatches, UnknownSticker
from companion.play.session import GameSession, stored_or_fault


class Phase(StrEnum):
    """The table's phases (above). Their values are what the screens and the views compare with."""

    DEAL = "deal"
    WATCH = "watch"
    PROPOSE = "propose"
    VERDICT = "verdict"
    EFFECT = "effect"
    RESET = "reset"
    REFUSED = "refused"
    ASK = "ask"


# A camera question's last choice once the players called a misread: NEXT moves in its menu there, so
# reading the table again is chosen with OK instead
READ_AGAIN = "read-again"


class TurnController:
    def __init__(self, host, new_game: dict | None = None):
        self.host = host
        self.new_game = new_game
        self.view = new_game["view"] if new_game else host.session.view
        self.phase = Phase.DEAL if new_game else Phase.WATCH
        self.reading = None               # the last reading of the camera (its detections are drawn)
        self.setup_codes = None           # deal: what the camera read, ready to start
        self.setup_note: Text | None = None
        self.pending: Any = None          # the proposed action (the engine's value, as the view made it)
        self.judged: tuple[dict, list, Any] | None = None   # (its log line, events, what the view needs from before)
        self.ending: Text | None = None   # who won, when the judged action ended the game (worked out once)
        self.after_verdict = Phase.WATCH
        self.table_note: Text | None = None
        self.refused_reason: Text | None = None
        self.effects: Choice | None = None
        self.ignored: set = set()         # unknown/foreign codes already reported
        self.rejected: Any = None         # not proposed again until the table changes (or NEXT: a misread)
        self.misread: Any = None          # the action the players last called a misread
        self.misreads = 0                 # how many times in a row they called it one
        self.camera_fault = None          # the camera-lost screen while it is open
        self.asks: list = []              # ask: the open (sub-)menus, [(Ask, Choice)]
        self.expect()
        if self.phase == Phase.WATCH:
            self.open_ask()

    @property
    def session(self):
        return self.host.session

    # -- the writes the other screens ask for: the controller is the session's only writer ----------
    # They are the class's (static) because the history and the menu may be open with no table screen
    # under them (the game has ended; the score screen is showing).
    @staticmethod
    def take_back(host, again, dropped) -> bool:
        """The history's UNDO: the last stored action taken back (the store forgets it first). False when
        the store could not write and its fault screen opened instead (RETRY calls ``again``, DROP
        ``dropped``)."""
        return stored_or_fault(host.stack, host.session.undo, again=again, dropped=dropped)[0]

    @staticmethod
    def end_early(host, again) -> bool:
        """The menu's "End this game now": kept in the log as ended early, and the host's game is over
        (the next game is a new one, whatever its kind). False when the fault screen opened instead."""
        if not stored_or_fault(host.stack, host.session.end_early, again=again)[0]:
            return False
        host.session = None
        return True

    def expect(self) -> None:
        """Tell the camera feed what the table should look like (it reads again from scratch)."""
        feed = self.host.table
        if feed is None:
            return
        if self.phase == Phase.DEAL:
            feed.expect(self.view.empty_layout())
        else:
            feed.expect(self.view.expected_layout(self.session))

    def set_phase(self, phase: str) -> None:
        self.phase = Phase(phase)      # a view's next_step names one by its value
        if phase in (Phase.WATCH, Phase.DEAL):
            self.pending = None
            self.table_note = None
            self.expect()
        if phase == Phase.WATCH and self.session is not None and not self.session.in_progress():
            self.finish()
            return
        if phase == Phase.WATCH:
            self.open_ask()

    def resume(self, note: Text | None = None) -> None:
        """Back to the game from the history (after an undo, with ``note`` for the players)."""
        self.set_phase(Phase.WATCH)
        self.table_note = note

    def open_ask(self, ask=None) -> None:
        """Open the view's question (``ask``: one the players opened), if the game waits for one."""
        if ask is None and self.session is not None:
            ask = self.view.ask(self.session)
        if ask is not None:
            self.asks = [(ask, Choice(ask.choices, ask.focus))]
            self.phase = Phase.ASK

    def optional_actions(self):
        return self.view.actions(self.session) if self.session is not None else None

    def finish(self) -> None:
        self.host.stack.replace("score")

    def effect_player(self) -> str | None:
        return self.view.effect_player(self.session)

    # -- the buttons -----------------------------------------------------------------------------
    def hints(self) -> dict:
        """What each button does now: {command kind: msgid}."""
        p = self.phase
        if p == Phase.DEAL:
            h = {UNDO: N_("back")}
            if self.setup_codes is not None:
                h[OK] = N_("start the game") if self.new_game else N_("confirm the new grid")
            return h
        if p == Phase.WATCH:
            h = {UNDO: N_("history / undo"), NEXT: N_("read again")}
            more = self.optional_actions()
            if more is not None:
                h[OK] = more.hint
            elif getattr(self.view, "pages_row", False):
                h[OK] = N_("see the whole row")
            return h
        if p == Phase.ASK:
            ask = self.asks[-1][0]
            back = len(self.asks) > 1 or ask.optional
            return {NEXT: N_("next choice"), UNDO: N_("back") if back else N_("history / undo"), OK: N_("choose")}
        if p == Phase.PROPOSE:
            return {UNDO: N_("misread"), OK: N_("confirm")}
        if p == Phase.VERDICT:
            return {OK: self.after_verdict_words()}
        if p == Phase.EFFECT:
            return {NEXT: N_("next choice"), OK: N_("choose")}
        if p in (Phase.RESET, Phase.REFUSED):
            return {OK: N_("done")}
        return {}

    def command(self, cmd: Command) -> None:
        stack = self.host.stack
        p = self.phase
        if p == Phase.DEAL:
            if cmd.kind in (UNDO, BACK) and self.new_game:
                stack.pop()
            elif cmd.kind == OK and self.setup_codes is not None:
                self.start_or_deal()
        elif p == Phase.WATCH:
            if cmd.kind == UNDO:
                stack.push("history")
            elif cmd.kind == NEXT:
                self.read_again()
            elif cmd.kind == OK:
                more = self.optional_actions()
                if more is not None:
                    self.open_ask(more)
                elif getattr(self.view, "pages_row", False):
                    stack.push("row")
        elif p == Phase.ASK:
            self.command_ask(cmd)
        elif p == Phase.PROPOSE:
            if cmd.kind == OK and self.pending is not None:
                self.confirm(self.pending)
            elif cmd.kind in (UNDO, BACK):
                self.called_misread(self.pending)
        elif p == Phase.VERDICT:
            if cmd.kind in (OK, NEXT):
                self.leave_verdict()
        elif p == Phase.EFFECT:
            if cmd.kind in (NEXT, PREV, OK) and self.effects is not None:
                action = self.effects.handle(cmd)
                if cmd.kind == OK:
                    if action == "none":
                        self.set_phase(Phase.WATCH)
                    elif action is not None:
                        self.confirm(action)
        elif p in (Phase.RESET, Phase.REFUSED):
            if cmd.kind in (OK, NEXT, UNDO, BACK):
                self.set_phase(Phase.WATCH)

    def called_misread(self, action) -> None:
        """UNDO on a proposal: the camera misread. It is not proposed again until the table changes or
        the players read the table again (NEXT, or in a camera question its "Read the table again");
        the second time in a row, the camera cannot be trusted with that card as it lies, and the
        screen says what to do."""
        self.misreads = self.misreads + 1 if action == self.misread else 1
        self.misread = self.rejected = action
        self.set_phase(Phase.WATCH)
        if self.phase == Phase.ASK and self.asks[0][0].camera:
            # the question the camera answers too is open again (a board game's turn): NEXT picks in it
            choice = self.asks[0][1]
            choice.items = [*choice.items, (Text(N_("Read the table again")), READ_AGAIN)]
            if self.misreads > 1:
                self.table_note = Text(N_("The camera read the same again: lift the card and lay it again, flat and "
                                          "in full view; then choose “Read the table again”."))
            else:
                self.table_note = Text(N_("Put the cards as they really are, then choose “Read the table again”."))
        elif self.phase != Phase.WATCH:
            self.table_note = None
        elif self.misreads > 1:
            self.table_note = Text(N_("The camera read the same again: lift the card and lay it again, flat and in "
                                      "full view; then press NEXT."))
        else:
            self.table_note = Text(N_("Put the cards as they really are, then press NEXT: the camera reads the "
                                      "table again."))

    def read_again(self) -> None:
        """NEXT while waiting: the camera reads the table from scratch and proposes what it sees now,
        a card called a misread included (a card the rules refused stays refused until it moves)."""
        if self.rejected is not None and self.rejected == self.misread:
            self.rejected = None
        self.expect()

    def command_ask(self, cmd: Command) -> None:
        _ask, choice = self.asks[-1]
        if cmd.kind in (UNDO, BACK):
            self.ask_back()
        elif cmd.kind in (NEXT, PREV, OK):
            value = choice.handle(cmd)
            if cmd.kind != OK or not choice.items:
                return
            if value is READ_AGAIN:
                self.read_again()
                return
            if callable(value):
                value = value()
            if value is None:
                self.ask_back()
            elif isinstance(value, Ask):
                self.asks.append((value, Choice(value.choices, value.focus)))
            else:
                self.asks = []
                self.confirm(value)

    def ask_back(self) -> None:
        """Back one menu level; from the top of a question the game waits for: the history (undo)."""
        if len(self.asks) > 1:
            self.asks.pop()
        elif self.asks and self.asks[0][0].optional:
            self.asks = []
            self.phase = Phase.WATCH
        else:
            self.host.stack.push("history")

    # -- confirmed actions -----------------------------------------------------------------------
    def start_or_deal(self) -> None:
        host, stack = self.host, self.host.stack
        if self.new_game:
            g = self.new_game
            line = self.view.setup_line(g["players"], g["options"], self.setup_codes)
            try:
                ok, session = stored_or_fault(stack, lambda: GameSession.start(host.store, self.view, line),
                                              again=self.start_or_deal)
            except BadInput as e:
                self.setup_note = Text(N_("The companion cannot start this game: {error}"), {"error": str(e)})
                return
            if not ok:
                return
            host.session = session
            self.new_game = None
            self.set_phase(Phase.WATCH)
        else:
            self.confirm(self.view.deal_action(self.setup_codes, self.session))

    def confirm(self, action) -> None:
        """Store the action (the store answers only when it is on disk), then show it as done."""
        stack = self.host.stack
        before = self.view.context(self.session)
        line = self.session.line(action)
        ok, events = stored_or_fault(stack, lambda: self.session.confirm(action),
                                     again=lambda: self.confirm(action), dropped=lambda: self.set_phase(Phase.WATCH))
        if not ok:
            return
        reason = refusal(events)
        if reason is not None:
            self.refused_reason = reason
            self.phase = Phase.REFUSED
            return
        self.judged = (line, events, before)
        self.after_verdict = self.view.next_step(line, events, self.session)
        self.pending = None
        self.setup_codes = None
        if self.view.quiet(line, events, self.session):
            self.leave_verdict()
            return
        correct = self.view.is_correct(events)
        if correct is not None:
            self.host.signals.verdict(correct)
        self.ending = self.game_end()
        self.phase = Phase.VERDICT
        self.expect()

    def leave_verdict(self) -> None:
        nxt = self.after_verdict
        if not self.session.in_progress():
            self.finish()
        elif nxt == Phase.EFFECT:
            choices = [(Text(N_("No effect")), "none")] + self.view.follow_ups(self.session)
            if len(choices) == 1:
                self.set_phase(Phase.WATCH)
            else:
                self.effects = Choice(choices)
                self.phase = Phase.EFFECT
        elif nxt == Phase.DEAL:
            self.setup_codes = None
            self.set_phase(Phase.DEAL)
        elif nxt == Phase.RESET:
            self.phase = Phase.RESET
        else:
            self.set_phase(Phase.WATCH)

    def after_verdict_words(self) -> Msg:
        """What OK does on a verdict, as it really happens: the score, the same player going on (a
        refused card tried again, the first of two actions) or the next player's turn. Who plays next
        is the engine's word (the session's ``current_player``), never the screen's."""
        if self.ending:
            return N_("see the score")
        if self.after_verdict == Phase.EFFECT:
            return N_("choose the effect")
        if self.after_verdict == Phase.DEAL:
            return N_("deal a new grid")
        if self.after_verdict == Phase.RESET:
            return N_("put the cards away")
        judged = self.judged_player()
        now = self.session.current_player() if self.session is not None else None
        if not now:
            return N_("go on")
        if now == judged:
            refused = self.judged is not None and refusal(self.judged[1]) is not None
            return Text(N_("{player} tries again") if refused else N_("{player} goes on"), {"player": now})
        return Text(N_("{player}'s turn"), {"player": now})

    def pending_line(self) -> dict | None:
        """The proposed action as its log line: what the view describes and draws (it reads actions as
        the log holds them, the same for a proposal, a verdict and the history)."""
        return None if self.pending is None else self.session.line(self.pending)

    def verdict(self, lang: str):
        """The view's verdict on the judged action, in ``lang``."""
        assert self.judged is not None, "a verdict with nothing judged"
        line, events, before = self.judged
        return self.view.verdict(line, events, before, self.session, lang)

    def judged_player(self) -> str | None:
        """Whose action the verdict is about (the turn has already moved on to the next player)."""
        player = self.judged[0].get("player") if self.judged else None
        return player if isinstance(player, str) else None

    def game_end(self) -> Text | None:
        """Once the game is over: who won, in words (said before anything else on the verdict)."""
        if self.session is None or self.session.in_progress():
            return None
        outcome = self.session.outcome()
        won = outcome.winners
        if len(won) == 1:
            return Text(N_("{player} wins the game!"), {"player": won[0]})
        if won:
            return Text(N_("{players} share the win!"), {"players": " & ".join(won)})
        if outcome.status == "lost":
            return Text(N_("The game is over: the team has lost."))
        return Text(N_("The game is over."))

    # -- the camera ------------------------------------------------------------------------------
    def reading_in(self, reading, lang: str) -> None:
        """A new reading of the camera feed (``lost``: the camera is gone; else detections and proposals)."""
        host, stack = self.host, self.host.stack
        if reading.lost:
            if self.camera_fault is None:
                self.camera_fault = stack.push("fault:camera", reading.lost)
                host.signals.fault(True)
            return
        if self.camera_fault is not None:
            if stack.top is self.camera_fault:
                stack.pop()
            self.camera_fault = None
            host.signals.fault(False)
        self.reading = reading
        for p in reading.proposals:
            self.proposal(p, lang)
        if self.phase == Phase.DEAL:
            self.setup_codes, self.setup_note = self.view.read_setup(reading.detections, self.new_game, self.session)

    def proposal(self, p: Proposal, lang: str) -> None:
        stack = self.host.stack
        match p:
            case UnknownSticker():
                if p.payload not in self.ignored:
                    self.ignored.add(p.payload)
                    stack.push("fault:unknown-card", p.payload, on_ok=stack.pop)
                return
            case ForeignCode():
                if p.text not in self.ignored:
                    self.ignored.add(p.text)
                    stack.push("fault:foreign-code", p.text, on_ok=stack.pop)
                return
            case TableDiffers():
                self.table_note = Text(N_("The table does not look as expected: {message}"),
                                       {"message": p.message.render(lang)})
                return
            case TableMatches():
                self.table_note = None
                self.rejected = self.misread = None
                self.misreads = 0
                return
        camera_ask = self.phase == Phase.ASK and self.asks[0][0].camera
        if (self.phase != Phase.WATCH and not camera_ask) or self.session is None:
            return
        action = self.view.action_for(p, self.session)
        if action is None or action == self.rejected:
            return
        self.rejected = None
        if action != self.misread:
            self.misread, self.misreads = None, 0
        _state, events = self.session.preview(action)
        reason = refusal(events)
        if reason is not None and self.view.judges_refusals:
            # the card lies where the rules forbid it: a Wrong verdict, and this reading is not
            # proposed again until the table changes
            self.asks = []
            self.rejected = action
            self.judged = (self.session.line(action), events, self.view.context(self.session))
            self.after_verdict = Phase.WATCH
            self.host.signals.verdict(False)
            self.ending = None
            self.phase = Phase.VERDICT
            return
        if reason is not None:
            self.refused_reason = reason
            self.phase = Phase.REFUSED
            return
        self.asks = []
        self.pending = action
        self.phase = Phase.PROPOSE
