"""A headless kiosk with a fake camera for the board games' tests (Exhibition, Ancient Knowledge).

``BoardFeed`` stands where the camera and the board tracker are: the test lays cards on spots of
"the board in view" (``feed.board``) or in front of the camera (``feed.detections``, for the setup
reading), and each poll proposes what differs from the layout the kiosk expects, with the same
proposals and detections of the real tracker and decoder. The tracker itself is not run: these tests
check the views, not the vision."""

from __future__ import annotations

import pygame

from companion.inputs.commands import NEXT, OK, Command
from companion.play.proposals import CardPlacedOnSpot, CardRemoved, TableMatches
from companion.vision.decode import Detection


def detection(code: str, x: float, y: float) -> Detection:
    from companion.cards.decks import resolve
    s = 12
    return Detection(code, ((x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)), (x, y), resolve(code))


class BoardFeed:
    def __init__(self):
        self.board: dict[str, str] = {}     # spot -> sticker code, the board the camera sees
        self.detections: list = []          # stickers in view (the setup reading)
        self.expected = None
        self.generation = 0
        self.layouts: list = []             # every layout the kiosk expected, in order
        self.frame = None                   # a picture for the screen (RGB), and its scale from the camera's
        self.frame_scale = 1.0

    def expect(self, layout) -> None:
        self.expected = layout
        self.layouts.append(layout)
        self.generation += 1

    def poll(self):
        from companion.ui.table_feed import Reading
        return Reading(self.generation, self.frame, self.frame_scale, self.proposals(), list(self.detections))

    def proposals(self) -> list:
        if self.expected is None or not hasattr(self.expected, "spots"):
            return []
        want = {code: spot for spot, code in self.expected.spots.items() if code}
        seen = {code: spot for spot, code in self.board.items()}
        removed, placed = [], []
        for code, spot in seen.items():
            if want.get(code) == spot:
                continue
            if code in want:
                removed.append(CardRemoved(code))
            placed.append(CardPlacedOnSpot(code, spot))
        removed += [CardRemoved(code) for code in want if code not in seen]
        return removed + placed if removed or placed else [TableMatches()]


def make_kiosk(tmp_path, size=(800, 480), lang="en"):
    from companion.config import Config
    from companion.store.log import GameLog
    from companion.ui.kiosk import Kiosk

    pygame.font.init()
    config = Config()
    config.kiosk.language = lang
    feed = BoardFeed()
    k = Kiosk(pygame.Surface(size), config, store=GameLog(tmp_path / "games.sqlite"), table=feed)
    k.stack.push("attract")
    k.step()
    return k, feed


def press(k, kind, **kw) -> None:
    k.stream.post(Command(kind, **kw))
    k.step()


def drawn(k, role: str) -> list[str]:
    return [d.text for d in k.last.drawn if d.role == role or d.role.startswith(role + ":")]


def choose(k, text: str) -> None:
    """Touch the menu item whose label contains ``text`` (as a player would)."""
    items = drawn(k, "choice")
    index = next((i for i, label in enumerate(items) if text in label), None)
    assert index is not None, f"no choice with {text!r} among {items}; screen: {k.texts()[:12]}"
    press(k, OK, index=index)


def start_game(k, game_key: str, players: int, options: dict | None = None) -> None:
    """Attract -> picker -> players (count, options) -> the table's deal phase."""
    press(k, OK)
    picker = k.stack.top
    index = next(i for i, v in enumerate(picker.views) if v.key == game_key)
    press(k, OK, index=index)
    form = k.stack.top
    while form.count != players:
        press(k, OK, index=0)
    for key, value in (options or {}).items():
        row = next(i for i, (r, _) in enumerate(form.rows()) if r == ("opt", key))
        while form.values[key] != value:
            press(k, OK, index=row)
    rows = form.rows()
    press(k, OK, index=next(i for i, (key, _) in enumerate(rows) if key == "start"))
    assert k.stack.top.name == "table" and k.stack.top.phase == "deal", k.screen_key()


def sheet_page(k, *roles) -> list[list[str]]:
    """The texts of ``roles`` on the score sheet's page now, over every screen page it takes (a sheet
    too long for the screen at a readable size goes on over more pages); NEXT is pressed until the
    last of them is shown."""
    score = k.stack.top
    out: list[list[str]] = [drawn(k, role) for role in roles]
    view_page = score.plan[score.page][0]
    while score.page + 1 < len(score.plan) and score.plan[score.page + 1][0] == view_page:
        press(k, NEXT)
        for texts, role in zip(out, roles, strict=True):
            texts += drawn(k, role)
    return out
