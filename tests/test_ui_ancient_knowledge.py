"""Ancient Knowledge in the kiosk, headless: turns driven through the command stream, the camera
played by a fake board feed (tests/board_kiosk.py), what the screen says read through
``Kiosk.texts()``."""

import pytest
from board_kiosk import choose, detection, drawn, make_kiosk, press, sheet_page, start_game

from companion.games.base import refusal
from companion.inputs.commands import NEXT, OK, UNDO
from companion.ui.games.ancient_knowledge import _codes

TILES = [["thales", "aristotle", "mercury"], ["runic-alphabet", "the-number-pi", "ptolemy"],
         ["golden-mean", "plato", "thoth"]]


def code(card: str) -> str:
    return _codes()[card]


def new_game(tmp_path, size=(800, 480), lang="en", players=2):
    k, feed = make_kiosk(tmp_path, size, lang)
    start_game(k, "ancient-knowledge", players)
    feed.detections = [detection(code(c), 80 + (3 * i + j) * 70, 120) for i, tile in enumerate(TILES)
                       for j, c in enumerate(tile)]
    k.step()
    press(k, OK)
    return k, feed


def lay(k, feed, spot: str, card: str) -> None:
    """A card laid on the active player's mat, the rest as the kiosk expects it."""
    feed.board = dict(feed.expected.spots)
    feed.board[spot] = code(card)
    k.step()


def choose_exactly(k, text: str) -> None:
    items = drawn(k, "choice")
    assert text in items, (text, items)
    press(k, OK, index=items.index(text))


def test_the_tiles_are_read_at_setup(tmp_path):
    k, feed = make_kiosk(tmp_path)
    start_game(k, "ancient-knowledge", 2)
    feed.detections = [detection(code(c), 100 + i * 60, 100) for i, c in enumerate(TILES[0] + TILES[2])]
    k.step()
    assert "The camera sees 3 Level I and 3 Level II technologies; the tiles need 6 and 3." in k.texts()
    feed.detections = [detection(code(c), 80 + (3 * i + j) * 70, 120) for i, tile in enumerate(TILES)
                       for j, c in enumerate(tile)]
    k.step()
    assert any(text.startswith("Read: tile 1 Thales, Aristotle, Mercury; tile 2 Runic Alphabet") for text in k.texts())
    press(k, OK)
    assert k.session.setup_line["tiles"] == TILES
    assert k.stack.top.phase == "watch"
    assert ("Ana: lay a card on your board to create or learn, or press OK for the other actions. Zone 1 is empty: "
            "nothing declines this turn.") in k.texts()


