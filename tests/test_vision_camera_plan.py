"""``companion plan-camera``: the geometry, the thresholds from the bench, and bad input."""

import json
import math

import pytest

from companion import cli
from companion.vision import camera_plan


def _run(capsys, *argv):
    rc = cli.main(["plan-camera", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_numbers_for_a_simple_setup(capsys):
    # 90 degrees from 50 cm sees exactly 100 cm; 2000 pixels across that is 2 px/mm
    rc, out, _ = _run(capsys, "--sensor", "4000x2000", "--hfov", "90", "--height-cm", "50", "--table-cm", "90",
                      "--capture", "2000x1000", "--json")
    assert rc == 0
    r = json.loads(out)
    assert r["view_cm"] == [100.0, 50.0] and r["sees_table"] and r["lowest_height_cm"] == 45.0
    sizes = [tuple(c["size"]) for c in r["captures"]]
    assert sizes == [(2000, 1000), (4000, 2000)]          # the binned size is the capture here
    first = r["captures"][0]
    assert math.isclose(first["px_per_mm"], 2.0)
    s20 = next(s for s in first["stickers"] if s["mm"] == 20)
    assert math.isclose(s20["px_per_module"], round(2.0 * 20 / 28.9, 2))
    # 2.7 px/module at 2 px/mm: 2.7 * 28.9 / 2 = 39.0 mm, rounded up to the half millimetre
    assert first["smallest_mm"] == {"single_frames": 39.5, "bursts": 32.0, "comfortable": 48.0}
    assert [s["mm"] for s in first["stickers"]] == list(range(10, 26))


def test_defaults_are_the_camera_module_3_wide(capsys):
    rc, out, _ = _run(capsys)
    assert rc == 0
    assert "4608x2592, 102 deg across" in out and "1920x1080" in out and "2304x1296" in out
    assert "smallest sticker" in out and "Other heights" in out
    r = camera_plan.plan()
    full = r["captures"][-1]
    assert full["size"] == [4608, 2592]
    # the printer's default: 12 mm stickers read at ~3 px/module when 4608 pixels span 64 cm
    r64 = camera_plan.plan(height_cm=32 / math.tan(math.radians(51)))
    twelve = next(s for s in r64["captures"][-1]["stickers"] if s["mm"] == 12)
    assert abs(twelve["px_per_module"] - 2.99) < 0.02


def test_a_camera_too_low_says_so(capsys):
    rc, out, _ = _run(capsys, "--height-cm", "20", "--table-cm", "120")
    assert rc == 0 and "does NOT fit" in out


@pytest.mark.parametrize("argv,where", [(["--sensor", "12"], "--sensor"), (["--hfov", "200"], "--hfov"),
                                        (["--height-cm", "0"], "--height-cm"), (["--capture", "axb"], "--capture")])
def test_bad_input(capsys, argv, where):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2 and out == "" and err.startswith(where) and err.count("\n") == 1
