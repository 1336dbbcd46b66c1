"""The engine and kiosk benchmarks run and report every figure (their values are never judged)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def bench(*args):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    out = subprocess.run([sys.executable, "-m", "companion", "bench", *args, "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_bench_engine_reports_each_game():
    r = bench("engine", "--games", "2", "--actions", "40")
    from companion.registry import GAMES
    assert list(dict.fromkeys(row["game"] for row in r["rows"])) == list(GAMES)
    for game in GAMES:            # a game's modes (Cronología's) share its games, each on a row of its own
        assert sum(row["games"] for row in r["rows"] if row["game"] == game) == 2
    assert all(0 < row["actions"] <= 40 * row["games"] for row in r["rows"])
    # no figure summed over games: the one over all is the slowest game's, and how many meet the target
    assert "actions_per_s" not in r and r["slowest"] in [row["row"] for row in r["rows"]]
    assert r["slowest_actions_per_s"] == min(row["actions_per_s"] for row in r["rows"])
    assert r["games_meeting_target"] == sum(row["target_met"] for row in r["rows"])


@pytest.mark.slow(18)
def test_bench_kiosk_reports_latency_fps_and_memory():
    r = bench("kiosk", "--presses", "5", "--frames", "5", "--turns", "10", "--camera-reps", "1")
    assert set(r["latency_ms"]) >= {"p50", "p99"} and r["table_view_fps_800x480"]["fps"] > 0
    camera = r["camera_path"]
    assert [s["size"] for s in camera["sizes"]] == [[1920, 1080], [4608, 2592]]
    for s in camera["sizes"]:
        assert set(s["ms"]) == {"copy", "grey", "motion", "preview"} and s["plain_pass_ms"] > 0
        assert s["read"] == s["stickers"] > 0 and set(s["estimates_ms"]) == {"Pi 4", "Pi 5"}
    m = r["memory"]
    assert m["turns"] == 10 and m["samples"] == 3
    assert m["live_mb"]["min"] <= m["live_mb"]["max"] and m["untrimmed_rss_mb"]["max"] >= m["live_mb"]["min"]


def test_heap_trim_on_this_machine():
    from companion import heap
    assert heap.trim() is (sys.platform.startswith("linux"))