def test_create_knowledge_and_the_decline_at_the_end_of_the_turn(tmp_path):
    k, feed = new_game(tmp_path)
    lay(k, feed, "zone5.lower", "karnak-temple")
    assert "Ana puts Karnak Temple in zone 5: it costs 2 cards besides itself." in k.texts()
    press(k, OK)
    assert drawn(k, "verdict") == ["Karnak Temple created"]
    assert "Karnak Temple in zone 5, lower row: 2 cards discarded besides it; Ana holds 3 now." in k.texts()
    assert "OK: Ana goes on" in k.texts()              # the first of her two actions: not "next turn"
    press(k, OK)
    assert "How many knowledge tokens go on Karnak Temple? Printed 8." in k.texts()
    assert drawn(k, "choice:focus") == ["8"]
    choose_exactly(k, "8")
    lay(k, feed, "artifact[0]", "dogu-figurines")
    press(k, OK)
    assert drawn(k, "then") == ["Slide every monument of the Timeline one zone to the left. Next: Bruno, round 1."]
    assert k.session.summary()["players"][0]["zones"][3]["lower"]["name"] == "Karnak Temple"     # zone 5 -> 4
    press(k, OK)

    feed.board = {}                                    # Bruno's mat under the camera
    lay(k, feed, "zone1.lower", "tiwanaku")
    press(k, OK)
    press(k, OK)
    choose_exactly(k, "2")                             # knowledge
    assert "Resolve the effect of Tiwanaku: record what it changes, then OK." in k.texts()
    choose(k, "Record what it changed")
    choose(k, "Drew cards")
    choose_exactly(k, "1")
    choose(k, "Done")
    assert ("Bruno: lay a card on your board to create or learn, or press OK for the other actions. At the end of "
            "the turn zone 1 declines: Tiwanaku (◆2).") in k.texts()
    press(k, OK)
    assert "What did Bruno do?" in k.texts()
    choose(k, "Search")
    assert drawn(k, "verdict") == ["End of Bruno's turn"]
    assert "OK: Ana's turn" in k.texts()
    assert not [t for t in k.texts() if t.startswith("Actions left")]     # Ana's count, not Bruno's
    verdict = next(d for d in k.last.drawn if d.role == "verdict")
    reason = next(d for d in k.last.drawn if d.role == "reason")
    assert verdict.rect[0] == reason.rect[0]           # no mark: the title starts where the words below it do
    assert drawn(k, "turn") == ["Bruno's turn"]        # a search is no card ("Bruno's card" before)
    assert "Tiwanaku went to the Past; its 2 knowledge tokens are lost." in drawn(k, "reason")
    s = k.session.summary()
    bruno = s["players"][1]
    assert bruno["past_count"] == 1 and bruno["lost_knowledge"] == 2 and s["turn"] == "Ana"
    assert [line["type"] for line in k.session.lines] == ["create", "answer", "create", "create", "answer", "draw",
                                                          "answer", "search"]
    assert k.store.in_progress()[2] == k.session.lines


def test_a_refused_create_is_a_wrong_verdict_and_not_stored(tmp_path):
    k, feed = new_game(tmp_path)
    lay(k, feed, "zone2.lower", "mycenae")
    assert k.stack.top.phase == "verdict" and drawn(k, "verdict") == ["Not allowed"]
    assert "Mycenae is locked: it may only be created in zone 6." in drawn(k, "reason")
    assert "Take Mycenae back into your hand." in drawn(k, "then")
    press(k, OK)
    k.step()
    assert k.stack.top.phase == "watch" and k.session.lines == []
    lay(k, feed, "tech[0]", "golden-mean")
    assert "Golden Mean needs 3 or more cities in your Past; Ana has 0 cities in your Past." in drawn(k, "reason")
    press(k, OK)
    lay(k, feed, "tech[0]", "thales")
    assert "Ana learns Thales." in k.texts()
    press(k, OK)
    assert drawn(k, "verdict") == ["Thales learnt"]


def test_archive_by_buttons(tmp_path):
    k, feed = new_game(tmp_path)
    lay(k, feed, "zone5.lower", "karnak-temple")
    press(k, OK)
    press(k, OK)
    choose_exactly(k, "8")
    press(k, OK)                                       # the actions menu
    choose(k, "Archive")
    assert "Archive: how many tokens come off Karnak Temple (8 on it)?" in k.texts()
    choose_exactly(k, "2")
    assert k.session.lines[-1] == {"type": "archive", "player": "Ana", "remove": {"karnak-temple": 2}}
    assert drawn(k, "verdict") == ["End of Ana's turn"]          # the second action ends the turn
    assert k.session.summary()["players"][0]["zones"][3]["lower"]["tokens"] == 6
    press(k, OK)
    press(k, UNDO)                                     # history
    assert "Ana archived 2 tokens" in k.texts()


def test_the_questions_of_the_engine_are_asked_with_its_choices(tmp_path):
    k, feed = new_game(tmp_path)
    lay(k, feed, "zone5.lower", "karnak-temple")
    press(k, OK)
    press(k, OK)
    assert drawn(k, "choice") == [str(n) for n in range(9)]
    press(k, UNDO)                                     # a question the game waits for: UNDO is the history
    assert k.stack.top.name == "history"


# -- a whole game: a robot plays it with the engine, the kiosk resumes it for the last turn ---------------

