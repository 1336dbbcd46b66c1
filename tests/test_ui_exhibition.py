"""Exhibition in the kiosk, headless: a game driven through the command stream, the camera played by a
fake board feed (tests/board_kiosk.py), and what the screen says read through ``Kiosk.texts()``."""

import pytest
from board_kiosk import BoardFeed, choose, detection, drawn, make_kiosk, press, sheet_page, start_game

from companion.inputs.commands import NEXT, OK, UNDO

# the market as dealt: six columns of three (EXH20 sticker number = year - 1899; 46 is the white
# 1945 card, 101 Einstein)
MARKET = {"OC": (4, 51, 46), "SA": (20, 33, 70), "AF": (12, 25, 38), "AS": (60, 85, 90), "EU": (15, 28, 42),
          "NA": (55, 66, 80)}


def code(n: int) -> str:
    return f"TC:EXH20:{n:03d}"


def lay_market(feed: BoardFeed) -> None:
    feed.detections = [detection(code(n), 80 + col * 140, 60 + row * 70)
                       for col, column in enumerate(MARKET.values()) for row, n in enumerate(column)]


def new_game(tmp_path, players=2, size=(800, 480), lang="en", **options):
    k, feed = make_kiosk(tmp_path, size, lang)
    start_game(k, "exhibition", players, options)
    lay_market(feed)
    k.step()
    return k, feed


def test_the_picker_offers_exhibition_with_its_options(tmp_path):
    k, _feed = make_kiosk(tmp_path)
    press(k, OK)
    assert "Exhibition: Twentieth Century" in drawn(k, "item")
    picker = k.stack.top
    press(k, OK, index=[v.key for v in picker.views].index("exhibition"))
    rows = " | ".join(k.texts())
    assert "Players: 3" in rows and "Secret Decade: off" in rows and \
        "Spots per showcase: 4/4/5/2/1 (as printed)" in rows
    assert "Overlay on Plain: none" in rows


def test_the_market_is_read_at_setup(tmp_path):
    k, feed = make_kiosk(tmp_path)
    start_game(k, "exhibition", 2)
    feed.detections = [detection(code(n), 100 + i * 30, 100) for i, n in enumerate((4, 51, 46, 20))]
    k.step()
    assert "The camera sees 4 of the 18 market cards." in k.texts()
    lay_market(feed)
    k.step()
    assert "Read all 18 market cards, six columns of 3. Press OK to start." in k.texts()
    press(k, OK)
    line = k.session.setup_line
    assert line["market"]["OC"] == [code(4), code(51), code(46)] and line["players"] == ["Ana", "Bruno"]
    assert k.stack.top.phase == "ask"
    assert "Ana's vehicle stands on OC: which card does Ana take?" in k.texts()
    assert drawn(k, "choice") == ["1903 OC", "1945 white", "1950 AS"]      # kept in year order


def test_two_turns_by_buttons_and_camera_with_a_refused_card(tmp_path):
    k, feed = new_game(tmp_path)
    press(k, OK)                                   # start
    choose(k, "1950 AS")                           # Ana takes by buttons
    assert "Turn up the top card of the stock into the OC column: which card is it?" in k.texts()
    choose(k, "1970s")
    choose(k, "1975 AS")
    assert k.stack.top.phase == "watch"
    assert "Ana: lay 1950 AS on your board, in a showcase or the Depot." in k.texts()
    feed.board = {"one_era[1]": code(51)}          # the camera sees it laid
    k.step()
    assert k.stack.top.phase == "propose" and "Ana put 1950 AS in One Era 2." in k.texts()
    press(k, OK)
    assert drawn(k, "verdict") == ["Well placed!"] and "1950 AS fits One Era 2." in k.texts()
    assert "Next: Bruno." in drawn(k, "then")
    assert "OK: Bruno's turn" in k.texts()         # the button says what really happens next
    press(k, OK)

    # Bruno lays the card straight on his board: the camera tells the take, then the placement
    feed.board = {"plain[0]": code(33)}
    k.step()
    assert "Bruno took 1932 AF from the market." in k.texts()
    press(k, OK)
    k.step()
    assert "Bruno put 1932 AF in Plain 1." in k.texts()
    press(k, OK)
    assert drawn(k, "verdict") == ["Well placed!"]
    press(k, OK)
    assert "Turn up the top card of the stock into the SA column: which card is it?" in k.texts()
    choose(k, "1990s")
    choose(k, "1994 NA")

    # Ana again: her vehicle followed 1950 AS to Asia; a card on the wrong side of 1950 is refused
    feed.board = {"one_era[1]": code(51)}
    k.step()
    assert "Ana's vehicle stands on AS: which card does Ana take?" in k.texts()
    choose(k, "1959 NA")
    choose(k, "white card")
    choose(k, "Einstein")
    feed.board = {"one_era[0]": code(60), "one_era[1]": code(51)}
    k.step()
    assert k.stack.top.phase == "verdict" and drawn(k, "verdict") == ["Not allowed"]
    reason = drawn(k, "reason")[0]
    assert "1959 NA" in reason and "1950 AS" in reason
    assert drawn(k, "then")[0].startswith("Take the card off the board. It fits: ")
    assert "One Era 3" in drawn(k, "then")[0]
    assert "OK: Ana tries again" in k.texts() and "OK: next turn" not in k.texts()
    lines = len(k.session.lines)
    press(k, OK)
    k.step()
    assert k.stack.top.phase == "watch" and len(k.session.lines) == lines    # nothing stored, not asked again
    feed.board = {"one_era[1]": code(51), "one_era[2]": code(60)}
    k.step()
    press(k, OK)
    assert drawn(k, "verdict") == ["Well placed!"]
    assert [line["type"] for line in k.session.lines] == ["take", "refill", "place", "take", "place", "refill",
                                                          "take", "refill", "place"]
    assert k.store.in_progress()[2] == k.session.lines


