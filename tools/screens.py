"""Every kiosk screenshot in docs/screens/, in English and Spanish, at 800x480 and 1920x1080:

    .venv/bin/python tools/screens.py             # docs/screens/<name>-<W>x<H>.png, docs/screens/es/<same name>
    .venv/bin/python tools/screens.py OUT_DIR     # somewhere else, to compare before replacing
    .venv/bin/python tools/screens.py OUT_DIR 800x480     # one size only
    .venv/bin/python tools/screens.py --check [GAME ...]  # no pictures: every frame of whole games checked

The row games' screens come from the demo's kiosk (the real tracker reading the virtual table) driven
by a script (``RowTable``): it lays the cards and presses the buttons, reaching each screen by the
shortest way (the autoplay, which wanders until it has shown every screen, is tested on its own in
tests/test_demo_games.py). One run per size, in English, each picture drawn again in Spanish (the
game is the same whatever the words); each name is the first frame of its kind (see
``row_shot_name``), and a seeded shuffle picks the cards, so a run gives the same pictures until the
kiosk changes.
The board games' screens (exhibition-*, ancient-knowledge-*) come from seeded robot games played
through the kiosk's command stream with the fake camera of tests/board_kiosk.py; they are driven in
English and each picture is drawn again in Spanish. The café dashboard's pictures come from the café
browser tests and are left alone. Every text drawn cut short is listed at the end. A few minutes; no
display needed.

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

from companion.games.base import refusal  # noqa: E402
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


def row_shot_name(kiosk) -> str | None:
    """The screenshot name of what the kiosk shows now, or None when it is not one of them."""
    top = kiosk.stack.top
    if top is None:
        return None
    name = top.name
    if name in ("attract", "picker", "players", "menu", "history", "settings"):
        return name
    if name.startswith("fault:") and name != "fault:bug":
        return name.replace(":", "-")
    session = kiosk.session
    if name == "score":
        key = session.view.key if session is not None else ""
        return {"timeline": "score-timeline", "cronologia-cooperative": "score-cooperative"}.get(key)
    if name != "table":
        return None
    game, phase = top.view.key, top.phase
    if phase == "deal":          # the first deal's instructions; the cooperative game's new grid
        first = {"timeline": "deal-timeline", "cronologia-competitive": "deal-cronologia",
                 "cronologia-cooperative": "deal-cooperative"}.get(game)
        return first if session is None or first is None else "cooperative-redeal"
    if session is None:
        return None
    if game == "timeline":
        if phase == "watch" and len(session.lines) >= 6:       # a row with some cards on it
            return "table-timeline"
        if phase == "propose":
            return "table-propose"
        if phase == "verdict":
            if top.turns.ending is not None:
                return "verdict-end"
            return {True: "verdict-correct", False: "verdict-wrong"}.get(top.turns.verdict(kiosk.lang).correct)
    if game == "cronologia-competitive" and phase == "effect":
        return "cronologia-effect"
    if game == "cronologia-cooperative":
        return {"watch": "table-cooperative-grid", "propose": "cooperative-propose",
                "reset": "cooperative-reset"}.get(phase)
    return None


ROW_SHOTS = {"deal-timeline", "deal-cronologia", "deal-cooperative", "cooperative-redeal",
             "attract", "picker", "players", "menu", "history", "settings", "fault-camera", "fault-unknown-card",
             "fault-foreign-code", "score-timeline", "score-cooperative", "table-timeline", "table-propose",
             "verdict-correct", "verdict-wrong", "verdict-end", "cronologia-effect", "table-cooperative-grid",
             "cooperative-propose", "cooperative-reset"}


class RowTable:
    """The row games' kiosk as the demo builds it (the virtual table read by the real tracker, every
    frame), driven by a script instead of the autoplay's dice: each screen is reached by the shortest
    way there, so a run draws a few dozen tables instead of playing whole games until every screen has
    turned up. The script lays the cards on the virtual table and presses the buttons, as the demo's
    players do; the kiosk learns what happened only from the camera."""

    def __init__(self, shots: Shots, saved: set[str], deck: str = "DEMO"):
        from companion.app import build
        from companion.cards.decks import get_deck
        from companion.config import Config

        self.k = build(Config(), demo=True, windowed=True, size=shots.size, autoplay=True, seed=SEED, threaded=False)
        self.cards = {c.code: c for c in get_deck(deck).cards.values() if c.code and c.year is not None}
        self.pile = sorted(self.cards)
        random.Random(SEED).shuffle(self.pile)
        self.label = f"{shots.size[0]}x{shots.size[1]}"

        def save(_key, _surface) -> None:
            name = row_shot_name(self.k)
            if name is not None and name not in saved:
                saved.add(name)
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

    def start(self, game: str) -> None:
        """Attract -> picker -> the players' form as it comes -> the table's deal."""
        if self.top.name == "attract":
            self.press(OK)
        while self.top.views[self.top.choice.focus].key != game:
            self.press(NEXT)
        self.press(OK)
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

    def close(self) -> None:
        self.k.table.close()


def timeline(shots: Shots, saved: set[str]) -> None:
    """The attract screen, the picker, the players' form; a Timeline game of three played to its end
    (Bruno and Carla each place one card wrong, so Ana alone empties her hand); on the way a shop's
    leaflet, a sticker of no known card and a pulled camera cable, the menu, the history and the
    settings."""
    from companion.vision.layouts import RowLayout

    t = RowTable(shots, saved)
    t.start("timeline")
    t.deal(RowLayout([t.pile.pop()]))
    turn = 0
    while t.k.session.in_progress() and turn < 30:
        row = t.top.view.codes_on_table(t.k.session)
        years = [t.year(c) for c in row]
        wrong = turn in (4, 5)
        code = t.take(lambda y, years=years, wrong=wrong: (y < years[0] or y > years[-1]) if wrong
                      else y not in years)
        y = t.year(code)
        right = sum(1 for x in years if x < y)
        gap = (len(row) if y < years[0] else 0) if wrong else right
        correct = t.play(RowLayout(row[:gap] + [code] + row[gap:]))
        assert correct != wrong, (code, gap, row)
        t.press(OK)
        turn += 1
        if turn == 1:
            tour(t, row[:gap] + [code] + row[gap:])
    t.until("the score sheet", lambda: t.top.name == "score")
    t.close()


def tour(t: RowTable, row: list[str]) -> None:
    """What the demo's tour shows at the table: the fault screens, then the menu's history and settings."""
    from companion.inputs.commands import MENU, UNDO
    from companion.vision.layouts import RowLayout

    t.until("the table", lambda: t.top.name == "table" and t.top.phase == "watch")
    for stray, fault in (("https://example.com/shop", "fault:foreign-code"), ("TC:DEMO:999", "fault:unknown-card")):
        t.lay(RowLayout(row + [stray]))
        t.until(fault, lambda fault=fault: t.top.name == fault)
        t.lay(RowLayout(row))
        t.press(OK)
    t.until("the table", lambda: t.top.name == "table")
    t.k.demo.table.unplugged = True
    t.until("the camera fault", lambda: t.top.name == "fault:camera")
    t.k.demo.table.unplugged = False
    t.until("the table again", lambda: t.top.name == "table")
    for item, back in (("history", OK), ("settings", UNDO)):
        t.press(MENU)
        t.press(OK, index=[v for _, v in t.top.choice.items].index(item))
        t.until(item, lambda item=item: t.top.name == item)
        t.press(back)
        t.until("the table", lambda: t.top.name == "table")


def cronologia_effect(shots: Shots, saved: set[str]) -> None:
    """Cronología competitive: the five start cards, then a correct card with an icon, of a period already
    in the row, opens its effects."""
    from companion.vision.layouts import RowLayout

    t = RowTable(shots, saved)
    t.start("cronologia-competitive")
    row = sorted((t.pile.pop() for _ in range(5)), key=t.year)
    t.deal(RowLayout(row))
    years = [t.year(c) for c in row]
    periods = {t.cards[c].period for c in row}                   # an icon counts beside a card of its period
    code = next(c for c in t.pile if t.cards[c].icons and t.cards[c].period in periods and t.year(c) not in years)
    gap = sum(1 for x in years if x < t.year(code))
    assert t.play(RowLayout(row[:gap] + [code] + row[gap:]))
    t.press(OK)
    t.until("the effects", lambda: t.top.phase == "effect")
    t.close()


def cooperative(shots: Shots, saved: set[str]) -> None:
    """Cronología cooperative (the demo's HIST deck): a grid dealt, its first column completed (it
    scores; a new grid is dealt), then wrong cards until the team has no lives left."""
    from companion.vision.layouts import GridLayout

    t = RowTable(shots, saved, deck="HIST")
    t.start("cronologia-cooperative")

    def grid():
        rows = [sorted((t.pile.pop() for _ in range(5)), key=t.year) for _ in range(5)]
        return [line for r in rows for line in (r, [None] * 5)][:-1]

    def between(k: int, col: int):
        a, b = sorted((t.year(layout[2 * k][col]), t.year(layout[2 * k + 2][col])))
        return a, b

    layout = grid()
    t.deal(GridLayout(layout))
    col = next(c for c in range(5) if all(b - a > 1 for a, b in (between(k, c) for k in range(4))))
    for k in range(4):                                  # column 1 complete: the team scores
        a, b = between(k, col)
        layout[2 * k + 1][col] = t.take(lambda y, a=a, b=b: a < y < b)
        assert t.play(GridLayout(layout))
        t.press(OK)
    t.until("the new grid's deal", lambda: t.top.phase == "deal")
    layout = grid()
    t.deal(GridLayout(layout))
    while t.k.session.in_progress():
        a, b = between(0, 0)
        layout[1][0] = t.take(lambda y, a=a, b=b: y < a or y > b)
        assert not t.play(GridLayout(layout))
        layout[1][0] = None
        t.press(OK)
        if t.top.name == "table" and t.top.phase == "reset":
            t.lay(GridLayout(layout))                   # the wrong card goes to the box
            t.press(OK)
    t.until("the score sheet", lambda: t.top.name == "score")
    t.close()


def row_games(shots: Shots) -> set[str]:
    """Every row game's screenshot, in both languages; returns the names saved."""
    saved: set[str] = set()
    for part in (timeline, cronologia_effect, cooperative):
        part(shots, saved)
    return saved


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


