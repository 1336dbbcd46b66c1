"""Every kiosk screenshot in docs/screens/, in English and Spanish, at 800x480 and 1920x1080:

    .venv/bin/python tools/screens.py             # docs/screens/<name>-<W>x<H>.png, docs/screens/es/<same name>
    .venv/bin/python tools/screens.py OUT_DIR     # somewhere else, to compare before replacing
    .venv/bin/python tools/screens.py OUT_DIR 800x480     # one size only
    .venv/bin/python tools/screens.py --game GAME [OUT_DIR]   # one game's only (its id in the registry)
    .venv/bin/python tools/screens.py --check [GAME ...]  # no pictures: every frame of whole games checked

Every game of the registry is photographed by its own script, the function its spec names as
``GameSpec.screenshots`` (kept beside its views: ``timeline.py: screenshots`` and so on), handed a
``Studio``: the demo's kiosk (the real tracker reading the virtual table) for a row or grid game, driven
by the script (it lays the cards and presses the buttons, reaching each screen by the shortest way;
the autoplay, which wanders until it has shown every screen, is tested on its own in
tests/test_demo_games.py), or a kiosk with the fake board camera of tests/board_kiosk.py, and seeded
robot games, for a board game. Each screen is driven in English and drawn again in Spanish (the game
is the same whatever the words); a seeded shuffle picks the cards, so a run gives the same pictures
until the kiosk changes. The kiosk's own screens (attract, picker, players, faults, menu, history,
settings) are shown on the way by the first game's script. The café dashboard's pictures come from the
café browser tests and are left alone. Every text drawn cut short is listed at the end. A few minutes;
no display needed.

It prints the smallest text of every screen, in reference pixels (800x480; the canvas records the size
of every text it draws, with its role): what a player must read to play (the roles of
companion.ui.canvas.PLAY_ROLES) is at least READ_TEXT (24), and nothing is under MIN_TEXT (16).
tests/test_ui_type_sizes.py enforces that rule on every screen here, at both sizes.

``--check`` looks at every frame instead of one of each kind: the demo's simulated players play each
game of the registry to its end (the tour of the fault screens, the menu and the history included),
and every frame is drawn again in both languages at both sizes (companion/ui/textcheck.py); it prints,
per game, language and size, the frames drawn and the texts cut, under 24 px in a must-read role or
under 16 px, then each of them. tests/test_demo_games.py makes the same check on its games.
"""

from __future__ import annotations

import logging
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pygame  # noqa: E402
from board_kiosk import Detection, choose, detection, make_kiosk, press, start_game  # noqa: E402

from companion.inputs.commands import NEXT, OK, UNDO  # noqa: E402
from companion.ui.canvas import MIN_TEXT, READ_TEXT, must_read, size_faults  # noqa: E402
from companion.ui.textcheck import FrameCheck  # noqa: E402

SIZES = ((800, 480), (1920, 1080))
LANGS = ("en", "es")
SEED = 1


class Shots:
    """Saves what a kiosk shows under a name, per language, and notes every text drawn cut."""

    def __init__(self, base: Path, size):
        self.base, self.size = base, size
        self.cut: list[str] = []
        self.smallest: dict[str, tuple[float, float]] = {}   # "<lang>/<name>": (to play, everything)
        self.faults: dict[str, list[str]] = {}                # "<lang>/<name>": texts under their size
        self.drawn: dict[str, list] = {}                      # "<lang>/<name>": what the canvas drew

    def path(self, name: str, lang: str) -> Path:
        folder = self.base if lang == "en" else self.base / lang
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{name}-{self.size[0]}x{self.size[1]}.png"

    def save(self, k, name: str) -> None:
        """The frame just drawn, in the kiosk's language."""
        pygame.image.save(k.surface, str(self.path(name, k.lang)))
        c = k.last
        key = f"{k.lang}/{name}"
        play = [d.px / c.u for d in c.drawn if must_read(d.role)]
        self.smallest[key] = (min(play, default=0.0), min((d.px / c.u for d in c.drawn), default=0.0))
        self.faults[key] = size_faults(c.drawn, c.u)
        self.drawn[key] = list(c.drawn)
        self.cut += [f"{k.lang}/{name}-{self.size[0]}x{self.size[1]}: {d.role} {d.text!r}"
                     for d in k.last.drawn if d.cut]

    def take(self, k, name: str) -> None:
        """The screen now, drawn in each language in turn (the game is the same whatever the words)."""
        own = k.lang
        for lang in LANGS:
            k.lang = lang
            k._draw()
            self.save(k, name)
        k.lang = own
        k._draw()


