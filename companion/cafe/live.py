"""The live page's news: what changed, worked out once for every viewer.

A :class:`Hub` looks at the store's list of changes twice a second (:meth:`CafeStore.changes_since`)
and, for each language, turns them into server-sent events that every open page receives alike:

- ``tiles``: JSON ``{table: {slot: html, ...}}`` with only the slots of a tile that changed (a turn
  passing changes ``turn`` and perhaps ``round``: some tens of bytes); ``{"html": ...}`` for a new
  table, ``null`` for a table that is gone;
- ``plays``: JSON ``{"rows": [[id, sort, html], ...]}``, the history's rows that started or ended;
- ``figures``: the figures' HTML, when they changed, at most every :data:`FIGURES_EVERY_S`;
- ``health``: whether the dashboard records (the badge and the banner), when it changes;
- ``reload``: the page is too far behind (or the dashboard restarted): it reloads itself.

Each event is rendered and encoded once and kept in a short ring; a viewer only copies bytes out
of it, so a page costs the same however many staff have it open.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)
LANGS = ("en", "es")
TICK_S = 0.5
FIGURES_EVERY_S = 10.0
KEPT_TICKS = 240                # about two minutes of news: a page away longer reloads
SLOTS = ("cls", "online", "game", "players", "result", "turn", "round", "clock", "health", "rejected", "retire")


def sse(event: str, data: str, ident: str | None = None) -> bytes:
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return ((f"id: {ident}\n" if ident else "") + f"event: {event}\n{lines}\n").encode()


class Hub:
    """``render(lang)`` gives the page's renderer for a language: an object with ``tile_slots(tb)``,
    ``tile(tb, slots)``, ``play_row(p)``, ``figures()`` (HTML strings)."""

    def __init__(self, store, renderers: Callable[[str], object], tick_s: float = TICK_S,
                 figures_every_s: float = FIGURES_EVERY_S, health: Callable[[str], dict] | None = None):
        self.store = store
        self.health = health or (lambda lang: {"state": "live", "badge": "live", "banner": ""})
        self._health: dict[str, dict] = {}
        self.renderers = renderers
        self.tick_s = tick_s
        self.figures_every_s = figures_every_s
        self.epoch = secrets.token_hex(4)     # a restarted dashboard is another epoch: pages reload
        self.seq = 0
        self._store_seq = 0
        self._history_version = getattr(store, "history_version", 0)
        self._ring: deque[tuple[int, dict[str, bytes]]] = deque(maxlen=KEPT_TICKS)
        self._slots: dict[str, dict[str, dict[str, str]]] = {lang: {} for lang in LANGS}
        # each tile's whole HTML and sort key, kept with its slots: a page is drawn from these, not the
        # database, so opening it costs a join of strings however many tables there are
        self._tiles: dict[str, dict[str, tuple[str, str]]] = {lang: {} for lang in LANGS}
        self._lock = threading.Lock()
        self._figures_html: dict[str, str] = {}
        self._figures_version = -1
        self._figures_at = 0.0
        self._news: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    # -- the hub's own task ---------------------------------------------------------------------
    def ensure_started(self) -> None:
        """In the server's event loop: start ticking (the first page or stream does it)."""
        if self._task is None:
            self._news = asyncio.Event()
            self._baseline()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            try:
                events = await asyncio.to_thread(self._tick)
            except Exception:         # a fault here must not stop the page: said, and tried at the next tick
                log.exception("the live page could not work out what changed")
                continue
            if events:
                self.seq += 1
                self._ring.append((self.seq, events))
                assert self._news is not None
                self._news.set()
                self._news = asyncio.Event()

    def _baseline(self) -> None:
        """What the pages show now: every tile's slots, the figures (kept to diff against)."""
        store_seq = self.store.change_seq
        tables = self.store.tables()
        slots: dict[str, dict[str, dict[str, str]]] = {}
        tiles: dict[str, dict[str, tuple[str, str]]] = {}
        for lang in LANGS:
            r: Any = self.renderers(lang)
            slots[lang] = {tb["table"]: r.tile_slots(tb) for tb in tables}
            tiles[lang] = {tb["table"]: (tb["sort"], r.tile(tb, slots[lang][tb["table"]])) for tb in tables}
        figures = {lang: self.renderers(lang).figures() for lang in LANGS}   # type: ignore[attr-defined]
        self._health = {lang: self.health(lang) for lang in LANGS}     # each stream starts with its own
        with self._lock:
            self._store_seq = store_seq
            self._slots, self._tiles, self._figures_html = slots, tiles, figures
            self._figures_version = self.store.plays_version
            self._figures_at = time.monotonic()

    def _tick(self) -> dict[str, bytes]:
        seq, tables, plays, complete = self.store.changes_since(self._store_seq)
        if getattr(self.store, "history_version", 0) != self._history_version:     # plays removed: drawn again
            self._history_version = getattr(self.store, "history_version", 0)
            complete = False
        if not complete:
            self._baseline()
            return {lang: sse("reload", "") for lang in LANGS}
        self._store_seq = seq
        out: dict[str, list[bytes]] = {lang: [] for lang in LANGS}
        if tables:
            rows = {tb["table"]: tb for tb in self.store.tables(sorted(tables))}
            for lang in LANGS:
                r = self.renderers(lang)
                known = self._slots[lang]
                diff: dict[str, dict | None] = {}
                for name in sorted(tables):
                    tb = rows.get(name)
                    if tb is None:
                        with self._lock:
                            self._tiles[lang].pop(name, None)
                            gone = known.pop(name, None)
                        if gone is not None:
                            diff[name] = None
                        continue
                    slots = r.tile_slots(tb)          # type: ignore[attr-defined]
                    old = known.get(name)
                    if old == slots:
                        continue
                    html = r.tile(tb, slots)          # type: ignore[attr-defined]
                    with self._lock:
                        known[name] = slots
                        self._tiles[lang][name] = (tb["sort"], html)
                    if old is None:
                        diff[name] = {"html": html, "sort": tb["sort"]}
                    else:
                        diff[name] = {k: v for k, v in slots.items() if old.get(k) != v}
                if diff:
                    out[lang].append(sse("tiles", json.dumps(diff, ensure_ascii=False, separators=(",", ":"))))
        if plays:
            rows_p = self.store.plays(keys=sorted(plays))
            for lang in LANGS:
                r = self.renderers(lang)
                body = {"rows": [[p["id"], p["sort"], r.play_row(p)] for p in rows_p]}   # type: ignore[attr-defined]
                out[lang].append(sse("plays", json.dumps(body, ensure_ascii=False, separators=(",", ":"))))
        now = time.monotonic()
        if self.store.plays_version != self._figures_version and now - self._figures_at >= self.figures_every_s:
            self._figures_version = self.store.plays_version
            self._figures_at = now
            for lang in LANGS:
                html = self.renderers(lang).figures()      # type: ignore[attr-defined]
                if html != self._figures_html.get(lang):
                    self._figures_html[lang] = html
                    out[lang].append(sse("figures", html))
        for lang in LANGS:
            health = self.health(lang)
            if health != self._health.get(lang):
                self._health[lang] = health
                out[lang].append(sse("health", json.dumps(health, ensure_ascii=False)))
        events = {lang: b"".join(parts) for lang, parts in out.items() if parts}
        return events

    # -- a viewer -------------------------------------------------------------------------------
    def cursor(self) -> str:
        """Where a page rendered now starts reading (taken before the page reads the store)."""
        return f"{self.epoch}-{self.seq}"

    def snapshot(self, lang: str) -> tuple[str, list[str], str]:
        """(cursor, every tile's HTML in order, the figures' HTML) as the pages have them now: a new
        page starts from here and the events after the cursor bring it up to date."""
        with self._lock:
            since = self.cursor()
            tiles = [html for _, html in sorted(self._tiles[lang].values())]
            figures = self._figures_html[lang]
        return since, tiles, figures

    async def stream(self, lang: str, since: str | None, is_disconnected, keepalive_s: float = 15.0):
        """The events after ``since`` (a :meth:`cursor`) for one viewer, as bytes."""
        self.ensure_started()
        lang = lang if lang in LANGS else "en"
        epoch, _, n = (since or "").partition("-")
        if epoch != self.epoch or not n.isdigit() or int(n) > self.seq:
            yield sse("reload", "", self.cursor())
            return
        at = int(n)
        yield sse("health", json.dumps(self.health(lang), ensure_ascii=False))   # what the badge says now
        quiet_since = time.monotonic()
        while not await is_disconnected():
            if self._ring and self._ring[0][0] > at + 1:        # it fell behind what is kept
                yield sse("reload", "", self.cursor())
                return
            sent = False
            for n_, events in list(self._ring):
                if n_ > at:
                    at = n_
                    if lang in events:
                        yield f"id: {self.epoch}-{at}\n".encode() + events[lang]
                        sent = True
            if sent:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > keepalive_s:
                yield b": still here\n\n"           # keeps proxies from closing a quiet stream
                quiet_since = time.monotonic()
            news = self._news
            if news is None:
                return
            try:
                await asyncio.wait_for(news.wait(), keepalive_s)
            except TimeoutError:
                pass
