"""The arcade buttons on gpiozero's mock pins: a press, a bounce and a hold each become the right command."""

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.config import ButtonPins, OutputPins
from companion.inputs.commands import BACK, MENU, NEXT, OK, UNDO, CommandStream
from companion.inputs.gpio import GpioButtons, ManualClock, Signals, open_buttons


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def kinds(stream):
    return [c.kind for c in stream.drain()]


def press(pin):
    pin.drive_low()   # buttons pull up: pressed = low


def release(pin):
    pin.drive_high()


def _wired(factory, name=None, **settings):
    """Buttons on the mock pins with these settings and a clock moved by hand (the debouncer's: no test
    sleeps through a bounce window), their stream, the clock, and the pin of button ``name``."""
    pins = ButtonPins(**settings)
    stream = CommandStream()
    clock = ManualClock()
    buttons = GpioButtons(pins, stream, clock)
    return buttons, stream, clock, factory.pin(getattr(pins, name)) if name else pins


def test_each_button_press_is_its_command(factory):
    buttons, stream, clock, pins = _wired(factory, bounce_ms=5)
    for number in (pins.next, pins.undo, pins.ok):
        press(factory.pin(number))
        clock.advance(0.01)
        release(factory.pin(number))
        clock.advance(0.01)
    commands = stream.drain()
    assert [c.kind for c in commands] == [NEXT, UNDO, OK]
    assert [c.source for c in commands] == ["gpio"] * 3
    buttons.close()


def test_a_bouncing_contact_is_one_press(factory):
    buttons, stream, clock, ok = _wired(factory, "ok", bounce_ms=40)
    for _ in range(5):          # chatter within a few microseconds
        press(ok)
        release(ok)
    press(ok)
    assert kinds(stream) == [OK]
    clock.advance(0.06)
    release(ok)                 # the real release, after the bounce window
    clock.advance(0.06)
    press(ok)                   # a second, real press
    assert kinds(stream) == [OK]
    buttons.close()


def test_a_tap_shorter_than_the_bounce_window_does_not_swallow_the_next_press(factory):
    buttons, stream, clock, nxt = _wired(factory, "next", bounce_ms=40)
    press(nxt)
    release(nxt)                # a quick tap: its release falls inside the bounce window
    clock.advance(0.1)          # the window ends; the contact is read again: released
    press(nxt)                  # the next press counts
    assert kinds(stream) == [NEXT, NEXT]
    clock.advance(0.06)
    release(nxt)
    buttons.close()


def test_a_quick_tap_of_menu_is_back_once_the_bounce_window_ends(factory):
    buttons, stream, clock, menu = _wired(factory, "menu", bounce_ms=40, hold_menu_seconds=1)
    press(menu)
    release(menu)
    assert kinds(stream) == []  # the release fell inside the window: read again when it ends
    clock.advance(0.06)
    assert kinds(stream) == [BACK]
    press(menu)                 # a second tap, after the window: BACK again
    clock.advance(0.06)
    release(menu)
    clock.advance(0.06)
    assert kinds(stream) == [BACK]
    buttons.close()


def test_a_closed_button_is_not_read_again():
    clock = ManualClock()
    read = []
    clock.call_later(0.5, lambda: read.append(1))()      # cancelled at once
    clock.call_later(0.5, lambda: read.append(2))
    clock.advance(0.4)
    assert read == []
    clock.advance(0.2)
    assert read == [2] and clock.now() == pytest.approx(1000.6)


def _until(pred, seconds=5.0):
    """Wait for what another thread does (gpiozero's hold and blink threads), never a fixed time."""
    deadline = time.monotonic() + seconds
    while not pred() and time.monotonic() < deadline:
        time.sleep(0.005)
    return pred()


def test_menu_short_press_is_back(factory):
    # the hold time is far longer than the press: a loaded machine pausing the test cannot make it a hold
    buttons, stream, clock, menu = _wired(factory, "menu", bounce_ms=5, hold_menu_seconds=10)
    press(menu)
    clock.advance(0.02)
    release(menu)
    assert kinds(stream) == [BACK]
    buttons.close()


def test_menu_hold_is_menu_and_its_release_adds_nothing(factory):
    buttons, stream, clock, menu = _wired(factory, "menu", bounce_ms=5, hold_menu_seconds=0.1)
    clock.advance(1)
    press(menu)
    got = []
    assert _until(lambda: got.extend(kinds(stream)) or got)
    assert got == [MENU]
    release(menu)               # letting go after a hold adds nothing
    assert kinds(stream) == []
    buttons.close()


def test_verdict_lights_and_buzzer(factory):
    outputs = OutputPins()
    signals = Signals(outputs)
    signals.verdict(True)       # the LEDs blink in gpiozero's own thread
    assert _until(lambda: signals.green.is_lit and not signals.red.is_lit)
    signals.verdict(False)
    assert _until(lambda: signals.red.is_lit and not signals.green.is_lit)
    assert factory.pin(outputs.buzzer).state in (0, 1)
    signals.close()


def test_no_gpio_means_keyboard_only(monkeypatch):
    import gpiozero

    def broken(*a, **k):
        raise gpiozero.BadPinFactory("no pins here")
    monkeypatch.setattr(gpiozero, "Button", broken)
    buttons, signals = open_buttons(ButtonPins(), OutputPins(), CommandStream())
    assert buttons is None
    signals.verdict(True)       # does nothing, does not fail


def test_no_pins_is_one_line_not_gpiozeros_warnings(tmp_path):
    """On a laptop gpiozero warns once per pin library it tries, with Python source lines: the kiosk
    says it in one line instead."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    code = ("import logging; logging.getLogger().addHandler(logging.NullHandler()); "    # the kiosk logs to a file
            "from companion.config import Config; from companion.inputs.commands import CommandStream; "
            "from companion.inputs.gpio import open_buttons; c = Config(); "
            "print(open_buttons(c.buttons, c.outputs, CommandStream())[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path)
    if out.stdout.strip() != "None":
        import pytest
        pytest.skip("this machine has GPIO pins")
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("companion kiosk: no GPIO pins here") and "keyboard" in lines[0]
    assert "PinFactoryFallback" not in out.stderr and "warnings.warn" not in out.stderr