KIOSK_SHOTS = ("attract", "picker", "players", "menu", "history", "settings", "fault-camera", "fault-unknown-card",
               "fault-foreign-code")


def kiosk_shot_name(kiosk) -> str | None:
    """The name of a screen the kiosk shows whatever the game (the attract screen, the picker, the players'
    form, the menu, the history, the settings, a fault), or None."""
    top = kiosk.stack.top
    if top is None:
        return None
    if top.name in KIOSK_SHOTS:
        return top.name
    if top.name.startswith("fault:") and top.name != "fault:bug":
        return top.name.replace(":", "-")
    return None


class RowTable:
    """A row or grid game's kiosk as the demo builds it (the virtual table read by the real tracker, every
    frame), driven by a game's screenshot script instead of the autoplay's dice: each screen is reached by
    the shortest way there. The script lays the cards on the virtual table and presses the buttons, as
    the demo's players do; the kiosk learns what happened only from the camera. Each screen is saved the
    first time ``name_of(kiosk)`` (the game's) or :func:`kiosk_shot_name` names it."""

    def __init__(self, studio: Studio, name_of, deck: str = "DEMO"):
        from companion.app import build
        from companion.cards.decks import get_deck
        from companion.config import Config

        shots = studio.shots
        self.k = build(Config(), demo=True, windowed=True, size=shots.size, autoplay=True, seed=SEED, threaded=False)
        self.cards = {c.code: c for c in get_deck(deck).cards.values() if c.code and c.year is not None}
        self.pile = sorted(self.cards)
        random.Random(SEED).shuffle(self.pile)
        self.label = f"{shots.size[0]}x{shots.size[1]}"

        def save(_key, _surface) -> None:
            if self.k.stack.top is None:
                return
            name = name_of(self.k) or (kiosk_shot_name(self.k) if studio.own_screens else None)
            if name is not None and name not in studio.saved:
                studio.saved.add(name)
                shots.take(self.k, name)

        self.k.on_screen_change = save
        self.k.step()

    @property
    def top(self):
        return self.k.stack.top

    def until(self, what: str, done, frames: int = 90) -> None:
        """Frames until ``done()``; a kiosk that never gets there stops the run (it lost its way)."""
        for _ in range(frames):
            if done():
                return
            self.k.step()
            if self.top is not None and self.top.name == "fault:bug":
                raise SystemExit(f"the kiosk hit a bug ({self.label}): see {self.k.error_log()}")
        if not done():
            raise SystemExit(f"{what} never came ({self.label}); the kiosk shows {self.k.screen_key()}: "
                             f"{self.k.texts()[:8]}")

    def press(self, kind: str, index: int | None = None) -> None:
        from companion.inputs.commands import Command
        self.k.stream.post(Command(kind, index=index))
        self.k.step()

    def lay(self, layout) -> None:
        """What lies on the virtual table from the next frame on."""
        self.k.demo.table.show(layout)

    def year(self, code: str) -> int:
        return self.cards[code].year

    def take(self, fits) -> str:
        """The first card of the shuffled pile that ``fits(year)``."""
        code = next(c for c in self.pile if fits(self.year(c)))
        self.pile.remove(code)
        return code

    def start(self, game: str, players: int | None = None, options: dict | None = None) -> None:
        """Attract -> picker -> the players' form (``players`` of them and ``options``, else as it comes) ->
        the table's deal."""
        if self.top.name == "attract":
            self.press(OK)
        while self.top.views[self.top.choice.focus].key != game:
            self.press(NEXT)
        self.press(OK)
        while players is not None and self.top.count != players:
            self.press(OK, index=0)
        for key, value in (options or {}).items():
            row = next(i for i, (r, _) in enumerate(self.top.rows()) if r == ("opt", key))
            while self.top.values[key] != value:
                self.press(OK, index=row)
        while self.top.rows()[self.top.focus][0] != "start":
            self.press(NEXT)
        self.press(OK)
        self.until("the table's deal", lambda: self.top.name == "table" and self.top.phase == "deal")

    def deal(self, layout) -> None:
        """Lay the start of the game (or a new grid) and press OK once the camera has read it."""
        self.lay(layout)
        self.until("the deal read", lambda: self.top.setup_codes is not None)
        self.press(OK)
        self.until("the table", lambda: self.top.name == "table" and self.top.phase in ("watch", "verdict"))
        if self.top.phase == "verdict":                       # a new grid is a stored action
            self.press(OK)

    def play(self, layout) -> bool:
        """Lay ``layout`` (the table with one card more), confirm what the camera proposes; returns the
        verdict (True: correct) and leaves the verdict on the screen."""
        self.lay(layout)
        self.until("the proposal", lambda: self.top.phase == "propose")
        self.press(OK)
        self.until("the verdict", lambda: self.top.phase == "verdict")
        return bool(self.top.view.is_correct(self.top.turns.judged[1]))

    def tour(self, layout, with_stray) -> None:
        """The kiosk's own screens, shown at a game's table lying as ``layout``: the fault screens (a shop's
        leaflet, a sticker of no known card, a pulled camera cable: ``with_stray(code)`` is the table with
        a stray code beside the cards), then the menu's history and settings."""
        from companion.inputs.commands import MENU

        self.until("the table", lambda: self.top.name == "table" and self.top.phase == "watch")
        for stray, fault in (("https://example.com/shop", "fault:foreign-code"),
                             ("TC:DEMO:999", "fault:unknown-card")):
            self.lay(with_stray(stray))
            self.until(fault, lambda fault=fault: self.top.name == fault)
            self.lay(layout)
            self.press(OK)
        self.until("the table", lambda: self.top.name == "table")
        self.k.demo.table.unplugged = True
        self.until("the camera fault", lambda: self.top.name == "fault:camera")
        self.k.demo.table.unplugged = False
        self.until("the table again", lambda: self.top.name == "table")
        for item, back in (("history", OK), ("settings", UNDO)):
            self.press(MENU)
            self.press(OK, index=[v for _, v in self.top.choice.items].index(item))
            self.until(item, lambda item=item: self.top.name == item)
            self.press(back)
            self.until("the table", lambda: self.top.name == "table")

    def close(self) -> None:
        self.k.table.close()


