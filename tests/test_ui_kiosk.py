"""The kiosk, headless: driven through the command stream, read through what each screen drew."""

import pygame
import pytest

from companion.config import Config
from companion.inputs.commands import BACK, MENU, NEXT, OK, PREV, TEXT, UNDO, Command


def make(size=(800, 480), autoplay=True, config=None, tour=False):
    from companion import app
    k = app.build(config or Config(), demo=True, windowed=True, size=size, autoplay=autoplay, threaded=False)
    k.demo.tour = []
    if tour:
        from companion.ui.demo import TOUR
        k.demo.tour = list(TOUR)
    return k


def frame(k):
    k.demo.tick(k.clock())
    k.step()


def run_until(k, pred, frames=400):
    for _ in range(frames):
        frame(k)
        if pred(k):
            return
    raise AssertionError(f"never happened; stuck on {k.screen_key()}: {k.texts()[:12]}")


def press(k, kind, **kw):
    k.stream.post(Command(kind, **kw))
    k.step()


def test_proposal_verdict_and_what_the_screen_says():
    k = make(autoplay=False)
    k.demo.think = 0
    k.demo.autoplay = False
    press(k, OK)                       # attract -> picker
    press(k, OK)                       # Timeline
    for _ in range(7):
        press(k, NEXT)                 # down to "Start the game"
    assert "Start the game" in [d.text for d in k.last.drawn if d.role == "row:focus"]
    press(k, OK)
    run_until(k, lambda k: k.stack.top.phase == "deal" and k.stack.top.setup_codes is not None)
    assert any("Press OK to start" in t for t in k.texts())
    press(k, OK)
    run_until(k, lambda k: k.stack.top.phase == "propose")
    assert any(t.startswith("Ana put “") for t in k.texts())
    press(k, OK)
    k.step()
    assert k.stack.top.phase == "verdict"
    verdict = [d.text for d in k.last.drawn if d.role == "verdict"]
    assert verdict in (["Correct!"], ["Wrong"])
    reason = [d.text for d in k.last.drawn if d.role == "reason"][0]
    assert "is from" in reason
    assert k.session.lines[0]["player"] == "Ana"


def test_misread_is_not_stored():
    k = make(autoplay=False)
    k.demo.think = 0
    for kind in (OK, OK):
        press(k, kind)
    while k.stack.top.name == "players" and k.stack.top.rows()[k.stack.top.focus][0] != "start":
        press(k, NEXT)
    press(k, OK)
    run_until(k, lambda k: k.stack.top.phase == "deal" and k.stack.top.setup_codes is not None)
    press(k, OK)
    run_until(k, lambda k: k.stack.top.phase == "propose")
    proposed = k.stack.top.turns.pending
    press(k, UNDO)
    assert k.stack.top.phase == "watch" and k.session.lines == []
    assert any("camera reads the table again" in t for t in k.texts())
    # NEXT ("read again"), the card unmoved on the virtual table: the camera proposes it again
    press(k, NEXT)
    run_until(k, lambda k: k.stack.top.phase == "propose")
    assert k.stack.top.turns.pending == proposed and k.session.lines == []


def test_read_again_in_a_camera_question_of_the_demo():
    """The demo's Exhibition asks which card Ana takes; a player lays it on her mat instead, the virtual
    camera proposes the take, and UNDO calls it a misread: the question is open again, and its "Read the
    table again" has the camera propose the card, unmoved, once more."""
    k = make()
    k.demo.games = ["exhibition"]

    def asked(k):
        top = k.stack.top
        return top.name == "table" and top.phase == "ask" and top.turns.asks[0][0].camera and k.session is not None
    run_until(k, asked)
    k.demo.autoplay = False                         # the players' hands from here are the test's
    players, session = k.demo.boards, k.session
    stored = len(session.lines)
    take = next(v for _label, v in k.stack.top.turns.asks[0][1].items if session.line(v)["type"] == "take")
    spot = players.best_spot(take.card.code, session.table())
    players.lay(take.card.code, spot[1] if spot else "one_era[0]")
    run_until(k, lambda k: k.stack.top.phase == "propose", 60)
    proposed = k.stack.top.turns.pending
    press(k, UNDO)
    assert k.stack.top.phase == "ask" and len(session.lines) == stored      # nothing stored
    assert "Put the cards as they really are, then choose “Read the table again”." in k.texts()
    items = k.stack.top.turns.asks[0][1].items
    assert "Read the table again" in [d.text for d in k.last.drawn if d.role.startswith("choice")]
    for _ in range(6):
        frame(k)
    assert k.stack.top.phase == "ask"               # not proposed again by itself
    press(k, OK, index=len(items) - 1)
    run_until(k, lambda k: k.stack.top.phase == "propose", 60)
    assert k.stack.top.turns.pending == proposed and len(session.lines) == stored


