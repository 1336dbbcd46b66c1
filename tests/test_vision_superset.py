"""The decoder reads at least every code zxing-cpp's plain full-frame pass reads, on any picture:
tables of any sticker size (1.6 to 10 px per module), with soft or busy card art, foreign codes among
the cards, a frame read alone, with the codes of the frame before, or as a burst."""

import cv2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.sim.scene import FreeLayout, demo_codes, fits, render_sequence, render_table
from companion.vision.decode import decode, decode_burst
from companion.vision.decode.readers import plain_symbols

SIZE = dict(width=1080, height=1440)


def _texts(result):
    return {d.payload for d in result.codes + result.foreign}


@pytest.mark.slow
@settings(max_examples=14, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(ppm=st.floats(1.6, 10.0), art=st.sampled_from(["soft", "busy"]), n=st.integers(1, 8),
       seed=st.integers(0, 10_000))
def test_the_decoder_reads_what_the_plain_pass_reads(ppm, art, n, seed):
    layout = FreeLayout(demo_codes(n, "HIST", 1 + seed % 80))
    assume(fits(layout, px_per_module=ppm, seed=seed, **SIZE))
    scene = render_table(layout, px_per_module=ppm, seed=seed, art=art, foreign_codes=seed % 3, **SIZE)
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    plain = {r.text for r in plain_symbols(gray)}
    ours = decode(gray)
    assert plain <= _texts(ours)
    assert _texts(ours) <= set(scene.payloads) | {f.text for f in scene.foreign}
    # the tracker's way: the same table again, with what the frame before read as known
    assert plain <= _texts(decode(gray, known=ours.codes))


@settings(max_examples=3, deadline=None, derandomize=True)
@given(ppm=st.floats(1.8, 4.0), seed=st.integers(0, 10_000))
def test_a_burst_reads_what_the_plain_pass_reads_in_its_first_frame(ppm, seed):
    layout = FreeLayout(demo_codes(6, "HIST", 1 + seed % 80))
    assume(fits(layout, px_per_module=ppm, seed=seed, **SIZE))
    frames = [cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY)
              for s in render_sequence(layout, 3, px_per_module=ppm, seed=seed, art="busy", **SIZE)]
    plain = {r.text for r in plain_symbols(frames[0])}
    assert plain <= _texts(decode_burst(frames)) <= set(layout.codes)