def exhibition(shots: Shots, tmp: Path) -> None:
    from companion.games.exhibition.autoplay import play_game
    from companion.games.exhibition.cards import card_json

    def save(what):
        shots.take(k, f"exhibition-{what}")

    k, feed = make_kiosk(tmp / "exh-deal", shots.size)
    start_game(k, "exhibition", 2)
    save("deal")                                               # how to lay the market for the camera
    lines = play_game(["Ana", "Bruno", "Carla"], seed=3, secret_decade=True, variations={"years_gap": "short_era"})
    secrets = [line for line in lines if line["type"] == "secret"]
    body = [line for line in lines[1:] if line["type"] != "secret"]
    # half-way: the secret decades and 40 lines, at the start of a turn
    upto = next(i for i in range(40, len(body)) if body[i]["type"] == "take")
    k, feed = resumed(tmp / "exh-mid", shots.size, [lines[0]] + secrets + body, len(secrets) + 1 + upto)
    save("prompt")                                             # which card does ... take?
    while k.stack.top.phase == "ask":                          # the first card; the refill's first decade, card
        press(k, OK, index=0)
    s = k.session.state
    feed.board = {spot: code for spot, code in feed.expected.spots.items()}
    photograph(k, feed, "exhibition")
    save("board")
    wrong = next(spot for spot in s.layout.spot_names() if not spot.startswith("depot") and
                 spot not in feed.board and refusal(k.session.preview(k.session.engine.parse_action(
                     {"type": "place", "player": s.player.name, "card": card_json(s.turn.held), "spot": spot}))[1]))
    feed.board[wrong] = s.turn.held.code
    k.step()
    save("verdict")
    k, feed = resumed(tmp / "exh-end", shots.size, [lines[0]] + secrets + body, len(secrets) + 1 + len(body) - 3)
    choose(k, "1943 OC")
    choose(k, "1920s")
    choose(k, "1927")
    choose(k, "End the exhibition")
    press(k, OK)
    save("standings")
    press(k, NEXT)
    save("score")