class Studio:
    """What a game's screenshot script (its ``GameSpec.screenshots``, "module:function", kept beside its
    views) is handed: the kiosks to drive and the camera to take each screen with, in both languages.
    A script says the names it shows (``expect``); a name it never shows is reported."""

    def __init__(self, shots: Shots, tmp: Path, own_screens: bool = False):
        self.shots, self.tmp = shots, tmp
        self.saved: set[str] = set()
        self.expected: set[str] = set()
        # the kiosk's own screens are taken on the way of the registry's first game (its script tours them)
        self.own_screens = own_screens
        if own_screens:
            self.expect(*KIOSK_SHOTS)
        self._kiosks = 0

    size = property(lambda self: self.shots.size)

    # the fake camera's kiosk and its buttons (tests/board_kiosk.py), for a board game's scripts
    press = staticmethod(press)
    choose = staticmethod(choose)
    start_game = staticmethod(start_game)
    detection = staticmethod(detection)

    def expect(self, *names: str) -> None:
        self.expected.update(names)

    def take(self, k, name: str) -> None:
        """The kiosk's screen now, in both languages, as ``name``."""
        self.saved.add(name)
        self.shots.take(k, name)

    def demo_table(self, name_of, deck: str = "DEMO") -> RowTable:
        """The demo's kiosk at the virtual table, driven by the script (a row or grid game)."""
        return RowTable(self, name_of, deck)

    def _folder(self) -> Path:
        self._kiosks += 1
        folder = self.tmp / f"kiosk-{self._kiosks}"
        folder.mkdir()
        return folder

    def kiosk(self):
        """A kiosk with the fake board camera of tests/board_kiosk.py, at the attract screen: (kiosk, feed)."""
        return make_kiosk(self._folder(), self.size)

    def resumed(self, lines: list[dict], upto: int):
        """A kiosk (fake camera) resuming the game of ``lines[:upto]``, at its table: (kiosk, feed)."""
        return resumed(self._folder(), self.size, lines, upto)

    def photograph(self, k, feed, board: str) -> None:
        photograph(k, feed, board)


