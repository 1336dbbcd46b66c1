"""The type-size rule, measured on what the canvas drew on every screen of tools/screens.py: what a
player must read to play (companion.ui.canvas.PLAY_ROLES: whose turn, the verdict, the next step, the
scores and their explanation, card years and titles) is at least READ_TEXT (24 px at 800x480), and
nothing at all is under MIN_TEXT (16 px); at 1920x1080 the same, scaled. tools/screens.py prints the
smallest size per screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pygame
import pytest

from companion.ui.canvas import READ_TEXT, Canvas, Drawn, size_faults

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))


def test_the_rule_reads_the_role_and_the_scale():
    drawn = [Drawn("Ana's turn", "turn", (0, 0, 1, 1), px=54), Drawn("1969", "card", (0, 0, 1, 1), px=50),
             Drawn("camera", "camera", (0, 0, 1, 1), px=36), Drawn("EN", "lang", (0, 0, 1, 1), px=35)]
    assert size_faults(drawn, 2.25) == ["card '1969' at 22 px (min 24)", "lang 'EN' at 16 px (min 16)"]


def test_a_must_read_text_shrinks_no_further_than_the_rule():
    pygame.init()
    c = Canvas(pygame.Surface((800, 480)))
    c.text("Ana: put one of your cards into the row, between the two cards you think", (0, 0), 32, role="prompt",
           max_width=200)
    c.paragraph("Ana: put one of your cards into the row.", (0, 0, 200, 20), 32, role="then")
    assert [d.px for d in c.drawn] == [READ_TEXT, READ_TEXT]
    assert all(d.cut for d in c.drawn)        # cut, and so caught by the tests that look for cut text


def _scripted() -> list[str]:
    import screens
    return [spec.id for spec in screens.scripted_games()]


@pytest.mark.slow(8)
@pytest.mark.parametrize("game", _scripted())    # every registered game's screenshot script, apart for xdist
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_every_screen_keeps_the_type_size_rule(tmp_path, size, game):
    import screens
    pygame.display.init()
    shots, missing = screens.shoot(tmp_path, size, games=[game])
    assert not missing                            # every screen the game's script expects, in both languages
    faults = [f"{key}: {fault}" for key, found in shots.faults.items() for fault in found]
    assert not faults, "\n".join(faults)
    assert not shots.cut, "\n".join(shots.cut)


def test_the_canvas_reports_a_text_cut_or_under_its_floor():
    pygame.init()
    c = Canvas(pygame.Surface((1920, 1080)))
    c.paragraph("Deal 3 cards face up under each continent, then lay the market in view.", (0, 0, 300, 60), 26,
                role="prompt")
    c.text("whole", (0, 100), 26, role="prompt")
    c.text("EN", (0, 200), 12, role="lang")
    c.drawn.append(Drawn("1969", "card", (0, 0, 1, 1), px=50))       # 22 px at the reference size
    assert [(kind, d.text[:4]) for kind, d in c.faults()] == [("cut", "Deal"), ("under-min", "EN"),
                                                             ("under-read", "1969")]