def ancient_knowledge(shots: Shots, tmp: Path) -> None:
    from companion.ui.games.ancient_knowledge import _codes
    codes = _codes()

    def save(what):
        shots.take(k, f"ancient-knowledge-{what}")

    def lay(spot, card):
        feed.board = dict(feed.expected.spots)
        feed.board[spot] = codes[card]
        k.step()

    def item(text):
        items = [d.text for d in k.last.drawn if d.role.startswith("choice")]
        press(k, OK, index=items.index(text))

    k, feed = make_kiosk(tmp / "ak", shots.size)
    start_game(k, "ancient-knowledge", 2)
    save("deal")                                               # how to lay the tiles for the camera
    tiles = [["thales", "aristotle", "mercury"], ["runic-alphabet", "the-number-pi", "ptolemy"],
             ["golden-mean", "plato", "thoth"]]
    feed.detections = [detection(codes[c], 80 + (3 * i + j) * 70, 120) for i, tile in enumerate(tiles)
                       for j, c in enumerate(tile)]
    k.step()
    press(k, OK)
    # Ana: Karnak Temple (zone 5) and Petra (zone 4); Bruno: Tiwanaku (zone 1) and a search
    lay("zone5.lower", "karnak-temple")
    press(k, OK)
    press(k, OK)
    item("8")
    lay("zone4.lower", "petra")
    press(k, OK)
    press(k, OK)
    item("1")
    while k.stack.top.phase == "ask":                          # Petra's timeline effect: pass
        choose(k, "Pass")
    press(k, OK)
    feed.board = {}
    lay("zone1.lower", "tiwanaku")
    press(k, OK)
    press(k, OK)
    item("2")
    save("prompt")                                             # Tiwanaku's immediate effect
    choose(k, "Done")
    press(k, OK)
    choose(k, "Search")
    save("verdict")                                            # the end of Bruno's turn: what declined
    press(k, OK)
    feed.board = {}
    k.step()
    lay("zone3.upper", "stonehenge")
    press(k, OK)
    press(k, OK)
    item("4")
    feed.board = dict(feed.expected.spots)
    photograph(k, feed, "ancient-knowledge")
    save("board")
    # the score sheet: a whole robot game, its last turns played here
    from test_ui_ancient_knowledge import play_through_the_kiosk, robot_game
    lines, turn_starts = robot_game()
    cut = max(i for i in turn_starts if any(line["type"] == "create" for line in lines[i:]))
    k, feed = resumed(tmp / "ak-end", shots.size, lines, cut)
    play_through_the_kiosk(k, feed, lines[cut:])
    save("standings")
    press(k, NEXT)
    save("score")


