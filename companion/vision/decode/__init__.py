"""Reading the stickers in a camera frame: every code that is truly decoded, and nothing else.

The stickers are small in a wide frame (2-3 pixels per code module), where a plain full-frame decode
misses many. So, per frame, by stage (one module each):

1. ``readers``: zxing-cpp's plain full-frame pass runs on every frame, exactly as zxing-cpp reads
   by default (QR Model 2, dark on light), so the decoder reads at least everything it reads: big
   codes, close-ups and codes of any size it finds. On a small frame (a photo) it also reports the
   codes it found but could not decode (one call, ``plain_found``), and where it found none, the
   frame is done (a photo's codes are big enough for zxing-cpp's own detector). It runs on the other
   thread while this one searches for candidates (a small frame: first, on this thread);
2. ``candidates``: regions dense with module-sized contrast (a code with its white quiet zone), found
   on a half-size image.
   Much smaller ones than most (card text and art) are skipped, and so are places where
   the plain pass read a code (all places against all its reads in one go);
3. ``cuts``: every other candidate is cut out and read in the way its size calls for (as it is from
   about 3 px per module, else upscaled 1.5-2.5x with strong sharpening to undo the lens blur, and
   cut into black and white at the sticker's own grey levels). The cuts of one way are tiled into
   one picture, sharpened and scaled in one go, and each tile is decoded on its own; places that
   still look like a code (edges every way, a texture that does not repeat itself: not a check or a
   dot screen of card art) get a second way with a wider cut (not the smallest codes); candidates
   still unread from about 2.4 px per module get readings not tuned to stickers (unsharpened with a
   global threshold, and half-size from about 4 px per module; among many places of card art, only
   where the decoder found a code);
4. ``finish``: the codes the plain pass found but could not decode (a small frame), where no cut read one, are
   turned square and read again (as they are, with the other binarizer, 2x, half size) within a
   bounded budget a frame;
5. ``frame``: ``decode``, with ``known``: codes already confirmed on the table (the tracker passes
   them) are re-checked in cuts where they were, and candidates are searched only where no code was
   read or is being re-checked; a small frame (a photo) in which nothing was read is read whole with
   the other binarizer, as it is and at half size (a code that fills the picture is too big for the
   search);
6. ``burst``: ``decode_burst``, several frames of a still table. The first is decoded as above; the
   places it leaves unread are cut from every frame, aligned to a fraction of a pixel, upscaled onto
   a common grid and averaged before decoding (less noise, and the camera's small shake samples the
   sticker at different sub-pixel offsets, so the average holds more detail than any single frame).

A code counts only when a decoder returned its text for it (Reed-Solomon checked). Nothing is ever
filled in from what is expected. The plain pass's reads stand as it gave them; two different texts
that cuts decoded at one place are both dropped. Texts of the sticker form (``TC:<DECK>:<NUMBER>``)
go to ``codes``, any other barcode text to ``foreign``; which card a code names is looked up in one
place, ``companion.vision.identify``.

zxing-cpp is the decoder; pyzbar (over the system's libzbar0) is the fallback, used when zxing-cpp is
missing or when asked for (``decoder="pyzbar"``). Where libzbar0 is missing, ``decoder_status``
says so in one line and zxing-cpp goes on alone.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.decode.burst import decode_burst
from companion.vision.decode.frame import DecodeResult, Detection, decode
from companion.vision.decode.readers import decoder_status, note_once

__all__ = ["DecodeResult", "Detection", "decode", "decode_burst", "decoder_status", "note_once", "warm_up"]


def warm_up() -> None:
    """Load the decoders and OpenCV's routines, and run every path once, so that the first real frame
    is timed like any other."""
    from companion.vision.stickers import make_sticker_matrix

    code = np.pad(make_sticker_matrix("TC:DEMO:001"), 4)
    img = np.full((240, 320), 190, np.uint8)
    sticker = np.where(code, 30, 245).astype(np.uint8)
    small = cv2.resize(sticker, (58, 58), interpolation=cv2.INTER_AREA)     # about 2 px per module
    img[40:98, 40:98] = small
    big = cv2.resize(sticker, (116, 116), interpolation=cv2.INTER_AREA)
    img[100:216, 180:296] = big
    for name in ("zxing-cpp", "pyzbar"):
        if decoder_status()[name]:
            decode(img, decoder=name)
    decode_burst([img, img])
