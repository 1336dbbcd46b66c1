"""``companion scan``: the JSON shape of cli.md, bursts, and exit codes for bad input."""

import json

import cv2
import numpy as np
import pytest

from companion import cli
from companion.sim.scene import demo_codes, render_sequence, render_table
from companion.vision.layouts import GridLayout, RowLayout


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    d = tmp_path_factory.mktemp("scan")
    row = render_table(RowLayout(demo_codes(7) + ["TC:ZZZ:001"]), width=1280, height=720, px_per_module=3.0, seed=3,
                       foreign_codes=["https://example.com/a"])
    cv2.imwrite(str(d / "row.jpg"), row.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    grid = render_table(GridLayout([demo_codes(3, start=10), [None, "TC:DEMO:020", None], demo_codes(3, start=30)]),
                        width=1280, height=720, px_per_module=3.0, seed=4)
    cv2.imwrite(str(d / "grid.png"), grid.image)
    burst = render_sequence(RowLayout(demo_codes(5)), 3, width=1280, height=720, px_per_module=2.6, seed=2)
    for i, f in enumerate(burst):
        cv2.imwrite(str(d / f"f{i}.png"), f.image)
    (d / "bad.png").write_text("not a picture")
    return d, row, grid, burst


def _scan(capsys, *argv):
    rc = cli.main(["scan", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_shape(pictures, capsys):
    d, row, grid, _ = pictures
    rc, out, _err = _scan(capsys, d / "row.jpg", d / "grid.png", "--layout", "grid", "--json")
    assert rc == 0
    doc = json.loads(out)
    assert list(doc) == ["images"] and len(doc["images"]) == 2
    first = doc["images"][0]
    assert first["file"] == str(d / "row.jpg")
    assert isinstance(first["ms"], float) and first["ms"] > 0
    assert [c["payload"] for c in first["codes"]] == row.payloads
    assert first["rows"] == [list(range(8))]
    for c in first["codes"]:
        assert set(c) <= {"payload", "center", "corners", "card"} and {"payload", "center", "corners"} <= set(c)
        assert len(c["center"]) == 2 and len(c["corners"]) == 4 and all(len(p) == 2 for p in c["corners"])
    known = {c["payload"]: c for c in first["codes"]}
    assert "card" not in known["TC:ZZZ:001"]
    assert known["TC:DEMO:001"]["card"]["year"] == -10000
    assert [f["text"] for f in first["foreign"]] == ["https://example.com/a"]
    second = doc["images"][1]
    assert [[second["codes"][i]["payload"] for i in r] for r in second["rows"]] == grid.rows()


def test_bursts(pictures, capsys):
    d, _, _, burst = pictures
    files = [d / f"f{i}.png" for i in range(3)]
    rc, out, _ = _scan(capsys, *files, "--frames", "3", "--layout", "row", "--json")
    assert rc == 0
    (entry,) = json.loads(out)["images"]
    assert entry["files"] == [str(f) for f in files] and "file" not in entry
    assert [c["payload"] for c in entry["codes"]] == burst[0].payloads
    for c, t in zip(entry["codes"], burst[0].truth, strict=True):
        assert abs(c["center"][0] - t.center[0]) < 3 and abs(c["center"][1] - t.center[1]) < 3


def test_plain_output(pictures, capsys):
    d, *_ = pictures
    rc, out, _ = _scan(capsys, d / "row.jpg", "--layout", "row")
    assert rc == 0
    assert "8 codes in 1 row" in out and "TC:DEMO:001" in out and "unknown card" in out
    assert "foreign code" in out and "example.com" in out


@pytest.mark.parametrize("argv,where", [
    (["missing.jpg"], "missing.jpg"),
    (["bad.png"], "bad.png"),
    (["row.jpg", "grid.png", "--frames", "3"], "--frames"),
    (["row.jpg", "--frames", "0"], "--frames"),
])
def test_bad_input_exits_2_with_one_line(pictures, capsys, argv, where):
    d, *_ = pictures
    argv = [str(d / a) if a.endswith((".jpg", ".png")) else a for a in argv]
    rc, out, err = _scan(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and where in err and "Traceback" not in err


@pytest.mark.parametrize("side", [1, 2, 3, 4])
def test_a_tiny_picture_scans_to_no_codes(tmp_path, capsys, side):
    path = tmp_path / f"tiny{side}.png"
    cv2.imwrite(str(path), np.full((side, side, 3), 128, np.uint8))
    rc, out, err = _scan(capsys, path, "--json")
    assert rc == 0 and err == ""
    assert json.loads(out)["images"][0]["codes"] == []


def test_the_readmes_sample_photo_reads_as_the_readme_shows(capsys):
    """README.md shows ``companion scan docs/examples/cards-photo.jpg`` with its output: the same codes,
    rows and cards come out of the committed photo (only the milliseconds differ between runs)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    shown = re.search(r"\$ \.venv/bin/companion scan (docs/examples/cards-photo\.jpg)\n(.*?)```",
                      (root / "README.md").read_text(), re.S)
    photo = root / shown.group(1)
    assert photo.stat().st_size < 500_000
    rc, out, _ = _scan(capsys, photo)
    assert rc == 0

    def read(text):     # the milliseconds differ between runs, a centre may by a pixel between machines
        text = text.replace(str(photo), shown.group(1))
        return re.sub(r" at \(\d+, \d+\)", "", re.sub(r"\d+(\.\d+)? ms", "ms", text)).rstrip()
    assert read(out) == read(shown.group(2))
    payloads = [c["payload"] for c in json.loads(_scan(capsys, photo, "--json")[1])["images"][0]["codes"]]
    assert payloads == [f"TC:HIST:{n:03d}" for n in (3, 2, 1, 6, 5, 4, 9, 8, 7)]


def test_a_long_title_is_shortened_at_a_word_and_says_so():
    from companion.vision.scan_cli import _describe
    text = _describe({"year": -3200000, "title": "Lucy, an Australopithecus, lives in the Afar region"})
    assert text.startswith("3,200,000 BC Lucy,") and text.endswith(" …") and len(text) <= 40
    assert text == "3,200,000 BC Lucy, an …"
    # the date as the printed card writes it, "c." included for an approximate one
    text = _describe({"year": -300000, "circa": True, "title": "Earliest known Homo sapiens"})
    assert text.startswith("c. 300,000 BC Earliest")
