"""``companion bench vision`` runs end to end on a few stickers and scores misreads honestly."""

import json

from companion import cli
from companion.bench import vision as bench
from companion.vision.decode import DecodeResult, Detection
from companion.vision.layouts import RowLayout
from companion.sim.scene import demo_codes, render_table


def test_a_small_run_prints_one_json_document(capsys):
    rc = cli.main(["bench", "vision", "--levels", "3.3", "--stickers", "10", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    doc = json.loads(out)
    (level,) = doc["levels"]
    single = level["single"]
    assert level["px_per_module"] == 3.3 and single["stickers"] >= 10
    assert single["recall"] == 1.0 and single["silent_misreads"] == 0
    assert single["ms_per_frame"] > 0 and single["zxing_plain_ms_per_frame"] > 0
    assert level["sequences"]["tracking_recall"] is not None
    text = bench.format_report(doc)
    assert "3.3" in text and "zxing" in text


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
