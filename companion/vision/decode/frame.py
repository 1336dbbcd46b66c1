"""One frame: the plain full-frame pass, then sticker candidates where it read nothing, each cut out
and read; codes already confirmed re-checked where they were; one entry per code."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.cards.payload import PAYLOAD_RE
from companion.vision.decode import readers
from companion.vision.decode.candidates import (
    SIZE_BIAS,
    Candidate,
    find_candidates,
    isotropy,
    repetition,
)
from companion.vision.decode.cuts import KNOWN_CUT, Job, read_jobs, ways
from companion.vision.decode.finish import finish
from companion.vision.decode.image import gray as to_gray
from companion.vision.decode.image import half
from companion.vision.decode.readers import Hit, read_plain
from companion.vision.decode.readers import backend as pick_backend

SAME_PLACE = 0.5         # two reads closer than this many code sides are one code
TOO_SMALL = 0.55         # candidates smaller than this share of the upper quartile's size are skipped
PLAUSIBLE_SIZE = 0.7     # a second try only for candidates at least this share of the codes read
PLAUSIBLE_ISOTROPY = 0.5
LATTICE = 0.6            # a texture this like itself shifted is a lattice, not a code (candidates.repetition)
OTHER_FROM = 3.0         # measured px/module (about 2.4 true) from which candidates get readings not tuned to stickers
SMALL_FRAME = 640 * 480  # pixels: a frame smaller than this is read one step after the other, on one thread


@dataclass(frozen=True)
class Detection:
    payload: str                                  # the decoded text
    corners: tuple[tuple[float, float], ...]      # 4 points, image pixels, the code's corners
    center: tuple[float, float]
    card: object | None = None                    # the card it names: set by vision.identify, never by the decoder

    @property
    def size(self) -> float:
        """The code's side in pixels (mean of its four edges)."""
        c = self.corners
        return sum(math.dist(c[i], c[i - 1]) for i in range(4)) / 4


@dataclass
class DecodeResult:
    codes: list[Detection]    # payloads of sticker form TC:<DECK>:<N> (a deck may or may not know them)
    foreign: list[Detection]  # any other barcode text

    def __iter__(self):
        return iter(self.codes)

    def __len__(self):
        return len(self.codes)


def decode(image: np.ndarray, *, known: Sequence[Detection] = (), upscale: bool = True,
           decoder: str | None = None) -> DecodeResult:
    """Every code truly decoded in one frame (BGR or grey): at least every code of the plain
    full-frame pass, and the small stickers it misses. ``known``: codes confirmed in earlier frames;
    ``upscale``: search, cut out and upscale sticker candidates (the default); without it, the plain
    pass alone (and known codes re-checked in plain crops); ``decoder``: "zxing-cpp" (default) or
    "pyzbar"."""
    backend = pick_backend(decoder)
    plain, cuts, _left = decode_gray(to_gray(image), backend, known, upscale, want_left=False)
    return result(dedupe(plain, cuts))


