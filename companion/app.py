"""``companion kiosk``: the kiosk, wired.

camera -> tracker (``ui/table_feed.py``, off the screen's thread) -> the game's view turns a reading
into a proposed action -> the engine judges it -> the players confirm with OK (or say "misread" with
UNDO) -> the store writes it to disk -> only then the screen shows it as done (``play/session.py``).
At start the store's game in progress is folded back, so after a power cut the kiosk shows the same
game at the same turn.

``--demo``: the virtual table stands in for the camera (simulated players deal and place cards, or
lay them on the player boards, in each of the five games in turn; the tracker reads the rendered
frames) and the keyboard for the buttons. ``--autoplay N --screenshots DIR``: the simulated players
also press the buttons; N turns are played, a PNG of every screen shown is written to DIR, and the
command exits 0.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from companion.errors import BadInput
from companion.words import counted

log = logging.getLogger("companion.kiosk")
MAX_FRAMES_PER_TURN = 3000      # autoplay gives up (exit 1) if a turn never completes
TRIM_EVERY_S = 60               # freed heap handed back to the system (companion/heap.py)
MOUSE_TOUCH_ID = -1             # SDL_MOUSE_TOUCHID: a finger event SDL made from the mouse
FEED_STALE_S = 15               # a camera silent this long is hung: the watchdog stops being pinged


def add_arguments(parser) -> None:
    parser.add_argument("--demo", action="store_true",
                        help="no camera or buttons: a virtual table with simulated players, the keyboard as buttons")
    parser.add_argument("--windowed", action="store_true", help="a window instead of full screen")
    parser.add_argument("--autoplay", type=int, metavar="N",
                        help="play N turns of the demo games on its own, then exit 0 (implies --demo)")
    parser.add_argument("--screenshots", metavar="DIR", help="with --autoplay: a PNG of every screen shown, into DIR")
    parser.add_argument("--size", default=None, metavar="WxH",
                        help="window or screenshot size, e.g. 800x480 (default: 800x480 windowed, the display's "
                             "size full screen)")
    parser.add_argument("--seed", type=int, default=1, help="demo: the seed of the simulated players and the deck")
    parser.add_argument("--lang", choices=("en", "es"), help="language (default: the settings file's)")


def _size(text: str | None):
    if text is None:
        return None
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise BadInput("--size", f"{text!r} is not WIDTHxHEIGHT, e.g. 800x480") from None
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise BadInput("--size", f"{w}x{h} is outside 320x240 .. 7680x4320")
    return w, h


def run(args) -> int:
    from companion.config import load_config, save_config

    if args.screenshots and args.autoplay is None:
        raise BadInput("--screenshots", "only with --autoplay N")
    if args.autoplay is not None and args.autoplay < 1:
        raise BadInput("--autoplay", "the number of turns must be 1 or more")
    if args.seed < 0:
        raise BadInput("--seed", f"{args.seed} is not a seed: use a whole number from 0 up")
    demo = args.demo or args.autoplay is not None
    size = _size(args.size)
    config = load_config()
    if args.lang:
        config.kiosk.language = args.lang
    shots = Path(args.screenshots) if args.screenshots else None
    if shots is not None:
        from companion.errors import output_folder
        shots = output_folder(shots)
    if args.autoplay is not None and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")   # autoplay needs no display
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    _log_to_data_dir()
    kiosk = build(config, demo=demo, windowed=args.windowed or args.autoplay is not None, size=size,
                  autoplay=args.autoplay is not None, seed=args.seed,
                  save_settings=None if demo else save_config)
    if shots is not None:
        counter = [0]

        def save_png(key, surface):
            import pygame
            counter[0] += 1
            pygame.image.save(surface, str(shots / f"{counter[0]:04d}-{key.replace(':', '-')}.png"))
        kiosk.on_screen_change = save_png
    return main_loop(kiosk, turns=args.autoplay)


def _runtime_dir() -> None:
    """SDL looks for the session's XDG_RUNTIME_DIR and prints an error line where there is none (a
    terminal without a desktop session, a service): one of the kiosk's own, private as the standard
    asks, keeps that line off the user's screen."""
    if os.environ.get("XDG_RUNTIME_DIR"):
        return
    from companion.paths import data_dir
    run = data_dir() / "run"
    try:
        run.mkdir(mode=0o700, parents=True, exist_ok=True)
        run.chmod(0o700)
    except OSError:
        return              # SDL says its line; the kiosk works without it
    os.environ["XDG_RUNTIME_DIR"] = str(run)