def test_a_white_card_asks_where_the_vehicle_goes(tmp_path):
    k, feed = new_game(tmp_path)
    press(k, OK)
    choose(k, "1945 white")
    assert "Ana took a white card: which continent does the vehicle go to?" in k.texts()
    choose(k, "Europe")
    assert k.session.state.player.at == "EU"
    assert "Turn up the top card of the stock into the OC column: which card is it?" in k.texts()


def test_placing_by_buttons_and_the_misread_button(tmp_path):
    k, feed = new_game(tmp_path)
    press(k, OK)
    choose(k, "1903 OC")
    choose(k, "1980s")
    choose(k, "1988")
    feed.board = {"years_gap[0]": code(4)}
    k.step()
    press(k, UNDO)                                 # the camera misread: nothing is stored
    assert k.stack.top.phase == "watch" and [line["type"] for line in k.session.lines] == ["take", "refill"]
    feed.board = {}
    k.step()
    assert drawn(k, "hint:OK") == ["OK: choose the spot"]
    press(k, OK)
    assert "Where did Ana put 1903 OC?" in k.texts()
    assert drawn(k, "choice")[-1].startswith("More… (page 2 of")
    choose(k, "One Continent 1")
    assert drawn(k, "verdict") == ["Well placed!"]
    assert k.session.lines[-1]["spot"] == "one_continent[0]"


def test_the_secret_decades_are_asked_first_and_kept_hidden(tmp_path):
    k, feed = new_game(tmp_path, secret_decade=True)
    press(k, OK)
    assert "Ana: choose your Secret Decade while the others look away." in k.texts()
    choose(k, "1960s")
    assert "Bruno: choose your Secret Decade while the others look away." in k.texts()
    choose(k, "1930s")
    assert "Ana's vehicle stands on OC: which card does Ana take?" in k.texts()
    press(k, UNDO)                                 # the history: the decade is not shown
    assert k.stack.top.name == "history"
    assert "Bruno's Secret Decade is recorded" in k.texts()
    assert not any("1930" in text for text in k.texts())


def _resume_near_the_end(tmp_path, size=(800, 480), lang="en"):
    """A whole robot game in the store but its last turn; the kiosk resumes it (as after a restart)."""
    from companion.games.exhibition.autoplay import play_game
    from companion.play.session import GameSession
    from companion.store.log import GameLog
    from companion.ui.games import view_for_setup

    lines = play_game(["Ana", "Bruno", "Carla"], seed=3, secret_decade=True, variations={"years_gap": "short_era"})
    body = [line for line in lines[1:] if line["type"] != "secret"]
    store = GameLog(tmp_path / "games.sqlite")
    game = store.new_game(lines[0])
    for line in [line for line in lines if line["type"] == "secret"] + body[:-3]:
        store.append(game, line)
    store.close()
    k, feed = make_kiosk(tmp_path, size, lang)
    k.session = GameSession.resume(k.store, view_for_setup)
    k.stack.push("table")
    k.step()
    return k, feed, body[-3:]


