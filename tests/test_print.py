"""Every code on every generated page decodes to the expected payload: at 300 dpi, and shrunk to what a
camera above the table sees at the camera plan's single-frame threshold (px/module; area interpolation,
a mild blur)."""


import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest

from companion import cli
from companion.cards.decks import get_deck, reload_decks
from companion.print import pdf
from companion.print.cards import CARD_W, CODE_SIZE, COLS, make_cards
from companion.print.pdf import code_modules
from companion.print.stickers import DEFAULT_SIZE_MM, make_sheets
from companion.vision.camera_plan import SINGLE_PPM

DPI = 300
PHOTO_PX_PER_MODULE = SINGLE_PPM
PHOTO_BLUR_SIGMA = 0.6


def decode(image: np.ndarray) -> list[tuple[str, tuple[float, float]]]:
    """Payloads and centres (pixels) of the sticker codes in a greyscale image, read by the project's
    vision pipeline (the same decoder the kiosk uses)."""
    from companion.vision.decode import decode as vision_decode
    return [(d.payload, d.center) for d in vision_decode(image).codes]


def render(pdf_path, page: int) -> np.ndarray:
    doc = pdfium.PdfDocument(str(pdf_path))
    try:
        return np.array(doc[page].render(scale=DPI / 72, grayscale=True).to_pil())
    finally:
        doc.close()


def as_photo(image: np.ndarray, module_mm: float) -> np.ndarray:
    scale = PHOTO_PX_PER_MODULE / (module_mm / 25.4 * DPI)
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), PHOTO_BLUR_SIGMA)


def assert_page_decodes(pdf_path, page: int, expected: list[str], module_mm: float) -> list:
    image = render(pdf_path, page)
    found = decode(image)
    assert sorted(p for p, _ in found) == sorted(expected), f"page {page + 1} at {DPI} dpi"
    photo = decode(as_photo(image, module_mm))
    assert sorted(p for p, _ in photo) == sorted(expected), f"page {page + 1} as a photo of the table"
    return found


@pytest.fixture(autouse=True)
def bundled_only():
    reload_decks()
    yield
    reload_decks()


@pytest.mark.parametrize("deck_id,shape,size", [("DEMO", "square", DEFAULT_SIZE_MM), ("EXH20", "square", 12),
                                                ("EXH20", "round", 15), ("HIST", "square", DEFAULT_SIZE_MM)])
def test_every_sticker_decodes(tmp_path, deck_id, shape, size):
    deck = get_deck(deck_id)
    out = tmp_path / "stickers.pdf"
    result = make_sheets(deck, out, size_mm=size, shape=shape)
    assert sum(len(p) for p in result.payloads_by_page) == len(deck)
    assert len(pdfium.PdfDocument(str(out))) == result.pages
    for page, payloads in enumerate(result.payloads_by_page):
        assert_page_decodes(out, page, payloads, result.module_mm)


def test_letter_paper_and_a_replacement_sticker(tmp_path, capsys):
    out = tmp_path / "one.pdf"
    assert cli.main(["stickers", "hist", "--out", str(out), "--paper", "letter", "--only", "17,20-21"]) == 0
    assert "Wrote 3 square stickers" in capsys.readouterr().out
    doc = pdfium.PdfDocument(str(out))
    assert [round(v) for v in doc[0].get_size()] == [612, 792]
    assert sorted(p for p, _ in decode(render(out, 0))) == ["TC:HIST:017", "TC:HIST:020", "TC:HIST:021"]


