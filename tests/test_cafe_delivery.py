"""Delivery through a real Mosquitto: every confirmed action of every table reaches the dashboard
once, through broker and dashboard crashes (SIGKILL) and a kiosk cut off while it plays on."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from cafe_support import (  # noqa: F401  (the fixtures broker and dashboard)
    Dashboard,
    Relay,
    broker_fixture,
    companion,
    dashboard_fixture,
    needs_mosquitto,
    wait_until,
)

from companion.registry import GAMES

pytestmark = needs_mosquitto


def received(d: Dashboard) -> dict[str, int]:
    """Actions the dashboard holds, per table (its API's count)."""
    out: dict[str, int] = {}
    for p in d.json("/api/plays")["plays"]:
        out[p["table"]] = out.get(p["table"], 0) + p["actions"]
    return out


def stored_seqs(db) -> dict:
    """(table, log, game) -> the seqs the dashboard stored, straight from its database."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out: dict = {}
    for t, log, g, seq in con.execute("SELECT table_name, log, game_id, seq FROM actions"):
        out.setdefault((t, log, g), []).append(seq)
    con.close()
    return out


def test_simulate_prints_the_contract_and_the_dashboard_has_every_action(broker, dashboard, tmp_path):
    run = companion("cafe", "simulate", "--broker", broker.url, "--tables", "3", "--games", "2", "--seed", "5",
                    "--json", "--until-confirmed", timeout=120)
    assert run.returncode == 0, run.stderr
    totals = json.loads(run.stdout)
    assert set(totals) == {"tables", "games", "actions", "per_table"}
    assert totals["tables"] == 3 and totals["games"] == 6
    assert list(totals["per_table"]) == ["SIM01", "SIM02", "SIM03"]     # never a café's own T01
    assert all(v["games"] == 2 for v in totals["per_table"].values())
    assert sum(v["actions"] for v in totals["per_table"].values()) == totals["actions"]

    assert received(dashboard) == {t: v["actions"] for t, v in totals["per_table"].items()}
    plays = dashboard.json("/api/plays")["plays"]
    assert len(plays) == 6 and all(p["status"] == "finished" and p["ended"] for p in plays)
    for p in plays:
        assert set(p) == {"table", "game", "status", "started", "ended", "actions", "players"}
        assert p["players"] and all(set(pl) == {"name", "score", "winner"} for pl in p["players"])
    tables = dashboard.json("/api/tables")["tables"]
    assert [t["table"] for t in tables] == ["SIM01", "SIM02", "SIM03"]
    for t in tables:
        assert {"table", "online", "game", "status", "players", "updated"} <= set(t)
        assert t["game"] in GAMES and t["players"]
    status, csv = dashboard.get("/export/plays.csv")
    assert status == 200
    assert len(csv.decode().strip().splitlines()) == 1 + sum(len(p["players"]) for p in plays)


@pytest.mark.slow(14)
def test_broker_and_dashboard_killed_while_tables_play(broker, tmp_path):
    """Each step waits for the event it needs (no fixed sleeps); simulate --until-confirmed exits only
    once the dashboard holds every action, so the comparison after it has nothing left to wait for."""
    db = tmp_path / "cafe.sqlite"
    dash = Dashboard(broker.url, db).start()
    sim = subprocess.Popen([sys.executable, "-m", "companion", "cafe", "simulate", "--broker", broker.url,
                            "--tables", "4", "--games", "2", "--seed", "11", "--per-minute", "900", "--json",
                            "--until-confirmed"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: sum(received(dash).values()) > 20, what="the first actions")
        broker.kill()                       # SIGKILL: no goodbye, no final save
        wait_until(lambda: dash.get("/healthz")[0] == 503, what="the dashboard to notice the broker is gone")
        broker.start()
        wait_until(dash.connected, what="the dashboard to reconnect")
        at = sum(received(dash).values())
        wait_until(lambda: sum(received(dash).values()) > at + 20, timeout=60, what="play to go on after the broker")
        dash.kill()                         # SIGKILL the dashboard too
        dash.start()
        out, err = sim.communicate(timeout=240)
        assert sim.returncode == 0, err
        totals = json.loads(out)
        want = {t: v["actions"] for t, v in totals["per_table"].items()}
        assert received(dash) == want
    finally:
        if sim.poll() is None:
            sim.kill()
        dash.stop()
    seqs = stored_seqs(db)
    assert len(seqs) == totals["games"]
    for key, got in seqs.items():
        assert sorted(got) == list(range(1, len(got) + 1)), key      # every entry of the log, none twice


def test_a_kiosk_cut_off_publishes_its_backlog_in_order(broker, dashboard, tmp_path):
    from companion.broker import parse_broker
    from companion.cafe.simulate import VirtualTable, wait_acknowledged

    relay = Relay(broker.port)
    table = VirtualTable("T09", tmp_path, parse_broker(f"mqtt://127.0.0.1:{relay.port}"), games=1, seed=3)
    table.start_publishing()
    try:
        from companion.cafe.simulate import final_summary
        from companion.games import random_play
        setup, *lines = random_play.timeline_game(table.rng)
        game_id = table.log.new_game(setup)
        wait_until(lambda: dashboard.json("/api/plays")["plays"], what="the new game on the dashboard")
        relay.cut()                          # the kiosk's network is gone ...
        played = 0
        for line in lines:
            table.log.append(game_id, line)  # ... and the players play on: the kiosk never waits
            played += 1
            table.publisher.poke()
        assert final_summary(setup, lines)["status"] == "finished"
        table.log.finish(game_id, final_summary(setup, lines))
        wait_until(lambda: not table.publisher.connected, what="the kiosk to notice its network is gone")
        assert received(dashboard).get("T09", 0) == 0
        relay.mend()
        assert wait_acknowledged([table], timeout=60, confirmed=True)       # the dashboard confirmed them all
        assert received(dashboard).get("T09") == played
        play = dashboard.json("/api/plays")["plays"][0]
        assert play["status"] == "finished"
    finally:
        table.close()
        relay.close()
    import sqlite3 as sq
    con = sq.connect(f"file:{tmp_path / 'cafe.sqlite'}?mode=ro", uri=True)
    arrival = [seq for (seq,) in con.execute("SELECT seq FROM actions WHERE table_name = 'T09' ORDER BY rowid")]
    assert arrival == list(range(1, played + 1))                     # the backlog arrived in log order


def test_the_dashboard_says_when_the_broker_is_gone_and_catches_up(broker, dashboard):
    assert dashboard.get("/healthz") == (200, b"ok")
    broker.kill()
    wait_until(lambda: dashboard.get("/healthz")[0] == 503, what="healthz to say 503")
    broker.start()
    wait_until(dashboard.connected, what="the dashboard to reconnect")
    run = companion("cafe", "simulate", "--broker", broker.url, "--tables", "1", "--json", "--until-confirmed",
                    timeout=120)
    assert run.returncode == 0, run.stderr
    assert received(dashboard) == {"SIM01": json.loads(run.stdout)["actions"]}


@pytest.mark.parametrize("args, where", [
    (["serve", "--broker", "mqtt://127.0.0.1:1", "--listen", "0.0.0.0:8080"], "--listen"),
    (["serve", "--broker", "http://x"], "--broker"),
    (["serve", "--broker", "mqtt://127.0.0.1", "--listen", "nohost"], "--listen"),
    (["simulate", "--broker", "mqtt://127.0.0.1", "--tables", "0"], "--tables"),
    (["simulate", "--broker", "mqtt://T01@127.0.0.1", "--tables", "1", "--logins", "x"], "--logins"),
])
def test_bad_arguments_get_one_line_and_exit_2(args, where, tmp_path):
    more = ["--db", str(tmp_path / "x")] if args[0] == "serve" else ["--seed", "1"]
    run = companion("cafe", *args, *more)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and run.stderr.startswith(where), run.stderr
