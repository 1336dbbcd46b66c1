"""``companion bench vision`` runs end to end on a few stickers and scores misreads honestly."""

import json

import cv2
import pytest

from companion import cli
from companion.bench import vision as bench
from companion.sim.scene import FreeLayout, demo_codes, render_table
from companion.vision.decode import DecodeResult, Detection
from companion.vision.layouts import RowLayout


@pytest.mark.slow(15)
def test_a_small_run_prints_one_json_document(capsys):
    rc = cli.main(["bench", "vision", "--levels", "3.3", "--stickers", "10", "--close-ups", "4,12", "--printed", "1",
                   "--photos", "", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    doc = json.loads(out)
    (level,) = doc["levels"]
    single = level["single"]
    assert level["px_per_module"] == 3.3 and single["stickers"] >= 10
    assert single["recall"] == 1.0 and single["silent_misreads"] == 0
    assert single["ms_per_frame"] > 0 and single["zxing_plain_ms_per_frame"] > 0
    assert level["sequences"]["tracking_recall"] is not None
    busy = level["busy"]
    assert busy["stickers"] >= 5 and busy["silent_misreads"] == 0 and busy["recall"] >= busy["zxing_plain_recall"]
    # what finishing the plain pass's undecoded codes would add in a wide frame, measured beside
    assert single["finishing_found"] >= single["finishing_off_reads"] >= 0 and single["finishing_would_read"] >= 0
    assert single["finishing_ms_per_frame"] is not None and "finishing_ms_per_frame" in busy
    assert [c["px_per_module"] for c in doc["close_ups"]] == [4.0, 12.0]
    assert all(c["recall"] == 1.0 and c["silent_misreads"] == 0 for c in doc["close_ups"])
    (printed,) = doc["photos"]
    assert printed["images"] == 1 and printed["superset_images"] == 1 and printed["wrong_texts"] == 0
    assert printed["read"] >= printed["zxing_plain_read"]
    text = bench.format_report(doc)
    assert "3.3" in text and "zxing" in text and "Close-ups" in text and "Busy card art" in text
    assert "rephotographed" in text and "Finishing in these wide frames" in text


def _one_sticker(path, code, ppm, seed):
    scene = render_table(FreeLayout([code]), width=640, height=640, px_per_module=ppm, seed=seed)
    cv2.imwrite(str(path), scene.image)


@pytest.mark.slow
def test_photos_in_a_folder_are_measured_against_their_texts(tmp_path, capsys):
    codes = demo_codes(3, "HIST")
    (tmp_path / "a").mkdir()
    _one_sticker(tmp_path / "a" / "1.png", codes[0], 5.0, 1)
    (tmp_path / "a" / "1.txt").write_text(codes[0])
    _one_sticker(tmp_path / "2.jpg", codes[1], 4.0, 2)
    (tmp_path / "2.txt").write_text(codes[2])            # a wrong expectation: the code is read, not matched
    _one_sticker(tmp_path / "3.png", codes[2], 4.0, 3)   # no text beside it: left out
    rc = cli.main(["bench", "vision", "--levels", "3.3", "--stickers", "1", "--close-ups", "", "--printed", "0",
                   "--photos", str(tmp_path), "--json"])
    assert rc == 0
    (photos,) = json.loads(capsys.readouterr().out)["photos"]
    assert photos["images"] == 2 and photos["codes"] == 2
    assert photos["read"] == photos["zxing_plain_read"] == 1
    # the text read is not the one expected, but the plain pass reads it too: a code in the picture, not ours wrong
    assert photos["wrong_texts"] == 0
    assert photos["other_texts_plain_reads_too"] == photos["zxing_plain_wrong_texts"] == 1
    assert photos["superset_images"] == 2


def test_the_shared_photos_are_a_row_by_default_with_the_pictures_without_a_code(tmp_path, capsys, monkeypatch):
    codes = demo_codes(2, "HIST")
    _one_sticker(tmp_path / "1.png", codes[0], 5.0, 1)
    (tmp_path / "1.txt").write_text(codes[0])
    (tmp_path / "falsepositives-1").mkdir()
    cv2.imwrite(str(tmp_path / "falsepositives-1" / "wood.png"), render_table(FreeLayout([]), width=320, height=240,
                                                                             px_per_module=3.0, seed=4).image)
    (tmp_path / "falsepositives-1" / "odd.webp").write_bytes(b"RIFF")     # OpenCV cannot read it: named, left out
    monkeypatch.setattr(bench, "shared_photos", lambda: tmp_path)
    rc = cli.main(["bench", "vision", "--levels", "3.3", "--stickers", "1", "--close-ups", "", "--printed", "0"])
    out = capsys.readouterr().out
    assert rc == 0
    assert f"Photos: photos in {tmp_path}" in out
    assert "1 images without a code (falsepositives-*): 0 codes read by ours, 0 by the plain pass" in out
    assert "left out, OpenCV cannot read them: falsepositives-1/odd.webp" in out
    assert "light-on-dark codes and QR Model 1 are left out by design" in out


def test_texts_compare_as_the_samples_write_them():
    assert bench.same_text("(01)09504000059101(21)12345678p901", "01095040000591012112345678p901")
    assert bench.same_text("a\r\n \r\nb", "a\r\n\r\nb")
    assert not bench.same_text("TC:HIST:001", "TC:HIST:002")


@pytest.mark.parametrize("make,args,says", [
    (lambda d: None, lambda d: ["--photos", str(d / "missing")], "is not a folder"),
    (lambda d: (d / "x.png").write_bytes(b"not a png"), lambda d: ["--photos", str(d)], "holds no image"),
    (lambda d: ((d / "x.png").write_bytes(b"not a png"), (d / "x.txt").write_text("TC:HIST:001")),
     lambda d: ["--photos", str(d)], "cannot be read as an image"),
    (lambda d: None, lambda d: ["--close-ups", "2,40"], "between 1 and 16"),
    (lambda d: None, lambda d: ["--printed", "-1"], "--printed"),
])
def test_bad_options_say_what_in_one_line(tmp_path, capsys, make, args, says):
    make(tmp_path)
    rc = cli.main(["bench", "vision", "--stickers", "1", *args(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and says in err and err.count("\n") == 1


def test_control_characters_compare_as_zxing_names_them():
    assert bench._readable("\x01\x10AD:SUB:\u963f;;\r\n") == "<SOH><DLE>AD:SUB:\u963f;;\r\n"


def test_misreads_are_counted():
    scene = render_table(RowLayout(demo_codes(3)), width=640, height=360, px_per_module=3.0, seed=1,
                         foreign_codes=["https://example.com/a"])
    t = scene.truth
    right = Detection(t[0].payload, tuple(map(tuple, t[0].corners)), t[0].center)
    wrong_place = Detection(t[1].payload, tuple(map(tuple, t[0].corners)), (t[0].center[0] + 1, t[0].center[1]))
    invented = Detection("TC:DEMO:039", tuple(map(tuple, t[2].corners)), t[2].center)
    garbled = Detection("https://example.com/b", tuple(map(tuple, t[2].corners)), (5.0, 5.0))
    score = bench._score(scene, DecodeResult([right, wrong_place, invented], [garbled]))
    assert score["read"] == 1 and score["n"] == 3
    assert sorted(score["misreads"]) == sorted([t[1].payload, "TC:DEMO:039", "https://example.com/b"])