def photograph(k, feed, board: str) -> None:
    """A synthetic camera picture of the board as the fake feed holds it (the vision scene
    generator), so the screenshots show the camera pane as on a real table."""
    import cv2

    from companion.cards.decks import resolve
    from companion.sim.scene import render_table
    from companion.vision.layouts import BoardLayout

    scene = render_table(BoardLayout(board, dict(feed.board)), width=1280, height=720, px_per_module=1.4, seed=2,
                         hands=0, foreign_codes=0)
    scale = 480 / scene.image.shape[1]
    small = cv2.resize(scene.image, (480, int(scene.image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    feed.frame, feed.frame_scale = cv2.cvtColor(small, cv2.COLOR_BGR2RGB), scale
    feed.detections = [Detection(t.payload, tuple(tuple(p) for p in t.corners), t.center, resolve(t.payload))
                       for t in scene.truth]
    k.step()


def resumed(tmp: Path, size, lines, upto: int):
    from companion.play.session import GameSession
    from companion.store.log import GameLog
    from companion.ui.games import view_for_setup

    store = GameLog(tmp / "games.sqlite")
    game = store.new_game(lines[0])
    for line in lines[1:upto]:
        store.append(game, line)
    store.close()
    k, feed = make_kiosk(tmp, size)
    k.session = GameSession.resume(k.store, view_for_setup)
    k.stack.push("table")
    k.step()
    return k, feed


def scripted_games(games=None) -> list:
    """The registered games whose spec declares a screenshot script (or those of ``games``), in the
    registry's order."""
    from companion.registry import GAMES
    return [spec for spec in GAMES.values() if spec.screenshots and (not games or spec.id in games)]


def shoot(base: Path, size, games=None) -> tuple[Shots, list[str]]:
    """Every registered game's screenshots at ``size`` in both languages (or the games of ``games``, by
    id), each by its own script; returns the shots and the screens a script expected but never showed."""
    shots = Shots(base, size)
    missing: list[str] = []
    first = scripted_games()[0]
    for spec in scripted_games(games):
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            studio = Studio(shots, Path(tmp), own_screens=spec is first)
            spec.load_screenshots()(studio)
        missing += [f"{name}-{size[0]}x{size[1]}" for name in sorted(studio.expected - studio.saved)]
        print(f"{spec.id}, {size[0]}x{size[1]}: {len(studio.expected)} screens in {time.monotonic() - start:.0f} s",
              flush=True)
    return shots, missing


# -- every frame of whole games, in both languages at both sizes -----------------------------------------

def play_whole_game(key: str, seed: int = SEED, frames: int = 6000) -> FrameCheck:
    """The demo's simulated players play one game of ``key`` to its end (the virtual table read by the real
    tracker, every question answered with the buttons, the tour of the fault screens, the menu and the
    history on the way), and every frame is checked in each language at each size; the score sheet's
    pages are all drawn. Raises SystemExit when the game gets stuck."""
    from companion.app import build
    from companion.config import Config

    k = build(Config(), demo=True, windowed=True, size=SIZES[0], autoplay=True, seed=seed, threaded=False)
    k.demo.games = [key]
    check = FrameCheck(k, SIZES, LANGS)
    try:
        for _ in range(frames):
            k.demo.tick(k.clock())
            k.step()
            check.look()
            top = k.stack.top
            if top is not None and top.name == "fault:bug":
                raise SystemExit(f"the kiosk hit a bug in {key}: see {k.error_log()}")
            if top is not None and top.name == "score" and k.session is not None:
                return check
        raise SystemExit(f"{key}: no score sheet after {frames} frames; the kiosk shows {k.screen_key()}")
    finally:
        k.table.close()


def check_games(games=None, out=sys.stdout) -> int:
    """``--check``: every game of the registry played to its end, every frame checked in both languages at
    both sizes; prints the counts and every fault; returns the number of faults."""
    from companion.ui.games import available_views

    games = games or [v.key for v in available_views() if type(v).__module__.startswith("companion.")]
    total = 0
    print(f"{'game':24} {'lang':4} {'size':9} {'frames':>6} {'cut':>4} {'<24 must-read':>13} {'<16 any':>7}",
          file=out)
    listed = []
    for key in games:
        start = time.monotonic()
        check = play_whole_game(key)
        for variant in check.variants:
            lang, (w, h) = variant
            n = check.counts(variant)
            total += sum(n.values())
            print(f"{key:24} {lang:4} {w}x{h:<5} {check.frames[variant]:6} {n['cut']:4} {n['under-read']:13} "
                  f"{n['under-min']:7}", file=out)
        listed += check.lines(f"{key} ")
        print(f"  ({key}: {time.monotonic() - start:.0f} s)", file=out, flush=True)
    for line in listed:
        print(line, file=out)
    print(f"{total} faults: player-facing texts cut, under {READ_TEXT} px (must-read roles) or under "
          f"{MIN_TEXT} px (any)", file=out)
    return total


def main(out: str | None = None, only: str | None = None, games=None) -> int:
    base = Path(out) if out else ROOT / "docs" / "screens"
    missing, cut, faults = [], [], []
    pygame.display.init()
    for size in SIZES:
        if only and only != f"{size[0]}x{size[1]}":
            continue
        shots, gone = shoot(base, size, games)
        missing += gone
        cut += shots.cut
        print(f"smallest text at {size[0]}x{size[1]}, in reference px (to play >= 24 / everything >= 16):")
        for key, (play, every) in sorted(shots.smallest.items()):
            shown = f"{play:4.0f}" if play else "   -"          # "-": nothing a player must read there
            print(f"  {key:34} {shown} / {every:4.0f}")
        faults += [f"{key}-{size[0]}x{size[1]}: {f}" for key, fs in sorted(shots.faults.items()) for f in fs]
    for line in cut:
        print("cut:", line)
    for line in faults:
        print("too small:", line)
    if missing:
        print("not shown:", ", ".join(missing), file=sys.stderr)
        return 1
    print(f"wrote the screenshots to {base} (English) and {base / 'es'} (Spanish)")
    return 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Every kiosk screenshot, in English and Spanish, at 800x480 and "
                                                 "1920x1080; prints the smallest text of every screen.")
    parser.add_argument("out", nargs="?", help="the folder to write them to (docs/screens/ when left out)")
    parser.add_argument("size", nargs="?", choices=[f"{w}x{h}" for w, h in SIZES], help="one size only")
    parser.add_argument("--game", action="append", metavar="GAME",
                        help="only this game's screenshots (its id in the registry; may be given again)")
    parser.add_argument("--check", nargs="*", metavar="GAME",
                        help="take no screenshots: play whole games of the demo (every game of the registry, or "
                             "those named) and check every frame in English and Spanish at 800x480 and 1920x1080; "
                             "prints the texts cut or under their floor per game, language and size (exit 1 on any)")
    args = parser.parse_args()
    # never the owner's settings (the tests that import this module have their own)
    os.environ["COMPANION_DATA"] = tempfile.mkdtemp(prefix="companion-screens-")
    if args.check is not None:
        logging.basicConfig(level=logging.ERROR)     # the faults are listed at the end; not each as it comes
        sys.exit(1 if check_games(args.check) else 0)
    sys.exit(main(args.out, args.size, args.game))
