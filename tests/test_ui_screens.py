"""What the screenshots in docs/screens/ showed a player and a newcomer, each fixed at its cause and
checked here through what the kiosk drew (tools/screens.py makes the pictures)."""

from __future__ import annotations

import itertools

import pygame
import pytest
from board_kiosk import press
from test_ui_kiosk import make, run_until

from companion.config import Config
from companion.inputs.commands import MENU, NEXT, OK
from companion.ui.canvas import size_faults
from companion.ui.games import TurnInfo

SIZES = [(800, 480), (1920, 1080)]


def at_table(size, lang="en"):
    config = Config()
    config.kiosk.language = lang
    k = make(size=size, config=config)
    run_until(k, lambda k: k.stack.top.name == "table" and k.stack.top.phase == "watch" and k.session is not None)
    return k


def drawn(k, role):
    return [d for d in k.last.drawn if d.role == role]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_the_turn_bar_shows_every_count_whole_in_sudden_death(size, lang, monkeypatch):
    k = at_table(size, lang)
    names = ["Alejandra", "Bartolomé", "Carlota", "Dionisio", "Eulalia"]
    info = TurnInfo("Alejandra", 12, {n: i for i, n in enumerate(names)}, True, ("Bartolomé", "Dionisio"))
    monkeypatch.setattr(k.session.view, "turn", lambda session: info)
    k.step()
    hands = drawn(k, "hands")
    assert len(hands) == 1 and not hands[0].cut, hands
    text = hands[0].text
    assert all(n in text for n in names)
    out = "fuera" if lang == "es" else "out"
    assert f"Bartolomé\u00a0{out}" in text and "Eulalia\u00a04" in text and "✗" not in text
    assert not [d for d in k.last.drawn if d.cut]
    others = [d for d in k.last.drawn if d.role in ("turn", "round", "sudden-death", "prompt")]
    assert not [d for d in others if pygame.Rect(d.rect).colliderect(hands[0].rect)], (hands, others)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_eight_counts_go_beside_the_title_not_on_a_strip_that_eats_the_row(size, lang, monkeypatch):
    # issue 39: "En la mano: Ana 0 · … · Hugo 1" went under the bar in Spanish at 800x480, 3 px short, then
    # fitted beside the title with 1 px to spare; now laid out with a margin (HANDS_MARGIN) by construction,
    # the bar growing the few pixels a third line needs (never the 30 px strip that ate the row)
    from companion.ui.screens.table import TableScreen

    k = at_table(size, lang)
    names = ["Ana", "Bruno", "Carmen", "David", "Elena", "Fernando", "Gloria", "Hugo"]
    info = TurnInfo("Hugo", 3, {n: int(n == "Hugo") for n in names}, False, ())
    monkeypatch.setattr(k.session.view, "turn", lambda session: info)
    k.step()
    hands = drawn(k, "hands")
    assert len(hands) == 1 and all(n in hands[0].text for n in names), hands
    assert pygame.Rect(hands[0].rect).bottom <= k.last.px(56 + 8), hands      # in the bar, grown a little
    assert not k.last.faults(), k.last.faults()
    others = [d for d in k.last.drawn if d.role in ("turn", "round")]
    assert not [d for d in others if pygame.Rect(d.rect).colliderect(hands[0].rect)], (hands, others)
    gap = pygame.Rect(hands[0].rect).left - max(pygame.Rect(d.rect).right for d in others)
    assert gap >= k.last.px(12 + TableScreen.HANDS_MARGIN), (gap, hands, others)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_exhibition_says_its_figures_count_filled_spots_not_cards_in_hand(tmp_path, lang):
    from test_ui_exhibition import new_game
    k, _feed = new_game(tmp_path, players=3, lang=lang)
    press(k, OK)                                  # the market as read
    hands = [d.text for d in drawn(k, "hands")]
    want = "Huecos ocupados: Ana\u00a00/" if lang == "es" else "Spots filled: Ana\u00a00/"
    assert len(hands) == 1 and hands[0].startswith(want), hands


def _canvas(size, lang="en"):
    from companion.ui.canvas import Canvas
    pygame.init()
    return Canvas(pygame.Surface(size), lang)