def decode_gray(gray: np.ndarray, backend: str, known: Sequence[Detection], upscale: bool, want_left: bool
                ) -> tuple[list[Hit], list[Hit], list[Job]]:
    """The plain pass's hits and the cuts' hits in one frame, and (``want_left``, for bursts) the jobs
    that still look like an unread code."""
    known = list(known)
    if min(gray.shape) < 21:
        return [], [], []      # no QR code fits: the smallest has 21 modules a side
    if not upscale:
        plain, _found = read_plain(gray, backend)
        jobs = [_known_job(k) for k in known if not _seen(k, plain)]
        return plain, [h for hs, _nearly in read_jobs(gray, jobs, backend, 0, plain=True) for h in hs], []
    # The plain pass runs on the other thread while this one searches for candidates. A small
    # frame (a photo, not a camera's wide view of a table) is read one step after the other, with the
    # codes the plain pass found but could not decode (readers.plain_found; in a wide frame zxing-cpp
    # returns such codes, mostly with bytes, on most frames below 2.7 px/module, where plain_found
    # would run the pass twice: there the cuts read them). Where it found none it could not decode, a
    # small frame is done (read whole with the other binarizer where nothing was read): on a photo the
    # codes are big enough for zxing-cpp's own detector, which finds every code it does not read, and
    # the search cost 9 plain passes on the pictures without a code, for no read on the shared photos
    # (docs/vision.md, "Pay for the search only where it can help")
    small_frame = gray.size < SMALL_FRAME
    together = readers.TWO_READERS and not small_frame
    pending_plain = readers.other_reader().submit(read_plain, gray, backend) if together else None
    if not together:
        plain, found = read_plain(gray, backend, found=small_frame)
        # (pyzbar does not say what it found: a small frame it read nothing in is searched)
        if (small_frame and not found and (plain or backend == "zxing-cpp")
                and all(_seen(k, plain) for k in known)):
            return plain, _whole(gray, plain, backend), []
    # the search needs nothing of the plain pass: on two cores both run beside it
    hint = statistics.median(k.size for k in known) if known else None
    places = find_candidates(gray, hint, half(gray))      # rows: x, y, r
    # candidates only where the plain pass read nothing and no known code is being re-checked
    pending = [Hit("", k.corners) for k in known]
    # Stickers on one table are one size, and most candidates are stickers: much smaller ones are card
    # text or art; and where the plain pass read stickers, they give the size
    least = TOO_SMALL * _upper_quartile(places[:, 2].tolist()) if len(places) else 0.0
    early: dict[tuple[float, float, float], tuple[list[Hit], bool]] = {}
    if pending_plain:
        early = _read_while_plain_runs(gray, places[places[:, 2] >= least], pending, backend, pending_plain)
        plain, found = pending_plain.result()
    jobs = [_known_job(k) for k in known if not _seen(k, plain)]
    sides = [h.side for h in plain if PAYLOAD_RE.fullmatch(h.text)]
    lo, hi = _size_range(statistics.median(sides)) if sides else (least, math.inf)
    sized = places[(lo <= places[:, 2]) & (places[:, 2] <= hi)]
    jobs += [Job(Candidate(x, y, r)) for x, y, r in sized[_off_reads(sized, plain, pending)].tolist()]
    if not jobs:
        return plain, finish(gray, found, backend) or _whole(gray, plain, backend), []
    hits: list[Hit] = []
    first = _first_reads(gray, jobs, backend, early)
    for hs, _nearly in first:
        hits += hs
    # the codes the plain pass found but could not decode, where no cut has read one
    hits += finish(gray, [f for f in found if not _explained(Candidate(*f.center, f.side / 2), hits)], backend)
    unread = [(j, nearly) for j, (hs, nearly) in zip(jobs, first, strict=True)
              if not hs and not _explained(j.cand, hits)]
    read_sizes = [j.cand.ppm for j, (hs, _nearly) in zip(jobs, first, strict=True) if hs and not j.known]
    ref = statistics.median(read_sizes) if read_sizes else (
        statistics.median(k.size for k in known) / 21 * SIZE_BIAS if known else None)
    # more work (a second way, or fusing a burst) only for places of a plausible size that look like
    # a code (the look is tested last: it costs as much as a small read). Most candidates on a table
    # are stickers; where the places left outnumber the stickers the cuts read, they are mostly card
    # art that looks like code texture, and in a single frame only those where the decoder found a
    # code it could not decode get a second way (art is never found as one)
    again = [(j, nearly) for j, nearly in unread
             if (j.known or ref is None or j.cand.ppm >= PLAUSIBLE_SIZE * ref)
             and (want_left or len(ways(j.cand.ppm)) > 1)]
    if not want_left and len(again) > len(read_sizes):
        again = [(j, nearly) for j, nearly in again if nearly]
    # (a place where zxing-cpp found a code it could not decode needs no look test: art is never found)
    looks = {id(j) for j in _look_like_codes(gray, [j for j, nearly in again if not nearly])}
    second = [j for j, nearly in again if nearly or id(j) in looks]
    left = []
    if second:
        for j, (hs, _nearly) in zip(second, read_jobs(gray, second, backend, 1), strict=True):
            hits += hs
            if not hs:
                left.append(j)
    # and every candidate still unread from OTHER_FROM px/module up: read not as a sticker (no hard
    # sharpening, no fixed threshold), where a low-contrast or speckled code fails the sticker's ways
    # (cuts.other_readings). Where codes were read and such places outnumber the stickers the cuts
    # read, they are mostly card art, and only those where the decoder found a code get them
    others = [(j, nearly) for j, nearly in unread if not j.known and j.cand.ppm >= OTHER_FROM]
    if (plain or read_sizes) and len(others) > len(read_sizes):
        others = [(j, nearly) for j, nearly in others if nearly]
    rest = [j for j, _nearly in others]
    for step in range(2):
        rest = [j for j in rest if not _explained(j.cand, hits)]
        if not rest:
            break
        for hs, _nearly in read_jobs(gray, rest, backend, step, other=True):
            hits += hs
    if not hits:
        hits = _whole(gray, plain, backend)
    return plain, hits, left


