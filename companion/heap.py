"""Giving the memory the kiosk has freed back to the system.

The camera frames, the rendered scenes and the decoder's crops are large arrays, allocated and freed
many times a second. glibc's allocator keeps much of what is freed for later instead of returning it:
in the demo the process held 60-100 MB of freed heap above the ~240 MB it was using
(``companion bench kiosk`` measures both). ``malloc_trim`` hands that back; it takes well under a
millisecond, so the kiosk calls it once a minute. Elsewhere (not glibc) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache


@lru_cache(maxsize=1)
def _malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def trim() -> bool:
    """Return freed heap memory to the system; False where the C library cannot."""
    fn = _malloc_trim()
    if fn is None:
        return False
    fn(0)
    return True
