"""Photos of the project's own printed pages (sticker sheets and card pages rendered from their PDF,
then turned, tilted, lit unevenly, blurred, noised and JPEG-compressed by companion/bench/rephotograph.py,
not by the scene generator): the decoder reads every code zxing-cpp's plain pass reads, and never a
text that is not printed there."""

import numpy as np
import pytest

from companion.bench.rephotograph import PAGES, photos, plan, rephotograph
from companion.vision.decode import decode, decode_burst
from companion.vision.decode.readers import plain_symbols


@pytest.fixture(scope="module")
def pictures():
    # small stickers (1.6-3 px per module, where the plain pass starts to miss) and close ones
    return photos(6, seed=0, px_per_module=(1.6, 3.0)) + photos(3, seed=1, px_per_module=(4.0, 7.0))


def _texts(result):
    return {d.payload for d in result.codes + result.foreign}


@pytest.mark.slow(10)
def test_every_plain_read_is_read_and_no_text_is_wrong(pictures):
    more = 0
    for p in pictures:
        plain = {r.text for r in plain_symbols(p.image)}
        ours = _texts(decode(p.image))
        assert plain <= ours, f"{p.page} at {p.px_per_module} px/module: the plain pass read more"
        assert ours <= set(p.payloads), f"{p.page} at {p.px_per_module} px/module: {ours - set(p.payloads)}"
        more += len(ours) - len(plain)
    assert more > 0          # the small stickers are where the decoder reads what the plain pass misses


def test_a_page_read_again_as_a_burst_loses_nothing():
    # the first of the pictures above, made alone (the tests run apart: the fixture would make all nine
    # again on another worker)
    [args] = plan(1, 0, (1.6, 3.0))
    p = rephotograph(*args)
    single = _texts(decode(p.image))
    assert single <= _texts(decode_burst([p.image, p.image])) <= set(p.payloads)


def test_the_same_seed_makes_the_same_photo():
    a = rephotograph(PAGES[2][0], 2.5, 4)
    b = rephotograph(PAGES[2][0], 2.5, 4)
    assert a.image.dtype == np.uint8 and a.image.ndim == 2 and np.array_equal(a.image, b.image)
    assert len(a.payloads) == 9 and all(t.startswith("TC:HIST:") for t in a.payloads)