EARLY_BATCH = 4      # candidates read at a time while the plain pass runs (it is asked between batches)


def _read_while_plain_runs(gray: np.ndarray, places: np.ndarray, pending: Sequence[Hit], backend: str,
                           plain_pass) -> dict[tuple[float, float, float], tuple[list[Hit], bool]]:
    """The first reading of the candidates (rows x, y, r), made on this thread while the plain pass runs
    on the other, a few at a time until it is done. Which candidates are read is still decided
    by what the plain pass reads (``_first_reads`` takes these readings for those it keeps and reads the
    rest): this only moves work into the time this thread would otherwise wait. Busy card art makes
    dozens of candidates where the plain pass reads few stickers (2.2 px/module): read after it, they
    cost half as much again as the plain pass."""
    out: dict[tuple[float, float, float], tuple[list[Hit], bool]] = {}
    off = places[_off_reads(places, [], pending)]
    # the stickers on a table are one size and most places are stickers: those nearest the middle size
    # first, the art of other sizes (which the plain pass's sizes will mostly rule out) last
    rows = off[np.argsort(np.abs(off[:, 2] - np.median(off[:, 2])), kind="stable")].tolist() if len(off) else []
    for k in range(0, len(rows), EARLY_BATCH):
        if plain_pass.done():
            break
        batch = rows[k:k + EARLY_BATCH]
        for row, reading in zip(batch, read_jobs(gray, [Job(Candidate(*row)) for row in batch], backend, 0),
                                strict=True):
            out[(row[0], row[1], row[2])] = reading
    return out


def _first_reads(gray: np.ndarray, jobs: Sequence[Job], backend: str,
                 early: dict[tuple[float, float, float], tuple[list[Hit], bool]]) -> list[tuple[list[Hit], bool]]:
    """Each job's first reading: the one made while the plain pass ran, or made now."""
    keys = [None if j.known else (j.cand.x, j.cand.y, j.cand.r) for j in jobs]
    todo = [i for i, key in enumerate(keys) if key not in early]
    out: list[tuple[list[Hit], bool]] = [early[key] if key in early else ([], False) for key in keys]
    for i, reading in zip(todo, read_jobs(gray, [jobs[i] for i in todo], backend, 0), strict=True):
        out[i] = reading
    return out


def _whole(gray: np.ndarray, plain: Sequence[Hit], backend: str) -> list[Hit]:
    """A small frame (a photo, not a camera's wide view of a table) in which nothing was read, read
    whole with the other binarizer, as it is and at half size: a code that fills the picture is too big
    for the candidate search, which cuts pieces of it, and where the plain pass's adaptive binarizer
    fails on a speckled or patterned one, one threshold for the whole picture can succeed."""
    if plain or gray.size >= SMALL_FRAME or backend != "zxing-cpp":
        return []
    hits, _nearly = readers.read(gray, backend, readers.GLOBAL)
    if not hits and min(gray.shape) >= 2 * 21:
        halved = half(gray)
        hits, _nearly = readers.read(halved, backend, readers.GLOBAL, scale=halved.shape[1] / gray.shape[1])
    return hits


def _seen(k: Detection, hits: Sequence[Hit]) -> bool:
    """A known code read again, at its place."""
    return any(h.text == k.payload and (h.center[0] - k.center[0]) ** 2 + (h.center[1] - k.center[1]) ** 2
               < (0.5 * h.side) ** 2 for h in hits)


def _known_job(k: Detection) -> Job:
    """A known code's re-check: a cut of KNOWN_CUT code sides where it was."""
    size = max(4.0, k.size)
    return Job(Candidate(k.center[0], k.center[1], size / 2 * SIZE_BIAS, cut=KNOWN_CUT * size / 2 + 3), known=True)


def _upper_quartile(xs: list[float]) -> float:
    """numpy's 75th percentile (linear between the two nearest), without numpy's cost on a short list."""
    xs = sorted(xs)
    k = 0.75 * (len(xs) - 1)
    i = int(k)
    return xs[i] + (xs[min(i + 1, len(xs) - 1)] - xs[i]) * (k - i)


def _size_range(side: float) -> tuple[float, float]:
    """The candidate sizes (``r``) that a code of this side gives: the search measures codes SIZE_BIAS
    too big, give or take a third, and to its quarter-size grid (4 pixels)."""
    return SIZE_BIAS * side / 2 * 0.65 - 4, SIZE_BIAS * side / 2 * 1.35 + 4


