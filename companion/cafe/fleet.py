"""Many virtual tables on one machine: spread over worker processes of at most :data:`PER_PROCESS`.

Each virtual table holds about ten file descriptors (its game log and the outbox's connection to
it, with their WAL files, and its MQTT socket). paho-mqtt waits on its sockets with ``select()``,
which cannot watch a descriptor numbered 1024 or more, so a process with ~100 tables stops
publishing. A :class:`Fleet` therefore runs its tables in worker processes (``python -m
companion.cafe.simulate``, its :func:`~companion.cafe.simulate.worker`), each a plain Python process
with its own GIL, and speaks to them in JSON lines over their standard input and output:

- the parent writes the worker's tables, broker and settings as the first line;
- the worker prints ``{"ready": n}`` once its tables have their logs and publishers (``settle``: once
  every publisher is connected and has heard the dashboard's first confirmation, or after
  :data:`SETTLE_S`);
- ``go`` starts the players, ``stop`` asks them to stop after their current action;
- once its players are done it prints ``{"played": {...}}``;
- once the broker has acknowledged (or, ``until_confirmed``, the dashboard
  has confirmed) every action of its logs, the worker
  prints ``{"done": {"T01": {"games": g, "actions": a, "published": p}, ...}}`` and exits.

A worker whose parent goes away (its standard input closes) stops its tables and exits.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from pathlib import Path

from companion.broker import Broker

SETTLE_S = 60.0           # the longest a worker waits for its publishers to settle (``settle``)
PER_PROCESS = 50          # ~500 descriptors a process: far from select()'s 1024


class FleetError(RuntimeError):
    """A worker process failed; the message says which tables and what it printed."""


class Fleet:
    def __init__(self, names: list[str], folder: Path, broker: Broker, games: int, seed: int,
                 per_minute: float | None = None, per_process: int = PER_PROCESS, until_confirmed: bool = False,
                 settle: bool = False, elsewhere: bool = False,
                 brokers: dict[str, Broker] | None = None):
        self.names = names
        self.folder = Path(folder)
        self.broker = broker
        self.games = games
        self.seed = seed
        self.per_minute = per_minute
        self.until_confirmed = until_confirmed
        self.settle = settle                   # ready once connected and heard by the dashboard (bench cafe)
        # the tables stand in for kiosks on machines of their own (bench cafe): their workers take only the
        # CPU the café's own parts (broker, dashboard) leave, as a café's kiosks take none of theirs
        self.elsewhere = elsewhere
        self.brokers = brokers or {}           # a table's own login (cafe simulate --logins), by name
        self.groups = [names[i:i + per_process] for i in range(0, len(names), per_process)]
        self.procs: list[subprocess.Popen] = []
        self._played = False
        self._lock = threading.Lock()

    def start(self, timeout: float = 120.0) -> Fleet:
        """Every worker up with its tables' publishers connected or connecting (not yet playing)."""
        for group in self.groups:
            spec = {"names": group, "folder": str(self.folder), "broker": dataclasses.asdict(self.broker),
                    "games": self.games, "seed": self.seed, "per_minute": self.per_minute,
                    "until_confirmed": self.until_confirmed, "settle": self.settle,
                    "elsewhere": self.elsewhere,
                    "logins": {n: [self.brokers[n].username, self.brokers[n].password]
                               for n in group if n in self.brokers and self.brokers[n] != self.broker}}
            # the spec (logins included) on standard input, where 'ps' does not show it
            proc = subprocess.Popen([sys.executable, "-m", "companion.cafe.simulate"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True, bufsize=1)
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(spec) + "\n")
            proc.stdin.flush()
            self.procs.append(proc)
        for proc, group in zip(self.procs, self.groups, strict=True):
            self._expect(proc, group, "ready", timeout)
        return self

    def go(self) -> None:
        self._tell("go")

    def stop(self) -> None:
        """The players stop after their current action (steady play that lasts a set time)."""
        self._tell("stop")

    def wait_played(self, timeout: float | None = None) -> dict[str, dict]:
        """Per table, games finished and actions played, once every worker's players are done (before
        their logs are acknowledged or confirmed)."""
        out: dict[str, dict] = {}
        for proc, group in zip(self.procs, self.groups, strict=True):
            out.update(self._expect(proc, group, "played", timeout))
        self._played = True
        return {name: out[name] for name in self.names}

    def wait(self, timeout: float | None = None) -> dict[str, dict]:
        """Per table, games finished, actions played and log items published (offered again ones
        included), once every worker's logs are acknowledged (or confirmed)."""
        if not self._played:
            self.wait_played(timeout)
        out: dict[str, dict] = {}
        for proc, group in zip(self.procs, self.groups, strict=True):
            out.update(self._expect(proc, group, "done", timeout))
            proc.wait(30)
        return {name: out[name] for name in self.names}

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                try:
                    if proc.stdin is not None:
                        proc.stdin.close()
                except OSError:
                    pass
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _tell(self, word: str) -> None:
        for proc in self.procs:
            if proc.poll() is None and proc.stdin is not None:
                try:
                    proc.stdin.write(word + "\n")
                    proc.stdin.flush()
                except OSError:
                    pass

    @staticmethod
    def _expect(proc: subprocess.Popen, group: list[str], key: str, timeout: float | None):
        assert proc.stdout is not None
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        line = got[0] if got else ""
        try:
            return json.loads(line)[key]
        except (ValueError, KeyError, TypeError):
            proc.kill()
            what = f"tables {group[0]}-{group[-1]}"
            if not got:
                raise FleetError(f"the worker process of {what} said nothing for {timeout} s") from None
            raise FleetError(f"the worker process of {what} stopped (exit {proc.wait()}); see above") from None