def test_language_switches_at_once():
    k = make(autoplay=False)
    k.step()
    assert "Press OK to start" in k.texts()
    press(k, NEXT)
    k.step()
    assert "Pulsa OK para empezar" in k.texts()
    assert "OK: empezar" in k.texts()


def test_settings_behind_the_cafe_pin():
    cfg = Config()
    cfg.kiosk.cafe_pin = "4321"
    k = make(autoplay=False, config=cfg)
    k.step()
    press(k, MENU)
    assert k.stack.top.name == "menu"
    values = [v for _, v in k.stack.top.choice.items]
    press(k, OK, index=values.index("settings"))
    assert k.stack.top.name == "pin"
    k.stream.post(Command(TEXT, text="1111"))
    k.step()
    press(k, OK, index=11)              # ✓
    k.step()
    assert "Wrong PIN" in k.texts() and k.stack.top.name == "pin"
    k.stream.post(Command(TEXT, text="4321"))
    k.step()
    press(k, OK, index=11)
    assert k.stack.top.name == "settings"


def test_a_name_typed_with_the_four_buttons():
    k = make(autoplay=False)
    for kind in (OK, OK):               # attract -> picker -> players
        press(k, kind)
    assert k.stack.top.name == "players"
    press(k, NEXT)                      # "Player 1: ..."
    press(k, OK)
    assert k.stack.top.name == "name"
    press(k, OK, index=len(k.stack.top.choice.items) - 1)     # "Type a name…"
    assert k.stack.top.name == "keyboard"
    press(k, NEXT)                      # B
    press(k, OK)
    press(k, NEXT)                      # C
    press(k, OK)
    press(k, UNDO)                      # deletes the C
    press(k, PREV)                      # back to B... then A
    press(k, PREV)
    press(k, OK)
    assert k.stack.top.value == "Ba"
    press(k, OK, index=len(k.stack.top.keys) - 1)             # ✓
    assert k.stack.top.name == "players" and k.stack.top.names[0] == "Ba"


def test_ines_and_jose_are_typed_with_the_buttons_and_an_emoji_or_a_13th_letter_is_refused_aloud():
    from companion.ui.screens.players import MAX_NAME
    k = make(autoplay=False)
    for kind in (OK, OK):               # attract -> picker -> players
        press(k, kind)
    press(k, NEXT)
    press(k, OK)
    press(k, OK, index=len(k.stack.top.choice.items) - 1)     # "Type a name…"
    board = k.stack.top
    for letter in "INÉS":
        press(k, OK, index=board.keys.index(letter))
    assert board.value == "Inés"
    board.value = ""
    for letter in "JOSÉ":
        press(k, OK, index=board.keys.index(letter))
    assert board.value == "José" and {"Á", "É", "Í", "Ó", "Ú", "Ü", "Ñ"} <= set(board.keys)
    press(k, TEXT, text="\U0001F600")                          # an emoji from a keyboard
    assert board.value == "José" and "Left out: the screen cannot show that sign" in k.texts()
    board.value = "Maximiliano"
    press(k, TEXT, text="sXY")
    assert len(board.value) == MAX_NAME == 12 and board.value == "Maximilianos"
    assert "At most 12 letters" in k.texts()


def test_idle_kiosk_goes_back_to_the_attract_screen():
    now = [1000.0]
    k = make(autoplay=False)
    k.clock = lambda: now[0]
    k.last_input = now[0]
    press(k, OK)
    assert k.stack.top.name == "picker"
    now[0] += k.config.kiosk.idle_minutes * 60 + 1
    k.step()
    assert k.stack.top.name == "attract"


def test_a_full_disk_is_shown_and_the_action_is_kept_for_retry():
    k = make()
    run_until(k, lambda k: k.stack.top.name == "table" and k.stack.top.phase == "propose")
    k.demo.autoplay = False
    from companion.store.log import StoreError
    real_append = k.store.append

    def disk_full(game_id, line):      # the store's own message for SQLITE_FULL (tests/test_store.py)
        k.store.append = real_append
        raise StoreError(f"{k.store.path}: the disk is full (database or disk is full); nothing new was saved")
    k.store.append = disk_full
    press(k, OK)
    assert k.stack.top.name == "fault:store"
    k.step()
    assert any("database or disk is full" in t for t in k.texts())
    assert k.session.lines == []
    press(k, OK)                       # save again
    assert k.stack.top.name == "table" and k.stack.top.phase == "verdict"
    assert len(k.session.lines) == 1


