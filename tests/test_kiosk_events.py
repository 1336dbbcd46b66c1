"""The kiosk's main loop and the world outside it: ``systemctl stop`` (SIGTERM) runs the cleanup, and a
tap on a touch screen is one command though SDL reports it twice."""

import os
import signal
import types

import pygame
import pytest
from test_service import systemd  # noqa: F401  (the fake systemd's socket, a fixture)

from companion import app, service


class StandIn:
    """Just what main_loop touches of a kiosk; records the cleanup."""

    def __init__(self, surface, on_frame=None):
        self.surface = surface
        self.running, self.demo, self.frames = True, None, 0
        self.stack = types.SimpleNamespace(top=None)
        self.closed = []
        self.table = types.SimpleNamespace(close=lambda: self.closed.append("camera"))
        self.buttons = types.SimpleNamespace(close=lambda: self.closed.append("buttons"))
        self.signals = types.SimpleNamespace(close=lambda: self.closed.append("LEDs"))
        self.on_frame = on_frame
        self.clicks = []

    def step(self):
        self.frames += 1
        if self.on_frame:
            self.on_frame(self)
        assert self.frames < 300, "the loop never ended"
        return self.running

    def click(self, pos):
        self.clicks.append(pos)


@pytest.fixture
def surface(monkeypatch):
    monkeypatch.setattr(pygame, "quit", lambda: None)     # the fonts cached for the other tests stay valid
    pygame.display.init()
    return pygame.display.set_mode((80, 48))


def test_sigterm_ends_the_loop_and_the_cleanup_runs(systemd, surface, monkeypatch):  # noqa: F811
    path, fake = systemd
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    service.reset()
    before = signal.getsignal(signal.SIGTERM)

    def stop_on_the_third_frame(k):
        if k.frames == 3:
            os.kill(os.getpid(), signal.SIGTERM)     # what systemctl stop sends
    k = StandIn(surface, stop_on_the_third_frame)
    try:
        assert app.main_loop(k) == 0
    finally:
        service.reset()
    # the frame SIGTERM came in was the last: the handler ends the loop at once (SDL's own handler,
    # where it has one, would only post a QUIT event for the next frame)
    assert k.frames == 3 and not k.running
    assert k.closed == ["camera", "buttons", "LEDs"]
    assert [next(iter(m)) for m in fake.messages()][-1] == "STOPPING"
    assert signal.getsignal(signal.SIGTERM) == before       # the handler lives only as long as the loop


def test_sigterm_outside_the_main_thread_changes_nothing():
    import threading
    out = []
    t = threading.Thread(target=lambda: out.append(service.on_sigterm(lambda: None)))
    t.start()
    t.join()
    before = signal.getsignal(signal.SIGTERM)
    out[0]()
    assert signal.getsignal(signal.SIGTERM) == before


def test_one_tap_on_a_touch_screen_is_one_click(surface):
    k = StandIn(surface)
    pygame.event.clear()
    # a finger at the middle, then the mouse click SDL makes of the same tap
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=0.5, y=0.5, touch_id=3, finger_id=0, dx=0, dy=0,
                                         pressure=1.0))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(40, 24), button=1, touch=True))
    # a real mouse, and the finger SDL may make of it (its mouse touch id)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 10), button=1, touch=False))
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=0.125, y=0.2, touch_id=app.MOUSE_TOUCH_ID,
                                         finger_id=0, dx=0, dy=0, pressure=1.0))
    for event in pygame.event.get((pygame.FINGERDOWN, pygame.MOUSEBUTTONDOWN)):
        app.handle_event(k, event)
    assert k.clicks == [(40, 24), (10, 10)]
