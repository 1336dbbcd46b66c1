"""Enrolment of a box by its faces (companion/vision/enrol.py): under the virtual camera, from pages,
the look-alike check, and the versioned file beside the deck."""

from __future__ import annotations

import time

import numpy as np
import pytest

from companion import enrol_cli
from companion.cards.decks import get_deck
from companion.cards.payload import format_payload
from companion.errors import BadInput
from companion.sim.face_art import deck_faces
from companion.vision import enrol, faces_file
from companion.vision.faces import read_faces
from companion.vision.layouts import RowLayout


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path))
    return tmp_path


@pytest.mark.slow(25)
def test_a_110_card_box_is_enrolled_under_the_virtual_camera(data_dir, capsys):
    deck = get_deck("HIST")
    numbers = sorted(deck.cards)[:110]
    source, lay, shape = enrol_cli._virtual_hands(deck)
    per_round = shape[0] * shape[1]
    run = enrol.CameraEnrolment(deck, sides=("face",), shape=shape, numbers=numbers, give_up_after=3)
    said: list[str] = []
    start = time.monotonic()
    cpu = time.process_time()
    enrol.drive(run, source, hands=lay, say=said.append)
    wall, cpu = time.monotonic() - start, time.process_time() - cpu
    enrolled, path = run.checker.enrolled, run.path
    with capsys.disabled():   # the figure the issue asks for (not an assertion on time)
        print(f"\n110-card box enrolled under the virtual camera (1920x1080, {per_round} cards a round): "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU, {1000 * run.enrolment.feature_seconds / 110:.1f} ms of features "
              "a face")
    assert enrolled.numbers() == set(numbers) and run.left_out == [] and run.missing() == []
    rounds = -(-110 // per_round)
    assert said[-1].startswith(f"Round {rounds} of {rounds}, the printed face: ") and \
        "; 110 of 110 cards enrolled" in said[-1], said
    assert len(said) == rounds
    assert enrolled.look_alikes == [] and path == data_dir / "decks" / "HIST.faces.npz"
    loaded = faces_file.load_faces("HIST", path)
    assert loaded is not None and len(loaded.faces) == 110
    index = loaded.index()
    row = [format_payload("HIST", n) for n in numbers[3:100:13]]
    lay(numbers[3:100:13], "face")
    source.set_layout(RowLayout(row))
    frame = source.read()
    result = read_faces(frame, index, card_px=source.card_px())
    assert sorted(r.payload for r in result.reads) == sorted(row) and result.unsure == []


def test_look_alike_faces_are_found_and_told(data_dir):
    deck = get_deck("DEMO")
    pictures = deck_faces(deck)
    twin = format_payload("DEMO", 2)
    pictures[twin] = pictures[format_payload("DEMO", 1)]       # two cards printed alike
    enrolment = enrol.Enrolment(deck)
    for payload, picture in list(pictures.items())[:10]:
        enrolment.add(int(payload.split(":")[2]), "face", picture)
    enrolled = enrolment.result()
    assert enrol.look_alikes(enrolled) == [(1, 2)]


def test_the_faces_file_is_versioned_and_names_its_deck(data_dir):
    deck = get_deck("DEMO")
    enrolment = enrol.Enrolment(deck)
    for payload, picture in list(deck_faces(deck).items())[:3]:
        enrolment.add(int(payload.split(":")[2]), "face", picture)
    path = faces_file.save_faces(enrolment.result())
    assert path == data_dir / "decks" / "DEMO.faces.npz"
    loaded = faces_file.load_faces("DEMO")
    assert loaded is not None and loaded.fingerprint == faces_file.deck_fingerprint(deck)
    assert [(f.number, f.side) for f in loaded.faces] == [(1, "face"), (2, "face"), (3, "face")]
    assert np.array_equal(loaded.faces[0].descriptors, enrolment.result().faces[0].descriptors)
    with pytest.raises(BadInput, match="not HIST"):
        faces_file.load_faces("HIST", path)
    z = dict(np.load(path))
    z["meta"] = np.array(str(z["meta"]).replace('"version": 1', '"version": 99'))
    np.savez(path, **z)
    with pytest.raises(BadInput, match="version 99"):
        faces_file.load_faces("DEMO")


def test_pages_are_enrolled_in_reading_order(data_dir, tmp_path):
    import cv2
    deck = get_deck("DEMO")
    pictures = deck_faces(deck)
    page = np.full((1200, 1000, 3), 250, np.uint8)          # a scanned page of 6 cards
    for k in range(6):
        face = cv2.resize(pictures[format_payload("DEMO", 5 + k)], (252, 352))
        x, y = 60 + (k % 3) * 310, 80 + (k // 3) * 420
        page[y:y + 352, x:x + 252] = face
    path = tmp_path / "page.png"
    cv2.imwrite(str(path), page)
    enrolment = enrol.Enrolment(deck)
    enrol.enrol_pages(enrolment, [str(path)], first=5, side="face", say=lambda m: None)
    enrolled = enrolment.result()
    assert [f.number for f in enrolled.faces] == [5, 6, 7, 8, 9, 10]
    index = enrolled.index()
    result = read_faces(pictures[format_payload("DEMO", 8)], index, card_px=360)
    assert [r.payload for r in result.reads] == [format_payload("DEMO", 8)]


def test_the_enrol_command_on_the_virtual_table(data_dir, capsys):
    import json

    from companion.cli import main
    assert main(["deck", "enrol", "DEMO", "--camera", "virtual", "--cards", "1-6", "--per-round", "4", "--yes",
                 "--json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert "Round 2 of 2, the date side: 2 taken; 6 of 6 cards enrolled" in out.err
    # both sides: DEMO is a Cronología deck
    assert (report["deck"], report["cards"], report["faces"], report["look_alikes"]) == ("DEMO", 6, 12, [])
    assert report["file"] == str(data_dir / "decks" / "DEMO.faces.npz")
    assert main(["deck", "enrol", "DEMO", "--sides", "title,title"]) == 2
    assert "--sides" in capsys.readouterr().err
