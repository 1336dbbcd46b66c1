"""A Mosquitto broker of our own on a loopback port: what the tests and ``companion bench cafe``
run against (the real broker, never a mock), written the way docs/cafe.md tells a café to set it up."""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

ACL_TEMPLATE = """# the dashboard reads every table
user {dashboard}
topic read cafe/#
# a kiosk logs in as its table's name and may write only under it
pattern write cafe/%u/#
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)


class Mosquitto:
    """``users``: {name: password} turns anonymous access off and writes the password file and ACL."""

    def __init__(self, folder: Path, port: int | None = None, users: dict[str, str] | None = None,
                 dashboard_user: str = "dashboard"):
        self.folder = Path(folder)
        self.port = port or free_port()
        self.users = users
        self.proc: subprocess.Popen | None = None
        self.folder.mkdir(parents=True, exist_ok=True)
        # run as whoever started it (root would otherwise switch to the 'mosquitto' user, who may not
        # write to our folder)
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1",
                 "persistence true", f"persistence_location {self.folder}/",
                 # saved after every change, so a broker killed outright keeps what it acknowledged
                 "autosave_on_changes true", "autosave_interval 1",
                 "max_queued_messages 0", "log_dest stderr", "log_type error"]
        if users is None:
            lines.append("allow_anonymous true")
        else:
            passwd = self.folder / "passwd"
            passwd.write_text("")
            for name, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwd), name, password], check=True,
                               capture_output=True)
            (self.folder / "acl").write_text(ACL_TEMPLATE.format(dashboard=dashboard_user))
            lines += ["allow_anonymous false", f"password_file {passwd}", f"acl_file {self.folder / 'acl'}"]
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def url_for(self, user: str) -> str:
        return f"mqtt://{user}:{self.users[user]}@127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> "Mosquitto":
        binary = mosquitto_binary()
        if binary is None:
            raise RuntimeError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.proc = subprocess.Popen([binary, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.proc.stderr.read().decode(errors='replace')}")
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

    def __enter__(self) -> "Mosquitto":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
