"""The row you can check: a 24-card Timeline row at 800x480 shows every year whole at the readable
size, on the table's board (years first, on as many lines as they need) and on the row's own screen
(OK while waiting), a page at a time."""

from __future__ import annotations

import sys
from pathlib import Path

import pygame
import pytest

from companion.cards.decks import resolve
from companion.ui.canvas import READ_TEXT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))


def _years(drawn, lang: str) -> list[str]:
    """The years drawn on the tiles, each whole (its number, then its era where it has a line of its own)."""
    out: list[str] = []
    for d in drawn:
        if d.role == "card":
            out.append(d.text)
        elif d.role == "card-era":
            out[-1] += " " + d.text
    return out


@pytest.mark.slow(4)
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_a_24_card_row_is_read_whole_at_the_readable_size(tmp_path, size):
    import screens

    from companion.ui.games.timeline import LONG_ROW, long_row, long_row_lines
    pygame.display.init()
    shots = screens.Shots(tmp_path, size)
    long_row(screens.Studio(shots, tmp_path))
    assert not shots.cut, shots.cut
    assert not [f for found in shots.faults.values() for f in found]
    lines, _next = long_row_lines()
    row = sorted((resolve(line.get("card") or line.get("start")) for line in lines), key=lambda c: c.year)
    assert len(row) == LONG_ROW
    for lang in ("en", "es"):
        want = [card.date(lang).replace("\u00a0", " ") for card in row]
        # the row's own screen: every card of the row, in reading order, at the readable size
        drawn = _drawn(tmp_path, size, lang, "row-screen", shots)
        assert [y.replace("\u00a0", " ") for y in _years(drawn, lang)] == want
        u = min(size[0] / 800, size[1] / 480)
        assert all(d.px >= READ_TEXT * u - 1 for d in drawn if d.role in ("card", "card-era"))
        # the table's board: years first, on lines of tiles; the cards it has no room for are counted
        drawn = _drawn(tmp_path, size, lang, "table-long-row", shots)
        years = _years(drawn, lang)
        more = sum(int(d.text[1:]) for d in drawn if d.role == "more" and d.text.startswith("+"))
        assert len(years) + more == LONG_ROW
        if lang == "en":      # 8 players' hands fit in the English bar: the whole row is on the board
            assert len(years) == LONG_ROW
        assert [d.text for d in drawn if d.role == "card-new"] == ["?"]
        assert not [d for d in drawn if d.role == "card-title"]      # titles dropped before years


def _drawn(tmp_path, size, lang, name, shots):
    return shots.drawn[f"{lang}/{name}"]


@pytest.mark.slow(3)
def test_a_row_longer_than_a_page_is_paged_with_next(tmp_path, monkeypatch):
    import screens

    from companion.inputs.commands import NEXT, OK, UNDO
    from companion.ui.games.timeline import long_row_lines
    pygame.display.init()
    lines, _next = long_row_lines()
    k, _feed = screens.resumed(tmp_path, (800, 480), lines, len(lines))
    view = k.session.view
    long_row = list(view.row(k.session)) * 4                     # 96 cards: more than a page holds
    monkeypatch.setattr(view, "row", lambda session: long_row)
    row = [card.date("en") for card in long_row]
    assert k.stack.top.turns.hints()[OK] == "see the whole row"
    screens.press(k, OK)
    seen: list[str] = []
    titles = []
    for _ in range(8):
        assert k.stack.top.name == "row"
        titles.append(next(d.text for d in k.last.drawn if d.role == "title"))
        page = [d for d in k.last.drawn if d.role in ("card", "card-era")]
        assert not [d for d in k.last.drawn if d.cut] and all(d.px >= READ_TEXT for d in page)
        seen += _years(page, "en")
        if len(seen) >= len(row):
            break
        screens.press(k, NEXT)
    assert [y.replace(" ", "\u00a0") for y in seen] == [y.replace(" ", "\u00a0") for y in row]
    assert len(titles) >= 2 and titles[0].startswith("The row, left to right: cards 1–")
    assert titles[0].endswith(" of 96")
    screens.press(k, NEXT)                                      # round again to the first page
    assert next(d.text for d in k.last.drawn if d.role == "title") == titles[0]
    screens.press(k, UNDO)
    assert k.stack.top.name == "table" and k.stack.top.phase == "watch"
