"""The staff login: one password, kept in a file as a hash (``companion cafe password`` writes one)
or, if the café prefers, as the plain password. Failed logins are rate-limited per address."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections import defaultdict, deque
from pathlib import Path

from companion.errors import BadInput
from companion.paths import command

# scrypt (RFC 7914) from the standard library; n = 2**14 keeps a Pi's login under a tenth of a second
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 14, 8, 1
PREFIX = "scrypt"
MAX_FAILURES = 5                 # per address ...
FAILURE_WINDOW_S = 300.0         # ... in this long; then it waits until the oldest failure is this old
SESSION_S = 12 * 3600            # a login lasts a shift
MIN_PASSWORD = 8                 # characters, for a password typed or kept plain in the file


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"{PREFIX}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def read_password_file(path: str | Path) -> str:
    """The file's first line: a hash made by ``companion cafe password``, or the password itself."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise BadInput(str(path), f"cannot read the password file: {e.strerror}") from None
    except UnicodeDecodeError:
        raise BadInput(str(path), "the password file is not UTF-8 text") from None
    line = text.splitlines()[0].strip() if text.strip() else ""
    if not line:
        raise BadInput(str(path), "the password file is empty; put the staff password (or its hash) on line 1")
    if line.startswith(PREFIX + "$"):
        _parse(line, str(path))
    elif len(line) < MIN_PASSWORD:
        raise BadInput(str(path), f"the password on line 1 is shorter than {MIN_PASSWORD} characters; use a longer "
                                  f"one, or its hash ('{command()} cafe password -o FILE')")
    return line


def _parse(stored: str, where: str = "password file"):
    try:
        _, n, r, p, salt, digest = stored.split("$")
        return int(n), int(r), int(p), base64.b64decode(salt, validate=True), base64.b64decode(digest, validate=True)
    except ValueError:
        raise BadInput(where, "line 1 starts with 'scrypt$' but is not a hash written by "
                              f"'{command()} cafe password'") from None


def check_password(stored: str, attempt: str) -> bool:
    if stored.startswith(PREFIX + "$"):
        n, r, p, salt, digest = _parse(stored)
        got = hashlib.scrypt(attempt.encode(), salt=salt, n=n, r=r, p=p, dklen=len(digest))
        return hmac.compare_digest(got, digest)
    return hmac.compare_digest(stored.encode(), attempt.encode())


class Gate:
    """Who is logged in (random session tokens, in memory) and who failed too often."""

    def __init__(self, stored: str | None, clock=time.monotonic):
        self.stored = stored
        self.clock = clock
        self._sessions: dict[str, float] = {}
        self._failures: dict[str, deque] = defaultdict(deque)

    @property
    def required(self) -> bool:
        return self.stored is not None

    def wait_s(self, address: str) -> float:
        """Seconds before ``address`` may try again (0: now)."""
        fails = self._failures[address]
        now = self.clock()
        while fails and now - fails[0] > FAILURE_WINDOW_S:
            fails.popleft()
        return 0.0 if len(fails) < MAX_FAILURES else FAILURE_WINDOW_S - (now - fails[0])

    def login(self, address: str, attempt: str) -> str | None:
        """A session token, or None (a failure is counted)."""
        if self.stored is None or not check_password(self.stored, attempt):
            self._failures[address].append(self.clock())
            return None
        self._failures.pop(address, None)
        token = secrets.token_urlsafe(32)
        self._sessions[token] = self.clock() + SESSION_S
        return token

    def valid(self, token: str | None) -> bool:
        if self.stored is None:
            return True
        expires = self._sessions.get(token or "")
        return expires is not None and expires > self.clock()

    def logout(self, token: str | None) -> None:
        self._sessions.pop(token or "", None)
