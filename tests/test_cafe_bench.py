"""``companion bench cafe`` runs end to end and reports every figure (never judged: figures, not tests)."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from cafe_support import companion, needs_mosquitto, wait_until


@needs_mosquitto
@pytest.mark.slow(19)
def test_bench_cafe_reports_throughput_recovery_latency_cpu_and_memory():
    run = companion("bench", "cafe", "--tables", "3", "--minutes", "0.1", "--per-minute", "120", "--rows",
                    "burst,away,steady", "--json", timeout=180)
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    ref = r["reference_mosquitto_clients"]
    assert ref["round_trip_ms"]["p50"] > 0 and ref["burst_messages_per_s"] > 0
    assert r["burst"]["actions"] > 0 and r["burst"]["actions_per_s"] > 0
    away = r["dashboard_away"]
    assert away["actions"] > 0 and away["items"] > away["actions"] and away["reoffered"] >= 0
    assert away["seconds_until_exact"] > 0
    steady = r["steady"]
    assert steady["received"] == steady["actions"] > 0          # every action of the steady phase arrived
    assert steady["latency_ms"]["p50"] is not None and steady["latency_ms"]["p99"] >= steady["latency_ms"]["p50"]
    # six seconds of play: one slice, whose p99 is the run's
    assert steady["latency_ms"]["p99_per_slice"] == {"seconds": 30.0, "p99_ms": [steady["latency_ms"]["p99"]]}
    assert steady["dashboard_cpu_share_of_one_core"] >= 0 and steady["dashboard_rss_mb"]["samples"] >= 1
    assert r["burst"]["stored"] == r["burst"]["actions"]
    split = steady["latency_split"]
    assert split["actions"] > 0 and split["append_to_broker_ms"]["p99"] >= 0
    assert split["broker_to_dashboard_ms"]["p50"] is not None
    viewers = steady["viewers"]
    assert viewers["count"] == 3 and len(viewers["kb_per_s_each"]) == 3 and viewers["page_ms"]


@needs_mosquitto
@pytest.mark.slow(20)
def test_bench_cafe_reports_a_flood_from_one_table_and_pages_over_a_history():
    run = companion("bench", "cafe", "--tables", "3", "--per-minute", "120", "--rows", "flood,history",
                    "--flood-items", "300", "--flood-seconds", "2", "--history-plays", "300", "--history-seconds", "2",
                    "--json", timeout=180)
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    assert set(r) == {"tables", "reference_mosquitto_clients", "flood", "history"}      # only the rows asked for
    flood = r["flood"]          # the other tables' latency while one table floods the dashboard
    assert flood["items"] == 300 and flood["skipped_counted"] >= 300 and flood["stored"] == flood["played"]
    assert flood["during_ms"]["actions"] > 0 and flood["during_ms"]["p99"] >= flood["during_ms"]["p50"]
    history = r["history"]      # pages over a history, and recording while they render
    assert history["plays"] == 300 and history["stored"] == history["played"] and history["during_ms"]["actions"] > 0
    assert set(history["pages_ms"]) >= {"/", "/api/tables", "/api/plays", "/api/figures", "/export/plays.csv"}
    assert all(v["loads"] >= 1 and v["bytes"] > 0 for v in history["pages_ms"].values())


@needs_mosquitto
@pytest.mark.slow(5)
def test_bench_cafe_stopped_by_sigterm_stops_its_broker_and_dashboard():
    # a bench stopped by a timeout or 'kill' (SIGTERM) left its private Mosquitto running
    run = subprocess.Popen([sys.executable, "-m", "companion", "bench", "cafe", "--tables", "2", "--rows", "steady",
                            "--minutes", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        me = psutil.Process(run.pid)
        wait_until(lambda: any("serve" in _cmdline(c) for c in me.children()), timeout=60,
                   what="the bench's dashboard")
        started = me.children(recursive=True)
        assert any(Path(arg).name == "mosquitto" for c in started for arg in _cmdline(c)[:1])
        run.send_signal(signal.SIGTERM)
        assert run.wait(60) == 130, run.stderr.read() if run.stderr else ""
        _, alive = psutil.wait_procs(started, timeout=30)
        assert not alive                 # the broker, the dashboard and the workers are gone with it
    finally:
        if run.poll() is None:          # failed before its SIGTERM: stopped as a user would, its broker with it
            run.terminate()
            try:
                run.wait(60)
            except subprocess.TimeoutExpired:
                run.kill()
                run.wait()


def _cmdline(p: psutil.Process) -> list[str]:
    """Its command line; none for a child that has just ended (a finished probe is a zombie until its
    parent reaps it, and psutil then refuses to read it)."""
    try:
        return p.cmdline()
    except psutil.Error:
        return []