def _demo(year):
    from companion.cards.decks import get_deck
    return next(card for card in get_deck("DEMO").cards.values() if card.year == year)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_a_row_shows_its_years_first_and_counts_the_rest(size, lang):
    """Every card the row shows carries its year whole at the readable size; titles go before years
    (before: a long row showed 3 titled cards and "+15"), so an 18-card row shows every year, on as
    many lines as it needs; a row longer than the board shows the part around the card placed last
    and counts the cards beyond each end (the row's own screen shows it all, a page at a time)."""
    from companion.ui.games._draw import row_of_cards
    c = _canvas(size, lang)
    u = c.u
    area = pygame.Rect(int(128 * u), int(70 * u), int(660 * u), int(200 * u))    # the table's board
    cards = [_demo(y) for y in (1605, 1903, 1969, 1989, 2001, 1543)] * 3
    row_of_cards(c, area, cards, focus=14)
    years = [d.text for d in c.drawn if d.role == "card"]
    titles = [d.text for d in c.drawn if d.role == "card-title"]
    assert years == [str(card.year) for card in cards] and titles == []
    assert not [d for d in c.drawn if d.role == "more"]
    whole = c.drawn
    # three times as long: the part around the card placed last, the rest counted at the ends
    c = _canvas(size, lang)
    row_of_cards(c, area, cards * 3, focus=50)
    years = [d.text for d in c.drawn if d.role == "card"]
    more = [int(d.text[1:]) for d in c.drawn if d.role == "more" and d.text.startswith("+")]
    assert 18 <= len(years) < 54 and len(years) + sum(more) == 54
    first = more[0] if len(more) == 2 else 54 - len(years) if more else 0
    assert years == [str(card.year) for card in (cards * 3)[first:first + len(years)]]
    assert first <= 50 < first + len(years)                # the card placed last is on the screen
    for drawn in (whole, c.drawn):
        assert not [d for d in drawn if d.cut]
        assert not size_faults(drawn, u)
        assert all(area.contains(pygame.Rect(d.rect)) for d in drawn)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_the_grid_names_every_period_whole_and_writes_bc_on_the_years_line(size, lang):
    from companion.ui.games._draw import PERIOD_WORDS, grid_of_cards
    c = _canvas(size, lang)
    u = c.u
    area = pygame.Rect(int(16 * u), int(70 * u), int(768 * u), int(236 * u))    # the cooperative board
    years = [-7000, -776, 1215, 1453, 1789, -10000, 79, 1969, 1991, 2007, 622, 1776, 1815, 1992, 2001,
             -3200, -2560, 476, 1347, 1957, -753, 1492, 1517, 1605, 1903]
    rows = [[_demo(y) for y in years[r * 5:r * 5 + 5]] for r in range(5)]
    grid_of_cards(c, area, rows, [[None] * 5 for _ in range(4)])
    assert not [d for d in c.drawn if d.cut]
    periods = [d for d in c.drawn if d.role == "period"]
    assert sorted(d.text for d in periods) == sorted(c.tr(w) for w in PERIOD_WORDS.values())
    rects = [pygame.Rect(d.rect) for d in periods]
    assert not any(a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    shown = [d.text for d in c.drawn if d.role == "card"]
    from companion.cards.model import year_label
    assert {year_label(y, lang) for y in (-7000, -776)} <= set(shown)       # on one line
    eras = [d for d in c.drawn if d.role == "card-era"]        # else under its number, as big as it
    assert eras or lang == "en"
    assert all(d.px == next(n.px for n in c.drawn if n.role == "card" and n.rect[1] < d.rect[1] and
                            abs(n.rect[0] + n.rect[2] / 2 - d.rect[0] - d.rect[2] / 2) <= 1) for d in eras)
    assert not size_faults(c.drawn, u)
    assert all(area.contains(pygame.Rect(d.rect)) for d in c.drawn)


def test_a_word_too_wide_for_its_line_breaks_at_a_syllable():
    from companion.ui.canvas import hyphenate
    def fits(n):
        return lambda piece: len(piece) <= n
    assert hyphenate("Stonehenge", fits(7)) == ["Stone-", "henge"]
    assert hyphenate("heliocéntrico", fits(8)) == ["helio-", "céntrico"]
    assert hyphenate("heliocéntrico", fits(9)) == ["heliocén-", "trico"]
    assert hyphenate("Tenochtitlan", fits(8)) == ["Tenoch-", "titlan"]
    assert hyphenate("Rome", fits(9)) == ["Rome"]


@pytest.mark.parametrize("size", SIZES)
def test_an_ancient_knowledge_tile_splits_a_long_name_at_a_syllable(size):
    from companion.ui.games._ancient_board import _split
    c = _canvas(size)
    from companion.ui.canvas import font
    px = c.px(16)
    width = font(px, False).size("Stonehe")[0] + 1      # the tile of the screenshot: "Stonehe-" "nge" before
    assert _split("Stonehenge", px, width) == ["Stone-", "henge"]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_a_fault_screen_lists_its_checks_in_one_size(size, lang):
    """Before, each check had an equal share of the height: the long ones shrank beside short ones."""
    config = Config()
    config.kiosk.language = lang
    k = make(size=size, config=config)
    k.stack.push("fault:camera", "the demo camera cable was pulled out")
    k.step()
    checks = drawn(k, "check")
    assert len(checks) == 4 and not [d for d in k.last.drawn if d.cut]
    # one size for all four: each is one or more lines of the same height
    one = min(pygame.Rect(d.rect).h for d in checks)
    assert all(abs(pygame.Rect(d.rect).h - one * round(pygame.Rect(d.rect).h / one)) <= 2 for d in checks), checks
    ys = [pygame.Rect(d.rect).y for d in checks]
    assert ys == sorted(ys)
    for a, b in itertools.pairwise(checks):
        assert pygame.Rect(a.rect).bottom <= pygame.Rect(b.rect).top      # none overlaps the next


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", SIZES)
def test_the_picker_shows_every_game_in_one_size(size, lang):
    config = Config()
    config.kiosk.language = lang
    k = make(size=size, config=config, autoplay=False)
    k.step()
    press(k, OK)
    assert k.stack.top.name == "picker"
    for _ in range(len(k.stack.top.views)):
        items = [d for d in k.last.drawn if d.role.startswith("item")]
        assert len(items) == len(k.stack.top.views) and not [d for d in items if d.cut]
        # one size: every item's text is one or more lines of the same height
        one = min(pygame.Rect(d.rect).h for d in items)
        assert all(abs(pygame.Rect(d.rect).h - one * round(pygame.Rect(d.rect).h / one)) <= 2 for d in items), items
        press(k, NEXT)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_menu_says_what_menu_does_there(lang):
    k = at_table((800, 480), lang)
    press(k, MENU)
    assert k.stack.top.name == "menu"
    hint = [d.text for d in drawn(k, f"hint:{MENU}")]
    assert hint == (["MENÚ: cerrar"] if lang == "es" else ["MENU: close"]), hint
    press(k, MENU)
    assert k.stack.top.name == "table"


def _the_card_that_ends_a_timeline_game(lang):
    """The demo's kiosk at a Timeline game of three one card from its end (the game before it stored
    through the game session, as the kiosk stores it: Bruno and Carla each miss once, so Ana alone
    empties her hand), and that card laid in its gap on the virtual table, which the tracker reads."""
    import random

    from companion import app
    from companion.cards.decks import get_deck
    from companion.play.session import GameSession
    from companion.ui.games import view_for
    from companion.vision.layouts import RowLayout

    config = Config()
    config.kiosk.language = lang
    k = app.build(config, demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
    year = {c.code: c.year for c in get_deck("DEMO").cards.values() if c.code and c.year is not None}
    pile = sorted(year)
    random.Random(1).shuffle(pile)
    view = view_for("timeline")
    session = GameSession.start(k.store, view, view.setup_line(["Ana", "Bruno", "Carla"], {}, [pile.pop()]))
    for turn in itertools.count():
        row = [c.code for c in session.cards_on_table()]
        years = [year[c] for c in row]
        if turn in (1, 2):
            code = next(c for c in pile if year[c] < years[0])
            gap = len(row)
        else:
            code = next(c for c in pile if year[c] not in years)
            gap = sum(1 for y in years if y < year[code])
        pile.remove(code)
        action = view.place(session.current_player(), session.card(code), gap)
        if session.engine.summary(session.preview(action)[0])["status"] != "in_progress":
            break
        session.confirm(action)
    k.session = session
    k.stack.push("table")
    k.demo.table.show(RowLayout(row[:gap] + [code] + row[gap:]))
    for _ in range(30):
        k.step()
        if k.stack.top.phase == "propose":
            break
    press(k, OK)
    return k


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_verdict_that_ends_the_game_is_framed_as_the_end_not_as_the_cards_fault(lang):
    """The winner heads the verdict at the left, with no big cross or tick beside it (a red cross
    beside "Ana wins the game!" read as her loss); the card's verdict follows in words."""
    k = _the_card_that_ends_a_timeline_game(lang)
    assert k.stack.top.name == "table" and k.stack.top.phase == "verdict" and k.stack.top.turns.ending is not None, \
        k.texts()[:8]
    verdict, reason = drawn(k, "verdict"), drawn(k, "reason")
    winner = k.session.summary()["winner"]
    assert [d.text for d in verdict] == [f"¡{winner} gana la partida!" if lang == "es" else f"{winner} wins the game!"]
    assert pygame.Rect(verdict[0].rect).x < k.last.px(60)
    correct = k.stack.top.turns.verdict(lang).correct
    said = {("en", True): "Correct", ("en", False): "Wrong", ("es", True): "¡Correcto", ("es", False): "Incorrecto"}
    assert reason[0].text.startswith(said[lang, correct])
    assert pygame.Rect(verdict[0].rect).bottom <= pygame.Rect(reason[0].rect).top


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_cooperative_bar_says_lives_in_words(lang):
    from companion.ui.games import view_for
    view = view_for("cronologia-cooperative")

    class Session:
        def current_player(self):
            return "Ana"

        def summary(self):
            return {"lives": 4, "score": 0, "status": "in_progress", "round": None, "hands": {"Ana": 4}}

    c = _canvas((800, 480), lang)
    extra = [c.tr(t) for t in view.turn(Session()).extra]
    assert extra == (["Vidas 4", "Puntos 0"] if lang == "es" else ["Lives 4", "Score 0"])


@pytest.mark.parametrize("size", SIZES)
def test_the_depot_label_stays_inside_the_hall_in_spanish(tmp_path, size):
    from test_ui_exhibition import new_game

    from companion.ui.games._exhibition_board import draw_hall
    k, _feed = new_game(tmp_path, players=2, lang="es")
    press(k, OK)
    s = k.session.state
    c = _canvas(size, "es")
    u = c.u
    hall = pygame.Rect(int(22 * u), int(76 * u), int(756 * u), int(240 * u))   # the board beside the prompt band
    draw_hall(c, hall, s.players[0].exhibit, s.layout)
    label = next(d for d in c.drawn if d.text == "Depósito")
    assert hall.contains(pygame.Rect(label.rect)) and not label.cut


@pytest.mark.parametrize("size", SIZES)
def test_a_full_hall_of_the_largest_showcases_keeps_its_years_readable(size):
    """Showcases of 12 spots (the board file's limit) go on over further lines, and where the Hall is
    still too tall the largest are summed up (cards / spots), rather than shrink a year under READ_TEXT;
    beside the prompt band and beside a question alike. The spot a proposal is about is always drawn."""
    from companion.cards.model import Card
    from companion.games.exhibition.board import Layout
    from companion.games.exhibition.rules import Exhibit
    from companion.ui.canvas import size_faults
    from companion.ui.games._exhibition_board import draw_hall
    layout = Layout((("one_continent", 12), ("one_era", 12), ("plain", 6), ("years_gap", 2), ("mid_century", 1)), 4)
    exhibit = Exhibit.empty("Ana", layout)
    for key, n in layout.spots:
        for i in range(n):
            exhibit = exhibit.with_card(key, i, Card(year=1900 + i, continent="EU"))
    for w, h in ((756, 240), (424, 330)):
        c = _canvas(size, "es")
        area = pygame.Rect(int(12 * c.u), int(70 * c.u), int(w * c.u), int(h * c.u))
        draw_hall(c, area, exhibit, layout, mark="depot[0]", new_card=Card(year=1988, continent="SA"))
        years = [d.text for d in c.drawn if d.role in ("card", "card-new")]
        summed = [d.text for d in c.drawn if d.role == "showcase" and "/" in d.text]
        assert "1988" in years and summed[:2] == ["12/12", "12/12"]
        assert len(years) + sum(int(t.split("/")[1]) for t in summed) == layout.hall_size + 1
        assert not size_faults(c.drawn, c.u) and not [d for d in c.drawn if d.cut]
        assert all(area.contains(pygame.Rect(d.rect)) for d in c.drawn)


def test_spanish_dates_read_antes_de_cristo_and_stay_whole():
    from companion.cards.model import Card, year_label
    from companion.ui.games._draw import row_of_cards
    assert year_label(-44, "es") == "44 a.\u00a0C." and year_label(-44) == "44 BC" and year_label(79, "es") == "79"
    for size in SIZES:
        c = _canvas(size, "es")
        area = pygame.Rect(int(128 * c.u), int(70 * c.u), int(660 * c.u), int(216 * c.u))
        row_of_cards(c, area, [Card(year=-44, title="César"), Card(year=79, title="Pompeya")])
        shown = " ".join(d.text for d in c.drawn if d.role in ("card", "card-era"))
        assert "BC" not in shown and "44" in shown and "a.\u00a0C." in shown
        assert not [d for d in c.drawn if d.cut]


def test_a_spanish_verdict_says_a_c_not_bc():
    from companion.ui.games import view_for
    row = [_demo(-753), _demo(-44), _demo(79)]
    view = view_for("timeline")
    assert view.where(row, 1, "es") == "entre 753 a.\u00a0C. y 44 a.\u00a0C."
    assert view.where(row, 1, "en") == "between 753 BC and 44 BC"


@pytest.mark.parametrize("lang,label", [("en", "Cards in the row"), ("es", "Cartas en la fila")])
def test_the_timeline_score_names_the_row_not_the_game(lang, label):
    from companion.ui.games import view_for

    class Session:
        def summary(self):
            return {"players": ["Ana", "Bruno"], "hands": {"Ana": 0, "Bruno": 2}, "winner": "Ana", "round": 5,
                    "timeline": [1, 2, 3], "status": "finished"}

    _headline, _good, rows = view_for("timeline").score_sheet(Session())
    c = _canvas((800, 480), lang)
    assert c.tr(rows[-1].label) == label and rows[-1].value == "3"
    # every figure says what it counts ("Ana 0", "Rounds 9" before)
    assert [c.tr(r.label) for r in rows[:2]] == {"en": ["Ana: cards in hand", "Bruno: cards in hand"],
                                                  "es": ["Ana: cartas en la mano", "Bruno: cartas en la mano"]}[lang]


def test_a_number_never_starts_a_line_without_its_label():
    c = _canvas((800, 480))
    from companion.ui.canvas import font
    px = c.px(22)
    text = "Past 12 · End-game 41 · Tech 0 · In the Timeline 0 · Lost -33"
    width = font(px, False).size("Past 12 · End-game 41 · Tech 0 · In the Timeline 0 · Lost")[0] + 2
    lines = c.wrap(text, px, False, width)
    assert lines[-1] == "Lost -33" and all(not line.split(" ")[0].lstrip("-").isdigit() for line in lines)


def test_the_camera_fault_says_the_demo_cameras_words_in_spanish_and_labels_a_drivers_own():
    from companion.ui.demo import CABLE_PULLED
    config = Config()
    config.kiosk.language = "es"
    k = make(size=(800, 480), config=config)
    k.stack.push("fault:camera", CABLE_PULLED)
    k.step()
    assert drawn(k, "check")[-1].text == \
        "Lo que dijo la cámara: se ha desconectado el cable de la cámara de demostración"
    k.stack.push("fault:camera", "RuntimeError: Camera frontend has timed out!")
    k.step()
    assert drawn(k, "check")[-1].text == ("Lo que dijo la cámara, con sus propias palabras (en inglés): "
                                         "RuntimeError: Camera frontend has timed out!")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_unknown_card_screen_says_what_to_do_at_the_table_and_where_the_owner_finds_how_not_a_log_file(lang):
    config = Config()
    config.kiosk.language = lang
    k = make(size=(800, 480), config=config)
    k.stack.push("fault:unknown-card", "TC:DEMO:999", lambda: None)
    k.step()
    checks = [d.text for d in drawn(k, "check")]
    assert checks[0].startswith({"en": "Take that card off the table", "es": "Quita esa carta de la mesa"}[lang])
    assert "docs/decks.md" in checks[1] and "companion deck" not in " ".join(checks)   # the guide gives it
    assert not [t for t in k.texts() if "kiosk.log" in t or "/tmp" in t]
    assert not [d for d in k.last.drawn if d.cut]


def test_a_box_that_needs_more_takes_it_from_the_others():
    from companion.ui.screen import hint_widths
    assert hint_widths([100, 100, 100, 100], 800) == [200, 200, 200, 200]
    assert hint_widths([100, 300, 0, 150], 800) == [166, 300, 166, 166]
    assert hint_widths([300, 300, 300, 100], 800) == [240, 240, 240, 80]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_footer_is_one_whole_line(size, lang):
    """The longest footers the kiosk shows (issue 31: Spanish ones wrapped onto two small lines): one
    line each, whole, at 18 px or more."""
    from companion.i18n import Text
    from companion.inputs.commands import UNDO
    from companion.ui.screen import draw_hints
    bars = [{NEXT: "read again", UNDO: "history / undo", OK: "choose the spot", MENU: "menu"},
            {NEXT: "next line", UNDO: "history / undo", OK: "continue the game", MENU: "close"},
            {NEXT: "next choice", UNDO: "history / undo", OK: "choose", MENU: "menu"},
            {NEXT: "next name", UNDO: "delete", OK: "press key", MENU: "menu"},
            {OK: Text("{player} tries again", {"player": "Maximiliano"}), MENU: "menu"}]
    for hints in bars:
        c = _canvas(size, lang)
        draw_hints(c, hints)
        drawn = [d for d in c.drawn if d.role.startswith("hint:")]
        assert len(drawn) == len(hints) and "\n" not in "".join(d.text for d in drawn)
        assert not [d for d in drawn if d.cut] and min(d.px for d in drawn) >= round(18 * c.u), drawn
