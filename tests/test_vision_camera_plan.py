"""``companion plan-camera``: the geometry, the thresholds from the bench, and bad input."""

import argparse
import json
import math
import re
import shlex
from pathlib import Path

import pytest

from companion import cli
from companion.config import CameraSettings
from companion.print.stickers import DEFAULT_SIZE_MM
from companion.vision import camera_plan

ROOT = Path(__file__).resolve().parent.parent


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
    # 2.2 px/module at 2 px/mm: 2.2 * 28.9 / 2 = 31.8 mm, rounded up to the half millimetre
    assert first["smallest_mm"] == {"single_frames": 32.0, "bursts": 26.5, "comfortable": 48.0}
    assert [s["mm"] for s in first["stickers"]] == list(range(10, 26))


def test_defaults_are_the_camera_module_3_wide_at_the_kiosks_picture_size(capsys):
    rc, out, _ = _run(capsys)
    assert rc == 0
    assert "4608x2592, 102 deg across" in out and "2304x1296" in out
    assert "smallest sticker" in out and "Other heights" in out
    r = camera_plan.plan()
    settings = CameraSettings()
    assert r["captures"][0]["size"] == [settings.width, settings.height] == [4608, 2592]
    assert [c["size"] for c in r["captures"]] == [[4608, 2592], [2304, 1296]]


def test_the_default_sticker_is_the_smallest_the_default_plan_reads_in_single_frames(capsys):
    capture = camera_plan.plan()["captures"][0]
    ppm = capture["px_per_mm"] * DEFAULT_SIZE_MM / camera_plan.STICKER_MODULES
    assert ppm >= camera_plan.SINGLE_PPM
    assert capture["px_per_mm"] * (DEFAULT_SIZE_MM - 0.5) / camera_plan.STICKER_MODULES < camera_plan.SINGLE_PPM
    assert DEFAULT_SIZE_MM == 12.5
    rc, out, _ = _run(capsys)
    assert f"smallest sticker {DEFAULT_SIZE_MM:g} mm for single frames" in out.split("\n\n")[2].splitlines()[0]
    with pytest.raises(SystemExit):
        cli.main(["stickers", "--help"])
    assert "(default 12.5: the smallest square the default camera plan" in " ".join(capsys.readouterr().out.split())


def _plan_camera_lines(text: str) -> list[list[str]]:
    """The arguments of every ``companion plan-camera`` example of a document (options in [ ] too;
    a line with a placeholder such as ``--height-cm CM`` is a pattern, not an example)."""
    lines = [shlex.split(m.replace("[", " ").replace("]", " "))
             for m in re.findall(r"companion plan-camera([^`#\n]*)", text)]
    return [argv for argv in lines if not any(a.isupper() for a in argv)]


@pytest.mark.parametrize("doc", ["README.md", "hardware/camera.md", "docs/decks.md"])
def test_the_documented_plans_read_stickers_that_fit_a_card(doc):
    examples = _plan_camera_lines((ROOT / doc).read_text())
    assert examples
    for argv in examples:
        args = argparse.ArgumentParser()
        camera_plan.add_arguments(args)
        a = args.parse_args(argv)
        r = camera_plan.plan(camera_plan._size(a.sensor, ""), a.hfov, a.height_cm, a.table_cm,
                             camera_plan._size(a.capture or camera_plan.DEFAULT_CAPTURE, ""))
        assert r["sees_table"], (doc, argv)
        assert r["captures"][0]["smallest_mm"]["single_frames"] <= max(camera_plan.SIZES_MM), (doc, argv)


def test_hardware_camera_md_shows_the_commands_real_output(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "none.toml"))      # the default settings
    text = (ROOT / "hardware" / "camera.md").read_text()
    shown = re.search(r"```\n\$ companion plan-camera(.*?)\n(.*?)```", text, re.S)
    assert cli.main(["plan-camera", *shlex.split(shown.group(1))]) == 0
    assert shown.group(2).rstrip() == capsys.readouterr().out.rstrip()
    # the examples table: play area, height, the smallest sticker for single frames; with room to spare
    rows = re.findall(r"^\| (\d+) cm[^|]*\| (\d+) cm \| ([\d.]+) mm[^;]*; ([\d.]+) mm \|$", text, re.M)
    assert len(rows) == 4
    for table, height, single, spare in rows:
        r = camera_plan.plan(height_cm=float(height), table_cm=float(table))
        assert r["sees_table"]
        m = r["captures"][0]["smallest_mm"]
        assert (m["single_frames"], m["comfortable"]) == (float(single), float(spare))


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
    assert main(["plan-camera", "--focus", "once", "--capture", "1920x1080", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["focus"]["setting"] == "once" and r["streams"]["lores"] == [480, 270]
    assert main(["plan-camera", "--focus", "sharp"]) == 2
    assert capsys.readouterr().err.startswith("--focus: must be auto, once or the camera's distance")


def test_the_picture_size_planned_is_the_settings_files(capsys, tmp_path, monkeypatch):
    settings = tmp_path / "config.toml"
    settings.write_text("[camera]\nwidth = 1920\nheight = 1080\n")
    monkeypatch.setenv("COMPANION_CONFIG", str(settings))
    rc, out, _ = _run(capsys, "--json")
    assert rc == 0 and [c["size"] for c in json.loads(out)["captures"]] == [[1920, 1080], [2304, 1296], [4608, 2592]]
    rc, out, _ = _run(capsys, "--capture", "4608x2592", "--json")
    assert [c["size"] for c in json.loads(out)["captures"]] == [[4608, 2592], [2304, 1296]]
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "none.toml"))
    rc, out, _ = _run(capsys, "--json")
    assert [c["size"] for c in json.loads(out)["captures"]] == [[4608, 2592], [2304, 1296]]


def test_the_footnote_stands_under_a_starred_height_only(capsys):
    _rc, out, _ = _run(capsys, "--table-cm", "60")              # every height listed sees 60 cm
    assert "*" not in out and "does not see" not in out
    _rc, out, _ = _run(capsys, "--table-cm", "80")
    assert "cm*" in out and "(* does not see the 80 cm play area)" in out
    assert "takes 1 lines" not in out and re.search(r"takes \d+ lines?\)", out)
