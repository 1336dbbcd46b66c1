"""A Mosquitto broker of our own on a loopback port: what the tests and ``companion bench cafe``
run against (the real broker, never a mock), written the way docs/cafe.md tells a café to set it up."""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

from companion.paths import PROJECT_ROOT

# the settings pi/install.sh --with-broker installs: the tests and the bench run under the same ones
INSTALLED_CONF = PROJECT_ROOT / "pi" / "mosquitto" / "companion-cafe.conf"
INSTALLED_ACL = PROJECT_ROOT / "pi" / "mosquitto" / "companion-cafe.acl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)


class Mosquitto:
    """``users``: {name: password} (tables by their names, and ``dashboard``) turns anonymous access
    off, as installed, with a password file and the installed ACL. ``settings="stock"`` runs a stock
    Debian Mosquitto instead: ``persistence true`` and nothing else of ours (anonymous, no ACL)."""

    def __init__(self, folder: Path, port: int | None = None, users: dict[str, str] | None = None,
                 settings: str = "installed"):
        self.folder = Path(folder)
        self.port = port or free_port()
        self.users = users
        self.proc: subprocess.Popen | None = None
        self.folder.mkdir(parents=True, exist_ok=True)
        # run as whoever started it (root would otherwise switch to the 'mosquitto' user, who may not
        # write to our folder), on a loopback port, with the installed settings for the rest
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1",
                 f"persistence_location {self.folder}/", "log_dest stderr", "log_type error"]
        installed = INSTALLED_CONF.read_text().splitlines() if settings == "installed" else \
            ["allow_anonymous false", "password_file", "acl_file", "persistence true"]
        for line in installed:
            key = line.split(" ", 1)[0]
            if line.startswith("#") or not line.strip() or key == "listener":
                continue
            if key == "allow_anonymous" and users is None:
                line = "allow_anonymous true"
            elif key == "use_username_as_clientid" and users is None:
                continue            # it refuses clients without a login
            elif key in ("password_file", "acl_file"):
                if users is None:
                    continue
                line = f"{key} {self.folder / key}"
            lines.append(line)
        if users is not None:
            passwd = self.folder / "password_file"
            passwd.write_text("")
            for name, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwd), name, password], check=True,
                               capture_output=True)
            shutil.copyfile(INSTALLED_ACL, self.folder / "acl_file")
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def url_for(self, user: str) -> str:
        assert self.users is not None, "a broker without logins"
        return f"mqtt://{user}:{self.users[user]}@127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> Mosquitto:
        binary = mosquitto_binary()
        if binary is None:
            raise RuntimeError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.proc = subprocess.Popen([binary, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto exited: {said}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def kill(self) -> None:
        """SIGKILL: no goodbye, no final save."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