def _off_reads(places: np.ndarray, plain: Sequence[Hit], pending: Sequence[Hit]) -> np.ndarray:
    """For each place (rows x, y, r): its centre lies neither on a code the plain pass read (the
    code's square and a module of quiet zone, or near its centre as ``_explained`` has it) nor near a
    known code being re-checked. All pairs at once: busy card art makes dozens of places and the plain
    pass reads dozens of stickers, and pair by pair in Python that cost more than reading the cuts."""
    xy, r = places[:, :2], places[:, 2:]
    off = np.ones(len(places), bool)
    if not len(places):
        return off
    if plain:
        corners = np.array([h.corners for h in plain])             # (H, 4, 2)
        edges = np.roll(corners, -1, axis=1) - corners
        length = np.hypot(edges[..., 0], edges[..., 1])
        length[length == 0] = 1.0
        # each centre's distance from each edge's line, signed by side (a mirrored code runs the other way)
        rel = xy[:, None, None, :] - corners[None]                 # (C, H, 4, 2)
        d = (edges[None, ..., 0] * rel[..., 1] - edges[None, ..., 1] * rel[..., 0]) / length[None]
        margin = np.array([h.side / 21 for h in plain])[None]      # (1, H)
        inside = (d.min(axis=2) >= -margin) | (d.max(axis=2) <= margin)
        off &= ~(inside | _near_centres(xy, r, plain)).any(axis=1)
    if pending:
        off &= ~_near_centres(xy, r, pending).any(axis=1)
    return off


def _near_centres(xy: np.ndarray, r: np.ndarray, hits: Sequence[Hit]) -> np.ndarray:
    """(C, H): candidate i lies near the centre of hit j, as ``_explained`` measures it."""
    centre = np.array([h.center for h in hits])
    side = np.array([h.side for h in hits])
    d2 = ((xy[:, None, :] - centre[None]) ** 2).sum(axis=2)
    return d2 < (0.5 * side[None] + 0.3 * r) ** 2


def _look_like_codes(gray: np.ndarray, jobs: Sequence[Job]) -> list[Job]:
    """The jobs whose places look like a code: known codes, and places whose edges run every way (not
    a line of text or wood grain) in a texture that does not repeat itself (not a check or a dot
    screen: card art that the first way could not read either, as no code is a lattice)."""
    edged = [j for j in jobs if j.known or isotropy(gray, j.cand) >= PLAUSIBLE_ISOTROPY]
    repeats = iter(repetition(gray, [j.cand for j in edged if not j.known]).tolist())
    return [j for j in edged if j.known or next(repeats) < LATTICE]


def _explained(c: Candidate, hits: Sequence[Hit]) -> bool:
    for h in hits:
        if (c.x - h.center[0]) ** 2 + (c.y - h.center[1]) ** 2 < (0.5 * h.side + 0.3 * c.r) ** 2:
            return True
    return False


def _near(a: Hit, b: Hit) -> bool:
    return ((a.center[0] - b.center[0]) ** 2 + (a.center[1] - b.center[1]) ** 2
            < (SAME_PLACE * max(a.side, b.side)) ** 2)


def dedupe(plain: list[Hit], cuts: list[Hit]) -> list[Hit]:
    """One entry per code on the table. The plain pass's hits stand as the decoder gave them (so the
    result holds every one of them), and a cut's read at the place of one adds nothing. Among the
    cuts' reads, the same text twice at one place is one code (corners averaged); two texts at one
    place contradict each other, and neither is reported."""
    cuts = [h for h in cuts if not any(_near(h, p) for p in plain)]
    if not cuts:
        return list(plain)
    c = np.array([h.center for h in cuts])
    side = np.array([h.side for h in cuts])
    # near[i, j]: hits i and j lie at one place
    near = (((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
            < (SAME_PLACE * np.maximum(side[:, None], side)) ** 2).tolist()    # lists: read one by one
    groups: list[list[Hit]] = []
    firsts: list[int] = []          # each group's first hit, which the others are measured from
    for i, h in enumerate(cuts):
        for g, first in zip(groups, firsts, strict=True):
            if near[i][first]:
                g.append(h)
                break
        else:
            groups.append([h])
            firsts.append(i)
    out = list(plain)
    for g in groups:
        if len({h.text for h in g}) > 1:
            continue
        out.append(g[0] if len(g) == 1 else Hit(g[0].text, np.mean([h.corners for h in g], axis=0).tolist()))
    return out


def result(hits: list[Hit]) -> DecodeResult:
    codes: list[Detection] = []
    foreign: list[Detection] = []
    for h in hits:
        (codes if PAYLOAD_RE.fullmatch(h.text) else foreign).append(Detection(h.text, h.corners, h.center))
    return DecodeResult(codes, foreign)
