"""The screenshots of the board games' kiosk views in docs/screens/ (800x480 and 1920x1080): the
board view, a verdict, a question and the score sheet of Exhibition and of Ancient Knowledge.

    SDL_VIDEODRIVER=dummy .venv/bin/python tests/board_screens.py docs/screens

Each game is played through the kiosk's command stream with the fake camera of board_kiosk.py,
from a seeded robot game resumed half-way (as after a restart) or from the first turn."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("COMPANION_DATA", tempfile.mkdtemp(prefix="companion-screens-"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygame  # noqa: E402
from board_kiosk import Detection, choose, detection, make_kiosk, press, start_game  # noqa: E402

from companion.games.base import refusal  # noqa: E402
from companion.inputs.commands import NEXT, OK  # noqa: E402


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
    from companion.store.log import GameLog
    from companion.ui.session import GameSession

    store = GameLog(tmp / "games.sqlite")
    game = store.new_game(lines[0])
    for line in lines[1:upto]:
        store.append(game, line)
    store.close()
    k, feed = make_kiosk(tmp, size)
    k.session = GameSession.resume(k.store)
    k.stack.push("table")
    k.step()
    return k, feed


def exhibition(out: Path, size, tmp: Path) -> None:
    from companion.games.exhibition.autoplay import play_game
    from companion.games.exhibition.cards import card_json

    def save(what):
        pygame.image.save(k.surface, str(out / f"exhibition-{what}-{size[0]}x{size[1]}.png"))

    lines = play_game(["Ana", "Bruno", "Carla"], seed=3, secret_decade=True, variations={"years_gap": "short_era"})
    secrets = [line for line in lines if line["type"] == "secret"]
    body = [line for line in lines[1:] if line["type"] != "secret"]
    # half-way: the secret decades and 40 lines, at the start of a turn
    upto = next(i for i in range(40, len(body)) if body[i]["type"] == "take")
    k, feed = resumed(tmp / "exh-mid", size, [lines[0]] + secrets + body, len(secrets) + 1 + upto)
    save("prompt")                                             # which card does ... take?
    while k.stack.top.phase == "ask":                          # the first card; the refill's first decade, card
        press(k, OK, index=0)
    s = k.session.state
    feed.board = {spot: code for spot, code in feed.expected.spots.items()}
    photograph(k, feed, "exhibition")
    save("board")
    wrong = next(spot for spot in s.layout.spot_names() if not spot.startswith("depot") and
                 spot not in feed.board and refusal(k.session.preview(
                     {"type": "place", "player": s.player.name, "card": card_json(s.turn.held), "spot": spot})[1]))
    feed.board[wrong] = s.turn.held.code
    k.step()
    save("verdict")
    k, feed = resumed(tmp / "exh-end", size, [lines[0]] + secrets + body, len(secrets) + 1 + len(body) - 3)
    choose(k, "1943 OC")
    choose(k, "1920s")
    choose(k, "1927")
    choose(k, "End the exhibition")
    press(k, OK)
    save("standings")
    press(k, NEXT)
    save("score")


def ancient_knowledge(out: Path, size, tmp: Path) -> None:
    from companion.ui.games.ancient_knowledge import _codes
    codes = _codes()

    def save(what):
        pygame.image.save(k.surface, str(out / f"ancient-knowledge-{what}-{size[0]}x{size[1]}.png"))

    def lay(spot, card):
        feed.board = dict(feed.expected.spots)
        feed.board[spot] = codes[card]
        k.step()

    def item(text):
        items = [d.text for d in k.last.drawn if d.role.startswith("choice")]
        press(k, OK, index=items.index(text))

    k, feed = make_kiosk(tmp / "ak", size)
    start_game(k, "ancient-knowledge", 2)
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
    k, feed = resumed(tmp / "ak-end", size, lines, cut)
    play_through_the_kiosk(k, feed, lines[cut:])
    save("standings")
    press(k, NEXT)
    save("score")


def main(out: str) -> int:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    pygame.display.init()
    for size in ((800, 480), (1920, 1080)):
        with tempfile.TemporaryDirectory() as tmp:
            for sub in ("exh-mid", "exh-end", "ak", "ak-end"):
                (Path(tmp) / sub).mkdir()
            exhibition(folder, size, Path(tmp))
            ancient_knowledge(folder, size, Path(tmp))
    print(f"wrote {len(list(folder.glob('exhibition-*.png')) + list(folder.glob('ancient-knowledge-*.png')))} "
          f"screenshots to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screens"))
