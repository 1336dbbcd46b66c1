"""Resource bounds (issue 20, docs/limits.md): a 200 MB log, a 12,000 x 12,000 picture and a
100,000-card deck are refused in one line, within a few MB; what is accepted stays within the stated
bound. Memory is the growth of the peak RSS of a child process over the same command on a tiny file
(so imports and caches are not counted); never a time."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "timeline-worked-example.jsonl"

CHILD = """
import contextlib, io, json, resource, sys
from companion.cli import main
small_argv, big_argv = json.loads(sys.argv[1]), json.loads(sys.argv[2])
with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
    main(small_argv)                      # the same command on a tiny file first: imports, caches
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    code = main(big_argv)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(code, (after - before) / 1024)
print(err.getvalue().strip())
"""


def peak_growth(small: Path, argv: list[str], tmp_path: Path) -> tuple[int, float, str]:
    """(exit code, peak RSS growth in MB, stderr) of ``companion argv`` in a child process; the first
    absolute path in ``argv`` is the big file, replaced by ``small`` for the warm-up run."""
    big = next(a for a in argv if a.startswith("/"))
    small_argv = [str(small) if a == big else a for a in argv]
    env = dict(os.environ, COMPANION_DATA=str(tmp_path / "data"), PYGAME_HIDE_SUPPORT_PROMPT="1")
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(small_argv), json.dumps(argv)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    head, err = proc.stdout.split("\n", 1)
    code, growth = head.split()
    return int(code), float(growth), err.strip()


def test_a_200_mb_log_is_refused_within_a_few_mb(tmp_path):
    lines = EXAMPLE.read_text().splitlines()
    big = tmp_path / "big.jsonl"
    chunk = ((lines[1] + "\n") * 10_000).encode()
    with big.open("wb") as fh:
        fh.write((lines[0] + "\n").encode())
        while fh.tell() < 200 * 2 ** 20:
            fh.write(chunk)
    code, growth, err = peak_growth(EXAMPLE, ["replay", str(big)], tmp_path)
    assert code == 2 and err.startswith(f"{big}: larger than 4 MiB") and "\n" not in err
    assert growth < 30, growth


def test_a_12000_by_12000_picture_is_refused_from_its_header(tmp_path):
    from PIL import Image
    big, small = tmp_path / "big.png", tmp_path / "small.png"
    Image.new("1", (12_000, 12_000), 1).save(big)       # 1 bit a pixel: 18 MB to write, 432 MB to decode
    Image.new("1", (10, 10), 1).save(small)
    code, growth, err = peak_growth(small, ["scan", str(big)], tmp_path)
    assert code == 2 and err == f"{big}: 12000 x 12000 pixels (144 MP) is more than a scan reads (50 MP, which " \
                                "bounds its memory); scale the picture down"
    assert growth < 30, growth


@pytest.mark.slow
def test_the_largest_picture_a_scan_reads_stays_within_its_bound(tmp_path):
    import cv2
    import numpy as np
    big, small = tmp_path / "big.png", tmp_path / "small.png"
    cv2.imwrite(str(big), np.full((6250, 8000, 3), 255, np.uint8))      # 50 MP
    cv2.imwrite(str(small), np.full((10, 10, 3), 255, np.uint8))
    code, growth, err = peak_growth(small, ["scan", str(big)], tmp_path)
    assert code == 0, err
    assert growth < 400, growth


def test_a_100000_card_deck_is_refused_in_one_line(tmp_path):
    csv_file, small_csv = tmp_path / "big.csv", tmp_path / "small.csv"
    csv_file.write_text("n,year,title\n" + "".join(f",{1000 + i % 900},card {i}\n" for i in range(100_000)))
    small_csv.write_text("n,year,title\n,1969,x\n")
    code, growth, err = peak_growth(small_csv, ["deck", "import", "LIMITS", str(csv_file), "--game", "timeline"],
                                    tmp_path)
    assert code == 2 and err == f"{csv_file}: row 10001: more than 9999 cards; a deck holds at most 9999 " \
                                "(sticker numbers have 1 to 4 digits)"
    assert growth < 60, growth

    deck = {"id": "BIGD", "name": "big", "game": "timeline",
            "cards": [{"n": i + 1, "year": 1000 + i % 900} for i in range(100_000)]}     # 2.6 MB: under 4 MiB
    big_json, small_json = tmp_path / "big.json", tmp_path / "small.json"
    big_json.write_text(json.dumps(deck))
    small_json.write_text(json.dumps({**deck, "cards": deck["cards"][:3]}))
    code, growth, err = peak_growth(small_json, ["deck", "show", str(big_json)], tmp_path)
    assert code == 2 and err == f"{big_json}: cards: 100000 cards; a deck holds at most 9999 (sticker numbers have " \
                                "1 to 4 digits)"
    assert growth < 100, growth


def test_the_worst_file_under_the_size_limit_stays_within_its_bound(tmp_path):
    """4 MiB of empty JSON objects: 1.4 million of them, the most Python objects a file can make."""
    big, small = tmp_path / "big.json", tmp_path / "small.json"
    big.write_text("[" + "{}," * (4 * 2 ** 20 // 3 - 2) + "{}]")
    small.write_text("[]")
    code, growth, err = peak_growth(small, ["score", "exhibition", str(big)], tmp_path)
    assert code == 2 and err.startswith(str(big))
    assert growth < 200, growth