def build(config, *, demo: bool, windowed: bool, size=None, autoplay: bool = False, seed: int = 1,
          save_settings=None, store=None, table=None, threaded: bool | None = None):
    """The kiosk with its display, store, camera feed, buttons and (demo) simulated players."""
    import pygame

    from companion.inputs.commands import CommandStream
    from companion.inputs.gpio import NoSignals, open_buttons
    from companion.play.session import GameSession
    from companion.ui.games import view_for_setup
    from companion.ui.kiosk import Kiosk
    from companion.ui.table_feed import TableFeed

    _runtime_dir()
    pygame.display.init()
    pygame.font.init()
    if not autoplay and not os.environ.get("SDL_VIDEODRIVER") and pygame.display.get_driver() in ("dummy", "offscreen"):
        # SDL found no screen and draws off screen: the kiosk would run where nobody sees it, for ever
        from companion.paths import command
        me = command()
        raise BadInput("display", f"no screen to show the kiosk on (SDL fell back to its "
                                  f"'{pygame.display.get_driver()}' driver). Without a screen, try: {me} kiosk "
                                  f"--autoplay 40 --screenshots shots/ ; {me} doctor says what is missing")
    full = config.kiosk.fullscreen and not windowed
    if full:
        surface = pygame.display.set_mode(size or (0, 0), pygame.FULLSCREEN)
        pygame.mouse.set_visible(False)
    else:
        surface = pygame.display.set_mode(size or (800, 480))
    pygame.display.set_caption("Table Companion" + (" (demo)" if demo else ""))
    stream = CommandStream()
    if store is None:
        store = open_store(demo)
    threaded = (not autoplay) if threaded is None else threaded
    players = None
    if demo:
        from companion.sim.virtual_table import VirtualTable
        from companion.ui.demo import DemoCamera, DemoTable
        # a 5 x 5 grid with its gap rows needs 1080 rows; grey frames with their small pictures, as the Pi's
        dtable = DemoTable(VirtualTable(1920, 1080, seed, camera_frames=True))
        table = table or TableFeed(DemoCamera(dtable), make_tracker, threaded=threaded, on_frame=dtable.apply)
        buttons, signals = None, NoSignals()
    else:
        from companion.camera import open_source
        if table is None:
            try:
                source = open_source(config.camera.source, width=config.camera.width, height=config.camera.height,
                                     focus=config.camera.focus, mains_hz=config.camera.mains_hz)
            except BadInput:
                raise
            table = TableFeed(source, make_tracker, threaded=threaded)
        buttons, signals = open_buttons(config.buttons, config.outputs, stream)
    kiosk = Kiosk(surface, config, stream, store=store, table=table, signals=signals,
                  save_settings=save_settings)
    kiosk.buttons = buttons
    if not demo:    # the café's dashboard, when the settings name a broker (docs/cafe.md)
        from companion.cafe.publisher import for_kiosk
        kiosk.cafe = for_kiosk(config, store, table)
    if demo:
        from companion.ui.demo import DemoPlayers
        players = DemoPlayers(kiosk, dtable, seed=seed, autoplay=autoplay, tour=autoplay)
        kiosk.demo = players
    kiosk.stack.push("attract")
    session = GameSession.resume(store, view_for_setup) if not demo else None
    if session is not None:
        kiosk.session = session
        kiosk.stack.push("table")
    return kiosk


def make_tracker(kind: str):
    """A sticker tracker for a table of this kind (row, grid, rows, board); it knows cards by their faces
    too when a deck has been enrolled (companion deck enrol, docs/faces.md)."""
    from companion.vision.faces_file import enrolled_index
    from companion.vision.tracker import Tracker
    index = enrolled_index()
    if index is None:
        return Tracker(kind)
    from companion.vision.faces_tracking import FaceReader
    return Tracker(kind, faces=FaceReader(index))


def open_store(demo: bool):
    """The game log. The demo's games are kept apart from the real ones, in a fresh file of each run
    (two demos, or a demo and ``bench kiosk``, may run at once) that is removed with the log."""
    from companion.paths import data_dir
    from companion.store.log import GameLog
    if demo:
        import shutil
        import tempfile
        import weakref
        folder = tempfile.mkdtemp(prefix="companion-demo-")
        log = GameLog(Path(folder) / "demo-games.sqlite")
        # when the log is dropped or the process ends (a demo's games are not kept)
        weakref.finalize(log, shutil.rmtree, folder, ignore_errors=True)
        return log
    return GameLog(data_dir() / "games.sqlite")


