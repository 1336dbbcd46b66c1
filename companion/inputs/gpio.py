"""The arcade buttons, the two verdict LEDs and the buzzer, through gpiozero.

Pins come from the config (``[buttons]``, ``[outputs]``, BCM numbers). Debouncing is done here, in
software, on every edge (``bounce_ms``): contacts of cheap arcade buttons chatter for a few
milliseconds, and the same code then behaves the same on every pin library (lgpio on the Pi, the
mock pins of the tests). NEXT, UNDO and OK act on the press, so the screen answers at once; MENU
acts on the release (a short press is BACK) or after ``hold_menu_seconds`` (MENU: the menu).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol

from companion.config import ButtonPins, OutputPins
from companion.inputs.commands import BACK, MENU, NEXT, OK, UNDO, Command, CommandStream

log = logging.getLogger(__name__)
RECHECK_THREAD = "debounce-recheck"     # the timer that reads a contact again when its bounce window ends


class Clock(Protocol):
    """What the debouncer reads the time from and asks to call it back when a bounce window ends."""

    def now(self) -> float: ...
    def call_later(self, delay: float, fn: Callable[[], None]) -> Callable[[], None]: ...   # returns: cancel it


class RealClock:
    """The kiosk's: the monotonic clock, and a daemon timer thread for each call back."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Callable[[], None]:
        timer = threading.Timer(delay, fn)
        timer.name = RECHECK_THREAD
        timer.daemon = True
        timer.start()
        return timer.cancel


class ManualClock:
    """A clock moved by hand (the tests, ``bench fuzz``): chatter is timed exactly, never slept; the call
    backs fall due as ``advance`` passes their time, in the thread that advances it."""

    def __init__(self, start: float = 1000.0):
        self._now = start
        self._due: list[list] = []           # [when, fn, cancelled]
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, fn: Callable[[], None]) -> Callable[[], None]:
        entry = [self._now + delay, fn, False]
        with self._lock:
            self._due.append(entry)
        return lambda: entry.__setitem__(2, True)

    def advance(self, seconds: float) -> None:
        end = self._now + seconds
        while True:
            with self._lock:
                due = sorted((e for e in self._due if e[0] <= end), key=lambda e: e[0])
                if not due:
                    break
                entry = due[0]
                self._due.remove(entry)
            self._now = max(self._now, entry[0])
            if not entry[2]:
                entry[1]()
        self._now = end


class _DebouncedButton:
    """One button: edges closer than ``bounce`` seconds to the last accepted edge are chatter. The
    level is read again when that window ends, so a tap shorter than the window still ends (its
    release is not lost, and the next press counts)."""

    def __init__(self, button, bounce: float, on_press, on_release=None, on_hold=None, clock: Clock | None = None):
        self.button = button
        self.bounce = bounce
        self.clock = clock or RealClock()
        self._last_edge = -1e9
        self._pressed = False
        self._lock = threading.Lock()
        self._recheck: Callable[[], None] | None = None      # cancels the pending re-read
        self._on_press, self._on_release = on_press, on_release
        button.when_pressed = self._edge_pressed
        button.when_released = self._edge_released
        if on_hold is not None:
            button.when_held = lambda: self._pressed and on_hold()

    def _accept(self, pressed: bool, settled: bool = False) -> bool:
        now = self.clock.now()
        with self._lock:
            if now - self._last_edge < self.bounce:
                if self._recheck is None:
                    self._recheck = self.clock.call_later(self._last_edge + self.bounce - now + 0.002, self._settled)
                return False
            # A press edge after the window is a new press even when the release before it fell inside
            # the window and was not settled yet (a quick tap): gpiozero reports a press only after a release.
            if pressed == self._pressed and (settled or not pressed):
                return False
            self._pressed = pressed
            self._last_edge = now
            return True

    def _settled(self):
        """The bounce window after an edge has ended: the level the contact settled on counts."""
        with self._lock:
            self._recheck = None
        try:
            pressed = self.button.is_pressed
        except Exception:  # the button was closed meanwhile: nothing to settle
            return
        if self._accept(pressed, settled=True):
            if pressed:
                self._on_press()
            elif self._on_release is not None:
                self._on_release()

    def _edge_pressed(self):
        if self._accept(True):
            self._on_press()

    def _edge_released(self):
        if self._accept(False) and self._on_release is not None:
            self._on_release()

    def close(self) -> None:
        with self._lock:
            recheck, self._recheck = self._recheck, None
        if recheck is not None:
            recheck()


