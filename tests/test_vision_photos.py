"""Real photographs (zxing-cpp's black-box QR samples, kept beside the project in
../shared/vision/zxing-samples, never in it): on every photo the decoder reads every code zxing-cpp's
plain pass reads, never a text that is not there, and nothing at all on the pictures without a code."""

import os

import pytest

from companion.bench import vision as bench
from companion.vision.decode import decode
from companion.vision.decode.readers import plain_found, plain_symbols

FOLDER = bench.shared_photos()


@pytest.fixture(scope="module")
def photos():
    if not FOLDER.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"the shared photos are missing: {FOLDER} (CI puts shared/ beside the project)")
        pytest.skip(f"the shared photos are not on this machine ({FOLDER}); CI has them")
    return [p for p in bench.load_photos(str(FOLDER)) if p[0] is not None]


def _texts(result):
    return {d.payload for d in result.codes + result.foreign}


def test_every_photo_reads_every_plain_read_and_no_wrong_text(photos):
    with_code = [p for p in photos if p[1]]
    assert len(with_code) >= 130
    more = 0
    for image, expected, name in with_code:
        plain = {r.text for r in plain_symbols(image)}
        ours = _texts(decode(image))
        assert plain <= ours, f"{name}: the plain pass read {plain - ours}, the decoder did not"
        # a text other than the expected one counts only where the plain pass reads it too: another code
        # in the picture (qrcode-2/16 holds an outer code round the inner one its text names)
        wrong = {t for t in ours if not any(bench.same_text(t, e) for e in expected)} - plain
        assert not wrong, f"{name}: read {wrong}, which is not there"
        expected_read = any(bench.same_text(t, e) for t in ours for e in expected)
        more += expected_read and not any(bench.same_text(t, e) for t in plain for e in expected)
    assert more >= 3          # what the finishing and the other readings add on real photos


def test_nothing_is_read_on_the_pictures_without_a_code(photos):
    blank = [p for p in photos if not p[1]]
    assert len(blank) >= 40
    for image, _expected, name in blank:
        assert not _texts(decode(image)), f"{name}: a code read in a picture that has none"


def test_the_pass_with_its_undecoded_codes_reads_what_the_plain_pass_reads(photos):
    # plain_found's one zxing-cpp call stands for the plain pass (readers.plain_found says why)
    for image, _expected, name in photos:
        decoded, _undecoded = plain_found(image)
        assert sorted(r.text for r in decoded) == sorted(r.text for r in plain_symbols(image)), name
