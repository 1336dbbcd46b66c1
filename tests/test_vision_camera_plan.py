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


def test_plan_camera_reports_focus_and_the_camera_memory(capsys, tmp_path, monkeypatch):
    import json

    from companion.cli import main
    settings = tmp_path / "config.toml"
    settings.write_text("[camera]\nfocus = 40\n")
    monkeypatch.setenv("COMPANION_CONFIG", str(settings))
    assert main(["plan-camera", "--height-cm", "36", "--capture", "4608x2592"]) == 0
    out = capsys.readouterr().out
    assert ("Focus: at 36 cm the lens needs 2.78 dioptres (LensPosition = 100 / cm); the Camera Module 3 rests at "
            "1 dioptre, sharp at 1 m. camera.focus = 40: fixed at 40 cm (LensPosition 2.50 dioptres), 0.28 dioptres "
            "off. For a fixed mount: camera.focus = 36.") in out
    assert "lores 384x216 (motion check, preview), 3 buffers with the raw 4608x2592: about 98.9 MB" in out
    assert "RGB888 with 6 buffers took 304.6 MB" in out
    assert main(["plan-camera", "--focus", "once", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["focus"]["setting"] == "once" and r["streams"]["lores"] == [480, 270]
    assert main(["plan-camera", "--focus", "sharp"]) == 2
    assert capsys.readouterr().err.startswith("--focus: must be auto, once or the camera's distance")
