"""A deck's enrolled faces: ``<data dir>/decks/<ID>.faces.npz``, beside the user's deck files.

What is kept is features, not pictures: for each enrolled face its card number, its side ("title",
"date" or "face"), its ORB keypoints (face pixels at vision/faces.py's FACE_SIZE) and descriptors.
A JSON header (the ``meta`` entry) holds the file format and its version, the deck's id and a
fingerprint of its cards' facts at enrolment, the face size and when it was enrolled, and the
look-alike pairs enrolment found.

A face names a card number, never its facts: a game log keeps the facts of every card it names
(cards/decks.py, ``card_facts``), so a deck edited or a box enrolled again after a game never
changes that game. A file of another format version, or of another deck, is refused in words.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.cards.payload import format_payload
from companion.errors import BadInput
from companion.paths import data_dir

FORMAT = "companion-faces"
VERSION = 1
SIDES = ("face", "title", "date")


@dataclass
class EnrolledFace:
    number: int
    side: str
    points: np.ndarray            # n x 2 float32
    descriptors: np.ndarray       # n x 32 uint8


@dataclass
class EnrolledDeck:
    deck: str
    faces: list[EnrolledFace]
    fingerprint: str = ""
    look_alikes: list[tuple[int, int]] = field(default_factory=list)
    enrolled: str = ""

    def numbers(self) -> set[int]:
        return {f.number for f in self.faces}

    def index(self):
        """The faces as one ``vision.faces.FaceIndex``, labelled with their sticker payloads."""
        from companion.vision.faces import FaceFeatures, FaceIndex
        return FaceIndex([format_payload(self.deck, f.number) for f in self.faces],
                         [FaceFeatures(f.points, f.descriptors) for f in self.faces])


def faces_path(deck_id: str) -> Path:
    return data_dir() / "decks" / f"{deck_id}.faces.npz"


def deck_fingerprint(deck) -> str:
    """The deck's cards and their facts, hashed: enrolment notes it, so a later edit can be told."""
    cards = [e.model_dump(exclude_defaults=True) for e in deck.entries()]
    return hashlib.sha256(json.dumps(cards, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def save_faces(enrolled: EnrolledDeck, path: Path | None = None) -> Path:
    """Write the file whole or not at all."""
    from companion.vision.faces import FACE_SIZE
    path = path or faces_path(enrolled.deck)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"format": FORMAT, "version": VERSION, "deck": enrolled.deck, "deck_fingerprint": enrolled.fingerprint,
            "face_size": list(FACE_SIZE), "features": "ORB", "enrolled": enrolled.enrolled or
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "look_alikes": [list(p) for p in enrolled.look_alikes]}
    faces = enrolled.faces
    counts = np.array([len(f.descriptors) for f in faces], np.int32)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(
        tmp, meta=np.array(json.dumps(meta)),
        numbers=np.array([f.number for f in faces], np.int32),
        sides=np.array([SIDES.index(f.side) for f in faces], np.int8), counts=counts,
        points=np.concatenate([f.points for f in faces]) if faces else np.zeros((0, 2), np.float32),
        descriptors=np.concatenate([f.descriptors for f in faces]) if faces else np.zeros((0, 32), np.uint8))
    os.replace(tmp, path)
    return path


def load_faces(deck_id: str, path: Path | None = None) -> EnrolledDeck | None:
    """The deck's enrolled faces, or None when it has none."""
    from companion.vision.faces import FACE_SIZE
    path = path or faces_path(deck_id)
    if not path.exists():
        return None
    where = str(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: z[k] for k in ("numbers", "sides", "counts", "points", "descriptors")}
    except (OSError, ValueError, KeyError) as e:
        raise BadInput(where, f"not an enrolled-faces file ({e}); enrol the deck again: companion deck enrol "
                              f"{deck_id}") from None
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise BadInput(where, f"enrolled faces of format {meta.get('format')} version {meta.get('version')}; this "
                              f"program reads {FORMAT} version {VERSION}: enrol the deck again")
    if meta.get("deck") != deck_id:
        raise BadInput(where, f"holds the faces of deck {meta.get('deck')}, not {deck_id}")
    if tuple(meta.get("face_size", ())) != FACE_SIZE:
        raise BadInput(where, f"faces enrolled at {meta.get('face_size')}, this program uses {list(FACE_SIZE)}: "
                              f"enrol the deck again")
    counts = arrays["counts"]
    if counts.sum() != len(arrays["descriptors"]) or len(arrays["points"]) != len(arrays["descriptors"]):
        raise BadInput(where, "its features do not add up (a damaged file): enrol the deck again")
    starts = np.concatenate([[0], np.cumsum(counts)])
    faces = [EnrolledFace(int(n), SIDES[int(s)], arrays["points"][a:b].astype(np.float32),
                          arrays["descriptors"][a:b].astype(np.uint8))
             for n, s, a, b in zip(arrays["numbers"], arrays["sides"], starts[:-1], starts[1:], strict=True)]
    return EnrolledDeck(deck_id, faces, meta.get("deck_fingerprint", ""),
                        [tuple(p) for p in meta.get("look_alikes", [])], meta.get("enrolled", ""))


def enrolled_index():
    """One ``FaceIndex`` of every known deck's enrolled faces (None when no deck has any), for the
    kiosk's tracker: a payload names its deck, so the faces of several boxes never mix. A file that
    cannot be read is left out and said on stderr (the kiosk still reads stickers)."""
    import sys

    from companion.cards.decks import all_decks
    from companion.vision.faces import FaceIndex
    labels, faces = [], []
    for deck in all_decks():
        try:
            enrolled = load_faces(deck.id)
        except BadInput as e:
            print(f"companion: {e} (its cards are read by their stickers only)", file=sys.stderr)
            continue
        if enrolled is None:
            continue
        index = enrolled.index()
        known = set(deck.cards)
        keep = [i for i, f in enumerate(enrolled.faces) if f.number in known]
        labels += [index.labels[i] for i in keep]
        faces += [index.faces[i] for i in keep]
    return FaceIndex(labels, faces) if faces else None