class GpioButtons:
    """NEXT, UNDO, OK, MENU as Commands on ``stream``. Raises gpiozero's errors when there are no
    GPIO pins (a laptop); :func:`open_buttons` turns that into keyboard-only with a log line."""

    def __init__(self, pins: ButtonPins, stream: CommandStream, clock: Clock | None = None):
        from gpiozero import Button

        self.stream = stream
        clock = clock or RealClock()
        bounce = pins.bounce_ms / 1000
        self._devices = []
        self._buttons = []
        for kind, pin in ((NEXT, pins.next), (UNDO, pins.undo), (OK, pins.ok)):
            b = Button(pin, pull_up=True)
            self._devices.append(b)
            self._buttons.append(_DebouncedButton(b, bounce, lambda k=kind: self._post(k), clock=clock))
        menu = Button(pins.menu, pull_up=True, hold_time=pins.hold_menu_seconds)
        self._devices.append(menu)
        self._menu_held = False
        self._buttons.append(_DebouncedButton(menu, bounce, self._menu_down, self._menu_up, self._menu_hold, clock))

    def _post(self, kind: str) -> None:
        self.stream.post(Command(kind, source="gpio"))

    def _menu_down(self):
        self._menu_held = False

    def _menu_hold(self):
        self._menu_held = True
        self._post(MENU)

    def _menu_up(self):
        if not self._menu_held:
            self._post(BACK)

    def close(self) -> None:
        for b in self._buttons:
            b.close()
        for d in self._devices:
            d.close()


class Signals:
    """Green LED for a correct card, red LED and two beeps for a wrong one, red blinking for a fault."""

    def __init__(self, pins: OutputPins):
        from gpiozero import LED, Buzzer

        self.green = LED(pins.led_green)
        self.red = LED(pins.led_red)
        self.buzzer = Buzzer(pins.buzzer)

    def verdict(self, correct: bool) -> None:
        self.red.off()
        self.green.off()
        if correct:
            self.green.blink(on_time=1.5, off_time=0, n=1)
        else:
            self.red.blink(on_time=1.5, off_time=0, n=1)
            self.buzzer.beep(on_time=0.15, off_time=0.1, n=2)

    def fault(self, on: bool) -> None:
        if on:
            self.red.blink(on_time=0.5, off_time=0.5)
        else:
            self.red.off()

    def close(self) -> None:
        for d in (self.green, self.red, self.buzzer):
            d.close()


class NoSignals:
    """Where there are no LEDs (the demo, a laptop)."""

    def verdict(self, correct: bool) -> None:
        pass

    def fault(self, on: bool) -> None:
        pass

    def close(self) -> None:
        pass


def open_buttons(pins: ButtonPins, outputs: OutputPins, stream: CommandStream):
    """The buttons and signals if this machine has GPIO pins, else (None, NoSignals()) and one line
    on stderr (gpiozero's own warnings, one per pin library it tried, with Python source lines, are
    kept for the log)."""
    import warnings
    with warnings.catch_warnings(record=True) as tried:
        warnings.simplefilter("always")
        try:
            buttons = GpioButtons(pins, stream)
        except Exception as e:  # gpiozero raises several kinds when no pin library is usable
            for w in tried:
                log.info("gpiozero: %s", w.message)
            log.warning("no GPIO buttons (%s: %s); the keyboard and touch screen stand in", type(e).__name__, e)
            from companion.paths import command
            print(f"companion kiosk: no GPIO pins here ({type(e).__name__}: {e}): the keyboard and touch screen "
                  f"stand in for the buttons; {command()} doctor says what is missing", file=sys.stderr)
            return None, NoSignals()
        signals: Signals | NoSignals
        try:
            signals = Signals(outputs)
        except Exception as e:
            log.warning("no verdict LEDs or buzzer (%s: %s)", type(e).__name__, e)
            signals = NoSignals()
    for w in tried:
        log.info("gpiozero: %s", w.message)
    return buttons, signals