def robot_game(players=("Ana", "Bruno")):
    """A legal game to its end: each action creates the cheapest monument it can in zone 1 (it
    declines at once), else searches; every question gets the first or suggested answer."""
    from companion.games.ancient_knowledge import engine
    from companion.games.ancient_knowledge.catalog import catalog

    setup = {"type": "setup", "game": "ancient-knowledge", "players": list(players), "tiles": TILES}
    state = engine.setup(setup)
    lines, turn_starts = [setup], []
    monuments = [b.id for b in catalog().builders.values() if b.is_monument and b.activation in ("endgame", "anytime")]

    def do(line):
        nonlocal state
        new, events = engine.apply(state, engine.parse_action(line))
        assert refusal(events) is None, (line, refusal(events))
        state = new
        lines.append(line)
        if any(e.kind == "turn_started" for e in events):
            turn_starts.append(len(lines))

    while not state.finished:
        pp = engine.summary(state)["pending_prompt"]
        if pp is not None:
            value = {"knowledge": pp.get("default"), "flip_tile": 1, "decline_effect": "past"}.get(pp["kind"])
            if pp["kind"] == "refill":
                value = pp["choices"][:pp["count"]]
            elif value is None:
                value = pp["choices"][-1] if "done" in pp.get("choices", []) else pp["choices"][0]
            do({"type": "answer", "player": pp["player"], "prompt": pp["kind"], "value": value})
            continue
        me = state.board.name
        options = ((o["cost"], card) for card in monuments if not _in_play(state, card)
                   for o in engine.create_options(state, card) if o["legal"] and o["zone"] == 1)
        best = min(options, default=None)
        if best is not None:
            do({"type": "create", "player": me, "card": best[1], "zone": 1})
        else:
            do({"type": "search", "player": me})
    return lines, turn_starts


def _in_play(state, card):
    return any(b.find(card) or card in b.past_ids() for b in state.boards)


def _resume_for_the_last_turn(tmp_path, size=(800, 480), lang="en"):
    from companion.play.session import GameSession
    from companion.store.log import GameLog
    from companion.ui.games import view_for_setup

    lines, turn_starts = robot_game()
    cut = max(i for i in turn_starts if any(line["type"] == "create" for line in lines[i:]))   # a Create to see
    store = GameLog(tmp_path / "games.sqlite")
    game = store.new_game(lines[0])
    for line in lines[1:cut]:
        store.append(game, line)
    store.close()
    k, feed = make_kiosk(tmp_path, size, lang)
    k.session = GameSession.resume(k.store, view_for_setup)
    k.stack.push("table")
    k.step()
    return k, feed, lines[cut:]


def play_through_the_kiosk(k, feed, lines) -> None:
    """The robot's last turn, told the way players tell it: cards laid for the camera, the rest with
    the buttons."""
    from companion.games.ancient_knowledge.catalog import catalog
    for line in lines:
        kind = line["type"]
        if kind == "create":
            zone = k.session.state.board.zones[line["zone"] - 1]
            lay(k, feed, f"zone{line['zone']}.{('lower', 'upper')[len(zone)]}", line["card"])
            press(k, OK)
            assert k.stack.top.phase == "verdict", k.texts()
            press(k, OK)
        elif kind == "search":
            press(k, OK)
            choose(k, "Search")
            if k.stack.top.phase == "verdict":
                press(k, OK)
        elif kind == "answer":
            value = line["value"]
            label = {"done": None, "past": "It goes to the Past"}.get(value, value) if isinstance(value, str) else value
            if line["prompt"] == "knowledge":
                choose_exactly(k, str(value))
            elif line["prompt"] == "effect":
                choose(k, "Done")
            elif line["prompt"] == "timeline" and value == "done":
                choose(k, "Pass on the rest")
            else:
                known = isinstance(label, str) and label in catalog().builders
                choose(k, catalog().name(label) if known else str(label))
            if k.stack.top.name == "table" and k.stack.top.phase == "verdict":
                press(k, OK)
        else:
            raise AssertionError(f"the robot's last turn has a {kind} line")
    assert k.session.lines[-len(lines):] == lines