def test_a_bug_shows_a_fault_screen_not_a_traceback(tmp_path):
    k = make(autoplay=False)
    k.step()

    def broken(c):
        raise RuntimeError("boom")
    k.stack.top.draw = broken
    k.step()
    k.step()
    assert k.stack.top.name == "fault:bug"
    assert not any("Traceback" in t or "boom" in t for t in k.texts())
    assert "RuntimeError: boom" in k.error_log().read_text()
    press(k, OK)
    assert k.stack.top.name == "attract"


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_every_screen_fits_the_surface(size):
    k = make(size=size, tour=True)
    seen = {}

    def look(k):
        seen[k.screen_key()] = list(k.last.drawn)
        return k.demo.turns >= 5 and not k.demo.tour
    run_until(k, look, 900)
    w, h = size
    for key, drawn in seen.items():
        for d in drawn:
            x, y, dw, dh = d.rect
            assert x >= 0 and y >= 0 and x + dw <= w and y + dh <= h, (key, d)
    cut = sorted({(key, d.role, d.text) for key, drawn in seen.items() for d in drawn if d.cut})
    assert not cut, "\n".join(map(repr, cut))
    for needed in ("fault:foreign-code", "fault:unknown-card", "fault:camera", "menu", "history", "settings"):
        assert needed in seen, needed


def test_touch_is_the_same_as_the_buttons():
    k = make(autoplay=False)
    k.step()
    rect = next(r for r, c in k.last.hits if c.kind == OK)
    k.click(rect.center)
    k.step()
    assert k.stack.top.name == "picker"


def test_keyboard_map():
    from companion.inputs.keys import key_command
    def ev(key, uni=""):
        return pygame.event.Event(pygame.KEYDOWN, key=key, unicode=uni, mod=0)

    assert key_command(ev(pygame.K_RETURN)).kind == OK
    assert key_command(ev(pygame.K_SPACE, " ")).kind == OK
    assert key_command(ev(pygame.K_BACKSPACE)).kind == UNDO
    assert key_command(ev(pygame.K_u, "u")).kind == UNDO
    assert key_command(ev(pygame.K_n, "n")).kind == NEXT
    assert key_command(ev(pygame.K_RIGHT)).kind == NEXT
    assert key_command(ev(pygame.K_ESCAPE)).kind == MENU
    assert key_command(ev(pygame.K_m, "m")).kind == MENU
    assert key_command(ev(pygame.K_n, "n"), typing=True).text == "n"
    assert key_command(ev(pygame.K_BACKSPACE), typing=True).text == "\b"
    _ = BACK


RESTART_CHILD = """
import os, sys
os.environ["SDL_VIDEODRIVER"] = "dummy"
sys.path.insert(0, sys.argv[2])
from companion import app
from companion.config import Config
from companion.store.log import GameLog
k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False,
              store=GameLog(sys.argv[1]))
k.demo.tour = []
seen = 0
while True:
    k.demo.tick(k.clock())
    k.step()
    if k.session is not None and len(k.session.lines) != seen:
        seen = len(k.session.lines)
        print(seen, k.session.engine.current_player(k.session.state), flush=True)
"""