def main_loop(kiosk, turns: int | None = None) -> int:
    """Events in, one frame out, 30 times a second (as fast as it goes in autoplay)."""
    import pygame

    from companion import heap, service

    service.ready()
    restore_sigterm = service.on_sigterm(lambda: setattr(kiosk, "running", False))
    trimmed = time.monotonic()
    clock = pygame.time.Clock()
    demo = kiosk.demo
    frames_at_turn, last_turns = 0, 0
    code = 0
    from companion.progress import bar
    shown = bar(turns, "autoplay", unit="turn") if turns is not None else None
    try:
        while kiosk.running:
            for event in pygame.event.get():
                handle_event(kiosk, event)
            if demo is not None:
                try:
                    demo.tick(kiosk.clock())
                except Exception:
                    import traceback
                    kiosk.show_bug(traceback.format_exc())
            kiosk.step()
            pygame.display.flip()
            if healthy(kiosk):
                service.watchdog()
            if time.monotonic() - trimmed > TRIM_EVERY_S:
                heap.trim()
                trimmed = time.monotonic()
            if turns is None:
                clock.tick(30)
                continue
            if demo.turns != last_turns:
                if shown is not None:
                    shown.update(min(demo.turns, turns) - min(last_turns, turns))
                last_turns, frames_at_turn = demo.turns, 0
            frames_at_turn += 1
            top = kiosk.stack.top
            if demo.turns >= turns and top is not None and top.name == "table" and top.phase == "watch":
                break
            if frames_at_turn > MAX_FRAMES_PER_TURN:
                print(f"companion kiosk: autoplay stuck on screen {kiosk.screen_key()} after {demo.turns} turns; "
                      f"see {kiosk.error_log()}", file=sys.stderr)
                code = 1
                break
    finally:
        if shown is not None:
            shown.close()
        restore_sigterm()
        service.stopping()
        close = getattr(kiosk.table, "close", None)
        if close:
            close()
        if getattr(kiosk, "buttons", None):
            kiosk.buttons.close()
        kiosk.signals.close()
        if getattr(kiosk, "cafe", None):
            kiosk.cafe.stop()
        from companion.ui.canvas import font
        font.cache_clear()      # its fonts die with pygame.quit(); one used after would crash the process
        pygame.quit()
    if turns is not None and code == 0 and demo.turns < turns:
        print(f"companion kiosk: autoplay stopped after {demo.turns} of {turns} turns (the window was closed or "
              f"the process was asked to stop)", file=sys.stderr)
        return 1
    if turns is not None and code == 0:
        print(f"autoplay: {counted(demo.turns, 'turn')}, {counted(demo.games_done, 'game')} finished, "
              f"{counted(kiosk.frames, 'frame')}, {counted(len(kiosk.kinds_shown), 'different screen')}")
    return code


def handle_event(kiosk, event) -> None:
    """One SDL event. A tap on a touch screen comes as a finger event and again as a mouse click SDL
    makes from it (``touch`` set); a mouse may likewise come as a finger (SDL's mouse touch id, -1).
    Only the original counts, so one tap is one command."""
    import pygame

    from companion.inputs.keys import key_command

    if event.type == pygame.QUIT:
        kiosk.running = False
    elif event.type == pygame.KEYDOWN:
        top = kiosk.stack.top
        cmd = key_command(event, typing=bool(top and top.typing))
        if cmd:
            kiosk.stream.post(cmd)
    elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not getattr(event, "touch", False):
        kiosk.click(event.pos)
    elif event.type == pygame.FINGERDOWN and getattr(event, "touch_id", 0) != MOUSE_TOUCH_ID:
        w, h = kiosk.surface.get_size()
        kiosk.click((int(event.x * w), int(event.y * h)))


def healthy(kiosk) -> bool:
    """The loop runs (it calls this) and the camera answers: a capture that never returns freezes
    the picture, not the loop, so the feed's age counts too."""
    age = getattr(kiosk.table, "age", None)
    return age is None or age() < FEED_STALE_S


def _log_to_data_dir() -> None:
    from companion.paths import data_dir
    handler = logging.FileHandler(data_dir() / "kiosk.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
