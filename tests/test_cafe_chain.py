"""A chain of cafés, as docs/cafe.md sets it up: two cafés' Mosquittos bridged (Mosquitto's own
bridge) to the office's Mosquitto, and the office's dashboard. One café's link to the office is cut
for a while (a relay that drops its connections and refuses new ones) while both cafés play on; once
it is back, the office's page is exact for both cafés: every table, every play, every action."""

from __future__ import annotations

import json

import pytest
from cafe_support import Dashboard, Relay, companion, needs_mosquitto, wait_until

from companion.cafe.mosquitto import Mosquitto

pytestmark = [needs_mosquitto, pytest.mark.slow(22)]
CAFES = {"madrid": "madrid-bridge-pw", "sevilla": "sevilla-bridge-pw"}


def bridged_cafe(folder, name: str, office_port: int) -> Mosquitto:
    cafe = Mosquitto(folder / name)
    cafe.config.write_text(cafe.config.read_text() + f"""
connection office
address 127.0.0.1:{office_port}
remote_username {name}
remote_password {CAFES[name]}
remote_clientid bridge-{name}
cleansession false
notification_topic {name}/bridge/state
topic # out 1 cafe/ {name}/cafe/
restart_timeout 1
""")
    return cafe.start()


def play(cafe: Mosquitto, name: str, want: dict, seed: int, games: int = 1) -> None:
    """Two tables play at the café; ``want`` adds up what the office must show for them."""
    run = companion("cafe", "simulate", "--broker", cafe.url, "--tables", "2", "--games", str(games),
                    "--seed", str(seed), "--json", "--prefix", "T", timeout=180)
    assert run.returncode == 0, run.stderr
    for table, done in json.loads(run.stdout)["per_table"].items():
        plays, actions = want.get(f"{name}/{table}", (0, 0))
        want[f"{name}/{table}"] = (plays + done["games"], actions + done["actions"])


def held(office: Dashboard) -> dict:
    out: dict = {}
    for p in office.json("/api/plays")["plays"]:
        if p["status"] == "finished":
            plays, actions = out.get(p["table"], (0, 0))
            out[p["table"]] = (plays + 1, actions + p["actions"])
    return out


def test_two_cafes_bridged_to_the_office_and_one_link_cut_for_a_while(tmp_path):
    office = Mosquitto(tmp_path / "office", users={"dashboard": "office-dash-pw", **CAFES})
    acl = office.folder / "acl_file"
    acl.write_text(acl.read_text() + "".join(f"\n# the {c} café's bridge writes under {c}/ only\nuser {c}\n"
                                             f"topic write {c}/#\n" for c in CAFES))
    office.start()
    links = {name: Relay(office.port) for name in CAFES}      # each café's way to the office
    cafes = {name: bridged_cafe(tmp_path, name, links[name].port) for name in CAFES}
    dash = Dashboard(office.url_for("dashboard"), tmp_path / "office.sqlite").start()
    want: dict = {}
    try:
        wait_until(dash.connected, what="the office's dashboard")
        for seed, name in enumerate(CAFES, 1):
            play(cafes[name], name, want, seed)
        wait_until(lambda: held(dash) == want, timeout=60, what=f"the office to hold {want}")

        links["madrid"].cut()                                   # Madrid's line to the office is down ...
        play(cafes["madrid"], "madrid", want, 7, games=2)       # ... while both cafés play on
        play(cafes["sevilla"], "sevilla", want, 8)
        sevilla = {t: v for t, v in want.items() if t.startswith("sevilla/")}
        wait_until(lambda: {t: v for t, v in held(dash).items() if t.startswith("sevilla/")} == sevilla,
                   timeout=60, what="Sevilla's plays at the office while Madrid's link is down")
        assert held(dash) != want                               # Madrid's new games wait at Madrid
        links["madrid"].mend()

        wait_until(lambda: held(dash) == want, timeout=90, what=f"the office exact again: {want}")
        tables = [t["table"] for t in dash.json("/api/tables")["tables"]]
        assert tables == ["madrid/T01", "madrid/T02", "sevilla/T01", "sevilla/T02"]
        page = dash.get("/")[1].decode()
        assert all(f'data-table="{t}"' in page for t in tables)
        plays = dash.json("/api/plays")["plays"]
        assert len(plays) == sum(n for n, _ in want.values())        # no play twice, none missing
        assert all(p["status"] == "finished" and p["players"] for p in plays)
    finally:
        dash.stop()
        for cafe in cafes.values():
            cafe.stop()
        for link in links.values():
            link.close()
        office.stop()
