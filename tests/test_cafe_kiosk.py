"""The café from the kiosk's side: the settings screen edits the [cafe] section behind the PIN, and a
kiosk whose settings name a broker publishes its table, its games and its health."""

from __future__ import annotations

import pytest
from cafe_support import Dashboard, needs_mosquitto, wait_until
from test_ui_kiosk import _StillTable

from companion.config import Config, load_config
from companion.inputs.commands import MENU, OK, TEXT, Command


class StillTable(_StillTable):
    """A camera that shows nothing, and says so as the table feed does (``camera_lost``)."""

    camera_lost = "no picture"


def press(k, kind, **kw):
    k.stream.post(Command(kind, **kw))
    k.step()


def test_the_cafe_settings_are_typed_checked_and_saved(tmp_path):
    from companion import app
    from companion.config import save_config

    saved = []
    k = app.build(Config(), demo=True, windowed=True, size=(800, 480), threaded=False,
                  save_settings=lambda cfg: (saved.append(cfg), save_config(cfg, tmp_path / "config.toml")))
    k.step()
    press(k, MENU)
    values = [v for _, v in k.stack.top.choice.items]
    press(k, OK, index=values.index("settings"))
    keys = [key for key, _ in k.stack.top.rows()]
    press(k, OK, index=keys.index("cafe"))
    assert k.stack.top.name == "settings:cafe"

    def edit(row: int, text: str):
        press(k, OK, index=row)
        assert k.stack.top.name == "keyboard:cafe"
        k.stream.post(Command(TEXT, text=text))
        k.step()
        press(k, OK, index=len(k.stack.top.keys) - 1)        # ✓

    edit(0, "ftp://cafe")
    assert k.stack.top.name == "keyboard:cafe"               # refused, and the screen says why
    assert any("mqtt://" in t for t in k.texts())
    for _ in range(len("ftp://cafe")):
        k.stream.post(Command(TEXT, text="\b"))
    k.step()
    k.stream.post(Command(TEXT, text="mqtt://cafe-pi.local:1883"))
    k.step()
    press(k, OK, index=len(k.stack.top.keys) - 1)
    assert k.stack.top.name == "settings:cafe"
    press(k, OK, index=1)                                    # the table's name, with the buttons: ⇧ then T
    press(k, OK, index=k.stack.top.keys.index("⇧"))
    press(k, OK, index=k.stack.top.keys.index("T"))
    assert k.stack.top.value == "T"
    k.stream.post(Command(TEXT, text="07"))
    k.step()
    press(k, OK, index=len(k.stack.top.keys) - 1)
    edit(3, "s3cret")
    assert k.stack.top.name == "settings:cafe"
    assert "s3cret" not in " ".join(k.texts())               # the password is shown as dots
    press(k, OK, index=4)                                    # Done
    assert k.stack.top.name == "settings"
    keys = [key for key, _ in k.stack.top.rows()]
    press(k, OK, index=keys.index("save"))
    assert saved and saved[-1].cafe.broker == "mqtt://cafe-pi.local:1883" and saved[-1].cafe.table == "T07"
    again = load_config(tmp_path / "config.toml").cafe
    assert (again.broker, again.table, again.password) == ("mqtt://cafe-pi.local:1883", "T07", "s3cret")


def test_a_broken_cafe_setting_in_the_file_is_named(tmp_path):
    from companion.errors import BadInput

    path = tmp_path / "config.toml"
    path.write_text('[cafe]\nbroker = "cafe-pi.local"\n')
    with pytest.raises(BadInput) as e:
        load_config(path)
    assert str(e.value).startswith(f"{path}: cafe.broker: ") and "mqtt://" in str(e.value)


@needs_mosquitto
def test_a_kiosk_with_a_broker_publishes_its_games_and_health(tmp_path):
    from companion import app
    from companion.cafe.mosquitto import Mosquitto
    from companion.store.log import GameLog

    users = {"T03": "kiosk-pw", "dashboard": "dash-pw"}
    with Mosquitto(tmp_path / "broker", users=users) as broker:
        dash = Dashboard(broker.url_for("dashboard"), tmp_path / "cafe.sqlite").start()
        config = Config()
        config.cafe.broker, config.cafe.table, config.cafe.password = broker.url, "T03", "kiosk-pw"
        store = GameLog(tmp_path / "games.sqlite")
        k = app.build(config, demo=False, windowed=True, size=(800, 480), threaded=False, store=store,
                      table=StillTable())
        try:
            assert k.cafe is not None
            k.step()
            tile = wait_until(lambda: [t for t in dash.json("/api/tables")["tables"] if t["online"] and t["health"]],
                              what="T03 online with its health")[0]
            assert tile["table"] == "T03" and tile["health"] == {"camera": False, "disk": True}
            assert "camera: no picture" in dash.get("/")[1].decode()
            game = store.new_game({"type": "setup", "game": "timeline", "players": ["Ana", "Bo"], "hand": 3,
                                   "start": {"year": 1800, "period": "contemporanea"}})
            store.append(game, {"type": "place", "player": "Ana", "card": {"year": 1900, "period": "contemporanea"},
                                "gap": 1})
            wait_until(lambda: dash.json("/api/plays")["plays"] and dash.json("/api/plays")["plays"][0]["actions"] == 1,
                       what="the game and its action")
            wait_until(lambda: dash.json("/api/tables")["tables"][0]["players"] == ["Ana", "Bo"], what="the state")
        finally:
            k.cafe.stop()
            wait_until(lambda: not dash.json("/api/tables")["tables"][0]["online"], what="T03 to say goodbye")
            dash.stop()
            store.close()
