"""One kiosk: the screen stack, the command stream, the language, the game session.

``step()`` is one frame: commands in, the top screen updated and drawn. It never lets an exception
out: a top-level guard logs the trace to the data directory and shows a fault screen instead (the
game itself is safe in the store). The record of the last frame (``last``) is what tests read.
"""

from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from companion.inputs.commands import MENU, QUIT, TEXT, Command, CommandStream
from companion.inputs.gpio import NoSignals
from companion.paths import data_dir
from companion.ui import screens  # noqa: F401  (registers every screen by name)
from companion.ui.canvas import Canvas
from companion.ui.screen import ScreenStack

if TYPE_CHECKING:
    from companion.play.session import GameSession

log = logging.getLogger(__name__)


class Kiosk:
    def __init__(self, surface: pygame.Surface, config, stream: CommandStream | None = None, *, store=None,
                 table=None, signals=None, demo=None, clock=time.monotonic, save_settings=None):
        self.surface = surface
        self.config = config
        self.lang = config.kiosk.language
        self.stream = stream or CommandStream()
        self.store = store                  # companion.store.log.GameLog (None: games are not stored)
        self.table = table                  # companion.app.TableFeed: camera + tracker
        self.signals = signals or NoSignals()
        self.demo = demo                    # companion.ui.demo.DemoPlayers when the table is simulated
        self.clock = clock
        self.save_settings = save_settings  # callable(config): write the settings file
        self.stack = ScreenStack(self)
        self.session: GameSession | None = None      # while a game is on
        self.buttons: Any = None            # the GPIO buttons (app.build), closed at the end
        self.cafe: Any = None               # the café publisher, when the settings name a broker
        self.running = True
        self.last: Canvas | None = None
        self.paint = True                   # False: frames are laid out and recorded, no pixel drawn (tests)
        self.last_input = clock()
        self.frames = 0
        self.shown: list[str] = []          # the screens shown, in order (name/phase; the last 100 to 200)
        self.kinds_shown: set[str] = set()  # every kind of screen shown since the start
        self.on_screen_change = None        # callable(key, surface): autoplay saves a PNG
        self.on_frame = None                # callable(): the service's watchdog tick
        self.unlocked = False               # the café PIN was entered in this visit to the menu
        self.text_faults: set[tuple] = set()  # texts drawn cut or under their floor, logged once each

    # -- the frame -----------------------------------------------------------------------------
    def step(self) -> bool:
        now = self.clock()
        for cmd in self.stream.drain():
            self._guard(self.dispatch, cmd)
        self._guard(self._update, now)
        self._guard(self._draw)
        self.frames += 1
        if self.on_frame:
            self.on_frame()
        return self.running

    def dispatch(self, cmd: Command) -> None:
        self.last_input = self.clock()
        if cmd.kind == QUIT:
            self.running = False
            return
        top = self.stack.top
        if top is None:
            return
        if cmd.kind == MENU and top.opens_menu:
            self.stack.push("menu")
            return
        if cmd.kind == TEXT and not top.typing:
            return
        top.handle(cmd)

    def _update(self, now: float) -> None:
        top = self.stack.top
        if top is None:
            return
        idle = now - self.last_input > self.config.kiosk.idle_minutes * 60
        if idle and top.name != "attract" and not self.game_in_progress():
            top = self.stack.reset("attract")
            self.last_input = now
        top.update(now)
        if top.name == "fault:camera" and len(self.stack.screens) > 1:
            # the table screen under it keeps reading the camera, and takes it away when pictures come
            self.stack.screens[-2].update(now)

    def _draw(self) -> None:
        top = self.stack.top
        if top is None:
            return
        canvas = Canvas(self.surface, self.lang, paint=self.paint)
        top.draw(canvas)
        self.last = canvas
        self.report_text_faults(canvas)
        key = self.screen_key()
        if not self.shown or self.shown[-1] != key:
            self.shown.append(key)
            self.kinds_shown.add(key)
            if len(self.shown) > 200:
                del self.shown[:100]
            if self.on_screen_change:
                self.on_screen_change(key, self.surface)

    def report_text_faults(self, canvas: Canvas) -> None:
        """A text drawn cut or under its floor is a fault of the kiosk's layout: logged once per text
        (the tests that play whole games fail on them: companion/ui/textcheck.py)."""
        for kind, d in canvas.faults():
            key = (kind, d.role, d.text)
            if key not in self.text_faults:
                if len(self.text_faults) > 1000:
                    self.text_faults.clear()
                self.text_faults.add(key)
                log.warning("text %s on %s: %s %r at %.0f px", kind, self.screen_key(), d.role, d.text,
                            d.px / canvas.u)

    def screen_key(self) -> str:
        top = self.stack.top
        if top is None:
            return "none"
        phase = getattr(top, "phase", "")
        return f"{top.name}-{phase}" if phase else top.name

    def _guard(self, fn, *args) -> None:
        try:
            fn(*args)
        except Exception:
            self.show_bug(traceback.format_exc())

    def show_bug(self, trace: str) -> None:
        """A bug reached the top: write the trace where the owner can find it, and show a calm
        screen (never the trace) that says the game is safe."""
        path = self.error_log()
        try:
            with path.open("a", encoding="utf-8") as fh:
                fh.write(time.strftime("%Y-%m-%d %H:%M:%S ") + trace + "\n")
        except OSError:
            pass
        log.error("kiosk fault (trace in %s):\n%s", path, trace)
        try:
            if self.stack.top is None or self.stack.top.name != "fault:bug":
                self.stack.push("fault:bug", path)
        except Exception:
            self.running = False

    @staticmethod
    def error_log() -> Path:
        return data_dir() / "kiosk-errors.log"

    # -- what screens ask for ------------------------------------------------------------------
    def game_in_progress(self) -> bool:
        return self.session is not None and self.session.in_progress()

    def set_language(self, lang: str) -> None:
        self.lang = lang
        self.config.kiosk.language = lang

    def click(self, pos) -> None:
        """A touch or mouse click: the command of the spot drawn there in the last frame."""
        if self.last is None:
            return
        cmd = self.last.command_at(pos)
        if cmd is not None:
            self.stream.post(cmd)

    def texts(self) -> list[str]:
        """What the last frame showed, as text (tests read the screen through this)."""
        return self.last.texts() if self.last else []

    def pin_required(self) -> bool:
        return bool(self.config.kiosk.cafe_pin) and not self.unlocked
