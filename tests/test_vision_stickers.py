import numpy as np
import pytest
import zxingcpp

from companion.errors import BadInput
from companion.vision.stickers import STICKER_ECC, make_sticker_matrix


def _image(matrix, px=8, quiet=4):
    m = np.pad(matrix, quiet)
    return np.where(np.kron(m, np.ones((px, px), bool)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("payload", ["TC:EXH20:017", "TC:ABCDEFGH:9999", "TC:AB:1"])
def test_matrix_is_version_1_and_decodes(payload):
    m = make_sticker_matrix(payload)
    assert m.shape == (21, 21) and m.dtype == bool
    assert m[0, :7].all() and m[:7, 0].all() and m[-1, :7].all() and m[0, -7:].all()  # finder rings, no quiet zone
    found = zxingcpp.read_barcodes(_image(m), formats=zxingcpp.BarcodeFormat.QRCode)
    assert [r.text for r in found] == [payload]
    assert found[0].ec_level == STICKER_ECC


def test_masks_give_the_same_text():
    for mask in range(8):
        found = zxingcpp.read_barcodes(_image(make_sticker_matrix("TC:DEMO:006", mask=mask)))
        assert [r.text for r in found] == ["TC:DEMO:006"]


@pytest.mark.parametrize("payload", ["TC:ABCDEFGH:99999", "tc:demo:1"])
def test_payloads_that_do_not_fit_are_bad_input(payload):
    with pytest.raises(BadInput):
        make_sticker_matrix(payload)


def test_print_uses_this_matrix():
    from companion.print import pdf
    from companion.print.pdf import code_matrix
    assert pdf.make_sticker_matrix is make_sticker_matrix
    assert (code_matrix("TC:DEMO:001") == make_sticker_matrix("TC:DEMO:001")).all()