def test_the_last_turn_and_the_explained_score_sheet(tmp_path):
    k, feed, last = _resume_near_the_end(tmp_path)
    assert [line["type"] for line in last] == ["take", "refill", "finish"]
    assert "Ana's vehicle stands on SA: which card does Ana take?" in k.texts()
    choose(k, "1943 OC")
    choose(k, "1920s")
    choose(k, "1927")
    assert "1943 OC fits nowhere in Ana's Hall: put it in the Depot, or end the exhibition." in k.texts()
    assert drawn(k, "choice") == ["End the exhibition"]     # Ana's Depot is full
    choose(k, "End the exhibition")
    # the game is over: the winner first, then what ended it; OK leads to the score
    winner = k.session.summary()["winners"][0]
    assert drawn(k, "verdict") == [f"{winner} wins the game!"]
    assert drawn(k, "reason") == ["Ana's exhibition is over: 1943 OC fits nowhere in the Hall: it leaves the game."]
    assert "OK: see the score" in k.texts()
    press(k, OK)
    assert k.stack.top.name == "score"
    result = k.session.summary()
    first = result["scores"][0]
    assert drawn(k, "headline") == [f"{first['name']} wins with {first['total']} fame points!"]
    values, explains = sheet_page(k, "score-value", "score-explain")
    assert values == [str(p["total"]) for p in result["scores"]]
    # each player's figures on the standings, penalties included, add up to the total beside them (where
    # the page holds them: the longest words are left out where all do not fit)
    assert explains
    totals = {p["name"]: p["total"] for p in result["scores"]}
    for explain in explains:
        figures = [part.rsplit(" ", 1) for part in explain.split(" · ")]
        assert sum(int(points) for _, points in figures) in totals.values(), explain
    # one page of standings and one per player at 800x480; the title counts the pages
    assert k.stack.top.pages() == 1 + len(result["scores"])
    assert drawn(k, "title")[0] == f"End of the game (1/{1 + len(result['scores'])})"
    press(k, NEXT)
    assert drawn(k, "headline") == [f"{first['name']}: {first['total']} fame points, place 1"]
    labels, values = sheet_page(k, "score-label", "score-value")
    assert k.stack.top.page == 1                    # the player's figures, all on one page
    assert labels[:6] == ["Six continents", "Years Gap", "Continent Focus", "Decades", "Chain of Years", "Empty spots"]
    assert values[:6] == [str(first["breakdown"][key]) for key in
                          ("six_continents", "years_gap", "continent_focus", "decades", "chain", "empty_spots")]
    assert "Short Era" in labels and "Secret Decade" in labels


def test_spanish_on_the_table_and_the_score_sheet(tmp_path):
    k, feed, _last = _resume_near_the_end(tmp_path, lang="es")
    assert "El vehículo de Ana está en SA: ¿qué carta coge Ana?" in k.texts()
    choose(k, "1943 OC")
    choose(k, "1920s")
    choose(k, "1927")
    choose(k, "Terminar la exposición")
    winner = k.session.summary()["winners"][0]
    assert drawn(k, "verdict") == [f"¡{winner} gana la partida!"]
    assert drawn(k, "reason")[0].startswith("La exposición de Ana ha terminado: ")
    press(k, OK)
    sheet_page(k)                                   # the standings, over as many screen pages as they take
    press(k, NEXT)
    assert "Cadena de años" in sheet_page(k, "score-label")[0]


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_every_exhibition_screen_fits(tmp_path, size):
    k, feed, _last = _resume_near_the_end(tmp_path, size)
    seen = {}

    def look():
        seen[k.screen_key() + str(len(seen))] = list(k.last.drawn)

    look()
    choose(k, "1943 OC")
    look()
    choose(k, "1920s")
    look()
    choose(k, "1927")
    look()
    choose(k, "End the exhibition")
    look()
    press(k, OK)
    for _ in range(k.stack.top.pages()):
        look()
        press(k, NEXT)
    w, h = size
    for key, texts in seen.items():
        for d in texts:
            x, y, dw, dh = d.rect
            assert x >= 0 and y >= 0 and x + dw <= w and y + dh <= h, (key, d)
    cut = sorted({(key, d.role, d.text) for key, texts in seen.items() for d in texts if d.cut})
    assert not cut, "\n".join(map(repr, cut))


def test_one_player_is_the_solo_game(tmp_path):
    k, feed = new_game(tmp_path, players=1)
    press(k, OK)
    assert k.session.setup_line["players"] == ["Ana"]
    choose(k, "1903 OC")
    choose(k, "1980s")
    choose(k, "1988")
    feed.board = {"mid_century[0]": code(4)}
    k.step()
    press(k, OK)
    assert drawn(k, "verdict") == ["Well placed!"]
    press(k, OK)
    assert "Ana's vehicle stands on OC: which card does Ana take?" in k.texts()     # Ana again, round 2
    assert k.session.state.round == 2
