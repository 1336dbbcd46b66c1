"""A chain of cafés: a café's Mosquitto bridged to the office's (Mosquitto's own bridge, configured
as docs/cafe.md says) puts the café's tables on the office's dashboard as ``<café>/<table>``."""

from __future__ import annotations

import json

from cafe_support import Dashboard, companion, needs_mosquitto, wait_until

from companion.cafe.mosquitto import Mosquitto

pytestmark = needs_mosquitto


def test_a_cafe_bridged_to_the_office(tmp_path):
    office = Mosquitto(tmp_path / "office", users={"dashboard": "office-dash-pw", "madrid": "madrid-bridge-pw"})
    acl = office.folder / "acl_file"
    acl.write_text(acl.read_text() + "\n# the Madrid café's bridge writes under madrid/ only\nuser madrid\n"
                                     "topic write madrid/#\n")
    office.start()
    cafe = Mosquitto(tmp_path / "madrid")
    cafe.config.write_text(cafe.config.read_text() + f"""
connection office
address 127.0.0.1:{office.port}
remote_username madrid
remote_password madrid-bridge-pw
remote_clientid bridge-madrid
cleansession false
notification_topic madrid/bridge/state
topic # out 1 cafe/ madrid/cafe/
""")
    cafe.start()
    dash = Dashboard(office.url_for("dashboard"), tmp_path / "office.sqlite").start()
    try:
        run = companion("cafe", "simulate", "--broker", cafe.url, "--tables", "2", "--json", "--prefix", "T",
                        timeout=120)
        assert run.returncode == 0, run.stderr
        want = {f"madrid/{t}": v["actions"] for t, v in json.loads(run.stdout)["per_table"].items()}

        def got():
            out: dict = {}
            for p in dash.json("/api/plays")["plays"]:
                out[p["table"]] = out.get(p["table"], 0) + p["actions"]
            return out
        wait_until(lambda: got() == want, what=f"the office to hold {want}; it holds {got()}")
        assert [t["table"] for t in dash.json("/api/tables")["tables"]] == ["madrid/T01", "madrid/T02"]
    finally:
        dash.stop()
        cafe.stop()
        office.stop()