def test_the_last_turn_and_the_explained_score_sheet(tmp_path):
    k, feed, last = _resume_for_the_last_turn(tmp_path)
    play_through_the_kiosk(k, feed, last)
    assert k.stack.top.name == "score"
    result = k.session.summary()
    scores = result["scores"]
    first = scores[0]
    assert drawn(k, "headline") == [f"{first['name']} wins with {first['total']} victory points!"] or \
        len(result["winners"]) > 1
    values, explains = sheet_page(k, "score-value", "score-explain")
    assert values == [str(p["total"]) for p in scores]
    # the tie-break is said beside the players it decided between, and only there
    tied = [any(o["name"] != p["name"] and o["total"] == p["total"] for o in scores) for p in scores]
    assert ["Tied on victory points" in text for text in explains] == tied
    press(k, NEXT)
    assert drawn(k, "headline") == [f"{first['name']}: {first['total']} victory points, place {first['place']}"]
    labels, values, explains = sheet_page(k, "score-label", "score-value", "score-explain")
    assert labels == ["Past", "End-game effects", "Level II technologies", "In the Timeline", "Lost knowledge", "Total"]
    b = first["breakdown"]
    assert values == [str(b[key]) for key in ("past_vp", "endgame_effects", "techs", "timeline",
                                              "lost_knowledge")] + [str(first["total"])]
    endgame = first["explain"]["endgame"]
    scored = sorted((e for e in endgame if e["points"]), key=lambda e: -e["points"])
    said = ", ".join(f"{e['name']} {e['points']}" for e in scored) or "–"
    for explain in explains:          # the end-game row's words, where the page holds them
        if explain.startswith(said) and len(scored) < len(endgame):
            assert explain.endswith(f"; {len(endgame) - len(scored)} more gave 0.")
    # one page of standings and one per player, at 800x480 (the end-game cards are named on the row)
    assert k.stack.top.pages() == 1 + len(scores)


def test_spanish(tmp_path):
    k, feed = new_game(tmp_path, lang="es")
    lay(k, feed, "zone2.lower", "mycenae")
    assert drawn(k, "verdict") == ["No permitido"]
    assert drawn(k, "reason") == ["Mycenae tiene candado: solo puede crearse en la zona 6."]
    assert drawn(k, "then") == ["Devuelve Mycenae a tu mano."]


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_every_ancient_knowledge_screen_fits(tmp_path, size):
    k, feed, last = _resume_for_the_last_turn(tmp_path, size)
    seen = []
    step = k.step

    def look():
        step()
        seen.append((k.screen_key(), list(k.last.drawn)))
    k.step = look
    play_through_the_kiosk(k, feed, last)
    for _ in range(k.stack.top.pages()):
        press(k, NEXT)
    w, h = size
    for key, texts in seen:
        for d in texts:
            x, y, dw, dh = d.rect
            assert x >= 0 and y >= 0 and x + dw <= w and y + dh <= h, (key, d)
    cut = sorted({(key, d.role, d.text) for key, texts in seen for d in texts if d.cut})
    assert not cut, "\n".join(map(repr, cut))


def test_the_last_verdict_says_why_the_game_ended_and_why_the_winner_won(tmp_path):
    k, feed, last = _resume_for_the_last_turn(tmp_path)
    said = []
    step = k.step

    def look():
        step()
        top = k.stack.top
        if top.name == "table" and top.phase == "verdict" and top.turns.ending:
            said.append((drawn(k, "verdict"), drawn(k, "reason")))
    k.step = look
    play_through_the_kiosk(k, feed, last)
    result = k.session.summary()
    first, second = result["scores"][:2]
    assert result["end_reason"] == "past" and result["past_reached_by"]
    verdict, reason = said[-1]
    assert verdict == [f"{first['name']} wins the game!"] or len(result["winners"]) > 1
    reached = " & ".join(result["past_reached_by"])
    assert f"{reached} {'has' if len(result['past_reached_by']) == 1 else 'have'} 14 or more monuments in the " \
           "Past: the round was played to its end." in reason[0]
    if first["total"] > second["total"]:
        assert reason[0].endswith(f"{first['name']} has the most victory points: {first['total']}, against "
                                  f"{second['name']} {second['total']}.")