LONG_ROW = 24     # cards in the long row's pictures (the issue asks for a row of 24 checked at 800x480)


def long_row_lines(n: int = LONG_ROW, seed: int = SEED) -> tuple[list[dict], tuple[str, int]]:
    """A Timeline game of 8 players, 3 cards each, played right until the row holds ``n`` cards (the
    start card and ``n - 1`` placed), from a seeded shuffle of the HIST deck: its log lines, and the
    next card with its right gap (the proposal on the picture)."""
    from companion.cards import decks
    from companion.play.session import GameSession
    from companion.store.log import GameLog
    from companion.ui.games import view_for

    cards = list(next(d for d in decks.all_decks() if d.id == "HIST").cards.values())
    random.Random(seed).shuffle(cards)
    view = view_for("timeline")
    with tempfile.TemporaryDirectory() as tmp:
        store = GameLog(Path(tmp) / "games.sqlite")
        players = ["Ana", "Bruno", "Carmen", "David", "Elena", "Fernando", "Gloria", "Hugo"]
        session = GameSession.start(store, view, view.setup_line(players, {"hand": 3}, [cards[0].code]))
        years = [cards[0].year]
        for card in cards[1:n]:
            gap = sum(1 for y in years if y <= card.year)
            session.confirm(view.place(view.current(session), card, gap))
            years.insert(gap, card.year)
        lines = [session.setup_line] + list(session.lines)
        store.close()
    card = cards[n]
    return lines, (card.code, sum(1 for y in years if y <= card.year))


def long_row(shots: Shots, tmp: Path) -> None:
    """A 24-card Timeline row: the table with a card proposed (the whole row on the board, years first,
    on as many lines as it needs), and the row's own screen (OK while waiting), a page at a time."""
    from companion.play.proposals import CardPlaced
    from companion.ui.table_feed import Reading

    lines, (code, gap) = long_row_lines()
    k, _feed = resumed(tmp, shots.size, lines, len(lines))
    k.stack.top.turns.reading_in(Reading(1, proposals=[CardPlaced(code, gap)]), k.lang)
    k.step()
    assert k.stack.top.phase == "propose"
    shots.take(k, "table-long-row")
    press(k, UNDO)                    # a misread: back to waiting
    press(k, OK)
    assert k.stack.top.name == "row"
    shots.take(k, "row-screen")


PARTS = ("row", "boards", "long-row")


def shoot(base: Path, size, parts=PARTS) -> tuple[Shots, list[str]]:
    """Every screen at ``size`` in both languages (or the ``parts`` named: the row games, ``row``, the
    board games, ``boards``, a 24-card row, ``long-row``); returns the shots and the screens not shown."""
    shots = Shots(base, size)
    missing = []
    if "row" in parts:
        start = time.monotonic()
        saved = row_games(shots)
        missing += [f"{name}-{size[0]}x{size[1]}" for name in sorted(ROW_SHOTS - saved)]
        print(f"row games, {size[0]}x{size[1]}: {len(saved)} screens in {time.monotonic() - start:.0f} s")
    if "boards" in parts:
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            for sub in ("exh-deal", "exh-mid", "exh-end", "ak", "ak-end"):
                (Path(tmp) / sub).mkdir()
            exhibition(shots, Path(tmp))
            ancient_knowledge(shots, Path(tmp))
        print(f"board games, {size[0]}x{size[1]}: {time.monotonic() - start:.0f} s")
    if "long-row" in parts:
        with tempfile.TemporaryDirectory() as tmp:
            long_row(shots, Path(tmp))
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


def main(out: str | None = None, only: str | None = None) -> int:
    base = Path(out) if out else ROOT / "docs" / "screens"
    missing, cut, faults = [], [], []
    pygame.display.init()
    for size in SIZES:
        if only and only != f"{size[0]}x{size[1]}":
            continue
        shots, gone = shoot(base, size)
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
    sys.exit(main(args.out, args.size))