def chronology_columns(found, image_width):
    left = (image_width - COLS * CARD_W * DPI / 72) / 2
    return {payload: int((x - left) // (CARD_W * DPI / 72)) for payload, (x, _) in found}


@pytest.mark.parametrize("deck_id,only", [("DEMO", None), ("EXH20", None), ("HIST", [1, 2, 3, 4, 5, 6, 7, 8, 9])])
def test_every_print_and_play_code_decodes_on_the_face_the_camera_sees(tmp_path, deck_id, only):
    deck = get_deck(deck_id)
    out = tmp_path / "cards.pdf"
    result = make_cards(deck, out, numbers=only)
    chronology = deck.game in ("timeline", "cronologia")
    # Timeline/Cronología: codes on the date sides (even pages); Exhibition: on the fronts (odd pages)
    assert result.code_pages == [p for p in range(result.pages) if p % 2 == (1 if chronology else 0)]
    module_mm = CODE_SIZE / (code_modules(f"TC:{deck.id}:001") + 4) / (72 / 25.4)
    for page in range(result.pages):
        if page in result.code_pages:
            found = assert_page_decodes(out, page, result.payloads_by_page[page], module_mm)
            if chronology:  # backs are mirrored for a long-edge flip: card 1 (top left) is now top right
                cols = chronology_columns(found, render(out, page).shape[1])
                first = result.payloads_by_page[page][0]
                assert cols[first] == COLS - 1
        elif page < 4:  # title sides and Exhibition backs show no code at all (a few pages suffice)
            assert decode(render(out, page)) == []


def test_print_commands_refuse_bad_input(tmp_path, capsys):
    assert cli.main(["cards", "AK", "--out", str(tmp_path / "ak.pdf")]) == 2
    assert "print stickers for your box instead" in capsys.readouterr().err
    assert cli.main(["stickers", "DEMO", "--out", str(tmp_path / "s.pdf"), "--size", "4"]) == 2
    assert "outside 8 to 60 mm" in capsys.readouterr().err
    assert cli.main(["stickers", "NOPE", "--out", str(tmp_path / "s.pdf")]) == 2
    assert "unknown deck" in capsys.readouterr().err
    assert cli.main(["stickers", "DEMO", "--out", str(tmp_path / "s.pdf"), "--only", "41"]) == 2
    assert "deck DEMO has no card 41" in capsys.readouterr().err
    assert cli.main(["cards", "DEMO", "--out", str(tmp_path / "c.pdf"), "--lang", "es"]) == 0
    assert "Wrote 40 print-and-play cards of DEMO on 10 pages" in capsys.readouterr().out


def test_the_code_modules_come_from_one_maker():
    from companion.vision.stickers import make_sticker_matrix
    assert (pdf.code_matrix("TC:DEMO:001") == make_sticker_matrix("TC:DEMO:001")).all()
    assert code_modules("TC:ABCDEFGH:9999") == 21  # the longest payload still fits a version 1 symbol


def test_the_printed_code_is_the_camera_matrix(monkeypatch, tmp_path):
    import segno

    def make_sticker_matrix(payload):  # another maker (level H, no quiet zone): what it makes is printed
        qr = segno.make_qr(payload, error="h", boost_error=False)
        return [list(row) for row in qr.matrix_iter(scale=1, border=0)]

    monkeypatch.setattr(pdf, "make_sticker_matrix", make_sticker_matrix)
    pdf.code_matrix.cache_clear()
    try:
        assert pdf.code_modules("TC:DEMO:001") == 25  # level H needs version 2
        out = tmp_path / "s.pdf"
        result = make_sheets(get_deck("DEMO"), out, numbers=[1, 2, 3])
        assert sorted(p for p, _ in decode(render(out, 0))) == ["TC:DEMO:001", "TC:DEMO:002", "TC:DEMO:003"]
        assert result.module_mm < 0.4  # bigger symbols, smaller modules for the same sticker size
    finally:
        pdf.code_matrix.cache_clear()


def test_printed_exhibition_cards_use_the_kiosks_colour_blind_safe_continent_colours():
    from companion.print import cards
    from companion.ui import theme
    from companion.ui.games import _exhibition_board

    assert cards.CONTINENT_COLOURS == _exhibition_board.CONTINENT_COLOURS == theme.CONTINENT_COLOURS
    okabe_ito = {(0, 158, 115), (230, 159, 0), (204, 121, 167), (240, 228, 66), (0, 114, 178), (86, 180, 233)}
    assert set(theme.CONTINENT_COLOURS.values()) == okabe_ito


@pytest.mark.parametrize("size", [8, 10, DEFAULT_SIZE_MM, 15, 21, 40])
def test_the_last_captions_stay_clear_of_the_ruler(tmp_path, size):
    import pypdfium2.raw as pdfium_c

    out = tmp_path / "stickers.pdf"
    make_sheets(get_deck("HIST"), out, size_mm=size)
    page = pdfium.PdfDocument(str(out))[0]
    mm = 72 / 25.4
    paths = [o.get_bounds() for o in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH])]
    box = next(b for b in paths if abs(b[2] - b[0] - 20 * mm) < 1 and abs(b[3] - b[1] - 10 * mm) < 1)
    captions = [o.get_bounds() for o in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT])
                if abs(o.get_font_size() - 4.6) < 0.01]
    assert captions and min(b[1] for b in captions) > box[3] + 0.5 * mm


def test_one_sticker_on_one_page_is_said_in_the_singular(tmp_path, capsys):
    from companion.cli import main
    assert main(["stickers", "DEMO", "--only", "1", "--out", str(tmp_path / "s.pdf")]) == 0
    out = capsys.readouterr().out
    assert "Wrote 1 square sticker of" in out and "on 1 page to" in out