def test_killed_mid_game_it_comes_back_to_the_same_game_and_turn(tmp_path):
    """The kiosk is killed (SIGKILL, a power cut) after its fourth stored action and started again."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from companion import app
    from companion.store.log import GameLog

    db = tmp_path / "games.sqlite"
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, COMPANION_DATA=str(tmp_path / "data"), PYGAME_HIDE_SUPPORT_PROMPT="1")
    child = subprocess.Popen([sys.executable, "-c", RESTART_CHILD, str(db), str(root)], stdout=subprocess.PIPE,
                             text=True, env=env)
    try:
        last = None
        for line in child.stdout:
            last = line.split()
            if int(last[0]) >= 4:
                break
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    assert last is not None and int(last[0]) >= 4, "the child kiosk never stored 4 actions"
    confirmed, player = int(last[0]), last[1]

    store = GameLog(db)
    k = app.build(Config(), demo=False, windowed=True, size=(800, 480), threaded=False, store=store,
                  table=_StillTable())
    assert k.stack.top.name == "table"
    assert len(k.session.lines) >= confirmed
    k.step()
    text = " ".join(k.texts())
    current = k.session.engine.current_player(k.session.state)
    if len(k.session.lines) == confirmed:
        assert current == player
    assert current in text


class _StillTable:
    """A camera that shows nothing new (the restarted kiosk is only looked at)."""

    def expect(self, layout):
        pass

    def poll(self):
        return None

    def close(self):
        pass


def test_the_simulated_players_start_only_from_the_cards_they_laid():
    k = make(autoplay=False)
    demo = k.demo
    demo.grid = [["TC:DEMO:001", "TC:DEMO:002"], [None, None], ["TC:DEMO:003", "TC:DEMO:004"]]
    assert demo.sees_what_was_laid([["TC:DEMO:001", "TC:DEMO:002"], ["TC:DEMO:003", "TC:DEMO:004"]])
    assert not demo.sees_what_was_laid([["TC:DEMO:001", "TC:DEMO:002"], ["TC:DEMO:003", "TC:DEMO:005"]])
    assert not demo.sees_what_was_laid(None)
    demo.grid, demo.row = [], ["TC:DEMO:007"]
    assert demo.sees_what_was_laid(["TC:DEMO:007"]) and not demo.sees_what_was_laid(["TC:DEMO:008"])


def test_an_autoplay_stopped_early_says_so_and_fails(capsys, monkeypatch):
    import pygame

    from companion import app
    monkeypatch.setattr(pygame, "quit", lambda: None)     # the fonts cached for the other tests stay valid
    k = make()
    pygame.event.post(pygame.event.Event(pygame.QUIT))      # what SDL makes of SIGTERM or a closed window
    assert app.main_loop(k, turns=50) == 1
    assert "autoplay stopped after 0 of 50 turns" in capsys.readouterr().err


def test_the_demos_game_log_is_removed_with_it():
    import gc
    from pathlib import Path

    from companion import app
    log = app.open_store(demo=True)
    folder = Path(log.path).parent
    assert folder.name.startswith("companion-demo-") and folder.exists()
    log.close()
    del log
    gc.collect()
    assert not folder.exists()


def _menu_in_a_game():
    """A kiosk in the middle of a demo Timeline game, with the menu open."""
    k = make()
    run_until(k, lambda k: k.session is not None and len(k.session.lines) >= 2 and k.stack.top.name == "table")
    k.demo.autoplay = False
    press(k, MENU)
    assert k.stack.top.name == "menu"
    return k


def _choose(k, value):
    values = [v for _, v in k.stack.top.choice.items]
    press(k, OK, index=values.index(value))


@pytest.mark.parametrize("entry", ["continue", "history", "lang", "settings", "end", "attract", "quit"])
def test_every_menu_entry(entry):
    k = _menu_in_a_game()
    values = [v for _, v in k.stack.top.choice.items]
    assert values == ["continue", "history", "lang", "settings", "end", "attract", "quit"]
    game = k.session.game_id
    _choose(k, entry)
    k.step()
    top = k.stack.top.name
    assert not top.startswith("fault"), k.texts()
    if entry == "continue":
        assert top == "table"
    elif entry == "history":
        assert top == "history"
    elif entry == "lang":
        assert top == "menu" and k.lang == "es" and "Idioma: Español" in k.texts()
    elif entry == "settings":
        assert top == "settings"
    elif entry == "end":
        assert top == "confirm"
        press(k, OK)
        k.step()
        assert k.stack.top.name == "attract" and not k.game_in_progress()
        assert k.store.in_progress() is None
        assert [g["status"] for g in k.store.games() if g["id"] == game] == ["abandoned"]
    elif entry == "attract":
        assert top == "attract" and k.game_in_progress()       # the game is kept, not ended
    elif entry == "quit":
        assert not k.running


def test_the_demo_without_a_screen_says_what_to_do_and_exits_2(tmp_path):
    """`./dev.sh demo` on a machine with no display: one line with the way out, exit 2, no endless run."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "companion", "kiosk", "--demo", "--windowed"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("display:")]
    assert len(lines) == 1 and "--autoplay 40 --screenshots shots/" in lines[0] and "companion doctor" in lines[0]
    assert "Traceback" not in out.stderr


def test_the_unknown_card_screen_tells_the_players_what_to_do_and_logs_the_owners_command(caplog):
    import logging

    caplog.set_level(logging.WARNING)
    k = make(tour=True)
    run_until(k, lambda k: k.stack.top.name == "fault:unknown-card", frames=1500)
    shown = " ".join(k.texts())
    assert "Take that card off the table" in shown and "For the owner" in shown
    assert "companion deck" not in shown                     # no shell command for a café's customers
    assert any("companion deck" in r.getMessage() for r in caplog.records)
