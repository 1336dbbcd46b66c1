"""The code inside a card sticker, as modules (what print draws and what the scene generator renders).

A sticker's code is a QR version 1 symbol (21 x 21 modules) at error level Q in alphanumeric mode:
every payload ``TC:<2-8 chars>:<1-4 digits>`` (at most 16 characters) fits, so all stickers have the
same module count and, for a given printed size, the largest modules possible. Level Q (not H) is
what leaves room for 16 characters in version 1; it still corrects 6 of 26 codewords.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import segno

from companion.errors import BadInput

STICKER_ECC = "Q"
STICKER_VERSION = 1
STICKER_MODULES = 21


@lru_cache(maxsize=8192)
def _matrix(payload: str, mask: int | None) -> bytes:
    try:
        qr = segno.make_qr(payload, error=STICKER_ECC.lower(), mode="alphanumeric", version=STICKER_VERSION,
                           boost_error=False, mask=mask)
    except ValueError as e:  # segno's DataOverflowError is a ValueError too
        raise BadInput(payload, f"cannot be a sticker code (QR version 1, level {STICKER_ECC}, "
                                f"alphanumeric): {e}") from None
    return np.array(qr.matrix, dtype=bool).tobytes()


def make_sticker_matrix(payload: str, mask: int | None = None) -> np.ndarray:
    """The 21 x 21 modules of the sticker code for ``payload``, True = dark, no quiet zone.

    ``mask`` forces one of the 8 QR data masks (default: the one the QR rules choose, which is what
    the printed stickers use)."""
    return np.frombuffer(_matrix(payload, mask), dtype=bool).reshape(STICKER_MODULES, STICKER_MODULES).copy()
