"""The demo's simulated players: they deal, place cards (sometimes in the wrong gap), take wrong cards
away and draw, on the virtual table -- exactly what people at a real table do. They play the games of
the picker one after another; the board games' players are in companion/ui/demo_boards.py.

They never talk to the engine. The kiosk learns what happened only by reading the virtual camera
with the tracker, as at a real table; the players see the kiosk's screen (its phase and what it asks
for) as people would. In autoplay they also press the buttons (OK to confirm, and so on); in the
interactive demo the person at the keyboard does.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, NamedTuple

from companion.cards.decks import codes_named, get_deck
from companion.i18n import N_
from companion.inputs.commands import BACK, NEXT, OK, Command
from companion.ui.demo_boards import draw_from

if TYPE_CHECKING:
    import numpy as np

    from companion.sim.virtual_table import VirtualTable
    from companion.ui.demo_boards import BoardPlayers
    from companion.vision.layouts import Layout


# the demo camera's own words when its cable is "pulled out" (the fault screen says them in the screen's language)
CABLE_PULLED = N_("the demo camera cable was pulled out")

class Placed(NamedTuple):
    """A card just put down: in the row's gap ``gap``, or in the cooperative grid's gap row ``gap`` at
    ``column``."""

    code: str
    gap: int
    column: int | None = None


class DemoTable:
    """What lies on the simulated table, applied to the virtual camera from the camera's thread."""

    def __init__(self, vtable: VirtualTable):
        self.vtable = vtable
        self.wanted: Layout | None = None
        self.faces: dict | None = None
        self.unplugged = False

    def show(self, layout: Layout, faces: dict | None = None) -> None:
        """Lay ``layout``; ``faces`` (payload -> picture): its cards are drawn with these faces and no
        sticker (a box being enrolled), {} none any more."""
        self.wanted = layout
        if faces is not None:
            self.faces = faces

    def apply(self) -> None:
        if self.wanted is not None:
            layout, self.wanted = self.wanted, None
            if self.faces is not None:
                faces, self.faces = self.faces, None
                self.vtable.set_faces(faces)      # (the frames are made anew)
            self.vtable.set_layout(layout)


class DemoCamera:
    """The virtual table as a camera that can be 'unplugged' (the camera-lost screen in the tour)."""

    def __init__(self, table: DemoTable):
        self.table = table

    def read(self) -> np.ndarray:
        if self.table.unplugged:
            from companion.vision.sources import CameraLost
            raise CameraLost(CABLE_PULLED)
        return self.table.vtable.read()


def demo_games() -> list[str]:
    """The picker's games (every registered game's views), in its order: a game whose spec names
    ``demo`` players (companion/ui/demo_boards.py's contract) is played by them, whatever its table
    (boards, several rows); a row or grid game without them by the players below."""
    from companion.ui.games import available_views
    return [v.key for v in available_views() if v.table_kind in ("row", "grid") or _board_players(v) is not None]


def _board_players(view: Any) -> type[BoardPlayers] | None:
    from companion.registry import spec_for
    return spec_for(view.engine_id).load_demo()


def row_gap(years: list[int], year: int, rng: random.Random, wrong_rate: float) -> int:
    """Where a player who knows some history puts a card of ``year`` into a row of ``years``: in a
    right gap, or (``wrong_rate`` of the time) in the gap next to them, as people do who misjudge a
    date by a little: a card never lands centuries off (the one gap beside the right ones, where
    there is one; a row with no wrong gap takes it right)."""
    right = [g for g in range(len(years) + 1)
             if (g == 0 or years[g - 1] <= year) and (g == len(years) or year <= years[g])]
    near = [g for g in (right[0] - 1, right[-1] + 1) if 0 <= g <= len(years)]
    if near and rng.random() < wrong_rate:
        return rng.choice(near)
    return rng.choice(right)


