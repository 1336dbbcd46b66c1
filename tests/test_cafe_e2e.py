"""End to end, not broker-deep (shared/spec/cafe.md): with the dashboard away while thousands of
actions are played, and the broker then killed outright, every action still reaches the dashboard,
because the kiosks keep offering from their logs what the dashboard has not confirmed. Under a stock
Debian Mosquitto (``persistence true``, nothing else, anonymous) and under the installed settings
docs/cafe.md recommends (a login per table and the dashboard, client ids bound to logins, the ACL,
a save a minute, the queue cap)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cafe_support import Dashboard, companion, needs_mosquitto, wait_until

from companion.cafe.mosquitto import Mosquitto, free_port

pytestmark = needs_mosquitto
TABLES, GAMES, SEED = 12, 6, 28          # 3,000+ actions (the minimum): checked below


def played(folder: Path) -> tuple[int, int]:
    """(entries, finished games) in the virtual tables' logs, read as a kiosk's disk holds them."""
    entries = finished = 0
    for db in folder.glob("T*.sqlite"):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            entries += con.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            finished += con.execute("SELECT COUNT(*) FROM games WHERE status != 'in_progress'").fetchone()[0]
        except sqlite3.OperationalError:     # the table's log is being created
            pass
        finally:
            con.close()
    return entries, finished


def per_table(d: Dashboard) -> dict[str, tuple[int, int]]:
    """(finished plays, actions) per table, as the dashboard's API serves them."""
    out: dict[str, tuple[int, int]] = {}
    for p in d.json("/api/plays")["plays"]:
        g, a = out.get(p["table"], (0, 0))
        out[p["table"]] = (g + (p["status"] == "finished"), a + p["actions"])
    return out


@pytest.mark.slow(20)
@pytest.mark.parametrize("settings", ["stock", "installed"])
def test_the_dashboard_away_and_the_broker_killed_lose_no_action(settings, tmp_path):
    port = free_port()
    names = [f"T{i:02d}" for i in range(1, TABLES + 1)]
    users = {**{t: f"pw-{t}" for t in names}, "dashboard": "pw-dashboard"} if settings == "installed" else None
    broker = Mosquitto(tmp_path / "broker", port=port, users=users, settings=settings).start()
    db = tmp_path / "cafe.sqlite"
    logins: list[str] = []
    if users is None:
        dash = Dashboard(broker.url, db).start()
    else:
        (tmp_path / "broker.pw").write_text(users["dashboard"] + "\n")
        dash = Dashboard(f"mqtt://dashboard@127.0.0.1:{port}", db, "--broker-password-file",
                         str(tmp_path / "broker.pw")).start()
        (tmp_path / "logins").write_text("".join(f"{t}:{users[t]}\n" for t in names))
        logins = ["--logins", str(tmp_path / "logins")]
    keep = tmp_path / "logs"
    sim = None
    try:
        wait_until(dash.connected, what="the dashboard to subscribe (its persistent session)")
        dash.kill()                                   # the dashboard's PC is off for the evening ...
        sim = subprocess.Popen([sys.executable, "-m", "companion", "cafe", "simulate", "--broker", broker.url,
                                "--tables", str(TABLES), "--games", str(GAMES), "--seed", str(SEED), "--json",
                                "--until-confirmed", "--keep", str(keep), "--prefix", "T", *logins],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_until(lambda: played(keep)[1] == TABLES * GAMES, timeout=240, every=0.5,
                   what="every table to finish its games")
        assert played(keep)[0] >= 3000
        broker.kill()                                 # ... and the broker's machine loses power
        broker.start()
        dash.start()
        out, err = sim.communicate(timeout=240)       # exits once the dashboard confirmed every action
        assert sim.returncode == 0, err
        totals = json.loads(out)
        assert totals["actions"] >= 3000 and totals["games"] == TABLES * GAMES
        want = {t: (v["games"], v["actions"]) for t, v in totals["per_table"].items()}
        assert per_table(dash) == want                # exact for every table, with nothing more to wait for
    finally:
        if sim is not None and sim.poll() is None:
            sim.kill()
            sim.wait()
        if dash.proc is not None and dash.proc.poll() is None:
            dash.stop()
        broker.stop()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for (table, log, game, seqs, top) in con.execute(
            "SELECT table_name, log, game_id, COUNT(*), MAX(seq) FROM actions GROUP BY table_name, log, game_id"):
        assert seqs == top, (table, log, game)       # every entry 1..n, none twice
    con.close()


@pytest.mark.parametrize("why", ["unreachable", "refused", "one login"])
def test_simulate_says_in_one_line_when_the_broker_cannot_be_used(why, tmp_path):
    """... and refuses one login for many tables on a broker that binds client ids to logins (the
    installed settings): there the tables would knock each other off and half the plays stay away."""
    if why == "unreachable":
        url = f"mqtt://127.0.0.1:{free_port()}"
        broker = None
    else:
        broker = Mosquitto(tmp_path / "broker", users={"T01": "right"}).start()
        url = f"mqtt://T01:{'wrong' if why == 'refused' else 'right'}@127.0.0.1:{broker.port}"
    try:
        start = time.monotonic()
        run = companion("cafe", "simulate", "--broker", url, "--tables", "2", "--until-confirmed", timeout=60)
        assert time.monotonic() - start < 30
        assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("--broker"), run.stderr
        said = {"unreachable": "cannot reach", "refused": "refused the login",
                "one login": "binds client ids to logins (use_username_as_clientid): 2 tables on the one login T01"}
        assert said[why] in run.stderr and (why != "one login" or "--logins" in run.stderr), run.stderr
    finally:
        if broker is not None:
            broker.stop()
