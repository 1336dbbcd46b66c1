"""Enrolment from the project's own print-and-play PDF (companion cards): its pages, rendered or scanned
once printed, are found by their registration marks and read by the layout they were printed with
(print/cards.py: sheet_plan), both sides; white-bordered cards on white paper show no outline."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cards.decks import get_deck
from companion.cards.payload import format_payload
from companion.print.cards import make_cards, sheet_plan
from companion.vision import enrol
from companion.vision.faces import read_faces


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path))
    return tmp_path


def scanned(page: np.ndarray, seed: int) -> np.ndarray:
    """A printed page as a flatbed scanner gives it back: a little turned and shifted on the glass, a
    little smaller, soft, noisy, JPEG."""
    rng = np.random.default_rng(seed)
    h, w = page.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-2, 2)), 0.97)
    M[:, 2] += rng.uniform(-20, 20, 2) + (30, 40)
    glass = cv2.warpAffine(page, M, (w + 60, h + 80), borderValue=(188, 190, 192))
    glass = cv2.GaussianBlur(glass, (0, 0), 0.8)
    glass = np.clip(glass + rng.normal(0, 3, glass.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", glass, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)


@pytest.mark.slow(6)
def test_the_print_and_play_pdf_is_enrolled_both_sides(data_dir, capsys):
    from companion.cli import main
    deck = get_deck("DEMO")
    pdf = data_dir / "demo-cards.pdf"
    make_cards(deck, pdf, numbers=list(range(1, 13)))          # 2 sheets: 9 cards, then 3
    assert main(["deck", "enrol", "DEMO", "--pages", str(pdf), "--json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert (report["cards"], report["faces"], report["missing"]) == (12, 24, list(range(13, 41)))
    assert "page 1: 9 cards enrolled (title side)" in out.err and "page 4: 3 cards enrolled (date side)" in out.err


@pytest.mark.slow(6)
def test_a_scanned_sheet_is_aligned_by_its_marks_and_its_faces_name_the_printed_cards(data_dir, monkeypatch):
    from companion.vision import faces
    monkeypatch.setattr(faces, "EXACT_BELOW", 10**6)     # an exhaustive search: the same answer every run
    deck = get_deck("DEMO")
    pdf = data_dir / "cards.pdf"
    make_cards(deck, pdf, numbers=list(range(10, 19)))
    pages = enrol.page_pictures(str(pdf))
    files = []
    for k, page in enumerate(pages):
        files.append(str(data_dir / f"scan-{k + 1}.jpg"))
        cv2.imwrite(files[-1], scanned(page, k))
    enrolment = enrol.Enrolment(deck)
    said: list[str] = []
    enrol.enrol_pages(enrolment, files, first=1, side=None, say=said.append, plan=sheet_plan("a4", "chronology"))
    assert said == [f"{files[0]} page 1: 9 cards enrolled (title side)",
                    f"{files[1]} page 1: 9 cards enrolled (date side)"]
    enrolled = enrolment.result()
    assert sorted({(f.number, f.side) for f in enrolled.faces}) == \
        [(n, s) for n in range(10, 19) for s in ("date", "title")]
    # the title sides taken from the scans (named by the places of the codes on the sheet's other side)
    # name the cards of the PDF's own rendering, each in its place
    plan = sheet_plan("a4", "chronology")
    px_mm = pages[0].shape[1] / plan.page_mm[0]
    index = enrolled.index()
    for page, layout in ((pages[0], "front"),):
        result = read_faces(page, index, card_px=plan.card_mm[0] * px_mm)
        named = {}
        for r in result.reads:
            x, y = r.center[0] / px_mm, r.center[1] / px_mm
            place = next(i for i, (cx, cy) in enumerate(plan.cards[layout])
                         if cx <= x <= cx + plan.card_mm[0] and cy <= y <= cy + plan.card_mm[1])
            named[place] = r.payload
        assert named == {i: format_payload("DEMO", 10 + i) for i in range(9)}, (layout, named, result.unsure)


def test_a_page_that_is_not_ours_needs_its_side_said(data_dir):
    from companion.errors import BadInput
    blank = data_dir / "blank.png"
    cv2.imwrite(str(blank), np.full((700, 500, 3), 240, np.uint8))
    with pytest.raises(BadInput, match="--sides"):
        enrol.enrol_pages(enrol.Enrolment(get_deck("DEMO")), [str(blank)], first=1, side=None, say=print,
                          plan=sheet_plan("a4", "chronology"))