class DemoPlayers:
    # A grid game (Cronología's cooperative one) deals 25 cards and 4 to each player: from the 40 DEMO
    # cards it would end at the first mistake, nobody holding a card (and no second grid could be dealt).
    DECKS = {"grid": "HIST"}

    def __init__(self, kiosk: Any, table: DemoTable, seed: int = 1, autoplay: bool = False, wrong_rate: float = 0.3,
                 tour: bool = False, games: list[str] | None = None, think_seconds: float = 2.5):
        self.kiosk = kiosk
        self.table = table
        self.rng = random.Random(seed)
        self.autoplay = autoplay
        self.wrong_rate = wrong_rate
        self.tour: list[tuple[str, str | None]] = list(TOUR) if tour else []
        self.games = games or demo_games()
        self.game_index = 0
        self.think = think_seconds if not autoplay else 0.0
        self.deck = get_deck("DEMO")
        self.turns = 0                  # confirmed placements seen (a board game: every action stored)
        self.games_done = 0
        self._reset_game()
        self._last_key: tuple | None = None
        self._since = 0.0
        self._frames_in_state = 0
        self._stray_on = False          # the tour's stray code lies on the table
        self._saved: tuple[list[str], list[list[str | None]]] = ([], [])
        self._enrol_laid: tuple | None = None   # the cards laid for the enrolment screen, and their side
        self._enrol_faces: dict[tuple[str, str], Any] = {}
        self.enrol_mistakes = 0                 # rounds laid with a card short on purpose (the tests' re-ask)
        self._short_round: tuple = ()

    # -- the physical cards --------------------------------------------------------------------
    def _reset_game(self) -> None:
        self.pile = [c.code for c in self.deck.cards.values() if c.code]
        self.rng.shuffle(self.pile)
        self.out: list[str] = []         # boxed, discarded, scored
        self.hands: dict[str, list[str]] = {}
        self.row: list[str] = []
        self.grid: list[list[str | None]] = []    # 9 physical rows for the cooperative game
        self.laid = False
        self.placed: Placed | None = None
        self.boards: BoardPlayers | None = None    # the board games' players (companion/ui/demo_boards.py)
        self._lines_seen = 0

    def year(self, code: str | None) -> int:
        card = self.deck.card(int(code.rsplit(":", 1)[1])) if code else None
        if card is None or card.year is None:
            raise ValueError(f"{code} is no dated card of the {self.deck.id} deck")
        return card.year

    def draw_some(self, n: int) -> list[str]:
        """Up to n cards from the pile (fewer when the whole deck is out)."""
        return [c for c in (self.draw() for _ in range(n)) if c is not None]

    def draw(self) -> str | None:
        return draw_from(self.pile, self.out, self.rng)

    def sync_hands(self, counts: dict) -> None:
        """Players hold as many cards as the kiosk says (they draw or give back when it tells them)."""
        for name, n in counts.items():
            hand = self.hands.setdefault(name, [])
            while len(hand) > n:
                self.out.append(hand.pop())
            while len(hand) < n:
                code = self.draw()
                if code is None:
                    break
                hand.append(code)

    def show_row(self) -> None:
        from companion.vision.layouts import RowLayout
        self.table.show(RowLayout(list(self.row)))

    def show_grid(self) -> None:
        from companion.vision.layouts import GridLayout
        self.table.show(GridLayout([list(r) for r in self.grid]))

    # -- each frame ----------------------------------------------------------------------------
    def press(self, kind: str, index: int | None = None) -> None:
        self.kiosk.stream.post(Command(kind, index=index, source="demo"))

    def tick(self, now: float) -> None:
        top = self.kiosk.stack.top
        if top is None:
            return
        key = (top.name, getattr(top, "phase", ""), len(self.kiosk.session.lines) if self.kiosk.session else -1)
        if key != self._last_key:
            self._last_key, self._since, self._frames_in_state = key, now, 0
        self._frames_in_state += 1
        waited = now - self._since
        if self.autoplay and (not self.kiosk.shown or self.kiosk.shown[-1] != self.kiosk.screen_key()):
            return          # let each screen be drawn (and saved) once; the frame that changed it drew it
        if not self.autoplay and waited < self.think:
            return
        name = top.name
        if self._enrol_laid is not None and name not in ("enrol", "confirm"):
            from companion.vision.layouts import RowLayout
            self._enrol_laid = None
            self.table.show(RowLayout([]), faces={})       # the enrolled box goes back in its box
        if name == "table":
            self.at_table(top)
        elif name == "enrol":
            self.at_enrol(top)
        elif self.autoplay:
            self.navigate(top)

    def navigate(self, top: Any) -> None:
        """Autoplay's fingers on the buttons outside the table."""
        name = top.name
        if self.tour and (name.startswith("fault:") or name in ("menu", "history", "settings")):
            self.tour_step(top)
        elif name == "attract":
            self.press(OK)
        elif name == "picker":
            want = self.games[self.game_index % len(self.games)]
            keys = [v.key for v in top.views]
            if top.views[top.choice.focus].key == want or want not in keys:
                self.press(OK)
            else:
                self.press(NEXT)
        elif name == "players":
            rows = top.rows()
            board = _board_players(top.view)
            count = board.PLAYERS if board is not None else top.count
            if top.count != count and top.view.min_players <= count <= top.view.max_players:
                self.press(OK, index=0)   # "Players: n" counts up, round and round
            else:
                self.press(OK if rows[top.focus][0] == "start" else NEXT)
        elif name == "score":
            self.games_done += 1
            self.game_index += 1
            self._reset_game()
            self.press(OK)
        elif name.startswith("fault:") and name != "fault:camera":
            self.press(OK)
        elif name in ("menu", "history", "settings", "confirm", "name", "keyboard", "pin", "row"):
            self.press(BACK)

    def at_table(self, screen: Any) -> None:
        k = self.kiosk
        phase = screen.phase
        view = screen.view
        if view.table_kind not in ("row", "grid") or _board_players(view) is not None:
            self.at_board(screen)
            return
        if self.tour and self.tour[0][0] != "screen" and k.session is not None and phase == "watch" \
                and self.turns >= 1 and self.autoplay:
            self.tour_step(screen)
            return
        if phase == "deal":
            if k.session is None and not self.laid:
                self.lay_start(view)
            elif k.session is not None and not self.laid:
                self.lay_new_grid()
            elif self.autoplay and self.sees_what_was_laid(screen.setup_codes):
                self.press(OK)
            return
        self.laid = False                 # the next deal (a scored column's new grid) is laid anew
        if k.session is not None:
            # the hands the game counts; a game that counts none: whose turn it is holds one card
            player = view.current(k.session)
            self.sync_hands(k.session.summary().get("hands") or ({player: 1} if player else {}))
        if phase == "watch":
            if screen.table_note is None and self.placed is None:
                self.place(view, k.session)
            elif self.placed is not None and self.autoplay and self._frames_in_state > 40:
                self.press(NEXT)          # ask the camera to read again
        elif phase == "propose":
            if self.autoplay:
                self.press(OK)
        elif phase == "verdict":
            if self.placed is not None:
                self.after_verdict(screen)
            if self.autoplay:
                self.press(OK)
        elif phase == "effect":
            if self.autoplay:
                items = screen.effects.items
                choice = self.rng.randrange(len(items))
                self.press(OK, index=choice)
        elif phase in ("reset", "refused"):
            if phase == "reset":
                for hand in self.hands.values():     # the union events in hand go to the box
                    self.out.extend(hand)
                    hand.clear()
            if self.autoplay:
                self.press(OK)

    def at_board(self, screen: Any) -> None:
        kind = _board_players(screen.view)
        if self.boards is None or (screen.phase == "deal" and self.kiosk.session is None and
                                   type(self.boards) is not kind):
            if kind is None:
                return                    # a board game without demo players: the person at the keyboard plays
            self.boards = kind(self.table, self.rng, self.press, self.wrong_rate / 2)
            self._lines_seen = 0
        session = self.kiosk.session
        if session is not None and len(session.lines) != self._lines_seen:
            self.turns += max(0, len(session.lines) - self._lines_seen)     # every action stored is a turn's step
            self._lines_seen = len(session.lines)
        self.boards.at_table(screen, self.autoplay)

    def lay_start(self, view: Any) -> None:
        self.deck = get_deck(self.DECKS.get(view.table_kind, "DEMO"))
        self._reset_game()
        self.laid = True
        if view.table_kind == "grid":
            self.lay_new_grid()
            return
        n = view.start_cards
        self.row = sorted(self.draw_some(n), key=self.year)
        self.show_row()

    def sees_what_was_laid(self, setup_codes: Any) -> bool:
        """The players press OK once the screen shows the cards they have just laid (the camera may
        still be reading the table as it was a moment before)."""
        if setup_codes is None:
            return False
        read = [c for line in setup_codes for c in (line if isinstance(line, list) else [line])]
        laid = [c for line in self.grid for c in line if c] if self.grid else list(self.row)
        return sorted(read) == sorted(laid)

    def lay_new_grid(self) -> None:
        self.laid = True
        for line in self.grid:
            self.out.extend(c for c in line if c)          # onto the score pile
        rows = []
        for _ in range(5):
            rows.append(sorted((self.draw() for _ in range(5)), key=self.year))
        self.grid = []
        for i, r in enumerate(rows):
            self.grid.append(r)
            if i < 4:
                self.grid.append([None] * 5)
        self.show_grid()

    def place(self, view: Any, session: Any) -> None:
        player = view.current(session)
        hand = self.hands.get(player) or []
        if not hand:
            return
        if view.table_kind == "grid":
            self.place_in_grid(hand)
            return
        code = self.rng.choice(hand)
        gap = row_gap([self.year(c) for c in self.row], self.year(code), self.rng, self.wrong_rate)
        self.row.insert(gap, code)
        self.placed = Placed(code, gap)
        self.show_row()
        hand.remove(code)

    def place_in_grid(self, hand: list[str]) -> None:
        """Cronología cooperative, played as a team that knows the game: of the cards in hand and the
        open gaps, a card that fits, where its dates leave the most room, in the column closest to
        being scored (a full column scores the grid). People know a date only roughly (the older, the
        rougher: ``guess``), so a card that seems to fit now and then does not; a hand that seems to
        fit nowhere plays the card that seems to miss by least."""
        slots = [(k, c) for k in range(4) for c in range(5) if self.grid[2 * k + 1][c] is None]
        if not slots:
            return
        seems = {code: self.guess(self.year(code)) for code in hand}

        def room(code: str, slot: tuple[int, int]) -> float:
            """How far the card's year seems to lie inside the gap's span (negative: outside it)."""
            a, b = self.year(self.grid[2 * slot[0]][slot[1]]), self.year(self.grid[2 * slot[0] + 2][slot[1]])
            return min(seems[code] - min(a, b), max(a, b) - seems[code])

        def filled(col: int) -> int:
            return sum(1 for k in range(4) if self.grid[2 * k + 1][col] is not None)

        options = [(code, slot) for code in hand for slot in slots]
        good = [o for o in options if room(*o) >= 0]
        if good:
            code, (k, col) = max(good, key=lambda o: (filled(o[1][1]), room(*o)))
        else:
            code, (k, col) = max(options, key=lambda o: room(*o))
        self.grid[2 * k + 1][col] = code
        self.placed = Placed(code, k, col)
        self.show_grid()
        hand.remove(code)

    def guess(self, year: int) -> float:
        """A year as a person who knows some history remembers it: a few years off for the last
        centuries, centuries off for prehistory."""
        return year + self.rng.gauss(0, 5 + 0.03 * abs(2030 - year))

    def after_verdict(self, screen: Any) -> None:
        """The players read the verdict on the screen and do what it says with the card."""
        line, events, _before = screen.turns.judged
        if self.placed is None or self.placed.code not in codes_named(line):    # not the card laid (an effect)
            self.placed = None
            return
        self.turns += 1
        correct = screen.view.is_correct(events)
        placed, self.placed = self.placed, None
        if correct or placed is None:
            return
        code = placed.code
        if placed.column is not None:
            self.grid[2 * placed.gap + 1][placed.column] = None
            self.out.append(code)
            self.show_grid()
        else:
            self.row.remove(code)
            if screen.kiosk.session.setup_line.get("wrong_card_to_timeline"):
                y = self.year(code)
                at = sum(1 for c in self.row if self.year(c) <= y)
                self.row.insert(at, code)
            else:
                self.out.append(code)
            self.show_row()

    # -- enrolling a box (the enrolment screen, companion/ui/screens/enrol.py) ----------------------
    enrol_shape = (3, 6)        # lines and cards a line laid at once: the demo table is no camera plan's

    def at_enrol(self, screen: Any) -> None:
        """Lay the cards the screen asks for, in lines, with their drawn faces (the side asked), then
        press OK (autoplay); a round may first be laid a card short, as a person miscounts."""
        from companion.cards.payload import format_payload
        from companion.sim.face_art import deck_face
        from companion.vision.layouts import GridLayout
        run = screen.run
        if run.phase not in ("clear", "lay"):
            if run.phase == "done" and self.autoplay:
                self.press(OK)
            return
        numbers = list(run.group) if run.phase == "lay" else []
        first_look = run.phase == "lay" and run.side_index == 0 and len(numbers) > 1 and run.note is None
        if self.enrol_mistakes and first_look and self._short_round != tuple(numbers):
            self.enrol_mistakes -= 1
            self._short_round = tuple(numbers)
        if first_look and self._short_round == tuple(numbers):
            numbers = numbers[:-1]
        want = (tuple(numbers), run.side)
        if want != self._enrol_laid:
            self._enrol_laid = want
            deck = run.deck
            faces = {}
            for n in numbers:
                code = format_payload(deck.id, n)
                if (code, run.side) not in self._enrol_faces:
                    self._enrol_faces[code, run.side] = deck_face(deck, n, run.side)
                faces[code] = self._enrol_faces[code, run.side]
            per_line = run.shape[1]
            codes = [format_payload(deck.id, n) for n in numbers]
            rows = [codes[i:i + per_line] for i in range(0, len(codes), per_line)]
            self.table.show(GridLayout([r + [None] * (per_line - len(r)) for r in rows]), faces=faces)
            return
        if self.autoplay:
            self.press(OK)

    # -- the autoplay tour: every screen once, so the screenshots show them all ----------------
    def tour_step(self, top: Any) -> None:
        step, arg = self.tour[0]
        if step == "screen":
            self.tour.pop(0)
            return
        if step == "foreign" or step == "unknown":
            if top.name == "table":
                if not self._stray_on and arg is not None:
                    self._stray_on = True
                    self._saved = (list(self.row), [list(r) for r in self.grid])
                    stray = arg
                    if self.grid:
                        self.grid[1][0] = stray
                        self.show_grid()
                    else:
                        self.row.append(stray)
                        self.show_row()
                elif self._frames_in_state > 60:     # the reader never reported it: carry on
                    self.tour.pop(0)
                    self._remove_stray()
            elif top.name.startswith("fault:"):
                self._remove_stray()
                self.tour.pop(0)
                self.press(OK)
            return
        if step == "camera":
            if top.name == "table" and not self.table.unplugged:
                self.table.unplugged = True
            elif top.name == "fault:camera":
                self.table.unplugged = False
                self.tour.pop(0)
            return
        if step in ("press", "back"):
            self.tour.pop(0)
            if arg is not None:
                self.press(arg)
            return
        if step == "menu-item":
            if top.name == "menu":
                values = [v for _, v in top.choice.items]
                if arg in values:
                    self.press(OK, index=values.index(arg))
                self.tour.pop(0)
            return
        self.tour.pop(0)

    def _remove_stray(self) -> None:
        if self._stray_on:
            self._stray_on = False
            self.row, self.grid = self._saved
            if self.grid:
                self.show_grid()
            else:
                self.show_row()


TOUR: list[tuple[str, str | None]] = [
    ("foreign", "https://example.com/shop"),
    ("unknown", "TC:DEMO:999"),
    ("camera", None),
    ("press", "MENU"),
    ("menu-item", "history"),
    ("back", "OK"),
    ("press", "MENU"),
    ("menu-item", "settings"),
    ("back", "UNDO"),
]
